// shale_bench's flag handling: the benchmark list, flags rejected before anything runs, and the
// mapping of flags onto Options.
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "benchmark_list.h"
#include "flags.h"
#include "gtest/gtest.h"
#include "options_from_flags.h"
#include "testutil/status_matchers.h"

namespace shale::bench {
namespace {

TEST(BenchmarkListTest, ParsesKnownNames) {
  std::vector<std::string> names;
  ASSERT_OK(ParseBenchmarkList("fillseq,,readrandom,stats,", &names));
  EXPECT_EQ(names, (std::vector<std::string>{"fillseq", "readrandom", "stats"}));
  ASSERT_OK(ParseBenchmarkList(absl::GetFlag(FLAGS_benchmarks), &names));
  EXPECT_GT(names.size(), 10u);
}

TEST(BenchmarkListTest, RejectsUnknownAndNotYetSupported) {
  std::vector<std::string> names;
  Status s = ParseBenchmarkList("fillseq,nosuch", &names);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("unknown benchmark 'nosuch'"), std::string::npos) << s.ToString();
  s = ParseBenchmarkList("fillseq,readwhilemerging", &names);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("'readwhilemerging' is not supported yet"), std::string::npos)
      << s.ToString();
}

TEST(BenchmarkListTest, EveryBenchmarkOfTheIssueExists) {
  for (const char* name :
       {"fillseq", "fillrandom", "fillsync", "fillbatch", "overwrite", "updaterandom",
        "readrandom", "readmissing", "multireadrandom", "readseq", "readreverse", "seekrandom",
        "readwhilewriting", "readrandomwriterandom", "deleteseq", "deleterandom", "flush",
        "compact", "waitforcompaction", "stats", "levelstats", "sstables", "bulkload",
        "bulkload_sorted", "bulkload_external"}) {
    const BenchmarkSpec* spec = FindBenchmark(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_NE(spec->workload == nullptr, spec->admin == nullptr) << name;
  }
}

class FlagsTest : public testing::Test {
 private:
  absl::FlagSaver saver_;  // every test's flag changes are undone
};

TEST_F(FlagsTest, DefaultsAreAccepted) { EXPECT_OK(CheckFlags()); }

// The block cache flags, as db_bench reads them: --cache_size bytes of LRU cache (8 MiB by
// default, negative for none), its shard bits, and the index/filter placement switches.
TEST_F(FlagsTest, BlockCacheFlagsReachTheTableOptions) {
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  ASSERT_NE(o.table_options.block_cache, nullptr);
  EXPECT_EQ(o.table_options.block_cache->GetCapacity(), 8u << 20);
  EXPECT_FALSE(o.table_options.cache_index_and_filter_blocks);
  EXPECT_TRUE(o.table_options.charge_table_reader_memory);  // the engine's default
  absl::SetFlag(&FLAGS_charge_table_reader, false);
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_FALSE(o.table_options.charge_table_reader_memory);
  absl::SetFlag(&FLAGS_cache_size, 64 << 20);
  absl::SetFlag(&FLAGS_cache_index_and_filter_blocks, true);
  absl::SetFlag(&FLAGS_pin_top_level_index_and_filter, true);
  absl::SetFlag(&FLAGS_pin_l0_filter_and_index_blocks_in_cache, true);
  ASSERT_OK(CheckFlags());
  ASSERT_OK(OptionsFromFlags(&o));
  ASSERT_NE(o.table_options.block_cache, nullptr);
  EXPECT_EQ(o.table_options.block_cache->GetCapacity(), 64u << 20);
  EXPECT_TRUE(o.table_options.cache_index_and_filter_blocks);
  EXPECT_TRUE(o.table_options.pin_top_level_index_and_filter);
  EXPECT_TRUE(o.table_options.pin_l0_filter_and_index_blocks_in_cache);
  absl::SetFlag(&FLAGS_cache_size, -1);
  absl::SetFlag(&FLAGS_cache_index_and_filter_blocks, false);
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_EQ(o.table_options.block_cache, nullptr);
  EXPECT_TRUE(o.table_options.no_block_cache);
  absl::SetFlag(&FLAGS_cache_size, 1 << 20);
  absl::SetFlag(&FLAGS_cache_numshardbits, 20);
  Status s = OptionsFromFlags(&o);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--cache_numshardbits"), std::string::npos) << s.ToString();
  absl::SetFlag(&FLAGS_cache_numshardbits, -1);
  absl::SetFlag(&FLAGS_cache_size, 8 << 20);
  absl::SetFlag(&FLAGS_pin_top_level_index_and_filter, false);
  absl::SetFlag(&FLAGS_pin_l0_filter_and_index_blocks_in_cache, false);
}

TEST_F(FlagsTest, NotYetBuiltFeaturesAreRejectedByName) {
  absl::SetFlag(&FLAGS_merge_operator, "bytesxor");  // RocksDB's, not ShaleDB's
  Status s = CheckFlags();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--merge_operator: not supported yet"), std::string::npos)
      << s.ToString();
  absl::SetFlag(&FLAGS_merge_operator, "");
  // Each of these alone is rejected, by name.
  const auto expect_rejected = [](const char* flag) {
    const Status rejected = CheckFlags();
    EXPECT_TRUE(rejected.IsInvalidArgument()) << flag;
    EXPECT_NE(rejected.ToString().find(std::string("--") + flag + ": not supported yet"),
              std::string::npos)
        << rejected.ToString();
  };
  absl::SetFlag(&FLAGS_min_write_buffer_number_to_merge, 2);
  expect_rejected("min_write_buffer_number_to_merge");
  absl::SetFlag(&FLAGS_min_write_buffer_number_to_merge, 1);
  absl::SetFlag(&FLAGS_use_fsync, true);
  expect_rejected("use_fsync");
  absl::SetFlag(&FLAGS_use_fsync, false);
  absl::SetFlag(&FLAGS_fifo_compaction_allow_compaction, true);
  expect_rejected("fifo_compaction_allow_compaction");
  absl::SetFlag(&FLAGS_fifo_compaction_allow_compaction, false);
  EXPECT_OK(CheckFlags());
}

TEST_F(FlagsTest, CompactionFlagsAreAcceptedAndMapOntoOptions) {
  absl::SetFlag(&FLAGS_compaction_style, 1);
  absl::SetFlag(&FLAGS_disable_auto_compactions, true);
  absl::SetFlag(&FLAGS_subcompactions, uint64_t{4});
  absl::SetFlag(&FLAGS_level0_file_num_compaction_trigger, 2);
  absl::SetFlag(&FLAGS_level0_slowdown_writes_trigger, 8);
  absl::SetFlag(&FLAGS_level0_stop_writes_trigger, 12);
  absl::SetFlag(&FLAGS_target_file_size_base, int64_t{8} << 20);
  absl::SetFlag(&FLAGS_target_file_size_multiplier, 2);
  absl::SetFlag(&FLAGS_max_bytes_for_level_base, uint64_t{32} << 20);
  absl::SetFlag(&FLAGS_max_bytes_for_level_multiplier, 8.0);
  absl::SetFlag(&FLAGS_level_compaction_dynamic_level_bytes, false);
  absl::SetFlag(&FLAGS_max_background_jobs, 6);
  absl::SetFlag(&FLAGS_stats_dump_period_sec, 7);
  absl::SetFlag(&FLAGS_delayed_write_rate, uint64_t{1} << 20);
  absl::SetFlag(&FLAGS_soft_pending_compaction_bytes_limit, uint64_t{1} << 30);
  absl::SetFlag(&FLAGS_hard_pending_compaction_bytes_limit, uint64_t{2} << 30);
  absl::SetFlag(&FLAGS_universal_size_ratio, 5);
  absl::SetFlag(&FLAGS_universal_min_merge_width, 3);
  absl::SetFlag(&FLAGS_universal_max_merge_width, 9);
  absl::SetFlag(&FLAGS_universal_max_size_amplification_percent, 150);
  ASSERT_OK(CheckFlags());
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_EQ(o.compaction_style, kCompactionStyleUniversal);
  EXPECT_TRUE(o.disable_auto_compactions);
  EXPECT_EQ(o.max_subcompactions, 4u);
  EXPECT_EQ(o.level0_file_num_compaction_trigger, 2);
  EXPECT_EQ(o.level0_slowdown_writes_trigger, 8);
  EXPECT_EQ(o.level0_stop_writes_trigger, 12);
  EXPECT_EQ(o.target_file_size_base, 8u << 20);
  EXPECT_EQ(o.target_file_size_multiplier, 2);
  EXPECT_EQ(o.max_bytes_for_level_base, 32u << 20);
  EXPECT_EQ(o.max_bytes_for_level_multiplier, 8.0);
  EXPECT_FALSE(o.level_compaction_dynamic_level_bytes);
  EXPECT_EQ(o.max_background_jobs, 6);
  EXPECT_EQ(o.stats_dump_period_sec, 7);
  EXPECT_EQ(o.delayed_write_rate, 1u << 20);
  EXPECT_EQ(o.soft_pending_compaction_bytes_limit, uint64_t{1} << 30);
  EXPECT_EQ(o.hard_pending_compaction_bytes_limit, uint64_t{2} << 30);
  EXPECT_EQ(o.compaction_options_universal.size_ratio, 5u);
  EXPECT_EQ(o.compaction_options_universal.min_merge_width, 3u);
  EXPECT_EQ(o.compaction_options_universal.max_merge_width, 9u);
  EXPECT_EQ(o.compaction_options_universal.max_size_amplification_percent, 150u);
  EXPECT_OK(o.Validate());
}

// --avoid_flush_during_shutdown (db_bench's name, issue 20) reaches the option; its default is
// the engine's.
TEST_F(FlagsTest, AvoidFlushDuringShutdownReachesTheOption) {
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_EQ(o.avoid_flush_during_shutdown, Options().avoid_flush_during_shutdown);
  absl::SetFlag(&FLAGS_avoid_flush_during_shutdown, true);
  ASSERT_OK(CheckFlags());
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_TRUE(o.avoid_flush_during_shutdown);
}

TEST_F(FlagsTest, FifoFlagsSetItsSizeAndTtl) {
  absl::SetFlag(&FLAGS_compaction_style, 2);
  absl::SetFlag(&FLAGS_fifo_compaction_max_table_files_size_mb, uint64_t{10});
  absl::SetFlag(&FLAGS_fifo_compaction_ttl, uint64_t{60});
  ASSERT_OK(CheckFlags());
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_EQ(o.compaction_style, kCompactionStyleFIFO);
  EXPECT_EQ(o.compaction_options_fifo.max_table_files_size, 10u << 20);
  EXPECT_FALSE(o.compaction_options_fifo.allow_compaction);
  EXPECT_EQ(o.ttl, 60u);
  EXPECT_OK(o.Validate());
}

TEST_F(FlagsTest, ZeroStyleKnobsKeepTheEngineDefaults) {
  // db_bench's defaults (0) mean "the engine's default", not 0.
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  const Options engine;
  EXPECT_EQ(o.compaction_options_universal, engine.compaction_options_universal);
  EXPECT_EQ(o.compaction_options_fifo, engine.compaction_options_fifo);
  EXPECT_EQ(o.ttl, engine.ttl);
  EXPECT_EQ(o.target_file_size_multiplier, engine.target_file_size_multiplier);
  EXPECT_EQ(o.max_bytes_for_level_multiplier, engine.max_bytes_for_level_multiplier);
  EXPECT_EQ(o.compaction_style, engine.compaction_style);
  EXPECT_EQ(o.disable_auto_compactions, engine.disable_auto_compactions);
  EXPECT_EQ(o.max_subcompactions, engine.max_subcompactions);
}

TEST_F(FlagsTest, PrepareForBulkLoadIsAppliedAfterTheOtherFlags) {
  absl::SetFlag(&FLAGS_write_buffer_size, int64_t{512} << 20);
  absl::SetFlag(&FLAGS_num_levels, 5);
  absl::SetFlag(&FLAGS_prepare_for_bulk_load, true);
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  Options expected;
  expected.write_buffer_size = size_t{512} << 20;
  expected.num_levels = 5;
  expected.PrepareForBulkLoad();
  EXPECT_TRUE(o.disable_auto_compactions);
  EXPECT_EQ(o.num_levels, expected.num_levels);
  EXPECT_EQ(o.write_buffer_size, expected.write_buffer_size);  // "at least 256 MiB": kept
  EXPECT_EQ(o.level0_file_num_compaction_trigger, expected.level0_file_num_compaction_trigger);
  EXPECT_EQ(o.level0_stop_writes_trigger, expected.level0_stop_writes_trigger);
  EXPECT_EQ(o.hard_pending_compaction_bytes_limit, expected.hard_pending_compaction_bytes_limit);
  EXPECT_EQ(o.max_write_buffer_number, expected.max_write_buffer_number);
  EXPECT_EQ(o.max_background_jobs, expected.max_background_jobs);
  EXPECT_OK(o.Validate());
}

TEST_F(FlagsTest, NumColumnFamiliesMustBeAtLeastOne) {
  ASSERT_OK(CheckFlags());  // the default, 1
  absl::SetFlag(&FLAGS_num_column_families, 4);
  ASSERT_OK(CheckFlags());
  for (int bad : {0, -2}) {
    absl::SetFlag(&FLAGS_num_column_families, bad);
    const Status s = CheckFlags();
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("--num_column_families"), std::string::npos) << s.ToString();
  }
}

