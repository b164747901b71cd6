// VersionSet with several column families, over the in-memory file system: create/drop and
// their round trips through Recover (ids never reused), Recover's family checks, the MANIFEST
// structure checks, ListColumnFamilies, per-family log numbers, dropped families' files in
// AddLiveFiles, atomic groups (whole or none after a torn MANIFEST), and new MANIFESTs carrying
// every family.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "../db/gated_file_system.h"
#include "base/filename.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "version/version_set.h"
#include "version/version_test_util.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale::test {
namespace {

constexpr int kLevels = 7;
const char* const kDb = "/db";

class VersionSetColumnFamilyTest : public testing::Test {
 protected:
  VersionSetColumnFamilyTest() : fs_(NewMemFileSystem()) { EXPECT_OK(fs_->CreateDir(kDb)); }

  std::unique_ptr<VersionSet> NewVersionSet() {
    VersionSetOptions options;
    options.max_manifest_file_size = max_manifest_;
    return std::make_unique<VersionSet>(kDb, fs_.get(), InternalKeyComparator(BytewiseComparator()),
                                        kLevels, options);
  }

  // Creates the DB (its first MANIFEST) with an empty edit.
  void CreateDb() {
    vs_ = NewVersionSet();
    VersionEdit e;
    ASSERT_OK(LogAndApply(&e));
  }

  Status LogAndApply(VersionEdit* edit) {
    MutexLock lock(&mu_);
    return vs_->LogAndApply(edit, &mu_);
  }
  Status LogAndApplyGroup(const std::vector<VersionEdit*>& edits) {
    MutexLock lock(&mu_);
    return vs_->LogAndApply(edits, &mu_);
  }
  Status Create(const std::string& name, uint32_t* id, int levels = kLevels,
                uint64_t log_number = 0) {
    MutexLock lock(&mu_);
    return vs_->CreateColumnFamily({name, levels}, log_number, &mu_, id);
  }
  uint32_t MustCreate(const std::string& name) {
    uint32_t id = 0;
    EXPECT_OK(Create(name, &id));
    return id;
  }
  Status Drop(uint32_t id) {
    MutexLock lock(&mu_);
    return vs_->DropColumnFamily(id, &mu_);
  }

  // Reopens with the named families (default always, with kLevels).
  Status Reopen(const std::vector<ColumnFamilyConfig>& others = {}) {
    vs_.reset();
    vs_ = NewVersionSet();
    std::vector<ColumnFamilyConfig> families = {{"default", kLevels}};
    families.insert(families.end(), others.begin(), others.end());
    bool save_manifest = false;
    Status s = vs_->Recover(families, &save_manifest);
    EXPECT_EQ(save_manifest, s.ok());
    return s;
  }

  // A new file in family `cf`, at `level`, with keys [lo, hi], applied.
  uint64_t AddFile(uint32_t cf, int level, const std::string& lo, const std::string& hi) {
    VersionEdit e;
    e.SetColumnFamily(cf);
    const uint64_t number = vs_->NewFileNumber();
    e.AddFile(level, MakeFile(number, lo, hi, number, number));
    EXPECT_OK(LogAndApply(&e));
    return number;
  }

  // The persistent state of one family, as text.
  std::string DescribeFamily(uint32_t cf) {
    MutexLock lock(&mu_);
    std::string r = absl::StrCat(vs_->ColumnFamilyName(cf), " log=", vs_->LogNumber(cf), "\n");
    for (int level = 0; level < vs_->num_levels(cf); ++level) {
      if (!vs_->CompactPointer(level, cf).empty()) {
        absl::StrAppend(&r, "pointer L", level, " ", absl::CEscape(vs_->CompactPointer(level, cf)),
                        "\n");
      }
      const auto& files = vs_->current(cf)->files(level);
      r += DescribeFiles(level, std::vector<const FileMetaData*>(files.begin(), files.end()));
    }
    return r;
  }
  std::string DescribeAll() {
    std::string r;
    std::vector<uint32_t> ids;
    {
      MutexLock lock(&mu_);
      ids = vs_->ColumnFamilyIds();
    }
    for (uint32_t id : ids) absl::StrAppend(&r, "#", id, " ", DescribeFamily(id));
    return r;
  }

