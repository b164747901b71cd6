// CompactionDebtTracker (the rate, ETA and sustainable-write-rate arithmetic behind the
// compaction debt properties) and PeriodicTask (the stats dump timer), on their own.
#include "db/compaction_debt.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "db/periodic_task.h"
#include "gtest/gtest.h"

namespace shale {
namespace {

constexpr uint64_t kSec = 1000 * 1000;  // microseconds

TEST(CompactionDebtTrackerTest, NothingMeasuredMeansNoRate) {
  CompactionDebtTracker t;
  EXPECT_EQ(t.Rate(), 0);
  EXPECT_FALSE(t.measured());
  t.SetFallbackRate(5e6);
  EXPECT_DOUBLE_EQ(t.Rate(), 5e6);
  EXPECT_FALSE(t.measured());
}

TEST(CompactionDebtTrackerTest, SerialCompactionsRateIsBytesPerBusySecond) {
  CompactionDebtTracker t;
  t.SetFallbackRate(1);  // ignored once a compaction is measured
  // 100 MB in 2 s, idle 10 s, 50 MB in 1 s: 150 MB over 3 busy seconds.
  uint64_t started = t.CompactionStarted(0);
  t.CompactionFinished(2 * kSec, 100'000'000, started);
  started = t.CompactionStarted(12 * kSec);
  t.CompactionFinished(13 * kSec, 50'000'000, started);
  EXPECT_TRUE(t.measured());
  EXPECT_DOUBLE_EQ(t.Rate(), 50e6);
  EXPECT_DOUBLE_EQ(t.window_busy_seconds(), 3.0);
  EXPECT_EQ(t.window_compactions(), 2u);
  EXPECT_EQ(t.total_input_bytes(), 150'000'000u);
}

TEST(CompactionDebtTrackerTest, ParallelCompactionsAddUp) {
  CompactionDebtTracker t;
  // Two jobs of 40 MB each over the same 4 s: 20 MB/s, not the 10 MB/s of each job.
  const uint64_t a = t.CompactionStarted(0);
  const uint64_t b = t.CompactionStarted(0);
  t.CompactionFinished(4 * kSec, 40'000'000, a);
  EXPECT_EQ(t.running(), 1);
  t.CompactionFinished(4 * kSec, 40'000'000, b);
  EXPECT_EQ(t.running(), 0);
  EXPECT_DOUBLE_EQ(t.Rate(), 20e6);
  // Overlapping, not aligned: [10, 14) and [12, 16) are 6 busy seconds for 60 MB.
  CompactionDebtTracker u;
  const uint64_t c = u.CompactionStarted(10 * kSec);
  const uint64_t d = u.CompactionStarted(12 * kSec);
  u.CompactionFinished(14 * kSec, 30'000'000, c);
  u.CompactionFinished(16 * kSec, 30'000'000, d);
  EXPECT_DOUBLE_EQ(u.Rate(), 10e6);
  EXPECT_DOUBLE_EQ(u.window_busy_seconds(), 6.0);
}

// A long compaction overlapping many short ones counts its whole duration: the window's time
// starts where the oldest compaction in it started, not where the last evicted one ended.
TEST(CompactionDebtTrackerTest, LongCompactionOverlappingShortOnesIsNotOverstated) {
  CompactionDebtTracker t;
  const uint64_t long_job = t.CompactionStarted(0);  // 600 s, 60 GB: 100 MB/s
  for (uint64_t i = 1; i < 60; i++) {                // 1 s each, every 10 s, 1 MB each
    const uint64_t short_job = t.CompactionStarted(i * 10 * kSec - kSec);
    t.CompactionFinished(i * 10 * kSec, 1'000'000, short_job);
  }
  t.CompactionFinished(600 * kSec, 60'000'000'000, long_job);
  EXPECT_NEAR(t.Rate(), 100e6, 10e6) << "window " << t.window_compactions() << " compactions, "
                                     << t.window_busy_seconds() << " s";
}

TEST(CompactionDebtTrackerTest, HugeFiguresStayInRange) {
  uint64_t seconds = 0;
  ASSERT_TRUE(CompactionDebtTracker::SecondsLeft(UINT64_MAX, 0.5, &seconds));
  EXPECT_EQ(seconds, UINT64_MAX);
  EXPECT_LT(CompactionDebtTracker::SustainableWriteRate(1e12, 0, 1, UINT64_MAX),
            18446744073709551616.0);
}

TEST(CompactionDebtTrackerTest, FailedJobsAddTimeButNoBytes) {
  CompactionDebtTracker t;
  uint64_t started = t.CompactionStarted(0);
  t.CompactionFinished(1 * kSec, 10'000'000, started);
  started = t.CompactionStarted(1 * kSec);
  t.CompactionFinished(2 * kSec, 0, started);  // failed or stopped
  started = t.CompactionStarted(2 * kSec);
  t.CompactionFinished(3 * kSec, 20'000'000, started);
  EXPECT_DOUBLE_EQ(t.Rate(), 10e6);  // 30 MB over 3 busy seconds
  EXPECT_EQ(t.window_compactions(), 2u);
}

TEST(CompactionDebtTrackerTest, WindowKeepsTheRecentCompactions) {
  CompactionDebtTracker t;
  uint64_t now = 0;
  auto run = [&](uint64_t micros, uint64_t bytes) {
    const uint64_t started = t.CompactionStarted(now);
    now += micros;
    t.CompactionFinished(now, bytes, started);
  };
  // Old, slow compactions (1 MB/s), then 70 s of fast ones (10 MB/s): the window is the last
  // 60 busy seconds, all fast.
  for (int i = 0; i < 10; i++) run(kSec, 1'000'000);
  EXPECT_DOUBLE_EQ(t.Rate(), 1e6);  // less than a window so far: all of it
  for (int i = 0; i < 70; i++) run(kSec, 10'000'000);
  EXPECT_EQ(t.window_compactions(), 60u);
  EXPECT_DOUBLE_EQ(t.window_busy_seconds(), 60.0);
  EXPECT_DOUBLE_EQ(t.Rate(), 10e6);
  // Many tiny compactions: the window holds at most kMaxWindowCompactions.
  for (int i = 0; i < 2000; i++) run(1000, 1000);
  EXPECT_EQ(t.window_compactions(), CompactionDebtTracker::kMaxWindowCompactions);
  // One compaction longer than the window pushes every older one out but stays.
  run(100 * kSec, 50'000'000);
  EXPECT_EQ(t.window_compactions(), 1u);
  EXPECT_DOUBLE_EQ(t.Rate(), 0.5e6);
}

TEST(CompactionDebtTrackerTest, SecondsLeft) {
  uint64_t s = 99;
  EXPECT_TRUE(CompactionDebtTracker::SecondsLeft(0, 0, &s));
  EXPECT_EQ(s, 0u);
  EXPECT_FALSE(CompactionDebtTracker::SecondsLeft(1, 0, &s));
  EXPECT_TRUE(CompactionDebtTracker::SecondsLeft(100'000'000, 10e6, &s));
  EXPECT_EQ(s, 10u);
  EXPECT_TRUE(CompactionDebtTracker::SecondsLeft(100'000'001, 10e6, &s));
  EXPECT_EQ(s, 11u);  // rounded up: some work left is never "0 s left"
}

TEST(CompactionDebtTrackerTest, SustainableWriteRate) {
  // 1 GB written by users has caused 8 GB of compaction input (6 done, 2 owed): at 80 MB/s of
  // compaction, users can write 10 MB/s without the debt growing.
  EXPECT_DOUBLE_EQ(CompactionDebtTracker::SustainableWriteRate(80e6, 6'000'000'000,
                                                               2'000'000'000, 1'000'000'000),
                   10e6);
  EXPECT_EQ(CompactionDebtTracker::SustainableWriteRate(0, 1, 1, 1), 0);
  EXPECT_EQ(CompactionDebtTracker::SustainableWriteRate(1e6, 1, 1, 0), 0);
  EXPECT_EQ(CompactionDebtTracker::SustainableWriteRate(1e6, 0, 0, 100), 0);
}

TEST(PeriodicTaskTest, RunsEveryPeriodAndStopsPromptly) {
  std::atomic<int> runs{0};
  PeriodicTask task(std::chrono::milliseconds(20), [&runs] { runs++; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (runs.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(runs.load(), 3);
  task.Stop();
  const int after = runs.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(runs.load(), after) << "ran after Stop";
  task.Stop();  // again: a no-op
}

TEST(PeriodicTaskTest, StopDoesNotWaitForThePeriod) {
  std::atomic<int> runs{0};
  PeriodicTask task(std::chrono::hours(1), [&runs] { runs++; });
  const auto start = std::chrono::steady_clock::now();
  task.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(runs.load(), 0);
}

}  // namespace
}  // namespace shale
