// RepairDB (shale/db.h; issue 24: rocksdb_repair_db). Checked here: a model-based run (three
// column families against std::maps: puts, deletes, range deletions, flushes, compactions and
// an unflushed WAL tail; then CURRENT or the MANIFEST lost or damaged; repair; reopen: Get and a
// full iterator agree with the model); the level-0 overlap trap (tables from different old
// levels whose sequence ranges interleave); a corrupt table moved to lost/ and the rest kept;
// a missing directory; the LOCK; a healthy DB unchanged; the family properties of tables.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "base/internal_key.h"
#include "gtest/gtest.h"
#include "shale/compaction_filter.h"
#include "shale/comparator.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

namespace fs = std::filesystem;

std::string Key(int i) {
  char key[16];
  snprintf(key, sizeof(key), "k%04d", i);
  return key;
}

using Model = std::map<std::string, std::string>;

// The current test's name, usable in a path (a parameterized test's has a '/').
std::string TestName() {
  std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

class DBRepairTest : public testing::Test {
 protected:
  DBRepairTest()
      : dir_(testing::TempDir() + "/db_repair_test_" + std::to_string(::getpid()) + "_" +
             TestName()),
        remove_dir_(dir_) {
    options_.create_if_missing = true;
    options_.create_missing_column_families = true;
  }

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
  void TearDown() override { Close(); }

  Status Repair() {
    return RepairDB(dir_, DBOptions(options_), Descriptors(), ColumnFamilyOptions(options_));
  }

  // Checks family `cf` against `model`: Get of every model key and of absent keys, and a full
  // forward and backward scan.
  void CheckFamily(size_t cf, const Model& model, int key_space) {
    SCOPED_TRACE("family " + families_[cf]);
    for (int i = 0; i < key_space; i++) {
      std::string value;
      Status s = db_->Get(ReadOptions(), handles_[cf], Key(i), &value);
      auto it = model.find(Key(i));
      if (it == model.end()) {
        EXPECT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString() << " " << value;
      } else {
        EXPECT_OK(s);
        EXPECT_EQ(value, it->second) << Key(i);
      }
    }
    Model scanned;
    std::unique_ptr<Iterator> iter = db_->NewIterator(ReadOptions(), handles_[cf]);
    for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
      scanned[std::string(iter->key())] = std::string(iter->value());
    }
    EXPECT_OK(iter->status());
    EXPECT_EQ(scanned, model);
    size_t backward = 0;
    for (iter->SeekToLast(); iter->Valid(); iter->Prev()) backward++;
    EXPECT_EQ(backward, model.size());
  }

  FileSystem* Fs() const {
    return options_.file_system != nullptr ? options_.file_system.get()
                                           : FileSystem::Default().get();
  }

  std::vector<uint64_t> FilesOfType(FileType wanted) const {
    std::vector<std::string> children;
    EXPECT_OK(Fs()->GetChildren(dir_, &children));
    std::vector<uint64_t> numbers;
    for (const std::string& child : children) {
      uint64_t number;
      FileType type;
      if (ParseFileName(child, &number, &type) && type == wanted) numbers.push_back(number);
    }
    std::sort(numbers.begin(), numbers.end());
    return numbers;
  }

  const std::string dir_;
  const test::ScopedDirRemoval remove_dir_;
  Options options_;
  std::vector<std::string> families_ = {kDefaultColumnFamilyName};
  std::vector<ColumnFamilyHandle*> handles_;
  std::unique_ptr<DB> db_;
};

// How the model run damages the DB before repair.
enum class Damage {
  kDeleteCurrent,      // CURRENT gone; the MANIFEST readable (a hint)
  kGarbageCurrent,     // CURRENT names nothing
  kDeleteManifest,     // MANIFEST and CURRENT gone
  kCorruptManifest,    // the MANIFEST's bytes overwritten in the middle
};

class DBRepairModelTest : public DBRepairTest, public testing::WithParamInterface<Damage> {};

