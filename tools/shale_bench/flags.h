// The command-line flags of shale_bench, declared for the files that read them. They carry
// db_bench's names, types and defaults (RocksDB 7.8 `db_bench --help`) so that one command line
// runs against both engines; flags.cc documents each one and the few defaults that differ.
//
// Flags are process-wide globals set once by absl::ParseCommandLine in main() before any
// benchmark thread starts; afterwards they are only read (absl::GetFlag is thread-safe).
#ifndef SHALE_TOOLS_SHALE_BENCH_FLAGS_H_
#define SHALE_TOOLS_SHALE_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/flags/declare.h"

// What to run and how much.
ABSL_DECLARE_FLAG(std::string, benchmarks);
ABSL_DECLARE_FLAG(int64_t, num);
ABSL_DECLARE_FLAG(int64_t, reads);
ABSL_DECLARE_FLAG(int32_t, duration);
ABSL_DECLARE_FLAG(int32_t, threads);
ABSL_DECLARE_FLAG(int64_t, batch_size);
ABSL_DECLARE_FLAG(int32_t, readwritepercent);
ABSL_DECLARE_FLAG(int32_t, seek_nexts);
ABSL_DECLARE_FLAG(uint64_t, benchmark_write_rate_limit);
ABSL_DECLARE_FLAG(int64_t, merge_keys);
ABSL_DECLARE_FLAG(int32_t, mergereadpercent);
ABSL_DECLARE_FLAG(int64_t, seed);

// Keys and values.
ABSL_DECLARE_FLAG(int32_t, key_size);
ABSL_DECLARE_FLAG(int32_t, value_size);
ABSL_DECLARE_FLAG(std::string, value_size_distribution_type);
ABSL_DECLARE_FLAG(int32_t, value_size_min);
ABSL_DECLARE_FLAG(int32_t, value_size_max);
ABSL_DECLARE_FLAG(double, compression_ratio);

