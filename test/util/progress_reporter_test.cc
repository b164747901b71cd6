// ProgressReporter (util/progress_reporter.h): when it reports, what a report says (fraction,
// rate, ETA), the single final report, concurrent counting, and Progress::fraction.
#include "util/progress_reporter.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace shale {
namespace {

TEST(ProgressReporterTest, IntervalZeroReportsEveryAddAndFinishOnce) {
  std::vector<Progress> reports;
  {
    ProgressReporter r("op", [&](const Progress& p) { reports.push_back(p); }, 0);
    r.SetTotals(1000, 10);
    r.SetStage("first");
    r.Add(100, 1);
    r.Add(400, 4);
    r.Finish();
    r.Finish();      // a second Finish reports nothing
    r.Add(500, 5);   // nor does an Add after it
  }                  // nor the destructor
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_STREQ(reports[0].operation, "op");
  EXPECT_STREQ(reports[0].stage, "first");
  EXPECT_EQ(reports[0].bytes_done, 100u);
  EXPECT_EQ(reports[1].bytes_done, 500u);
  EXPECT_EQ(reports[1].entries_done, 5u);
  EXPECT_EQ(reports[1].bytes_total, 1000u);
  EXPECT_EQ(reports[1].entries_total, 10u);
  EXPECT_DOUBLE_EQ(reports[1].fraction(), 0.5);
  EXPECT_FALSE(reports[1].finished);
  // Half done in elapsed seconds: as long again to go.
  EXPECT_NEAR(reports[1].eta_seconds, reports[1].elapsed_seconds, 1e-9);
  EXPECT_TRUE(reports[2].finished);
  EXPECT_EQ(reports[2].eta_seconds, 0);
  EXPECT_DOUBLE_EQ(reports[2].fraction(), 1.0);
}

TEST(ProgressReporterTest, LongIntervalReportsOnlyTheFinalReportFromTheDestructor) {
  int calls = 0;
  Progress last;
  {
    ProgressReporter r("op", [&](const Progress& p) { calls++; last = p; }, 3600);
    for (int i = 0; i < 1000; i++) r.Add(10, 1);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.bytes_done, 10000u);
  EXPECT_EQ(last.entries_done, 1000u);
}

TEST(ProgressReporterTest, HugeAndInfiniteIntervalsMeanOnlyTheFinalReport) {
  for (const double interval : {1e300, std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::max()}) {
    SCOPED_TRACE(interval);
    EXPECT_TRUE(ProgressReporter::ValidateInterval(interval, "x").ok());
    int calls = 0;
    {
      ProgressReporter r("op", [&](const Progress&) { calls++; }, interval);
      for (int i = 0; i < 100; i++) r.Add(1, 1);
    }
    EXPECT_EQ(calls, 1);
  }
}

TEST(ProgressReporterTest, AThrowingCallbackIsNotCalledAgainAndCountingGoesOn) {
  int calls = 0;
  ProgressReporter r(
      "op",
      [&](const Progress&) {
        calls++;
        throw std::runtime_error("callback failed");
      },
      0);
  r.Add(1, 1);
  r.Add(1, 1);
  r.Finish();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.entries_done(), 2u);
}

TEST(ProgressReporterTest, ATotalTheWorkOutgrowsIsReportedAsTheWorkDone) {
  std::vector<Progress> reports;
  ProgressReporter r("op", [&](const Progress& p) { reports.push_back(p); }, 0);
  r.SetTotals(100, 2);
  r.Add(150, 3);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].bytes_total, 150u);
  EXPECT_EQ(reports[0].entries_total, 3u);
  EXPECT_DOUBLE_EQ(reports[0].fraction(), 1.0);
}

TEST(ProgressReporterTest, RestartCountsFromZeroWithNewTotals) {
  std::vector<Progress> reports;
  ProgressReporter r("op", [&](const Progress& p) { reports.push_back(p); }, 0);
  r.SetTotals(100, 10);
  r.Add(60, 6);
  r.Restart(200, 20);
  r.Add(10, 1);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].bytes_done, 10u);
  EXPECT_EQ(reports[1].entries_done, 1u);
  EXPECT_EQ(reports[1].bytes_total, 200u);
}

TEST(ProgressReporterTest, UnknownTotalsGiveNoEta) {
  std::vector<Progress> reports;
  ProgressReporter r("op", [&](const Progress& p) { reports.push_back(p); }, 0);
  r.Add(10, 1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].fraction(), 0);
  EXPECT_EQ(reports[0].eta_seconds, -1);
}

TEST(ProgressReporterTest, EntriesGiveTheFractionWhenBytesHaveNoTotal) {
  Progress p;
  p.entries_done = 3;
  p.entries_total = 4;
  EXPECT_DOUBLE_EQ(p.fraction(), 0.75);
  p.bytes_total = 100;
  p.bytes_done = 250;  // an estimate exceeded: clamped
  EXPECT_DOUBLE_EQ(p.fraction(), 1.0);
}

TEST(ProgressReporterTest, NoCallbackCountsWithoutReporting) {
  ProgressReporter r("op", nullptr, 0);
  EXPECT_FALSE(r.enabled());
  r.Add(5, 1);
  r.Finish();
  EXPECT_EQ(r.bytes_done(), 5u);
  EXPECT_EQ(r.entries_done(), 1u);
}

TEST(ProgressReporterTest, ConcurrentAddsAreAllCountedAndReportsNeverOverlap) {
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::atomic<int> calls{0};
  Progress final_report;
  {
    ProgressReporter r(
        "op",
        [&](const Progress& p) {
          if (inside.fetch_add(1) != 0) overlapped = true;
          calls++;
          if (p.finished) final_report = p;
          std::this_thread::yield();
          inside.fetch_sub(1);
        },
        0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
      threads.emplace_back([&r] {
        for (int i = 0; i < 20000; i++) r.Add(3, 1);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  EXPECT_FALSE(overlapped);
  EXPECT_GT(calls.load(), 1);
  EXPECT_TRUE(final_report.finished);
  EXPECT_EQ(final_report.entries_done, 80000u);
  EXPECT_EQ(final_report.bytes_done, 240000u);
}

TEST(ProgressReporterTest, BatchHandsOverEveryKEntriesAndTheRestOnFlush) {
  std::vector<Progress> reports;
  ProgressReporter r("op", [&](const Progress& p) { reports.push_back(p); }, 0);
  {
    ProgressBatch batch(&r);
    for (uint64_t i = 0; i < ProgressBatch::kEntries - 1; i++) batch.Add(2);
    EXPECT_TRUE(reports.empty());
    batch.Add(2);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].entries_done, ProgressBatch::kEntries);
    batch.Add(7);
  }  // the destructor hands over the last entry
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].entries_done, ProgressBatch::kEntries + 1);
  EXPECT_EQ(reports[1].bytes_done, 2 * ProgressBatch::kEntries + 7);
}

TEST(ProgressReporterTest, NegativeOrNanIntervalIsInvalid) {
  EXPECT_TRUE(ProgressReporter::ValidateInterval(0, "x").ok());
  EXPECT_TRUE(ProgressReporter::ValidateInterval(2.5, "x").ok());
  const Status negative = ProgressReporter::ValidateInterval(-1, "Opt::interval");
  EXPECT_TRUE(negative.IsInvalidArgument());
  EXPECT_NE(negative.ToString().find("Opt::interval"), std::string::npos);
  EXPECT_TRUE(ProgressReporter::ValidateInterval(std::nan(""), "x").IsInvalidArgument());
}

}  // namespace
}  // namespace shale
