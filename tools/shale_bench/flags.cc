// Definitions of shale_bench's flags (see flags.h). Names, types and defaults are db_bench's
// (RocksDB 7.8) except where a comment says otherwise; help texts follow db_bench's.
#include "flags.h"

#include "absl/flags/flag.h"
#include "absl/flags/internal/parse.h"

// ---------------------------------------------------------------- What to run and how much

ABSL_FLAG(std::string, benchmarks,
          "fillseq,fillsync,fillrandom,overwrite,readrandom,seekrandom,readseq,readreverse,"
          "compact,flush,waitforcompaction,multireadrandom,readseq,readreverse,"
          "readwhilewriting,readrandomwriterandom,updaterandom",
          "Comma-separated list of operations to run in the specified order (db_bench's default "
          "list without the benchmarks ShaleDB does not have yet). Available: fillseq, "
          "fillrandom, fillsync, fillbatch, overwrite, updaterandom, readrandom, readmissing, "
          "multireadrandom, readseq, readreverse, seekrandom, readwhilewriting, "
          "readrandomwriterandom, deleteseq, deleterandom, flush, compact, waitforcompaction, "
          "stats, levelstats, sstables, mergerandom, readrandommergerandom (both need "
          "--merge_operator), and ShaleDB's additions: postinglist and postinglist_rmw (see "
          "--posting_lists), bulkload (the bulk-load "
          "procedure in one benchmark: PrepareForBulkLoad, fillrandom without WAL, "
          "CompactRange), bulkload_sorted (fillrandom's pairs through shale::BulkLoader: sort, "
          "merge, write table files, ingest; see --bulkload_memory_budget and "
          "--bulkload_threads) and bulkload_external (the same pairs sorted in memory, written "
          "with SstFileWriter into files of --target_file_size_base, then ingested)");
ABSL_FLAG(int64_t, num, 1000000, "Number of key/values to place in database");
ABSL_FLAG(int64_t, reads, -1,
          "Number of read operations to do. If negative, do FLAGS_num reads.");
ABSL_FLAG(int32_t, duration, 0,
          "Time in seconds for the random-ops tests to run. When 0 then num & reads determine "
          "the test duration");
ABSL_FLAG(int32_t, threads, 1, "Number of concurrent threads to run.");
ABSL_FLAG(int64_t, batch_size, 1, "Batch size");
ABSL_FLAG(int32_t, readwritepercent, 90,
          "Ratio of reads to reads/writes (expressed as percentage) for the "
          "ReadRandomWriteRandom workload.");
ABSL_FLAG(int32_t, seek_nexts, 0, "How many times to call Next() after Seek() in seekrandom");
ABSL_FLAG(uint64_t, benchmark_write_rate_limit, 0,
          "If non-zero, the rate in bytes/second (keys + values) at which the writer of "
          "readwhilewriting writes (db_bench's flag); 0: as fast as it can");
ABSL_FLAG(int64_t, merge_keys, -1,
          "Number of distinct keys to use for MergeRandom and ReadRandomMergeRandom. If "
          "negative, there will be FLAGS_num keys.");
ABSL_FLAG(int32_t, mergereadpercent, 70,
          "Ratio of merges to merges&reads (expressed as percentage) for the "
          "ReadRandomMergeRandom workload. The default value 70 means 70% out of all read and "
          "merge operations are merges. In other words, 7 merges for every 3 gets.");
ABSL_FLAG(int64_t, seed, 0,
          "Seed base for random number generators. When 0 it is derived from the current time.");

// ---------------------------------------------------------------- Keys and values

ABSL_FLAG(int32_t, key_size, 16, "size of each key");
ABSL_FLAG(int32_t, value_size, 100, "Size of each value in fixed distribution");
ABSL_FLAG(std::string, value_size_distribution_type, "fixed",
          "Value size distribution type: fixed, uniform, normal");
ABSL_FLAG(int32_t, value_size_min, 100, "Min size of random value");
ABSL_FLAG(int32_t, value_size_max, 102400, "Max size of random value");
ABSL_FLAG(double, compression_ratio, 0.5,
          "Arrange to generate values that shrink to this fraction of their original size after "
          "compression");

// ---------------------------------------------------------------- The database

ABSL_FLAG(std::string, db, "",
          "Use the db with the following name (default: /tmp/shaledbtest-<uid>/dbbench).");
ABSL_FLAG(bool, use_existing_db, false,
          "If true, do not destroy the existing database. If you set this flag and also specify "
          "a benchmark that wants a fresh database, that benchmark is skipped.");