TEST_P(DBRepairModelTest, RepairedDbMatchesModel) {
  const Damage damage = GetParam();
  families_ = {kDefaultColumnFamilyName, "alpha", "beta"};
  options_.num_levels = 4;
  options_.level0_file_num_compaction_trigger = 3;
  options_.write_buffer_size = 64 << 10;
  std::vector<std::string> parents;
  // In memory: the run syncs often, and fsync on a busy disk would make it slow.
  options_.file_system = NewMemFileSystem();
  FileSystem* const fs = Fs();
  // The in-memory file system starts empty: the DB directory's parents first.
  for (fs::path p = fs::path(dir_).parent_path(); !p.empty() && p != p.root_path();
       p = p.parent_path()) {
    parents.push_back(p.string());
  }
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) {
    ASSERT_OK(fs->CreateDirIfMissing(*it));
  }
  constexpr int kKeys = 300;
  // Two seeds per damage (SHALE_STRESS=1: twenty).
  const uint64_t seeds = std::getenv("SHALE_STRESS") != nullptr ? 20 : 2;
  for (uint64_t seed = 1; seed <= seeds; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Close();
    ASSERT_OK(DestroyDB(dir_, options_));
    Random rnd(seed * 7919 + static_cast<uint64_t>(damage));
    std::vector<Model> models(families_.size());
    Open();
    auto random_ops = [&](int n) {
      for (int op = 0; op < n; op++) {
        const size_t cf = rnd.Uniform(families_.size());
        const int k = static_cast<int>(rnd.Uniform(kKeys));
        const uint64_t kind = rnd.Uniform(100);
        WriteOptions wo;
        if (kind < 70) {
          const std::string value = absl::StrCat("v", seed, "_", op, "_", rnd.Uniform(1000));
          ASSERT_OK(db_->Put(wo, handles_[cf], Key(k), value));
          models[cf][Key(k)] = value;
        } else if (kind < 88) {
          ASSERT_OK(db_->Delete(wo, handles_[cf], Key(k)));
          models[cf].erase(Key(k));
        } else if (kind < 92) {
          const int end = std::min(kKeys, k + 1 + static_cast<int>(rnd.Uniform(15)));
          ASSERT_OK(db_->DeleteRange(wo, handles_[cf], Key(k), Key(end)));
          models[cf].erase(models[cf].lower_bound(Key(k)), models[cf].lower_bound(Key(end)));
        } else if (kind < 97) {
          ASSERT_OK(db_->Flush(FlushOptions(), handles_[cf]));
        } else {
          const std::string begin = Key(k);
          const std::string end = Key(std::min(kKeys, k + 100));
          const std::string_view b = begin;
          const std::string_view e = end;
          ASSERT_OK(db_->CompactRange(CompactRangeOptions(), handles_[cf], &b, &e));
        }
      }
    };
    random_ops(3000);
    // Every family has a table that names it, whatever the damage.
    for (ColumnFamilyHandle* h : handles_) ASSERT_OK(db_->Flush(FlushOptions(), h));
    random_ops(1500);
    // The unflushed tail, synced (the last write's sync covers the ones before it).
    for (int i = 0; i < 60; i++) {
      const size_t cf = rnd.Uniform(families_.size());
      const int k = static_cast<int>(rnd.Uniform(kKeys));
      WriteOptions wo;
      wo.sync = i == 59;
      if (i % 5 == 4) {
        ASSERT_OK(db_->Delete(wo, handles_[cf], Key(k)));
        models[cf].erase(Key(k));
      } else {
        const std::string value = absl::StrCat("tail", seed, "_", i);
        ASSERT_OK(db_->Put(wo, handles_[cf], Key(k), value));
        models[cf][Key(k)] = value;
      }
    }
    ASSERT_FALSE(FilesOfType(FileType::kWalFile).empty());
    {
      SCOPED_TRACE("before the damage");
      for (size_t cf = 0; cf < families_.size(); cf++) CheckFamily(cf, models[cf], kKeys);
      if (testing::Test::HasFailure()) return;
    }
    Close();
    if (damage == Damage::kDeleteManifest) {
      // Without any MANIFEST, repair cannot tell a compaction's obsolete inputs (not yet
      // deleted when the DB closed) from live tables, and they could bring back what the
      // compaction removed (RepairDB's contract): an open deletes them first.
      Open();
      Close();
    }
    const std::vector<uint64_t> manifests = FilesOfType(FileType::kDescriptorFile);
    ASSERT_FALSE(manifests.empty());
    const std::string manifest = DescriptorFileName(dir_, manifests.back());
    switch (damage) {
      case Damage::kDeleteCurrent:
        ASSERT_OK(fs->DeleteFile(CurrentFileName(dir_)));
        break;
      case Damage::kGarbageCurrent:
        ASSERT_OK(WriteStringToFile(fs, "garbage\n", CurrentFileName(dir_), /*sync=*/true));
        break;
      case Damage::kDeleteManifest:
        ASSERT_OK(fs->DeleteFile(CurrentFileName(dir_)));
        for (uint64_t n : manifests) ASSERT_OK(fs->DeleteFile(DescriptorFileName(dir_, n)));
        break;
      case Damage::kCorruptManifest: {
        std::string contents;
        ASSERT_OK(ReadFileToString(fs, manifest, &contents));
        const size_t size = contents.size();
        for (size_t i = size / 2; i < size / 2 + std::min<size_t>(size / 4, 200); i++) {
          contents[i] = '\x5a';
        }
        ASSERT_OK(WriteStringToFile(fs, contents, manifest, /*sync=*/true));
        break;
      }
    }
    if (damage != Damage::kCorruptManifest) {
      handles_.clear();
      EXPECT_FALSE(DB::Open(DBOptions(options_), dir_, Descriptors(), &handles_, &db_).ok());
      db_.reset();
      handles_.clear();
    }
    const std::vector<uint64_t> wals = FilesOfType(FileType::kWalFile);
    ASSERT_OK(Repair());
    // The replayed WALs are kept in lost/, out of the DB.
    for (uint64_t n : wals) {
      const std::string name = fs::path(WalFileName(dir_, n)).filename().string();
      EXPECT_FALSE(fs->FileExists(dir_ + "/" + name).ok()) << name;
      EXPECT_TRUE(fs->FileExists(dir_ + "/lost/" + name).ok()) << name;
    }
    Open();
    for (size_t cf = 0; cf < families_.size(); cf++) CheckFamily(cf, models[cf], kKeys);
    // Writes after the repair get sequence numbers above every repaired entry.
    ASSERT_OK(db_->Put(WriteOptions(), handles_[1], Key(0), "after"));
    std::string value;
    ASSERT_OK(db_->Get(ReadOptions(), handles_[1], Key(0), &value));
    EXPECT_EQ(value, "after");
    models[1][Key(0)] = "after";
    // And the repaired DB survives a reopen.
    Close();
    Open();
    for (size_t cf = 0; cf < families_.size(); cf++) CheckFamily(cf, models[cf], kKeys);
    if (testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Damages, DBRepairModelTest,
                         testing::Values(Damage::kDeleteCurrent, Damage::kGarbageCurrent,
                                         Damage::kDeleteManifest, Damage::kCorruptManifest));

// Writes a table at TableFileName(dir, number) holding `entries` (internal keys in order).
void WriteTable(const std::string& dir, uint64_t number,
                const std::vector<std::pair<std::string, std::string>>& entries) {
  const InternalKeyComparator icmp(BytewiseComparator());
  std::unique_ptr<WritableFile> file;
  const std::string path = TableFileName(dir, number);
  ASSERT_OK(FileSystem::Default()->NewWritableFile(path, &file));
  TableBuilder builder(TableOptions(), kNoCompression, 0, &icmp, file.get(), path);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  ASSERT_OK(builder.Finish());
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
}

// The level-0 trap: an old L2 table holding x@500 and z@950, an old L1 table holding x@800.
// Both land in level 0, where Get searches newest first by largest sequence (the L2 table,
// 950, first) and stops at the first table holding x: unless the repair merges them it would
// return x@500.
TEST_F(DBRepairTest, OverlappingTablesFromDifferentLevelsReadNewest) {
  fs::create_directories(dir_);
  WriteTable(dir_, 5,
             {{MakeInternalKey("x", 500, kTypeValue), "old"},
              {MakeInternalKey("z", 950, kTypeValue), "z"}});
  WriteTable(dir_, 7, {{MakeInternalKey("x", 800, kTypeValue), "new"}});
  ASSERT_OK(RepairDB(dir_, options_));
  // The two tables were merged into one (the old ones are gone).
  EXPECT_FALSE(fs::exists(TableFileName(dir_, 5)));
  EXPECT_FALSE(fs::exists(TableFileName(dir_, 7)));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, dir_, &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "x", &value));
  EXPECT_EQ(value, "new");
  ASSERT_OK(db->Get(ReadOptions(), "z", &value));
  EXPECT_EQ(value, "z");
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  Model scanned;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    scanned[std::string(it->key())] = std::string(it->value());
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(scanned, (Model{{"x", "new"}, {"z", "z"}}));
  // A write after the repair is newer than everything found.
  ASSERT_OK(db->Put(WriteOptions(), "x", "later"));
  ASSERT_OK(db->Get(ReadOptions(), "x", &value));
  EXPECT_EQ(value, "later");
  EXPECT_GT(db->GetLatestSequenceNumber(), 950u);
}

