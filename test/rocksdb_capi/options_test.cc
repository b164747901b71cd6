// RocksDB's C API, options group (src/rocksdb_capi/options*.cc, env.cc,
// compaction_style_options.cc): RocksDB 7.8's defaults, every setter with a getter reads back
// what it set (table-driven), the options that reach ShaleDB are the ones a DB opens with
// (ShaleOptionsFor; a DB opened on the in-memory env), settings ShaleDB cannot honour fail the
// open with a clear message (CheckOptionsForOpen), statistics, env, rate limiter and the
// compaction-style option objects.
//
// Linked with the rocksdb_capi module itself (not librocksdb.so, which exports rocksdb_* only)
// so that it can also call the internal functions the DB group calls at open.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale::rocksdb_capi {
namespace {

struct OptionsDeleter {
  void operator()(rocksdb_options_t* o) const { rocksdb_options_destroy(o); }
};
using OptionsPtr = std::unique_ptr<rocksdb_options_t, OptionsDeleter>;

OptionsPtr NewOptions() { return OptionsPtr(rocksdb_options_create()); }

// Takes a malloc'd C string from the API and frees it.
std::string TakeString(char* s) {
  if (s == nullptr) return "(null)";
  std::string out(s);
  std::free(s);
  return out;
}

TEST(RocksdbCapiOptionsTest, CreateGivesRocksDbDefaults) {
  OptionsPtr o = NewOptions();
  rocksdb_options_t* p = o.get();
  EXPECT_EQ(rocksdb_options_get_create_if_missing(p), 0);
  EXPECT_EQ(rocksdb_options_get_create_missing_column_families(p), 0);
  EXPECT_EQ(rocksdb_options_get_error_if_exists(p), 0);
  EXPECT_EQ(rocksdb_options_get_paranoid_checks(p), 1);
  EXPECT_EQ(rocksdb_options_get_write_buffer_size(p), 64u << 20);
  EXPECT_EQ(rocksdb_options_get_db_write_buffer_size(p), 0u);
  EXPECT_EQ(rocksdb_options_get_max_write_buffer_number(p), 2);
  EXPECT_EQ(rocksdb_options_get_min_write_buffer_number_to_merge(p), 1);
  EXPECT_EQ(rocksdb_options_get_level0_file_num_compaction_trigger(p), 4);
  EXPECT_EQ(rocksdb_options_get_level0_slowdown_writes_trigger(p), 20);
  EXPECT_EQ(rocksdb_options_get_level0_stop_writes_trigger(p), 36);
  EXPECT_EQ(rocksdb_options_get_max_open_files(p), -1);
  EXPECT_EQ(rocksdb_options_get_compression(p), rocksdb_snappy_compression);
  EXPECT_EQ(rocksdb_options_get_bottommost_compression(p), 0xff);  // kDisableCompressionOption
  EXPECT_EQ(rocksdb_options_get_num_levels(p), 7);
  EXPECT_EQ(rocksdb_options_get_target_file_size_base(p), 64u << 20);
  EXPECT_EQ(rocksdb_options_get_target_file_size_multiplier(p), 1);
  EXPECT_EQ(rocksdb_options_get_max_bytes_for_level_base(p), 256u << 20);
  EXPECT_EQ(rocksdb_options_get_max_bytes_for_level_multiplier(p), 10.0);
  EXPECT_EQ(rocksdb_options_get_level_compaction_dynamic_level_bytes(p), 0);
  EXPECT_EQ(rocksdb_options_get_compaction_style(p), rocksdb_level_compaction);
  EXPECT_EQ(rocksdb_options_get_disable_auto_compactions(p), 0);
  EXPECT_EQ(rocksdb_options_get_max_background_jobs(p), 2);
  EXPECT_EQ(rocksdb_options_get_max_background_compactions(p), -1);
  EXPECT_EQ(rocksdb_options_get_max_background_flushes(p), -1);
  EXPECT_EQ(rocksdb_options_get_max_subcompactions(p), 1u);
  EXPECT_EQ(rocksdb_options_get_max_manifest_file_size(p), size_t{1} << 30);
  EXPECT_EQ(rocksdb_options_get_max_total_wal_size(p), 0u);
  EXPECT_EQ(rocksdb_options_get_wal_recovery_mode(p), rocksdb_point_in_time_recovery);
  EXPECT_EQ(rocksdb_options_get_stats_dump_period_sec(p), 600u);
  EXPECT_EQ(rocksdb_options_get_soft_pending_compaction_bytes_limit(p), size_t{64} << 30);
  EXPECT_EQ(rocksdb_options_get_hard_pending_compaction_bytes_limit(p), size_t{256} << 30);
  EXPECT_EQ(rocksdb_options_get_use_fsync(p), 0);
  EXPECT_EQ(rocksdb_options_get_atomic_flush(p), 0);
  EXPECT_EQ(rocksdb_options_get_allow_ingest_behind(p), 0);
  EXPECT_EQ(rocksdb_options_get_max_successive_merges(p), 0u);
  EXPECT_EQ(rocksdb_options_get_info_log_level(p), 1);  // INFO_LEVEL
  EXPECT_EQ(rocksdb_options_get_max_file_opening_threads(p), 16);
  EXPECT_EQ(rocksdb_options_get_keep_log_file_num(p), 1000u);
  EXPECT_EQ(rocksdb_options_get_table_cache_numshardbits(p), 6);
  EXPECT_EQ(rocksdb_options_get_manifest_preallocation_size(p), 4u << 20);
  EXPECT_EQ(rocksdb_options_get_writable_file_max_buffer_size(p), 1u << 20);
  EXPECT_EQ(rocksdb_options_get_delete_obsolete_files_period_micros(p), 21600000000u);
  EXPECT_EQ(rocksdb_options_get_max_sequential_skip_in_iterations(p), 8u);
  EXPECT_EQ(rocksdb_options_get_inplace_update_num_locks(p), 10000u);
  EXPECT_EQ(rocksdb_options_get_is_fd_close_on_exec(p), 1);
  EXPECT_EQ(rocksdb_options_get_advise_random_on_open(p), 1);
  EXPECT_EQ(rocksdb_options_get_allow_concurrent_memtable_write(p), 1);
  EXPECT_EQ(rocksdb_options_get_enable_write_thread_adaptive_yield(p), 1);
  EXPECT_EQ(rocksdb_options_get_blob_file_size(p), 256u << 20);
  EXPECT_EQ(rocksdb_options_get_blob_gc_age_cutoff(p), 0.25);
  EXPECT_EQ(rocksdb_options_get_blob_gc_force_threshold(p), 1.0);
  EXPECT_EQ(rocksdb_options_get_stats_persist_period_sec(p), 600u);
  EXPECT_EQ(rocksdb_options_get_access_hint_on_compaction_start(p), 1);
  EXPECT_EQ(rocksdb_options_get_compression_options_parallel_threads(p), 1);
  EXPECT_EQ(rocksdb_options_get_compression_options_use_zstd_dict_trainer(p), 1);
  EXPECT_EQ(rocksdb_options_get_bottommost_compression_options_use_zstd_dict_trainer(p), 1);
  EXPECT_EQ(rocksdb_options_get_wal_compression(p), rocksdb_no_compression);
  // RocksDB's compression level is the codec's default (ShaleDB's 0).
  EXPECT_EQ(ShaleOptionsFor(p).compression_level, 0);
  // RocksDB's data-block restart interval (ShaleDB's default is 4), also from a new
  // block-based table factory.
  EXPECT_EQ(ShaleOptionsFor(p).table_options.block_restart_interval, 16);
  rocksdb_block_based_table_options_t* table = rocksdb_block_based_options_create();
  rocksdb_options_set_block_based_table_factory(p, table);
  rocksdb_block_based_options_destroy(table);
  EXPECT_EQ(ShaleOptionsFor(p).table_options.block_restart_interval, 16);
  // Nothing was set: nothing to write to the LOG, nothing refused.
  EXPECT_TRUE(p->accepted_knobs.empty());
  EXPECT_EQ(AcceptedKnobsLogText(p), "");
  EXPECT_OK(CheckOptionsForOpen(p, "/db"));
}

// One row per setter with a getter: the value set (never the default, checked first, so the
// row can fail) must read back, and survive rocksdb_options_create_copy.
struct RoundTrip {
  const char* name;
  std::function<bool(rocksdb_options_t*)> is_set;  // getter == the row's value
  std::function<void(rocksdb_options_t*)> set;
};

#define ROUND_TRIP(NAME, VALUE)                                                   \
  RoundTrip {                                                                     \
    #NAME, [](rocksdb_options_t* o) { return rocksdb_options_get_##NAME(o) == (VALUE); }, \
        [](rocksdb_options_t* o) { rocksdb_options_set_##NAME(o, (VALUE)); }      \
  }

std::vector<RoundTrip> AllRoundTrips() {
  return {
      ROUND_TRIP(allow_ingest_behind, 1),
      RoundTrip{"compaction_readahead_size",
                [](rocksdb_options_t* o) {
                  return rocksdb_options_get_compaction_readahead_size(o) == 2u << 20;
                },
                [](rocksdb_options_t* o) { rocksdb_options_compaction_readahead_size(o, 2u << 20); }},
      ROUND_TRIP(create_if_missing, 1),
      ROUND_TRIP(create_missing_column_families, 1),
      ROUND_TRIP(error_if_exists, 1),
      ROUND_TRIP(paranoid_checks, 0),
      ROUND_TRIP(info_log_level, 3),
      ROUND_TRIP(write_buffer_size, size_t{4} << 20),
      ROUND_TRIP(db_write_buffer_size, size_t{512} << 20),
      ROUND_TRIP(max_open_files, 500),
      ROUND_TRIP(max_file_opening_threads, 4),
      ROUND_TRIP(max_total_wal_size, uint64_t{1} << 30),
      ROUND_TRIP(compression_options_zstd_max_train_bytes, 1 << 20),
      ROUND_TRIP(compression_options_use_zstd_dict_trainer, 0),
      ROUND_TRIP(compression_options_parallel_threads, 4),
      ROUND_TRIP(compression_options_max_dict_buffer_bytes, uint64_t{1} << 20),
      RoundTrip{"bottommost_compression_options_use_zstd_dict_trainer",
                [](rocksdb_options_t* o) {
                  return rocksdb_options_get_bottommost_compression_options_use_zstd_dict_trainer(
                             o) == 0;
                },
                [](rocksdb_options_t* o) {
                  rocksdb_options_set_bottommost_compression_options_use_zstd_dict_trainer(o, 0,
                                                                                           1);
                }},
      ROUND_TRIP(num_levels, 5),
      ROUND_TRIP(level0_file_num_compaction_trigger, 8),
      ROUND_TRIP(level0_slowdown_writes_trigger, 30),
      ROUND_TRIP(level0_stop_writes_trigger, 50),
      ROUND_TRIP(target_file_size_base, uint64_t{32} << 20),
      ROUND_TRIP(target_file_size_multiplier, 2),
      ROUND_TRIP(max_bytes_for_level_base, uint64_t{512} << 20),
      ROUND_TRIP(level_compaction_dynamic_level_bytes, 1),
      ROUND_TRIP(max_bytes_for_level_multiplier, 8.5),
      ROUND_TRIP(skip_stats_update_on_db_open, 1),
      ROUND_TRIP(skip_checking_sst_file_sizes_on_db_open, 1),
      ROUND_TRIP(enable_blob_files, 1),
      ROUND_TRIP(min_blob_size, uint64_t{4096}),
      ROUND_TRIP(blob_file_size, uint64_t{64} << 20),
      ROUND_TRIP(blob_compression_type, rocksdb_zstd_compression),
      ROUND_TRIP(enable_blob_gc, 1),
      ROUND_TRIP(blob_gc_age_cutoff, 0.5),
      ROUND_TRIP(blob_gc_force_threshold, 0.75),
      ROUND_TRIP(blob_compaction_readahead_size, uint64_t{1} << 20),
      ROUND_TRIP(blob_file_starting_level, 2),
      ROUND_TRIP(prepopulate_blob_cache, rocksdb_prepopulate_blob_flush_only),
      ROUND_TRIP(max_write_buffer_number, 5),
      ROUND_TRIP(min_write_buffer_number_to_merge, 2),
      ROUND_TRIP(max_write_buffer_number_to_maintain, 3),
      ROUND_TRIP(max_write_buffer_size_to_maintain, int64_t{1} << 30),
      ROUND_TRIP(enable_pipelined_write, 1),
      ROUND_TRIP(unordered_write, 1),
      ROUND_TRIP(max_subcompactions, 4u),
      ROUND_TRIP(max_background_jobs, 8),
      ROUND_TRIP(max_background_compactions, 3),
      ROUND_TRIP(max_background_flushes, 2),
      ROUND_TRIP(max_log_file_size, size_t{1} << 20),
      ROUND_TRIP(log_file_time_to_roll, size_t{3600}),
      ROUND_TRIP(keep_log_file_num, size_t{10}),
      ROUND_TRIP(recycle_log_file_num, size_t{4}),
      ROUND_TRIP(soft_pending_compaction_bytes_limit, size_t{1} << 30),
      ROUND_TRIP(hard_pending_compaction_bytes_limit, size_t{2} << 30),
      ROUND_TRIP(max_manifest_file_size, size_t{64} << 20),
      ROUND_TRIP(table_cache_numshardbits, 4),
      ROUND_TRIP(arena_block_size, size_t{1} << 20),
      ROUND_TRIP(use_fsync, 1),
      ROUND_TRIP(WAL_ttl_seconds, uint64_t{60}),
      ROUND_TRIP(WAL_size_limit_MB, uint64_t{128}),
      ROUND_TRIP(manifest_preallocation_size, size_t{1} << 20),
      ROUND_TRIP(allow_mmap_reads, 1),
      ROUND_TRIP(allow_mmap_writes, 1),
      ROUND_TRIP(use_direct_reads, 1),
      ROUND_TRIP(use_direct_io_for_flush_and_compaction, 1),
      ROUND_TRIP(is_fd_close_on_exec, 0),
      ROUND_TRIP(stats_dump_period_sec, 60u),
      ROUND_TRIP(stats_persist_period_sec, 30u),
      ROUND_TRIP(advise_random_on_open, 0),
      ROUND_TRIP(access_hint_on_compaction_start, 2),
      ROUND_TRIP(use_adaptive_mutex, 1),
      ROUND_TRIP(bytes_per_sync, uint64_t{1} << 20),
      ROUND_TRIP(wal_bytes_per_sync, uint64_t{512} << 10),
      ROUND_TRIP(writable_file_max_buffer_size, uint64_t{4} << 20),
      ROUND_TRIP(allow_concurrent_memtable_write, 0),
      ROUND_TRIP(enable_write_thread_adaptive_yield, 0),
      ROUND_TRIP(max_sequential_skip_in_iterations, uint64_t{16}),
      ROUND_TRIP(disable_auto_compactions, 1),
      ROUND_TRIP(optimize_filters_for_hits, 1),
      ROUND_TRIP(delete_obsolete_files_period_micros, uint64_t{1000000}),
      ROUND_TRIP(memtable_prefix_bloom_size_ratio, 0.1),
      ROUND_TRIP(max_compaction_bytes, uint64_t{1} << 30),
      ROUND_TRIP(memtable_huge_page_size, size_t{2} << 20),
      ROUND_TRIP(max_successive_merges, size_t{16}),
      ROUND_TRIP(bloom_locality, 1u),
      ROUND_TRIP(inplace_update_support, 1),
      ROUND_TRIP(inplace_update_num_locks, size_t{100}),
      ROUND_TRIP(report_bg_io_stats, 1),
      ROUND_TRIP(avoid_unnecessary_blocking_io, 1),
      ROUND_TRIP(experimental_mempurge_threshold, 1.5),
      ROUND_TRIP(wal_recovery_mode, rocksdb_absolute_consistency_recovery),
      ROUND_TRIP(compression, rocksdb_zstd_compression),
      ROUND_TRIP(bottommost_compression, rocksdb_zstd_compression),
      ROUND_TRIP(compaction_style, rocksdb_universal_compaction),
      ROUND_TRIP(atomic_flush, 1),
      ROUND_TRIP(manual_wal_flush, 1),
      ROUND_TRIP(wal_compression, rocksdb_zstd_compression),
  };
}

#undef ROUND_TRIP

TEST(RocksdbCapiOptionsTest, EverySetterWithAGetterReadsBack) {
  OptionsPtr o = NewOptions();
  const std::vector<RoundTrip> rows = AllRoundTrips();
  for (const RoundTrip& row : rows) {
    EXPECT_FALSE(row.is_set(o.get())) << row.name << ": the row's value is the default";
    row.set(o.get());
    EXPECT_TRUE(row.is_set(o.get())) << row.name;
  }
  // Each setter touched its own option only: every row still reads back.
  OptionsPtr copy(rocksdb_options_create_copy(o.get()));
  for (const RoundTrip& row : rows) {
    EXPECT_TRUE(row.is_set(o.get())) << row.name << " was changed by another setter";
    EXPECT_TRUE(row.is_set(copy.get())) << row.name << " was not copied";
  }
  // A copy is independent of its original.
  rocksdb_options_set_write_buffer_size(copy.get(), 8u << 20);
  rocksdb_options_set_use_direct_reads(copy.get(), 0);
  EXPECT_EQ(rocksdb_options_get_write_buffer_size(o.get()), 4u << 20);
  EXPECT_EQ(rocksdb_options_get_use_direct_reads(o.get()), 1);
}

TEST(RocksdbCapiOptionsTest, MappedOptionsReachShaleOptions) {
  OptionsPtr o = NewOptions();
  rocksdb_options_t* p = o.get();
  rocksdb_options_set_create_if_missing(p, 1);
  rocksdb_options_set_write_buffer_size(p, 1u << 20);
  rocksdb_options_set_max_open_files(p, 300);
  rocksdb_options_set_num_levels(p, 4);
  rocksdb_options_set_compression(p, rocksdb_zstd_compression);
  rocksdb_options_set_compression_options(p, -14, 6, 0, 0);
  rocksdb_options_set_compaction_style(p, rocksdb_universal_compaction);
  rocksdb_options_set_wal_recovery_mode(p, rocksdb_tolerate_corrupted_tail_records_recovery);
  rocksdb_options_set_uint64add_merge_operator(p);
  const Options mapped = ShaleOptionsFor(p);
  EXPECT_TRUE(mapped.create_if_missing);
  EXPECT_EQ(mapped.write_buffer_size, 1u << 20);
  EXPECT_EQ(mapped.max_open_files, 300);
  EXPECT_EQ(mapped.num_levels, 4);
  EXPECT_EQ(mapped.compression, kZSTD);
  EXPECT_EQ(mapped.compression_level, 6);
  EXPECT_EQ(mapped.compaction_style, kCompactionStyleUniversal);
  EXPECT_EQ(mapped.wal_recovery_mode, WALRecoveryMode::kTolerateCorruptedTailRecords);
  ASSERT_NE(mapped.merge_operator, nullptr);
  EXPECT_STREQ(mapped.merge_operator->Name(), "uint64add");
  // RocksDB's "codec default" level is ShaleDB's 0.
  rocksdb_options_set_compression_options(p, -14, 32767, 0, 0);
  EXPECT_EQ(ShaleOptionsFor(p).compression_level, 0);
  // Knobs stay out of shale::Options.
  rocksdb_options_set_use_direct_reads(p, 1);
  EXPECT_EQ(GetStringFromOptions(ShaleOptionsFor(p)), GetStringFromOptions(p->rep));
}

TEST(RocksdbCapiOptionsTest, BackgroundCompactionsAndFlushesBecomeJobs) {
  OptionsPtr o = NewOptions();
  rocksdb_options_set_max_background_jobs(o.get(), 10);
  EXPECT_EQ(ShaleOptionsFor(o.get()).max_background_jobs, 10);
  rocksdb_options_set_max_background_compactions(o.get(), 4);  // flushes -1 counts as 1
  EXPECT_EQ(ShaleOptionsFor(o.get()).max_background_jobs, 5);
  rocksdb_options_set_max_background_flushes(o.get(), 2);
  EXPECT_EQ(ShaleOptionsFor(o.get()).max_background_jobs, 6);
  // The getter still returns what was set.
  EXPECT_EQ(rocksdb_options_get_max_background_jobs(o.get()), 10);
}

TEST(RocksdbCapiOptionsTest, CompressionPerLevelMapsOntoCompressionAndBottommost) {
  OptionsPtr o = NewOptions();
  const int levels[] = {rocksdb_no_compression, rocksdb_no_compression, rocksdb_zstd_compression,
                        rocksdb_zstd_compression, rocksdb_no_compression};
  rocksdb_options_set_compression_per_level(o.get(), levels, 5);
  Options mapped = ShaleOptionsFor(o.get());
  EXPECT_EQ(mapped.compression, kZSTD);                   // level n-2
  EXPECT_EQ(mapped.bottommost_compression, kNoCompression);  // level n-1
  // The getters are RocksDB's: the per-level list does not change `compression`.
  EXPECT_EQ(rocksdb_options_get_compression(o.get()), rocksdb_snappy_compression);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
  EXPECT_NE(AcceptedKnobsLogText(o.get()).find("compression_per_level"), std::string::npos);
  // An explicit bottommost type wins over the list's last entry, as in RocksDB.
  rocksdb_options_set_bottommost_compression(o.get(), rocksdb_zstd_compression);
  EXPECT_EQ(ShaleOptionsFor(o.get()).bottommost_compression, kZSTD);

  // min_level_to_compress: levels below it uncompressed, the rest with `compression`.
  OptionsPtr m = NewOptions();
  rocksdb_options_set_compression(m.get(), rocksdb_zstd_compression);
  rocksdb_options_set_num_levels(m.get(), 4);
  rocksdb_options_set_min_level_to_compress(m.get(), 2);
  EXPECT_EQ(m->compression_per_level,
            (std::vector<int>{rocksdb_no_compression, rocksdb_no_compression,
                              rocksdb_zstd_compression, rocksdb_zstd_compression}));

  // zlib is built (issue 24: grocksdb's tests open column families with it).
  const int zlib[] = {rocksdb_no_compression, rocksdb_zlib_compression, rocksdb_zlib_compression};
  rocksdb_options_set_compression_per_level(o.get(), zlib, 3);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
  // A codec no build of ShaleDB has: the open names the level.
  const int bz2[] = {rocksdb_no_compression, rocksdb_no_compression, rocksdb_bz2_compression};
  rocksdb_options_set_compression_per_level(o.get(), bz2, 3);
  Status s = CheckOptionsForOpen(o.get(), "/db");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("compression_per_level[2] = 3"), std::string::npos) << s.ToString();
  // An empty list clears it.
  rocksdb_options_set_compression_per_level(o.get(), nullptr, 0);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
}

TEST(RocksdbCapiOptionsTest, UnsupportedSettingsFailTheOpenNamingTheOption) {
  OptionsPtr o = NewOptions();
  rocksdb_options_set_plain_table_factory(o.get(), 16, 10, 0.75, 16);
  Status s = CheckOptionsForOpen(o.get(), "/db");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.ToString(),
            "Invalid argument: table_factory is not supported by ShaleDB (set by "
            "rocksdb_options_set_plain_table_factory)");
  // The copy carries the refusal.
  OptionsPtr copy(rocksdb_options_create_copy(o.get()));
  EXPECT_TRUE(CheckOptionsForOpen(copy.get(), "/db").IsInvalidArgument());
  // Going back to the block-based table lifts it.
  rocksdb_block_based_table_options_t table;
  rocksdb_options_set_block_based_table_factory(o.get(), &table);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));

  rocksdb_dbpath_t* path = rocksdb_dbpath_create("/elsewhere", 1u << 30);
  const rocksdb_dbpath_t* paths[] = {path};
  rocksdb_options_set_db_paths(o.get(), paths, 1);
  rocksdb_dbpath_destroy(path);
  s = CheckOptionsForOpen(o.get(), "/db");
  EXPECT_NE(s.ToString().find("db_paths is not supported by ShaleDB"), std::string::npos)
      << s.ToString();
  rocksdb_options_set_db_paths(o.get(), nullptr, 0);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));

  // NULL is RocksDB's "no logger": accepted.
  rocksdb_options_set_info_log(o.get(), nullptr);
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
}

