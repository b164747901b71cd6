// DB::DeleteFilesInRange (issue 24: rocksdb_delete_file_in_range of RocksDB's C API): the
// table files of levels 1 and below that lie wholly in the range are dropped (their keys
// vanish, snapshots included, and the files leave the disk); files straddling the range, L0
// files and the memtables keep their keys, so older versions there reappear (RocksDB's
// caveat); a failed MANIFEST write of the drop is a background error.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%05d", i);
  return buf;
}

class DBDeleteFilesInRangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/db_delete_files_in_range_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path_);
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    options.target_file_size_base = 32 << 10;  // many small bottom-level files
    ASSERT_OK(DB::Open(options, path_, &db_));
    // 4000 keys of ~100 bytes, compacted into the bottom level: a dozen or more files.
    for (int i = 0; i < 4000; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), std::string(100, 'v')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(path_);
  }
  std::vector<LiveFileMetaData> Files() {
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    return files;
  }
  bool Has(const std::string& key, const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    const Status s = db_->Get(ro, key, &value);
    EXPECT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
    return s.ok();
  }

  std::string path_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBDeleteFilesInRangeTest, DropsTheFilesWhollyInTheRange) {
  const std::vector<LiveFileMetaData> before = Files();
  ASSERT_GE(before.size(), 5u) << "too few files: the test proves nothing";
  const std::string begin = Key(1000), end = Key(3000);
  // The files the call must drop, and those it must keep.
  std::vector<LiveFileMetaData> inside, outside;
  for (const LiveFileMetaData& f : before) {
    ASSERT_GT(f.level, 0);
    (f.smallestkey >= begin && f.largestkey <= end ? inside : outside).push_back(f);
  }
  ASSERT_FALSE(inside.empty());
  const Snapshot* snapshot = db_->GetSnapshot();
  const std::string_view b(begin), e(end);
  ASSERT_OK(db_->DeleteFilesInRange(db_->DefaultColumnFamily(), &b, &e));

  const std::vector<LiveFileMetaData> after = Files();
  EXPECT_EQ(after.size(), outside.size());
  for (const LiveFileMetaData& f : inside) {
    EXPECT_FALSE(std::filesystem::exists(path_ + f.name)) << f.name;
    EXPECT_FALSE(Has(f.smallestkey)) << f.smallestkey;
    EXPECT_FALSE(Has(f.largestkey, snapshot)) << "snapshots see the drop too";
  }
  for (const LiveFileMetaData& f : outside) {
    EXPECT_TRUE(Has(f.smallestkey)) << f.smallestkey;
    EXPECT_TRUE(Has(f.largestkey)) << f.largestkey;
  }
  EXPECT_TRUE(Has(Key(0)));
  EXPECT_TRUE(Has(Key(3999)));
  db_->ReleaseSnapshot(snapshot);
}

TEST_F(DBDeleteFilesInRangeTest, UnboundedL0AndMemtableKeysStay) {
  // A new L0 file (overlapping the bottom level) and a key in the memtable.
  for (int i = 0; i < 10; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i * 100), "new"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), Key(5000), "in memtable"));
  size_t l0 = 0;
  for (const LiveFileMetaData& f : Files()) l0 += f.level == 0;
  ASSERT_EQ(l0, 1u);
  ASSERT_OK(db_->DeleteFilesInRange(db_->DefaultColumnFamily(), nullptr, nullptr));
  const std::vector<LiveFileMetaData> after = Files();
  ASSERT_EQ(after.size(), 1u);  // only the L0 file is left
  EXPECT_EQ(after[0].level, 0);
  for (int i = 0; i < 10; i++) EXPECT_TRUE(Has(Key(i * 100)));
  EXPECT_FALSE(Has(Key(1)));
  EXPECT_TRUE(Has(Key(5000)));
}

TEST_F(DBDeleteFilesInRangeTest, BadCalls) {
  EXPECT_TRUE(db_->DeleteFilesInRange(nullptr, nullptr, nullptr).IsInvalidArgument());
  const std::string_view b("x"), e("y");  // no file there: nothing to do
  const size_t files = Files().size();
  ASSERT_OK(db_->DeleteFilesInRange(db_->DefaultColumnFamily(), &b, &e));
  EXPECT_EQ(Files().size(), files);
  ASSERT_OK(db_->Close());
  EXPECT_TRUE(
      db_->DeleteFilesInRange(db_->DefaultColumnFamily(), nullptr, nullptr).IsShutdownInProgress());
}

