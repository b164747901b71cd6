// The write path at its edges (issue 19):
// - Resume after a WAL failure keeps writers out until the retired memtable is durable, so the
//   recovered state after a power loss is a prefix of the acknowledged writes (finding 1);
// - a WAL failure, Resume and a crash reopen under every WAL recovery mode (finding 17);
// - FlushOptions::allow_write_stall (finding 17).
// Power loss is the fault-injecting file system's DropUnsyncedData; the moment of the crash is
// chosen by a gate that holds a table file's Sync until the test releases it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;
constexpr char kDBName[] = "/writepathdb";

// A file system over another whose table files (*.sst) block in Sync while the gate is armed,
// until Release(): the test decides what happens while a flush is in the middle.
// Thread-safety: thread-safe (mu_ guards the gate's state).
class GateFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;

  // The next table Syncs block until Release().
  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
    blocked_ = 0;
  }
  // Lets blocked and later Syncs through.
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = false;
    cv_.notify_all();
  }
  // Waits until a Sync is blocked at the gate; false after `timeout`.
  bool WaitBlocked(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return blocked_ > 0; });
  }

  const char* Name() const override { return "gate"; }
  Status NewWritableFile(const std::string& p, std::unique_ptr<WritableFile>* r) override {
    Status s = base()->NewWritableFile(p, r);
    if (s.ok() && p.size() > 4 && p.compare(p.size() - 4, 4, ".sst") == 0) {
      *r = std::make_unique<File>(this, std::move(*r));
    }
    return s;
  }

 private:
  class File final : public test::ForwardingWritableFile {
   public:
    File(GateFileSystem* fs, std::unique_ptr<WritableFile> base)
        : ForwardingWritableFile(std::move(base)), fs_(fs) {}
    Status Sync() override {
      fs_->Pass();
      return base()->Sync();
    }

   private:
    GateFileSystem* const fs_;
  };

  void Pass() {
    std::unique_lock<std::mutex> l(mu_);
    if (!armed_) return;
    blocked_++;
    cv_.notify_all();
    cv_.wait(l, [&] { return !armed_; });
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;  // guarded by mu_
  int blocked_ = 0;     // guarded by mu_: Syncs that reached the armed gate
};

class DBWritePathTest : public testing::Test {
 protected:
  DBWritePathTest()
      : fault_(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())),
        gate_(std::make_shared<GateFileSystem>(fault_)) {
    options_.file_system = gate_;
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;
  }

  // The moment of a crash: nothing more reaches the disk. Calls in flight then fail; join
  // their threads before PowerLoss or ProcessCrash destroys the DB.
  void StopDisk() {
    fault_->SetFilesystemActive(false);
    gate_->Release();
  }
  // A power loss: nothing more reaches the disk, the process dies, unsynced data is lost.
  void PowerLoss() {
    StopDisk();
    db_.reset();
    fault_->ClearInjectedErrors();
    ASSERT_OK(fault_->DropUnsyncedData());
    fault_->SetFilesystemActive(true);
  }
  // A process crash: what reached the file system stays.
  void ProcessCrash() {
    StopDisk();
    db_.reset();
    fault_->ClearInjectedErrors();
    fault_->SetFilesystemActive(true);
  }
  // Puts the DB in the error state by a failed WAL sync; `acked` is acknowledged first, unsynced.
  void FailWal(const std::string& acked) {
    ASSERT_OK(db_->Put(WriteOptions(), acked, "v-" + acked));
    fault_->InjectError(OpKind::kSync, 1, FaultIOError("WAL sync"));
    WriteOptions sync;
    sync.sync = true;
    ASSERT_FALSE(db_->Put(sync, "failed", "never acknowledged").ok());
  }
  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    if (s.IsNotFound()) return "<absent>";
    EXPECT_OK(s);
    return value;
  }

  std::shared_ptr<FaultInjectionFileSystem> fault_;
  std::shared_ptr<GateFileSystem> gate_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// Finding 1. While Resume's flush of the memtable retired with the failed WAL is under way, a