TEST(RocksdbCapiOptionsTest, WalAndLogDirectoriesOtherThanTheDbAreRefused) {
  OptionsPtr o = NewOptions();
  rocksdb_options_set_wal_dir(o.get(), "/db/");
  rocksdb_options_set_db_log_dir(o.get(), "/db");
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
  rocksdb_options_set_wal_dir(o.get(), "/fast-disk/wal");
  Status s = CheckOptionsForOpen(o.get(), "/db");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("wal_dir is not supported by ShaleDB"), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("/fast-disk/wal"), std::string::npos) << s.ToString();
  rocksdb_options_set_wal_dir(o.get(), "");
  rocksdb_options_set_db_log_dir(o.get(), "/var/log/db");
  s = CheckOptionsForOpen(o.get(), "/db");
  EXPECT_NE(s.ToString().find("db_log_dir is not supported by ShaleDB"), std::string::npos)
      << s.ToString();
}

TEST(RocksdbCapiOptionsTest, KnobsAreListedForTheLog) {
  OptionsPtr o = NewOptions();
  rocksdb_options_set_use_direct_reads(o.get(), 1);
  rocksdb_options_set_bytes_per_sync(o.get(), 1u << 20);
  rocksdb_options_set_memtable_vector_rep(o.get());
  rocksdb_ratelimiter_t* limiter = rocksdb_ratelimiter_create(10 << 20, 100000, 10);
  rocksdb_options_set_ratelimiter(o.get(), limiter);
  rocksdb_ratelimiter_destroy(limiter);  // the options keep what they need
  const std::string text = AcceptedKnobsLogText(o.get());
  EXPECT_NE(text.find("RocksDB option use_direct_reads=true accepted without effect"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bytes_per_sync=1048576"), std::string::npos) << text;
  EXPECT_NE(text.find("memtable_factory=VectorRepFactory"), std::string::npos) << text;
  EXPECT_NE(text.find("rate_limiter=GenericRateLimiter:10485760:100000:10"), std::string::npos)
      << text;
  EXPECT_OK(CheckOptionsForOpen(o.get(), "/db"));
}

// The knob setters without a getter: each is recorded (for the LOG) and none refuses the open.
TEST(RocksdbCapiOptionsTest, KnobsWithoutGettersAreRecorded) {
  OptionsPtr o = NewOptions();
  rocksdb_options_t* p = o.get();
  rocksdb_options_set_dump_malloc_stats(p, 1);
  rocksdb_options_set_memtable_whole_key_filtering(p, 1);
  int multipliers[] = {1, 2, 3};
  rocksdb_options_set_max_bytes_for_level_multiplier_additional(p, multipliers, 3);
  rocksdb_options_set_hash_skip_list_rep(p, 1000, 4, 4);
  rocksdb_options_add_compact_on_deletion_collector_factory(p, 128, 64);
  rocksdb_options_set_compression_options(p, -14, 3, 0, 16384);
  rocksdb_options_set_bottommost_compression_options(p, -14, 9, 0, 0, 1);
  rocksdb_options_set_bottommost_compression_options_zstd_max_train_bytes(p, 1 << 20, 1);
  rocksdb_options_set_bottommost_compression_options_max_dict_buffer_bytes(p, 1 << 20, 1);
  rocksdb_cache_t cache;
  cache.rep = NewLRUCache(8 << 20);
  rocksdb_options_set_row_cache(p, &cache);
  rocksdb_options_set_blob_cache(p, &cache);
  const std::map<std::string, std::string> expected = {
      {"dump_malloc_stats", "true"},
      {"memtable_whole_key_filtering", "true"},
      {"max_bytes_for_level_multiplier_additional", "1:2:3"},
      {"memtable_factory", "HashSkipListRepFactory:1000:4:4"},
      {"table_properties_collector_factories", "CompactOnDeletionCollector:128:64"},
      {"compression_opts.window_bits", "-14"},
      {"compression_opts.strategy", "0"},
      {"compression_opts.max_dict_bytes", "16384"},
      {"bottommost_compression_opts.window_bits", "-14"},
      {"bottommost_compression_opts.level", "9"},
      {"bottommost_compression_opts.strategy", "0"},
      {"bottommost_compression_opts.max_dict_bytes", "0"},
      {"bottommost_compression_opts.enabled", "true"},
      {"bottommost_compression_opts.zstd_max_train_bytes", "1048576"},
      {"bottommost_compression_opts.max_dict_buffer_bytes", "1048576"},
      {"row_cache", "LRUCache:8388608"},
      {"blob_cache", "LRUCache:8388608"},
  };
  EXPECT_EQ(p->accepted_knobs, expected);
  EXPECT_EQ(p->rep.compression_level, 3);  // the level of compression_opts maps
  EXPECT_OK(CheckOptionsForOpen(p, "/db"));
  // NULL caches forget the knob (RocksDB: no cache).
  rocksdb_options_set_row_cache(p, nullptr);
  EXPECT_EQ(p->accepted_knobs.count("row_cache"), 0u);
  rocksdb_options_set_hash_link_list_rep(p, 50);
  EXPECT_EQ(p->accepted_knobs.at("memtable_factory"), "HashLinkListRepFactory:50");
}

TEST(RocksdbCapiOptionsTest, Presets) {
  OptionsPtr o = NewOptions();
  rocksdb_options_increase_parallelism(o.get(), 12);
  EXPECT_EQ(rocksdb_options_get_max_background_jobs(o.get()), 12);

  rocksdb_options_prepare_for_bulk_load(o.get());
  EXPECT_EQ(rocksdb_options_get_disable_auto_compactions(o.get()), 1);
  EXPECT_EQ(rocksdb_options_get_num_levels(o.get()), 2);

  OptionsPtr level = NewOptions();
  rocksdb_options_optimize_level_style_compaction(level.get(), 512u << 20);
  EXPECT_EQ(rocksdb_options_get_write_buffer_size(level.get()), 128u << 20);
  EXPECT_EQ(rocksdb_options_get_min_write_buffer_number_to_merge(level.get()), 2);
  EXPECT_EQ(rocksdb_options_get_max_write_buffer_number(level.get()), 6);
  EXPECT_EQ(rocksdb_options_get_level0_file_num_compaction_trigger(level.get()), 2);
  EXPECT_EQ(rocksdb_options_get_target_file_size_base(level.get()), 64u << 20);
  EXPECT_EQ(rocksdb_options_get_max_bytes_for_level_base(level.get()), 512u << 20);
  EXPECT_EQ(level->compression_per_level,
            (std::vector<int>{0, 0, rocksdb_lz4_compression, rocksdb_lz4_compression,
                              rocksdb_lz4_compression, rocksdb_lz4_compression,
                              rocksdb_lz4_compression}));
  // Merging two memtables per flush is a knob: the engine keeps flushing one at a time.
  EXPECT_EQ(ShaleOptionsFor(level.get()).min_write_buffer_number_to_merge, 1);

  OptionsPtr universal = NewOptions();
  rocksdb_options_optimize_universal_style_compaction(universal.get(), 512u << 20);
  EXPECT_EQ(rocksdb_options_get_compaction_style(universal.get()), rocksdb_universal_compaction);
  EXPECT_EQ(rocksdb_options_get_write_buffer_size(universal.get()), 128u << 20);

  OptionsPtr lookup = NewOptions();
  rocksdb_options_optimize_for_point_lookup(lookup.get(), 64);
  const TableOptions& t = lookup->rep.table_options;
  EXPECT_NE(t.filter_policy, nullptr);
  EXPECT_EQ(t.data_block_index_type, TableOptions::kDataBlockBinaryAndHash);
  ASSERT_NE(t.block_cache, nullptr);
  EXPECT_EQ(t.block_cache->GetCapacity(), 64u << 20);
  EXPECT_EQ(rocksdb_options_get_memtable_prefix_bloom_size_ratio(lookup.get()), 0.02);
}

TEST(RocksdbCapiOptionsTest, BlockBasedTableFactoryCopiesTheTableOptions) {
  OptionsPtr o = NewOptions();
  auto table = std::make_unique<rocksdb_block_based_table_options_t>();
  table->rep.block_size = 16 * 1024;
  table->accepted_knobs["block_align"] = "true";
  rocksdb_options_set_block_based_table_factory(o.get(), table.get());
  table->rep.block_size = 32 * 1024;  // a copy was taken
  EXPECT_EQ(o->rep.table_options.block_size, 16u * 1024);
  EXPECT_EQ(o->accepted_knobs.at("block_based_table_factory.block_align"), "true");
  // A second factory replaces the first one's knobs.
  table->accepted_knobs.clear();
  rocksdb_options_set_block_based_table_factory(o.get(), table.get());
  EXPECT_EQ(o->rep.table_options.block_size, 32u * 1024);
  EXPECT_EQ(o->accepted_knobs.count("block_based_table_factory.block_align"), 0u);
  rocksdb_options_set_block_based_table_factory(o.get(), nullptr);  // ignored, as RocksDB
  EXPECT_EQ(o->rep.table_options.block_size, 32u * 1024);
}

TEST(RocksdbCapiOptionsTest, CompactionStyleOptionObjects) {
  rocksdb_universal_compaction_options_t* uco = rocksdb_universal_compaction_options_create();
  EXPECT_EQ(rocksdb_universal_compaction_options_get_size_ratio(uco), 1);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_min_merge_width(uco), 2);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_max_merge_width(uco), -1);  // UINT_MAX
  EXPECT_EQ(rocksdb_universal_compaction_options_get_max_size_amplification_percent(uco), 200);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_compression_size_percent(uco), -1);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_stop_style(uco),
            rocksdb_total_size_compaction_stop_style);
  rocksdb_universal_compaction_options_set_size_ratio(uco, 5);
  rocksdb_universal_compaction_options_set_min_merge_width(uco, 3);
  rocksdb_universal_compaction_options_set_max_merge_width(uco, 10);
  rocksdb_universal_compaction_options_set_max_size_amplification_percent(uco, 150);
  rocksdb_universal_compaction_options_set_compression_size_percent(uco, 80);
  rocksdb_universal_compaction_options_set_stop_style(uco,
                                                      rocksdb_similar_size_compaction_stop_style);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_size_ratio(uco), 5);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_min_merge_width(uco), 3);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_max_merge_width(uco), 10);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_max_size_amplification_percent(uco), 150);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_compression_size_percent(uco), 80);
  EXPECT_EQ(rocksdb_universal_compaction_options_get_stop_style(uco),
            rocksdb_similar_size_compaction_stop_style);
  OptionsPtr o = NewOptions();
  rocksdb_options_set_universal_compaction_options(o.get(), uco);
  rocksdb_universal_compaction_options_destroy(uco);
  const CompactionOptionsUniversal& u = o->rep.compaction_options_universal;
  EXPECT_EQ(u.size_ratio, 5u);
  EXPECT_EQ(u.min_merge_width, 3u);
  EXPECT_EQ(u.max_merge_width, 10u);
  EXPECT_EQ(u.max_size_amplification_percent, 150u);
  EXPECT_EQ(o->accepted_knobs.at("compaction_options_universal.compression_size_percent"), "80");

  rocksdb_fifo_compaction_options_t* fifo = rocksdb_fifo_compaction_options_create();
  EXPECT_EQ(rocksdb_fifo_compaction_options_get_max_table_files_size(fifo), 1u << 30);
  rocksdb_fifo_compaction_options_set_max_table_files_size(fifo, 1u << 20);
  EXPECT_EQ(rocksdb_fifo_compaction_options_get_max_table_files_size(fifo), 1u << 20);
  rocksdb_options_set_fifo_compaction_options(o.get(), fifo);
  rocksdb_fifo_compaction_options_destroy(fifo);
  EXPECT_EQ(o->rep.compaction_options_fifo.max_table_files_size, 1u << 20);
}

