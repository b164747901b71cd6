// GetOptionsFromString / GetStringFromOptions: every field parses, values in all their
// spellings, nested lists, errors that name the option, and the print/parse round trip.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "options/option_list.h"
#include "options/options_test_util.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

Options Parse(const std::string& text, const Options& base = Options()) {
  Options out;
  Status s = GetOptionsFromString(base, text, &out);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  return out;
}

// The error of parsing `text`, which must fail with InvalidArgument.
std::string ParseError(const std::string& text) {
  Options out;
  Status s = GetOptionsFromString(Options(), text, &out);
  EXPECT_TRUE(s.IsInvalidArgument()) << text << ": " << s.ToString();
  return s.ToString();
}

// Top-level name -> printed value.
std::map<std::string, std::string> PrintedFields(const Options& options) {
  std::string printed = GetStringFromOptions(options);
  std::vector<OptionPair> pairs;
  EXPECT_OK(SplitOptionList(printed, OptionParseContext(), &pairs));
  std::map<std::string, std::string> fields;
  for (const OptionPair& pair : pairs) fields[std::string(pair.name)] = std::string(pair.value);
  return fields;
}

// One non-default value per option, and a check that it arrived in the right field.
struct FieldCase {
  std::string name;
  std::string value;
  std::function<bool(const Options&)> arrived;
};

