// DB::OpenAsSecondary and TryCatchUpWithPrimary (shale/db.h, db/db_secondary.h): a primary and
// a secondary in one process on one directory. Checked here: the secondary sees the state at
// its open; after the primary writes (memtable only), flushes (its WAL deleted), compacts (its
// tables deleted) and writes more, a catch-up makes the secondary see exactly the primary's
// state (a std::map model at each step); reads of the secondary's state keep working after the
// primary deletes its tables; iterators and snapshots taken before a catch-up keep their view;
// the secondary changes nothing in the primary's directory (a file system counting every
// mutating call under it) and writes its LOG to secondary_path; writes are refused; a subset
// of the column families (a family the primary drops fails the catch-up, the state is kept); a catch-up after the primary rolled its MANIFEST (a reopen); a
// catch-up that races a flush deleting the WAL it reads retries and stays exact.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/write_batch.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr std::string_view kSecondaryText = "Not supported operation in secondary mode.";

std::string Key(int i) {
  char key[16];
  snprintf(key, sizeof(key), "k%05d", i);
  return key;
}

// The secondary's file system: counts every mutating call on a path under `guarded` (the
// primary's directory), and runs a hook (once) when a WAL under it is opened for reading.
// Thread-safety: the counter is atomic; the hook is set while no DB uses the file system.
class GuardFileSystem final : public test::ForwardingFileSystem {
 public:
  GuardFileSystem(std::string guarded)
      : ForwardingFileSystem(FileSystem::Default()), guarded_(std::move(guarded)) {}
  const char* Name() const override { return "guard"; }
  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override {
    uint64_t number;
    FileType type;
    const std::string file = path.substr(path.find_last_of('/') + 1);
    if (Under(path) && ParseFileName(file, &number, &type) && type == FileType::kWalFile &&
        on_wal_open_) {
      std::function<void()> hook = std::move(on_wal_open_);
      on_wal_open_ = nullptr;
      hook();
    }
    return base()->NewSequentialFile(path, result);
  }
  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    Count(path);
    return base()->NewWritableFile(path, result);
  }
  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override {
    Count(path);
    return base()->NewAppendableFile(path, result);
  }
  Status DeleteFile(const std::string& path) override {
    Count(path);
    return base()->DeleteFile(path);
  }
  Status CreateDir(const std::string& dir) override {
    Count(dir);
    return base()->CreateDir(dir);
  }
  Status CreateDirIfMissing(const std::string& dir) override {
    Count(dir);
    return base()->CreateDirIfMissing(dir);
  }
  Status DeleteDir(const std::string& dir) override {
    Count(dir);
    return base()->DeleteDir(dir);
  }
  Status RenameFile(const std::string& src, const std::string& target) override {
    Count(src);
    Count(target);
    return base()->RenameFile(src, target);
  }
  Status LinkFile(const std::string& src, const std::string& target) override {
    Count(target);
    return base()->LinkFile(src, target);
  }
  Status SyncDir(const std::string& dir) override {
    Count(dir);
    return base()->SyncDir(dir);
  }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    Count(path);
    return base()->LockFile(path, lock);
  }

  int mutations() const { return mutations_.load(); }
  void set_on_wal_open(std::function<void()> hook) { on_wal_open_ = std::move(hook); }

 private:
  bool Under(const std::string& path) const {
    return path == guarded_ || path.rfind(guarded_ + "/", 0) == 0;
  }
  void Count(const std::string& path) {
    if (Under(path)) mutations_++;
  }

  const std::string guarded_;
  std::atomic<int> mutations_{0};
  std::function<void()> on_wal_open_;
};

class DBSecondaryTest : public testing::Test {
 protected:
  DBSecondaryTest()
      : root_(testing::TempDir() + "/db_secondary_test_" + std::to_string(::getpid()) + "_" +
              testing::UnitTest::GetInstance()->current_test_info()->name()),
        dir_(root_ + "/db"),
        secondary_dir_(root_ + "/secondary"),
        remove_root_(root_),
        guard_fs_(std::make_shared<GuardFileSystem>(dir_)) {
    std::filesystem::create_directories(root_);
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;  // the tests compact explicitly
    secondary_options_ = options_;
    secondary_options_.file_system = guard_fs_;
  }

  ~DBSecondaryTest() override {
    // The secondary never changed anything in the primary's directory.
    EXPECT_EQ(guard_fs_->mutations(), 0);
  }

  void OpenPrimary() { ASSERT_OK(DB::Open(options_, dir_, &primary_)); }
  Status OpenSecondary() {
    return DB::OpenAsSecondary(secondary_options_, dir_, secondary_dir_, &secondary_);
  }

