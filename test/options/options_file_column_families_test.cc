// OPTIONS files with several column families (issue 23): a section pair per family in RocksDB's
// layout, the multi-family WriteOptionsFile / LoadOptionsFromFile round trip, a RocksDB-written
// multi-family file, and the load semantics (file order, the caller's descriptors as starting
// points, untouched outputs on error).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "options/options_test_util.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"

namespace shale {
namespace {

// An OPTIONS file with three column families as RocksDB (8.x) writes it, written by hand from
// its documented layout (examples/rocksdb_option_file_example.ini): [Version], [DBOptions],
// then [CFOptions "<name>"] and [TableOptions/BlockBasedTable "<name>"] per family, the
// default family first. Trimmed to a few options, with some ShaleDB does not have.
constexpr char kRocksDbThreeFamilies[] = R"(# This is a RocksDB option file.
#
# For detailed file format spec, please refer to the example file
# in examples/rocksdb_option_file_example.ini
#

[Version]
  rocksdb_version=8.10.0
  options_file_version=1.1

[DBOptions]
  max_total_wal_size=1073741824
  atomic_flush=true
  create_missing_column_families=true
  create_if_missing=true
  max_background_jobs=6
  max_open_files=-1
  bytes_per_sync=1048576
  wal_dir=


[CFOptions "default"]
  write_buffer_size=67108864
  compression=kNoCompression
  num_levels=7
  merge_operator=nullptr
  comparator=leveldb.BytewiseComparator
  compaction_pri=kMinOverlappingRatio
  table_factory=BlockBasedTable

[TableOptions/BlockBasedTable "default"]
  block_size=4096
  checksum=kXXH3
  format_version=5

[CFOptions "blocks"]
  write_buffer_size=268435456
  compression=kZSTD
  compression_opts={level=3;enabled=false;window_bits=-14;strategy=0;max_dict_bytes=0;zstd_max_train_bytes=0;}
  level0_file_num_compaction_trigger=2
  merge_operator=nullptr
  comparator=leveldb.BytewiseComparator
  table_factory=BlockBasedTable

[TableOptions/BlockBasedTable "blocks"]
  block_size=65536
  filter_policy=bloomfilter:10:false
  format_version=5

[CFOptions "state"]
  write_buffer_size=16777216
  compaction_style=kCompactionStyleUniversal
  compaction_options_universal={allow_trivial_move=false;size_ratio=5;min_merge_width=2;max_merge_width=4294967295;max_size_amplification_percent=200;}
  merge_operator=StringAppendTESTOperator
  comparator=leveldb.BytewiseComparator
  table_factory=BlockBasedTable

[TableOptions/BlockBasedTable "state"]
  block_size=8192
  index_type=kTwoLevelIndexSearch
  partition_filters=true
  format_version=5
)";

bool HasWarning(const std::vector<std::string>& warnings, const std::string& needle) {
  for (const std::string& w : warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> Names(const std::vector<ColumnFamilyDescriptor>& families) {
  std::vector<std::string> names;
  for (const ColumnFamilyDescriptor& family : families) names.push_back(family.name);
  return names;
}

class OptionsFileColumnFamiliesTest : public testing::Test {
 protected:
  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
};

// Three families with random options (one whose name needs escaping) are written and read back
// equal, in order.
TEST_F(OptionsFileColumnFamiliesTest, ThreeFamiliesRoundTrip) {
  Random rnd(2323);
  for (int i = 0; i < 100 && !HasFailure(); i++) {
    const Options db = RandomOptions(&rnd);
    const std::vector<ColumnFamilyDescriptor> written = {
        {kDefaultColumnFamilyName, RandomOptions(&rnd)},
        {"users", RandomOptions(&rnd)},
        {"odd #name \"quoted\" \\ [x]", RandomOptions(&rnd)},
    };
    ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", db, written));
    // The caller supplies the comparators (runtime objects): descriptors of the same names.
    std::vector<ColumnFamilyDescriptor> loaded;
    for (const ColumnFamilyDescriptor& family : written) {
      ColumnFamilyOptions base;
      base.comparator = family.options.comparator;
      loaded.emplace_back(family.name, base);
    }
    std::reverse(loaded.begin(), loaded.end());  // the file's order wins
    DBOptions db_loaded;
    std::vector<std::string> warnings;
    ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &db_loaded, &loaded, &warnings));
    EXPECT_TRUE(warnings.empty()) << testing::PrintToString(warnings);
    ASSERT_EQ(Names(loaded), Names(written));
    ExpectOptionsEqual(Options(db_loaded, ColumnFamilyOptions()),
                       Options(db, ColumnFamilyOptions()));
    for (size_t f = 0; f < written.size(); f++) {
      SCOPED_TRACE(written[f].name);
      ExpectOptionsEqual(Options(DBOptions(), loaded[f].options),
                         Options(DBOptions(), written[f].options));
    }
  }
}

TEST_F(OptionsFileColumnFamiliesTest, LayoutIsRocksDbs) {
  DBOptions db;
  db.max_total_wal_size = 12345;
  ColumnFamilyOptions users;
  users.write_buffer_size = 3 << 20;
  users.table_options.block_size = 2048;
  ColumnFamilyOptions logs;
  logs.ttl = 99;
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", db,
                             {{kDefaultColumnFamilyName, ColumnFamilyOptions()},
                              {"users", users},
                              {"logs", logs}}));
  std::string text;
  ASSERT_OK(ReadFileToString(fs_.get(), "/OPTIONS", &text));
  const std::vector<std::string> headers = {
      "\n[Version]\n",
      "\n[DBOptions]\n",
      "\n[CFOptions \"default\"]\n",
      "\n[TableOptions/BlockBasedTable \"default\"]\n",
      "\n[CFOptions \"users\"]\n",
      "\n[TableOptions/BlockBasedTable \"users\"]\n",
      "\n[CFOptions \"logs\"]\n",
      "\n[TableOptions/BlockBasedTable \"logs\"]\n",
  };
  std::vector<size_t> at;
  for (const std::string& header : headers) {
    at.push_back(text.find(header));
    ASSERT_NE(at.back(), std::string::npos) << header << " in\n" << text;
  }
  for (size_t i = 1; i < at.size(); i++) EXPECT_LT(at[i - 1], at[i]) << headers[i] << text;
  // Each option in its family's section, DB options in [DBOptions] only.
  const size_t wal = text.find("  max_total_wal_size=12345\n");
  EXPECT_TRUE(at[1] < wal && wal < at[2]) << text;
  const size_t wbs = text.find("  write_buffer_size=3145728\n");
  EXPECT_TRUE(at[4] < wbs && wbs < at[5]) << text;
  const size_t block = text.find("  block_size=2048\n");
  EXPECT_TRUE(at[5] < block && block < at[6]) << text;
  const size_t ttl = text.find("  ttl=99\n");
  EXPECT_TRUE(at[6] < ttl && ttl < at[7]) << text;
  EXPECT_EQ(text.find("max_open_files", at[2]), std::string::npos) << text;
  EXPECT_EQ(text.find("\n  write_buffer_size=", at[1]),
            text.find("\n  write_buffer_size=", at[2]))
      << text;
}