ABSL_FLAG(int32_t, num_column_families, 1,
          "Number of Column Families to use. Keys are spread over them as db_bench does: key "
          "number k lives in family k % N, named \"default\" (0), then "
          "\"column_family_name_000001\", ...; missing ones are created "
          "(create_missing_column_families), each with the flags' options. Reads look a key up "
          "in its family; readseq/readreverse scan the families one after the other; flush, "
          "compact, waitforcompaction and the stats steps act on every family; bulkload_sorted "
          "runs a BulkLoader per family and bulkload_external ingests each family's files "
          "into it.");
ABSL_FLAG(std::string, options_file, "",
          "The path to an OPTIONS file (ShaleDB's or RocksDB's). If specified, the DB runs with "
          "the options of that file, and the command-line flags that set DB options are "
          "ignored.");
ABSL_FLAG(bool, sync, false, "Sync all writes to disk");
ABSL_FLAG(bool, disable_wal, false,
          "If true, do not write WAL for write. bulkload writes without WAL unless this flag is "
          "given.");
ABSL_FLAG(bool, avoid_flush_during_shutdown, false,
          "Options::avoid_flush_during_shutdown. If true, closing the DB leaves logged writes "
          "in the WAL (the next open replays them); if false (the default), closing flushes "
          "the memtables (up to 256 MiB) so that the next open replays no WAL.");
// db_bench's default is "snappy"; ShaleDB's (Options::compression) is none, kept here so that
// a run without the flag measures the engine as it ships.
ABSL_FLAG(std::string, compression_type, "none",
          "Algorithm to use to compress the database: none, snappy, zlib, lz4, lz4hc or zstd "
          "(db_bench's bzip2 and xpress are not built: the DB refuses them at open). "
          "Default none (db_bench: snappy).");
ABSL_FLAG(int32_t, compression_level, 32767,
          "Compression level. The meaning of this value is library-dependent. 32767 (the "
          "default) means the library's default level (zstd: 3, lz4hc: 9, zlib: 6; snappy and "
          "lz4 have no levels).");
ABSL_FLAG(int64_t, write_buffer_size, 64 << 20,
          "Number of bytes to buffer in memtable before compacting");
ABSL_FLAG(int32_t, max_write_buffer_number, 2,
          "The number of in-memory memtables. Each memtable is of size write_buffer_size "
          "bytes.");
ABSL_FLAG(int64_t, db_write_buffer_size, 0,
          "Number of bytes to buffer in all memtables before compacting");
ABSL_FLAG(int32_t, open_files, -1,
          "Maximum number of files to keep open at the same time (-1: no limit)");
ABSL_FLAG(int64_t, cache_size, 8 << 20,
          "Number of bytes to use as a cache of uncompressed data (an LRU block cache); "
          "negative means no block cache.");
ABSL_FLAG(int32_t, cache_numshardbits, -1,
          "Number of shards for the block cache is 2 ** cache_numshardbits. Negative means use "
          "default settings. This is applied only if --cache_size is non-negative.");
ABSL_FLAG(double, cache_high_pri_pool_ratio, 0.0,
          "Ratio of block cache reserved for high-priority (index and filter) blocks.");
ABSL_FLAG(bool, cache_index_and_filter_blocks, false, "Cache index/filter blocks in block cache.");
ABSL_FLAG(bool, pin_top_level_index_and_filter, false,
          "Pin top-level index of partitioned index/filter blocks in block cache.");
ABSL_FLAG(bool, pin_l0_filter_and_index_blocks_in_cache, false,
          "Pin index/filter blocks of L0 files in block cache.");
ABSL_FLAG(bool, charge_table_reader, true,
          "Charge the memory of open tables' readers (index and filter) to the block cache "
          "(TableOptions::charge_table_reader_memory; RocksDB's flag of this name defaults to "
          "false).");
ABSL_FLAG(int32_t, bloom_bits, -1,
          "Bloom filter bits per key. Negative means use default (no filter). Zero disables.");
ABSL_FLAG(bool, partition_index, false, "Partition index blocks");
ABSL_FLAG(bool, partition_index_and_filters, false, "Partition index and filter blocks.");
ABSL_FLAG(int64_t, metadata_block_size, 4096,
          "Max partition size when partitioning index/filters");
ABSL_FLAG(bool, use_data_block_hash_index, false,
          "if use kDataBlockBinaryAndHash instead of kDataBlockBinarySearch.");
ABSL_FLAG(bool, enable_index_compression, true, "Compress the index block");
ABSL_FLAG(int32_t, block_size, 4096, "Number of bytes in a block.");
ABSL_FLAG(int32_t, block_restart_interval, 0,
          "Keys between restart points in data blocks (TableOptions::block_restart_interval); "
          "0: the engine's default.");
ABSL_FLAG(int32_t, index_block_restart_interval, 0,
          "Keys between restart points in index blocks "
          "(TableOptions::index_block_restart_interval); 0: the engine's default.");
