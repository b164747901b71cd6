// DB::DisableFileDeletions / EnableFileDeletions (issue 24: rocksdb_disable_file_deletions and
// rocksdb_enable_file_deletions of RocksDB's C API): while disabled, a compaction's obsolete
// inputs stay on disk; calls nest; enabling (or forcing) deletes what was kept.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
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

}  // namespace
}  // namespace shale