  std::vector<std::string> List() {
    std::vector<std::string> names;
    EXPECT_OK(VersionSet::ListColumnFamilies(fs_.get(), kDb, &names));
    return names;
  }

  std::string ManifestPath() { return DescriptorFileName(kDb, vs_->ManifestFileNumber()); }

  // The offsets at which the records of the MANIFEST start.
  std::vector<uint64_t> RecordOffsets(const std::string& path) {
    std::unique_ptr<SequentialFile> file;
    EXPECT_OK(fs_->NewSequentialFile(path, &file));
    log::Reader reader(file.get(), nullptr, true, 0,
                       log::WalRecoveryMode::kTolerateCorruptedTailRecords, path);
    std::vector<uint64_t> offsets;
    std::string_view record;
    std::string scratch;
    while (reader.ReadRecord(&record, &scratch)) offsets.push_back(reader.LastRecordOffset());
    EXPECT_OK(reader.status());
    return offsets;
  }

  void Truncate(const std::string& path, uint64_t size) {
    std::string contents;
    ASSERT_OK(ReadFileToString(fs_.get(), path, &contents));
    ASSERT_LE(size, contents.size());
    ASSERT_OK(WriteStringToFile(fs_.get(), contents.substr(0, size), path, true));
  }

  // Appends a well-framed record holding `edit` to the MANIFEST.
  void AppendEdit(const std::string& path, const VersionEdit& edit) {
    std::string record;
    edit.EncodeTo(&record);
    uint64_t size = 0;
    ASSERT_OK(fs_->GetFileSize(path, &size));
    std::unique_ptr<WritableFile> file;
    ASSERT_OK(fs_->NewAppendableFile(path, &file));
    log::Writer writer(std::move(file), size);
    ASSERT_OK(writer.AddRecord(record));
    ASSERT_OK(writer.Sync());
    ASSERT_OK(writer.Close());
  }

  std::shared_ptr<FileSystem> fs_;
  uint64_t max_manifest_ = uint64_t{1} << 30;
  Mutex mu_;
  std::unique_ptr<VersionSet> vs_;
};

TEST_F(VersionSetColumnFamilyTest, NewDbHasOnlyTheDefaultFamily) {
  CreateDb();
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->ColumnFamilyIds(), std::vector<uint32_t>{0});
  EXPECT_EQ(vs_->ColumnFamilyName(0), "default");
  uint32_t id = 99;
  EXPECT_TRUE(vs_->FindColumnFamily("default", &id));
  EXPECT_EQ(id, 0u);
  EXPECT_FALSE(vs_->FindColumnFamily("a", &id));
  EXPECT_TRUE(vs_->ColumnFamilyExists(0));
  EXPECT_FALSE(vs_->ColumnFamilyExists(1));
}

// The snapshot that starts a MANIFEST names the max column family only once a family other than
// the default was created, so a DB that never had one stays readable by older readers.
TEST_F(VersionSetColumnFamilyTest, SnapshotHasMaxColumnFamilyOnlyOnceOneWasCreated) {
  auto first_record = [this] {
    const std::string path = ManifestPath();
    std::unique_ptr<SequentialFile> file;
    EXPECT_OK(fs_->NewSequentialFile(path, &file));
    log::Reader reader(file.get(), nullptr, true, 0,
                       log::WalRecoveryMode::kTolerateCorruptedTailRecords, path);
    std::string_view record;
    std::string scratch;
    EXPECT_TRUE(reader.ReadRecord(&record, &scratch));
    VersionEdit e;
    EXPECT_OK(e.DecodeFrom(record));
    return e;
  };
  CreateDb();
  EXPECT_FALSE(first_record().has_max_column_family());
  ASSERT_OK(Reopen());
  VersionEdit empty;
  ASSERT_OK(LogAndApply(&empty));  // a new MANIFEST
  EXPECT_FALSE(first_record().has_max_column_family());
  const uint32_t a = MustCreate("a");
  ASSERT_OK(Drop(a));
  ASSERT_OK(Reopen());
  ASSERT_OK(LogAndApply(&empty));
  const VersionEdit snapshot = first_record();
  EXPECT_TRUE(snapshot.has_max_column_family());
  EXPECT_EQ(snapshot.max_column_family(), a);
}

