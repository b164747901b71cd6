// Review tests for column families (issue 23): durability and concurrency findings against the
// `cf` branch. Each test states the interleaving it forces; each FAILS on the reviewed code.
//
// Gates: MultiGateFileSystem (below) holds chosen I/O calls (a Sync of a file whose path
// contains a text) until the test releases them, so the interleavings are exact, no sleeps
// except where noted (a writer queueing behind a held drop has no visible signal).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "multi_gate_file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using namespace std::chrono_literals;

using test::MultiGateFileSystem;

constexpr char kDB[] = "/cfreview";

Status OpenFamilies(const Options& options, const std::vector<std::string>& names,
                    std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db) {
  std::vector<ColumnFamilyDescriptor> families;
  families.emplace_back(kDefaultColumnFamilyName, ColumnFamilyOptions(options));
  for (const std::string& n : names) families.emplace_back(n, ColumnFamilyOptions(options));
  return DB::Open(DBOptions(options), kDB, families, handles, db);
}

void DestroyHandles(DB* db, std::vector<ColumnFamilyHandle*>* handles) {
  for (ColumnFamilyHandle* h : *handles) {
    if (h != nullptr) EXPECT_OK(db->DestroyColumnFamilyHandle(h));
  }
  handles->clear();
}

// Finding 1. A write checked while a drop of its family is writing the MANIFEST queues behind
// the drop ("ordered before the drop", db_impl_write.cc:174). If the dropped family is swept
// (DestroyColumnFamilyHandle of the last handle, db_impl_column_family.cc:270) before that
// write, as leader, collects its targets (db_impl_write.cc:228, after MakeRoomForWrite), the
// family is in neither column_families_ nor dropped_families_; InsertInto refuses the group
// AFTER it was written to the WAL (db_impl_write.cc:275) and the whole DB goes read-only with
// a background error -- from legal API use (drop, destroy handle, concurrent write).
// Here the leader is held in MakeRoomForWrite (the default family's memtables are all full
// and its flush is held at the table's Sync) while the handle is destroyed.
TEST(ColumnFamilyReviewTest, WriteQueuedBehindDropThenHandleDestroyedStopsTheDB) {
  auto gated = std::make_shared<MultiGateFileSystem>(NewMemFileSystem());
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
  const std::string big(70 << 10, 'x');

  // Default family: active memtable full, then switched with its flush held at the .sst Sync,
  // then full again: the next leader waits in MakeRoomForWrite (CanSwitch is false).
  ASSERT_OK(db->Put(WriteOptions(), def, "a", big));
  gated->Arm(1, ".sst");
  ASSERT_OK(db->Put(WriteOptions(), def, "b", "small"));  // switches; flush starts
  ASSERT_TRUE(gated->WaitUntilHeld(1));
  ASSERT_OK(db->Put(WriteOptions(), def, "c", big));

  // The drop holds the write queue's front while its MANIFEST record is synced.
  gated->Arm(2, "MANIFEST");
  Status drop_status;
  std::thread dropper([&] { drop_status = db->DropColumnFamily(cf1); });
  ASSERT_TRUE(gated->WaitUntilHeld(2));
  // A writer to cf1: checked now (cf1 is live), queued behind the drop.
  Status write_status;
  std::thread writer([&] { write_status = db->Put(WriteOptions(), cf1, "k", "v"); });
  std::this_thread::sleep_for(300ms);  // no signal for "queued"; 300 ms is plenty
  gated->Release(2);
  dropper.join();
  ASSERT_OK(drop_status);
  // The writer now leads and waits for the held flush. The last handle of cf1 goes: swept.
  ASSERT_OK(db->DestroyColumnFamilyHandle(cf1));
  handles[1] = nullptr;
  gated->Release(1);
  writer.join();
  // Either outcome of the queued write is acceptable (ordered before the drop, or refused),
  std::printf("queued write to the dropped family: %s\n", write_status.ToString().c_str());
  // but the DB must still take writes.
  std::string bg;
  Status after = db->Put(WriteOptions(), def, "after", "1");
  EXPECT_TRUE(after.ok()) << "the DB went read-only after a write raced a drop: "
                          << after.ToString();
  DestroyHandles(db.get(), &handles);
  db->Close().PermitUncheckedError();
}

