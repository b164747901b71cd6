// DB::OpenForReadOnly (shale/db.h): RocksDB's read-only open. Checked here: the WALs' writes
// (never flushed) are visible; a writer holding the DB open does not block it, and the
// read-only DB sees the state as of its open; every call that would write returns
// NotSupported("Not supported operation in read only mode."); no file of the directory is
// created, written, renamed or deleted (a counting, inactive FaultInjectionFileSystem and a
// listing with sizes and mtimes before and after); a missing DB is an error and is not
// created; error_if_wal_file_exists; a subset of the column families; a model check against a
// std::map after random writes.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "shale/write_batch.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;

constexpr std::string_view kReadOnlyText = "Not supported operation in read only mode.";

std::string Key(int i) {
  char key[16];
  snprintf(key, sizeof(key), "k%05d", i);
  return key;
}

// Every entry under `dir` (recursively): path -> (size, mtime in ns, inode). Equal listings
// mean no file was created, deleted, renamed, or (as far as the mtime tells) written.
using Listing = std::map<std::string, std::tuple<uint64_t, int64_t, uint64_t>>;
Listing ListDir(const std::string& dir) {
  Listing listing;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    if (::stat(entry.path().c_str(), &st) != 0) continue;
    const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
    listing[entry.path().string()] = {static_cast<uint64_t>(st.st_size), mtime,
                                      static_cast<uint64_t>(st.st_ino)};
  }
  return listing;
}

class DBReadOnlyTest : public testing::Test {
 protected:
  DBReadOnlyTest()
      : dir_(testing::TempDir() + "/db_read_only_test_" + std::to_string(::getpid()) + "_" +
             testing::UnitTest::GetInstance()->current_test_info()->name()),
        remove_dir_(dir_),
        fault_fs_(std::make_shared<FaultInjectionFileSystem>(FileSystem::Default())) {
    options_.create_if_missing = true;
    options_.file_system = fault_fs_;
    options_.merge_operator = NewStringAppendOperator(",");
    // The tests read writes that a closed writer left in the WAL (a read-only open replays it).
    options_.avoid_flush_during_shutdown = true;
  }

  // Opens the DB normally into writer_.
  void OpenWriter() { ASSERT_OK(DB::Open(options_, dir_, &writer_)); }

  Status OpenReadOnly(bool error_if_wal_file_exists = false) {
    return DB::OpenForReadOnly(options_, dir_, &reader_, error_if_wal_file_exists);
  }

  std::optional<std::string> Get(DB* db, const std::string& key) {
    std::string value;
    Status s = db->Get(ReadOptions(), key, &value);
    if (s.IsNotFound()) return std::nullopt;
    EXPECT_OK(s);
    return value;
  }

  // All pairs of the default family, forward; checks the backward scan agrees.
  std::map<std::string, std::string> Scan(DB* db) {
    std::map<std::string, std::string> result;
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      result[std::string(it->key())] = std::string(it->value());
    }
    EXPECT_OK(it->status());
    size_t backward = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) backward++;
    EXPECT_EQ(backward, result.size());
    return result;
  }

  // The DB's state: L1 tables (compacted), an L0 table, and writes only in the WAL.
  // keep_obsolete_files: file deletions stay disabled, so the compaction's inputs and the
  // flushed WALs stay in the directory as obsolete files (a normal open deletes them).
  void BuildDbWithTablesAndWal(bool keep_obsolete_files = false) {
    OpenWriter();
    if (keep_obsolete_files) ASSERT_OK(writer_->DisableFileDeletions());
    for (int i = 0; i < 200; i++) {
      ASSERT_OK(writer_->Put(WriteOptions(), Key(i), absl::StrCat("t", Key(i))));
    }
    ASSERT_OK(writer_->Flush(FlushOptions()));
    ASSERT_OK(writer_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    for (int i = 100; i < 300; i++) ASSERT_OK(writer_->Put(WriteOptions(), Key(i), "l0"));
    ASSERT_OK(writer_->Flush(FlushOptions()));
    for (int i = 250; i < 400; i++) ASSERT_OK(writer_->Put(WriteOptions(), Key(i), "wal"));
    ASSERT_OK(writer_->Delete(WriteOptions(), Key(0)));
    ASSERT_OK(writer_->Merge(WriteOptions(), Key(1), "m"));
    ASSERT_OK(writer_->Close());
    writer_.reset();
  }

  // The state BuildDbWithTablesAndWal leaves.
  static std::map<std::string, std::string> BuiltModel() {
    std::map<std::string, std::string> model;
    for (int i = 0; i < 200; i++) model[Key(i)] = absl::StrCat("t", Key(i));
    for (int i = 100; i < 300; i++) model[Key(i)] = "l0";
    for (int i = 250; i < 400; i++) model[Key(i)] = "wal";
    model.erase(Key(0));
    model[Key(1)] += ",m";
    return model;
  }

  const std::string dir_;
  const test::ScopedDirRemoval remove_dir_;
  std::shared_ptr<FaultInjectionFileSystem> fault_fs_;
  Options options_;
  std::unique_ptr<DB> writer_;
  std::unique_ptr<DB> reader_;
};

