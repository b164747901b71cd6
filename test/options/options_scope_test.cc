// Option scope (issue 23, column families): DB options and column-family options in strings,
// each scope's functions refusing the other's names; the default family's name and
// ColumnFamilyDescriptor.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "options/option_list.h"
#include "options/options_test_util.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// The top-level names in an option string.
std::set<std::string> Names(const std::string& text) {
  std::vector<OptionPair> pairs;
  EXPECT_OK(SplitOptionList(text, OptionParseContext(), &pairs));
  std::set<std::string> names;
  for (const OptionPair& pair : pairs) names.insert(std::string(pair.name));
  return names;
}

std::string DBString(const DBOptions& options) {
  std::string text;
  EXPECT_OK(GetStringFromDBOptions(&text, options));
  return text;
}

std::string CFString(const ColumnFamilyOptions& options) {
  std::string text;
  EXPECT_OK(GetStringFromColumnFamilyOptions(&text, options));
  return text;
}

// Every option is in exactly one scope, and the two scoped strings together are the Options
// string (DB options first), so the scoped forms print everything GetStringFromOptions does.
TEST(OptionsScopeTest, ScopesSplitTheOptionsString) {
  Random rnd(23);
  for (int i = 0; i < 50; i++) {
    const Options options = RandomOptions(&rnd);
    EXPECT_EQ(DBString(options) + ";" + CFString(options), GetStringFromOptions(options));
  }
  const std::set<std::string> db = Names(DBString(DBOptions()));
  const std::set<std::string> cf = Names(CFString(ColumnFamilyOptions()));
  for (const std::string& name : db) EXPECT_EQ(cf.count(name), 0u) << name;
  for (const char* name : {"create_if_missing", "max_open_files", "max_background_jobs",
                           "db_write_buffer_size", "delayed_write_rate", "wal_recovery_mode",
                           "create_missing_column_families", "max_total_wal_size",
                           "atomic_flush", "stats_dump_period_sec"}) {
    EXPECT_EQ(db.count(name), 1u) << name;
  }
  for (const char* name : {"comparator", "merge_operator", "write_buffer_size", "compression",
                           "num_levels", "compaction_style", "ttl", "table_factory",
                           "block_based_table_factory", "compaction_options_universal"}) {
    EXPECT_EQ(cf.count(name), 1u) << name;
  }
}

TEST(OptionsScopeTest, DBOptionsRoundTrip) {
  Random rnd(231);
  for (int i = 0; i < 200 && !testing::Test::HasFailure(); i++) {
    const Options random = RandomOptions(&rnd);
    const DBOptions& original = random;
    DBOptions parsed;
    ASSERT_OK(GetDBOptionsFromString(DBOptions(), DBString(original), &parsed));
    ExpectOptionsEqual(Options(parsed, ColumnFamilyOptions()),
                       Options(original, ColumnFamilyOptions()));
  }
  // The RocksDB delimiter with spaces reads back too.
  DBOptions changed;
  changed.atomic_flush = true;
  changed.max_total_wal_size = 3 << 20;
  std::string spaced;
  ASSERT_OK(GetStringFromDBOptions(&spaced, changed, ";  "));
  DBOptions parsed;
  ASSERT_OK(GetDBOptionsFromString(DBOptions(), spaced, &parsed));
  EXPECT_TRUE(parsed.atomic_flush);
  EXPECT_EQ(parsed.max_total_wal_size, 3u << 20);
}

TEST(OptionsScopeTest, ColumnFamilyOptionsRoundTrip) {
  Random rnd(232);
  for (int i = 0; i < 200 && !testing::Test::HasFailure(); i++) {
    const Options random = RandomOptions(&rnd);
    const ColumnFamilyOptions& original = random;
    ColumnFamilyOptions base;
    base.comparator = original.comparator;  // comparator=<name> takes the base's comparator
    ColumnFamilyOptions parsed;
    ASSERT_OK(GetColumnFamilyOptionsFromString(base, CFString(original), &parsed));
    ExpectOptionsEqual(Options(DBOptions(), parsed), Options(DBOptions(), original));
  }
}

TEST(OptionsScopeTest, NewDBOptionsParse) {
  DBOptions parsed;
  ASSERT_OK(GetDBOptionsFromString(
      DBOptions(),
      "create_missing_column_families=true;max_total_wal_size=1G;atomic_flush=1", &parsed));
  EXPECT_TRUE(parsed.create_missing_column_families);
  EXPECT_EQ(parsed.max_total_wal_size, 1u << 30);
  EXPECT_TRUE(parsed.atomic_flush);
  Status s = GetDBOptionsFromString(DBOptions(), "max_total_wal_size=-1", &parsed);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("max_total_wal_size: invalid value '-1'"), std::string::npos)
      << s.ToString();
}

// Each scoped parser refuses the other scope's names, saying so, and changes nothing.
TEST(OptionsScopeTest, ScopedParsersRefuseTheOtherScope) {
  DBOptions db;
  db.max_open_files = 77;
  DBOptions db_out = db;
  Status s = GetDBOptionsFromString(db, "max_open_files=5000;write_buffer_size=1M", &db_out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("write_buffer_size is a column family option, not a DB option"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(db_out.max_open_files, 77);
  s = GetDBOptionsFromString(db, "block_based_table_factory={block_size=8K}", &db_out);
  EXPECT_NE(s.ToString().find("block_based_table_factory is a column family option"),
            std::string::npos)
      << s.ToString();

  ColumnFamilyOptions cf;
  cf.write_buffer_size = 1 << 20;
  ColumnFamilyOptions cf_out = cf;
  s = GetColumnFamilyOptionsFromString(cf, "write_buffer_size=2M;max_open_files=5000", &cf_out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("max_open_files is a DB option, not a column family option"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(cf_out.write_buffer_size, 1u << 20);
  s = GetColumnFamilyOptionsFromString(cf, "atomic_flush=true", &cf_out);
  EXPECT_NE(s.ToString().find("atomic_flush is a DB option"), std::string::npos) << s.ToString();

  // Names of neither scope are unknown, as in GetOptionsFromString.
  s = GetColumnFamilyOptionsFromString(cf, "no_such_option=1", &cf_out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("unknown option 'no_such_option'"), std::string::npos)
      << s.ToString();
  s = GetDBOptionsFromString(db, "no_such_option=1", &db_out);
  EXPECT_NE(s.ToString().find("unknown option 'no_such_option'"), std::string::npos)
      << s.ToString();

  // Options takes both.
  Options both;
  ASSERT_OK(GetOptionsFromString(Options(), "max_open_files=5000;write_buffer_size=1M", &both));
  EXPECT_EQ(both.max_open_files, 5000);
  EXPECT_EQ(both.write_buffer_size, 1u << 20);
}

TEST(ColumnFamilyDescriptorTest, DefaultIsTheDefaultFamily) {
  EXPECT_EQ(kDefaultColumnFamilyName, "default");
  ColumnFamilyDescriptor d;
  EXPECT_EQ(d.name, kDefaultColumnFamilyName);
  EXPECT_EQ(d.options.write_buffer_size, ColumnFamilyOptions().write_buffer_size);
  ColumnFamilyOptions cf;
  cf.write_buffer_size = 1 << 20;
  ColumnFamilyDescriptor named("users", cf);
  EXPECT_EQ(named.name, "users");
  EXPECT_EQ(named.options.write_buffer_size, 1u << 20);
}

}  // namespace
}  // namespace shale