TEST_F(VersionSetColumnFamilyTest, CreateDropAndRecoverRoundTrip) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const uint32_t b = MustCreate("b");
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  AddFile(0, 1, "d0", "d1");
  const uint64_t fa = AddFile(a, 2, "a0", "a1");
  AddFile(a, 0, "a5", "a9");
  const uint64_t fb = AddFile(b, 3, "b0", "b1");
  VersionEdit pointer;
  pointer.SetColumnFamily(b);
  pointer.SetCompactPointer(3, MakeInternalKey("b0", 5, kTypeValue));
  ASSERT_OK(LogAndApply(&pointer));
  const std::string before = DescribeAll();
  EXPECT_NE(before.find(absl::StrCat("#", fa)), std::string::npos) << before;

  ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}}));
  EXPECT_EQ(DescribeAll(), before);
  {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->ColumnFamilyIds(), (std::vector<uint32_t>{0, a, b}));
    uint32_t id = 0;
    ASSERT_TRUE(vs_->FindColumnFamily("b", &id));
    EXPECT_EQ(id, b);
    EXPECT_EQ(vs_->NumLevelFiles(3, b), 1);
    EXPECT_EQ(vs_->NumLevelFiles(0, a), 1);
    EXPECT_EQ(vs_->LevelSummary(a), "files[ 1 0 1 0 0 0 0 ]");
    EXPECT_EQ(vs_->NumLevelBytes(3, b), 1000u);
  }
  // The reopened VersionSet writes a new MANIFEST (a snapshot of every family): still the same.
  VersionEdit empty;
  ASSERT_OK(LogAndApply(&empty));
  ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}}));
  EXPECT_EQ(DescribeAll(), before);

  ASSERT_OK(Drop(a));
  {
    MutexLock lock(&mu_);
    EXPECT_FALSE(vs_->ColumnFamilyExists(a));
    uint32_t id;
    EXPECT_FALSE(vs_->FindColumnFamily("a", &id));
    EXPECT_EQ(vs_->ColumnFamilyIds(), (std::vector<uint32_t>{0, b}));
  }
  std::set<uint64_t> live;
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live.count(fa), 0u);
  EXPECT_EQ(live.count(fb), 1u);
  ASSERT_OK(Reopen({{"b", kLevels}}));
  EXPECT_EQ(List(), (std::vector<std::string>{"default", "b"}));
  {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->ColumnFamilyIds(), (std::vector<uint32_t>{0, b}));
  }
  // A new family named like the dropped one gets a new id.
  EXPECT_EQ(MustCreate("a"), 3u);
}

TEST_F(VersionSetColumnFamilyTest, IdsAreNeverReusedAfterDropAndReopen) {
  CreateDb();
  MustCreate("a");
  const uint32_t b = MustCreate("b");
  ASSERT_OK(Drop(b));  // the largest id in use goes away
  ASSERT_OK(Reopen({{"a", kLevels}}));
  VersionEdit empty;  // a new MANIFEST: its snapshot no longer mentions b at all
  ASSERT_OK(LogAndApply(&empty));
  ASSERT_OK(Reopen({{"a", kLevels}}));
  EXPECT_EQ(MustCreate("c"), b + 1);
  ASSERT_OK(Reopen({{"a", kLevels}, {"c", kLevels}}));
  EXPECT_EQ(MustCreate("d"), b + 2);
}