TEST_F(FlagsTest, MalformedValuesAreRejected) {
  absl::SetFlag(&FLAGS_compaction_style, 4);
  EXPECT_NE(CheckFlags().ToString().find("--compaction_style"), std::string::npos);
  absl::SetFlag(&FLAGS_compaction_style, 0);
  absl::SetFlag(&FLAGS_compression_type, "brotli");
  EXPECT_NE(CheckFlags().ToString().find("unknown compression type 'brotli'"), std::string::npos);
  absl::SetFlag(&FLAGS_compression_type, "none");
  absl::SetFlag(&FLAGS_value_size_distribution_type, "zipf");
  EXPECT_NE(CheckFlags().ToString().find("--value_size_distribution_type"), std::string::npos);
  absl::SetFlag(&FLAGS_value_size_distribution_type, "fixed");
  absl::SetFlag(&FLAGS_compression_ratio, 1.5);
  EXPECT_NE(CheckFlags().ToString().find("--compression_ratio"), std::string::npos);
  absl::SetFlag(&FLAGS_compression_ratio, 0.5);
  absl::SetFlag(&FLAGS_universal_max_merge_width, -1);
  EXPECT_NE(CheckFlags().ToString().find("--universal_max_merge_width"), std::string::npos);
  absl::SetFlag(&FLAGS_universal_max_merge_width, 0);
  absl::SetFlag(&FLAGS_bulkload_memory_budget, 1000);
  EXPECT_NE(CheckFlags().ToString().find("--bulkload_memory_budget"), std::string::npos);
  absl::SetFlag(&FLAGS_bulkload_memory_budget, 64 << 10);
  absl::SetFlag(&FLAGS_bulkload_threads, -1);
  EXPECT_NE(CheckFlags().ToString().find("--bulkload_threads"), std::string::npos);
  absl::SetFlag(&FLAGS_bulkload_threads, 3);
  absl::SetFlag(&FLAGS_bulkload_max_open_files, 2);
  EXPECT_NE(CheckFlags().ToString().find("--bulkload_max_open_files"), std::string::npos);
  absl::SetFlag(&FLAGS_bulkload_max_open_files, 3);
  EXPECT_OK(CheckFlags());
  absl::SetFlag(&FLAGS_bulkload_max_open_files, 0);
}

