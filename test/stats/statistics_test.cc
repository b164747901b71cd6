// Statistics: tickers and histograms, alone and under concurrent updates from many threads.
#include "shale/statistics.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr int kThreads = 8;

TEST(StatisticsTest, StartsAtZero) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  for (uint32_t t = 0; t < TICKER_ENUM_MAX; ++t) EXPECT_EQ(stats->getTickerCount(t), 0u);
  for (uint32_t h = 0; h < HISTOGRAM_ENUM_MAX; ++h) {
    HistogramData d;
    d.count = 99;
    stats->histogramData(h, &d);
    EXPECT_EQ(d.count, 0u);
    EXPECT_EQ(d.sum, 0u);
    EXPECT_EQ(d.max, 0);
    EXPECT_EQ(d.median, 0);
  }
}

TEST(StatisticsTest, TickersCountAndReset) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  stats->recordTick(BYTES_WRITTEN, 100);
  stats->recordTick(BYTES_WRITTEN);
  stats->recordTick(BLOCK_CACHE_HIT, 7);
  EXPECT_EQ(stats->getTickerCount(BYTES_WRITTEN), 101u);
  EXPECT_EQ(stats->getTickerCount(BLOCK_CACHE_HIT), 7u);
  EXPECT_EQ(stats->getTickerCount(BLOCK_CACHE_MISS), 0u);

  EXPECT_EQ(stats->getAndResetTickerCount(BYTES_WRITTEN), 101u);
  EXPECT_EQ(stats->getTickerCount(BYTES_WRITTEN), 0u);
  EXPECT_EQ(stats->getTickerCount(BLOCK_CACHE_HIT), 7u);

  stats->measureTime(DB_GET, 5);
  ASSERT_OK(stats->Reset());
  EXPECT_EQ(stats->getTickerCount(BLOCK_CACHE_HIT), 0u);
  HistogramData d;
  stats->histogramData(DB_GET, &d);
  EXPECT_EQ(d.count, 0u);
}

TEST(StatisticsTest, UnknownIdsAreIgnored) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  stats->recordTick(TICKER_ENUM_MAX, 5);
  stats->recordTick(1u << 30, 5);
  stats->measureTime(HISTOGRAM_ENUM_MAX, 5);
  EXPECT_EQ(stats->getTickerCount(TICKER_ENUM_MAX), 0u);
  EXPECT_EQ(stats->getAndResetTickerCount(TICKER_ENUM_MAX), 0u);
  HistogramData d;
  stats->histogramData(HISTOGRAM_ENUM_MAX, &d);
  EXPECT_EQ(d.count, 0u);
  for (uint32_t t = 0; t < TICKER_ENUM_MAX; ++t) EXPECT_EQ(stats->getTickerCount(t), 0u);
  EXPECT_TRUE(TickerName(TICKER_ENUM_MAX).empty());
  EXPECT_TRUE(HistogramName(HISTOGRAM_ENUM_MAX).empty());
}

TEST(StatisticsTest, HistogramSummary) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  // 1..1000: median ~500, p99 ~990, max 1000, sum 500500.
  for (uint64_t v = 1; v <= 1000; ++v) stats->measureTime(DB_WRITE, v);
  HistogramData d;
  stats->histogramData(DB_WRITE, &d);
  EXPECT_EQ(d.count, 1000u);
  EXPECT_EQ(d.sum, 500500u);
  EXPECT_DOUBLE_EQ(d.average, 500.5);
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 1000);
  EXPECT_NEAR(d.median, 500, 500 * 0.04);
  EXPECT_NEAR(d.percentile95, 950, 950 * 0.04);
  EXPECT_NEAR(d.percentile99, 990, 990 * 0.04);
  EXPECT_NEAR(d.percentile999, 999, 999 * 0.04);
  EXPECT_NEAR(d.standard_deviation, 288.67, 0.5);
  EXPECT_LE(d.median, d.percentile95);
  EXPECT_LE(d.percentile95, d.percentile99);
  EXPECT_LE(d.percentile99, d.percentile999);
  EXPECT_LE(d.percentile999, d.max);

  // The other histograms are untouched.
  stats->histogramData(DB_GET, &d);
  EXPECT_EQ(d.count, 0u);
}