std::vector<FieldCase> FieldCases() {
  return {
      {"create_if_missing", "true", [](const Options& o) { return o.create_if_missing; }},
      {"error_if_exists", "1", [](const Options& o) { return o.error_if_exists; }},
      {"paranoid_checks", "false", [](const Options& o) { return !o.paranoid_checks; }},
      {"create_missing_column_families", "true",
       [](const Options& o) { return o.create_missing_column_families; }},
      {"max_total_wal_size", "2G",
       [](const Options& o) { return o.max_total_wal_size == (2ull << 30); }},
      {"atomic_flush", "true", [](const Options& o) { return o.atomic_flush; }},
      {"avoid_flush_during_shutdown", "true",
       [](const Options& o) { return o.avoid_flush_during_shutdown; }},
      {"max_open_files", "5000", [](const Options& o) { return o.max_open_files == 5000; }},
      {"max_background_jobs", "8", [](const Options& o) { return o.max_background_jobs == 8; }},
      {"stats_dump_period_sec", "30",
       [](const Options& o) { return o.stats_dump_period_sec == 30; }},
      {"max_subcompactions", "4", [](const Options& o) { return o.max_subcompactions == 4; }},
      {"db_write_buffer_size", "1G",
       [](const Options& o) { return o.db_write_buffer_size == (1ull << 30); }},
      {"delayed_write_rate", "8M",
       [](const Options& o) { return o.delayed_write_rate == (8ull << 20); }},
      {"wal_recovery_mode", "kAbsoluteConsistency",
       [](const Options& o) { return o.wal_recovery_mode == WALRecoveryMode::kAbsoluteConsistency; }},
      {"use_fsync", "TRUE", [](const Options& o) { return o.use_fsync; }},
      {"max_manifest_file_size", "1G",
       [](const Options& o) { return o.max_manifest_file_size == (1ull << 30); }},
      {"allow_ingest_behind", "true", [](const Options& o) { return o.allow_ingest_behind; }},
      {"skip_checking_sst_file_sizes_on_db_open", "true",
       [](const Options& o) { return o.skip_checking_sst_file_sizes_on_db_open; }},
      {"comparator", "test.ReverseComparator",
       [](const Options& o) { return o.comparator == TestReverseComparator(); }},
      {"write_buffer_size", "128M",
       [](const Options& o) { return o.write_buffer_size == (128ull << 20); }},
      {"max_write_buffer_number", "5",
       [](const Options& o) { return o.max_write_buffer_number == 5; }},
      {"min_write_buffer_number_to_merge", "2",
       [](const Options& o) { return o.min_write_buffer_number_to_merge == 2; }},
      {"max_successive_merges", "3", [](const Options& o) { return o.max_successive_merges == 3; }},
      {"merge_operator", "stringappend:|",
       [](const Options& o) {
         return o.merge_operator != nullptr && o.merge_operator->GetId() == "stringappend:|";
       }},
      {"compression", "kZSTD", [](const Options& o) { return o.compression == kZSTD; }},
      {"bottommost_compression", "kNoCompression",
       [](const Options& o) { return o.bottommost_compression == kNoCompression; }},
      {"compression_level", "-5", [](const Options& o) { return o.compression_level == -5; }},
      {"num_levels", "4", [](const Options& o) { return o.num_levels == 4; }},
      {"level0_file_num_compaction_trigger", "2",
       [](const Options& o) { return o.level0_file_num_compaction_trigger == 2; }},
      {"level0_slowdown_writes_trigger", "12",
       [](const Options& o) { return o.level0_slowdown_writes_trigger == 12; }},
      {"level0_stop_writes_trigger", "40",
       [](const Options& o) { return o.level0_stop_writes_trigger == 40; }},
      {"target_file_size_base", "32M",
       [](const Options& o) { return o.target_file_size_base == (32ull << 20); }},
      {"target_file_size_multiplier", "2",
       [](const Options& o) { return o.target_file_size_multiplier == 2; }},
      {"max_bytes_for_level_base", "512m",
       [](const Options& o) { return o.max_bytes_for_level_base == (512ull << 20); }},
      {"max_bytes_for_level_multiplier", "8.5",
       [](const Options& o) { return o.max_bytes_for_level_multiplier == 8.5; }},
      {"level_compaction_dynamic_level_bytes", "false",
       [](const Options& o) { return !o.level_compaction_dynamic_level_bytes; }},
      {"compaction_style", "kCompactionStyleNone",
       [](const Options& o) { return o.compaction_style == kCompactionStyleNone; }},
      {"disable_auto_compactions", "true",
       [](const Options& o) { return o.disable_auto_compactions; }},
      {"compaction_options_universal",
       "{size_ratio=2;min_merge_width=3;max_merge_width=9;max_size_amplification_percent=150}",
       [](const Options& o) {
         const CompactionOptionsUniversal& u = o.compaction_options_universal;
         return u.size_ratio == 2 && u.min_merge_width == 3 && u.max_merge_width == 9 &&
                u.max_size_amplification_percent == 150;
       }},
      {"compaction_options_fifo", "{max_table_files_size=2G;allow_compaction=true}",
       [](const Options& o) {
         return o.compaction_options_fifo.max_table_files_size == (2ull << 30) &&
                o.compaction_options_fifo.allow_compaction;
       }},
      {"ttl", "86400", [](const Options& o) { return o.ttl == 86400; }},
      {"soft_pending_compaction_bytes_limit", "1T",
       [](const Options& o) { return o.soft_pending_compaction_bytes_limit == (1ull << 40); }},
      {"hard_pending_compaction_bytes_limit", "2T",
       [](const Options& o) { return o.hard_pending_compaction_bytes_limit == (2ull << 40); }},
      {"table_factory", "BlockBasedTable", [](const Options&) { return true; }},
      {"block_based_table_factory",
       "{block_size=16K;block_restart_interval=8;index_block_restart_interval=2;"
       "index_type=kTwoLevelIndexSearch;data_block_index_type=kDataBlockBinaryAndHash;"
       "data_block_hash_table_util_ratio=0.5;filter_policy=bloomfilter:12.5:false;"
       "partition_filters=true;metadata_block_size=8K;enable_index_compression=false;"
       "whole_key_filtering=false;format_version=2;block_cache=64M;no_block_cache=false;"
       "cache_index_and_filter_blocks=true;pin_top_level_index_and_filter=false;"
       "pin_l0_filter_and_index_blocks_in_cache=true}",
       [](const Options& o) {
         const TableOptions& t = o.table_options;
         return t.block_size == 16384 && t.block_restart_interval == 8 &&
                t.index_block_restart_interval == 2 &&
                t.index_type == TableOptions::kTwoLevelIndexSearch &&
                t.data_block_index_type == TableOptions::kDataBlockBinaryAndHash &&
                t.data_block_hash_table_util_ratio == 0.5 && t.filter_policy != nullptr &&
                t.filter_policy->bits_per_key() == 12.5 && t.partition_filters &&
                t.metadata_block_size == 8192 && !t.enable_index_compression &&
                !t.whole_key_filtering && t.format_version == 2 && t.block_cache != nullptr &&
                t.block_cache->GetCapacity() == (64u << 20) && !t.no_block_cache &&
                t.cache_index_and_filter_blocks && !t.pin_top_level_index_and_filter &&
                t.pin_l0_filter_and_index_blocks_in_cache;
       }},
  };
}