TEST_F(FlagsTest, FlagsMapOntoOptions) {
  absl::SetFlag(&FLAGS_compression_type, "zstd");
  absl::SetFlag(&FLAGS_bloom_bits, 10);
  absl::SetFlag(&FLAGS_partition_index_and_filters, true);
  absl::SetFlag(&FLAGS_use_data_block_hash_index, true);
  absl::SetFlag(&FLAGS_block_size, 16384);
  absl::SetFlag(&FLAGS_block_restart_interval, 7);
  absl::SetFlag(&FLAGS_index_block_restart_interval, 3);
  absl::SetFlag(&FLAGS_write_buffer_size, int64_t{1} << 20);
  absl::SetFlag(&FLAGS_compaction_style, 3);
  absl::SetFlag(&FLAGS_open_files, 500);
  absl::SetFlag(&FLAGS_use_existing_db, true);
  ASSERT_OK(CheckFlags());
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_EQ(o.compression, kZSTD);
  EXPECT_EQ(o.compression_level, 0);  // db_bench's 32767: the library's default level
  ASSERT_NE(o.table_options.filter_policy, nullptr);
  EXPECT_EQ(o.table_options.filter_policy->bits_per_key(), 10);
  EXPECT_EQ(o.table_options.index_type, TableOptions::kTwoLevelIndexSearch);
  EXPECT_TRUE(o.table_options.partition_filters);
  EXPECT_EQ(o.table_options.data_block_index_type, TableOptions::kDataBlockBinaryAndHash);
  EXPECT_EQ(o.table_options.block_size, 16384u);
  EXPECT_EQ(o.table_options.block_restart_interval, 7);
  EXPECT_EQ(o.table_options.index_block_restart_interval, 3);
  EXPECT_EQ(o.write_buffer_size, 1u << 20);
  EXPECT_EQ(o.compaction_style, kCompactionStyleNone);
  EXPECT_EQ(o.max_open_files, 500);
  EXPECT_FALSE(o.create_if_missing);
  EXPECT_EQ(o.delayed_write_rate, 16777216u);  // ShaleDB's default (db_bench's is 8 MiB/s)
}

TEST_F(FlagsTest, DefaultFlagsGiveOptionsThatValidate) {
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  EXPECT_TRUE(o.create_if_missing);
  EXPECT_EQ(o.table_options.filter_policy, nullptr);  // bloom_bits -1: none
  EXPECT_OK(o.Validate());
}

}  // namespace
}  // namespace shale::bench