TEST_F(OptionsFileColumnFamiliesTest, WriterRefusesBadFamilyLists) {
  struct Case {
    std::vector<ColumnFamilyDescriptor> families;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{}, "the default column family must come first"},
      {{{"users", ColumnFamilyOptions()}, {kDefaultColumnFamilyName, ColumnFamilyOptions()}},
       "the default column family must come first"},
      {{{kDefaultColumnFamilyName, ColumnFamilyOptions()},
        {"users", ColumnFamilyOptions()},
        {"users", ColumnFamilyOptions()}},
       "column family 'users' is named twice"},
      {{{kDefaultColumnFamilyName, ColumnFamilyOptions()},
        {kDefaultColumnFamilyName, ColumnFamilyOptions()}},
       "column family 'default' is named twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    Status s = WriteOptionsFile(fs_.get(), "/OPTIONS", DBOptions(), c.families);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.error), std::string::npos) << s.ToString();
    EXPECT_TRUE(fs_->FileExists("/OPTIONS").IsNotFound());
  }
}

// A RocksDB-written file with three families loads: each family's values, in file order, the
// caller's runtime objects carried over, RocksDB-only options skipped with a note.
TEST_F(OptionsFileColumnFamiliesTest, RocksDbThreeFamilyFileLoads) {
  ASSERT_OK(WriteStringToFile(fs_.get(), kRocksDbThreeFamilies, "/OPTIONS-000009", false));
  DBOptions db;
  db.max_manifest_file_size = 777;  // not in the file: kept
  // The caller's descriptors: "state" with a merge operator of its own and a shared block cache,
  // "gone" which the file does not have (dropped from the result).
  ColumnFamilyOptions state;
  state.merge_operator = std::make_shared<test::JoinOperator>();
  state.table_options.block_cache = NewLRUCache(8 << 20);
  state.max_successive_merges = 5;  // not in the file: kept
  std::vector<ColumnFamilyDescriptor> families = {{"gone", ColumnFamilyOptions()},
                                                  {"state", state}};
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS-000009", &db, &families, &warnings));

  EXPECT_EQ(db.max_total_wal_size, 1u << 30);
  EXPECT_TRUE(db.atomic_flush);
  EXPECT_TRUE(db.create_missing_column_families);
  EXPECT_TRUE(db.create_if_missing);
  EXPECT_EQ(db.max_background_jobs, 6);
  EXPECT_EQ(db.max_manifest_file_size, 777u);

  ASSERT_EQ(Names(families), (std::vector<std::string>{"default", "blocks", "state"}));
  const ColumnFamilyOptions& def = families[0].options;
  EXPECT_EQ(def.write_buffer_size, 64u << 20);
  EXPECT_EQ(def.table_options.block_size, 4096u);
  EXPECT_EQ(def.table_options.format_version, TableOptions().format_version);  // RocksDB's 5

  const ColumnFamilyOptions& blocks = families[1].options;
  EXPECT_EQ(blocks.write_buffer_size, 256u << 20);
  EXPECT_EQ(blocks.compression, kZSTD);
  EXPECT_EQ(blocks.compression_level, 3);
  EXPECT_EQ(blocks.level0_file_num_compaction_trigger, 2);
  EXPECT_EQ(blocks.table_options.block_size, 65536u);
  ASSERT_NE(blocks.table_options.filter_policy, nullptr);
  EXPECT_EQ(blocks.table_options.filter_policy->bits_per_key(), 10);
  EXPECT_EQ(blocks.table_options.block_cache, nullptr);  // from ColumnFamilyOptions()

  const ColumnFamilyOptions& st = families[2].options;
  EXPECT_EQ(st.write_buffer_size, 16u << 20);
  EXPECT_EQ(st.compaction_style, kCompactionStyleUniversal);
  EXPECT_EQ(st.compaction_options_universal.size_ratio, 5u);
  EXPECT_EQ(st.table_options.block_size, 8192u);
  EXPECT_EQ(st.table_options.index_type, TableOptions::kTwoLevelIndexSearch);
  EXPECT_TRUE(st.table_options.partition_filters);
  EXPECT_EQ(st.merge_operator, state.merge_operator);  // RocksDB's operator name: kept ours
  EXPECT_EQ(st.table_options.block_cache, state.table_options.block_cache);
  EXPECT_EQ(st.max_successive_merges, 5u);
  EXPECT_EQ(def.table_options.filter_policy, nullptr);  // families do not bleed into each other
  EXPECT_EQ(def.write_buffer_size, ColumnFamilyOptions().write_buffer_size);

  for (const char* skipped :
       {"bytes_per_sync", "wal_dir", "compaction_pri", "checksum",
        "compaction_options_universal.allow_trivial_move",
        "skipped merge_operator 'StringAppendTESTOperator'"}) {
    EXPECT_TRUE(HasWarning(warnings, skipped)) << skipped << testing::PrintToString(warnings);
  }
  EXPECT_FALSE(HasWarning(warnings, "[CFOptions")) << testing::PrintToString(warnings);
  EXPECT_FALSE(HasWarning(warnings, "atomic_flush")) << testing::PrintToString(warnings);
}