TEST(OptionsStringTest, EveryFieldParses) {
  const Options defaults;
  for (const FieldCase& c : FieldCases()) {
    SCOPED_TRACE(c.name);
    if (c.name != "table_factory") {
      EXPECT_FALSE(c.arrived(defaults)) << "the case's value must differ from the default";
    }
    Options base;  // comparator=<name> accepts the base's comparator
    if (c.name == "comparator") base.comparator = TestReverseComparator();
    Options parsed = Parse(c.name + "=" + c.value, base);
    EXPECT_TRUE(c.arrived(parsed)) << c.name << "=" << c.value;
    // And nothing else changed.
    std::map<std::string, std::string> before = PrintedFields(base);
    std::map<std::string, std::string> after = PrintedFields(parsed);
    before.erase(c.name);
    after.erase(c.name);
    EXPECT_EQ(before, after);
  }
}

TEST(OptionsStringTest, EveryPrintedFieldHasACase) {
  std::set<std::string> cased;
  for (const FieldCase& c : FieldCases()) cased.insert(c.name);
  std::set<std::string> names;
  for (const auto& [name, value] : PrintedFields(Options())) names.insert(name);
  EXPECT_EQ(names, cased);
}

TEST(OptionsStringTest, EmptyStringKeepsTheBase) {
  Options base;
  base.write_buffer_size = 12345;
  base.table_options.block_size = 777;
  ExpectOptionsEqual(Parse("", base), base);
  ExpectOptionsEqual(Parse(" ; ;; ", base), base);
}

TEST(OptionsStringTest, Sizes) {
  EXPECT_EQ(Parse("write_buffer_size=64K").write_buffer_size, 64u << 10);
  EXPECT_EQ(Parse("write_buffer_size=64k").write_buffer_size, 64u << 10);
  EXPECT_EQ(Parse("write_buffer_size=3m").write_buffer_size, 3u << 20);
  EXPECT_EQ(Parse("write_buffer_size=2G").write_buffer_size, 2ull << 30);
  EXPECT_EQ(Parse("max_bytes_for_level_base=5t").max_bytes_for_level_base, 5ull << 40);
  EXPECT_EQ(Parse("write_buffer_size=1000").write_buffer_size, 1000u);
  EXPECT_EQ(Parse("max_open_files=1K").max_open_files, 1024);
  EXPECT_EQ(Parse("compression_level=-1K").compression_level, -1024);
  EXPECT_EQ(Parse("max_open_files=-1").max_open_files, -1);
  EXPECT_EQ(Parse("max_manifest_file_size=18446744073709551615").max_manifest_file_size,
            UINT64_MAX);
  EXPECT_EQ(Parse("max_open_files=-2147483648").max_open_files, INT32_MIN);
  EXPECT_EQ(Parse("compaction_options_universal={max_merge_width=4294967295}")
                .compaction_options_universal.max_merge_width,
            UINT_MAX);
  // Out of range for the field's type, or malformed.
  for (const char* bad :
       {"max_manifest_file_size=18446744073709551616", "max_manifest_file_size=16777216T",
        "write_buffer_size=-1", "max_open_files=2G", "max_open_files=2147483648",
        "max_open_files=-2147483649", "compaction_options_universal={size_ratio=4G}",
        "write_buffer_size=64KB", "write_buffer_size=M", "write_buffer_size=", "write_buffer_size=1.5M",
        "write_buffer_size=0x10", "write_buffer_size=1 M", "max_subcompactions=-1"}) {
    SCOPED_TRACE(bad);
    ParseError(bad);
  }
}

