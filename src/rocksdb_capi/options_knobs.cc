// The RocksDB options that ShaleDB has no counterpart for and that cannot change what a read
// returns (file I/O tuning, logging, memtable representations, blob-file tuning, write-path
// threading, ...): each setter stores the value in rocksdb_options_t::accepted_knobs under
// RocksDB's option name, its getter returns what was set or RocksDB 7.8's default, and the
// open writes each one set to the info LOG (AcceptedKnobsLogText). doc/rocksdb_compat.md names
// them all. Also the helpers that store and read knobs (options_internal.h).
//
// Thread-safety: as options.cc.
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"

namespace shale::rocksdb_capi {

void SetKnob(rocksdb_options_t* options, const char* name, std::string value) {
  options->accepted_knobs[name] = std::move(value);
}

std::string KnobText(int64_t v) { return std::to_string(v); }
std::string KnobTextUnsigned(uint64_t v) { return std::to_string(v); }
std::string KnobTextBool(bool v) { return v ? "true" : "false"; }
std::string KnobText(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);  // round-trips every double
  return buf;
}

namespace {

const std::string* FindKnob(const rocksdb_options_t* options, const char* name) {
  auto it = options->accepted_knobs.find(name);
  return it == options->accepted_knobs.end() ? nullptr : &it->second;
}

}  // namespace

// The stored texts are written by the KnobText functions above, so they always parse; a text
// that does not (impossible through the C API) reads as the default.
int64_t KnobInt(const rocksdb_options_t* options, const char* name, int64_t default_value) {
  const std::string* text = FindKnob(options, name);
  if (text == nullptr) return default_value;
  int64_t v = default_value;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() ? v : default_value;
}

uint64_t KnobUint(const rocksdb_options_t* options, const char* name, uint64_t default_value) {
  const std::string* text = FindKnob(options, name);
  if (text == nullptr) return default_value;
  uint64_t v = default_value;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() ? v : default_value;
}

double KnobDouble(const rocksdb_options_t* options, const char* name, double default_value) {
  const std::string* text = FindKnob(options, name);
  if (text == nullptr) return default_value;
  char* end = nullptr;
  double v = std::strtod(text->c_str(), &end);
  return end != text->c_str() ? v : default_value;
}

bool KnobBool(const rocksdb_options_t* options, const char* name, bool default_value) {
  const std::string* text = FindKnob(options, name);
  if (text == nullptr) return default_value;
  return *text == "true";
}

}  // namespace shale::rocksdb_capi

using shale::rocksdb_capi::KnobBool;
using shale::rocksdb_capi::KnobDouble;
using shale::rocksdb_capi::KnobInt;
using shale::rocksdb_capi::KnobText;
using shale::rocksdb_capi::KnobTextBool;
using shale::rocksdb_capi::KnobTextUnsigned;
using shale::rocksdb_capi::KnobUint;
using shale::rocksdb_capi::SetKnob;

