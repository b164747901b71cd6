// OPTIONS files: ShaleDB's own round trip, and RocksDB-written files with options ShaleDB does
// not have.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "options/options_test_util.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"

namespace shale {
namespace {

// A trimmed-down OPTIONS file as RocksDB 7.8 writes it, with a second column family, options
// ShaleDB does not have (also inside nested values), RocksDB's table format_version and a
// compression ShaleDB does not build.
constexpr char kRocksDbOptionsFile[] = R"(# This is a RocksDB option file.
#
# For detailed file format spec, please refer to the example file
# in examples/rocksdb_option_file_example.ini
#

[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1

[DBOptions]
  max_background_flushes=-1
  max_open_files=-1
  max_total_wal_size=0
  create_if_missing=true
  paranoid_checks=true
  delayed_write_rate=16777216
  max_background_jobs=4
  max_subcompactions=1
  wal_recovery_mode=kPointInTimeRecovery
  use_fsync=false
  db_write_buffer_size=0
  max_manifest_file_size=1073741824
  allow_ingest_behind=false
  skip_checking_sst_file_sizes_on_db_open=false
  error_if_exists=false
  wal_dir=
  bytes_per_sync=0
  create_missing_column_families=true


[CFOptions "default"]
  compression_opts={max_dict_buffer_bytes=0;enabled=false;level=32767;window_bits=-14;strategy=0;}
  target_file_size_multiplier=1
  max_write_buffer_number=4
  compression=kSnappyCompression
  bottommost_compression=kDisableCompressionOption
  level0_file_num_compaction_trigger=4
  level0_slowdown_writes_trigger=20
  level0_stop_writes_trigger=36
  write_buffer_size=134217728
  min_write_buffer_number_to_merge=1
  num_levels=7
  target_file_size_base=67108864
  max_bytes_for_level_base=268435456
  max_bytes_for_level_multiplier=10.000000
  level_compaction_dynamic_level_bytes=false
  compaction_style=kCompactionStyleLevel
  disable_auto_compactions=false
  soft_pending_compaction_bytes_limit=68719476736
  hard_pending_compaction_bytes_limit=274877906944
  ttl=2592000
  max_successive_merges=0
  compaction_pri=kMinOverlappingRatio
  compaction_options_universal={allow_trivial_move=false;incremental=false;stop_style=kCompactionStopStyleTotalSize;compression_size_percent=-1;max_size_amplification_percent=200;max_merge_width=4294967295;min_merge_width=2;size_ratio=1;}
  compaction_options_fifo={allow_compaction=false;age_for_warm=0;max_table_files_size=1073741824;}
  comparator=leveldb.BytewiseComparator
  merge_operator=nullptr
  table_factory=BlockBasedTable

[TableOptions/BlockBasedTable "default"]
  num_file_reads_for_auto_readahead=2
  metadata_cache_options={unpartitioned_pinning=kFallback;partition_pinning=kFallback;top_level_index_pinning=kFallback;}
  checksum=kXXH3
  index_type=kTwoLevelIndexSearch
  data_block_index_type=kDataBlockBinarySearch
  block_size=16384
  block_restart_interval=16
  index_block_restart_interval=1
  metadata_block_size=4096
  partition_filters=true
  filter_policy=bloomfilter:10:false
  whole_key_filtering=true
  format_version=5
  enable_index_compression=true
  data_block_hash_table_util_ratio=0.750000
  no_block_cache=false

[CFOptions "users"]
  write_buffer_size=1048576
  compression=kZSTD

[TableOptions/BlockBasedTable "users"]
  block_size=1024
)";

bool HasWarning(const std::vector<std::string>& warnings, const std::string& needle) {
  for (const std::string& w : warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

class OptionsFileTest : public testing::Test {
 protected:
  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
};

TEST_F(OptionsFileTest, DefaultsRoundTrip) {
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS-000005", Options()));
  Options loaded;
  loaded.write_buffer_size = 1;  // must be overwritten
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS-000005", &loaded, &warnings));
  ExpectOptionsEqual(loaded, Options());
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

TEST_F(OptionsFileTest, LayoutIsRocksDbs) {
  Options options;
  options.max_open_files = 500;
  options.write_buffer_size = 8 << 20;
  options.table_options.block_size = 8192;
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", options));
  std::string text;
  ASSERT_OK(ReadFileToString(fs_.get(), "/OPTIONS", &text));
  size_t version = text.find("\n[Version]\n");
  size_t db = text.find("\n[DBOptions]\n");
  size_t cf = text.find("\n[CFOptions \"default\"]\n");
  size_t table = text.find("\n[TableOptions/BlockBasedTable \"default\"]\n");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_TRUE(version < db && db < cf && cf < table) << text;
  EXPECT_NE(text.find("options_file_version=1.1\n"), std::string::npos) << text;
  // Each option in its section.
  size_t max_open = text.find("  max_open_files=500\n");
  size_t wbs = text.find("  write_buffer_size=8388608\n");
  size_t block = text.find("  block_size=8192\n");
  EXPECT_TRUE(db < max_open && max_open < cf) << text;
  EXPECT_TRUE(cf < wbs && wbs < table) << text;
  EXPECT_GT(block, table) << text;
  EXPECT_NE(text.find("  table_factory=BlockBasedTable\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("block_based_table_factory"), std::string::npos) << text;
}

TEST_F(OptionsFileTest, RandomOptionsRoundTrip) {
  Random rnd(7);
  for (int i = 0; i < 300 && !HasFailure(); i++) {
    Options original = RandomOptions(&rnd);
    ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", original));
    Options loaded;
    loaded.comparator = original.comparator;
    ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded));
    ExpectOptionsEqual(loaded, original);
  }
}

TEST_F(OptionsFileTest, EscapedComparatorName) {
  // A comparator whose name needs escaping in the INI syntax.
  class OddName final : public Comparator {
   public:
    int Compare(std::string_view a, std::string_view b) const override { return a.compare(b); }
    const char* Name() const override { return "odd#name\\with\nbreaks"; }
    void FindShortestSeparator(std::string*, std::string_view) const override {}
    void FindShortSuccessor(std::string*) const override {}
  } odd;
  Options options;
  options.comparator = &odd;
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", options));
  Options loaded;
  loaded.comparator = &odd;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded));
  EXPECT_EQ(loaded.comparator, &odd);
  Options bytewise;  // the same file cannot silently load with another comparator
  EXPECT_TRUE(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &bytewise).IsInvalidArgument());
}

// A custom merge operator is recorded by its id; loading keeps the caller's operator of that id,
// and a file naming an operator this process cannot make loads with a note instead of failing.
TEST_F(OptionsFileTest, CustomMergeOperator) {
  Options options;
  options.merge_operator = std::make_shared<test::JoinOperator>();
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", options));
  Options same;
  same.merge_operator = options.merge_operator;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &same, &warnings));
  EXPECT_EQ(same.merge_operator, options.merge_operator);
  EXPECT_FALSE(HasWarning(warnings, "merge_operator")) << testing::PrintToString(warnings);
  Options plain;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &plain, &warnings));
  EXPECT_EQ(plain.merge_operator, nullptr);
  EXPECT_TRUE(HasWarning(warnings, "skipped merge_operator 'test.join'"))
      << testing::PrintToString(warnings);
}