TEST_F(VersionSetColumnFamilyTest, RecoverRequiresEveryFamilyOfTheManifest) {
  CreateDb();
  MustCreate("a");
  const uint32_t b = MustCreate("b");
  MustCreate("c");
  AddFile(b, 1, "x", "y");
  Status s = Reopen({{"b", kLevels}});
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(s.message(), "Column families not opened: a, c");
  {
    MutexLock lock(&mu_);  // nothing was installed
    EXPECT_EQ(vs_->ColumnFamilyIds(), std::vector<uint32_t>{0});
    EXPECT_EQ(vs_->PeekNextFileNumber(), 1u);
  }
  // So the same VersionSet may recover again, with every family.
  bool save = false;
  ASSERT_OK(vs_->Recover({{"default", kLevels}, {"a", kLevels}, {"b", kLevels}, {"c", kLevels}},
                         &save));
  EXPECT_TRUE(save);
  // Opening more families than the MANIFEST has creates none of the extra ones.
  ASSERT_OK(Reopen({{"c", kLevels}, {"zz", kLevels}, {"a", kLevels}, {"b", kLevels}}));
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->ColumnFamilyIds(), (std::vector<uint32_t>{0, 1, 2, 3}));
  uint32_t id;
  EXPECT_FALSE(vs_->FindColumnFamily("zz", &id));
  EXPECT_EQ(vs_->NumLevelFiles(1, b), 1);
}

TEST_F(VersionSetColumnFamilyTest, RecoverChecksTheFamiliesItIsGiven) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  AddFile(a, 5, "k", "l");
  vs_.reset();
  bool save = false;
  struct Case {
    std::vector<ColumnFamilyConfig> families;
    const char* message;
  };
  const Case cases[] = {
      {{{"a", kLevels}}, "default column family must be opened"},
      {{{"default", kLevels - 1}, {"a", kLevels}}, "for the default column family"},
      {{{"default", kLevels}, {"a", 0}}, "num_levels 0 for column family a"},
      {{{"default", kLevels}, {"a", kMaxNumLevels + 1}}, "num_levels 65 for column family a"},
      {{{"default", kLevels}, {"a", kLevels}, {"a", kLevels}}, "column family a named twice"},
      // a's file is at L5.
      {{{"default", kLevels}, {"a", 5}}, "at level 5 but the DB has 5 levels"},
  };
  for (const Case& c : cases) {
    vs_ = NewVersionSet();
    Status s = vs_->Recover(c.families, &save);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.message << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(c.message), std::string::npos) << s.ToString();
    EXPECT_FALSE(save);
  }
  vs_ = NewVersionSet();
  ASSERT_OK(vs_->Recover({{"default", kLevels}, {"a", 6}}, &save));
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->num_levels(a), 6);
  EXPECT_EQ(vs_->num_levels(), kLevels);
  EXPECT_EQ(vs_->LevelSummary(a), "files[ 0 0 0 0 0 1 ]");
}

TEST_F(VersionSetColumnFamilyTest, ListColumnFamilies) {
  std::vector<std::string> names;
  Status s = VersionSet::ListColumnFamilies(fs_.get(), kDb, &names);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();  // no CURRENT, as Recover
  EXPECT_NE(s.ToString().find(CurrentFileName(kDb)), std::string::npos) << s.ToString();
  CreateDb();
  EXPECT_EQ(List(), std::vector<std::string>{"default"});
  MustCreate("zeta");
  const uint32_t b = MustCreate("beta");
  MustCreate("alpha");
  ASSERT_OK(Drop(b));
  EXPECT_EQ(List(), (std::vector<std::string>{"default", "zeta", "alpha"}));
  // As Recover: a MANIFEST named by CURRENT but missing.
  ASSERT_OK(WriteStringToFile(fs_.get(), "MANIFEST-000999\n", CurrentFileName(kDb), true));
  s = VersionSet::ListColumnFamilies(fs_.get(), kDb, &names);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("MANIFEST-000999"), std::string::npos) << s.ToString();
}