TEST(OptionsStringTest, BooleansDoublesAndEnums) {
  for (const char* yes : {"true", "TRUE", "True", "1"}) {
    EXPECT_TRUE(Parse(std::string("use_fsync=") + yes).use_fsync) << yes;
  }
  for (const char* no : {"false", "FALSE", "0"}) {
    EXPECT_FALSE(Parse(std::string("paranoid_checks=") + no).paranoid_checks) << no;
  }
  for (const char* bad : {"use_fsync=yes", "use_fsync=2", "use_fsync=", "use_fsync=t"}) {
    ParseError(bad);
  }
  EXPECT_EQ(Parse("max_bytes_for_level_multiplier=10.000000").max_bytes_for_level_multiplier, 10);
  EXPECT_EQ(Parse("max_bytes_for_level_multiplier=1e1").max_bytes_for_level_multiplier, 10);
  EXPECT_EQ(Parse("max_bytes_for_level_multiplier=0.1").max_bytes_for_level_multiplier, 0.1);
  for (const char* bad : {"max_bytes_for_level_multiplier=ten", "max_bytes_for_level_multiplier=inf",
                          "max_bytes_for_level_multiplier=nan", "max_bytes_for_level_multiplier=1.5x"}) {
    ParseError(bad);
  }
  EXPECT_EQ(Parse("compaction_style=kCompactionStyleUniversal").compaction_style,
            kCompactionStyleUniversal);
  EXPECT_EQ(Parse("compaction_style=kCompactionStyleFIFO").compaction_style, kCompactionStyleFIFO);
  EXPECT_EQ(Parse("compression=kSnappyCompression").compression, kSnappyCompression);
  EXPECT_EQ(Parse("compression=kZSTDNotFinalCompression").compression, kZSTD);
  EXPECT_EQ(Parse("bottommost_compression=kDisableCompressionOption").bottommost_compression,
            kDisableCompressionOption);
  EXPECT_EQ(Parse("wal_recovery_mode=kSkipAnyCorruptedRecords").wal_recovery_mode,
            WALRecoveryMode::kSkipAnyCorruptedRecords);
  EXPECT_EQ(Parse("wal_recovery_mode=kTolerateCorruptedTailRecords").wal_recovery_mode,
            WALRecoveryMode::kTolerateCorruptedTailRecords);
  EXPECT_EQ(Parse("block_based_table_factory={index_type=kBinarySearch}").table_options.index_type,
            TableOptions::kBinarySearch);
  EXPECT_EQ(Parse("block_based_table_factory={data_block_index_type=kDataBlockBinarySearch}")
                .table_options.data_block_index_type,
            TableOptions::kDataBlockBinarySearch);
  // Enum names are exact; RocksDB's hash index is not built.
  std::string error = ParseError("compaction_style=kcompactionstylelevel");
  EXPECT_NE(error.find("kCompactionStyleLevel"), std::string::npos) << error;
  error = ParseError("block_based_table_factory={index_type=kHashSearch}");
  EXPECT_NE(error.find("block_based_table_factory.index_type"), std::string::npos) << error;
  EXPECT_NE(error.find("kHashSearch"), std::string::npos) << error;
  ParseError("compression=7");
}

TEST(OptionsStringTest, WhitespaceIsIgnored) {
  Options o = Parse(
      "  write_buffer_size = 1M ;\tmax_open_files=  -1 ;\n"
      " block_based_table_factory = { block_size = 8K ; filter_policy = bloomfilter:10:false } ; "
      "compaction_options_universal={ size_ratio=3 };  ");
  EXPECT_EQ(o.write_buffer_size, 1u << 20);
  EXPECT_EQ(o.max_open_files, -1);
  EXPECT_EQ(o.table_options.block_size, 8192u);
  ASSERT_NE(o.table_options.filter_policy, nullptr);
  EXPECT_EQ(o.table_options.filter_policy->bits_per_key(), 10);
  EXPECT_EQ(o.compaction_options_universal.size_ratio, 3u);
}

