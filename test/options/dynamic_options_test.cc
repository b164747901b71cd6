// ApplyColumnFamilyOptionChanges / ApplyDBOptionChanges (options/dynamic_options.h), behind
// DB::SetOptions and DB::SetDBOptions: which options are dynamic, all-or-none application, and
// each refusal (unknown, the other scope, not dynamic, a bad value).
#include "options/dynamic_options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "options/option_list.h"
#include "options/options_test_util.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using Changes = std::unordered_map<std::string, std::string>;

// The top-level name -> printed value pairs of an option string.
std::vector<std::pair<std::string, std::string>> Pairs(const std::string& text) {
  std::vector<OptionPair> pairs;
  EXPECT_OK(SplitOptionList(text, OptionParseContext(), &pairs));
  std::vector<std::pair<std::string, std::string>> out;
  for (const OptionPair& pair : pairs) out.emplace_back(pair.name, pair.value);
  return out;
}

void ExpectRefused(const Status& s, const std::string& message) {
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(message), std::string::npos) << s.ToString();
}

// Exactly these options change on an open DB (the "Dynamic: yes" notes of shale/options.h).
TEST(DynamicOptionsTest, TheDynamicOptions) {
  const std::set<std::string> cf_dynamic = {
      "write_buffer_size",
      "max_write_buffer_number",
      "max_successive_merges",
      "compression",
      "bottommost_compression",
      "compression_level",
      "level0_file_num_compaction_trigger",
      "level0_slowdown_writes_trigger",
      "level0_stop_writes_trigger",
      "target_file_size_base",
      "target_file_size_multiplier",
      "max_bytes_for_level_base",
      "max_bytes_for_level_multiplier",
      "disable_auto_compactions",
      "compaction_options_universal",
      "compaction_options_fifo",
      "ttl",
      "soft_pending_compaction_bytes_limit",
      "hard_pending_compaction_bytes_limit",
  };
  const std::set<std::string> db_dynamic = {"avoid_flush_during_shutdown", "delayed_write_rate",
                                            "max_background_jobs", "max_subcompactions",
                                            "max_total_wal_size"};
  std::string cf_text;
  ASSERT_OK(GetStringFromColumnFamilyOptions(&cf_text, ColumnFamilyOptions()));
  std::set<std::string> cf_accepted;
  for (const auto& [name, value] : Pairs(cf_text)) {
    ColumnFamilyOptions out;
    // Nested values as printed, with their braces.
    Status s = ApplyColumnFamilyOptionChanges(ColumnFamilyOptions(), {{name, value}}, &out);
    if (s.ok()) {
      cf_accepted.insert(name);
    } else {
      ExpectRefused(s, name + " cannot be changed while the DB is open");
    }
  }
  EXPECT_EQ(cf_accepted, cf_dynamic);
  std::string db_text;
  ASSERT_OK(GetStringFromDBOptions(&db_text, DBOptions()));
  std::set<std::string> db_accepted;
  for (const auto& [name, value] : Pairs(db_text)) {
    DBOptions out;
    Status s = ApplyDBOptionChanges(DBOptions(), {{name, value}}, &out);
    if (s.ok()) {
      db_accepted.insert(name);
    } else {
      ExpectRefused(s, name + " cannot be changed while the DB is open");
    }
  }
  EXPECT_EQ(db_accepted, db_dynamic);
}

TEST(DynamicOptionsTest, AppliesColumnFamilyChanges) {
  ColumnFamilyOptions base;
  base.compaction_options_universal.min_merge_width = 3;
  base.num_levels = 5;
  ColumnFamilyOptions out;
  ASSERT_OK(ApplyColumnFamilyOptionChanges(base,
                                           {{"write_buffer_size", " 8M "},
                                            {"compression", "kZSTD"},
                                            {"disable_auto_compactions", "true"},
                                            {"compaction_options_universal", "{size_ratio=7}"},
                                            {"compaction_options_fifo", "max_table_files_size=1G"},
                                            {"ttl", "3600"}},
                                           &out));
  EXPECT_EQ(out.write_buffer_size, 8u << 20);
  EXPECT_EQ(out.compression, kZSTD);
  EXPECT_TRUE(out.disable_auto_compactions);
  EXPECT_EQ(out.compaction_options_universal.size_ratio, 7u);
  EXPECT_EQ(out.compaction_options_universal.min_merge_width, 3u);  // the rest of base's
  EXPECT_EQ(out.compaction_options_fifo.max_table_files_size, 1u << 30);
  EXPECT_EQ(out.ttl, 3600u);
  EXPECT_EQ(out.num_levels, 5);  // untouched options keep base's value
  // No changes: the base itself.
  ColumnFamilyOptions same;
  ASSERT_OK(ApplyColumnFamilyOptionChanges(base, {}, &same));
  ExpectOptionsEqual(Options(DBOptions(), same), Options(DBOptions(), base));
}