TEST_F(VersionSetColumnFamilyTest, BadCreateAndDropAreRefused) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  uint64_t size_before = 0;
  ASSERT_OK(fs_->GetFileSize(ManifestPath(), &size_before));
  uint32_t id = 77;
  Status s = Create("a", &id);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("column family a exists"), std::string::npos) << s.ToString();
  EXPECT_TRUE(Create("default", &id).IsInvalidArgument());
  EXPECT_TRUE(Create("", &id).IsInvalidArgument());
  EXPECT_TRUE(Create("x", &id, 0).IsInvalidArgument());
  EXPECT_TRUE(Create("x", &id, kMaxNumLevels + 1).IsInvalidArgument());
  EXPECT_TRUE(Create("x", &id, kLevels, vs_->PeekNextFileNumber()).IsInvalidArgument());
  EXPECT_EQ(id, 77u);
  s = Drop(0);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(Drop(a + 1).IsInvalidArgument());
  uint64_t size_after = 0;
  ASSERT_OK(fs_->GetFileSize(ManifestPath(), &size_after));
  EXPECT_EQ(size_before, size_after);  // nothing was written
  // The family and the edit fields only CreateColumnFamily/DropColumnFamily write.
  VersionEdit add;
  add.SetColumnFamily(a + 1);
  add.AddColumnFamily("sneaky");
  EXPECT_TRUE(LogAndApply(&add).IsInvalidArgument());
  VersionEdit drop;
  drop.SetColumnFamily(a);
  drop.DropColumnFamily();
  EXPECT_TRUE(LogAndApply(&drop).IsInvalidArgument());
  MutexLock lock(&mu_);
  EXPECT_TRUE(vs_->ColumnFamilyExists(a));
  EXPECT_FALSE(vs_->ColumnFamilyExists(a + 1));
}

TEST_F(VersionSetColumnFamilyTest, EditForADroppedFamilyIsRefused) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  AddFile(a, 1, "a", "b");
  ASSERT_OK(Drop(a));
  VersionEdit e;
  e.SetColumnFamily(a);
  e.AddFile(1, MakeFile(vs_->NewFileNumber(), "c", "d", 1, 1));
  Status s = LogAndApply(&e);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(absl::StrCat("column family ", a)), std::string::npos)
      << s.ToString();
  s = Drop(a);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // In an atomic group, the whole group is refused.
  VersionEdit d;
  d.AddFile(1, MakeFile(vs_->NewFileNumber(), "c", "d", 1, 1));
  EXPECT_TRUE(LogAndApplyGroup({&d, &e}).IsInvalidArgument());
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->NumLevelFiles(1), 0);
}

// An edit queued behind the drop of its family is checked when its turn comes, after the drop:
// it fails instead of reviving the family or writing a record Recover would reject.
TEST_F(VersionSetColumnFamilyTest, EditQueuedBehindTheDropOfItsFamilyFails) {
  auto gated = std::make_shared<GatedFileSystem>(fs_);
  fs_ = gated;
  CreateDb();
  const uint32_t a = MustCreate("a");
  gated->Arm(GatedFileSystem::Op::kSync, "MANIFEST");
  std::thread drop([&] { EXPECT_OK(Drop(a)); });
  ASSERT_TRUE(gated->WaitUntilHeld(std::chrono::seconds(10)));  // the drop is at the front
  std::atomic<bool> started{false};
  Status queued;
  std::thread edit([&] {
    VersionEdit e;
    e.SetColumnFamily(a);
    e.AddFile(1, MakeFile(vs_->NewFileNumber(), "a", "b", 1, 1));
    started = true;
    queued = LogAndApply(&e);
  });
  while (!started) std::this_thread::yield();
  // Give the edit time to queue behind the drop. The outcome is the same if it has not yet:
  // this only makes the queued interleaving the one that is tested nearly always.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gated->Release();
  drop.join();
  edit.join();
  EXPECT_TRUE(queued.IsInvalidArgument()) << queued.ToString();
  EXPECT_EQ(List(), std::vector<std::string>{"default"});
  ASSERT_OK(Reopen());
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->ColumnFamilyIds(), std::vector<uint32_t>{0});
}

