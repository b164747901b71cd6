// Second review of column families (issue 23): durability and concurrency of the fixes of the
// first review (b453462 and after: ReleaseDroppedFamilies from handles and iterators, the
// HandleOwner, the flush retry, the Resume MANIFEST rewrite). Each test states the
// interleaving it forces; each FAILS on the reviewed code (main at 45df326).
//
// Thread-safety of the helpers: CountingFileSystem counts with atomics (thread-safe, as the
// FileSystem it wraps); the merge operator below is used as MergeOperator requires.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <algorithm>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/write_batch.h"
#include "shale/merge_operator.h"
#include "multi_gate_file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr char kDB[] = "/cfreview2";

// Counts the directory listings of the DB directory (DeleteObsoleteFiles does one per call).
class CountingFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "counting"; }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    if (dir == kDB) listings_.fetch_add(1, std::memory_order_relaxed);
    return base()->GetChildren(dir, names);
  }
  uint64_t listings() const { return listings_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> listings_{0};
};

Status OpenFamilies(const Options& options, const std::vector<std::string>& names,
                    std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db) {
  std::vector<ColumnFamilyDescriptor> families;
  families.emplace_back(kDefaultColumnFamilyName, ColumnFamilyOptions(options));
  for (const std::string& n : names) families.emplace_back(n, ColumnFamilyOptions(options));
  return DB::Open(DBOptions(options), kDB, families, handles, db);
}

using namespace std::chrono_literals;

// The gated file system of the first review's tests (multi_gate_file_system.h).
using GateFileSystem = test::MultiGateFileSystem;

std::vector<std::string> TableFiles(FileSystem* fs) {
  std::vector<std::string> children, out;
  EXPECT_OK(fs->GetChildren(kDB, &children));
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kTableFile) out.push_back(name);
  }
  return out;
}