TEST_F(DBReadOnlyTest, WritesOnlyInTheWalAreVisible) {
  OpenWriter();
  for (int i = 0; i < 50; i++) {
    ASSERT_OK(writer_->Put(WriteOptions(), Key(i), absl::StrCat("v", Key(i))));
  }
  ASSERT_OK(writer_->Delete(WriteOptions(), Key(7)));
  ASSERT_OK(writer_->Close());  // flushes nothing (the option): the writes are only in the WAL
  writer_.reset();
  ASSERT_OK(OpenReadOnly());
  std::vector<LiveFileMetaData> files;
  reader_->GetLiveFilesMetaData(&files);
  EXPECT_TRUE(files.empty());  // no table: everything read comes from the replayed WAL
  EXPECT_EQ(Get(reader_.get(), Key(3)), absl::StrCat("v", Key(3)));
  EXPECT_EQ(Get(reader_.get(), Key(7)), std::nullopt);
  EXPECT_EQ(Scan(reader_.get()).size(), 49u);
  EXPECT_EQ(reader_->GetLatestSequenceNumber(), 51u);
  ASSERT_OK(reader_->Close());
}

TEST_F(DBReadOnlyTest, AWriterHoldingTheDbDoesNotBlockTheOpen) {
  OpenWriter();
  ASSERT_OK(writer_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(writer_->Flush(FlushOptions()));
  ASSERT_OK(writer_->Put(WriteOptions(), "b", "2"));  // only in the WAL
  // The LOCK is held: a second normal open fails, a read-only one does not.
  std::unique_ptr<DB> second;
  EXPECT_FALSE(DB::Open(options_, dir_, &second).ok());
  ASSERT_OK(OpenReadOnly());
  EXPECT_EQ(Get(reader_.get(), "a"), "1");
  EXPECT_EQ(Get(reader_.get(), "b"), "2");
  // The read-only DB sees the state as of its open.
  // (The writer flushes but does not compact: a compaction would delete the table the
  // read-only DB's Version lists, as in RocksDB.)
  ASSERT_OK(writer_->Put(WriteOptions(), "c", "3"));
  ASSERT_OK(writer_->Delete(WriteOptions(), "a"));
  ASSERT_OK(writer_->Flush(FlushOptions()));
  EXPECT_EQ(Get(reader_.get(), "a"), "1");
  EXPECT_EQ(Get(reader_.get(), "c"), std::nullopt);
  // A second read-only instance, opened now, sees the new state.
  std::unique_ptr<DB> later;
  ASSERT_OK(DB::OpenForReadOnly(options_, dir_, &later));
  EXPECT_EQ(Get(later.get(), "a"), std::nullopt);
  EXPECT_EQ(Get(later.get(), "c"), "3");
  ASSERT_OK(later->Close());
  ASSERT_OK(reader_->Close());
  // The writer goes on undisturbed, and its LOCK was never touched.
  ASSERT_OK(writer_->Put(WriteOptions(), "d", "4"));
  EXPECT_EQ(Get(writer_.get(), "d"), "4");
  EXPECT_FALSE(DB::Open(options_, dir_, &second).ok());
  ASSERT_OK(writer_->Close());
  writer_.reset();
  OpenWriter();
  EXPECT_EQ(Get(writer_.get(), "b"), "2");
  EXPECT_EQ(Get(writer_.get(), "d"), "4");
}

TEST_F(DBReadOnlyTest, EveryWriteCallIsNotSupported) {
  BuildDbWithTablesAndWal();
  // Refused before the file is looked at.
  const std::string sst = dir_ + "_ingest.sst";
  ASSERT_OK(OpenReadOnly());
  DB* db = reader_.get();
  auto expect_refused = [](const Status& s, const char* what) {
    EXPECT_TRUE(s.IsNotSupported()) << what << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(kReadOnlyText), std::string::npos) << what << ": " << s.ToString();
  };
  expect_refused(db->Put(WriteOptions(), "x", "y"), "Put");
  expect_refused(db->Delete(WriteOptions(), Key(5)), "Delete");
  expect_refused(db->SingleDelete(WriteOptions(), Key(5)), "SingleDelete");
  expect_refused(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(), Key(1), Key(9)),
                 "DeleteRange");
  expect_refused(db->Merge(WriteOptions(), Key(5), "m"), "Merge");
  WriteBatch batch;
  ASSERT_OK(batch.Put("x", "y"));
  expect_refused(db->Write(WriteOptions(), &batch), "Write");
  WriteBatch empty;
  expect_refused(db->Write(WriteOptions(), &empty), "Write (empty batch)");
  expect_refused(db->Flush(FlushOptions()), "Flush");
  expect_refused(db->FlushWAL(true), "FlushWAL");
  expect_refused(db->CompactRange(CompactRangeOptions(), nullptr, nullptr), "CompactRange");
  expect_refused(db->DeleteFilesInRange(db->DefaultColumnFamily(), nullptr, nullptr),
                 "DeleteFilesInRange");
  expect_refused(db->IngestExternalFile({sst}, IngestExternalFileOptions()),
                 "IngestExternalFile");
  ColumnFamilyHandle* handle = nullptr;
  expect_refused(db->CreateColumnFamily(ColumnFamilyOptions(), "new", &handle),
                 "CreateColumnFamily");
  EXPECT_EQ(handle, nullptr);
  expect_refused(db->DropColumnFamily(db->DefaultColumnFamily()), "DropColumnFamily");
  expect_refused(db->SetOptions({{"write_buffer_size", "1048576"}}), "SetOptions");
  expect_refused(db->SetDBOptions({{"max_background_jobs", "3"}}), "SetDBOptions");
  expect_refused(db->DisableFileDeletions(), "DisableFileDeletions");
  expect_refused(db->EnableFileDeletions(false), "EnableFileDeletions");
  std::unique_ptr<Checkpoint> checkpoint;
  ASSERT_OK(Checkpoint::Create(db, &checkpoint));
  expect_refused(checkpoint->CreateCheckpoint(dir_ + "_checkpoint"), "CreateCheckpoint");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "_checkpoint"));
  // Reads work, and nothing changed.
  EXPECT_EQ(Scan(db), BuiltModel());
  EXPECT_EQ(Get(db, "x"), std::nullopt);
  const Snapshot* snapshot = db->GetSnapshot();
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string value;
  EXPECT_OK(db->Get(at_snapshot, Key(1), &value));
  EXPECT_EQ(value, absl::StrCat("t", Key(1)) + ",m");
  db->ReleaseSnapshot(snapshot);
  std::vector<std::string> values;
  std::vector<Status> statuses = db->MultiGet(ReadOptions(), {Key(2), Key(0)}, &values);
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_OK(statuses[0]);
  EXPECT_TRUE(statuses[1].IsNotFound());
  uint64_t keys = 0;
  EXPECT_TRUE(db->GetIntProperty(DB::Properties::kEstimateNumKeys, &keys));
  EXPECT_GT(keys, 0u);
  std::string stats;
  EXPECT_TRUE(db->GetProperty(DB::Properties::kStats, &stats));
  const std::string start = Key(0), limit = Key(300);  // Range holds views: keep the bytes
  const Range range(start, limit);
  uint64_t size = 0;
  ASSERT_OK(db->GetApproximateSizes(db->DefaultColumnFamily(), &range, 1, &size));
  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  EXPECT_EQ(files.size(), 2u);  // the compacted L1 table and the L0 one
  EXPECT_OK(db->VerifyChecksum(ReadOptions()));
  EXPECT_OK(db->Resume());  // nothing to resume
  ASSERT_OK(reader_->Close());
}

