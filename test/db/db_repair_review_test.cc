// RepairDB review (issue 24: rocksdb_repair_db): durability and concurrency cases the first
// tests (db_repair_test.cc) do not cover, each found failing on the first version of repair.cc:
//  - a family RepairDB creates (given, not found) must not take the WAL records of another
//    family that happens to have the same id (a dropped one, or one whose name is unknown);
//  - a compaction's obsolete input moved to lost/ must stay there after a power loss (the
//    rename into lost/ made durable before the old MANIFEST that names it obsolete is deleted);
//  - writes of a table that is damaged come back from a WAL that still holds them, even when
//    the old MANIFEST says the family's tables already hold that WAL;
//  - the directory is listed under the LOCK (a DB opened between the listing and the LOCK
//    would have its new files left out and overwritten);
//  - a repair that fails before CURRENT is switched leaves a DB that opened still openable;
//  - a merge's input tables left behind (their deletion failed, or a crash came first) do
//    not apply a merge operand twice when repair runs again;
//  - a dropped family's table left in the directory does not bring the family back when
//    repair runs again.
// Also checked (passing from the start): repairing again after a failure left the WAL's
// table beside the WAL, or after the old MANIFEST could not be deleted. Disabled (not fixed):
// a flush's combined merge operand beside the WAL records it came from counts one twice.
// Every test runs in memory, under a FaultInjectionFileSystem.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/filename.h"
#include "base/internal_key.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/compaction_filter.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "table/table_builder.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;

class DBRepairReviewTest : public testing::Test {
 protected:
  DBRepairReviewTest()
      : base_(NewMemFileSystem()), fault_(std::make_shared<FaultInjectionFileSystem>(base_)) {
    options_.create_if_missing = true;
    options_.create_missing_column_families = true;
    options_.file_system = fault_;
    // These cases damage or replay the WAL a closed DB leaves: Close must not flush it away.
    options_.avoid_flush_during_shutdown = true;
  }
  void TearDown() override { Close(); }

  std::vector<ColumnFamilyDescriptor> Descriptors() const {
    std::vector<ColumnFamilyDescriptor> d;
    for (const std::string& name : families_) d.emplace_back(name, ColumnFamilyOptions(options_));
    return d;
  }
  void Open() {
    handles_.clear();
    ASSERT_OK(DB::Open(DBOptions(options_), dir_, Descriptors(), &handles_, &db_));
  }
  void Close() {
    if (db_ == nullptr) return;
    for (ColumnFamilyHandle* h : handles_) ASSERT_OK(db_->DestroyColumnFamilyHandle(h));
    handles_.clear();
    ASSERT_OK(db_->Close());
    db_.reset();
  }
  Status Repair() {
    return RepairDB(dir_, DBOptions(options_), Descriptors(), ColumnFamilyOptions(options_));
  }
  std::string Get(size_t cf, const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), handles_[cf], key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return value;
  }
  std::vector<uint64_t> FilesOfType(FileType wanted, const std::string& dir) const {
    std::vector<std::string> children;
    EXPECT_OK(base_->GetChildren(dir, &children));
    std::vector<uint64_t> numbers;
    for (const std::string& child : children) {
      uint64_t number;
      FileType type;
      if (ParseFileName(child, &number, &type) && type == wanted) numbers.push_back(number);
    }
    std::sort(numbers.begin(), numbers.end());
    return numbers;
  }
  std::vector<uint64_t> FilesOfType(FileType wanted) const { return FilesOfType(wanted, dir_); }
  // CURRENT and every MANIFEST gone.
  void RemoveManifests() {
    ASSERT_OK(base_->DeleteFile(CurrentFileName(dir_)));
    for (uint64_t n : FilesOfType(FileType::kDescriptorFile)) {
      ASSERT_OK(base_->DeleteFile(DescriptorFileName(dir_, n)));
    }
  }
  // Overwrites `n` bytes of `path` at `offset` (a damaged block).
  void Damage(const std::string& path, size_t offset, size_t n) {
    std::string contents;
    ASSERT_OK(ReadFileToString(base_.get(), path, &contents));
    ASSERT_LT(offset + n, contents.size());
    for (size_t i = offset; i < offset + n; i++) {
      contents[i] = static_cast<char>(contents[i] ^ 0x5a);
    }
    ASSERT_OK(WriteStringToFile(base_.get(), contents, path, /*sync=*/true));
  }
  // Writes a table at TableFileName(dir_, number) holding `entries` (internal keys in order).
  void WriteTable(uint64_t number,
                  const std::vector<std::pair<std::string, std::string>>& entries) {
    const InternalKeyComparator icmp(BytewiseComparator());
    std::unique_ptr<WritableFile> file;
    const std::string path = TableFileName(dir_, number);
    ASSERT_OK(fault_->NewWritableFile(path, &file));
    TableBuilder builder(TableOptions(), kNoCompression, 0, &icmp, file.get(), path);
    for (const auto& [key, value] : entries) builder.Add(key, value);
    ASSERT_OK(builder.Finish());
    ASSERT_OK(file->Sync());
    ASSERT_OK(file->Close());
    ASSERT_OK(fault_->SyncDir(dir_));
  }

  const std::string dir_ = "/repair_review_db";
  const std::shared_ptr<FileSystem> base_;
  const std::shared_ptr<FaultInjectionFileSystem> fault_;
  Options options_;
  std::vector<std::string> families_ = {kDefaultColumnFamilyName};
  std::vector<ColumnFamilyHandle*> handles_;
  std::unique_ptr<DB> db_;
};

