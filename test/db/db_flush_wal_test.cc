// DB::FlushWAL (issue 24: RocksDB's C API rocksdb_flush_wal): with sync, the writes
// acknowledged before the call survive a power loss; without it (or without the call) writes
// that were never synced may be lost. Power loss is the fault-injecting file system's
// DropUnsyncedData.
#include <memory>
#include <string>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBFlushWalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fault_ = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    options_.create_if_missing = true;
    options_.file_system = fault_;
    ASSERT_OK(DB::Open(options_, "/db", &db_));
  }
  // Power loss: whatever was not synced is gone; then the DB is opened again.
  void CrashAndReopen() {
    fault_->SetFilesystemActive(false);
    db_.reset();
    ASSERT_OK(fault_->DropUnsyncedData());
    fault_->SetFilesystemActive(true);
    ASSERT_OK(DB::Open(options_, "/db", &db_));
  }
  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    return s.IsNotFound() ? "NOT_FOUND" : s.ok() ? value : s.ToString();
  }

  std::shared_ptr<FaultInjectionFileSystem> fault_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBFlushWalTest, SyncMakesEarlierWritesDurable) {
  ASSERT_OK(db_->Put(WriteOptions(), "before", "1"));
  ASSERT_OK(db_->FlushWAL(/*sync=*/true));
  ASSERT_OK(db_->Put(WriteOptions(), "after", "2"));
  ASSERT_NO_FATAL_FAILURE(CrashAndReopen());
  EXPECT_EQ(Get("before"), "1");
  EXPECT_EQ(Get("after"), "NOT_FOUND");  // never synced: lost (this proves the test can fail)
}

TEST_F(DBFlushWalTest, WithoutSyncNothingIsMadeDurable) {
  ASSERT_OK(db_->Put(WriteOptions(), "k", "1"));
  ASSERT_OK(db_->FlushWAL(/*sync=*/false));
  ASSERT_NO_FATAL_FAILURE(CrashAndReopen());
  EXPECT_EQ(Get("k"), "NOT_FOUND");
}

TEST_F(DBFlushWalTest, FailedSyncIsReturnedAndStopsWrites) {
  ASSERT_OK(db_->Put(WriteOptions(), "k", "1"));
  fault_->InjectError(FaultInjectionFileSystem::OpKind::kSync, 1, Status::IOError("injected"));
  const Status s = db_->FlushWAL(true);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  // The DB is in the error state: writes fail until Resume.
  EXPECT_FALSE(db_->Put(WriteOptions(), "k2", "2").ok());
  EXPECT_FALSE(db_->FlushWAL(true).ok());
  EXPECT_EQ(Get("k"), "1");  // reads go on
}

TEST_F(DBFlushWalTest, AfterCloseIsShutdownInProgress) {
  ASSERT_OK(db_->Close());
  EXPECT_TRUE(db_->FlushWAL(true).IsShutdownInProgress());
  EXPECT_TRUE(db_->FlushWAL(false).IsShutdownInProgress());
}

}  // namespace
}  // namespace shale
