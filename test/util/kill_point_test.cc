#include "util/kill_point.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace shale {
namespace {

KillPointSpec MustParse(std::string_view text) {
  KillPointSpec spec;
  Status s = KillPointSpec::Parse(text, &spec);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  return spec;
}

TEST(KillPointSpecTest, EmptyAndUnsetAreDisarmed) {
  for (const char* text : {"", " ", ",", " , ,"}) {
    KillPointSpec spec = MustParse(text);
    EXPECT_TRUE(spec.empty()) << "'" << text << "'";
    for (const KillPointInfo& p : kKillPoints) EXPECT_EQ(spec.OddsFor(p.name), 0u) << p.name;
  }
}

TEST(KillPointSpecTest, ExactNameArmsOnlyThatPoint) {
  KillPointSpec spec = MustParse("flush.table_synced:50");
  EXPECT_FALSE(spec.empty());
  EXPECT_EQ(spec.OddsFor("flush.table_synced"), 50u);
  EXPECT_EQ(spec.OddsFor("flush.manifest_written"), 0u);
  EXPECT_EQ(spec.OddsFor("flush.table_synced_more"), 0u);  // exact, not a prefix
  EXPECT_EQ(spec.OddsFor("flush"), 0u);
}

TEST(KillPointSpecTest, OddsDefaultToOne) {
  KillPointSpec spec = MustParse("wal.written");
  EXPECT_EQ(spec.OddsFor("wal.written"), 1u);
}

TEST(KillPointSpecTest, PrefixGlobArmsItsGroup) {
  KillPointSpec spec = MustParse("flush.table_synced:50, manifest.*:20");
  EXPECT_EQ(spec.OddsFor("flush.table_synced"), 50u);
  EXPECT_EQ(spec.OddsFor("manifest.record_appended"), 20u);
  EXPECT_EQ(spec.OddsFor("manifest.record_synced"), 20u);
  EXPECT_EQ(spec.OddsFor("manifest.new_synced"), 20u);
  EXPECT_EQ(spec.OddsFor("wal.written"), 0u);
  EXPECT_EQ(spec.OddsFor("compaction.manifest_written"), 0u);  // contains, but no prefix
}

TEST(KillPointSpecTest, StarAloneArmsEveryPoint) {
  KillPointSpec spec = MustParse("*:7");
  for (const KillPointInfo& p : kKillPoints) EXPECT_EQ(spec.OddsFor(p.name), 7u) << p.name;
}

TEST(KillPointSpecTest, FirstMatchingEntryDecides) {
  KillPointSpec spec = MustParse("flush.table_synced:1,flush.*:100,*:1000");
  EXPECT_EQ(spec.OddsFor("flush.table_synced"), 1u);
  EXPECT_EQ(spec.OddsFor("flush.manifest_written"), 100u);
  EXPECT_EQ(spec.OddsFor("wal.written"), 1000u);
  KillPointSpec reversed = MustParse("*:1000,flush.table_synced:1");
  EXPECT_EQ(reversed.OddsFor("flush.table_synced"), 1000u);
}

TEST(KillPointSpecTest, MalformedEntriesAreRejectedByName) {
  const std::map<std::string, std::string> bad = {
      {"flush.nope:5", "flush.nope:5"},         // unknown name
      {"nope.*", "nope.*"},                     // prefix of nothing
      {"flush.table_synced:0", "odds"},         // odds below 1
      {"flush.table_synced:abc", "odds"},       // not a number
      {"flush.table_synced:", "odds"},          // no number
      {"flush.table_synced:-3", "odds"},        // negative
      {"flush.table_synced:99999999999", "odds"},  // over 32 bits
      {"flush.table_synced:5x", "odds"},        // trailing junk
      {":5", "want NAME"},                      // no pattern
      {"*flush", "want NAME"},                  // glob not at the end
      {"fl*sh.*", "want NAME"},
      {"flush.table_synced:5:6", "want NAME"},
      {"wal.written,flush.nope", "flush.nope"},  // one bad entry spoils the list
  };
  for (const auto& [text, needle] : bad) {
    KillPointSpec spec = MustParse("wal.written:3");
    Status s = KillPointSpec::Parse(text, &spec);
    EXPECT_TRUE(s.IsInvalidArgument()) << text << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(needle), std::string::npos) << text << ": " << s.ToString();
    // A failed parse leaves the spec as it was.
    EXPECT_EQ(spec.OddsFor("wal.written"), 3u) << text;
  }
}