TEST(OptionsStringTest, NestedTableOptionsStartFromTheBase) {
  Options base;
  base.table_options.block_size = 16 << 10;
  base.table_options.filter_policy = NewBloomFilterPolicy(7);
  Options o = Parse("block_based_table_factory={block_restart_interval=12}", base);
  EXPECT_EQ(o.table_options.block_size, 16u << 10);
  EXPECT_EQ(o.table_options.block_restart_interval, 12);
  EXPECT_EQ(o.table_options.filter_policy, base.table_options.filter_policy);

  // The same filter keeps the object; another one replaces it; nullptr removes it.
  o = Parse("block_based_table_factory={filter_policy=bloomfilter:7:false}", base);
  EXPECT_EQ(o.table_options.filter_policy, base.table_options.filter_policy);
  o = Parse("block_based_table_factory={filter_policy=bloomfilter:9}", base);
  ASSERT_NE(o.table_options.filter_policy, nullptr);
  EXPECT_EQ(o.table_options.filter_policy->bits_per_key(), 9);
  o = Parse("block_based_table_factory={filter_policy=nullptr}", base);
  EXPECT_EQ(o.table_options.filter_policy, nullptr);

  // A block cache of the same capacity keeps the (possibly shared) object; another size
  // makes a new cache; nullptr removes it; a bad size is an error naming the option.
  base.table_options.block_cache = NewLRUCache(8 << 20);
  o = Parse("block_based_table_factory={block_cache=8M}", base);
  EXPECT_EQ(o.table_options.block_cache, base.table_options.block_cache);
  o = Parse("block_based_table_factory={block_cache=16M}", base);
  ASSERT_NE(o.table_options.block_cache, nullptr);
  EXPECT_NE(o.table_options.block_cache, base.table_options.block_cache);
  EXPECT_EQ(o.table_options.block_cache->GetCapacity(), 16u << 20);
  o = Parse("block_based_table_factory={block_cache=nullptr}", base);
  EXPECT_EQ(o.table_options.block_cache, nullptr);
  const std::string error = ParseError("block_based_table_factory={block_cache=lots}");
  EXPECT_NE(error.find("block_cache"), std::string::npos) << error;

  // Later entries win, also across two nested lists.
  o = Parse("block_based_table_factory={block_size=1K};write_buffer_size=1M;"
            "block_based_table_factory={block_size=2K};write_buffer_size=2M");
  EXPECT_EQ(o.table_options.block_size, 2048u);
  EXPECT_EQ(o.write_buffer_size, 2u << 20);
}

TEST(OptionsStringTest, ComparatorAndTableFactory) {
  Options base;
  base.comparator = TestReverseComparator();
  EXPECT_EQ(Parse("comparator=leveldb.BytewiseComparator", base).comparator, BytewiseComparator());
  EXPECT_EQ(Parse("write_buffer_size=1M", base).comparator, TestReverseComparator());
  EXPECT_EQ(Parse("comparator=nullptr").comparator, nullptr);
  std::string error = ParseError("comparator=test.ReverseComparator");  // base is bytewise
  EXPECT_NE(error.find("comparator"), std::string::npos) << error;
  EXPECT_NE(error.find("test.ReverseComparator"), std::string::npos) << error;
  error = ParseError("table_factory=PlainTable");
  EXPECT_NE(error.find("table_factory"), std::string::npos) << error;
}

// merge_operator: built-ins by their ids, the base's own operator kept by its id, errors named.
TEST(OptionsStringTest, MergeOperators) {
  EXPECT_EQ(Parse("merge_operator=uint64add").merge_operator->Name(), std::string("uint64add"));
  EXPECT_EQ(Parse("merge_operator=nullptr").merge_operator, nullptr);
  Options base;
  base.merge_operator = NewStringAppendOperator("--");
  const std::string id = base.merge_operator->GetId();
  // The same id keeps the very object (a custom operator survives a round trip this way).
  EXPECT_EQ(Parse("merge_operator=" + id, base).merge_operator, base.merge_operator);
  EXPECT_EQ(Parse("write_buffer_size=1M", base).merge_operator, base.merge_operator);
  EXPECT_EQ(Parse("merge_operator=max", base).merge_operator->GetId(), "max");
  const std::string error = ParseError("merge_operator=sum");
  EXPECT_NE(error.find("merge_operator"), std::string::npos) << error;
  EXPECT_NE(error.find("sum"), std::string::npos) << error;
  EXPECT_NE(error.find("uint64add"), std::string::npos) << error;  // says what is accepted
}