TEST(StatisticsTest, NamesAreUniqueAndPrefixed) {
  std::set<std::string_view> names;
  for (uint32_t t = 0; t < TICKER_ENUM_MAX; ++t) {
    EXPECT_EQ(TickerName(t).substr(0, 6), "shale.") << t;
    EXPECT_TRUE(names.insert(TickerName(t)).second) << TickerName(t);
  }
  for (uint32_t h = 0; h < HISTOGRAM_ENUM_MAX; ++h) {
    EXPECT_EQ(HistogramName(h).substr(0, 6), "shale.") << h;
    EXPECT_TRUE(names.insert(HistogramName(h)).second) << HistogramName(h);
  }
  EXPECT_EQ(TickerName(BLOCK_CACHE_HIT), "shale.block.cache.hit");
  EXPECT_EQ(HistogramName(DB_GET), "shale.db.get.micros");
}

TEST(StatisticsTest, ToStringListsEverything) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  stats->recordTick(STALL_L0_STOP_COUNT, 3);
  stats->measureTime(FLUSH_TIME, 42);
  const std::string s = stats->ToString();
  for (uint32_t t = 0; t < TICKER_ENUM_MAX; ++t) {
    EXPECT_NE(s.find(std::string(TickerName(t)) + " COUNT : "), std::string::npos) << t;
  }
  for (uint32_t h = 0; h < HISTOGRAM_ENUM_MAX; ++h) {
    EXPECT_NE(s.find(std::string(HistogramName(h)) + " P50 : "), std::string::npos) << h;
  }
  EXPECT_NE(s.find("shale.stall.l0.stop.count COUNT : 3\n"), std::string::npos) << s;
  EXPECT_NE(stats->getHistogramString(FLUSH_TIME).find("COUNT : 1 SUM : 42"),
            std::string::npos)
      << stats->getHistogramString(FLUSH_TIME);
}

TEST(StatisticsTest, StatsLevelIsSettable) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  EXPECT_EQ(stats->get_stats_level(), kExceptDetailedTimers);
  stats->set_stats_level(kAll);
  EXPECT_EQ(stats->get_stats_level(), kAll);
}

TEST(StatisticsTest, ConcurrentUpdatesAreAllCounted) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  constexpr int kPerThread = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&stats, t] {
      for (int i = 0; i < kPerThread; ++i) {
        stats->recordTick(NUMBER_KEYS_WRITTEN);
        stats->recordTick(BYTES_WRITTEN, 10);
        if (i % 10 == 0) stats->measureTime(DB_WRITE, static_cast<uint64_t>(t * 1000 + i % 7));
        if (i % 1000 == 0) std::this_thread::yield();  // move between cores
      }
    });
  }
  // Readers run alongside: totals only grow.
  uint64_t last = 0;
  while (last < uint64_t{kThreads} * kPerThread) {
    const uint64_t now = stats->getTickerCount(NUMBER_KEYS_WRITTEN);
    ASSERT_GE(now, last);
    last = now;
    HistogramData d;
    stats->histogramData(DB_WRITE, &d);
  }
  for (std::thread& th : threads) th.join();

  EXPECT_EQ(stats->getTickerCount(NUMBER_KEYS_WRITTEN), uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(stats->getTickerCount(BYTES_WRITTEN), uint64_t{kThreads} * kPerThread * 10);
  HistogramData d;
  stats->histogramData(DB_WRITE, &d);
  EXPECT_EQ(d.count, uint64_t{kThreads} * kPerThread / 10);
  uint64_t expected_sum = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; i += 10) expected_sum += t * 1000 + i % 7;
  }
  EXPECT_EQ(d.sum, expected_sum);
  EXPECT_EQ(d.min, 0);
  EXPECT_EQ(d.max, (kThreads - 1) * 1000 + 6);
}

TEST(StatisticsTest, GetAndResetLosesNothingUnderConcurrency) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  constexpr int kPerThread = 100000;
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) stats->recordTick(WAL_FILE_BYTES, 3);
      running.fetch_sub(1);
    });
  }
  uint64_t drained = 0;
  while (running.load() > 0) drained += stats->getAndResetTickerCount(WAL_FILE_BYTES);
  for (std::thread& th : threads) th.join();
  drained += stats->getAndResetTickerCount(WAL_FILE_BYTES);
  EXPECT_EQ(drained, uint64_t{kThreads} * kPerThread * 3);
  EXPECT_EQ(stats->getTickerCount(WAL_FILE_BYTES), 0u);
}

TEST(StatisticsTest, SharedBetweenOwners) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  std::shared_ptr<Statistics> other = stats;
  other->recordTick(NO_FILE_OPENS, 2);
  EXPECT_EQ(stats->getTickerCount(NO_FILE_OPENS), 2u);
  // A second object is independent.
  EXPECT_EQ(CreateDBStatistics()->getTickerCount(NO_FILE_OPENS), 0u);
}

}  // namespace
}  // namespace shale