// Finding 4 (space, low). A dropped family is swept only by ReleaseDroppedFamilies (a handle's
// destructor, an iterator's cleanup) or by some later DeleteObsoleteFiles. The other holders
// let go without sweeping: a write queued behind the drop (`named`/`held`,
// db_impl_write.cc:179/224), Flush()'s and Resume's family vectors, IngestExternalFile's and
// CompactRange's early returns. When such a holder is the last, the family's memtables and
// table files stay until some unrelated flush, compaction, iterator or handle release runs
// DeleteObsoleteFiles -- and Close deletes nothing (the next Open does). Today finding 1 hides
// this (any iterator destruction sweeps); a fix of finding 1 that sweeps only when a dropped
// family is released must also sweep here.
// Interleaving: the default family's flush is held (table Sync) so that a write to cf1,
// checked while cf1 is live and queued behind the drop, is still in flight when the last
// handle goes; the write's memtable switch is held (WAL Sync) until the flush thread's sweep
// has passed; the next flush is held so nothing else sweeps; then the write returns.
TEST(ColumnFamilyReview2Test, DroppedFamilyKeptWhenAQueuedWriteIsItsLastHolder) {
  auto gated = std::make_shared<GateFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.write_buffer_size = 64 << 10;
  options.max_write_buffer_number = 2;
  options.db_write_buffer_size = 0;
  options.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  ColumnFamilyHandle* def = handles[0];
  ColumnFamilyHandle* cf1 = handles[1];
  ASSERT_OK(db->Put(WriteOptions(), cf1, "k", std::string(1000, 'v')));
  ASSERT_OK(db->Flush(FlushOptions(), cf1));
  const std::vector<std::string> cf1_tables = TableFiles(gated.get());
  ASSERT_EQ(cf1_tables.size(), 1u);

  const std::string big(70 << 10, 'x');
  ASSERT_OK(db->Put(WriteOptions(), def, "a", big));
  gated->Arm(1, ".sst");
  ASSERT_OK(db->Put(WriteOptions(), def, "b", "small"));  // switches; its flush is held
  ASSERT_TRUE(gated->WaitUntilHeld(1));
  ASSERT_OK(db->Put(WriteOptions(), def, "c", big));  // full again: the next leader waits

  gated->Arm(2, "MANIFEST");
  Status drop_status;
  std::thread dropper([&] { drop_status = db->DropColumnFamily(cf1); });
  ASSERT_TRUE(gated->WaitUntilHeld(2));
  Status write_status;
  std::thread writer([&] { write_status = db->Put(WriteOptions(), cf1, "k2", "v"); });
  std::this_thread::sleep_for(300ms);  // the writer queues behind the drop (no signal)
  gated->Release(2);
  dropper.join();
  ASSERT_OK(drop_status);
  ASSERT_OK(db->DestroyColumnFamilyHandle(cf1));  // the write still holds the family
  handles[1] = nullptr;
  gated->Arm(3, ".log");  // the writer's switch of the default memtable syncs the old WAL
  gated->Release(1);      // the flush lands; its DeleteObsoleteFiles skips cf1 (held)
  ASSERT_TRUE(gated->WaitUntilHeld(3));
  std::this_thread::sleep_for(300ms);  // the flush thread's sweep passes
  gated->Arm(4, ".sst");               // the flush the switch schedules sweeps nothing
  gated->Release(3);
  writer.join();  // the last holder of cf1 is gone
  ASSERT_OK(write_status);
  const std::vector<std::string> now = TableFiles(gated.get());
  const bool kept = std::find(now.begin(), now.end(), cf1_tables[0]) != now.end();
  EXPECT_FALSE(kept) << "the dropped family's table " << cf1_tables[0]
                     << " is still on disk after its last holder (a write) returned";
  gated->Release(4);
  // Only the next unrelated DeleteObsoleteFiles reclaims it: here an iterator's cleanup
  // (finding 1's behaviour).
  ASSERT_OK(db->Flush(FlushOptions(), def));
  db->NewIterator(ReadOptions(), def).reset();
  const std::vector<std::string> later = TableFiles(gated.get());
  EXPECT_TRUE(std::find(later.begin(), later.end(), cf1_tables[0]) == later.end());
  ASSERT_OK(db->DestroyColumnFamilyHandle(def));
  ASSERT_OK(db->Close());
}

// Finding 1 (performance, latency). ReleaseDroppedFamilies (db_impl_column_family.cc:290)
// runs a whole DeleteObsoleteFiles -- an InFlightCall, the DB mutex three times, a listing of
// the DB directory and the deletions -- whenever num_dropped_families_ > 0, and it is called
// from EVERY iterator's cleanup (db_impl_read.cc:281-285) and every handle's destructor, of
// any family, live ones included. num_dropped_families_ counts the dropped families not yet
// swept, so it stays > 0 for as long as the application keeps the dropped family's handle
// (RocksDB's usual order: DropColumnFamily now, DestroyColumnFamilyHandle at shutdown). From
// then on each short-lived iterator on the default family costs a directory listing (on a DB
// of thousands of tables, and under the HandleOwner's mutex for handle destructors).
// Here: one family dropped with its handle kept, then 200 iterators on the default family.
TEST(ColumnFamilyReview2Test, IteratorOfALiveFamilyListsTheDirectoryAfterAnyDrop) {
  auto counting = std::make_shared<CountingFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = counting;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  ASSERT_OK(db->Put(WriteOptions(), handles[0], "k", "v"));
  ASSERT_OK(db->DropColumnFamily(handles[1]));  // its handle is kept, as RocksDB allows

  const uint64_t before = counting->listings();
  for (int i = 0; i < 200; i++) {
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), handles[0]);
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
  }
  const uint64_t listings = counting->listings() - before;
  EXPECT_LE(listings, 1u) << "200 iterators of the (live) default family listed the DB "
                             "directory "
                          << listings << " times because another family was dropped";

  for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db->Close());
}

