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
  s = ParseBenchmarkList("bulkload", &names);
  EXPECT_NE(s.ToString().find("'bulkload' is not supported yet"), std::string::npos);
}

TEST(BenchmarkListTest, EveryBenchmarkOfTheIssueExists) {
  for (const char* name :
       {"fillseq", "fillrandom", "fillsync", "fillbatch", "overwrite", "updaterandom",
        "readrandom", "multireadrandom", "readseq", "readreverse", "seekrandom",
        "readwhilewriting", "readrandomwriterandom", "deleteseq", "deleterandom", "flush",
        "compact", "waitforcompaction", "stats", "levelstats", "sstables"}) {
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

TEST_F(FlagsTest, NotYetBuiltFeaturesAreRejectedByName) {
  absl::SetFlag(&FLAGS_merge_operator, "uint64add");
  Status s = CheckFlags();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--merge_operator: not supported yet"), std::string::npos)
      << s.ToString();
  absl::SetFlag(&FLAGS_merge_operator, "");
  absl::SetFlag(&FLAGS_cache_index_and_filter_blocks, true);
  s = CheckFlags();
  EXPECT_NE(s.ToString().find("--cache_index_and_filter_blocks: not supported yet"),
            std::string::npos)
      << s.ToString();
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
}

TEST_F(FlagsTest, FlagsMapOntoOptions) {
  absl::SetFlag(&FLAGS_compression_type, "zstd");
  absl::SetFlag(&FLAGS_bloom_bits, 10);
  absl::SetFlag(&FLAGS_partition_index_and_filters, true);
  absl::SetFlag(&FLAGS_use_data_block_hash_index, true);
  absl::SetFlag(&FLAGS_block_size, 16384);
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
