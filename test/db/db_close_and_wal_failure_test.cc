// Review of the write path's shutdown (issue 19, findings 9 and 17, as merged): Close waits
// for every call in flight and refuses new ones. What went wrong:
// - a second Close returned OK while the first was still releasing the DB (its LOCK still held,
//   so a reopen by the caller of the second Close failed);
// - Close waited out a writer's whole write-controller delay (delayed_write_rate), which can
//   be minutes, because the delay was an uninterruptible sleep;
// - (open, disabled) after a WAL append failure and Close without Resume, the DB cannot be
//   reopened under kAbsoluteConsistency.
// A regression test pins what was found right: a failed sync of the old WAL at a memtable
// switch refuses the write, leaves the memtable in place and stays until Resume.
// The moments are fixed with GatedFileSystem, not sleeps; the only timed waits bound how long
// a wrong outcome takes to show.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/statistics.h"
#include "fs/fault_injection_file_system.h"
#include "gated_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using namespace std::chrono_literals;
using Op = GatedFileSystem::Op;
constexpr char kDBName[] = "/writereviewdb";

// A second Close, concurrent with a first one that is still releasing the DB (held in
// UnlockFile), returns only once the DB is closed: the caller can reopen it at once.
TEST(DBCloseAndWalFailureTest, ConcurrentCloseReturnsOnceTheDBIsClosed) {
  auto gated = std::make_shared<GatedFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));

  gated->Arm(Op::kUnlock, "");
  Status first;
  std::thread closer([&] { first = db->Close(); });
  ASSERT_TRUE(gated->WaitUntilHeld(10s));

  std::atomic<bool> second_returned{false};
  Status second, reopen;
  std::string value;
  std::thread other([&] {
    second = db->Close();
    second_returned = true;
    std::unique_ptr<DB> again;
    reopen = DB::Open(options, kDBName, &again);
    if (reopen.ok()) reopen = again->Get(ReadOptions(), "k", &value);
  });
  // A second Close that does not wait returns at once; give it the time to show.
  for (int i = 0; i < 50 && !second_returned; i++) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(second_returned.load()) << "the second Close returned while the first held the LOCK";
  gated->Release();
  closer.join();
  other.join();
  EXPECT_OK(first);
  EXPECT_OK(second);
  EXPECT_OK(reopen);
  EXPECT_EQ(value, "v");
}

// Close racing a writer that the write controller delays (delayed_write_rate at its minimum,
// 16 KiB/s, after a 256 KiB write: the next write waits 16 s) ends at once: the delay is cut
// short (the write then completes), instead of Close waiting it out.
TEST(DBCloseAndWalFailureTest, CloseCutsShortAWriteDelay) {
  auto gated = std::make_shared<GatedFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.max_write_buffer_number = 5;  // 4 immutable memtables delay writes
  options.delayed_write_rate = 16 << 10;
  options.statistics = CreateDBStatistics();
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));

  // The first flush waits at its table's Sync, so four memtables pile up: writes are delayed.
  gated->Arm(Op::kSync, ".sst");
  FlushOptions no_wait;
  no_wait.wait = false;
  no_wait.allow_write_stall = true;
  for (int i = 0; i < 4; i++) {
    ASSERT_OK(db->Put(WriteOptions(), "m" + std::to_string(i), "v"));
    ASSERT_OK(db->Flush(no_wait));
    if (i == 0) ASSERT_TRUE(gated->WaitUntilHeld(10s));
  }
  // Takes the write controller's next slot 16 s ahead (a first delayed write does not wait).
  ASSERT_OK(db->Put(WriteOptions(), "big", std::string(256 << 10, 'x')));
  const uint64_t delays = options.statistics->getTickerCount(STALL_MEMTABLE_LIMIT_COUNT);
  Status delayed;
  std::thread writer([&] { delayed = db->Put(WriteOptions(), "delayed", "v"); });
  // The writer counts its delay before it waits.
  for (int i = 0; i < 1000 &&
                  options.statistics->getTickerCount(STALL_MEMTABLE_LIMIT_COUNT) == delays;
       i++) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_GT(options.statistics->getTickerCount(STALL_MEMTABLE_LIMIT_COUNT), delays);
  gated->Release();

  const auto start = std::chrono::steady_clock::now();
  EXPECT_OK(db->Close());
  const auto took = std::chrono::steady_clock::now() - start;
  writer.join();
  EXPECT_LT(took, 5s) << "Close waited "
                      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                      << " ms for a delayed writer";
  EXPECT_TRUE(delayed.ok() || delayed.IsShutdownInProgress()) << delayed.ToString();

  // Every acknowledged write is there after a reopen.
  db.reset();
  ASSERT_OK(DB::Open(options, kDBName, &db));
  std::string value;
  EXPECT_OK(db->Get(ReadOptions(), "big", &value));
  for (int i = 0; i < 4; i++) EXPECT_OK(db->Get(ReadOptions(), "m" + std::to_string(i), &value));
  if (delayed.ok()) EXPECT_OK(db->Get(ReadOptions(), "delayed", &value));
}

// The old WAL's sync fails at a memtable switch triggered by a write: the write is refused
// (not acknowledged), the memtable is not switched (no new WAL), the error is sticky until
// Resume, and after Resume and a power loss every acknowledged write is there.
TEST(DBCloseAndWalFailureTest, FailedWalSyncAtSwitchRefusesTheWriteAndIsSticky) {
  auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fault;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 10;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));
  auto wal_count = [&] {
    std::vector<std::string> names;
    EXPECT_OK(fault->GetChildren(kDBName, &names));
    int n = 0;
    for (const std::string& name : names) n += name.ends_with(".log") ? 1 : 0;
    return n;
  };
  // Fill the active memtable: the next write switches it.
  int acked = 0;
  uint64_t size = 0;
  while (db->GetIntProperty(DB::Properties::kCurSizeAllMemTables, &size) &&
         size < options.write_buffer_size) {
    ASSERT_OK(db->Put(WriteOptions(), "k" + std::to_string(acked++), std::string(4 << 10, 'v')));
  }
  const int wals = wal_count();
  fault->InjectError(FaultInjectionFileSystem::OpKind::kSync, 1, FaultIOError("WAL sync"));
  Status s = db->Put(WriteOptions(), "trigger", "v");
  fault->ClearInjectedErrors();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(wal_count(), wals) << "the memtable was switched although the old WAL's sync failed";
  EXPECT_FALSE(db->Put(WriteOptions(), "after", "v").ok()) << "the error is not sticky";
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), "trigger", &value).IsNotFound());
  ASSERT_OK(db->Resume());
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db->Put(sync, "synced", "v"));
  // Power loss: nothing unsynced survives.
  fault->SetFilesystemActive(false);
  db.reset();
  ASSERT_OK(fault->DropUnsyncedData());
  fault->SetFilesystemActive(true);
  ASSERT_OK(DB::Open(options, kDBName, &db));
  for (int i = 0; i < acked; i++) EXPECT_OK(db->Get(ReadOptions(), "k" + std::to_string(i), &value));
  EXPECT_OK(db->Get(ReadOptions(), "synced", &value));
  EXPECT_TRUE(db->Get(ReadOptions(), "trigger", &value).IsNotFound());
}

}  // namespace
}  // namespace shale