// The env's file system is the one the DB opens on: a DB on the in-memory env leaves nothing on
// disk, and its files outlive the env handle while the options hold it.
TEST(RocksdbCapiOptionsTest, MemEnvKeepsTheDbInMemory) {
  rocksdb_env_t* env = rocksdb_create_mem_env();
  ASSERT_NE(env, nullptr);
  std::shared_ptr<FileSystem> fs = env->file_system;
  OptionsPtr o = NewOptions();
  rocksdb_options_set_env(o.get(), env);
  rocksdb_env_destroy(env);
  rocksdb_options_set_create_if_missing(o.get(), 1);
  rocksdb_options_set_compression(o.get(), rocksdb_no_compression);
  const std::string name = "/rocksdb_capi_options_test_mem_db";
  ASSERT_OK(CheckOptionsForOpen(o.get(), name));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ShaleOptionsFor(o.get()), name, &db));
  ASSERT_OK(db->Put(WriteOptions(), db->DefaultColumnFamily(), "k", "v"));
  db.reset();
  EXPECT_OK(fs->FileExists(name + "/CURRENT"));
  EXPECT_TRUE(FileSystem::Default()->FileExists(name).IsNotFound());

  rocksdb_env_t* def = rocksdb_create_default_env();
  EXPECT_EQ(def->file_system, FileSystem::Default());
  rocksdb_env_destroy(def);
}