TEST(OptionsStringTest, BadFilterPolicies) {
  for (const char* bad : {"bloomfilter", "bloomfilter:", "bloomfilter:x", "bloomfilter:10:maybe",
                          "ribbonfilter:10",
                          "rocksdb.BuiltinBloomFilter"}) {
    SCOPED_TRACE(bad);
    std::string error =
        ParseError(std::string("block_based_table_factory={filter_policy=") + bad + "}");
    EXPECT_NE(error.find("block_based_table_factory.filter_policy"), std::string::npos) << error;
    EXPECT_NE(error.find(bad), std::string::npos) << error;
  }
}

TEST(OptionsStringTest, ErrorsNameTheOptionAndTheValue) {
  struct Case {
    std::string text;
    std::string option;
    std::string value;
  };
  const std::vector<Case> cases = {
      {"write_buffer_size=abc", "write_buffer_size", "abc"},
      {"no_such_option=42", "no_such_option", "42"},
      {"block_based_table_factory={block_size=big}", "block_based_table_factory.block_size", "big"},
      {"block_based_table_factory={no_such=1}", "block_based_table_factory.no_such", "1"},
      {"compaction_options_fifo={allow_compaction=perhaps}",
       "compaction_options_fifo.allow_compaction", "perhaps"},
      {"compaction_options_universal={stop_style=kCompactionStopStyleTotalSize}",
       "compaction_options_universal.stop_style", "kCompactionStopStyleTotalSize"},
      {"wal_recovery_mode=kBestEffort", "wal_recovery_mode", "kBestEffort"},
  };
  for (const Case& c : cases) {
    std::string error = ParseError(c.text);
    EXPECT_NE(error.find(c.option), std::string::npos) << c.text << " -> " << error;
    EXPECT_NE(error.find("'" + c.value + "'"), std::string::npos) << c.text << " -> " << error;
  }
}

TEST(OptionsStringTest, MalformedStrings) {
  for (const char* bad : {"write_buffer_size", "=5", "write_buffer_size=1M;max_open_files",
                          "block_based_table_factory={block_size=1K",
                          "block_based_table_factory={block_size=1K}x",
                          "block_based_table_factory={block_size=1K}}"}) {
    SCOPED_TRACE(bad);
    ParseError(bad);
  }
}

TEST(OptionsStringTest, OutputIsUntouchedOnError) {
  Options out;
  out.write_buffer_size = 12345;
  out.max_open_files = 77;
  Status s = GetOptionsFromString(Options(), "max_open_files=100;write_buffer_size=x", &out);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(out.write_buffer_size, 12345u);
  EXPECT_EQ(out.max_open_files, 77);
}

TEST(OptionsStringTest, DefaultsRoundTrip) {
  std::string text = GetStringFromOptions(Options());
  EXPECT_NE(text.find("write_buffer_size=67108864;"), std::string::npos) << text;
  EXPECT_NE(text.find("compression=kNoCompression;"), std::string::npos) << text;
  EXPECT_NE(text.find("block_based_table_factory={block_size=4096;"), std::string::npos) << text;
  EXPECT_EQ(text.find("file_system"), std::string::npos) << text;
  Options base;
  base.write_buffer_size = 1;  // must be overwritten
  ExpectOptionsEqual(Parse(text, base), Options());
}

TEST(OptionsStringTest, RandomOptionsRoundTrip) {
  Random rnd(301);
  for (int i = 0; i < 2000 && !HasFailure(); i++) {
    Options original = RandomOptions(&rnd);
    std::string text = GetStringFromOptions(original);
    SCOPED_TRACE(text);
    Options base;
    base.comparator = original.comparator;
    Options parsed = Parse(text, base);
    ExpectOptionsEqual(parsed, original);
    EXPECT_EQ(GetStringFromOptions(parsed), text);
  }
}

}  // namespace
}  // namespace shale