// The database.
ABSL_DECLARE_FLAG(std::string, db);
ABSL_DECLARE_FLAG(bool, use_existing_db);
ABSL_DECLARE_FLAG(int32_t, num_column_families);
ABSL_DECLARE_FLAG(std::string, options_file);
ABSL_DECLARE_FLAG(bool, sync);
ABSL_DECLARE_FLAG(bool, disable_wal);
ABSL_DECLARE_FLAG(bool, avoid_flush_during_shutdown);
ABSL_DECLARE_FLAG(std::string, compression_type);
ABSL_DECLARE_FLAG(int32_t, compression_level);
ABSL_DECLARE_FLAG(int64_t, write_buffer_size);
ABSL_DECLARE_FLAG(int32_t, max_write_buffer_number);
ABSL_DECLARE_FLAG(int64_t, db_write_buffer_size);
ABSL_DECLARE_FLAG(int32_t, open_files);
ABSL_DECLARE_FLAG(int64_t, cache_size);
ABSL_DECLARE_FLAG(int32_t, cache_numshardbits);
ABSL_DECLARE_FLAG(bool, cache_index_and_filter_blocks);
ABSL_DECLARE_FLAG(bool, pin_top_level_index_and_filter);
ABSL_DECLARE_FLAG(bool, pin_l0_filter_and_index_blocks_in_cache);
ABSL_DECLARE_FLAG(bool, charge_table_reader);
ABSL_DECLARE_FLAG(double, cache_high_pri_pool_ratio);
ABSL_DECLARE_FLAG(int32_t, bloom_bits);
ABSL_DECLARE_FLAG(bool, partition_index);
ABSL_DECLARE_FLAG(bool, partition_index_and_filters);
ABSL_DECLARE_FLAG(int64_t, metadata_block_size);
ABSL_DECLARE_FLAG(bool, use_data_block_hash_index);
ABSL_DECLARE_FLAG(bool, enable_index_compression);
ABSL_DECLARE_FLAG(int32_t, block_size);
ABSL_DECLARE_FLAG(int32_t, block_restart_interval);
ABSL_DECLARE_FLAG(int32_t, index_block_restart_interval);
ABSL_DECLARE_FLAG(int32_t, compaction_style);
ABSL_DECLARE_FLAG(bool, disable_auto_compactions);
ABSL_DECLARE_FLAG(int32_t, level0_file_num_compaction_trigger);
ABSL_DECLARE_FLAG(int32_t, level0_slowdown_writes_trigger);
ABSL_DECLARE_FLAG(int32_t, level0_stop_writes_trigger);
ABSL_DECLARE_FLAG(int64_t, target_file_size_base);
ABSL_DECLARE_FLAG(int32_t, target_file_size_multiplier);
ABSL_DECLARE_FLAG(uint64_t, max_bytes_for_level_base);
ABSL_DECLARE_FLAG(double, max_bytes_for_level_multiplier);
ABSL_DECLARE_FLAG(int32_t, num_levels);
ABSL_DECLARE_FLAG(bool, level_compaction_dynamic_level_bytes);
ABSL_DECLARE_FLAG(int32_t, max_background_jobs);
ABSL_DECLARE_FLAG(int32_t, stats_dump_period_sec);
ABSL_DECLARE_FLAG(uint64_t, subcompactions);
ABSL_DECLARE_FLAG(uint64_t, delayed_write_rate);
ABSL_DECLARE_FLAG(uint64_t, soft_pending_compaction_bytes_limit);
ABSL_DECLARE_FLAG(uint64_t, hard_pending_compaction_bytes_limit);
ABSL_DECLARE_FLAG(int32_t, universal_size_ratio);
ABSL_DECLARE_FLAG(int32_t, universal_min_merge_width);
ABSL_DECLARE_FLAG(int32_t, universal_max_merge_width);
ABSL_DECLARE_FLAG(int32_t, universal_max_size_amplification_percent);
ABSL_DECLARE_FLAG(uint64_t, fifo_compaction_max_table_files_size_mb);
ABSL_DECLARE_FLAG(bool, fifo_compaction_allow_compaction);
ABSL_DECLARE_FLAG(uint64_t, fifo_compaction_ttl);
ABSL_DECLARE_FLAG(std::string, merge_operator);
ABSL_DECLARE_FLAG(uint64_t, max_successive_merges);
ABSL_DECLARE_FLAG(int32_t, min_write_buffer_number_to_merge);
ABSL_DECLARE_FLAG(bool, use_fsync);
ABSL_DECLARE_FLAG(bool, prepare_for_bulk_load);
ABSL_DECLARE_FLAG(uint64_t, optimize_for_point_lookup);
ABSL_DECLARE_FLAG(uint64_t, bulkload_memory_budget);
ABSL_DECLARE_FLAG(int32_t, bulkload_max_open_files);
ABSL_DECLARE_FLAG(int32_t, bulkload_threads);

// The posting-list workload (ShaleDB's postinglist and postinglist_rmw).
ABSL_DECLARE_FLAG(int64_t, posting_lists);
ABSL_DECLARE_FLAG(double, zipf_theta);
ABSL_DECLARE_FLAG(int64_t, posting_target_ids);
ABSL_DECLARE_FLAG(int64_t, posting_target_gets);
ABSL_DECLARE_FLAG(int32_t, posting_max_hold_seconds);
ABSL_DECLARE_FLAG(std::string, posting_ids);

// Reporting.
ABSL_DECLARE_FLAG(bool, histogram);
ABSL_DECLARE_FLAG(bool, statistics);
ABSL_DECLARE_FLAG(int64_t, stats_interval_seconds);
ABSL_DECLARE_FLAG(int64_t, report_interval_seconds);
ABSL_DECLARE_FLAG(std::string, report_file);
ABSL_DECLARE_FLAG(std::string, json);

namespace shale::bench {

// Whether the command line (or a --flagfile it names) set the flag `name`, as opposed to the
// flag holding its default. Lets a benchmark pick its own default for a flag (bulkload turns
// the WAL off unless --disable_wal is given).
bool FlagWasSet(std::string_view name);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_FLAGS_H_