TEST(RocksdbCapiOptionsTest, EnvThreadPoolSizesReadBack) {
  rocksdb_env_t* env = rocksdb_create_default_env();
  EXPECT_EQ(rocksdb_env_get_background_threads(env), 1);
  EXPECT_EQ(rocksdb_env_get_high_priority_background_threads(env), 1);
  EXPECT_EQ(rocksdb_env_get_bottom_priority_background_threads(env), 0);
  rocksdb_env_set_background_threads(env, 6);
  rocksdb_env_set_high_priority_background_threads(env, 3);
  rocksdb_env_set_bottom_priority_background_threads(env, 2);
  EXPECT_EQ(rocksdb_env_get_background_threads(env), 6);
  EXPECT_EQ(rocksdb_env_get_low_priority_background_threads(env), 6);
  EXPECT_EQ(rocksdb_env_get_high_priority_background_threads(env), 3);
  EXPECT_EQ(rocksdb_env_get_bottom_priority_background_threads(env), 2);
  rocksdb_env_set_low_priority_background_threads(env, 4);
  EXPECT_EQ(rocksdb_env_get_background_threads(env), 4);
  rocksdb_env_lower_thread_pool_io_priority(env);
  rocksdb_env_lower_high_priority_thread_pool_io_priority(env);
  rocksdb_env_lower_thread_pool_cpu_priority(env);
  rocksdb_env_lower_high_priority_thread_pool_cpu_priority(env);
  rocksdb_env_join_all_threads(env);
  rocksdb_env_destroy(env);
  rocksdb_envoptions_destroy(rocksdb_envoptions_create());
}