// Finding 2. A dropped family whose last handle is destroyed while an iterator on it lives is
// never swept: SweepDroppedFamiliesLocked runs only in DestroyColumnFamilyHandle (and Close),
// and skips the family while the iterator's cleanup holds a shared_ptr to it
// (db_impl_read.cc:280). When the iterator goes, nothing sweeps: the family's SuperVersion
// keeps its Version and so its table files alive, and its memtables' memory, until Close.
// db.h promises the data "is deleted once the last of them is gone".
TEST(ColumnFamilyReviewTest, DroppedFamilyFilesOutliveItsLastIterator) {
  auto fs = NewMemFileSystem();
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  ColumnFamilyHandle* cf1 = handles[1];
  ASSERT_OK(db->Put(WriteOptions(), cf1, "k", std::string(1000, 'v')));
  ASSERT_OK(db->Flush(FlushOptions(), cf1));
  auto tables = [&] {
    std::vector<std::string> children;
    EXPECT_OK(fs->GetChildren(kDB, &children));
    std::vector<std::string> out;
    for (const std::string& c : children) {
      if (c.size() > 4 && c.substr(c.size() - 4) == ".sst") out.push_back(c);
    }
    return out;
  };
  ASSERT_EQ(tables().size(), 1u);
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), cf1);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  ASSERT_OK(db->DropColumnFamily(cf1));
  ASSERT_OK(db->DestroyColumnFamilyHandle(cf1));
  handles[1] = nullptr;
  ASSERT_EQ(tables().size(), 1u);  // the iterator still reads it: kept, as it must be
  it.reset();                      // the last holder goes
  // Anything that deletes obsolete files: a flush of the default family.
  ASSERT_OK(db->Put(WriteOptions(), handles[0], "d", "1"));
  ASSERT_OK(db->Flush(FlushOptions(), handles[0]));
  // One table (the default family's); the dropped family's must be gone.
  std::vector<std::string> left = tables();
  EXPECT_EQ(left.size(), 1u) << "the dropped family's table is still on disk after its last "
                                "handle and iterator are gone";
  DestroyHandles(db.get(), &handles);
  ASSERT_OK(db->Close());
}

// Finding 2b. db.h says a handle is released "with DB::DestroyColumnFamilyHandle (or delete)".
// With `delete`, nothing ever sweeps the dropped family (only DestroyColumnFamilyHandle and
// Close do): its tables stay on disk and its memtables in memory until Close, and every write
// group walks it and copies its shared_ptr (db_impl_write.cc:229-232).
TEST(ColumnFamilyReviewTest, DroppedFamilyReleasedWithDeleteIsNeverSwept) {
  auto fs = NewMemFileSystem();
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  ASSERT_OK(db->Put(WriteOptions(), handles[1], "k", std::string(1000, 'v')));
  ASSERT_OK(db->Flush(FlushOptions(), handles[1]));
  ASSERT_OK(db->DropColumnFamily(handles[1]));
  delete handles[1];  // as db.h allows
  handles[1] = nullptr;
  ASSERT_OK(db->Put(WriteOptions(), handles[0], "d", "1"));
  ASSERT_OK(db->Flush(FlushOptions(), handles[0]));
  std::vector<std::string> children;
  ASSERT_OK(fs->GetChildren(kDB, &children));
  int tables = 0;
  for (const std::string& c : children) tables += c.size() > 4 && c.substr(c.size() - 4) == ".sst";
  EXPECT_EQ(tables, 1) << "the dropped family's table is still on disk after its only handle "
                          "was deleted";
  DestroyHandles(db.get(), &handles);
  ASSERT_OK(db->Close());
}

