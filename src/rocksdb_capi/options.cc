// rocksdb_options_t: its life (create, copy, destroy), RocksDB 7.8's defaults, the presets, and
// every setter and getter of an option ShaleDB has (mapped onto shale::Options). Knobs accepted
// without effect are in options_knobs.cc, compression in options_compression.cc, settings
// ShaleDB refuses at open in options_unsupported.cc, the C-callback objects in
// options_callbacks.cc.
//
// Thread-safety: a rocksdb_options_t is not safe to change from two threads at once (RocksDB's
// rule); the functions here touch only the handle they are given.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/cache.h"
#include "shale/merge_operator.h"
#include "shale/options.h"
#include "shale/statistics.h"

using shale::rocksdb_capi::CopyToMallocString;
using shale::rocksdb_capi::KnobText;
using shale::rocksdb_capi::KnobTextBool;
using shale::rocksdb_capi::SetKnob;

namespace {

// RocksDB 7.8's Options() where ShaleDB's defaults differ in a way a client can see (through a
// getter or the DB's behaviour). ShaleDB's other defaults are RocksDB's already (options.h).
void ApplyRocksDbDefaults(shale::Options* o) {
  o->compression = shale::kSnappyCompression;
  // RocksDB's compression_opts.level is "the codec's default" (zstd 3, LZ4HC 9), ShaleDB's 0.
  o->compression_level = 0;
  o->level_compaction_dynamic_level_bytes = false;
  o->max_manifest_file_size = 1024ull * 1024 * 1024;
  // RocksDB's close leaves logged writes in the WAL (clients rely on it, e.g. a restore with
  // keep_log_files replays them); ShaleDB's default flushes them at Close. Writes made without
  // the WAL are flushed at close either way, as RocksDB's default does.
  o->avoid_flush_during_shutdown = true;
  // RocksDB's data blocks restart every 16 keys (ShaleDB's every 4: faster point reads, a few
  // per cent more bytes); a RocksDB client gets RocksDB's file layout and size.
  o->table_options.block_restart_interval = 16;
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- Life of the handle

rocksdb_options_t* rocksdb_options_create(void) {
  auto* options = new rocksdb_options_t;
  ApplyRocksDbDefaults(&options->rep);
  return options;
}

void rocksdb_options_destroy(rocksdb_options_t* options) { delete options; }

rocksdb_options_t* rocksdb_options_create_copy(rocksdb_options_t* options) {
  return new rocksdb_options_t(*options);
}

// ---------------------------------------------------------------- Presets

void rocksdb_options_increase_parallelism(rocksdb_options_t* opt, int total_threads) {
  opt->rep.IncreaseParallelism(total_threads);
}

// RocksDB's preset also sets memtable_prefix_bloom_size_ratio = 0.02 and
// memtable_whole_key_filtering: memtable filters ShaleDB does not build (knobs).
void rocksdb_options_optimize_for_point_lookup(rocksdb_options_t* opt,
                                               uint64_t block_cache_size_mb) {
  opt->rep.OptimizeForPointLookup(block_cache_size_mb);
  SetKnob(opt, "memtable_prefix_bloom_size_ratio", KnobText(0.02));
  SetKnob(opt, "memtable_whole_key_filtering", KnobTextBool(true));
}

// RocksDB's OptimizeLevelStyleCompaction: memtables of a quarter of the budget, L1 the size of
// the budget, levels 0 and 1 uncompressed and the rest LZ4 (RocksDB falls back to Snappy, then
// to none, when its build lacks LZ4). Merging two memtables per flush is a knob here.
void rocksdb_options_optimize_level_style_compaction(rocksdb_options_t* opt,
                                                     uint64_t memtable_memory_budget) {
  shale::Options& o = opt->rep;
  o.write_buffer_size = static_cast<size_t>(memtable_memory_budget / 4);
  SetKnob(opt, "min_write_buffer_number_to_merge", KnobText(int64_t{2}));
  o.max_write_buffer_number = 6;
  o.level0_file_num_compaction_trigger = 2;
  o.target_file_size_base = memtable_memory_budget / 8;
  o.max_bytes_for_level_base = memtable_memory_budget;
  o.compaction_style = shale::kCompactionStyleLevel;
  opt->compression_per_level.assign(static_cast<size_t>(std::max(o.num_levels, 0)),
                                    shale::kLZ4Compression);
  for (size_t i = 0; i < opt->compression_per_level.size() && i < 2; i++) {
    opt->compression_per_level[i] = shale::kNoCompression;
  }
}

// RocksDB's OptimizeUniversalStyleCompaction: memtables of a quarter of the budget, merged two
// at a time (a knob here), universal style, compaction_size_percent 80 for the universal
// options (no counterpart here: a knob).
void rocksdb_options_optimize_universal_style_compaction(rocksdb_options_t* opt,
                                                         uint64_t memtable_memory_budget) {
  shale::Options& o = opt->rep;
  o.write_buffer_size = static_cast<size_t>(memtable_memory_budget / 4);
  SetKnob(opt, "min_write_buffer_number_to_merge", KnobText(int64_t{2}));
  o.max_write_buffer_number = 6;
  o.compaction_style = shale::kCompactionStyleUniversal;
  SetKnob(opt, "compaction_options_universal.compression_size_percent", KnobText(int64_t{80}));
}

void rocksdb_options_prepare_for_bulk_load(rocksdb_options_t* opt) {
  opt->rep.PrepareForBulkLoad();
}

// ---------------------------------------------------------------- Opening the DB

void rocksdb_options_set_create_if_missing(rocksdb_options_t* opt, unsigned char v) {
  opt->rep.create_if_missing = v != 0;
}
unsigned char rocksdb_options_get_create_if_missing(rocksdb_options_t* opt) {
  return opt->rep.create_if_missing;
}

void rocksdb_options_set_create_missing_column_families(rocksdb_options_t* opt,
                                                        unsigned char v) {
  opt->rep.create_missing_column_families = v != 0;
}
unsigned char rocksdb_options_get_create_missing_column_families(rocksdb_options_t* opt) {
  return opt->rep.create_missing_column_families;
}

void rocksdb_options_set_error_if_exists(rocksdb_options_t* opt, unsigned char v) {
  opt->rep.error_if_exists = v != 0;
}
unsigned char rocksdb_options_get_error_if_exists(rocksdb_options_t* opt) {
  return opt->rep.error_if_exists;
}

void rocksdb_options_set_paranoid_checks(rocksdb_options_t* opt, unsigned char v) {
  opt->rep.paranoid_checks = v != 0;
}
unsigned char rocksdb_options_get_paranoid_checks(rocksdb_options_t* opt) {
  return opt->rep.paranoid_checks;
}

void rocksdb_options_set_env(rocksdb_options_t* opt, rocksdb_env_t* env) {
  opt->rep.file_system = env != nullptr ? env->file_system : shale::FileSystem::Default();
}

void rocksdb_options_set_skip_checking_sst_file_sizes_on_db_open(rocksdb_options_t* opt,
                                                                 unsigned char val) {
  opt->rep.skip_checking_sst_file_sizes_on_db_open = val != 0;
}
unsigned char rocksdb_options_get_skip_checking_sst_file_sizes_on_db_open(
    rocksdb_options_t* opt) {
  return opt->rep.skip_checking_sst_file_sizes_on_db_open;
}

void rocksdb_options_set_allow_ingest_behind(rocksdb_options_t* opt, unsigned char v) {
  opt->rep.allow_ingest_behind = v != 0;
}
unsigned char rocksdb_options_get_allow_ingest_behind(rocksdb_options_t* opt) {
  return opt->rep.allow_ingest_behind;
}

// ---------------------------------------------------------------- Memtables and the WAL

void rocksdb_options_set_write_buffer_size(rocksdb_options_t* opt, size_t s) {
  opt->rep.write_buffer_size = s;
}
size_t rocksdb_options_get_write_buffer_size(rocksdb_options_t* opt) {
  return opt->rep.write_buffer_size;
}

void rocksdb_options_set_db_write_buffer_size(rocksdb_options_t* opt, size_t s) {
  opt->rep.db_write_buffer_size = s;
}
size_t rocksdb_options_get_db_write_buffer_size(rocksdb_options_t* opt) {
  return opt->rep.db_write_buffer_size;
}

void rocksdb_options_set_max_write_buffer_number(rocksdb_options_t* opt, int n) {
  opt->rep.max_write_buffer_number = n;
}
int rocksdb_options_get_max_write_buffer_number(rocksdb_options_t* opt) {
  return opt->rep.max_write_buffer_number;
}

void rocksdb_options_set_max_total_wal_size(rocksdb_options_t* opt, uint64_t n) {
  opt->rep.max_total_wal_size = n;
}
uint64_t rocksdb_options_get_max_total_wal_size(rocksdb_options_t* opt) {
  return opt->rep.max_total_wal_size;
}

void rocksdb_options_set_atomic_flush(rocksdb_options_t* opt, unsigned char atomic_flush) {
  opt->rep.atomic_flush = atomic_flush != 0;
}
unsigned char rocksdb_options_get_atomic_flush(rocksdb_options_t* opt) {
  return opt->rep.atomic_flush;
}

void rocksdb_options_set_max_successive_merges(rocksdb_options_t* opt, size_t v) {
  opt->rep.max_successive_merges = v;
}
size_t rocksdb_options_get_max_successive_merges(rocksdb_options_t* opt) {
  return opt->rep.max_successive_merges;
}

// RocksDB's enum values are ShaleDB's (WALRecoveryMode). A value out of range is stored as
// given, as RocksDB does; DB::Open refuses it.
void rocksdb_options_set_wal_recovery_mode(rocksdb_options_t* opt, int mode) {
  opt->rep.wal_recovery_mode = static_cast<shale::WALRecoveryMode>(mode);
}
int rocksdb_options_get_wal_recovery_mode(rocksdb_options_t* opt) {
  return static_cast<int>(opt->rep.wal_recovery_mode);
}

// ---------------------------------------------------------------- Background work

void rocksdb_options_set_max_background_jobs(rocksdb_options_t* opt, int n) {
  opt->rep.max_background_jobs = n;
}
int rocksdb_options_get_max_background_jobs(rocksdb_options_t* opt) {
  return opt->rep.max_background_jobs;
}

void rocksdb_options_set_max_subcompactions(rocksdb_options_t* opt, uint32_t n) {
  opt->rep.max_subcompactions = n;
}
uint32_t rocksdb_options_get_max_subcompactions(rocksdb_options_t* opt) {
  return opt->rep.max_subcompactions;
}

// ---------------------------------------------------------------- Files and recovery

void rocksdb_options_set_max_open_files(rocksdb_options_t* opt, int n) {
  opt->rep.max_open_files = n;
}
int rocksdb_options_get_max_open_files(rocksdb_options_t* opt) {
  return opt->rep.max_open_files;
}

void rocksdb_options_set_max_manifest_file_size(rocksdb_options_t* opt, size_t v) {
  opt->rep.max_manifest_file_size = v;
}
size_t rocksdb_options_get_max_manifest_file_size(rocksdb_options_t* opt) {
  return static_cast<size_t>(opt->rep.max_manifest_file_size);
}

// RocksDB takes an int and treats any non-zero value as true. ShaleDB refuses use_fsync at open
// (not supported yet), visibly.
void rocksdb_options_set_use_fsync(rocksdb_options_t* opt, int use_fsync) {
  // not supported: use_fsync (refused at open)
  opt->rep.use_fsync = use_fsync != 0;
}
int rocksdb_options_get_use_fsync(rocksdb_options_t* opt) { return opt->rep.use_fsync ? 1 : 0; }

// ---------------------------------------------------------------- Observability

void rocksdb_options_enable_statistics(rocksdb_options_t* opt) {
  opt->rep.statistics = shale::CreateDBStatistics();
}

// RocksDB's layout, with RocksDB's "rocksdb." prefix on every name (ShaleDB prints "shale.").
// NULL when statistics are not enabled.
char* rocksdb_options_statistics_get_string(rocksdb_options_t* opt) {
  if (opt->rep.statistics == nullptr) return nullptr;
  const std::string text = opt->rep.statistics->ToString();
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    constexpr std::string_view kShale = "shale.";
    if (line.substr(0, kShale.size()) == kShale) {
      out += "rocksdb.";
      line.remove_prefix(kShale.size());
    }
    out += line;
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return CopyToMallocString(out);
}

// RocksDB takes an unsigned int; ShaleDB's field is an int (values above INT_MAX are stored as
// INT_MAX seconds, which is never in practice).
void rocksdb_options_set_stats_dump_period_sec(rocksdb_options_t* opt, unsigned int v) {
  opt->rep.stats_dump_period_sec = static_cast<int>(std::min<unsigned int>(v, INT_MAX));
}
unsigned int rocksdb_options_get_stats_dump_period_sec(rocksdb_options_t* opt) {
  return static_cast<unsigned int>(opt->rep.stats_dump_period_sec);
}

// ---------------------------------------------------------------- LSM shape

void rocksdb_options_set_num_levels(rocksdb_options_t* opt, int n) { opt->rep.num_levels = n; }
int rocksdb_options_get_num_levels(rocksdb_options_t* opt) { return opt->rep.num_levels; }

void rocksdb_options_set_level0_file_num_compaction_trigger(rocksdb_options_t* opt, int n) {
  opt->rep.level0_file_num_compaction_trigger = n;
}
int rocksdb_options_get_level0_file_num_compaction_trigger(rocksdb_options_t* opt) {
  return opt->rep.level0_file_num_compaction_trigger;
}

void rocksdb_options_set_level0_slowdown_writes_trigger(rocksdb_options_t* opt, int n) {
  opt->rep.level0_slowdown_writes_trigger = n;
}
int rocksdb_options_get_level0_slowdown_writes_trigger(rocksdb_options_t* opt) {
  return opt->rep.level0_slowdown_writes_trigger;
}

void rocksdb_options_set_level0_stop_writes_trigger(rocksdb_options_t* opt, int n) {
  opt->rep.level0_stop_writes_trigger = n;
}
int rocksdb_options_get_level0_stop_writes_trigger(rocksdb_options_t* opt) {
  return opt->rep.level0_stop_writes_trigger;
}

void rocksdb_options_set_target_file_size_base(rocksdb_options_t* opt, uint64_t n) {
  opt->rep.target_file_size_base = n;
}
uint64_t rocksdb_options_get_target_file_size_base(rocksdb_options_t* opt) {
  return opt->rep.target_file_size_base;
}

void rocksdb_options_set_target_file_size_multiplier(rocksdb_options_t* opt, int n) {
  opt->rep.target_file_size_multiplier = n;
}
int rocksdb_options_get_target_file_size_multiplier(rocksdb_options_t* opt) {
  return opt->rep.target_file_size_multiplier;
}

void rocksdb_options_set_max_bytes_for_level_base(rocksdb_options_t* opt, uint64_t n) {
  opt->rep.max_bytes_for_level_base = n;
}
uint64_t rocksdb_options_get_max_bytes_for_level_base(rocksdb_options_t* opt) {
  return opt->rep.max_bytes_for_level_base;
}

void rocksdb_options_set_level_compaction_dynamic_level_bytes(rocksdb_options_t* opt,
                                                              unsigned char v) {
  opt->rep.level_compaction_dynamic_level_bytes = v != 0;
}
unsigned char rocksdb_options_get_level_compaction_dynamic_level_bytes(rocksdb_options_t* opt) {
  return opt->rep.level_compaction_dynamic_level_bytes;
}

void rocksdb_options_set_max_bytes_for_level_multiplier(rocksdb_options_t* opt, double n) {
  opt->rep.max_bytes_for_level_multiplier = n;
}
double rocksdb_options_get_max_bytes_for_level_multiplier(rocksdb_options_t* opt) {
  return opt->rep.max_bytes_for_level_multiplier;
}

// ---------------------------------------------------------------- Compaction

// RocksDB's values are ShaleDB's (CompactionStyle, kCompactionStyleNone = 3 included).
void rocksdb_options_set_compaction_style(rocksdb_options_t* opt, int style) {
  opt->rep.compaction_style = static_cast<shale::CompactionStyle>(style);
}
int rocksdb_options_get_compaction_style(rocksdb_options_t* opt) {
  return static_cast<int>(opt->rep.compaction_style);
}

// RocksDB takes an int and treats any non-zero value as true.
void rocksdb_options_set_disable_auto_compactions(rocksdb_options_t* opt, int disable) {
  opt->rep.disable_auto_compactions = disable != 0;
}
unsigned char rocksdb_options_get_disable_auto_compactions(rocksdb_options_t* opt) {
  return opt->rep.disable_auto_compactions;
}

void rocksdb_options_set_soft_pending_compaction_bytes_limit(rocksdb_options_t* opt, size_t v) {
  opt->rep.soft_pending_compaction_bytes_limit = v;
}
size_t rocksdb_options_get_soft_pending_compaction_bytes_limit(rocksdb_options_t* opt) {
  return static_cast<size_t>(opt->rep.soft_pending_compaction_bytes_limit);
}

void rocksdb_options_set_hard_pending_compaction_bytes_limit(rocksdb_options_t* opt, size_t v) {
  opt->rep.hard_pending_compaction_bytes_limit = v;
}
size_t rocksdb_options_get_hard_pending_compaction_bytes_limit(rocksdb_options_t* opt) {
  return static_cast<size_t>(opt->rep.hard_pending_compaction_bytes_limit);
}

// Copies the universal knobs ShaleDB has; compression_size_percent and stop_style have no
// counterpart (knobs: they decide how much is rewritten, not what is read).
void rocksdb_options_set_universal_compaction_options(
    rocksdb_options_t* opt, rocksdb_universal_compaction_options_t* uco) {
  opt->rep.compaction_options_universal = uco->rep;
  SetKnob(opt, "compaction_options_universal.compression_size_percent",
          KnobText(int64_t{uco->compression_size_percent}));
  SetKnob(opt, "compaction_options_universal.stop_style", KnobText(int64_t{uco->stop_style}));
}

void rocksdb_options_set_fifo_compaction_options(rocksdb_options_t* opt,
                                                 rocksdb_fifo_compaction_options_t* fifo) {
  opt->rep.compaction_options_fifo = fifo->rep;
}

// ---------------------------------------------------------------- Tables and merges

// Copies the table options (RocksDB's factory copies them too: later changes to `table_options`
// do not reach these options). Their knobs accepted without effect come along, prefixed.
void rocksdb_options_set_block_based_table_factory(
    rocksdb_options_t* opt, rocksdb_block_based_table_options_t* table_options) {
  if (table_options == nullptr) return;  // RocksDB ignores NULL
  opt->rep.table_options = table_options->rep;
  for (auto it = opt->accepted_knobs.begin(); it != opt->accepted_knobs.end();) {
    if (it->first.rfind("block_based_table_factory.", 0) == 0) {
      it = opt->accepted_knobs.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [name, value] : table_options->accepted_knobs) {
    opt->accepted_knobs["block_based_table_factory." + name] = value;
  }
  opt->unsupported.erase("table_factory");
  opt->owned.erase("table_factory");
}

// ShaleDB's built-in "uint64add" (8-byte little-endian counters, as RocksDB's).
void rocksdb_options_set_uint64add_merge_operator(rocksdb_options_t* opt) {
  opt->rep.merge_operator = shale::NewUInt64AddOperator();
}

}  // extern "C"