TEST_F(VersionSetColumnFamilyTest, LogNumbersArePerFamily) {
  CreateDb();
  const uint64_t l1 = vs_->NewFileNumber();
  VersionEdit e;
  e.SetLogNumber(l1);
  ASSERT_OK(LogAndApply(&e));
  uint32_t a = 0;
  const uint64_t l2 = vs_->NewFileNumber();
  ASSERT_OK(Create("a", &a, kLevels, l2));
  {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->LogNumber(a), l2);
    EXPECT_EQ(vs_->LogNumber(), l1);
    EXPECT_EQ(vs_->MinLogNumber(), l1);
  }
  // The default family flushes past both; a still pins l2.
  const uint64_t l3 = vs_->NewFileNumber();
  VersionEdit flush;
  flush.SetLogNumber(l3);
  ASSERT_OK(LogAndApply(&flush));
  {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->LogNumber(), l3);
    EXPECT_EQ(vs_->MinLogNumber(), l2);
  }
  // Each family's log number only moves forward: l1 is below a's.
  VersionEdit back;
  back.SetColumnFamily(a);
  back.SetLogNumber(l1);
  Status s = LogAndApply(&back);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(absl::StrCat("of column family ", a)), std::string::npos)
      << s.ToString();
  // An edit without a log number keeps the family's, not the default's.
  VersionEdit plain;
  plain.SetColumnFamily(a);
  ASSERT_OK(LogAndApply(&plain));
  EXPECT_EQ(plain.log_number(), l2);
  ASSERT_OK(Reopen({{"a", kLevels}}));
  {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->LogNumber(a), l2);
    EXPECT_EQ(vs_->LogNumber(), l3);
    EXPECT_EQ(vs_->MinLogNumber(), l2);
  }
  // Dropping the family that pinned l2 unpins it.
  ASSERT_OK(Drop(a));
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->MinLogNumber(), l3);
}

TEST_F(VersionSetColumnFamilyTest, DroppedFamilyFilesStayLiveWhileAVersionIsReferenced) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const uint32_t b = MustCreate("b");
  const uint64_t fa1 = AddFile(a, 1, "a", "b");
  const uint64_t fa2 = AddFile(a, 0, "c", "d");
  const uint64_t fb = AddFile(b, 1, "a", "b");
  const uint64_t fd = AddFile(0, 1, "a", "b");
  Version* held;
  {
    MutexLock lock(&mu_);
    held = vs_->current(a);
    held->Ref();  // an iterator over the family
  }
  ASSERT_OK(Drop(a));
  ASSERT_OK(Drop(b));  // nothing holds b
  std::set<uint64_t> live;
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live, (std::set<uint64_t>{fa1, fa2, fd}));
  // The held Version still reads.
  EXPECT_EQ(held->NumFiles(1), 1);
  EXPECT_EQ(held->files(0)[0]->number, fa2);
  (void)fb;
  {
    MutexLock lock(&mu_);
    held->Unref();
  }
  live.clear();
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live, std::set<uint64_t>{fd});
  VersionEdit e;  // the next queued call frees what is left of the dropped families
  ASSERT_OK(LogAndApply(&e));
}

TEST_F(VersionSetColumnFamilyTest, AtomicGroupIsAppliedAndRecoveredWhole) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const uint32_t b = MustCreate("b");
  std::vector<VersionEdit> edits(3);
  const uint32_t families[] = {0, a, b};
  std::set<uint64_t> numbers;
  for (int i = 0; i < 3; ++i) {
    edits[i].SetColumnFamily(families[i]);
    const uint64_t n = vs_->NewFileNumber();
    numbers.insert(n);
    edits[i].AddFile(0, MakeFile(n, "k", "m", n, n));
  }
  const std::string path = ManifestPath();
  const size_t records_before = RecordOffsets(path).size();
  ASSERT_OK(LogAndApplyGroup({&edits[0], &edits[1], &edits[2]}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(edits[i].is_in_atomic_group());
    EXPECT_EQ(edits[i].remaining_entries(), static_cast<uint32_t>(2 - i));
  }
  EXPECT_EQ(RecordOffsets(path).size(), records_before + 3);  // one record per edit
  const std::string after = DescribeAll();
  for (uint32_t cf : families) {
    MutexLock lock(&mu_);
    EXPECT_EQ(vs_->NumLevelFiles(0, cf), 1);
  }
  ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}}));
  EXPECT_EQ(DescribeAll(), after);
}