ABSL_FLAG(int32_t, compaction_style, 0,
          "style of compaction: 0 level-based, 1 universal, 2 fifo, 3 none (only compact and "
          "bulkload compact)");
ABSL_FLAG(bool, disable_auto_compactions, false, "Do not auto trigger compactions");
ABSL_FLAG(int32_t, level0_file_num_compaction_trigger, 4,
          "Number of files in level-0 when compactions start.");
ABSL_FLAG(int32_t, level0_slowdown_writes_trigger, 20,
          "Number of files in level-0 that will slow down writes.");
ABSL_FLAG(int32_t, level0_stop_writes_trigger, 36,
          "Number of files in level-0 that will trigger put stop.");
ABSL_FLAG(int64_t, target_file_size_base, 64 << 20, "Target file size at level-1");
ABSL_FLAG(int32_t, target_file_size_multiplier, 1,
          "A multiplier to compute target level-N file size (N >= 2)");
ABSL_FLAG(uint64_t, max_bytes_for_level_base, 256 << 20, "Max bytes for level-1");
ABSL_FLAG(double, max_bytes_for_level_multiplier, 10,
          "A multiplier to compute max bytes for level-N (N >= 2)");
ABSL_FLAG(int32_t, num_levels, 7, "The total number of levels");
ABSL_FLAG(bool, level_compaction_dynamic_level_bytes, true,
          "Whether level size base is dynamic (ShaleDB's default true; db_bench's is false)");
ABSL_FLAG(int32_t, stats_dump_period_sec, 600,
          "Gap between printing stats to log in seconds (Options::stats_dump_period_sec; 0 "
          "disables).");
ABSL_FLAG(int32_t, max_background_jobs, 2,
          "The maximum number of concurrent background jobs that can occur in parallel.");
ABSL_FLAG(uint64_t, subcompactions, 1,
          "Maximum number of subcompactions to divide L0-L1 compactions into.");
ABSL_FLAG(uint64_t, delayed_write_rate, 16777216,
          "Limited bytes allowed to DB when level0_slowdown_writes_trigger triggers "
          "(ShaleDB's default 16 MiB/s; db_bench's is 8 MiB/s)");
ABSL_FLAG(uint64_t, soft_pending_compaction_bytes_limit, 64ull << 30,
          "Slowdown writes if pending compaction bytes exceed this number");
ABSL_FLAG(uint64_t, hard_pending_compaction_bytes_limit, 256ull << 30,
          "Stop writes if pending compaction bytes exceed this number (ShaleDB's default "
          "256 GiB; db_bench's is 128 GiB)");
// The universal and FIFO knobs: as in db_bench, 0 keeps the engine's default.
ABSL_FLAG(int32_t, universal_size_ratio, 0,
          "Percentage flexibility while comparing file size (for universal compaction only; "
          "0 keeps the engine's default).");
ABSL_FLAG(int32_t, universal_min_merge_width, 0,
          "The minimum number of files in a single compaction run (for universal compaction "
          "only; 0 keeps the engine's default).");
ABSL_FLAG(int32_t, universal_max_merge_width, 0,
          "The max number of files to compact in universal style compaction (0 keeps the "
          "engine's default).");
ABSL_FLAG(int32_t, universal_max_size_amplification_percent, 0,
          "The max size amplification for universal style compaction (0 keeps the engine's "
          "default).");
ABSL_FLAG(uint64_t, fifo_compaction_max_table_files_size_mb, 0,
          "The limit of total table file sizes to trigger FIFO compaction (0 keeps the "
          "engine's default).");
// db_bench's default is true; ShaleDB's FIFO style never merges files, so true is rejected.
ABSL_FLAG(bool, fifo_compaction_allow_compaction, false,
          "Allow compaction in FIFO compaction. Default false (db_bench: true); true is not "
          "supported yet.");
ABSL_FLAG(uint64_t, fifo_compaction_ttl, 0,
          "TTL for the SST Files in seconds (sets Options::ttl when non-zero; the engine "
          "rejects it with a compaction style that does not act on file age).");
ABSL_FLAG(std::string, merge_operator, "",
          "The merge operator to use with the database: db_bench's uint64add (operands are "
          "8-byte little-endian integers: use --value_size=8), max, stringappend and put (also "
          "by RocksDB's class names UInt64AddOperator, MaxOperator, StringAppendOperator, "
          "PutOperator; put_v1 is put), and ShaleDB's stringappend:<delimiter> and "
          "sortedset64[:<index_interval>] (posting lists: see postinglist). Empty: none.");
ABSL_FLAG(uint64_t, max_successive_merges, 0,
          "Maximum number of successive merge operations on a key in the memtable");
