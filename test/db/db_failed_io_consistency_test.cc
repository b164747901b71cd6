// Review of the fixes of issue 19, findings 3, 13, 14 and 16 (branch fix/ingest): what the
// ingestion and SetOptions do when a sync fails on the way.
//  - A moved (hard-linked) file whose sync fails: the call fails, the DB is unchanged and
//    still writable, the original is kept, and a retry is durable.
//  - A sequence-0 ingestion whose MANIFEST sync fails while GetSnapshot waits for it: the
//    waiter is released (no hang) and its snapshot reads one state.
//  - A SetOptions whose OPTIONS file was renamed but whose directory sync failed (and whose
//    cleanup failed too): the file with the values that were not applied must not stay the
//    DB's latest OPTIONS file (db.h promises the old file stays the latest).
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gated_file_system.h"
#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/options_files.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using FI = FaultInjectionFileSystem;
using namespace std::chrono_literals;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Value(int i) { return "value-" + std::to_string(i); }

// Writes a table of keys [first, first + n) at `path` through `fs`, synced (SstFileWriter).
void WriteTable(std::shared_ptr<FileSystem> fs, const std::string& path, int first, int n) {
  SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), std::move(fs));
  ASSERT_OK(writer.Open(path));
  for (int i = first; i < first + n; i++) ASSERT_OK(writer.Put(Key(i), Value(i)));
  ASSERT_OK(writer.Finish());
}

// Writes the table of keys [0, n) at `path` as cp would: the data is never synced.
void WriteUnsyncedTable(FI* fs, std::shared_ptr<FileSystem> holder, const std::string& path,
                        int n) {
  const std::string staging = path + ".staging";
  ASSERT_NO_FATAL_FAILURE(WriteTable(std::move(holder), staging, 0, n));
  std::string contents;
  ASSERT_OK(ReadFileToString(fs, staging, &contents));
  ASSERT_OK(fs->DeleteFile(staging));
  std::unique_ptr<WritableFile> out;
  ASSERT_OK(fs->NewWritableFile(path, &out));
  ASSERT_OK(out->Append(contents));
  ASSERT_OK(out->Close());
  ASSERT_OK(fs->SyncDir(path.substr(0, path.rfind('/'))));
}

using test::LatestOptionsFile;

// Finding 3: the sync of the linked file fails. Nothing is acknowledged, nothing is lost, and
// the retry is durable.
TEST(DBIngestReviewTest, FailedSyncOfLinkedFileLeavesTheDBUnchangedAndRetryIsDurable) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  ASSERT_OK(fs->CreateDirIfMissing("/ext"));
  constexpr int kKeys = 200;
  ASSERT_NO_FATAL_FAILURE(WriteUnsyncedTable(fs.get(), fs, "/ext/data.sst", kKeys));
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  IngestExternalFileOptions ingest;
  ingest.move_files = true;

  fs->ResetOpCounts();
  fs->InjectError(FI::OpKind::kSync, 1, FaultIOError("sync of the linked file"));
  Status s = db->IngestExternalFile({"/ext/data.sst"}, ingest);
  fs->ClearInjectedErrors();
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(fs->OpCount(FI::OpKind::kLink), 1u);
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), Key(1), &value).IsNotFound());
  ASSERT_OK(fs->FileExists("/ext/data.sst"));  // the original is kept
  ASSERT_OK(db->Put(WriteOptions(), "other", "x"));  // not read-only: nothing was committed

  ASSERT_OK(db->IngestExternalFile({"/ext/data.sst"}, ingest));
  EXPECT_TRUE(fs->FileExists("/ext/data.sst").IsNotFound());
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(fs->DropUnsyncedData());
  ASSERT_OK(DB::Open(options, "/db", &db));
  for (int i = 0; i < kKeys; i++) {
    SCOPED_TRACE(Key(i));
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &value));
    ASSERT_EQ(value, Value(i));
  }
  ASSERT_OK(db->Close());
}

// Finding 13: GetSnapshot waits for a sequence-0 ingestion's MANIFEST write. When that write
// fails, the waiter must be let go, and its snapshot must read one state.
TEST(DBIngestReviewTest, GetSnapshotIsReleasedWhenSequenceZeroIngestionManifestWriteFails) {
  auto fault = std::make_shared<FI>(NewMemFileSystem());
  auto fs = std::make_shared<GatedFileSystem>(fault);
  ASSERT_OK(fs->CreateDirIfMissing("/ext"));
  ASSERT_NO_FATAL_FAILURE(WriteTable(fs, "/ext/z.sst", 500, 10));
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), Key(1), Value(1)));

  fs->Arm(GatedFileSystem::Op::kSync, "MANIFEST");
  auto ingest = std::async(std::launch::async, [&] {
    return db->IngestExternalFile({"/ext/z.sst"}, IngestExternalFileOptions());
  });
  ASSERT_TRUE(fs->WaitUntilHeld(10s));
  auto snapshot = std::async(std::launch::async, [&] { return db->GetSnapshot(); });
  // Let GetSnapshot reach its wait (it waits for the ingestion, or is done already).
  snapshot.wait_for(200ms);
  fault->InjectError(FI::OpKind::kSync, 1, FaultIOError("MANIFEST sync"));
  fs->Release();
  Status s = ingest.get();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  ASSERT_EQ(snapshot.wait_for(10s), std::future_status::ready)
      << "GetSnapshot still waits for an ingestion that failed";
  fault->ClearInjectedErrors();
  const Snapshot* snap = snapshot.get();
  ReadOptions ro;
  ro.snapshot = snap;
  std::string value;
  Status first = db->Get(ro, Key(505), &value);
  Status second = db->Get(ro, Key(505), &value);
  EXPECT_EQ(first.ToString(), second.ToString());
  ASSERT_OK(db->Get(ro, Key(1), &value));
  db->ReleaseSnapshot(snap);
  db->Close().PermitUncheckedError();  // the DB is read-only after the MANIFEST failure
}