// Finding 3 (data consistency). wal_recovery_mode = kPointInTimeRecovery (the default) stops
// the replay at the first corrupted WAL record and skips every later WAL
// (db_impl_open.cc:ReplayWals, ReplayWal's *stop). With one family that leaves a prefix of
// the writes. With several, a family whose log number is above the corrupted WAL already has
// in its TABLES writes made after the corruption point (it flushed past that WAL), while the
// other families lose them: a batch spanning families comes back half applied, silently.
// RocksDB refuses such an Open ("SST file is ahead of WALs" / column family inconsistency:
// a family's log number beyond the WAL where the replay stopped). Here WAL N0 holds batch 1
// {a:k1, b:k1} and batch 1b {b:x}; a flush of `a` moves to WAL N1, batch 2 {a:k2, b:k2} goes
// to N1, a second flush of `a` puts k2 in a's table; then one byte of batch 1's record in N0
// is damaged (a media error).
TEST(ColumnFamilyReview2Test, PointInTimeRecoveryTearsABatchAcrossFamilies) {
  auto fs = NewMemFileSystem();
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  // b's writes must stay in the WALs at Close (one of them is damaged below).
  options.avoid_flush_during_shutdown = true;
  ASSERT_EQ(options.wal_recovery_mode, WALRecoveryMode::kPointInTimeRecovery);
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"a", "b"}, &handles, &db));
  ColumnFamilyHandle* a = handles[1];
  ColumnFamilyHandle* b = handles[2];
  auto both = [&](const std::string& key) {
    WriteBatch batch;
    EXPECT_OK(batch.Put(a, key, "A-" + key));
    EXPECT_OK(batch.Put(b, key, "B-" + key));
    WriteOptions sync;
    sync.sync = true;
    return db->Write(sync, &batch);
  };
  ASSERT_OK(both("k1"));
  ASSERT_OK(db->Put(WriteOptions(), b, "x", "1"));  // a second record in the first WAL
  ASSERT_OK(db->Flush(FlushOptions(), a));          // a: k1 in a table; a's log number N1
  ASSERT_OK(both("k2"));                            // in WAL N1
  ASSERT_OK(db->Flush(FlushOptions(), a));          // a: k2 in a table; a's log number N2
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  handles.clear();
  ASSERT_OK(db->Close());  // b's writes stay in WALs N0 and N1 (avoid_flush_during_shutdown)
  db.reset();

  // Damage one byte of the first record of the oldest WAL (data follows it: a corruption,
  // not a torn tail).
  std::vector<std::string> children;
  ASSERT_OK(fs->GetChildren(kDB, &children));
  uint64_t oldest = UINT64_MAX;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kWalFile && number < oldest) {
      oldest = number;
    }
  }
  ASSERT_NE(oldest, UINT64_MAX);
  const std::string wal = WalFileName(kDB, oldest);
  std::string contents;
  ASSERT_OK(ReadFileToString(fs.get(), wal, &contents));
  ASSERT_GT(contents.size(), 40u);
  contents[20] ^= 0x55;  // inside the first record's payload (after its 7-byte header)
  ASSERT_OK(WriteStringToFile(fs.get(), contents, wal, /*sync=*/true));

  options.create_missing_column_families = false;
  Status reopen = OpenFamilies(options, {"a", "b"}, &handles, &db);
  if (!reopen.ok()) {
    // What RocksDB does: the families cannot be made consistent.
    std::printf("reopen refused: %s\n", reopen.ToString().c_str());
    return;
  }
  auto get = [&](ColumnFamilyHandle* h, const std::string& key) {
    std::string v;
    Status s = db->Get(ReadOptions(), h, key, &v);
    return s.ok() ? v : (s.IsNotFound() ? std::string("NOT_FOUND") : s.ToString());
  };
  const std::string a2 = get(handles[1], "k2"), b2 = get(handles[2], "k2");
  const std::string a1 = get(handles[1], "k1"), b1 = get(handles[2], "k1");
  EXPECT_EQ(a2 == "NOT_FOUND", b2 == "NOT_FOUND")
      << "batch 2 (a:k2, b:k2) came back half applied: a:k2=" << a2 << " b:k2=" << b2;
  EXPECT_EQ(a1 == "NOT_FOUND", b1 == "NOT_FOUND")
      << "batch 1 (a:k1, b:k1) came back half applied: a:k1=" << a1 << " b:k1=" << b1;
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db->Close());
}