TEST(RocksdbCapiOptionsTest, StatisticsStringHasRocksDbNames) {
  OptionsPtr o = NewOptions();
  EXPECT_EQ(rocksdb_options_statistics_get_string(o.get()), nullptr);  // not enabled
  rocksdb_env_t* env = rocksdb_create_mem_env();
  rocksdb_options_set_env(o.get(), env);
  rocksdb_env_destroy(env);
  rocksdb_options_set_create_if_missing(o.get(), 1);
  rocksdb_options_set_compression(o.get(), rocksdb_no_compression);
  rocksdb_options_enable_statistics(o.get());
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ShaleOptionsFor(o.get()), "/stats_db", &db));
  ASSERT_OK(db->Put(WriteOptions(), db->DefaultColumnFamily(), "key", "value"));
  db.reset();
  const std::string text = TakeString(rocksdb_options_statistics_get_string(o.get()));
  EXPECT_NE(text.find("rocksdb.number.keys.written COUNT : 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rocksdb.db.write.micros "), std::string::npos) << text;
  EXPECT_EQ(text.find("shale."), std::string::npos) << text;
}

TEST(RocksdbCapiOptionsTest, MissingFeaturesFailVisibly) {
  char* err = nullptr;
  EXPECT_EQ(rocksdb_jemalloc_nodump_allocator_create(&err), nullptr);
  EXPECT_EQ(TakeString(err),
            "Not implemented: Not supported by ShaleDB: rocksdb_jemalloc_nodump_allocator_create");
  rocksdb_memory_allocator_destroy(nullptr);

  rocksdb_set_perf_level(rocksdb_enable_count);
  rocksdb_perfcontext_t* context = rocksdb_perfcontext_create();
  EXPECT_EQ(context, nullptr);
  rocksdb_perfcontext_reset(context);
  EXPECT_EQ(rocksdb_perfcontext_report(context, 0), nullptr);
  EXPECT_EQ(rocksdb_perfcontext_metric(context, rocksdb_block_read_count), 0u);
  rocksdb_perfcontext_destroy(context);
}

}  // namespace
}  // namespace shale::rocksdb_capi