ABSL_FLAG(int32_t, min_write_buffer_number_to_merge, 1,
          "The minimum number of write buffers that will be merged together before writing to "
          "storage. Not supported yet (only 1).");
ABSL_FLAG(bool, use_fsync, false, "If true, issue fsync instead of fdatasync. Not supported yet.");
ABSL_FLAG(bool, prepare_for_bulk_load, false,
          "Apply Options::PrepareForBulkLoad() after the other options (ShaleDB addition).");
ABSL_FLAG(uint64_t, optimize_for_point_lookup, 0,
          "If non-zero, apply Options::OptimizeForPointLookup(this many MiB of block cache) "
          "(ShaleDB addition).");
ABSL_FLAG(uint64_t, bulkload_memory_budget, 512ull << 20,
          "bulkload_sorted: bytes of memory the bulk loader sorts in (two buffers of half each; "
          "runs are spilled to <db>/bulkload.tmp when they fill). At least 65536 (ShaleDB "
          "addition).");
ABSL_FLAG(int32_t, bulkload_max_open_files, 0,
          "bulkload_sorted: the most file descriptors the loader's merge may hold (spilled run "
          "files are merged in passes to stay within it); 0: from RLIMIT_NOFILE, less the DB's "
          "share (BulkLoaderOptions::max_open_files; ShaleDB addition).");
ABSL_FLAG(int32_t, bulkload_threads, 0,
          "bulkload_sorted: threads that merge the sorted runs and write table files, each over "
          "its own key range; 0: max_background_jobs, at least 2 (ShaleDB addition).");

// ---------------------------------------------------------------- The posting-list workload

ABSL_FLAG(int64_t, posting_lists, 1000,
          "postinglist, postinglist_rmw: the number of lists (keys 0 .. posting_lists - 1), "
          "picked by a Zipf distribution of --zipf_theta; list 0 is the hottest (ShaleDB "
          "addition).");
ABSL_FLAG(double, zipf_theta, 0.99,
          "postinglist, postinglist_rmw: the Zipf exponent of the list picked by each "
          "operation (list k has weight 1 / (k + 1)^theta; 0: uniform) (ShaleDB addition).");
ABSL_FLAG(int64_t, posting_target_ids, 1000000,
          "postinglist, postinglist_rmw: the run ends once the hottest list holds this many ids "
          "and the reader has timed --posting_target_gets Gets of it at that size (see "
          "--posting_max_hold_seconds), or at --duration seconds (ShaleDB addition).");
ABSL_FLAG(int64_t, posting_target_gets, 1000,
          "postinglist, postinglist_rmw: Gets of the hottest list at --posting_target_ids ids "
          "or more, while the writers go on, before the run ends (ShaleDB addition).");
ABSL_FLAG(int32_t, posting_max_hold_seconds, 10,
          "postinglist, postinglist_rmw: once the hottest list holds --posting_target_ids ids, "
          "the run ends after --posting_target_gets Gets of it or this many seconds, whichever "
          "comes first (ShaleDB addition).");
ABSL_FLAG(std::string, posting_ids, "sequential",
          "postinglist, postinglist_rmw: the ids added: sequential (increasing over the run, as "
          "document ids are assigned: each add extends the end of its list) or random (unique "
          "ids spread over the 64-bit space: each add lands inside its list) (ShaleDB "
          "addition).");

// ---------------------------------------------------------------- Reporting

ABSL_FLAG(bool, histogram, false, "Print histogram of operation timings");
ABSL_FLAG(bool, statistics, false, "Database statistics");
ABSL_FLAG(int64_t, stats_interval_seconds, 0,
          "Report stats every N seconds (0: only at the end of each benchmark).");
ABSL_FLAG(int64_t, report_interval_seconds, 0,
          "If greater than zero, it will write simple stats in CSV format to --report_file "
          "every N seconds (db_bench's format: a 'secs_elapsed,interval_qps' header, then the "
          "seconds since the benchmark started and the operations done in the interval; each "
          "timed benchmark rewrites the file)");
ABSL_FLAG(std::string, report_file, "report.csv",
          "Filename where some simple stats are reported to (if --report_interval_seconds is "
          "bigger than 0)");
ABSL_FLAG(std::string, json, "",
          "If set, write a machine-readable report of every benchmark to this file "
          "(ShaleDB addition).");

namespace shale::bench {

bool FlagWasSet(std::string_view name) {
  // The public accessor (CommandLineFlag::IsSpecifiedOnCommandLine) is private in Debian's
  // abseil 20220623; this is the function absl's own parser answers it with.
  return absl::flags_internal::WasPresentOnCommandLine(absl::string_view(name.data(), name.size()));
}

}  // namespace shale::bench