// The trap with a range deletion: the old L1 table deletes [a, y) at 800, over x@500 in the
// old L2 table; the merged table must keep the deletion (and drop what it hides).
TEST_F(DBRepairTest, MergedTablesKeepRangeDeletions) {
  fs::create_directories(dir_);
  WriteTable(dir_, 5,
             {{MakeInternalKey("x", 500, kTypeValue), "old"},
              {MakeInternalKey("z", 950, kTypeValue), "z"}});
  WriteTable(dir_, 7,
             {{MakeInternalKey("w", 810, kTypeValue), "w"},
              {MakeInternalKey("a", 800, kTypeRangeDeletion), "y"}});
  ASSERT_OK(RepairDB(dir_, options_));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, dir_, &db));
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), "x", &value).IsNotFound()) << value;
  ASSERT_OK(db->Get(ReadOptions(), "w", &value));
  EXPECT_EQ(value, "w");
  ASSERT_OK(db->Get(ReadOptions(), "z", &value));
  EXPECT_EQ(value, "z");
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  Model scanned;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    scanned[std::string(it->key())] = std::string(it->value());
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(scanned, (Model{{"w", "w"}, {"z", "z"}}));
}

// A compaction's inputs still in the directory (file deletions disabled) are obsolete: the
// readable old MANIFEST deleted them. Used, the put under the compacted-away deletion would
// come back.
TEST_F(DBRepairTest, ObsoleteTablesAreNotUsed) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "x", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Delete(WriteOptions(), "x"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->DisableFileDeletions());
  CompactRangeOptions copts;
  copts.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(copts, nullptr, nullptr));
  Close();
  const std::vector<uint64_t> tables = FilesOfType(FileType::kTableFile);
  ASSERT_GE(tables.size(), 3u);  // the two inputs and the output
  fs::remove(CurrentFileName(dir_));
  ASSERT_OK(Repair());
  const std::string first = fs::path(TableFileName(dir_, tables[0])).filename().string();
  EXPECT_TRUE(fs::exists(dir_ + "/lost/" + first)) << first;
  Open();
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), "x", &value).IsNotFound()) << value;
  ASSERT_OK(db_->Get(ReadOptions(), "y", &value));
  EXPECT_EQ(value, "2");
}