// Finding 3. A DropColumnFamily whose MANIFEST Sync fails returns the error and leaves the
// family live in memory, but the drop record was appended in full (only the Sync failed) and
// stays in the MANIFEST. Resume() clears the error without writing a new MANIFEST
// (db_impl_background.cc:282: only a failed WAL is replaced). Writes to the family are then
// acknowledged (even synced); the next Open reads the drop record and the family -- with
// those acknowledged writes -- is gone.
TEST(ColumnFamilyReviewTest, FailedDropThenResumeLosesAcknowledgedWrites) {
  auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fault;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  ASSERT_OK(db->Put(WriteOptions(), handles[1], "before", "1"));
  // The next Sync is the drop's MANIFEST record.
  fault->InjectError(FaultInjectionFileSystem::OpKind::kSync, 1, FaultIOError("manifest sync"));
  Status drop = db->DropColumnFamily(handles[1]);
  ASSERT_FALSE(drop.ok());
  fault->ClearInjectedErrors();
  ASSERT_OK(db->Resume());
  // The family is live (the drop failed): a synced write to it is acknowledged.
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db->Put(sync, handles[1], "acked", "2"));
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), handles[1], "acked", &v));
  DestroyHandles(db.get(), &handles);
  ASSERT_OK(db->Close());  // writes no MANIFEST record (no unlogged writes): as a crash would
  db.reset();

  options.create_missing_column_families = false;
  Status reopen = OpenFamilies(options, {"cf1"}, &handles, &db);
  EXPECT_TRUE(reopen.ok()) << "the family the failed drop left live is gone after reopen: "
                           << reopen.ToString();
  if (reopen.ok()) {
    EXPECT_OK(db->Get(ReadOptions(), handles[1], "acked", &v));
    DestroyHandles(db.get(), &handles);
    ASSERT_OK(db->Close());
  }
}


// Finding 4. A flush of family A also raises the log number of every idle family in the same
// atomic MANIFEST group (db_impl_background.cc:144-160). If an idle family B is dropped while
// that group waits in the VersionSet's queue behind the drop's MANIFEST write, the group is
// refused ("LogAndApply: column family 1 does not exist", version_set.cc:163) and, since the
// dropped family is not one of the flushed parts, any_dropped is false
// (db_impl_background.cc:167-183): the refusal is recorded as a background error and the DB
// goes read-only -- from a drop of an idle family racing any flush.
// Interleaving: the flush of the default family is held at its table Sync; the drop of cf1 is
// held at its MANIFEST Sync (the VersionSet queue's front, mu_ released); the flush goes on,
// computes its edits with cf1 still live and idle, and queues behind the drop; the drop ends.
TEST(ColumnFamilyReviewTest, DropOfIdleFamilyRacingAFlushStopsTheDB) {
  auto gated = std::make_shared<MultiGateFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  // cf1 is idle: nothing in memory, its log number is the WAL Open started (below the one the
  // flush's switch starts).
  ASSERT_OK(db->Put(WriteOptions(), handles[0], "a", "1"));
  gated->Arm(1, ".sst");
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db->Flush(no_wait, handles[0]));
  ASSERT_TRUE(gated->WaitUntilHeld(1));
  gated->Arm(2, "MANIFEST");
  Status drop_status;
  std::thread dropper([&] { drop_status = db->DropColumnFamily(handles[1]); });
  ASSERT_TRUE(gated->WaitUntilHeld(2));
  gated->Release(1);  // the flush builds its table, computes its edits, queues behind the drop
  std::this_thread::sleep_for(300ms);  // no signal for "queued in the VersionSet"
  gated->Release(2);
  dropper.join();
  ASSERT_OK(drop_status);
  // Waits for the held flush to end (its memtable flushed, or the background error).
  Status flushed = db->Flush(FlushOptions(), handles[0]);
  std::printf("flush after the drop: %s\n", flushed.ToString().c_str());
  Status after = db->Put(WriteOptions(), handles[0], "b", "2");
  EXPECT_TRUE(after.ok()) << "a flush racing the drop of an idle family stopped the DB: "
                          << after.ToString();
  DestroyHandles(db.get(), &handles);
  db->Close().PermitUncheckedError();
}