TEST_F(OptionsFileTest, RocksDbFileLoadsWithWarnings) {
  ASSERT_OK(WriteStringToFile(fs_.get(), kRocksDbOptionsFile, "/OPTIONS-000007", false));
  Options loaded;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS-000007", &loaded, &warnings));

  // Known options took the file's values.
  EXPECT_TRUE(loaded.create_if_missing);
  EXPECT_EQ(loaded.max_background_jobs, 4);
  EXPECT_EQ(loaded.max_manifest_file_size, 1u << 30);
  EXPECT_EQ(loaded.write_buffer_size, 128u << 20);  // the default family's, not "users"
  EXPECT_EQ(loaded.max_write_buffer_number, 4);
  EXPECT_EQ(loaded.compression, kSnappyCompression);
  EXPECT_EQ(loaded.bottommost_compression, kDisableCompressionOption);
  EXPECT_FALSE(loaded.level_compaction_dynamic_level_bytes);
  EXPECT_EQ(loaded.ttl, 2592000u);
  EXPECT_EQ(loaded.compaction_options_universal.max_merge_width, UINT_MAX);
  EXPECT_EQ(loaded.table_options.block_size, 16384u);  // the default family's
  EXPECT_EQ(loaded.table_options.index_type, TableOptions::kTwoLevelIndexSearch);
  EXPECT_TRUE(loaded.table_options.partition_filters);
  ASSERT_NE(loaded.table_options.filter_policy, nullptr);
  EXPECT_EQ(loaded.table_options.filter_policy->bits_per_key(), 10);
  EXPECT_EQ(loaded.table_options.format_version, 1u);  // RocksDB's 5 is skipped

  // Everything skipped is reported, with the file and line.
  for (const char* skipped :
       {"max_background_flushes", "wal_dir", "bytes_per_sync", "compaction_pri",
        "compaction_options_universal.allow_trivial_move",
        "compaction_options_universal.stop_style", "compaction_options_fifo.age_for_warm",
        "num_file_reads_for_auto_readahead", "metadata_cache_options",
        "checksum", "format_version=5", "[CFOptions \"users\"]",
        "[TableOptions/BlockBasedTable \"users\"]"}) {
    EXPECT_TRUE(HasWarning(warnings, skipped)) << skipped;
  }
  EXPECT_TRUE(HasWarning(warnings, "/OPTIONS-000007:12: skipped unknown option "
                                   "'max_background_flushes' (value '-1')"));
  // Known DB options since issue 23 (column families).
  EXPECT_FALSE(HasWarning(warnings, "max_total_wal_size"));
  EXPECT_FALSE(HasWarning(warnings, "create_missing_column_families"));
  EXPECT_TRUE(loaded.create_missing_column_families);
  EXPECT_EQ(loaded.max_total_wal_size, 0u);
  EXPECT_FALSE(HasWarning(warnings, "write_buffer_size"));
  EXPECT_FALSE(HasWarning(warnings, "block_size"));
  EXPECT_FALSE(HasWarning(warnings, "no_block_cache"));  // a known table option now
  EXPECT_FALSE(HasWarning(warnings, "merge_operator"));  // known now (nullptr)
  EXPECT_EQ(loaded.merge_operator, nullptr);
  // compression_opts is read since issue 19: its level=32767 (zstd's default) is level 0 here.
  EXPECT_FALSE(HasWarning(warnings, "compression_opts"));
  EXPECT_EQ(loaded.compression_level, 0);
  EXPECT_EQ(warnings.size(), 15u) << testing::PrintToString(warnings);

  // Loaded is valid: RocksDB's Snappy default is built here since issue 24.
  EXPECT_OK(loaded.Validate());
  // Warnings may be ignored.
  Options quiet;
  EXPECT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS-000007", &quiet));
}