TEST_F(DBReadOnlyTest, NoFileOfTheDirectoryChanges) {
  BuildDbWithTablesAndWal(/*keep_obsolete_files=*/true);
  // A leftover a normal open deletes: a temp file.
  const std::string temp = TempFileName(dir_, 999999);
  std::ofstream(temp) << "left by a crash";
  const Listing before = ListDir(dir_);
  ASSERT_FALSE(before.empty());
  // Every mutating call fails from here on, and each call, failed or not, is counted.
  fault_fs_->SetFilesystemActive(false);
  fault_fs_->ResetOpCounts();
  ASSERT_OK(OpenReadOnly());
  EXPECT_EQ(Scan(reader_.get()), BuiltModel());
  EXPECT_EQ(Get(reader_.get(), Key(299)), "wal");
  std::vector<LiveFileMetaData> files;
  reader_->GetLiveFilesMetaData(&files);
  EXPECT_OK(reader_->VerifyChecksum(ReadOptions()));
  std::string stats;
  EXPECT_TRUE(reader_->GetProperty(DB::Properties::kStats, &stats));
  EXPECT_FALSE(reader_->Put(WriteOptions(), "x", "y").ok());
  EXPECT_FALSE(reader_->Flush(FlushOptions()).ok());
  EXPECT_FALSE(reader_->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok());
  ASSERT_OK(reader_->Close());
  reader_.reset();
  for (int kind = 0; kind < FaultInjectionFileSystem::kNumOpKinds; kind++) {
    if (static_cast<OpKind>(kind) == OpKind::kRead) continue;
    EXPECT_EQ(fault_fs_->OpCount(static_cast<OpKind>(kind)), 0u)
        << FaultInjectionFileSystem::OpKindName(static_cast<OpKind>(kind));
  }
  EXPECT_GT(fault_fs_->OpCount(OpKind::kRead), 0u);
  EXPECT_EQ(ListDir(dir_), before);
  EXPECT_TRUE(std::filesystem::exists(temp));
  // The DB opens normally afterwards with everything in it, and then deletes the obsolete
  // files the read-only DB left alone.
  fault_fs_->SetFilesystemActive(true);
  OpenWriter();
  EXPECT_EQ(Scan(writer_.get()), BuiltModel());
  EXPECT_LT(ListDir(dir_).size(), before.size());
}