// Finding 5 (performance trap). max_total_wal_size: FamilyPinningOldestWalLocked
// (db_impl_write.cc:560) switches every family whose log number is the oldest and whose active
// memtable holds writes that began before the current WAL. It has no memory that the oldest
// WAL's flush was already requested (RocksDB marks the WAL getting_flushed), and its test
// `mems.log_number() < log_number_` becomes true again as soon as ANOTHER family switches (a
// switch starts a new WAL). So until the first flush lands, with two families written in turn
// every write group switches a memtable and starts a WAL: tiny memtables, tiny L0 files, and
// stalls at max_write_buffer_number. Here the flush is held at its table Sync and 40 small
// writes alternate between the two families.
TEST(ColumnFamilyReviewTest, MaxTotalWalSizeSwitchStorm) {
  auto gated = std::make_shared<MultiGateFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  options.max_write_buffer_number = 64;
  options.max_total_wal_size = 1024;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenFamilies(options, {"cf1"}, &handles, &db));
  const std::string value(600, 'v');
  ASSERT_OK(db->Put(WriteOptions(), handles[0], "a", value));
  ASSERT_OK(db->Put(WriteOptions(), handles[1], "a", value));
  gated->Arm(1, ".sst");
  FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db->Flush(no_wait, handles[0]));  // held: the oldest WAL cannot go yet
  ASSERT_TRUE(gated->WaitUntilHeld(1));
  auto wals = [&] {
    std::vector<std::string> children;
    EXPECT_OK(gated->GetChildren(kDB, &children));
    int n = 0;
    for (const std::string& c : children) n += c.size() > 4 && c.substr(c.size() - 4) == ".log";
    return n;
  };
  const int before = wals();
  for (int i = 0; i < 40; i++) {
    ASSERT_OK(db->Put(WriteOptions(), handles[i % 2], "k" + std::to_string(i), value));
  }
  const int made = wals() - before;
  std::printf("WALs started by 40 small writes while the first flush is pending: %d\n", made);
  // Once each family pinning the oldest WAL was switched, nothing more can be gained before
  // the flushes land: at most one switch per family.
  EXPECT_LE(made, 2) << "every write group switched a memtable (switch storm)";
  gated->Release(1);
  DestroyHandles(db.get(), &handles);
  db->Close().PermitUncheckedError();
}


// Power-loss model check (no finding expected; a net for the WAL rules): three families,
// every write synced (so every acknowledged write must survive), batches spanning families,
// flushes of single families, the max_total_wal_size switches, drops and re-creates of one
// family; power loss at random points, reopen, compare with the model.
TEST(ColumnFamilyReviewTest, PowerLossKeepsEverySyncedWriteOfEveryFamily) {
  for (uint32_t seed = 1; seed <= 6; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    Options options;
    options.file_system = fault;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    options.write_buffer_size = 64 << 10;
    options.max_write_buffer_number = 4;
    options.max_total_wal_size = 200 << 10;
    std::mt19937 rnd(seed);
    const std::vector<std::string> names = {"a", "b"};
    std::vector<std::map<std::string, std::string>> model(3);
    std::vector<ColumnFamilyHandle*> handles;
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenFamilies(options, names, &handles, &db));
    WriteOptions sync;
    sync.sync = true;
    auto crash_and_check = [&]() {
      fault->SetFilesystemActive(false);
      db.reset();
      for (ColumnFamilyHandle* h : handles) delete h;
      handles.clear();
      ASSERT_OK(fault->DropUnsyncedData());
      fault->SetFilesystemActive(true);
      ASSERT_OK(OpenFamilies(options, names, &handles, &db));
      for (int f = 0; f < 3; f++) {
        std::map<std::string, std::string> found;
        std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), handles[f]);
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
          found[std::string(it->key())] = std::string(it->value());
        }
        ASSERT_OK(it->status());
        ASSERT_EQ(found.size(), model[f].size()) << "family " << f;
        ASSERT_TRUE(found == model[f]) << "family " << f;
      }
    };
    for (int op = 0; op < 3000; op++) {
      const int r = static_cast<int>(rnd() % 100);
      const int f = static_cast<int>(rnd() % 3);
      const std::string key = "k" + std::to_string(rnd() % 300);
      const std::string value(static_cast<size_t>(rnd() % 3000), static_cast<char>('a' + op % 26));
      if (r < 70) {
        ASSERT_OK(db->Put(sync, handles[f], key, value));
        model[f][key] = value;
      } else if (r < 85) {
        WriteBatch batch;
        for (int g = 0; g < 3; g++) ASSERT_OK(batch.Put(handles[g], key, value));
        const int d = static_cast<int>(rnd() % 3);
        const std::string deleted = "k" + std::to_string(rnd() % 300);
        ASSERT_OK(batch.Delete(handles[d], deleted));
        ASSERT_OK(db->Write(sync, &batch));
        for (int g = 0; g < 3; g++) model[g][key] = value;
        model[d].erase(deleted);
      } else if (r < 92) {
        FlushOptions fo;
        fo.wait = (rnd() % 2) == 0;
        ASSERT_OK(db->Flush(fo, handles[f]));
      } else if (r < 94) {
        // Drop and re-create "b" (index 2): its data is gone.
        ASSERT_OK(db->DropColumnFamily(handles[2]));
        ASSERT_OK(db->DestroyColumnFamilyHandle(handles[2]));
        handles[2] = nullptr;
        ASSERT_OK(db->CreateColumnFamily(ColumnFamilyOptions(options), "b", &handles[2]));
        model[2].clear();
      } else if (r < 95) {
        crash_and_check();
        if (HasFatalFailure()) return;
      }
    }
    crash_and_check();
    if (HasFatalFailure()) return;
    for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
    handles.clear();
    ASSERT_OK(db->Close());
  }
}