TEST_F(VersionSetColumnFamilyTest, AtomicGroupCutShortIsRecoveredAsNone) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const uint32_t b = MustCreate("b");
  AddFile(a, 1, "a", "b");
  const std::string before = DescribeAll();
  const std::string path = ManifestPath();
  const std::vector<uint64_t> offsets_before = RecordOffsets(path);
  std::vector<VersionEdit> edits(3);
  const uint32_t families[] = {0, a, b};
  for (int i = 0; i < 3; ++i) {
    edits[i].SetColumnFamily(families[i]);
    const uint64_t n = vs_->NewFileNumber();
    edits[i].AddFile(2, MakeFile(n, "k", "m", n, n));
  }
  ASSERT_OK(LogAndApplyGroup({&edits[0], &edits[1], &edits[2]}));
  const std::string whole = DescribeAll();
  vs_.reset();
  std::string contents;
  ASSERT_OK(ReadFileToString(fs_.get(), path, &contents));
  const std::vector<uint64_t> offsets = RecordOffsets(path);
  ASSERT_EQ(offsets.size(), offsets_before.size() + 3);
  const uint64_t group_start = offsets[offsets_before.size()];
  // Cuts: after the first record of the group, after the second, inside the third (a torn
  // record), inside the second.
  const uint64_t cuts[] = {offsets[offsets.size() - 2], offsets.back(),
                           offsets.back() + 10, offsets[offsets.size() - 2] + 3};
  for (uint64_t cut : cuts) {
    ASSERT_GT(cut, group_start);
    ASSERT_OK(WriteStringToFile(fs_.get(), contents, path, true));
    Truncate(path, cut);
    SCOPED_TRACE(cut);
    ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}}));
    EXPECT_EQ(DescribeAll(), before) << "cut at " << cut;
  }
  // The whole group is found again when nothing is cut.
  ASSERT_OK(WriteStringToFile(fs_.get(), contents, path, true));
  ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}}));
  EXPECT_EQ(DescribeAll(), whole);
}

TEST_F(VersionSetColumnFamilyTest, AtomicGroupArgumentsAreChecked) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  EXPECT_TRUE(LogAndApplyGroup({}).IsInvalidArgument());
  VersionEdit x, y;
  x.SetColumnFamily(a);
  y.SetColumnFamily(a);
  Status s = LogAndApplyGroup({&x, &y});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // A group edit that does not apply fails the group before any I/O.
  VersionEdit good, bad;
  good.AddFile(1, MakeFile(vs_->NewFileNumber(), "a", "b", 1, 1));
  bad.SetColumnFamily(a);
  bad.DeleteFile(1, 424242);
  EXPECT_TRUE(LogAndApplyGroup({&good, &bad}).IsCorruption());
  MutexLock lock(&mu_);
  EXPECT_EQ(vs_->NumLevelFiles(1), 0);
}

TEST_F(VersionSetColumnFamilyTest, InterruptedAtomicGroupIsCorruption) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const std::string path = ManifestPath();
  vs_.reset();
  VersionEdit first;
  first.MarkAtomicGroup(1);
  VersionEdit other;  // not in the group
  other.SetColumnFamily(a);
  AppendEdit(path, first);
  AppendEdit(path, other);
  Status s = Reopen({{"a", kLevels}});
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("atomic group interrupted"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find(path + ": record at offset"), std::string::npos) << s.ToString();
  std::vector<std::string> names;
  EXPECT_TRUE(VersionSet::ListColumnFamilies(fs_.get(), kDb, &names).IsCorruption());
}

