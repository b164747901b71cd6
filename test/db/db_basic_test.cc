// Targeted tests of the DB's promises: each test names one behaviour of shale/db.h.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/write_batch.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBBasicTest : public ::testing::Test {
 protected:
  DBBasicTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
  }
  void Open() { ASSERT_OK(DB::Open(options_, dbname_, &db_)); }
  void Reopen() {
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }
  std::string Get(std::string_view key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }
  std::string Scan(const ReadOptions& ro = ReadOptions()) {
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    std::string out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out += std::string(it->key()) + "=" + std::string(it->value()) + ",";
    }
    EXPECT_OK(it->status());
    return out;
  }
  std::string ScanReverse() {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    std::string out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out += std::string(it->key()) + "=" + std::string(it->value()) + ",";
    }
    EXPECT_OK(it->status());
    return out;
  }
  uint64_t FilesAtLevel(int level) {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty("shale.num-files-at-level" + std::to_string(level), &n));
    return n;
  }
  uint64_t TotalFiles() {
    uint64_t total = 0;
    for (int level = 0; level < options_.num_levels; level++) total += FilesAtLevel(level);
    return total;
  }

  Options options_;
  std::string dbname_ = "/db";
  std::unique_ptr<DB> db_;
};

TEST_F(DBBasicTest, PutGetDeleteAndReopen) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(db_->Delete(WriteOptions(), "a"));
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "2");
  Reopen();  // from the WAL
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("b"), "2");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Reopen();  // from a table
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(Scan(), "b=2,");
}

// An empty range deletion [k, k) in a batch deletes nothing and must not make a flushed table's
// bounds inverted (found by the C ABI fuzzer: the flush failed with "smallest > largest").
TEST_F(DBBasicTest, EmptyRangeDeletionInABatchFlushes) {
  Open();
  WriteBatch batch;
  ASSERT_OK(batch.DeleteRange("k", "k"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  ASSERT_OK(batch.DeleteRange("m", "m"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Get("k"), "v");
  Reopen();
  EXPECT_EQ(Get("k"), "v");
}

TEST_F(DBBasicTest, SnapshotsSeeTheirPast) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "old"));
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "new"));
  ASSERT_OK(db_->Delete(WriteOptions(), "gone"));
  EXPECT_EQ(Get("k", snap), "old");
  ASSERT_OK(db_->Flush(FlushOptions()));  // the flush keeps the version the snapshot sees
  EXPECT_EQ(Get("k", snap), "old");
  EXPECT_EQ(Get("k"), "new");
  ReadOptions ro;
  ro.snapshot = snap;
  EXPECT_EQ(Scan(ro), "k=old,");
  EXPECT_TRUE(db_->Close().IsAborted());  // a snapshot is still held
  db_->ReleaseSnapshot(snap);
  ASSERT_OK(db_->Close());
}

TEST_F(DBBasicTest, RangeDeletionAcrossSources) {
  Open();
  for (char c = 'a'; c <= 'j'; c++) ASSERT_OK(db_->Put(WriteOptions(), std::string(1, c), "v"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->DeleteRange(WriteOptions(), "c", "f"));
  ASSERT_OK(db_->Put(WriteOptions(), "d", "again"));
  EXPECT_EQ(Get("c"), "NOT_FOUND");
  EXPECT_EQ(Get("d"), "again");
  EXPECT_EQ(Get("f"), "v");
  EXPECT_EQ(Scan(), "a=v,b=v,d=again,f=v,g=v,h=v,i=v,j=v,");
  EXPECT_EQ(ScanReverse(), "j=v,i=v,h=v,g=v,f=v,d=again,b=v,a=v,");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Reopen();
  EXPECT_EQ(Get("e"), "NOT_FOUND");
  EXPECT_EQ(Scan(), "a=v,b=v,d=again,f=v,g=v,h=v,i=v,j=v,");
  EXPECT_TRUE(db_->DeleteRange(WriteOptions(), "z", "a").IsInvalidArgument());
}

TEST_F(DBBasicTest, IteratorBoundsAndSeekForPrev) {
  Open();
  for (char c = 'a'; c <= 'f'; c++) ASSERT_OK(db_->Put(WriteOptions(), std::string(1, c), "v"));
  std::string_view lower = "b", upper = "e";
  ReadOptions ro;
  ro.iterate_lower_bound = &lower;
  ro.iterate_upper_bound = &upper;
  EXPECT_EQ(Scan(ro), "b=v,c=v,d=v,");
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d");
  it->SeekForPrev("z");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d");
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  it->Prev();
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  it->Next();
  EXPECT_EQ(it->key(), "d");
  it->Next();
  EXPECT_FALSE(it->Valid());
}

TEST_F(DBBasicTest, MemtablesFlushInTheBackgroundAndSortedLoadsSkipL0) {
  Open();
  const std::string value(100, 'x');
  char key[16];
  for (int i = 0; i < 5000; i++) {
    snprintf(key, sizeof(key), "%08d", i);
    ASSERT_OK(db_->Put(WriteOptions(), key, value));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_GT(TotalFiles(), 3u);
  EXPECT_EQ(FilesAtLevel(0), 0u);  // sorted input overlaps nothing: placed at the bottom
  uint64_t keys = 0;
  ASSERT_TRUE(db_->GetIntProperty("shale.estimate-num-keys", &keys));
  EXPECT_EQ(keys, 5000u);
  Reopen();
  for (int i = 0; i < 5000; i += 97) {
    snprintf(key, sizeof(key), "%08d", i);
    EXPECT_EQ(Get(key), value);
  }
  std::string text;
  EXPECT_TRUE(db_->GetProperty("shale.stats", &text));
  EXPECT_NE(text.find("Flushes"), std::string::npos);
  EXPECT_TRUE(db_->GetProperty("shale.sstables", &text));
  EXPECT_TRUE(db_->GetProperty("shale.levelstats", &text));
  EXPECT_TRUE(db_->GetProperty("shale.memtable-allocator", &text));
  EXPECT_FALSE(db_->GetProperty("shale.no-such-property", &text));
}

TEST_F(DBBasicTest, MultiGetSeesOneSnapshot) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "c", "3"));
  std::vector<std::string> values;
  std::vector<Status> st = db_->MultiGet(ReadOptions(), {"a", "b", "c"}, &values);
  ASSERT_EQ(st.size(), 3u);
  EXPECT_OK(st[0]);
  EXPECT_TRUE(st[1].IsNotFound());
  EXPECT_OK(st[2]);
  EXPECT_EQ(values[0], "1");
  EXPECT_EQ(values[2], "3");
}