  void Put(const std::string& key, const std::string& value) {
    ASSERT_OK(primary_->Put(WriteOptions(), key, value));
    model_[key] = value;
  }
  void Delete(const std::string& key) {
    ASSERT_OK(primary_->Delete(WriteOptions(), key));
    model_.erase(key);
  }

  // All pairs of a family, forward; checks the backward scan and Get agree.
  static std::map<std::string, std::string> Scan(DB* db, ColumnFamilyHandle* cf = nullptr,
                                                  const Snapshot* snapshot = nullptr) {
    if (cf == nullptr) cf = db->DefaultColumnFamily();
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::map<std::string, std::string> result;
    std::unique_ptr<Iterator> it = db->NewIterator(ro, cf);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      result[std::string(it->key())] = std::string(it->value());
    }
    EXPECT_OK(it->status());
    size_t backward = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) backward++;
    EXPECT_EQ(backward, result.size());
    for (const auto& [key, value] : result) {
      std::string got;
      EXPECT_OK(db->Get(ro, cf, key, &got));
      EXPECT_EQ(got, value);
    }
    return result;
  }

  std::optional<std::string> Get(DB* db, const std::string& key,
                                 const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    Status s = db->Get(ro, key, &value);
    if (s.IsNotFound()) return std::nullopt;
    EXPECT_OK(s);
    return value;
  }

  // The table files of the DB's current version.
  static std::vector<uint64_t> TableNumbers(DB* db) {
    std::vector<LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    std::vector<uint64_t> numbers;
    for (const LiveFileMetaData& f : files) {
      uint64_t number;
      FileType type;
      const std::string base = f.name.substr(f.name.find_last_of('/') + 1);
      if (ParseFileName(base, &number, &type)) numbers.push_back(number);
    }
    return numbers;
  }
  bool TableExists(uint64_t number) const {
    return std::filesystem::exists(TableFileName(dir_, number));
  }

  const std::string root_;
  const std::string dir_;
  const std::string secondary_dir_;
  const test::ScopedDirRemoval remove_root_;
  std::shared_ptr<GuardFileSystem> guard_fs_;
  Options options_;
  Options secondary_options_;
  std::unique_ptr<DB> primary_;
  std::unique_ptr<DB> secondary_;
  std::map<std::string, std::string> model_;
};

TEST_F(DBSecondaryTest, CatchUpFollowsWritesFlushesAndCompactions) {
  OpenPrimary();
  for (int i = 0; i < 300; i++) Put(Key(i), absl::StrCat("a", i));
  ASSERT_OK(primary_->Flush(FlushOptions()));
  for (int i = 200; i < 400; i++) Put(Key(i), absl::StrCat("b", i));  // memtable only
  ASSERT_OK(OpenSecondary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  std::map<std::string, std::string> at_open = model_;

  // Memtable-only writes: not seen until the catch-up.
  for (int i = 0; i < 100; i++) Put(Key(i), absl::StrCat("c", i));
  Delete(Key(150));
  EXPECT_EQ(Scan(secondary_.get()), at_open);
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  EXPECT_EQ(secondary_->GetLatestSequenceNumber(), primary_->GetLatestSequenceNumber());
  // A catch-up with nothing new changes nothing.
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);

  // A flush: the WAL the secondary replayed is deleted, its writes are in a new table.
  ASSERT_OK(primary_->Flush(FlushOptions()));
  for (int i = 400; i < 450; i++) Put(Key(i), absl::StrCat("d", i));
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);

  // A compaction deletes the tables the secondary's state lists; its reads keep working.
  const std::vector<uint64_t> before = TableNumbers(secondary_.get());
  ASSERT_FALSE(before.empty());
  const std::map<std::string, std::string> caught_up = model_;
  ASSERT_OK(primary_->Flush(FlushOptions()));
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (uint64_t number : before) EXPECT_FALSE(TableExists(number)) << number;
  EXPECT_EQ(Scan(secondary_.get()), caught_up);
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);

  // More writes and deletions after the compaction.
  for (int i = 50; i < 500; i += 3) Put(Key(i), absl::StrCat("e", i));
  for (int i = 0; i < 500; i += 7) Delete(Key(i));
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  EXPECT_EQ(Scan(primary_.get()), model_);
  ASSERT_OK(secondary_->Close());
}