// Drops key "x" in compactions.
class DropX final : public CompactionFilter {
 public:
  bool Filter(int, std::string_view key, std::string_view, std::string*, bool*) const override {
    return key == "x";
  }
  const char* Name() const override { return "DropX"; }
};

// A WAL that another family keeps alive still holds a write that this family flushed and a
// compaction filter then removed. With the old MANIFEST readable, repair knows the family's
// log number (the WAL is already in its tables) and does not bring the write back.
TEST_F(DBRepairTest, WriteRemovedByCompactionStaysGone) {
  static const DropX drop_x;
  families_ = {kDefaultColumnFamilyName, "idle"};
  options_.compaction_filter = &drop_x;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "keep", "alive"));  // never flushed
  ASSERT_OK(db_->Put(WriteOptions(), handles_[0], "x", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), handles_[0], "y", "2"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[0]));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), handles_[0], nullptr, nullptr));
  std::string value;
  ASSERT_TRUE(db_->Get(ReadOptions(), handles_[0], "x", &value).IsNotFound());
  Close();
  fs::remove(CurrentFileName(dir_));
  ASSERT_OK(Repair());
  Open();
  EXPECT_TRUE(db_->Get(ReadOptions(), handles_[0], "x", &value).IsNotFound()) << value;
  ASSERT_OK(db_->Get(ReadOptions(), handles_[0], "y", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(db_->Get(ReadOptions(), handles_[1], "keep", &value));
  EXPECT_EQ(value, "alive");
}

// Without any MANIFEST, a WAL that another family keeps alive is replayed whole, so the
// rewritten table repeats the merge operand a flush already wrote: the repair keeps it once.
// (The idle family has a table, which names it: a family only a WAL holds cannot be named.)
TEST_F(DBRepairTest, RepeatedMergeOperandCountsOnce) {
  families_ = {kDefaultColumnFamilyName, "idle"};
  options_.merge_operator = NewStringAppendOperator(",");
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "named", "by its table"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[1]));
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "keep", "alive"));  // never flushed
  ASSERT_OK(db_->Merge(WriteOptions(), handles_[0], "x", "a"));
  ASSERT_OK(db_->Flush(FlushOptions(), handles_[0]));
  ASSERT_OK(db_->Merge(WriteOptions(), handles_[0], "x", "b"));
  Close();
  fs::remove(CurrentFileName(dir_));
  for (uint64_t n : FilesOfType(FileType::kDescriptorFile)) fs::remove(DescriptorFileName(dir_, n));
  ASSERT_OK(Repair());
  Open();
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), handles_[0], "x", &value));
  EXPECT_EQ(value, "a,b");
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), handles_[0]);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "a,b");
  ASSERT_OK(db_->Get(ReadOptions(), handles_[1], "keep", &value));
  EXPECT_EQ(value, "alive");
}