// Finding 16: SetOptions renamed its new OPTIONS file, then the directory sync failed and so
// did removing the file. SetOptions returns the error and the old values stay live; the file
// holding the values that were not applied must not remain the DB's latest OPTIONS file (what
// LoadLatestOptions-style tools, and a restart after a crash, read).
TEST(DBIngestReviewTest, FailedSetOptionsLeavesNoLatestOptionsFileWithUnappliedValues) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.level0_file_num_compaction_trigger = 4;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));

  fs->InjectError(FI::OpKind::kSyncDir, 1, FaultIOError("OPTIONS directory sync"));
  fs->InjectError(FI::OpKind::kDelete, 1, FaultIOError("OPTIONS cleanup"));
  Status s = db->SetOptions({{"level0_file_num_compaction_trigger", "9"}});
  fs->ClearInjectedErrors();
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 4);
  // Work that sweeps obsolete files runs meanwhile.
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));
  ASSERT_OK(db->Flush(FlushOptions()));
  uint64_t number = 0;
  EXPECT_EQ(LatestOptionsFile(fs.get(), "/db", &number).level0_file_num_compaction_trigger, 4)
      << "OPTIONS-" << number << " holds a change SetOptions reported as not applied";

  // A later SetOptions lands, and it is the latest.
  ASSERT_OK(db->SetOptions({{"level0_file_num_compaction_trigger", "7"}}));
  EXPECT_EQ(LatestOptionsFile(fs.get(), "/db", &number).level0_file_num_compaction_trigger, 7);
  ASSERT_OK(db->Close());
}

// The sweep of obsolete files (run by every flush) while SetOptions calls write their files
// without the DB mutex: the OPTIONS file being written is never taken, and at the end exactly
// one OPTIONS file is left, holding the live values.
TEST(DBIngestReviewTest, SetOptionsRacingFlushesKeepsExactlyTheLatestOptionsFile) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    for (int i = 0; !done.load(); i++) {
      EXPECT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
      EXPECT_OK(db->Flush(FlushOptions()));
    }
  });
  std::vector<std::thread> setters;
  for (int t = 0; t < 2; t++) {
    setters.emplace_back([&, t] {
      for (int i = 0; i < 100; i++) {
        EXPECT_OK(db->SetOptions(
            {{"level0_file_num_compaction_trigger", std::to_string(2 + t + 2 * (i % 5))}}));
      }
    });
  }
  for (std::thread& t : setters) t.join();
  done.store(true);
  flusher.join();
  ASSERT_OK(db->Flush(FlushOptions()));  // one more sweep
  std::vector<std::string> names;
  ASSERT_OK(fs->GetChildren("/db", &names));
  int options_files = 0;
  for (const std::string& name : names) options_files += name.rfind("OPTIONS-", 0) == 0;
  EXPECT_EQ(options_files, 1);
  uint64_t number = 0;
  EXPECT_EQ(LatestOptionsFile(fs.get(), "/db", &number).level0_file_num_compaction_trigger,
            db->GetOptions().level0_file_num_compaction_trigger);
  ASSERT_OK(db->Close());
}

// Finding 14: a checkpoint copies the WAL being written up to its length at the front of the
// write queue. After a failed WAL sync that length includes the failed write's record: the
// write returned an error and the DB (read-only until Resume, which then retires that WAL
// unreplayed) never shows it. A checkpoint taken then must not hold it: it would open to a
// state the DB never had.
TEST(DBIngestReviewTest, CheckpointAfterFailedWalSyncHoldsNoUnacknowledgedWrite) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), "a", "acked"));
  WriteOptions sync;
  sync.sync = true;
  fs->InjectError(FI::OpKind::kSync, 1, FaultIOError("WAL sync"));
  Status put = db->Put(sync, "b", "failed");
  fs->ClearInjectedErrors();
  ASSERT_TRUE(put.IsIOError()) << put.ToString();
  std::string value;
  ASSERT_TRUE(db->Get(ReadOptions(), "b", &value).IsNotFound());  // the DB never shows it

  std::unique_ptr<Checkpoint> checkpoint;
  ASSERT_OK(Checkpoint::Create(db.get(), &checkpoint));
  Status s = checkpoint->CreateCheckpoint("/ckpt", 1ull << 30);  // copy the WAL
  if (s.ok()) {
    std::unique_ptr<DB> copy;
    Options copy_options = options;
    copy_options.create_if_missing = false;
    ASSERT_OK(DB::Open(copy_options, "/ckpt", &copy));
    ASSERT_OK(copy->Get(ReadOptions(), "a", &value));
    EXPECT_TRUE(copy->Get(ReadOptions(), "b", &value).IsNotFound())
        << "the checkpoint holds a write that failed and that the DB never showed";
    ASSERT_OK(copy->Close());
  } else {
    EXPECT_TRUE(s.IsIOError()) << s.ToString();  // the background error
    EXPECT_TRUE(fs->FileExists("/ckpt").IsNotFound());
  }
  db->Close().PermitUncheckedError();
}

}  // namespace
}  // namespace shale