TEST_F(DBSecondaryTest, IteratorsAndSnapshotsKeepTheirViewAcrossCatchUps) {
  OpenPrimary();
  for (int i = 0; i < 200; i++) Put(Key(i), "old");
  ASSERT_OK(primary_->Flush(FlushOptions()));
  for (int i = 100; i < 250; i++) Put(Key(i), "old-wal");
  ASSERT_OK(OpenSecondary());
  const std::map<std::string, std::string> old_model = model_;
  // Taken before the catch-up; the iterator is not even positioned yet.
  std::unique_ptr<Iterator> it = secondary_->NewIterator(ReadOptions());
  const Snapshot* snapshot = secondary_->GetSnapshot();
  ASSERT_NE(snapshot, nullptr);

  // The primary overwrites everything and compacts away every table the secondary had.
  const std::vector<uint64_t> old_tables = TableNumbers(secondary_.get());
  for (int i = 0; i < 300; i++) Put(Key(i), "new");
  ASSERT_OK(primary_->Flush(FlushOptions()));
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (uint64_t number : old_tables) ASSERT_FALSE(TableExists(number)) << number;
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());

  EXPECT_EQ(Scan(secondary_.get()), model_);
  EXPECT_EQ(Scan(secondary_.get(), nullptr, snapshot), old_model);
  EXPECT_EQ(Get(secondary_.get(), Key(5), snapshot), "old");
  EXPECT_EQ(Get(secondary_.get(), Key(5)), "new");
  std::map<std::string, std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    seen[std::string(it->key())] = std::string(it->value());
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(seen, old_model);
  it.reset();
  // Close refuses while the snapshot is held.
  EXPECT_TRUE(secondary_->Close().IsAborted());
  secondary_->ReleaseSnapshot(snapshot);
  ASSERT_OK(secondary_->Close());
}

TEST_F(DBSecondaryTest, NothingOfThePrimaryDirectoryChanges) {
  OpenPrimary();
  for (int i = 0; i < 100; i++) Put(Key(i), "t");
  ASSERT_OK(primary_->Flush(FlushOptions()));
  for (int i = 50; i < 150; i++) Put(Key(i), "w");
  ASSERT_OK(primary_->Close());
  primary_.reset();
  std::map<std::string, std::tuple<uint64_t, int64_t>> before;
  auto list = [&] {
    std::map<std::string, std::tuple<uint64_t, int64_t>> listing;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_)) {
      struct stat st;
      if (::stat(e.path().c_str(), &st) != 0) continue;
      listing[e.path().string()] = {static_cast<uint64_t>(st.st_size),
                                    int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
    }
    return listing;
  };
  before = list();
  ASSERT_OK(OpenSecondary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_OK(secondary_->VerifyChecksum(ReadOptions()));
  std::string stats;
  EXPECT_TRUE(secondary_->GetProperty(DB::Properties::kStats, &stats));
  secondary_->LogInfo("a line of the client's");
  ASSERT_OK(secondary_->Close());
  secondary_.reset();
  EXPECT_EQ(list(), before);
  EXPECT_EQ(guard_fs_->mutations(), 0);
  // Its info LOG is in secondary_path.
  EXPECT_TRUE(std::filesystem::exists(secondary_dir_ + "/LOG"));
  // Bad arguments.
  EXPECT_TRUE(
      DB::OpenAsSecondary(secondary_options_, dir_, "", &secondary_).IsInvalidArgument());
  EXPECT_TRUE(
      DB::OpenAsSecondary(secondary_options_, dir_, dir_, &secondary_).IsInvalidArgument());
  EXPECT_TRUE(DB::OpenAsSecondary(secondary_options_, root_ + "/none", secondary_dir_,
                                  &secondary_)
                  .IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(root_ + "/none"));
}

