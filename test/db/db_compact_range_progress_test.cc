// CompactRangeOptions::progress (shale/progress.h): a manual compaction reports its input read,
// growing to the inputs' totals, with one final report after the work, also when there is
// nothing to compact; a bad interval is refused before anything runs.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::unique_ptr<DB> OpenMemDb(bool auto_compactions) {
  Options options;
  options.file_system = NewMemFileSystem();
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;
  options.disable_auto_compactions = !auto_compactions;
  std::unique_ptr<DB> db;
  EXPECT_OK(DB::Open(options, "/db", &db));
  return db;
}

// Writes `rounds` flushed tables of n keys each, overlapping: a compaction has work to do.
void WriteOverlappingTables(DB* db, int rounds, int n) {
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      ASSERT_OK(db->Put(WriteOptions(), absl::StrCat("key", 100000 + i * 7 % n),
                        absl::StrCat(r, std::string(80, 'x'))));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
}

TEST(DbCompactRangeProgressTest, ReportsTheInputReadUpToItsTotalThenFinishes) {
  std::unique_ptr<DB> db = OpenMemDb(false);
  WriteOverlappingTables(db.get(), 4, 20000);
  std::vector<Progress> reports;
  CompactRangeOptions o;
  o.progress_interval_seconds = 0;
  o.progress = [&reports](const Progress& p) { reports.push_back(p); };
  ASSERT_OK(db->CompactRange(o, nullptr, nullptr));
  ASSERT_GE(reports.size(), 3u);  // 80000 entries read: many batches of 4096
  for (size_t i = 0; i < reports.size(); i++) {
    SCOPED_TRACE(i);
    EXPECT_STREQ(reports[i].operation, "compact_range");
    EXPECT_EQ(reports[i].finished, i + 1 == reports.size());
    EXPECT_EQ(reports[i].entries_total, 80000u);
    EXPECT_GT(reports[i].bytes_total, 0u);
    if (i > 0) {
      EXPECT_GE(reports[i].entries_done, reports[i - 1].entries_done);
    }
  }
  const Progress& last = reports.back();
  EXPECT_EQ(last.entries_done, 80000u);
  // Bytes are counted at the inputs' mean entry size: the total, give or take rounding.
  EXPECT_NEAR(static_cast<double>(last.bytes_done), static_cast<double>(last.bytes_total),
              0.01 * static_cast<double>(last.bytes_total));
  EXPECT_DOUBLE_EQ(last.fraction(), 1.0);
  // A report in the middle has a fraction strictly between 0 and 1, and an ETA.
  const Progress& middle = reports[reports.size() / 2];
  EXPECT_GT(middle.fraction(), 0.0);
  EXPECT_LT(middle.fraction(), 1.0);
  EXPECT_GE(middle.eta_seconds, 0.0);
  ASSERT_OK(db->Close());
}

TEST(DbCompactRangeProgressTest, NothingToCompactStillSendsTheFinalReport) {
  std::unique_ptr<DB> db = OpenMemDb(false);
  // One flush into an empty DB: its table goes straight to the bottom level.
  WriteOverlappingTables(db.get(), 1, 1000);
  std::vector<Progress> reports;
  CompactRangeOptions o;
  o.progress_interval_seconds = 0;
  o.progress = [&reports](const Progress& p) { reports.push_back(p); };
  ASSERT_OK(db->CompactRange(o, nullptr, nullptr));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].finished);
  EXPECT_EQ(reports[0].eta_seconds, 0);
  EXPECT_DOUBLE_EQ(reports[0].fraction(), 1.0);
  ASSERT_OK(db->Close());
}

TEST(DbCompactRangeProgressTest, WithoutACallbackNothingIsReportedAndTheCompactionRuns) {
  std::unique_ptr<DB> db = OpenMemDb(false);
  WriteOverlappingTables(db.get(), 2, 2000);
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  uint64_t l0 = 1;
  ASSERT_TRUE(db->GetIntProperty("shale.num-files-at-level0", &l0));
  EXPECT_EQ(l0, 0u);
  ASSERT_OK(db->Close());
}

TEST(DbCompactRangeProgressTest, NegativeIntervalIsRefusedBeforeAnythingRuns) {
  std::unique_ptr<DB> db = OpenMemDb(false);
  WriteOverlappingTables(db.get(), 3, 1000);
  uint64_t l0_before = 0;
  ASSERT_TRUE(db->GetIntProperty("shale.num-files-at-level0", &l0_before));
  ASSERT_GT(l0_before, 0u);
  for (const double bad : {-0.5, std::nan("")}) {
    CompactRangeOptions o;
    o.progress_interval_seconds = bad;
    const Status s = db->CompactRange(o, nullptr, nullptr);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("progress_interval_seconds"), std::string::npos);
  }
  uint64_t l0 = 0;
  ASSERT_TRUE(db->GetIntProperty("shale.num-files-at-level0", &l0));
  EXPECT_EQ(l0, l0_before);  // nothing compacted
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