// Family "a" (id 1) is written, never flushed, and dropped; "b" (id 2) is created empty. With
// the MANIFEST lost, repair (given "default" and "b", as the CLI gives the OPTIONS file's
// families) cannot find "b" and creates it: it must not take id 1's WAL records, which are the
// dropped family's.
TEST_F(DBRepairReviewTest, CreatedFamilyDoesNotTakeAnotherFamilysWalRecords) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ColumnFamilyHandle* a = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(options_), "a", &a));
  ASSERT_OK(db_->Put(WriteOptions(), a, "k", "of the dropped family"));
  ASSERT_OK(db_->DropColumnFamily(a));
  ASSERT_OK(db_->DestroyColumnFamilyHandle(a));
  ColumnFamilyHandle* b = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(options_), "b", &b));
  ASSERT_OK(db_->DestroyColumnFamilyHandle(b));
  ASSERT_OK(db_->Put(WriteOptions(), "d", "1"));
  Close();
  ASSERT_TRUE(FilesOfType(FileType::kTableFile).empty());
  RemoveManifests();
  families_ = {kDefaultColumnFamilyName, "b"};
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(1, "k"), "NOT_FOUND");
  EXPECT_EQ(Get(0, "d"), "1");
}

// Drops key "x" in compactions.
class DropX final : public CompactionFilter {
 public:
  bool Filter(int, std::string_view key, std::string_view, std::string*, bool*) const override {
    return key == "x";
  }
  const char* Name() const override { return "DropX"; }
};

// A compaction's input is still in the directory (file deletions disabled); repair moves it to
// lost/ (the readable old MANIFEST says it is obsolete) and deletes that MANIFEST. After a power
// loss, the input must not be back in the directory: a second repair (before any open) has no
// MANIFEST left that calls it obsolete, and would bring back the "x" the compaction removed.
TEST_F(DBRepairReviewTest, ObsoleteTableStaysInLostAfterPowerLoss) {
  static const DropX drop_x;
  options_.compaction_filter = &drop_x;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "x", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_EQ(Get(0, "x"), "NOT_FOUND");
  Close();
  const std::vector<uint64_t> tables = FilesOfType(FileType::kTableFile);
  ASSERT_EQ(tables.size(), 2u);  // the input and the output
  ASSERT_OK(base_->DeleteFile(CurrentFileName(dir_)));
  ASSERT_OK(Repair());
  EXPECT_EQ(FilesOfType(FileType::kTableFile, dir_ + "/lost"),
            std::vector<uint64_t>{tables[0]});
  ASSERT_OK(fault_->DropUnsyncedData());
  EXPECT_EQ(FilesOfType(FileType::kTableFile), std::vector<uint64_t>{tables[1]});
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "NOT_FOUND");
  EXPECT_EQ(Get(0, "y"), "2");
}

// A WAL kept alive by an idle family holds "x", which the default family flushed to a table
// that is now damaged. The contract: writes in a damaged table are lost "unless still in a
// WAL". The old MANIFEST's log number for the family (its tables hold that WAL) must not make
// repair skip the records the damaged table took away.
TEST_F(DBRepairReviewTest, WritesOfADamagedTableComeBackFromTheWal) {
  families_ = {kDefaultColumnFamilyName, "idle"};
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "keep", "alive"));  // never flushed
  ASSERT_OK(db_->Put(WriteOptions(), handles_[0], "x", "1"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[0]));
  Close();
  const std::vector<uint64_t> tables = FilesOfType(FileType::kTableFile);
  ASSERT_EQ(tables.size(), 1u);
  Damage(TableFileName(dir_, tables[0]), 0, 8);  // its data block
  ASSERT_OK(base_->DeleteFile(CurrentFileName(dir_)));
  ASSERT_OK(Repair());
  EXPECT_EQ(FilesOfType(FileType::kTableFile, dir_ + "/lost"), tables);
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "1");
  EXPECT_EQ(Get(1, "keep"), "alive");
}

