// shale_bench's parts that watch a DB or a clock: the --report_file CSV (db_bench's format),
// the write tickers measured by difference, the files-per-level summary and the
// waitforcompaction step, on an in-memory DB.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "admin_steps.h"
#include "db_counters.h"
#include "gtest/gtest.h"
#include "interval_sampler.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/statistics.h"
#include "testutil/status_matchers.h"

namespace shale::bench {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream out;
  out << f.rdbuf();
  return out.str();
}

std::string TempPath(const std::string& name) {
  return "/tmp/shale_bench_test_" + std::to_string(getpid()) + "_" + name;
}

// The total of a FilesPerLevel string's counts ("L0:2 L1:0 L2:1" -> 3).
int TotalFiles(const std::string& per_level) {
  int total = 0;
  std::istringstream in(per_level);
  std::string item;
  while (in >> item) total += std::stoi(item.substr(item.find(':') + 1));
  return total;
}

TEST(IntervalSamplerTest, WritesDbBenchCsvAndRewritesItPerBenchmark) {
  const std::string path = TempPath("sampler.csv");
  IntervalSampler sampler(1, path);
  ASSERT_OK(sampler.Start());
  sampler.counter()->fetch_add(1234);
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  sampler.counter()->fetch_add(99);  // in the partial interval: not written
  std::vector<ThroughputSample> samples = sampler.Stop();
  // The header, then the rounded seconds since the start and the count of the interval.
  EXPECT_EQ(ReadFile(path), "secs_elapsed,interval_qps\n1,1234\n");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_NEAR(samples[0].seconds, 1.0, 0.2);
  EXPECT_NEAR(samples[0].ops_per_sec, 1234, 1234 * 0.2);

  // The next benchmark starts the file again, and counts from zero.
  ASSERT_OK(sampler.Start());
  EXPECT_EQ(ReadFile(path), "secs_elapsed,interval_qps\n");
  EXPECT_EQ(sampler.counter()->load(), 0u);
  EXPECT_TRUE(sampler.Stop().empty());
  std::remove(path.c_str());
}

TEST(IntervalSamplerTest, UnwritableFileIsAnErrorNamingIt) {
  IntervalSampler sampler(1, "/nonexistent-dir/report.csv");
  const Status s = sampler.Start();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("/nonexistent-dir/report.csv"), std::string::npos);
}

TEST(TickersTest, WriteAmplificationIsMeasuredByDifference) {
  std::shared_ptr<Statistics> stats = CreateDBStatistics();
  stats->recordTick(BYTES_WRITTEN, 500);
  stats->recordTick(FLUSH_WRITE_BYTES, 400);
  const TickerSnapshot before = TickerSnapshot::Take(stats.get());
  stats->recordTick(BYTES_WRITTEN, 1000);
  stats->recordTick(FLUSH_WRITE_BYTES, 900);
  stats->recordTick(COMPACT_WRITE_BYTES, 600);
  stats->recordTick(STALL_MICROS, 250000);
  BenchResult r;
  ApplyTickers(before, TickerSnapshot::Take(stats.get()), &r);
  EXPECT_DOUBLE_EQ(r.write_amplification, 1.5);
  EXPECT_DOUBLE_EQ(r.stall_seconds, 0.25);
  // Nothing written: no amplification rather than a division by zero.
  BenchResult none;
  ApplyTickers(TickerSnapshot::Take(nullptr), TickerSnapshot::Take(nullptr), &none);
  EXPECT_EQ(none.write_amplification, 0);
}

class MemDbTest : public testing::Test {
 protected:
  void SetUp() override {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.num_levels = 4;
    ASSERT_OK(DB::Open(options_, "/db", &db_));
  }
  void TearDown() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }
  void PutAndFlush(int first, int count) {
    for (int i = first; i < first + count; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), "key" + std::to_string(i), "value"));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }

  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(MemDbTest, FilesPerLevelStopsAtTheDeepestNonEmptyLevel) {
  EXPECT_EQ(FilesPerLevel(db_.get()), "L0:0");
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "true"}}));  // both flushes stay
  PutAndFlush(0, 10);
  PutAndFlush(5, 10);
  // Where the flushes land is the engine's choice; each level is listed, and both are counted.
  const std::string two_flushes = FilesPerLevel(db_.get());
  EXPECT_TRUE(std::regex_match(two_flushes, std::regex("L0:\\d+( L[1-3]:\\d+)*")))
      << two_flushes;
  EXPECT_EQ(TotalFiles(two_flushes), 2) << two_flushes;
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForceOptimized;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  EXPECT_EQ(FilesPerLevel(db_.get()), "L0:0 L1:0 L2:0 L3:1");
}

TEST_F(MemDbTest, WaitForCompactionFlushesAndReturnsWhenNothingIsDue) {
  for (int round = 0; round < 6; round++) PutAndFlush(round * 100, 100);
  ASSERT_OK(db_->Put(WriteOptions(), "in-the-memtable", "v"));
  testing::internal::CaptureStdout();
  ASSERT_OK(WaitForCompactionStep(db_.get(), {}, "/db"));
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("waitforcompaction(/db): started\n"), std::string::npos) << out;
  EXPECT_NE(out.find("waitforcompaction(/db): waited "), std::string::npos) << out;
  EXPECT_NE(out.find(" (done at unix time "), std::string::npos) << out;
  EXPECT_NE(out.find("waitforcompaction(/db): finished\n"), std::string::npos) << out;
  uint64_t pending = 1, running = 1;
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kCompactionPending, &pending));
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningCompactions, &running));
  EXPECT_EQ(pending, 0u);
  EXPECT_EQ(running, 0u);
  // The memtable's key was flushed, and the L0 trigger (4) is no longer reached.
  uint64_t l0 = 0;
  ASSERT_TRUE(db_->GetIntProperty(std::string(DB::Properties::kNumFilesAtLevelPrefix) + "0", &l0));
  EXPECT_LT(l0, 4u);
  std::string tables;
  ASSERT_TRUE(db_->GetProperty(DB::Properties::kSSTables, &tables));
  EXPECT_NE(tables.find("in-the-memtable"), std::string::npos) << tables;
}

}  // namespace
}  // namespace shale::bench