// The Options overload reads the default family's sections only, noting the others.
TEST_F(OptionsFileColumnFamiliesTest, OptionsOverloadReadsTheDefaultFamily) {
  ASSERT_OK(WriteStringToFile(fs_.get(), kRocksDbThreeFamilies, "/OPTIONS-000009", false));
  Options options;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS-000009", &options, &warnings));
  EXPECT_TRUE(options.atomic_flush);
  EXPECT_EQ(options.compression, kNoCompression);  // not "blocks"' kZSTD
  EXPECT_EQ(options.compaction_style, kCompactionStyleLevel);  // not "state"'s
  EXPECT_EQ(options.table_options.block_size, 4096u);
  for (const char* section :
       {"[CFOptions \"blocks\"]", "[TableOptions/BlockBasedTable \"blocks\"]",
        "[CFOptions \"state\"]", "[TableOptions/BlockBasedTable \"state\"]"}) {
    EXPECT_TRUE(HasWarning(warnings, section)) << section << testing::PrintToString(warnings);
  }
  // And a file written from Options has the default family alone.
  ASSERT_OK(WriteOptionsFile(fs_.get(), "/OPTIONS", options));
  DBOptions db;
  std::vector<ColumnFamilyDescriptor> families;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &db, &families));
  ASSERT_EQ(Names(families), std::vector<std::string>{kDefaultColumnFamilyName});
  ExpectOptionsEqual(Options(db, families[0].options), options);
}