TEST_F(OptionsFileTest, OwnFileKeepsFormatVersion) {
  Options options;
  options.table_options.format_version = 3;  // invalid, but a ShaleDB file means ShaleDB's 3
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", options));
  Options loaded;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded));
  EXPECT_EQ(loaded.table_options.format_version, 3u);
}

TEST_F(OptionsFileTest, OptionsOmittedFromTheFileKeepTheirValue) {
  ASSERT_OK(WriteStringToFile(fs_.get(),
                              "[Version]\n  shale_version=0.1.0\n  options_file_version=1.1\n"
                              "[CFOptions \"default\"]\n  write_buffer_size=1M  # a comment\n",
                              "/OPTIONS", false));
  Options loaded;
  loaded.max_open_files = 99;
  loaded.comparator = TestReverseComparator();
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded));
  EXPECT_EQ(loaded.write_buffer_size, 1u << 20);
  EXPECT_EQ(loaded.max_open_files, 99);
  EXPECT_EQ(loaded.comparator, TestReverseComparator());
}

TEST_F(OptionsFileTest, Errors) {
  struct Case {
    std::string text;
    std::string error;  // expected in the message
  };
  const std::vector<Case> cases = {
      {"[Version]\n[DBOptions]\n  max_open_files=lots\n",
       "/OPTIONS:3: max_open_files: invalid value 'lots'"},
      {"[Version]\n[TableOptions/BlockBasedTable \"default\"]\n  index_type=kHashSearch\n",
       "/OPTIONS:3: index_type: invalid value 'kHashSearch'"},
      {"[Version]\n[CFOptions \"default\"]\n  table_factory=PlainTable\n",
       "/OPTIONS:3: table_factory: invalid value 'PlainTable'"},
      {"[Version]\n  rocksdb_version=7.8.3\n[CFOptions \"default\"]\n  no equals sign\n",
       "/OPTIONS:4: expected name=value"},
      {"  write_buffer_size=1M\n[Version]\n", "/OPTIONS:1: expected name=value inside a section"},
      {"[Version\n", "/OPTIONS:1: malformed section header"},
      {"[DBOptions]\n  max_open_files=100\n", "/OPTIONS: no [Version] section"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ASSERT_OK(WriteStringToFile(fs_.get(), c.text, "/OPTIONS", false));
    Options loaded;
    loaded.max_open_files = 42;
    Status s = LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.error), std::string::npos) << s.ToString();
    EXPECT_EQ(loaded.max_open_files, 42);  // untouched
  }
  Options loaded;
  EXPECT_TRUE(LoadOptionsFromFile(fs_.get(), "/missing", &loaded).IsPathNotFound());
}

TEST_F(OptionsFileTest, WarnsAboutUnknownVersionFieldsAndNewerFormats) {
  ASSERT_OK(WriteStringToFile(fs_.get(),
                              "[Version]\n  options_file_version=2.0\n  writer=someone\n"
                              "[Unknown Section]\n  a=b\n",
                              "/OPTIONS", false));
  Options loaded;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &loaded, &warnings));
  EXPECT_TRUE(HasWarning(warnings, "options_file_version 2.0")) << testing::PrintToString(warnings);
  EXPECT_TRUE(HasWarning(warnings, "'writer'")) << testing::PrintToString(warnings);
  EXPECT_TRUE(HasWarning(warnings, "[Unknown Section]")) << testing::PrintToString(warnings);
  EXPECT_EQ(warnings.size(), 3u) << testing::PrintToString(warnings);
}

TEST(OptionsPosixFileTest, RoundTripOnDisk) {
  std::shared_ptr<FileSystem> fs = FileSystem::Default();
  std::string dir = testing::TempDir() + "shale_options_test";
  ASSERT_OK(fs->CreateDirIfMissing(dir));
  std::string path = dir + "/OPTIONS-000001";
  Options options;
  options.OptimizeForPointLookup(0);
  options.compression = kZSTD;
  ASSERT_OK(WriteOptionsFile(fs.get(), path, options));
  Options loaded;
  ASSERT_OK(LoadOptionsFromFile(fs.get(), path, &loaded));
  ExpectOptionsEqual(loaded, options);
  ASSERT_OK(fs->DeleteFile(path));
  ASSERT_OK(fs->DeleteDir(dir));
}

}  // namespace
}  // namespace shale
