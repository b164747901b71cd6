// DB::DisableFileDeletions / EnableFileDeletions (issue 24: rocksdb_disable_file_deletions and
// rocksdb_enable_file_deletions of RocksDB's C API): while disabled, a compaction's obsolete
// inputs stay on disk; calls nest; enabling (or forcing) deletes what was kept.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBFileDeletionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/db_file_deletions_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path_);
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    ASSERT_OK(DB::Open(options, path_, &db_));
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(path_);
  }
  // Three overlapping table files, then one compaction that makes them obsolete.
  void WriteFlushAndCompact() {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 100; i++) {
        ASSERT_OK(db_->Put(WriteOptions(), std::string("k").append(std::to_string(i)),
                          std::to_string(round)));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  }
  size_t SstFilesOnDisk() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      n += e.path().extension() == ".sst";
    }
    return n;
  }
  size_t LiveFiles() const {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    return files.size();
  }

  std::string path_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBFileDeletionsTest, ObsoleteFilesStayWhileDisabled) {
  ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_OK(db_->DisableFileDeletions());  // nested
  ASSERT_NO_FATAL_FAILURE(WriteFlushAndCompact());
  const size_t live = LiveFiles();
  EXPECT_GT(SstFilesOnDisk(), live);  // the three compacted inputs are still there
  ASSERT_OK(db_->EnableFileDeletions(/*force=*/false));  // one of two: still disabled
  EXPECT_GT(SstFilesOnDisk(), live);
  ASSERT_OK(db_->EnableFileDeletions(/*force=*/false));
  EXPECT_EQ(SstFilesOnDisk(), live);
  // Enabled now: a compaction's inputs go at once (this proves the check above can fail).
  ASSERT_NO_FATAL_FAILURE(WriteFlushAndCompact());
  EXPECT_EQ(SstFilesOnDisk(), LiveFiles());
  // Enabling more often than disabling is harmless.
  ASSERT_OK(db_->EnableFileDeletions(false));
  EXPECT_EQ(SstFilesOnDisk(), LiveFiles());
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "k7", &value));
  EXPECT_EQ(value, "2");
}

TEST_F(DBFileDeletionsTest, ForceEnablesAtOnce) {
  for (int i = 0; i < 3; i++) ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_NO_FATAL_FAILURE(WriteFlushAndCompact());
  EXPECT_GT(SstFilesOnDisk(), LiveFiles());
  ASSERT_OK(db_->EnableFileDeletions(/*force=*/true));
  EXPECT_EQ(SstFilesOnDisk(), LiveFiles());
}

TEST_F(DBFileDeletionsTest, FilesKeptAtCloseAreDeletedByTheNextOpen) {
  ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_NO_FATAL_FAILURE(WriteFlushAndCompact());
  const size_t live = LiveFiles();
  ASSERT_OK(db_->Close());
  EXPECT_TRUE(db_->DisableFileDeletions().IsShutdownInProgress());
  EXPECT_TRUE(db_->EnableFileDeletions(true).IsShutdownInProgress());
  db_.reset();
  Options options;
  ASSERT_OK(DB::Open(options, path_, &db_));
  EXPECT_EQ(SstFilesOnDisk(), live);
}

// A file system (tests only) whose first DeleteFile of a ".sst" file, once armed, waits until
// the test releases it, and which counts the DeleteFile calls that have completed: it holds a
// deletion pass of the DB in the middle of its loop. Thread-safe.
class DeleteGateFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "deletegate"; }

  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
  }
  // True once a DeleteFile waits at the gate (false after `timeout`).
  bool WaitUntilHeld(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return held_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = false;
    released_ = true;
    cv_.notify_all();
  }
  Status DeleteFile(const std::string& path) override {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (armed_ && !held_ && path.ends_with(".sst")) {
        armed_ = false;
        held_ = true;
        cv_.notify_all();
        cv_.wait(l, [&] { return released_; });
      }
    }
    Status s = base()->DeleteFile(path);
    deletes_.fetch_add(1);
    return s;
  }
  int deletes() const { return deletes_.load(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;     // guarded by mu_
  bool held_ = false;      // guarded by mu_; a DeleteFile waited (or waits) at the gate
  bool released_ = false;  // guarded by mu_
  std::atomic<int> deletes_{0};
};

// A deletion pass that had already passed the "deletions enabled?" check when
// DisableFileDeletions was called must not go on deleting after DisableFileDeletions returned:
// DisableFileDeletions waits for it (a backup lists the directory right after it returns, and
// every file listed must stay). The pass is held inside its loop, at the DeleteFile of the
// first of the compaction's three obsolete inputs.
TEST(DBFileDeletionsRaceTest, DisableWaitsForADeletionPassInProgress) {
  using namespace std::chrono_literals;
  auto fs = std::make_shared<DeleteGateFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/deletionrace", &db));
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i++) {
      ASSERT_OK(db->Put(WriteOptions(), std::string("k").append(std::to_string(i)),
                          std::to_string(round)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  fs->Arm();
  Status compact;
  std::thread compactor([&] {
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    compact = db->CompactRange(cro, nullptr, nullptr);
  });
  ASSERT_TRUE(fs->WaitUntilHeld(10s)) << "no deletion pass reached the gate";

  std::atomic<bool> disabled{false};
  std::atomic<int> deletes_at_return{-1};
  Status disable;
  std::thread disabler([&] {
    disable = db->DisableFileDeletions();
    deletes_at_return = fs->deletes();
    disabled = true;
  });
  // A DisableFileDeletions that does not wait returns at once; give it the time to show.
  for (int i = 0; i < 50 && !disabled; i++) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(disabled.load())
      << "DisableFileDeletions returned while a deletion pass was still deleting";
  fs->Release();
  disabler.join();
  compactor.join();
  ASSERT_OK(disable);
  ASSERT_OK(compact);
  EXPECT_EQ(fs->deletes(), deletes_at_return.load())
      << "files were deleted after DisableFileDeletions returned";
  ASSERT_OK(db->EnableFileDeletions(false));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "k7", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(db->Close());
}

// Close while a DisableFileDeletions waits for a held deletion pass: all three return once the
// pass goes on (no deadlock between Close, the waiting call and the pass).
TEST(DBFileDeletionsRaceTest, CloseWhileDisableWaitsForAPass) {
  using namespace std::chrono_literals;
  auto fs = std::make_shared<DeleteGateFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/deletionclose", &db));
  for (int round = 0; round < 3; round++) {
    ASSERT_OK(db->Put(WriteOptions(), "k", std::to_string(round)));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  fs->Arm();
  Status compact, disable, close;
  std::thread compactor([&] {
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    compact = db->CompactRange(cro, nullptr, nullptr);
  });
  ASSERT_TRUE(fs->WaitUntilHeld(10s));
  std::thread disabler([&] { disable = db->DisableFileDeletions(); });
  std::thread closer([&] { close = db->Close(); });
  std::this_thread::sleep_for(50ms);  // let both reach their waits
  fs->Release();
  compactor.join();
  disabler.join();
  closer.join();
  EXPECT_OK(compact);
  EXPECT_TRUE(disable.ok() || disable.IsShutdownInProgress()) << disable.ToString();
  EXPECT_OK(close);
}

}  // namespace
}  // namespace shale