// A merge operator that owns an iterator of the DB (as a user's operator may own any object
// whose destruction calls into the DB: an iterator, a handle; in Python, whatever the
// garbage collector frees while the operator's destructor callback runs).
class IteratorOwningMergeOperator final : public MergeOperator {
 public:
  ~IteratorOwningMergeOperator() override { owned.reset(); }
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    out->new_value = in.existing_value != nullptr ? std::string(*in.existing_value) : "";
    for (std::string_view op : in.operand_list) out->new_value.append(op);
    return true;
  }
  const char* Name() const override { return "IteratorOwningMergeOperator"; }
  std::unique_ptr<Iterator> owned;
};

// The scenario of finding 2, in the death test's child: exits 0 when it completes.
void DropFamilyWhoseMergeOperatorOwnsAnIterator() {
  alarm(10);  // a deadlock ends the child with SIGALRM
  Options options;
  options.file_system = NewMemFileSystem();
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  if (!DB::Open(options, kDB, &db).ok()) std::_Exit(2);
  ColumnFamilyOptions cf_options(options);
  auto op = std::make_shared<IteratorOwningMergeOperator>();
  cf_options.merge_operator = op;
  ColumnFamilyHandle* cf1 = nullptr;
  if (!db->CreateColumnFamily(cf_options, "cf1", &cf1).ok()) std::_Exit(3);
  cf_options.merge_operator.reset();
  // The operator owns an iterator of the default family; the family is now its only owner.
  op->owned = db->NewIterator(ReadOptions(), db->DefaultColumnFamily());
  op.reset();
  if (!db->DropColumnFamily(cf1).ok()) std::_Exit(4);
  // The last holder goes: ReleaseDroppedFamilies -> DeleteObsoleteFiles ->
  // SweepDroppedFamiliesLocked erases the family WITH mu_ HELD; ~ColumnFamilyData ->
  // ~IteratorOwningMergeOperator -> the iterator's cleanup -> ReleaseDroppedFamilies
  // (num_dropped_families_ is still 1: decremented after the erase) -> InFlightCall locks
  // mu_ again: self-deadlock.
  if (!db->DestroyColumnFamilyHandle(cf1).ok()) std::_Exit(5);
  if (!db->Close().ok()) std::_Exit(6);
  std::_Exit(0);
}

// Finding 2. SweepDroppedFamiliesLocked (db_impl_column_family.cc:312) destroys the last
// shared_ptr of a dropped family with the DB mutex held, so the family's options -- the
// user's merge operator, filter policy, ... -- are destroyed under mu_. A user destructor
// that calls into the DB (releases an iterator or a handle) self-deadlocks: the iterator's
// cleanup calls ReleaseDroppedFamilies, whose InFlightCall takes mu_ (and
// num_dropped_families_ is decremented only after the erase, so the fast path does not save
// it). Before the sweep existed these objects were released when the DB was destroyed,
// without the mutex. (The Python binding's operator destructor runs Python code, where the
// garbage collector may free an Iterator at any allocation.)
TEST(ColumnFamilyReview2Test, MergeOperatorDestroyedUnderTheDBMutex) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(DropFamilyWhoseMergeOperatorOwnsAnIterator(), testing::ExitedWithCode(0), "")
      << "dropping a family whose merge operator owns an iterator deadlocked (SIGALRM) or "
         "failed";
}

}  // namespace
}  // namespace shale