// One setter and its getter per knob, by the knob's C type; DEFAULT is RocksDB 7.8's. The knob
// is stored under NAME, RocksDB's option name (the function's name without the prefix).
#define SHALE_RC_INT_KNOB(NAME, CTYPE, DEFAULT)                                    \
  void rocksdb_options_set_##NAME(rocksdb_options_t* opt, CTYPE v) {               \
    SetKnob(opt, #NAME, KnobText(static_cast<int64_t>(v)));                        \
  }                                                                                \
  CTYPE rocksdb_options_get_##NAME(rocksdb_options_t* opt) {                       \
    return static_cast<CTYPE>(KnobInt(opt, #NAME, DEFAULT));                       \
  }
#define SHALE_RC_UINT_KNOB(NAME, CTYPE, DEFAULT)                                   \
  void rocksdb_options_set_##NAME(rocksdb_options_t* opt, CTYPE v) {               \
    SetKnob(opt, #NAME, KnobTextUnsigned(static_cast<uint64_t>(v)));               \
  }                                                                                \
  CTYPE rocksdb_options_get_##NAME(rocksdb_options_t* opt) {                       \
    return static_cast<CTYPE>(KnobUint(opt, #NAME, DEFAULT));                      \
  }
#define SHALE_RC_DOUBLE_KNOB(NAME, DEFAULT)                                        \
  void rocksdb_options_set_##NAME(rocksdb_options_t* opt, double v) {              \
    SetKnob(opt, #NAME, KnobText(v));                                              \
  }                                                                                \
  double rocksdb_options_get_##NAME(rocksdb_options_t* opt) {                      \
    return KnobDouble(opt, #NAME, DEFAULT);                                        \
  }
// SET_CTYPE: RocksDB's setter takes unsigned char or (for a few) int; non-zero is true.
#define SHALE_RC_BOOL_KNOB(NAME, SET_CTYPE, DEFAULT)                               \
  void rocksdb_options_set_##NAME(rocksdb_options_t* opt, SET_CTYPE v) {           \
    SetKnob(opt, #NAME, KnobTextBool(v != 0));                                     \
  }                                                                                \
  unsigned char rocksdb_options_get_##NAME(rocksdb_options_t* opt) {               \
    return KnobBool(opt, #NAME, DEFAULT) ? 1 : 0;                                  \
  }

extern "C" {

// ---- Files, logs and I/O
SHALE_RC_INT_KNOB(info_log_level, int, 1)  // INFO_LEVEL
SHALE_RC_INT_KNOB(max_file_opening_threads, int, 16)
SHALE_RC_INT_KNOB(table_cache_numshardbits, int, 6)
SHALE_RC_INT_KNOB(access_hint_on_compaction_start, int, 1)  // NORMAL
SHALE_RC_UINT_KNOB(max_log_file_size, size_t, 0)
SHALE_RC_UINT_KNOB(log_file_time_to_roll, size_t, 0)
SHALE_RC_UINT_KNOB(keep_log_file_num, size_t, 1000)
SHALE_RC_UINT_KNOB(recycle_log_file_num, size_t, 0)
SHALE_RC_UINT_KNOB(manifest_preallocation_size, size_t, 4 * 1024 * 1024)
SHALE_RC_UINT_KNOB(WAL_ttl_seconds, uint64_t, 0)
SHALE_RC_UINT_KNOB(WAL_size_limit_MB, uint64_t, 0)
SHALE_RC_UINT_KNOB(bytes_per_sync, uint64_t, 0)
SHALE_RC_UINT_KNOB(wal_bytes_per_sync, uint64_t, 0)
SHALE_RC_UINT_KNOB(writable_file_max_buffer_size, uint64_t, 1024 * 1024)
SHALE_RC_UINT_KNOB(delete_obsolete_files_period_micros, uint64_t, 6ull * 60 * 60 * 1000000)
SHALE_RC_UINT_KNOB(stats_persist_period_sec, unsigned int, 600)
SHALE_RC_BOOL_KNOB(skip_stats_update_on_db_open, unsigned char, false)
SHALE_RC_BOOL_KNOB(allow_mmap_reads, unsigned char, false)
SHALE_RC_BOOL_KNOB(allow_mmap_writes, unsigned char, false)
SHALE_RC_BOOL_KNOB(use_direct_reads, unsigned char, false)
SHALE_RC_BOOL_KNOB(use_direct_io_for_flush_and_compaction, unsigned char, false)
SHALE_RC_BOOL_KNOB(is_fd_close_on_exec, unsigned char, true)
SHALE_RC_BOOL_KNOB(advise_random_on_open, unsigned char, true)
SHALE_RC_BOOL_KNOB(report_bg_io_stats, int, false)
SHALE_RC_BOOL_KNOB(avoid_unnecessary_blocking_io, unsigned char, false)
// ShaleDB writes each write's WAL record to the OS before the write returns: a manually
// flushed WAL is only more durable here.
SHALE_RC_BOOL_KNOB(manual_wal_flush, unsigned char, false)

// ---- Write path and memtables
SHALE_RC_INT_KNOB(max_write_buffer_number_to_maintain, int, 0)
SHALE_RC_INT_KNOB(max_write_buffer_size_to_maintain, int64_t, 0)
// Merging memtables at flush is not supported by the engine yet (it refuses values other than
// 1); how many memtables one flush merges cannot change what a read returns.
SHALE_RC_INT_KNOB(min_write_buffer_number_to_merge, int, 1)
SHALE_RC_UINT_KNOB(arena_block_size, size_t, 0)
SHALE_RC_UINT_KNOB(memtable_huge_page_size, size_t, 0)
SHALE_RC_UINT_KNOB(inplace_update_num_locks, size_t, 10000)
SHALE_RC_DOUBLE_KNOB(memtable_prefix_bloom_size_ratio, 0.0)
SHALE_RC_DOUBLE_KNOB(experimental_mempurge_threshold, 0.0)
SHALE_RC_BOOL_KNOB(enable_pipelined_write, unsigned char, false)
// RocksDB's unordered writes relax when a write becomes visible; ShaleDB's ordered writes are a
// behaviour unordered_write allows.
SHALE_RC_BOOL_KNOB(unordered_write, unsigned char, false)
SHALE_RC_BOOL_KNOB(allow_concurrent_memtable_write, unsigned char, true)
SHALE_RC_BOOL_KNOB(enable_write_thread_adaptive_yield, unsigned char, true)
SHALE_RC_BOOL_KNOB(use_adaptive_mutex, unsigned char, false)
// In-place updates let a read see a value overwritten after its snapshot; ShaleDB never updates
// in place, which is a behaviour inplace_update_support allows.
SHALE_RC_BOOL_KNOB(inplace_update_support, unsigned char, false)

// ---- Background work and compaction tuning
// ShaleOptionsFor turns these two into max_background_jobs when either is set, as RocksDB 7.8.
SHALE_RC_INT_KNOB(max_background_compactions, int, -1)
SHALE_RC_INT_KNOB(max_background_flushes, int, -1)
SHALE_RC_UINT_KNOB(max_compaction_bytes, uint64_t, 0)
SHALE_RC_UINT_KNOB(max_sequential_skip_in_iterations, uint64_t, 8)
SHALE_RC_UINT_KNOB(bloom_locality, uint32_t, 0)
SHALE_RC_BOOL_KNOB(optimize_filters_for_hits, int, false)

// ---- Blob files (not built: values stay in the tables, where reads find the same values)
SHALE_RC_BOOL_KNOB(enable_blob_files, unsigned char, false)
SHALE_RC_UINT_KNOB(min_blob_size, uint64_t, 0)
SHALE_RC_UINT_KNOB(blob_file_size, uint64_t, 256ull * 1024 * 1024)
SHALE_RC_BOOL_KNOB(enable_blob_gc, unsigned char, false)
SHALE_RC_DOUBLE_KNOB(blob_gc_age_cutoff, 0.25)
SHALE_RC_DOUBLE_KNOB(blob_gc_force_threshold, 1.0)
SHALE_RC_UINT_KNOB(blob_compaction_readahead_size, uint64_t, 0)
SHALE_RC_INT_KNOB(blob_file_starting_level, int, 0)
SHALE_RC_INT_KNOB(prepopulate_blob_cache, int, 0)  // rocksdb_prepopulate_blob_disable

// RocksDB's setter has no "set_" in its name.
void rocksdb_options_compaction_readahead_size(rocksdb_options_t* opt, size_t s) {
  SetKnob(opt, "compaction_readahead_size", KnobTextUnsigned(s));
}
size_t rocksdb_options_get_compaction_readahead_size(rocksdb_options_t* opt) {
  return static_cast<size_t>(KnobUint(opt, "compaction_readahead_size", 0));
}

// ---- Knobs without a getter

void rocksdb_options_set_dump_malloc_stats(rocksdb_options_t* opt, unsigned char val) {
  SetKnob(opt, "dump_malloc_stats", KnobTextBool(val != 0));
}

void rocksdb_options_set_memtable_whole_key_filtering(rocksdb_options_t* opt,
                                                      unsigned char val) {
  SetKnob(opt, "memtable_whole_key_filtering", KnobTextBool(val != 0));
}

void rocksdb_options_set_max_bytes_for_level_multiplier_additional(rocksdb_options_t* opt,
                                                                   int* level_values,
                                                                   size_t num_levels) {
  std::string text;
  for (size_t i = 0; i < num_levels; i++) {
    if (i > 0) text += ':';
    text += std::to_string(level_values[i]);
  }
  SetKnob(opt, "max_bytes_for_level_multiplier_additional", text);
}

// The memtable representation: ShaleDB's memtable is a skip list; another representation
// returns the same results (RocksDB's hash memtables need a prefix extractor, which ShaleDB
// refuses at open; without one RocksDB falls back to a skip list too).
void rocksdb_options_set_memtable_vector_rep(rocksdb_options_t* opt) {
  SetKnob(opt, "memtable_factory", "VectorRepFactory");
}

void rocksdb_options_set_hash_skip_list_rep(rocksdb_options_t* opt, size_t bucket_count,
                                            int32_t skiplist_height,
                                            int32_t skiplist_branching_factor) {
  SetKnob(opt, "memtable_factory",
          "HashSkipListRepFactory:" + std::to_string(bucket_count) + ":" +
              std::to_string(skiplist_height) + ":" + std::to_string(skiplist_branching_factor));
}

void rocksdb_options_set_hash_link_list_rep(rocksdb_options_t* opt, size_t bucket_count) {
  SetKnob(opt, "memtable_factory", "HashLinkListRepFactory:" + std::to_string(bucket_count));
}

// Caches: a row cache or blob cache only saves work; reads return the same values.
void rocksdb_options_set_row_cache(rocksdb_options_t* opt, rocksdb_cache_t* cache) {
  if (cache == nullptr || cache->rep == nullptr) {
    opt->accepted_knobs.erase("row_cache");
    return;
  }
  SetKnob(opt, "row_cache", "LRUCache:" + std::to_string(cache->rep->GetCapacity()));
}

void rocksdb_options_set_blob_cache(rocksdb_options_t* opt, rocksdb_cache_t* blob_cache) {
  if (blob_cache == nullptr || blob_cache->rep == nullptr) {
    opt->accepted_knobs.erase("blob_cache");
    return;
  }
  SetKnob(opt, "blob_cache", "LRUCache:" + std::to_string(blob_cache->rep->GetCapacity()));
}

// ShaleDB has no rate limiter for background I/O; pacing I/O cannot change what a read returns.
void rocksdb_options_set_ratelimiter(rocksdb_options_t* opt, rocksdb_ratelimiter_t* limiter) {
  if (limiter == nullptr) {
    opt->accepted_knobs.erase("rate_limiter");
    return;
  }
  SetKnob(opt, "rate_limiter",
          "GenericRateLimiter:" + std::to_string(limiter->rate_bytes_per_sec) + ":" +
              std::to_string(limiter->refill_period_us) + ":" +
              std::to_string(limiter->fairness));
}

// A table-properties collector that asks for compaction of files with many deletions: it
// decides when files are compacted, not what a read returns.
void rocksdb_options_add_compact_on_deletion_collector_factory(rocksdb_options_t* opt,
                                                               size_t window_size,
                                                               size_t num_dels_trigger) {
  SetKnob(opt, "table_properties_collector_factories",
          "CompactOnDeletionCollector:" + std::to_string(window_size) + ":" +
              std::to_string(num_dels_trigger));
}

}  // extern "C"

#undef SHALE_RC_INT_KNOB
#undef SHALE_RC_UINT_KNOB
#undef SHALE_RC_DOUBLE_KNOB
#undef SHALE_RC_BOOL_KNOB