TEST_F(VersionSetColumnFamilyTest, AtomicGroupWithWrongCountsIsCorruption) {
  CreateDb();
  const uint32_t a = MustCreate("a");
  const std::string path = ManifestPath();
  vs_.reset();
  VersionEdit first;
  first.MarkAtomicGroup(2);
  VersionEdit skipped;  // claims to be the last, but one more was announced
  skipped.SetColumnFamily(a);
  skipped.MarkAtomicGroup(0);
  AppendEdit(path, first);
  AppendEdit(path, skipped);
  Status s = Reopen({{"a", kLevels}});
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("atomic group interrupted"), std::string::npos) << s.ToString();
}

// Edits that break the column-family structure, appended to a good MANIFEST.
TEST_F(VersionSetColumnFamilyTest, ManifestStructureErrorsAreCorruption) {
  struct Case {
    const char* what;
    std::vector<VersionEdit> edits;
  };
  auto edit = [](uint32_t cf) {
    VersionEdit e;
    e.SetColumnFamily(cf);
    return e;
  };
  auto add = [&](uint32_t cf, const char* name) {
    VersionEdit e = edit(cf);
    e.AddColumnFamily(name);
    return e;
  };
  auto drop = [&](uint32_t cf) {
    VersionEdit e = edit(cf);
    e.DropColumnFamily();
    return e;
  };
  std::vector<Case> cases;
  cases.push_back({"column family 5, which was never added", {edit(5)}});
  cases.push_back({"id 1 is live", {add(1, "again")}});
  cases.push_back({"id 0 is live", {add(0, "zero")}});
  cases.push_back({"the name of live family 1", {add(7, "a")}});
  cases.push_back({"column family 1, which was dropped", {drop(1), edit(1)}});
  cases.push_back({"id 1 is dropped", {drop(1), add(1, "a")}});
  cases.push_back({"drops the default column family", {drop(0)}});
  cases.push_back({"column family 9, which was never added", {drop(9)}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    fs_ = NewMemFileSystem();
    ASSERT_OK(fs_->CreateDir(kDb));
    CreateDb();
    ASSERT_EQ(MustCreate("a"), 1u);
    const std::string path = ManifestPath();
    vs_.reset();
    for (const VersionEdit& e : c.edits) AppendEdit(path, e);
    Status s = Reopen({{"a", kLevels}});
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.what), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find(path + ": record at offset"), std::string::npos) << s.ToString();
    std::vector<std::string> names;
    s = VersionSet::ListColumnFamilies(fs_.get(), kDb, &names);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
}

TEST_F(VersionSetColumnFamilyTest, NewManifestCarriesEveryFamily) {
  max_manifest_ = 1;  // every call starts a new MANIFEST
  CreateDb();
  const uint32_t a = MustCreate("a");
  const uint32_t b = MustCreate("b");
  const uint32_t c = MustCreate("c");
  uint32_t d = 0;
  ASSERT_OK(Create("d", &d, 3, vs_->NewFileNumber()));
  AddFile(c, 1, "c", "c");
  ASSERT_OK(Drop(c));
  std::set<uint64_t> manifests;
  for (uint32_t cf : {0u, a, b, d}) {
    AddFile(cf, 0, "x", "y");
    AddFile(cf, 2, "a", "b");
    VersionEdit e;
    e.SetColumnFamily(cf);
    e.SetCompactPointer(1, MakeInternalKey(absl::StrCat("p", cf), 9, kTypeValue));
    e.SetLogNumber(vs_->NewFileNumber());
    ASSERT_OK(LogAndApply(&e));
    manifests.insert(vs_->ManifestFileNumber());
  }
  EXPECT_EQ(manifests.size(), 4u);
  VersionEdit last;
  ASSERT_OK(LogAndApply(&last));
  // The live MANIFEST holds one snapshot record per live family (4) and the edit.
  EXPECT_EQ(RecordOffsets(ManifestPath()).size(), 5u);
  const std::string before = DescribeAll();
  ASSERT_OK(Reopen({{"a", kLevels}, {"b", kLevels}, {"d", 3}}));
  EXPECT_EQ(DescribeAll(), before);
  EXPECT_EQ(List(), (std::vector<std::string>{"default", "a", "b", "d"}));
  EXPECT_EQ(MustCreate("e"), d + 1);
}

}  // namespace
}  // namespace shale::test