TEST_F(DBRepairTest, CorruptTableMovedToLostRestRecovered) {
  Open();
  for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "first"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 100; i < 200; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "second"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  Close();
  std::vector<uint64_t> tables = FilesOfType(FileType::kTableFile);
  ASSERT_EQ(tables.size(), 2u);
  // The second table's middle is overwritten.
  const std::string bad = TableFileName(dir_, tables[1]);
  {
    const uint64_t size = fs::file_size(bad);
    std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 3));
    const std::string junk(64, '\x11');
    f.write(junk.data(), junk.size());
  }
  ASSERT_OK(Repair());
  EXPECT_FALSE(fs::exists(bad));
  EXPECT_TRUE(fs::exists(dir_ + "/lost/" + fs::path(bad).filename().string()));
  std::ifstream log(dir_ + "/LOG");
  const std::string log_text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(log_text.find("moved to lost/"), std::string::npos) << log_text;
  Open();
  Model model;
  for (int i = 0; i < 100; i++) model[Key(i)] = "first";
  CheckFamily(0, model, 200);
}

// Reverse byte order: a comparator other than the DB's.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return b.compare(a); }
  const char* Name() const override { return "test.Reverse"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// Repairing with another comparator than the DB's changes nothing (it must not take every
// table for damaged and move it to lost/).
TEST_F(DBRepairTest, AnotherComparatorChangesNothing) {
  fs::create_directories(dir_);
  WriteTable(dir_, 5, {{MakeInternalKey("x", 5, kTypeValue), "v"}});
  Options reverse = options_;
  static const ReverseComparator reverse_comparator;
  reverse.comparator = &reverse_comparator;
  Status s = RepairDB(dir_, reverse);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("comparator"), std::string::npos) << s.ToString();
  EXPECT_TRUE(fs::exists(TableFileName(dir_, 5)));
  EXPECT_FALSE(fs::exists(dir_ + "/lost"));
  EXPECT_FALSE(fs::exists(CurrentFileName(dir_)));
  ASSERT_OK(RepairDB(dir_, options_));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, dir_, &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "x", &value));
  EXPECT_EQ(value, "v");
}

// The WAL's writes become one table (they fit one write buffer), not one table per record.
TEST_F(DBRepairTest, WalWritesBecomeOneTable) {
  options_.write_buffer_size = 64 << 10;
  options_.avoid_flush_during_shutdown = true;  // the writes stay in the WAL at Close
  Open();
  for (int i = 0; i < 50; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v"));
  Close();
  ASSERT_TRUE(FilesOfType(FileType::kTableFile).empty());
  fs::remove(CurrentFileName(dir_));
  ASSERT_OK(Repair());
  EXPECT_EQ(FilesOfType(FileType::kTableFile).size(), 1u);
  Open();
  Model model;
  for (int i = 0; i < 50; i++) model[Key(i)] = "v";
  CheckFamily(0, model, 60);
}

TEST_F(DBRepairTest, MissingDirectoryIsAnErrorAndNothingIsCreated) {
  const std::string missing = dir_ + "/nothing_here";
  Status s = RepairDB(missing, options_);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find(missing), std::string::npos) << s.ToString();
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_TRUE(RepairDB("", options_).IsInvalidArgument());
}

