// Compaction debt you can read (issue 25, part 3): the debt properties
// (shale.estimate-pending-compaction-bytes, shale.compaction-rate,
// shale.estimate-compaction-seconds-left, shale.sustainable-write-rate), RocksDB's names of
// the properties ("rocksdb.*"), and Options::stats_dump_period_sec (the stats written to the
// info LOG every period; Close does not wait out the period).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using P = DB::Properties;
constexpr char kDb[] = "/db";

class DBCompactionDebtTest : public testing::Test {
 protected:
  DBCompactionDebtTest() {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.write_buffer_size = 4 << 20;  // each WriteFiles file is one flush
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  uint64_t Int(std::string_view property) {
    uint64_t v = 0;
    EXPECT_TRUE(db_->GetIntProperty(property, &v)) << property;
    return v;
  }
  // Writes `files` flushed files of `keys` keys each, all over the same key range.
  void WriteFiles(int files, int keys) {
    for (int f = 0; f < files; f++) {
      for (int k = 0; k < keys; k++) {
        char key[32];
        std::snprintf(key, sizeof(key), "key%06d", k);
        ASSERT_OK(db_->Put(WriteOptions(), key, std::string(100, static_cast<char>('a' + f))));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
  }
  std::string Log() {
    std::string log;
    EXPECT_OK(ReadFileToString(fs_.get(), std::string(kDb) + "/LOG", &log));
    return log;
  }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBCompactionDebtTest, IdleCompactedDbOwesNothing) {
  Open();
  WriteFiles(3, 2000);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Int(P::kEstimatePendingCompactionBytes), 0u);
  EXPECT_EQ(Int(P::kEstimateCompactionSecondsLeft), 0u);
  // CompactRange's compaction was timed: the rate is measured and, with user bytes written
  // and compaction done, so is the sustainable write rate.
  EXPECT_GT(Int(P::kCompactionRate), 0u);
  EXPECT_GT(Int(P::kSustainableWriteRate), 0u);
  std::string text;
  ASSERT_TRUE(db_->GetProperty(P::kEstimateCompactionSecondsLeft, &text));
  EXPECT_EQ(text, "0");
  ASSERT_TRUE(db_->GetProperty(P::kStats, &text));
  EXPECT_NE(text.find("Compaction debt: 0.00 MB pending"), std::string::npos) << text;
}

TEST_F(DBCompactionDebtTest, L0BacklogHasPendingBytesAndSecondsLeft) {
  options_.disable_auto_compactions = true;
  options_.level0_file_num_compaction_trigger = 2;
  Open();
  // Nothing flushed or compacted yet: no rate, nothing owed.
  EXPECT_EQ(Int(P::kCompactionRate), 0u);
  EXPECT_EQ(Int(P::kEstimateCompactionSecondsLeft), 0u);
  WriteFiles(8, 2000);
  // The first flush lands in the bottom level (it overlaps nothing); the others pile in L0.
  ASSERT_EQ(Int("shale.num-files-at-level0"), 7u);
  const uint64_t pending = Int(P::kEstimatePendingCompactionBytes);
  EXPECT_GT(pending, 8u * 100 * 2000 / 4);  // the L0 bytes (compressible values: a quarter)
  // No compaction ran: the flush throughput stands in for the rate.
  const uint64_t rate = Int(P::kCompactionRate);
  ASSERT_GT(rate, 0u);
  const uint64_t left = Int(P::kEstimateCompactionSecondsLeft);
  EXPECT_GE(left, 1u);
  EXPECT_EQ(left, (pending + rate - 1) / rate) << pending << " bytes at " << rate << " B/s";
  // Every user byte so far owes about one byte of compaction input (L0 into the base level):
  // users could write at about the (stand-in) rate.
  const uint64_t sustainable = Int(P::kSustainableWriteRate);
  EXPECT_GT(sustainable, rate / 4);
  EXPECT_LT(sustainable, rate * 2);
  std::string stats;
  ASSERT_TRUE(db_->GetProperty(P::kStats, &stats));
  EXPECT_NE(stats.find("flush rate: no compaction timed yet"), std::string::npos) << stats;

  // Compacting pays the debt and measures the rate.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Int(P::kEstimatePendingCompactionBytes), 0u);
  EXPECT_EQ(Int(P::kEstimateCompactionSecondsLeft), 0u);
  ASSERT_TRUE(db_->GetProperty(P::kStats, &stats));
  EXPECT_NE(stats.find("(last 1 compactions"), std::string::npos) << stats;
}

TEST_F(DBCompactionDebtTest, DebtWithoutAnyRateIsUnknown) {
  options_.disable_auto_compactions = true;
  options_.level0_file_num_compaction_trigger = 2;
  Open();
  WriteFiles(4, 1000);
  ASSERT_OK(db_->Close());
  db_.reset();
  Open();  // a new DB object: nothing flushed or compacted since Open
  EXPECT_GT(Int(P::kEstimatePendingCompactionBytes), 0u);
  EXPECT_EQ(Int(P::kCompactionRate), 0u);
  uint64_t v = 0;
  EXPECT_FALSE(db_->GetIntProperty(P::kEstimateCompactionSecondsLeft, &v));
  std::string text;
  EXPECT_FALSE(db_->GetProperty(P::kEstimateCompactionSecondsLeft, &text));
  ASSERT_TRUE(db_->GetProperty(P::kStats, &text));
  EXPECT_NE(text.find("compaction rate unknown, unknown s left"), std::string::npos) << text;
}

TEST_F(DBCompactionDebtTest, RocksDbNamesReadTheSameProperties) {
  options_.disable_auto_compactions = true;
  Open();
  WriteFiles(3, 500);
  for (std::string_view name :
       {"num-files-at-level0", "cur-size-all-mem-tables", "size-all-mem-tables",
        "estimate-num-keys", "num-running-compactions",
        "num-running-flushes", "estimate-pending-compaction-bytes", "actual-delayed-write-rate",
        "is-write-stopped", "block-cache-usage", "block-cache-pinned-usage",
        "block-cache-capacity", "estimate-table-readers-mem", "background-errors"}) {
    SCOPED_TRACE(name);
    uint64_t shale_value = 0, rocksdb_value = 0;
    ASSERT_TRUE(db_->GetIntProperty("shale." + std::string(name), &shale_value));
    ASSERT_TRUE(db_->GetIntProperty("rocksdb." + std::string(name), &rocksdb_value));
    EXPECT_EQ(rocksdb_value, shale_value);
    std::string text;
    ASSERT_TRUE(db_->GetProperty("rocksdb." + std::string(name), &text));
    EXPECT_EQ(text, std::to_string(shale_value));
  }
  EXPECT_EQ(Int("rocksdb.num-files-at-level0"), 2u);  // the first flush went to the bottom
  // RocksDB's compaction-pending means something else (it ignores disable_auto_compactions).
  uint64_t unused = 0;
  EXPECT_FALSE(db_->GetIntProperty("rocksdb.compaction-pending", &unused));
  for (std::string_view name : {"stats", "levelstats", "sstables"}) {
    std::string text;
    EXPECT_TRUE(db_->GetProperty("rocksdb." + std::string(name), &text)) << name;
    EXPECT_FALSE(text.empty()) << name;
  }
  // Only RocksDB's names: ShaleDB's own properties and unknown names have no rocksdb. form.
  std::string text;
  uint64_t v;
  EXPECT_FALSE(db_->GetProperty("rocksdb.memtable-allocator", &text));
  EXPECT_FALSE(db_->GetIntProperty("rocksdb.estimate-compaction-seconds-left", &v));
  EXPECT_FALSE(db_->GetIntProperty("rocksdb.no-such-property", &v));
  EXPECT_FALSE(db_->GetIntProperty("rocksdb.num-files-at-level99", &v));
  EXPECT_FALSE(db_->GetIntProperty("rocksdb.", &v));
}

TEST_F(DBCompactionDebtTest, StatsAreDumpedToTheLogEveryPeriod) {
  options_.stats_dump_period_sec = 1;
  Open();
  WriteFiles(2, 100);
  // Two dumps: wait until the LOG has them (about 2 s), at most 30 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  size_t dumps = 0;
  std::string log;
  while (std::chrono::steady_clock::now() < deadline) {
    log = Log();
    dumps = 0;
    for (size_t at = log.find("DUMPING STATS"); at != std::string::npos;
         at = log.find("DUMPING STATS", at + 1)) {
      dumps++;
    }
    if (dumps >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GE(dumps, 2u) << log;
  EXPECT_NE(log.find("** DB Stats **"), std::string::npos) << log;
  EXPECT_NE(log.find("Compaction debt: "), std::string::npos) << log;
  EXPECT_NE(log.find("** Compaction **"), std::string::npos) << log;
  ASSERT_OK(db_->Close());
}

// The dump runs on its own thread while writers, flushes and compactions go on (a race here
// is for TSan to find), and then shows a measured compaction rate.
TEST_F(DBCompactionDebtTest, DumpRunsAlongsideWritesAndCompactions) {
  options_.stats_dump_period_sec = 1;
  options_.write_buffer_size = 64 << 10;
  options_.level0_file_num_compaction_trigger = 2;
  options_.max_bytes_for_level_base = 256 << 10;
  options_.target_file_size_base = 64 << 10;
  Open();
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
  uint64_t i = 0;
  while (std::chrono::steady_clock::now() < end) {
    char key[32];
    std::snprintf(key, sizeof(key), "key%06d", static_cast<int>((i++ * 7919) % 20000));
    ASSERT_OK(db_->Put(WriteOptions(), key, std::string(100, 'v')));
    if (i % 1000 == 0) {
      uint64_t v;
      (void)db_->GetIntProperty(P::kEstimateCompactionSecondsLeft, &v);
      EXPECT_TRUE(db_->GetIntProperty(P::kSustainableWriteRate, &v));
    }
  }
  ASSERT_OK(db_->Close());
  const std::string log = Log();
  EXPECT_NE(log.find("DUMPING STATS"), std::string::npos) << log;
  EXPECT_NE(log.find(" compactions, "), std::string::npos) << "no measured rate in a dump";
}

TEST_F(DBCompactionDebtTest, CloseDoesNotWaitForTheDumpPeriod) {
  options_.stats_dump_period_sec = 3600;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK(db_->Close());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(Log().find("DUMPING STATS"), std::string::npos);
  db_.reset();
  // The destructor alone closes just as promptly.
  Open();
  const auto start2 = std::chrono::steady_clock::now();
  db_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start2, std::chrono::seconds(10));
}

TEST_F(DBCompactionDebtTest, NoDumpWhenDisabled) {
  options_.stats_dump_period_sec = 0;
  Open();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_OK(db_->Close());
  EXPECT_EQ(Log().find("DUMPING STATS"), std::string::npos);
}

TEST_F(DBCompactionDebtTest, NegativeDumpPeriodIsRefused) {
  options_.stats_dump_period_sec = -1;
  Status s = DB::Open(options_, kDb, &db_);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("stats_dump_period_sec"), std::string::npos) << s.ToString();
  Options parsed;
  ASSERT_OK(GetOptionsFromString(Options(), "stats_dump_period_sec=5", &parsed));
  EXPECT_EQ(parsed.stats_dump_period_sec, 5);
  EXPECT_NE(GetStringFromOptions(parsed).find("stats_dump_period_sec=5"), std::string::npos);
}

}  // namespace
}  // namespace shale