// RocksDB's caveat, which db.h states: a dropped file may have hidden older versions of its
// keys (or, with a tombstone, deleted them) in a lower-level file that only partly overlaps
// the range; that file is kept, so those older versions are visible again. Pins the
// documented behaviour: the newer versions sit in an L(bottom-1) file wholly inside the range
// (ingested: it overlaps only the bottom file, so it lands just above), the older ones in a
// bottom-level file straddling the range.
TEST_F(DBDeleteFilesInRangeTest, OlderVersionsInStraddlingFilesReappear) {
  std::vector<LiveFileMetaData> before = Files();
  ASSERT_GE(before.size(), 3u);
  const LiveFileMetaData& bottom = before[before.size() / 2];
  const int first = std::stoi(bottom.smallestkey.substr(1));
  const int last = std::stoi(bottom.largestkey.substr(1));
  ASSERT_GT(last - first, 30) << "bottom files too small for the test";
  const std::string lo = Key(first + 10), hi = Key(first + 20);

  const std::string ext = path_ + "_ext.sst";
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(ext));
    ASSERT_OK(writer.Put(lo, "new"));
    ASSERT_OK(writer.Delete(Key(first + 15)));
    ASSERT_OK(writer.Put(hi, "new"));
    ASSERT_OK(writer.Finish());
  }
  ASSERT_OK(db_->IngestExternalFile({ext}, IngestExternalFileOptions()));
  std::filesystem::remove(ext);
  int ingested_level = -1;
  for (const LiveFileMetaData& f : Files()) {
    if (f.smallestkey == lo && f.largestkey == hi) ingested_level = f.level;
  }
  ASSERT_GT(ingested_level, 0) << "the newer versions are not in a level-1+ file of their own";
  ASSERT_LT(ingested_level, bottom.level);
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), lo, &value));
  EXPECT_EQ(value, "new");
  EXPECT_FALSE(Has(Key(first + 15)));

  const std::string_view b(lo), e(hi);
  ASSERT_OK(db_->DeleteFilesInRange(db_->DefaultColumnFamily(), &b, &e));
  // The ingested file is gone; the bottom file straddling the range stays, with its versions.
  bool bottom_kept = false;
  for (const LiveFileMetaData& f : Files()) {
    EXPECT_FALSE(f.smallestkey == lo && f.largestkey == hi) << "the file inside the range stayed";
    bottom_kept |= f.name == bottom.name;
  }
  EXPECT_TRUE(bottom_kept);
  ASSERT_OK(db_->Get(ReadOptions(), lo, &value));
  EXPECT_EQ(value, std::string(100, 'v')) << "the older version did not reappear";
  ASSERT_OK(db_->Get(ReadOptions(), hi, &value));
  EXPECT_EQ(value, std::string(100, 'v'));
  EXPECT_TRUE(Has(Key(first + 15))) << "the key the dropped tombstone deleted did not reappear";
}

// A DeleteFilesInRange whose MANIFEST write fails puts the DB in the error state like every
// other failed MANIFEST write (the edit may be on disk though the change did not happen in
// memory): writes fail with the background error until Resume, which rewrites the MANIFEST.
TEST(DBDeleteFilesInRangeFaultTest, FailedManifestWriteIsABackgroundError) {
  auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fault;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/deletefilesfault", &db));
  for (int i = 0; i < 100; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), "v"));
  ASSERT_OK(db->Flush(FlushOptions()));
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  // The next Sync is the MANIFEST record of the drop.
  fault->InjectError(FaultInjectionFileSystem::OpKind::kSync, 1, FaultIOError("manifest sync"));
  const Status drop = db->DeleteFilesInRange(db->DefaultColumnFamily(), nullptr, nullptr);
  ASSERT_FALSE(drop.ok());
  fault->ClearInjectedErrors();
  const Status put = db->Put(WriteOptions(), "after", "x");
  EXPECT_FALSE(put.ok()) << "a write was accepted after the failed MANIFEST write";
  EXPECT_TRUE(put.IsIOError()) << put.ToString();
  uint64_t errors = 0;
  EXPECT_TRUE(db->GetIntProperty("shale.background-errors", &errors));
  EXPECT_EQ(errors, 1u);
  ASSERT_OK(db->Resume());
  ASSERT_OK(db->Put(WriteOptions(), "after", "x"));
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(options, "/deletefilesfault", &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "after", &value));
  EXPECT_OK(db->Close());
}

}  // namespace
}  // namespace shale