TEST_F(DBRepairTest, RefusedWhileTheDbIsOpen) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  const std::vector<uint64_t> manifests = FilesOfType(FileType::kDescriptorFile);
  Status s = Repair();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("LOCK"), std::string::npos) << s.ToString();
  EXPECT_EQ(FilesOfType(FileType::kDescriptorFile), manifests);  // nothing rewritten
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "a", &value));
  EXPECT_EQ(value, "1");
}

TEST_F(DBRepairTest, HealthyDbUnchanged) {
  families_ = {kDefaultColumnFamilyName, "other"};
  options_.num_levels = 3;
  Open();
  std::vector<Model> models(2);
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 200; i += 1 + round) {
      const std::string v = absl::StrCat("r", round, "_", i);
      ASSERT_OK(db_->Put(WriteOptions(), handles_[round % 2], Key(i), v));
      models[round % 2][Key(i)] = v;
    }
    ASSERT_OK(db_->Delete(WriteOptions(), handles_[round % 2], Key(round * 3)));
    models[round % 2].erase(Key(round * 3));
    ASSERT_OK(db_->Flush(FlushOptions(), handles_[round % 2]));
    if (round == 1) {
      ASSERT_OK(db_->CompactRange(CompactRangeOptions(), handles_[0], nullptr, nullptr));
    }
  }
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "tail", "t"));
  models[1]["tail"] = "t";
  Close();
  ASSERT_OK(Repair());
  Open();
  CheckFamily(0, models[0], 200);
  CheckFamily(1, models[1], 200);
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), handles_[1], "tail", &value));
  Close();
  // A second repair of the repaired DB changes nothing visible either.
  ASSERT_OK(Repair());
  Open();
  CheckFamily(0, models[0], 200);
  CheckFamily(1, models[1], 200);
}

// Tables of unknown families (not in the descriptors) come back under their own names, with
// unknown_cf_options; a table without a family property goes to "default".
TEST_F(DBRepairTest, FamiliesComeBackFromTableProperties) {
  families_ = {kDefaultColumnFamilyName, "one", "two"};
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), handles_[1], "k1", "v1"));
  ASSERT_OK(db_->Put(WriteOptions(), handles_[2], "k2", "v2"));
  for (ColumnFamilyHandle* h : handles_) ASSERT_OK(db_->Flush(FlushOptions(), h));
  Close();
  // The table properties name the family.
  for (uint64_t n : FilesOfType(FileType::kTableFile)) {
    std::unique_ptr<RandomAccessFile> file;
    const std::string path = TableFileName(dir_, n);
    ASSERT_OK(FileSystem::Default()->NewRandomAccessFile(path, &file));
    std::unique_ptr<TableReader> reader;
    const InternalKeyComparator icmp(BytewiseComparator());
    ASSERT_OK(TableReader::Open(TableReaderOptions(), std::move(file), fs::file_size(path), path,
                                n, &icmp, nullptr, &reader));
    EXPECT_TRUE(reader->properties().has_column_family());
    EXPECT_TRUE(reader->properties().column_family_name == "one" ||
                reader->properties().column_family_name == "two");
  }
  fs::remove(CurrentFileName(dir_));
  for (uint64_t n : FilesOfType(FileType::kDescriptorFile)) fs::remove(DescriptorFileName(dir_, n));
  // Only the default family is named: the others get the single options.
  ASSERT_OK(RepairDB(dir_, options_));
  std::vector<std::string> names;
  ASSERT_OK(DB::ListColumnFamilies(DBOptions(options_), dir_, &names));
  EXPECT_EQ(names, (std::vector<std::string>{"default", "one", "two"}));
  Open();
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), handles_[1], "k1", &value));
  EXPECT_EQ(value, "v1");
  ASSERT_OK(db_->Get(ReadOptions(), handles_[2], "k2", &value));
  EXPECT_EQ(value, "v2");
  EXPECT_TRUE(db_->Get(ReadOptions(), handles_[0], "k1", &value).IsNotFound());
}

}  // namespace
}  // namespace shale
