// DB::GetLiveFilesMetaData (issue 24: RocksDB's C API reports live files and column-family
// metadata from it): every table file of every live family, with its level, name, size, key
// range and entry counts, through flushes, compactions, range deletions, a dropped family and
// Close. And DB::LogInfo (the C API logs the RocksDB knobs it accepted without effect).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBLiveFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/db_live_files_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path_);
    options_.create_if_missing = true;
    ASSERT_OK(DB::Open(options_, path_, &db_));
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(path_);
  }

  std::string path_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBLiveFilesTest, ReportsEachTableFileOfEachFamily) {
  std::vector<LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  EXPECT_TRUE(files.empty());

  ASSERT_OK(db_->Put(WriteOptions(), "b", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "d", "2"));
  ASSERT_OK(db_->Delete(WriteOptions(), "c"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ColumnFamilyHandle* other = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(), "other", &other));
  ASSERT_OK(db_->Put(WriteOptions(), other, "x", "3"));
  ASSERT_OK(db_->DeleteRange(WriteOptions(), other, "y", "z"));
  ASSERT_OK(db_->Flush(FlushOptions(), other));

  files.push_back(LiveFileMetaData());  // replaced, not appended to
  db_->GetLiveFilesMetaData(&files);
  ASSERT_EQ(files.size(), 2u);
  const LiveFileMetaData& a = files[0];
  EXPECT_EQ(a.column_family_name, "default");
  EXPECT_GE(a.level, 0);  // where the flush placed it
  EXPECT_LT(a.level, options_.num_levels);
  EXPECT_EQ(a.db_path, path_);
  ASSERT_TRUE(a.name.starts_with("/")) << a.name;
  EXPECT_TRUE(a.name.ends_with(".sst")) << a.name;
  EXPECT_EQ(a.size, std::filesystem::file_size(path_ + a.name));
  EXPECT_EQ(a.smallestkey, "b");
  EXPECT_EQ(a.largestkey, "d");
  EXPECT_EQ(a.num_entries, 3u);
  EXPECT_EQ(a.num_deletions, 1u);
  EXPECT_LE(a.smallest_seqno, a.largest_seqno);
  EXPECT_GT(a.largest_seqno, 0u);
  const LiveFileMetaData& b = files[1];
  EXPECT_EQ(b.column_family_name, "other");
  EXPECT_EQ(b.smallestkey, "x");
  EXPECT_EQ(b.largestkey, "z");  // the range deletion's end
  EXPECT_EQ(b.num_entries, 2u);  // the put and the range deletion
  EXPECT_EQ(b.num_deletions, 0u);

  // A compaction moves the default family's file down; the dropped family's file is gone.
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  ASSERT_OK(db_->DropColumnFamily(other));
  db_->GetLiveFilesMetaData(&files);
  ASSERT_FALSE(files.empty());
  uint64_t entries = 0;
  for (const LiveFileMetaData& f : files) {
    EXPECT_EQ(f.column_family_name, "default");
    EXPECT_GT(f.level, 0);
    EXPECT_EQ(f.num_deletions, 0u);  // the deletion of an absent key is dropped at the bottom
    entries += f.num_entries;
  }
  EXPECT_EQ(entries, 2u);
  ASSERT_OK(db_->DestroyColumnFamilyHandle(other));

  ASSERT_OK(db_->Close());
  db_->GetLiveFilesMetaData(&files);
  EXPECT_TRUE(files.empty());
}

// DB::LogInfo: the lines reach the info LOG; nothing happens after Close.
TEST_F(DBLiveFilesTest, LogInfoWritesEachLineToTheInfoLog) {
  db_->LogInfo("first line of the caller\nsecond line of the caller");
  ASSERT_OK(db_->Close());
  db_->LogInfo("after close");  // ignored
  std::ifstream log(path_ + "/LOG");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("first line of the caller\n"), std::string::npos) << text;
  EXPECT_NE(text.find("second line of the caller\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("after close"), std::string::npos);
}

}  // namespace
}  // namespace shale