// A bad value in any family fails the load with the file, line and option; nothing changes.
TEST_F(OptionsFileColumnFamiliesTest, BadValueLeavesOutputsUntouched) {
  std::string text = kRocksDbThreeFamilies;
  const std::string good = "  block_size=8192\n";
  const size_t at = text.find(good);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, good.size(), "  block_size=big\n");
  ASSERT_OK(WriteStringToFile(fs_.get(), text, "/OPTIONS", false));
  int line = 1;
  for (size_t i = 0; i < at; i++) line += text[i] == '\n';

  DBOptions db;
  db.max_open_files = 55;
  std::vector<ColumnFamilyDescriptor> families = {{"state", ColumnFamilyOptions()}};
  families[0].options.write_buffer_size = 1 << 20;
  std::vector<std::string> warnings;
  Status s = LoadOptionsFromFile(fs_.get(), "/OPTIONS", &db, &families, &warnings);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("/OPTIONS:" + std::to_string(line) +
                              ": block_size: invalid value 'big'"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(db.max_open_files, 55);
  EXPECT_FALSE(db.atomic_flush);
  ASSERT_EQ(Names(families), std::vector<std::string>{"state"});
  EXPECT_EQ(families[0].options.write_buffer_size, 1u << 20);
  EXPECT_TRUE(warnings.empty());
}

// Each option belongs in its scope's section: one in the other's is skipped with a note.
TEST_F(OptionsFileColumnFamiliesTest, OptionInTheOtherScopesSectionIsSkipped) {
  ASSERT_OK(WriteStringToFile(fs_.get(),
                              "[Version]\n  options_file_version=1.1\n"
                              "[DBOptions]\n  write_buffer_size=1M\n  max_open_files=100\n"
                              "[CFOptions \"default\"]\n  atomic_flush=true\n  ttl=5\n",
                              "/OPTIONS", false));
  DBOptions db;
  std::vector<ColumnFamilyDescriptor> families;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs_.get(), "/OPTIONS", &db, &families, &warnings));
  EXPECT_EQ(db.max_open_files, 100);
  EXPECT_FALSE(db.atomic_flush);
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].options.ttl, 5u);
  EXPECT_EQ(families[0].options.write_buffer_size, ColumnFamilyOptions().write_buffer_size);
  EXPECT_TRUE(HasWarning(warnings, "/OPTIONS:4: skipped write_buffer_size=1M in [DBOptions]: it "
                                   "is a column family option"))
      << testing::PrintToString(warnings);
  EXPECT_TRUE(HasWarning(warnings, "/OPTIONS:7: skipped atomic_flush=true in [CFOptions]: it is "
                                   "a DB option"))
      << testing::PrintToString(warnings);
  EXPECT_EQ(warnings.size(), 2u) << testing::PrintToString(warnings);
}

}  // namespace
}  // namespace shale