// synced write must not be acknowledged: its record in the new WAL would survive a power loss
// that loses the earlier acknowledged write, which is only in the old, unsynced WAL.
TEST_F(DBWritePathTest, ResumeKeepsWritersOutUntilRetiredMemtableIsFlushed) {
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  ASSERT_NO_FATAL_FAILURE(FailWal("a"));
  gate_->Arm();
  Status resume_status;
  std::thread resume([&] { resume_status = db_->Resume(); });
  ASSERT_TRUE(gate_->WaitBlocked(std::chrono::seconds(20))) << "Resume's flush never started";

  std::atomic<bool> write_done{false};
  Status write_status;
  std::thread writer([&] {
    WriteOptions sync;
    sync.sync = true;
    write_status = db_->Put(sync, "c", "v-c");
    write_done = true;
  });
  // Give the writer ample time to get through if nothing holds it.
  for (int i = 0; i < 50 && !write_done; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool acked_during_flush = write_done && write_status.ok();
  EXPECT_FALSE(acked_during_flush) << "a synced write was acknowledged while the memtable of "
                                      "the failed WAL was not yet durable";

  StopDisk();  // the flush fails: Resume and the held writer fail
  resume.join();
  writer.join();
  ASSERT_NO_FATAL_FAILURE(PowerLoss());
  const bool c_acked = write_status.ok();
  EXPECT_FALSE(resume_status.ok());

  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  if (c_acked) {
    // A prefix of the acknowledged writes: "c" came after "a".
    EXPECT_EQ(Get("a"), "v-a") << "\"c\" (synced) survived but the earlier \"a\" was lost";
  }
  EXPECT_EQ(Get("failed") == "<absent>" || Get("failed") == "never acknowledged", true);
}

// Finding 1, the other way: the flush completes, the held writer then goes through, and a power
// loss afterwards keeps both writes.
TEST_F(DBWritePathTest, ResumeReleasesWritersOnceRetiredMemtableIsFlushed) {
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  ASSERT_NO_FATAL_FAILURE(FailWal("a"));
  gate_->Arm();
  Status resume_status;
  std::thread resume([&] { resume_status = db_->Resume(); });
  ASSERT_TRUE(gate_->WaitBlocked(std::chrono::seconds(20)));
  Status write_status;
  std::thread writer([&] {
    WriteOptions sync;
    sync.sync = true;
    write_status = db_->Put(sync, "c", "v-c");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  gate_->Release();
  resume.join();
  writer.join();
  ASSERT_OK(resume_status);
  ASSERT_OK(write_status);
  ASSERT_NO_FATAL_FAILURE(PowerLoss());
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  EXPECT_EQ(Get("a"), "v-a");
  EXPECT_EQ(Get("c"), "v-c");
}

// shale.num-running-flushes counts a flush from when it is scheduled until its result is
// recorded: 1 while the flush is held in its table Sync, 0 once a waiting Flush returned.
TEST_F(DBWritePathTest, NumRunningFlushesCountsAFlushUntilItsResultIsRecorded) {
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  uint64_t running = 7;
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningFlushes, &running));
  EXPECT_EQ(running, 0u);
  ASSERT_OK(db_->Put(WriteOptions(), "a", "v-a"));
  gate_->Arm();
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db_->Flush(no_wait));
  ASSERT_TRUE(gate_->WaitBlocked(std::chrono::seconds(20))) << "the flush never started";
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningFlushes, &running));
  EXPECT_EQ(running, 1u);
  gate_->Release();
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningFlushes, &running));
  EXPECT_EQ(running, 0u);
  EXPECT_EQ(Get("a"), "v-a");
}

// Finding 17: a WAL write that fails half way (the record's header is in the file, its payload
// is not) leaves a torn record in that WAL. After Resume and a crash - during Resume's flush,
// after it failed, or after Resume succeeded and more writes - the DB reopens under every
// recovery mode with every acknowledged write.
class DBResumeRecoveryModeTest
    : public DBWritePathTest,
      public testing::WithParamInterface<std::tuple<WALRecoveryMode, int>> {};