// Runs `hook` once, just after the first listing of `dir` returns.
class ListingHookFileSystem final : public test::ForwardingFileSystem {
 public:
  ListingHookFileSystem(std::shared_ptr<FileSystem> base, std::string dir,
                        std::function<void()> hook)
      : ForwardingFileSystem(std::move(base)), dir_(std::move(dir)), hook_(std::move(hook)) {}
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    Status s = base()->GetChildren(dir, names);
    if (dir == dir_ && hook_) {
      std::function<void()> hook = std::move(hook_);
      hook_ = nullptr;
      hook();
    }
    return s;
  }

 private:
  const std::string dir_;
  std::function<void()> hook_;  // used by the one thread that repairs
};

// Another user of the directory opens the DB, writes and flushes between repair's listing and
// its LOCK. Either that open is refused (the LOCK taken first) or repair must see its files;
// repair working from the stale listing leaves the new table out of the new MANIFEST.
TEST_F(DBRepairReviewTest, DirectoryIsListedUnderTheLock) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "early", "e"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  Close();
  bool wrote = false;
  auto hooked = std::make_shared<ListingHookFileSystem>(fault_, dir_, [&] {
    std::unique_ptr<DB> other;
    if (!DB::Open(options_, dir_, &other).ok()) return;  // the LOCK is held: refused
    ASSERT_OK(other->Put(WriteOptions(), "late", "v"));
    ASSERT_OK(other->Flush(FlushOptions()));
    ASSERT_OK(other->Close());
    wrote = true;
  });
  DBOptions repair_options(options_);
  repair_options.file_system = hooked;
  Status s = RepairDB(dir_, repair_options, Descriptors(), ColumnFamilyOptions(options_));
  // Whatever repair answered, what the other user wrote must still be in the DB.
  if (!wrote) {
    ASSERT_OK(s);
  }
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "early"), "e");
  if (wrote) {
    EXPECT_EQ(Get(0, "late"), "v");
  }
}

// A DB whose second table has a damaged block opens (blocks are checked when read). A repair
// that fails before CURRENT names its new MANIFEST (here: the MANIFEST's sync) must leave the
// DB as it was: openable, the damaged table still where the old MANIFEST expects it.
TEST_F(DBRepairReviewTest, FailedRepairLeavesTheDbOpenable) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  Close();
  const std::vector<uint64_t> tables = FilesOfType(FileType::kTableFile);
  ASSERT_EQ(tables.size(), 2u);
  Damage(TableFileName(dir_, tables[1]), 0, 8);
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "a"), "1");
  Close();
  const uint64_t syncs = fault_->OpCount(OpKind::kSync);
  fault_->InjectError(OpKind::kSync, 1, FaultIOError("manifest sync"));
  Status s = Repair();
  fault_->ClearInjectedErrors();
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(fault_->OpCount(OpKind::kSync), syncs + 1);  // failed at the first sync
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "a"), "1");
}

// Two tables whose keys overlap with interleaved sequence numbers are merged into one; their
// deletion after the switch fails (ignored, as repair ignores it), so they stay in the
// directory beside the merged table. A second repair (before any open) must not apply the merge
// operand "b" twice: the merged table holds x@6 = "base,b" (a value) beside x@6 merge "b".
TEST_F(DBRepairReviewTest, MergedInputsLeftBehindDoNotRepeatAMergeOperand) {
  options_.merge_operator = NewStringAppendOperator(",");
  ASSERT_OK(fault_->CreateDirIfMissing(dir_));
  WriteTable(5, {{MakeInternalKey("x", 4, kTypeValue), "base"},
                 {MakeInternalKey("z", 10, kTypeValue), "z"}});
  WriteTable(7, {{MakeInternalKey("x", 6, kTypeMerge), "b"}});
  fault_->SetRandomErrors(OpKind::kDelete, 1, 1, FaultIOError("unlink"));
  ASSERT_OK(Repair());
  fault_->ClearInjectedErrors();
  ASSERT_EQ(FilesOfType(FileType::kTableFile).size(), 3u);  // the inputs and the merge
  // Not opened in between (an open would delete the inputs): a second repair.
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "base,b");
  EXPECT_EQ(Get(0, "z"), "z");
}

// The WAL's writes become a table, then the repair fails (the MANIFEST's sync) before the WAL
// is moved away: a second repair replays the WAL again beside that table, and the merge
// operands still count once.
TEST_F(DBRepairReviewTest, RepairAgainAfterTheWalBecameATableCountsOperandsOnce) {
  options_.merge_operator = NewStringAppendOperator(",");
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Merge(WriteOptions(), "x", "a"));
  ASSERT_OK(db_->Merge(WriteOptions(), "x", "b"));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "1"));
  Close();
  RemoveManifests();
  fault_->InjectError(OpKind::kSync, 2, FaultIOError("manifest sync"));  // 1: the WAL's table
  ASSERT_FALSE(Repair().ok());
  fault_->ClearInjectedErrors();
  ASSERT_EQ(FilesOfType(FileType::kTableFile).size(), 1u);
  ASSERT_EQ(FilesOfType(FileType::kWalFile).size(), 1u);
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "a,b");
  EXPECT_EQ(Get(0, "y"), "1");
}