TEST_F(DBReadOnlyTest, AMissingDbIsAnErrorAndIsNotCreated) {
  // create_if_missing is set in options_: a read-only open ignores it.
  Status s = OpenReadOnly();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("does not exist"), std::string::npos) << s.ToString();
  EXPECT_EQ(reader_, nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir_));
  // An empty directory is no DB either, and stays empty.
  std::filesystem::create_directories(dir_);
  s = OpenReadOnly();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(DBReadOnlyTest, ErrorIfWalFileExists) {
  OpenWriter();
  ASSERT_OK(writer_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(writer_->Close());
  writer_.reset();
  const Listing before = ListDir(dir_);
  Status s = OpenReadOnly(/*error_if_wal_file_exists=*/true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("error_if_wal_file_exists"), std::string::npos) << s.ToString();
  EXPECT_EQ(reader_, nullptr);
  EXPECT_EQ(ListDir(dir_), before);
  ASSERT_OK(OpenReadOnly(/*error_if_wal_file_exists=*/false));
  EXPECT_EQ(Get(reader_.get(), "a"), "1");
}

TEST_F(DBReadOnlyTest, ASubsetOfTheColumnFamilies) {
  {
    OpenWriter();
    ColumnFamilyHandle* a = nullptr;
    ColumnFamilyHandle* b = nullptr;
    ASSERT_OK(writer_->CreateColumnFamily(ColumnFamilyOptions(options_), "a", &a));
    ASSERT_OK(writer_->CreateColumnFamily(ColumnFamilyOptions(options_), "b", &b));
    ASSERT_OK(writer_->Put(WriteOptions(), a, "ka", "flushed"));
    ASSERT_OK(writer_->Flush(FlushOptions(), a));
    ASSERT_OK(writer_->Put(WriteOptions(), a, "ka2", "wal-a"));
    ASSERT_OK(writer_->Put(WriteOptions(), b, "kb", "wal-b"));
    ASSERT_OK(writer_->Put(WriteOptions(), "kd", "wal-default"));
    ASSERT_OK(writer_->DestroyColumnFamilyHandle(a));
    ASSERT_OK(writer_->DestroyColumnFamilyHandle(b));
    ASSERT_OK(writer_->Close());
    writer_.reset();
  }
  const DBOptions db_options(options_);
  const ColumnFamilyOptions cf_options(options_);
  // A normal open must name every family; a read-only one may leave some out.
  std::vector<ColumnFamilyHandle*> handles;
  EXPECT_TRUE(DB::Open(db_options, dir_,
                       {{kDefaultColumnFamilyName, cf_options}, {"b", cf_options}}, &handles,
                       &writer_)
                  .IsInvalidArgument());
  const Listing before = ListDir(dir_);  // (the failed open above started a new LOG)
  ASSERT_OK(DB::OpenForReadOnly(db_options, dir_,
                                {{kDefaultColumnFamilyName, cf_options}, {"b", cf_options}},
                                &handles, &reader_));
  ASSERT_EQ(handles.size(), 2u);
  std::string value;
  ASSERT_OK(reader_->Get(ReadOptions(), handles[1], "kb", &value));
  EXPECT_EQ(value, "wal-b");
  ASSERT_OK(reader_->Get(ReadOptions(), handles[0], "kd", &value));
  EXPECT_EQ(value, "wal-default");
  EXPECT_TRUE(reader_->Get(ReadOptions(), handles[1], "ka2", &value).IsNotFound());
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(reader_->DestroyColumnFamilyHandle(h));
  handles.clear();
  ASSERT_OK(reader_->Close());
  reader_.reset();
  // Only "a" and the default one.
  ASSERT_OK(DB::OpenForReadOnly(db_options, dir_,
                                {{kDefaultColumnFamilyName, cf_options}, {"a", cf_options}},
                                &handles, &reader_));
  ASSERT_OK(reader_->Get(ReadOptions(), handles[1], "ka", &value));
  EXPECT_EQ(value, "flushed");
  ASSERT_OK(reader_->Get(ReadOptions(), handles[1], "ka2", &value));
  EXPECT_EQ(value, "wal-a");
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(reader_->DestroyColumnFamilyHandle(h));
  handles.clear();
  ASSERT_OK(reader_->Close());
  reader_.reset();
  // A family the DB lacks is not created; "default" must be named.
  Status s = DB::OpenForReadOnly(db_options, dir_,
                                 {{kDefaultColumnFamilyName, cf_options}, {"zz", cf_options}},
                                 &handles, &reader_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("Column family not found: zz"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(handles.empty());
  s = DB::OpenForReadOnly(db_options, dir_, {{"b", cf_options}}, &handles, &reader_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(ListDir(dir_), before);  // the unopened family's table is still there, untouched
  // Every family, normally: nothing was lost.
  ASSERT_OK(DB::Open(db_options, dir_,
                     {{kDefaultColumnFamilyName, cf_options},
                      {"a", cf_options},
                      {"b", cf_options}},
                     &handles, &writer_));
  ASSERT_OK(writer_->Get(ReadOptions(), handles[1], "ka", &value));
  EXPECT_EQ(value, "flushed");
  ASSERT_OK(writer_->Get(ReadOptions(), handles[1], "ka2", &value));
  EXPECT_EQ(value, "wal-a");
  ASSERT_OK(writer_->Get(ReadOptions(), handles[2], "kb", &value));
  EXPECT_EQ(value, "wal-b");
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(writer_->DestroyColumnFamilyHandle(h));
}

// Random puts, deletes, merges and range deletions, with flushes and compactions now and then,
// checked against a std::map through a read-only open, once with the writer closed and once
// with it still open (then idle: its flushes waited for, no automatic compaction, so no file
// the read-only DB reads goes away under it).
TEST_F(DBReadOnlyTest, ModelCheckAfterRandomWrites) {
  options_.write_buffer_size = 64 << 10;  // several flushes on the writer's side
  options_.disable_auto_compactions = true;
  for (int round = 0; round < 2; round++) {
    std::map<std::string, std::string> model;
    Random rnd(301 + round);
    OpenWriter();
    for (const auto& [key, value] : Scan(writer_.get())) model[key] = value;
    for (int i = 0; i < 4000; i++) {
      const std::string key = Key(static_cast<int>(rnd.Uniform(500)));
      const uint32_t op = rnd.Uniform(100);
      if (op < 60) {
        const std::string value =
            key + "-" + std::to_string(i) + std::string(rnd.Uniform(64), 'v');
        ASSERT_OK(writer_->Put(WriteOptions(), key, value));
        model[key] = value;
      } else if (op < 75) {
        ASSERT_OK(writer_->Delete(WriteOptions(), key));
        model.erase(key);
      } else if (op < 92) {
        const std::string operand = "m" + std::to_string(i);
        ASSERT_OK(writer_->Merge(WriteOptions(), key, operand));
        auto it = model.find(key);
        model[key] = it == model.end() ? operand : it->second + "," + operand;
      } else if (op < 97) {
        const std::string end = Key(std::stoi(key.substr(1)) + 5);
        ASSERT_OK(writer_->DeleteRange(WriteOptions(), writer_->DefaultColumnFamily(), key,
                                       end));
        model.erase(model.lower_bound(key), model.lower_bound(end));
      } else if (op < 99) {
        ASSERT_OK(writer_->Flush(FlushOptions()));
      } else {
        ASSERT_OK(writer_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      }
    }
    const bool writer_stays_open = round == 1;
    // Every memtable retired so far is flushed; then writes that only the WAL holds.
    ASSERT_OK(writer_->Flush(FlushOptions()));
    for (int i = 0; i < 100; i++) {
      const std::string key = Key(static_cast<int>(rnd.Uniform(500)));
      ASSERT_OK(writer_->Put(WriteOptions(), key, "last" + std::to_string(i)));
      model[key] = "last" + std::to_string(i);
    }
    if (!writer_stays_open) {
      ASSERT_OK(writer_->Close());
      writer_.reset();
    }
    ASSERT_OK(OpenReadOnly());
    EXPECT_EQ(Scan(reader_.get()), model) << "round " << round;
    for (int k = 0; k < 520; k++) {
      auto it = model.find(Key(k));
      EXPECT_EQ(Get(reader_.get(), Key(k)),
                it == model.end() ? std::nullopt : std::optional<std::string>(it->second))
          << Key(k);
    }
    ASSERT_OK(reader_->Close());
    reader_.reset();
    if (writer_stays_open) {
      ASSERT_OK(writer_->Close());
      writer_.reset();
    }
  }
}

}  // namespace
}  // namespace shale