TEST(DynamicOptionsTest, AppliesDBChanges) {
  DBOptions base;
  base.max_open_files = 500;
  DBOptions out;
  ASSERT_OK(ApplyDBOptionChanges(base,
                                 {{"max_total_wal_size", "1G"},
                                  {"max_background_jobs", "8"},
                                  {"max_subcompactions", "4"},
                                  {"delayed_write_rate", "2M"}},
                                 &out));
  EXPECT_EQ(out.max_total_wal_size, 1u << 30);
  EXPECT_EQ(out.max_background_jobs, 8);
  EXPECT_EQ(out.max_subcompactions, 4u);
  EXPECT_EQ(out.delayed_write_rate, 2u << 20);
  EXPECT_EQ(out.max_open_files, 500);
}

// Every refusal names the option, and one bad change among good ones changes nothing.
TEST(DynamicOptionsTest, RefusalsAreAllOrNone) {
  struct Case {
    Changes changes;
    std::string message;
  };
  const std::vector<Case> cf_cases = {
      {{{"write_buffer_size", "8M"}, {"no_such_option", "1"}}, "unknown option 'no_such_option'"},
      {{{"write_buffer_size", "8M"}, {"max_background_jobs", "4"}},
       "max_background_jobs is a DB option: use SetDBOptions"},
      {{{"write_buffer_size", "8M"}, {"max_total_wal_size", "1G"}},
       "max_total_wal_size is a DB option: use SetDBOptions"},
      {{{"write_buffer_size", "8M"}, {"num_levels", "4"}},
       "num_levels cannot be changed while the DB is open"},
      {{{"write_buffer_size", "8M"}, {"comparator", "leveldb.BytewiseComparator"}},
       "comparator cannot be changed while the DB is open"},
      {{{"write_buffer_size", "8M"}, {"block_based_table_factory", "{block_size=8K}"}},
       "block_based_table_factory cannot be changed while the DB is open"},
      {{{"write_buffer_size", "8M"}, {"ttl", "soon"}}, "ttl: invalid value 'soon'"},
      {{{"write_buffer_size", "8M"}, {"compaction_options_universal", "{size_ratio=x}"}},
       "compaction_options_universal.size_ratio: invalid value 'x'"},
      {{{"write_buffer_size", "8M"}, {"compaction_options_fifo", "{no_such=1}"}},
       "unknown option 'compaction_options_fifo.no_such'"},
  };
  ColumnFamilyOptions cf_base;
  cf_base.write_buffer_size = 1 << 20;
  for (const Case& c : cf_cases) {
    SCOPED_TRACE(c.message);
    ColumnFamilyOptions out = cf_base;
    ExpectRefused(ApplyColumnFamilyOptionChanges(cf_base, c.changes, &out), c.message);
    EXPECT_EQ(out.write_buffer_size, 1u << 20);  // the good change was not applied
  }
  const std::vector<Case> db_cases = {
      {{{"max_background_jobs", "8"}, {"no_such_option", "1"}}, "unknown option 'no_such_option'"},
      {{{"max_background_jobs", "8"}, {"write_buffer_size", "1M"}},
       "write_buffer_size is a column family option: use SetOptions"},
      {{{"max_background_jobs", "8"}, {"max_open_files", "100"}},
       "max_open_files cannot be changed while the DB is open"},
      {{{"max_background_jobs", "8"}, {"atomic_flush", "true"}},
       "atomic_flush cannot be changed while the DB is open"},
      {{{"max_background_jobs", "8"}, {"create_missing_column_families", "true"}},
       "create_missing_column_families cannot be changed while the DB is open"},
      {{{"max_background_jobs", "8"}, {"max_total_wal_size", "-5"}},
       "max_total_wal_size: invalid value '-5'"},
  };
  DBOptions db_base;
  for (const Case& c : db_cases) {
    SCOPED_TRACE(c.message);
    DBOptions out = db_base;
    ExpectRefused(ApplyDBOptionChanges(db_base, c.changes, &out), c.message);
    EXPECT_EQ(out.max_background_jobs, db_base.max_background_jobs);
  }
}

// With several bad changes, the one reported is the first by name, whatever the map's order.
TEST(DynamicOptionsTest, FirstBadChangeByName) {
  for (int i = 0; i < 20; i++) {
    Changes changes;
    changes["zz_unknown"] = "1";
    changes["num_levels"] = "3";
    changes["aa_unknown"] = "1";
    for (int j = 0; j < i; j++) changes["ttl" + std::string(j + 1, 'x')] = "1";
    ColumnFamilyOptions out;
    ExpectRefused(ApplyColumnFamilyOptionChanges(ColumnFamilyOptions(), changes, &out),
                  "unknown option 'aa_unknown'");
  }
}

}  // namespace
}  // namespace shale