TEST_F(DBSecondaryTest, WritesAreRefusedAndOnlyASecondaryCatchesUp) {
  OpenPrimary();
  Put("a", "1");
  ASSERT_OK(OpenSecondary());
  auto expect_refused = [](const Status& s) {
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_NE(s.ToString().find(kSecondaryText), std::string::npos) << s.ToString();
  };
  DB* db = secondary_.get();
  expect_refused(db->Put(WriteOptions(), "x", "y"));
  expect_refused(db->Delete(WriteOptions(), "x"));
  expect_refused(db->SingleDelete(WriteOptions(), "x"));
  expect_refused(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(), "a", "b"));
  expect_refused(db->Merge(WriteOptions(), "x", "y"));
  WriteBatch batch;
  ASSERT_OK(batch.Put("x", "y"));
  expect_refused(db->Write(WriteOptions(), &batch));
  expect_refused(db->Flush(FlushOptions()));
  expect_refused(db->FlushWAL(true));
  expect_refused(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  expect_refused(db->DeleteFilesInRange(db->DefaultColumnFamily(), nullptr, nullptr));
  expect_refused(db->IngestExternalFile({root_ + "/x.sst"}, IngestExternalFileOptions()));
  expect_refused(db->SetOptions({{"write_buffer_size", "1048576"}}));
  expect_refused(db->SetDBOptions({{"max_background_jobs", "3"}}));
  expect_refused(db->DisableFileDeletions());
  ColumnFamilyHandle* cf = nullptr;
  expect_refused(db->CreateColumnFamily(ColumnFamilyOptions(), "new", &cf));
  EXPECT_EQ(cf, nullptr);
  expect_refused(db->DropColumnFamily(db->DefaultColumnFamily()));
  EXPECT_EQ(Get(db, "a"), "1");
  // A primary and a read-only DB do not catch up.
  Status s = primary_->TryCatchUpWithPrimary();
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  std::unique_ptr<DB> read_only;
  ASSERT_OK(DB::OpenForReadOnly(secondary_options_, dir_, &read_only));
  EXPECT_TRUE(read_only->TryCatchUpWithPrimary().IsNotSupported());
  // After Close.
  ASSERT_OK(secondary_->Close());
  EXPECT_TRUE(secondary_->TryCatchUpWithPrimary().IsShutdownInProgress());
  std::string value;
  EXPECT_TRUE(secondary_->Get(ReadOptions(), "a", &value).IsShutdownInProgress());
}

TEST_F(DBSecondaryTest, ASubsetOfTheColumnFamilies) {
  DBOptions db_options(options_);
  std::vector<ColumnFamilyDescriptor> all = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options_)},
      {"a", ColumnFamilyOptions(options_)},
      {"b", ColumnFamilyOptions(options_)}};
  db_options.create_missing_column_families = true;
  std::vector<ColumnFamilyHandle*> ph;
  ASSERT_OK(DB::Open(db_options, dir_, all, &ph, &primary_));
  for (int i = 0; i < 50; i++) {
    ASSERT_OK(primary_->Put(WriteOptions(), ph[0], Key(i), "d"));
    ASSERT_OK(primary_->Put(WriteOptions(), ph[1], Key(i), "a"));
    ASSERT_OK(primary_->Put(WriteOptions(), ph[2], Key(i), "b"));
  }
  ASSERT_OK(primary_->Flush(FlushOptions(), ph[2]));

  DBOptions sec_options(secondary_options_);
  std::vector<ColumnFamilyHandle*> sh;
  // Family "b" first: the handles follow the descriptors' order.
  ASSERT_OK(DB::OpenAsSecondary(sec_options, dir_, secondary_dir_,
                                {{"b", ColumnFamilyOptions(options_)},
                                 {kDefaultColumnFamilyName, ColumnFamilyOptions(options_)}},
                                &sh, &secondary_));
  ASSERT_EQ(sh.size(), 2u);
  EXPECT_EQ(sh[0]->GetName(), "b");
  EXPECT_EQ(sh[0]->GetID(), ph[2]->GetID());
  EXPECT_EQ(Scan(secondary_.get(), sh[0]).size(), 50u);
  EXPECT_EQ(Scan(secondary_.get(), sh[0]).begin()->second, "b");
  EXPECT_EQ(Scan(secondary_.get(), sh[1]).begin()->second, "d");
  ColumnFamilyDescriptor descriptor;
  ASSERT_OK(sh[0]->GetDescriptor(&descriptor));
  EXPECT_EQ(descriptor.name, "b");

  for (int i = 0; i < 50; i++) {
    ASSERT_OK(primary_->Put(WriteOptions(), ph[2], Key(i), "b2"));
    ASSERT_OK(primary_->Put(WriteOptions(), ph[1], Key(i), "a2"));
  }
  ASSERT_OK(primary_->Flush(FlushOptions(), ph[1]));
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), ph[2], nullptr, nullptr));
  EXPECT_EQ(Scan(secondary_.get(), sh[0]).begin()->second, "b");
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  std::map<std::string, std::string> b = Scan(secondary_.get(), sh[0]);
  EXPECT_EQ(b.size(), 50u);
  for (const auto& [key, value] : b) EXPECT_EQ(value, "b2") << key;
  EXPECT_EQ(Scan(secondary_.get(), sh[0]), Scan(primary_.get(), ph[2]));
  EXPECT_EQ(Scan(secondary_.get(), sh[1]), Scan(primary_.get(), ph[0]));
  std::vector<std::string> values;
  std::vector<Status> statuses =
      secondary_->MultiGet(ReadOptions(), {sh[0], sh[1]}, {Key(1), Key(2)}, &values);
  ASSERT_OK(statuses[0]);
  ASSERT_OK(statuses[1]);
  EXPECT_EQ(values[0], "b2");
  EXPECT_EQ(values[1], "d");
  // A handle of another DB is refused.
  std::string value;
  EXPECT_TRUE(secondary_->Get(ReadOptions(), ph[2], Key(1), &value).IsInvalidArgument());

  // A family the DB lacks.
  std::unique_ptr<DB> other;
  std::vector<ColumnFamilyHandle*> oh;
  EXPECT_TRUE(DB::OpenAsSecondary(sec_options, dir_, secondary_dir_ + "2",
                                  {{kDefaultColumnFamilyName, ColumnFamilyOptions(options_)},
                                   {"zz", ColumnFamilyOptions(options_)}},
                                  &oh, &other)
                  .IsInvalidArgument());

  // The primary drops "b": the catch-up fails (RocksDB would mark the family dropped and go
  // on) and the secondary keeps its state, "b" included.
  ASSERT_OK(primary_->DropColumnFamily(ph[2]));
  ASSERT_OK(primary_->Put(WriteOptions(), ph[0], Key(1), "d2"));
  Status s = secondary_->TryCatchUpWithPrimary();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("Column family not found: b"), std::string::npos) << s.ToString();
  EXPECT_EQ(Scan(secondary_.get(), sh[0]).begin()->second, "b2");
  EXPECT_EQ(Scan(secondary_.get(), sh[1]).begin()->second, "d");
  for (ColumnFamilyHandle* h : sh) ASSERT_OK(secondary_->DestroyColumnFamilyHandle(h));
  for (ColumnFamilyHandle* h : ph) ASSERT_OK(primary_->DestroyColumnFamilyHandle(h));
}

