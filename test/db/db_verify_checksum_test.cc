// DB::VerifyChecksum: a clean DB verifies with progress growing to the live files' total and
// one final report; a damaged data block is Corruption naming the file; a bad progress
// interval is InvalidArgument; after Close the call is refused.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/progress.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr char kDBName[] = "/verifydb";

class DBVerifyChecksumTest : public ::testing::Test {
 protected:
  DBVerifyChecksumTest() {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    // Fill leaves a key in the memtable, not in a table the tests count: Close keeps it there.
    options_.avoid_flush_during_shutdown = true;
  }

  void Open() { ASSERT_OK(DB::Open(options_, kDBName, &db_)); }
  void Close() {
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
  }
  // `tables` flushed table files of 100 keys each, and a key left in the memtable.
  void Fill(int tables) {
    for (int t = 0; t < tables; t++) {
      for (int j = 0; j < 100; j++) {
        ASSERT_OK(db_->Put(WriteOptions(), std::to_string(t) + "-" + std::to_string(j),
                           std::string(200, 'v')));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    ASSERT_OK(db_->Put(WriteOptions(), "in-memtable", "yes"));
  }
  // The DB's table files: their paths and total size.
  std::vector<std::string> Tables(uint64_t* total_bytes) {
    std::vector<std::string> children, result;
    EXPECT_OK(fs_->GetChildren(kDBName, &children));
    *total_bytes = 0;
    for (const std::string& name : children) {
      uint64_t number;
      FileType type;
      if (ParseFileName(name, &number, &type) && type == FileType::kTableFile) {
        result.push_back(std::string(kDBName) + "/" + name);
        uint64_t size = 0;
        EXPECT_OK(fs_->GetFileSize(result.back(), &size));
        *total_bytes += size;
      }
    }
    return result;
  }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBVerifyChecksumTest, CleanDBVerifiesWithProgress) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(4));
  uint64_t total_bytes = 0;
  ASSERT_EQ(Tables(&total_bytes).size(), 4u);

  EXPECT_OK(db_->VerifyChecksum(ReadOptions()));

  std::vector<Progress> reports;
  VerifyChecksumOptions options;
  options.progress = [&](const Progress& p) { reports.push_back(p); };
  options.progress_interval_seconds = 0;  // a report after every file
  ASSERT_OK(db_->VerifyChecksum(options));
  ASSERT_GE(reports.size(), 2u);
  int finished = 0;
  uint64_t last_bytes = 0, last_files = 0;
  for (const Progress& p : reports) {
    EXPECT_STREQ(p.operation, "verify");
    EXPECT_EQ(p.bytes_total, total_bytes);
    EXPECT_EQ(p.entries_total, 4u);
    EXPECT_GE(p.bytes_done, last_bytes);
    EXPECT_GE(p.entries_done, last_files);
    last_bytes = p.bytes_done;
    last_files = p.entries_done;
    if (p.finished) finished++;
  }
  EXPECT_EQ(finished, 1);
  EXPECT_TRUE(reports.back().finished);
  EXPECT_EQ(reports.back().bytes_done, total_bytes);
  EXPECT_EQ(reports.back().entries_done, 4u);
  EXPECT_EQ(reports.back().fraction(), 1.0);

  // Only the final report with an infinite interval.
  reports.clear();
  options.progress_interval_seconds = std::numeric_limits<double>::infinity();
  ASSERT_OK(db_->VerifyChecksum(options));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].finished);
  ASSERT_NO_FATAL_FAILURE(Close());
}

TEST_F(DBVerifyChecksumTest, EmptyDBVerifies) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::vector<Progress> reports;
  VerifyChecksumOptions options;
  options.progress = [&](const Progress& p) { reports.push_back(p); };
  EXPECT_OK(db_->VerifyChecksum(options));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].finished);
  EXPECT_EQ(reports[0].entries_total, 0u);
  ASSERT_NO_FATAL_FAILURE(Close());
}

TEST_F(DBVerifyChecksumTest, DamagedDataBlockIsCorruptionNamingTheFile) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(3));
  ASSERT_NO_FATAL_FAILURE(Close());
  uint64_t total_bytes = 0;
  const std::vector<std::string> tables = Tables(&total_bytes);
  ASSERT_EQ(tables.size(), 3u);
  // A byte of the first data block (the file starts with it), size unchanged.
  const std::string& damaged = tables[1];
  std::string data;
  ASSERT_OK(ReadFileToString(fs_.get(), damaged, &data));
  data[10] ^= 0x21;
  ASSERT_OK(WriteStringToFile(fs_.get(), data, damaged, /*sync=*/true));

  ASSERT_NO_FATAL_FAILURE(Open());
  std::vector<Progress> reports;
  VerifyChecksumOptions options;
  options.progress = [&](const Progress& p) { reports.push_back(p); };
  const Status s = db_->VerifyChecksum(options);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  const std::string name = damaged.substr(damaged.rfind('/') + 1);
  EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  // The failed call still ends with one final report, short of the total.
  ASSERT_FALSE(reports.empty());
  EXPECT_TRUE(reports.back().finished);
  EXPECT_LT(reports.back().entries_done, 3u);

  const Status r = db_->VerifyChecksum(ReadOptions());
  EXPECT_TRUE(r.IsCorruption()) << r.ToString();
  ASSERT_NO_FATAL_FAILURE(Close());
}