// atomic_flush model check (no finding expected): batches written without the WAL, each
// putting one key with one value into all three families; flushes of single families, natural
// switches; power loss at random points. After each reopen the three families must hold the
// same contents (each batch is all or nothing across families).
TEST(ColumnFamilyReviewTest, AtomicFlushKeepsUnloggedBatchesWholeAcrossPowerLoss) {
  for (uint32_t seed = 1; seed <= 6; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    Options options;
    options.file_system = fault;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    options.write_buffer_size = 64 << 10;
    options.max_write_buffer_number = 4;
    options.atomic_flush = true;
    std::mt19937 rnd(seed);
    const std::vector<std::string> names = {"a", "b"};
    std::vector<ColumnFamilyHandle*> handles;
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenFamilies(options, names, &handles, &db));
    WriteOptions no_wal;
    no_wal.disableWAL = true;
    auto crash_and_check = [&]() {
      fault->SetFilesystemActive(false);
      db.reset();
      for (ColumnFamilyHandle* h : handles) delete h;
      handles.clear();
      ASSERT_OK(fault->DropUnsyncedData());
      fault->SetFilesystemActive(true);
      ASSERT_OK(OpenFamilies(options, names, &handles, &db));
      std::vector<std::map<std::string, std::string>> found(3);
      for (int f = 0; f < 3; f++) {
        std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), handles[f]);
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
          found[f][std::string(it->key())] = std::string(it->value());
        }
        ASSERT_OK(it->status());
      }
      ASSERT_TRUE(found[0] == found[1] && found[1] == found[2])
          << "families differ after power loss: " << found[0].size() << " " << found[1].size()
          << " " << found[2].size();
    };
    for (int op = 0; op < 3000; op++) {
      const int r = static_cast<int>(rnd() % 100);
      if (r < 90) {
        const std::string key = "k" + std::to_string(rnd() % 300);
        const std::string value = std::to_string(op) + std::string(rnd() % 2000, 'v');
        WriteBatch batch;
        for (int g = 0; g < 3; g++) ASSERT_OK(batch.Put(handles[g], key, value));
        ASSERT_OK(db->Write(no_wal, &batch));
      } else if (r < 98) {
        ASSERT_OK(db->Flush(FlushOptions(), handles[rnd() % 3]));
      } else {
        crash_and_check();
        if (HasFatalFailure()) return;
      }
    }
    crash_and_check();
    if (HasFatalFailure()) return;
    for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
    handles.clear();
    ASSERT_OK(db->Close());
  }
}

}  // namespace
}  // namespace shale