TEST(KillPointListTest, NamesAreUniqueGroupedAndDescribed) {
  std::set<std::string_view> names;
  const std::set<std::string> groups = {"wal", "flush", "compaction", "manifest", "ingest"};
  for (const KillPointInfo& p : kKillPoints) {
    EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
    const size_t dot = p.name.find('.');
    ASSERT_NE(dot, std::string_view::npos) << p.name;
    EXPECT_EQ(groups.count(std::string(p.name.substr(0, dot))), 1u) << p.name;
    EXPECT_FALSE(p.window.empty()) << p.name;
    EXPECT_TRUE(IsKillPointName(p.name));
  }
  static_assert(IsKillPointName("wal.written"));
  static_assert(!IsKillPointName("wal"));
  static_assert(!IsKillPointName("wal.written2"));
}

#ifdef SHALE_SOURCE_DIR
// Every listed point is placed somewhere in the engine (a listed point that nothing reaches
// would make the crash test's whitebox cycles on it kill only by timer).
TEST(KillPointListTest, EveryPointIsPlacedInTheEngine) {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(SHALE_SOURCE_DIR) / "src";
  const std::regex use(R"re(SHALE_KILL_POINT\("([^"]+)"\))re");
  std::map<std::string, int> uses;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const fs::path& p = entry.path();
    if (p.extension() != ".cc" && p.extension() != ".h") continue;
    if (p.filename() == "kill_point.h") continue;  // its comment shows an example
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), use), end; it != end; ++it) {
      uses[(*it)[1].str()]++;
    }
  }
  for (const KillPointInfo& p : kKillPoints) {
    EXPECT_GE(uses[std::string(p.name)], 1) << p.name << " is listed but never placed";
  }
}
#endif

// The death tests re-run this binary for the statement (threadsafe style), so the child reads
// SHALE_KILL_POINTS afresh at its first kill point, as a real process does.
class KillPointDeathTest : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  void TearDown() override { unsetenv("SHALE_KILL_POINTS"); }
};

TEST_F(KillPointDeathTest, ArmedPointDiesBySigkillAfterItsLine) {
  setenv("SHALE_KILL_POINTS", "wal.written:5,flush.table_synced:1", 1);
  EXPECT_EXIT(
      {
        SHALE_KILL_POINT("flush.table_synced");
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGKILL), "kill point flush\\.table_synced hit");
}

TEST_F(KillPointDeathTest, PrefixWithOddsDiesWithinManyHits) {
  setenv("SHALE_KILL_POINTS", "manifest.*:20", 1);
  // Disarmed points pass; an armed one at 1 in 20 fails to kill 10000 times with odds e^-500.
  EXPECT_EXIT(
      {
        for (int i = 0; i < 10000; i++) SHALE_KILL_POINT("wal.written");
        for (int i = 0; i < 10000; i++) SHALE_KILL_POINT("manifest.record_synced");
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGKILL), "kill point manifest\\.record_synced hit");
}

TEST_F(KillPointDeathTest, UnarmedPointsNeverKill) {
  // Unset: every point passes.
  unsetenv("SHALE_KILL_POINTS");
  EXPECT_EXIT(
      {
        for (int i = 0; i < 1000; i++) {
          SHALE_KILL_POINT("wal.written");
          SHALE_KILL_POINT("flush.table_synced");
          SHALE_KILL_POINT("manifest.new_synced");
        }
        std::_Exit(3);
      },
      testing::ExitedWithCode(3), "");
  // Armed elsewhere: these points still pass.
  setenv("SHALE_KILL_POINTS", "ingest.*", 1);
  EXPECT_EXIT(
      {
        for (int i = 0; i < 1000; i++) {
          SHALE_KILL_POINT("wal.written");
          SHALE_KILL_POINT("compaction.manifest_written");
        }
        std::_Exit(4);
      },
      testing::ExitedWithCode(4), "");
}

TEST_F(KillPointDeathTest, MalformedEnvironmentAbortsWithTheReason) {
  setenv("SHALE_KILL_POINTS", "flush.tabel_synced:3", 1);
  EXPECT_EXIT(
      {
        SHALE_KILL_POINT("wal.written");
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGABRT),
      "SHALE_KILL_POINTS: .*flush\\.tabel_synced:3.*matches no kill point");
}

// Many threads reaching the first point at once read the environment once and all behave.
TEST_F(KillPointDeathTest, FirstUseFromManyThreads) {
  setenv("SHALE_KILL_POINTS", "compaction.outputs_synced:1", 1);
  EXPECT_EXIT(
      {
        std::vector<std::thread> threads;
        std::atomic<bool> go{false};
        for (int t = 0; t < 8; t++) {
          threads.emplace_back([&go, t] {
            while (!go.load()) {
            }
            for (int i = 0; i < 1000; i++) SHALE_KILL_POINT("wal.written");
            if (t == 7) SHALE_KILL_POINT("compaction.outputs_synced");
          });
        }
        go.store(true);
        for (std::thread& th : threads) th.join();
        std::_Exit(0);
      },
      testing::KilledBySignal(SIGKILL), "kill point compaction\\.outputs_synced hit");
}

}  // namespace
}  // namespace shale