// CURRENT is switched but nothing old can be deleted (every unlink fails): the old MANIFEST
// stays beside the new one. Repairing again, and opening, still give the same data.
TEST_F(DBRepairReviewTest, RepairAgainWithTheOldManifestLeftBehind) {
  options_.merge_operator = NewStringAppendOperator(",");
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Merge(WriteOptions(), "x", "a"));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Merge(WriteOptions(), "x", "b"));
  ASSERT_OK(db_->Delete(WriteOptions(), "y"));
  ASSERT_OK(db_->Put(WriteOptions(), "z", "2"));
  Close();
  const std::vector<uint64_t> manifests = FilesOfType(FileType::kDescriptorFile);
  fault_->SetRandomErrors(OpKind::kDelete, 1, 1, FaultIOError("unlink"));
  ASSERT_OK(Repair());
  fault_->ClearInjectedErrors();
  EXPECT_EQ(FilesOfType(FileType::kDescriptorFile).size(), manifests.size() + 1);
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "a,b");
  EXPECT_EQ(Get(0, "y"), "NOT_FOUND");
  EXPECT_EQ(Get(0, "z"), "2");
  ASSERT_OK(db_->Put(WriteOptions(), "y", "after"));
  EXPECT_EQ(Get(0, "y"), "after");
}

// A dropped family's table is still in the directory (file deletions disabled). Repair leaves
// the family out (the old MANIFEST says it was dropped) and deletes that MANIFEST; the table
// must not stay where a second repair, with no MANIFEST left that says so, finds it naming its
// family and brings the dropped family back.
TEST_F(DBRepairReviewTest, DroppedFamilyStaysDroppedWhenRepairedTwice) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "d", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ColumnFamilyHandle* a = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(options_), "a", &a));
  ASSERT_OK(db_->Put(WriteOptions(), a, "k", "dropped"));
  ASSERT_OK(db_->Flush(FlushOptions(), a));
  ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_OK(db_->DropColumnFamily(a));
  ASSERT_OK(db_->DestroyColumnFamilyHandle(a));
  Close();
  ASSERT_EQ(FilesOfType(FileType::kTableFile).size(), 2u);
  ASSERT_OK(base_->DeleteFile(CurrentFileName(dir_)));
  ASSERT_OK(Repair());
  ASSERT_OK(Repair());
  std::vector<std::string> names;
  ASSERT_OK(DB::ListColumnFamilies(DBOptions(options_), dir_, &names));
  EXPECT_EQ(names, std::vector<std::string>{kDefaultColumnFamilyName});
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "d"), "1");
}

// Without any MANIFEST, a WAL that an idle family keeps alive is replayed whole. A flush
// combined the operands "a" and "b" of x into one operand x@(b's sequence) = "a,b"; the WAL's
// rewrite holds them apart (x@5 "a", x@6 "b"). The union of the two tables then holds x@6 twice
// with different values, and "a" counts twice when x@6 "a,b" wins (x reads "a,a,b,c").
// Disabled: not fixed yet (run with --gtest_also_run_disabled_tests to see it fail). Keeping
// either x@6 alone is wrong in some case (the WAL's "b" alone loses an "a" whose WAL is gone).
// Skipping the WAL records at or below the family's largest flushed sequence would fix it only
// where flushes commit in sequence order and no flush output outlived a failed MANIFEST edit.
TEST_F(DBRepairReviewTest, DISABLED_FlushCombinedOperandsAndTheirWalRecordsCountOnce) {
  families_ = {kDefaultColumnFamilyName, "idle"};
  options_.merge_operator = NewStringAppendOperator(",");
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "named", "by its table"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[1]));
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "keep", "alive"));  // never flushed
  ASSERT_OK(db_->Merge(WriteOptions(), handles_[0], "x", "a"));
  ASSERT_OK(db_->Merge(WriteOptions(), handles_[0], "x", "b"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[0]));
  ASSERT_OK(db_->Merge(WriteOptions(), handles_[0], "x", "c"));
  ASSERT_EQ(Get(0, "x"), "a,b,c");
  Close();
  RemoveManifests();
  ASSERT_OK(Repair());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get(0, "x"), "a,b,c");
  EXPECT_EQ(Get(1, "keep"), "alive");
}

}  // namespace
}  // namespace shale