TEST_F(DBSecondaryTest, CatchUpAfterThePrimaryRolledItsManifest) {
  OpenPrimary();
  for (int i = 0; i < 100; i++) Put(Key(i), "1");
  ASSERT_OK(OpenSecondary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  std::vector<std::string> manifests_before;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    if (e.path().filename().string().rfind("MANIFEST", 0) == 0) {
      manifests_before.push_back(e.path().filename());
    }
  }
  // Reopening the primary starts a new MANIFEST (CURRENT changes) and deletes the old one,
  // and the WAL the secondary replayed (its writes now in a table).
  ASSERT_OK(primary_->Close());
  primary_.reset();
  OpenPrimary();
  for (const std::string& m : manifests_before) {
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/" + m)) << m;
  }
  for (int i = 50; i < 150; i++) Put(Key(i), "2");
  Delete(Key(3));
  EXPECT_EQ(Get(secondary_.get(), Key(3)), "1");
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
  ASSERT_OK(primary_->Flush(FlushOptions()));
  ASSERT_OK(primary_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  Put("z", "3");
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_EQ(Scan(secondary_.get()), model_);
}

// The primary flushes while the catch-up is reading its WAL: the MANIFEST changes and the WAL
// is deleted under the catch-up, which starts again and ends exact.
TEST_F(DBSecondaryTest, ACatchUpRacingAFlushStartsAgain) {
  OpenPrimary();
  for (int i = 0; i < 100; i++) Put(Key(i), "1");
  ASSERT_OK(OpenSecondary());
  for (int i = 0; i < 200; i++) Put(Key(i), "2");
  bool flushed = false;
  guard_fs_->set_on_wal_open([&] {
    flushed = true;
    EXPECT_OK(primary_->Flush(FlushOptions()));
    for (int i = 150; i < 250; i++) Put(Key(i), "3");
  });
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  EXPECT_TRUE(flushed);
  EXPECT_EQ(Scan(secondary_.get()), model_);
}

}  // namespace
// The WAL iterator of a secondary reads the primary's WALs as of its generation, and keeps
// working after a catch-up swapped that generation out.
TEST_F(DBSecondaryTest, WalIteratorReadsThePrimarysWalsAcrossACatchUp) {
  OpenPrimary();
  Put("a", "1");
  Put("b", "2");
  ASSERT_OK(OpenSecondary());
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(secondary_->GetUpdatesSince(1, &it));
  Put("c", "3");
  ASSERT_OK(secondary_->TryCatchUpWithPrimary());
  std::vector<uint64_t> sequences;
  for (; it->Valid(); it->Next()) sequences.push_back(it->GetBatch().sequence);
  EXPECT_OK(it->status());
  ASSERT_GE(sequences.size(), 2u);
  EXPECT_EQ(sequences[0], 1u);
  EXPECT_EQ(sequences[1], 2u);
  it.reset();
  // A new iterator of the caught-up generation sees the third write.
  ASSERT_OK(secondary_->GetUpdatesSince(3, &it));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->GetBatch().sequence, 3u);
}

}  // namespace shale