TEST_F(DBVerifyChecksumTest, BadIntervalIsInvalidArgument) {
  ASSERT_NO_FATAL_FAILURE(Open());
  int calls = 0;
  VerifyChecksumOptions options;
  options.progress = [&](const Progress&) { calls++; };
  for (double interval : {-1.0, std::nan("")}) {
    options.progress_interval_seconds = interval;
    const Status s = db_->VerifyChecksum(options);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("progress_interval_seconds"), std::string::npos) << s.ToString();
  }
  EXPECT_EQ(calls, 0);  // refused before it starts: no report
  ASSERT_NO_FATAL_FAILURE(Close());
}

TEST_F(DBVerifyChecksumTest, AfterCloseIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(1));
  ASSERT_OK(db_->Close());
  int calls = 0;
  VerifyChecksumOptions options;
  options.progress = [&](const Progress&) { calls++; };
  Status s = db_->VerifyChecksum(options);
  EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
  EXPECT_NE(s.ToString().find("closed"), std::string::npos) << s.ToString();
  s = db_->VerifyChecksum(ReadOptions());
  EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
  EXPECT_EQ(calls, 0);
  db_.reset();
}

// The files of the Version being verified stay readable while compactions replace them.
TEST_F(DBVerifyChecksumTest, VerifiesWhileCompacting) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(6));
  std::vector<Progress> reports;
  VerifyChecksumOptions options;
  bool compacted = false;
  options.progress_interval_seconds = 0;
  options.progress = [&](const Progress& p) { reports.push_back(p); };
  // CompactRange and VerifyChecksum from two threads; both must succeed.
  Status compact;
  std::thread t([&] {
    compact = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    compacted = true;
  });
  const Status s = db_->VerifyChecksum(options);
  t.join();
  EXPECT_OK(s);
  EXPECT_OK(compact);
  EXPECT_TRUE(compacted);
  EXPECT_OK(db_->VerifyChecksum(ReadOptions()));
  ASSERT_NO_FATAL_FAILURE(Close());
}

// The Version being verified is pinned: a compaction that replaces its files between two files
// of the verification (run from the progress callback, which comes after each file, on
// another thread that the callback waits for) does not delete them under it.
TEST_F(DBVerifyChecksumTest, FilesReplacedMeanwhileStayReadable) {
  options_.disable_auto_compactions = true;
  ASSERT_NO_FATAL_FAILURE(Open());
  // Four tables over the same keys, so that the compaction rewrites them all (no trivial move).
  for (int t = 0; t < 4; t++) {
    for (int j = 0; j < 100; j++) {
      ASSERT_OK(db_->Put(WriteOptions(), std::to_string(j), std::string(200, 'a' + t)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  uint64_t total_bytes = 0;
  const std::vector<std::string> before = Tables(&total_bytes);
  ASSERT_EQ(before.size(), 4u);
  Status compact = Status::Incomplete("not run");
  VerifyChecksumOptions options;
  options.progress_interval_seconds = 0;
  options.progress = [&](const Progress& p) {
    if (p.finished || p.entries_done != 1) return;
    CompactRangeOptions everything;
    everything.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    std::thread t([&] { compact = db_->CompactRange(everything, nullptr, nullptr); });
    t.join();
  };
  EXPECT_OK(db_->VerifyChecksum(options));
  ASSERT_OK(compact);
  // The compaction replaced every file; once the verification let go, they were deleted.
  const std::vector<std::string> after = Tables(&total_bytes);
  for (const std::string& path : before) {
    EXPECT_EQ(std::find(after.begin(), after.end(), path), after.end()) << path;
  }
  EXPECT_OK(db_->VerifyChecksum(ReadOptions()));
  ASSERT_NO_FATAL_FAILURE(Close());
}

// Verification reads the files, not the block cache, and leaves nothing in it.
TEST_F(DBVerifyChecksumTest, DoesNotFillTheBlockCache) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Fill(3));
  ASSERT_NO_FATAL_FAILURE(Close());
  ASSERT_NO_FATAL_FAILURE(Open());
  // Blocks: the cache's usage less its pinned usage (the tables the verification opens have
  // their readers' memory charged as pinned usage, charge_table_reader_memory).
  auto unpinned_usage = [&] {
    uint64_t usage = 0, pinned = 0;
    EXPECT_TRUE(db_->GetIntProperty(DB::Properties::kBlockCacheUsage, &usage));
    EXPECT_TRUE(db_->GetIntProperty(DB::Properties::kBlockCachePinnedUsage, &pinned));
    return usage - pinned;
  };
  uint64_t before = unpinned_usage(), after = 0;
  ReadOptions fill;
  fill.fill_cache = true;
  ASSERT_OK(db_->VerifyChecksum(fill));
  EXPECT_EQ(unpinned_usage(), before);
  // The property does show reads that fill the cache.
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "1-50", &value));
  after = unpinned_usage();
  EXPECT_GT(after, before);
  ASSERT_NO_FATAL_FAILURE(Close());
}

}  // namespace
}  // namespace shale