TEST_F(DBBasicTest, DisableWalWritesSurviveClose) {
  Open();
  WriteOptions wo;
  wo.disableWAL = true;
  ASSERT_OK(db_->Put(wo, "nowal", "kept by Close's flush"));
  Reopen();
  EXPECT_EQ(Get("nowal"), "kept by Close's flush");
}

TEST_F(DBBasicTest, OpenErrors) {
  options_.create_if_missing = false;
  EXPECT_TRUE(DB::Open(options_, "/missing", &db_).IsInvalidArgument());
  EXPECT_EQ(db_, nullptr);
  options_.create_if_missing = true;
  Open();
  std::unique_ptr<DB> second;
  Status s = DB::Open(options_, dbname_, &second);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();  // LOCK held
  ASSERT_OK(db_->Close());
  db_.reset();
  options_.error_if_exists = true;
  EXPECT_TRUE(DB::Open(options_, dbname_, &db_).IsInvalidArgument());
  options_.error_if_exists = false;
  // (write_buffer_size=0 is raised to 64 KiB as RocksDB does since issue 19; 0 target file
  // size stays refused.)
  options_.target_file_size_base = 0;
  s = DB::Open(options_, dbname_, &db_);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("target_file_size_base"), std::string::npos) << s.ToString();
}

TEST_F(DBBasicTest, DestroyDBRemovesEverything) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_TRUE(DestroyDB(dbname_, options_).IsIOError());  // still open
  ASSERT_OK(db_->Close());
  db_.reset();
  ASSERT_OK(DestroyDB(dbname_, options_));
  std::vector<std::string> children;
  EXPECT_FALSE(options_.file_system->GetChildren(dbname_, &children).ok());
  Open();
  EXPECT_EQ(Get("a"), "NOT_FOUND");
}

TEST_F(DBBasicTest, FileNumbersStaySmallAcrossReopens) {
  // Old info logs are named by a timestamp; recovery must not take it for a file number.
  Open();
  for (int i = 0; i < 3; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), "k" + std::to_string(i), "v"));
    ASSERT_OK(db_->Flush(FlushOptions()));
    Reopen();
  }
  std::vector<std::string> children;
  ASSERT_OK(options_.file_system->GetChildren(dbname_, &children));
  int old_logs = 0;
  for (const std::string& name : children) {
    if (name.rfind("LOG.old.", 0) == 0) {
      old_logs++;
      continue;
    }
    const size_t digits = name.find_first_not_of("0123456789", name.rfind('-') + 1);
    const std::string number = name.substr(name.rfind('-') + 1, digits - name.rfind('-') - 1);
    if (!number.empty()) EXPECT_LT(std::stoull(number), 100u) << name;
  }
  EXPECT_EQ(old_logs, 3);
}

TEST_F(DBBasicTest, CallsAfterCloseFail) {
  Open();
  ASSERT_OK(db_->Close());
  EXPECT_OK(db_->Close());
  EXPECT_TRUE(db_->Put(WriteOptions(), "a", "1").IsShutdownInProgress());
}

}  // namespace
}  // namespace shale