TEST_P(DBResumeRecoveryModeTest, WalFailureResumeCrashReopens) {
  const auto [mode, when] = GetParam();
  options_.wal_recovery_mode = mode;
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  ASSERT_OK(db_->Put(WriteOptions(), "a", "v-a"));
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db_->Put(sync, "b", "v-b"));
  // A payload of 8 KiB is appended by itself after its header: fail that second append.
  fault_->InjectError(OpKind::kWrite, 2, FaultIOError("WAL append"));
  ASSERT_FALSE(db_->Put(WriteOptions(), "torn", std::string(8 << 10, 't')).ok());
  fault_->ClearInjectedErrors();
  switch (when) {
    case 0: {  // crash while Resume's flush is under way
      gate_->Arm();
      std::thread resume([&] { db_->Resume().PermitUncheckedError(); });
      ASSERT_TRUE(gate_->WaitBlocked(std::chrono::seconds(20)));
      StopDisk();
      resume.join();
      ASSERT_NO_FATAL_FAILURE(ProcessCrash());
      break;
    }
    case 1: {  // Resume's flush fails, then the process crashes
      fault_->InjectError(OpKind::kSync, 1, FaultIOError("table sync"));
      EXPECT_FALSE(db_->Resume().ok());
      ASSERT_NO_FATAL_FAILURE(ProcessCrash());
      break;
    }
    default: {  // Resume succeeds, more writes, then the process crashes
      ASSERT_OK(db_->Resume());
      ASSERT_OK(db_->Put(sync, "c", "v-c"));
      ASSERT_NO_FATAL_FAILURE(ProcessCrash());
      break;
    }
  }
  Status s = DB::Open(options_, kDBName, &db_);
  ASSERT_TRUE(s.ok()) << "reopen: " << s.ToString();
  EXPECT_EQ(Get("a"), "v-a");
  EXPECT_EQ(Get("b"), "v-b");
  if (when == 2) EXPECT_EQ(Get("c"), "v-c");
  // The DB works on: write, flush, reopen once more.
  ASSERT_OK(db_->Put(sync, "d", "v-d"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  db_.reset();
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  EXPECT_EQ(Get("d"), "v-d");
}

INSTANTIATE_TEST_SUITE_P(
    Modes, DBResumeRecoveryModeTest,
    testing::Combine(testing::Values(WALRecoveryMode::kTolerateCorruptedTailRecords,
                                     WALRecoveryMode::kAbsoluteConsistency,
                                     WALRecoveryMode::kPointInTimeRecovery,
                                     WALRecoveryMode::kSkipAnyCorruptedRecords),
                     testing::Values(0, 1, 2)));


// Finding 17: FlushOptions::allow_write_stall. With four memtables allowed, writers are delayed
// once three are immutable. Two are waiting for a flush held at the gate: a Flush with
// allow_write_stall = false waits until its switch would not stall writers (the held flushes
// finish); with true it switches at once.
TEST_F(DBWritePathTest, FlushWaitsUntilItWouldNotStallWrites) {
  options_.max_write_buffer_number = 4;
  ASSERT_OK(DB::Open(options_, kDBName, &db_));
  gate_->Arm();
  FlushOptions no_wait_stall_ok;
  no_wait_stall_ok.wait = false;
  no_wait_stall_ok.allow_write_stall = true;
  ASSERT_OK(db_->Put(WriteOptions(), "k1", "v1"));
  ASSERT_OK(db_->Flush(no_wait_stall_ok));
  ASSERT_TRUE(gate_->WaitBlocked(std::chrono::seconds(20)));
  ASSERT_OK(db_->Put(WriteOptions(), "k2", "v2"));
  ASSERT_OK(db_->Flush(no_wait_stall_ok));  // two immutable memtables now

  ASSERT_OK(db_->Put(WriteOptions(), "k3", "v3"));
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_FALSE(no_wait.allow_write_stall);  // the default
  std::atomic<bool> flush_done{false};
  Status flush_status;
  std::thread flusher([&] {
    flush_status = db_->Flush(no_wait);
    flush_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(flush_done) << "Flush(allow_write_stall=false) made a third immutable memtable "
                              "(writers are delayed) instead of waiting";
  // Writes still go through meanwhile.
  ASSERT_OK(db_->Put(WriteOptions(), "k4", "v4"));
  gate_->Release();
  flusher.join();
  ASSERT_OK(flush_status);
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (const char* k : {"k1", "k2", "k3", "k4"}) EXPECT_EQ(Get(k), std::string("v") + (k + 1));

  // Below the flush and compaction triggers nothing waits, whatever the stall triggers say.
  FlushOptions wait_no_stall;
  ASSERT_OK(db_->Put(WriteOptions(), "k5", "v5"));
  ASSERT_OK(db_->Flush(wait_no_stall));
  EXPECT_EQ(Get("k5"), "v5");
}

}  // namespace
}  // namespace shale
