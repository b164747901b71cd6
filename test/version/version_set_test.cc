// VersionSet over the in-memory file system: LogAndApply + Recover against a model over many
// random edits, a new MANIFEST on every reopen and when the MANIFEST grows too large, live files,
// counters, the queue of concurrent LogAndApply calls, and every Recover error.
#include "version/version_set.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "util/random.h"
#include "version/version_test_util.h"
#include "wal/log_writer.h"

namespace shale::test {
namespace {

constexpr int kLevels = 7;
const char* const kDb = "/db";

// A comparator with another name (same order), for the mismatch test.
class OtherComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return a.compare(b); }
  const char* Name() const override { return "test.OtherComparator"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

class VersionSetTest : public testing::Test {
 protected:
  VersionSetTest() : fs_(NewMemFileSystem()), icmp_(BytewiseComparator()), model_(kLevels) {
    EXPECT_OK(fs_->CreateDir(kDb));
  }

  std::unique_ptr<VersionSet> NewVersionSet(int levels = kLevels, uint64_t max_manifest = 1 << 30,
                                            const Comparator* ucmp = BytewiseComparator()) {
    VersionSetOptions options;
    options.max_manifest_file_size = max_manifest;
    return std::make_unique<VersionSet>(kDb, fs_.get(), InternalKeyComparator(ucmp), levels,
                                         options);
  }

  // Creates the DB (its first MANIFEST) with an empty edit.
  void CreateDb(uint64_t max_manifest = 1 << 30) {
    vs_ = NewVersionSet(kLevels, max_manifest);
    VersionEdit e;
    ASSERT_OK(LogAndApply(&e));
  }

  Status LogAndApply(VersionEdit* edit) {
    MutexLock lock(&mu_);
    return vs_->LogAndApply(edit, &mu_);
  }

  Status Reopen(int levels = kLevels, uint64_t max_manifest = 1 << 30) {
    vs_.reset();
    vs_ = NewVersionSet(levels, max_manifest);
    bool save_manifest = false;
    Status s = vs_->Recover(&save_manifest);
    if (s.ok()) {
      EXPECT_TRUE(save_manifest);
    }
    return s;
  }

  std::string Current() {
    std::string s;
    EXPECT_OK(ReadFileToString(fs_.get(), CurrentFileName(kDb), &s));
    return s;
  }

  // Applies n random edits, checking the state against the model after each.
  void ApplyRandomEdits(Random* rnd, int n) {
    for (int i = 0; i < n; ++i) {
      VersionEdit e = RandomEdit(rnd, vs_.get(), &model_, &next_seq_);
      vs_->SetLastSequence(next_seq_);
      Status s = LogAndApply(&e);
      ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << e.DebugString();
      ASSERT_EQ(DescribeVersionSet(*vs_), DescribeModel(model_));
    }
  }

  void ExpectMatchesModel() {
    EXPECT_EQ(DescribeVersionSet(*vs_), DescribeModel(model_));
    EXPECT_OK(vs_->current()->CheckConsistency());
  }

  std::shared_ptr<FileSystem> fs_;
  InternalKeyComparator icmp_;
  Mutex mu_;
  std::unique_ptr<VersionSet> vs_;
  Model model_;
  SequenceNumber next_seq_ = 1;
};

TEST_F(VersionSetTest, NewDbWritesManifestAndCurrent) {
  CreateDb();
  EXPECT_EQ(vs_->ManifestFileNumber(), 1u);
  EXPECT_EQ(Current(), "MANIFEST-000001\n");
  EXPECT_OK(fs_->FileExists(DescriptorFileName(kDb, 1)));
  EXPECT_EQ(vs_->LevelSummary(), "files[ 0 0 0 0 0 0 0 ]");
  // No temp file is left behind.
  std::vector<std::string> children;
  ASSERT_OK(fs_->GetChildren(kDb, &children));
  EXPECT_EQ(std::set<std::string>(children.begin(), children.end()),
            (std::set<std::string>{"CURRENT", "MANIFEST-000001"}));
}

TEST_F(VersionSetTest, ChangingAnExistingDbWithoutRecoverIsRefused) {
  CreateDb();
  VersionEdit add;
  add.AddFile(1, MakeFile(vs_->NewFileNumber(), "a", "b", 1, 1));
  ASSERT_OK(LogAndApply(&add));
  vs_ = NewVersionSet();  // forgot Recover
  VersionEdit e;
  Status s = LogAndApply(&e);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(CurrentFileName(kDb)), std::string::npos) << s.ToString();
  EXPECT_EQ(Current(), "MANIFEST-000001\n");
  ASSERT_OK(Reopen());
  EXPECT_EQ(vs_->NumLevelFiles(1), 1);
}

TEST_F(VersionSetTest, RandomEditsSurviveReopen) {
  CreateDb();
  Random rnd(1234);
  uint64_t last_manifest = vs_->ManifestFileNumber();
  for (int round = 0; round < 15; ++round) {
    ApplyRandomEdits(&rnd, 20);
    const uint64_t next_file = vs_->PeekNextFileNumber();
    const SequenceNumber last_seq = vs_->LastSequence();
    ASSERT_OK(Reopen());
    ExpectMatchesModel();
    EXPECT_EQ(vs_->LastSequence(), last_seq);
    EXPECT_GE(vs_->PeekNextFileNumber(), next_file);  // no number is handed out twice
    // Recover reuses nothing: the next edit starts a new MANIFEST with a higher number.
    EXPECT_EQ(vs_->ManifestFileNumber(), last_manifest);
    VersionEdit empty;
    ASSERT_OK(LogAndApply(&empty));
    EXPECT_GT(vs_->ManifestFileNumber(), last_manifest);
    last_manifest = vs_->ManifestFileNumber();
    EXPECT_EQ(Current(), DescriptorFileName("", last_manifest).substr(1) + "\n");
  }
}

TEST_F(VersionSetTest, RecoverWithoutNewEditsTwice) {
  CreateDb();
  Random rnd(5);
  ApplyRandomEdits(&rnd, 30);
  ASSERT_OK(Reopen());
  ASSERT_OK(Reopen());  // the MANIFEST was not rewritten in between: read it again
  ExpectMatchesModel();
}

TEST_F(VersionSetTest, LargeManifestIsReplacedBySnapshot) {
  CreateDb(/*max_manifest=*/4096);
  Random rnd(99);
  std::set<uint64_t> manifests{vs_->ManifestFileNumber()};
  for (int i = 0; i < 200; ++i) {
    ApplyRandomEdits(&rnd, 1);
    manifests.insert(vs_->ManifestFileNumber());
    uint64_t size = 0;
    ASSERT_OK(fs_->GetFileSize(DescriptorFileName(kDb, vs_->ManifestFileNumber()), &size));
    // One edit past the limit at most (a snapshot itself may exceed it).
    ASSERT_LT(size, 4096u + 4096u + 128u * model_.AllFiles().size());
  }
  EXPECT_GT(manifests.size(), 3u);
  ASSERT_OK(Reopen(kLevels, 4096));
  ExpectMatchesModel();
}

TEST_F(VersionSetTest, LastSequenceAndFileNumbersPersist) {
  CreateDb();
  vs_->SetLastSequence(1000);
  EXPECT_EQ(vs_->AllocateSequences(5), 1001u);
  EXPECT_EQ(vs_->LastAllocatedSequence(), 1005u);
  EXPECT_EQ(vs_->LastSequence(), 1000u);  // allocated, not yet published
  vs_->MarkFileNumberUsed(500);
  EXPECT_EQ(vs_->NewFileNumber(), 501u);
  vs_->MarkFileNumberUsed(10);  // never lowers it
  EXPECT_EQ(vs_->PeekNextFileNumber(), 502u);
  VersionEdit e;
  ASSERT_OK(LogAndApply(&e));
  EXPECT_EQ(e.next_file_number(), 502u);
  EXPECT_EQ(e.last_sequence(), 1005u);  // the allocated ones are recorded
  ASSERT_OK(Reopen());
  EXPECT_EQ(vs_->LastSequence(), 1005u);
  EXPECT_GE(vs_->NewFileNumber(), 502u);
}

TEST_F(VersionSetTest, LogNumbersAreCheckedAndPersisted) {
  CreateDb();
  VersionEdit e;
  const uint64_t log = vs_->NewFileNumber();
  e.SetLogNumber(log);
  e.SetPrevLogNumber(log - 1);
  ASSERT_OK(LogAndApply(&e));
  EXPECT_EQ(vs_->LogNumber(), log);
  VersionEdit older;
  older.SetLogNumber(log - 1);
  EXPECT_TRUE(LogAndApply(&older).IsInvalidArgument());
  VersionEdit unused;
  unused.SetLogNumber(vs_->PeekNextFileNumber());
  EXPECT_TRUE(LogAndApply(&unused).IsInvalidArgument());
  ASSERT_OK(Reopen());
  EXPECT_EQ(vs_->LogNumber(), log);
  EXPECT_EQ(vs_->PrevLogNumber(), log - 1);
}

TEST_F(VersionSetTest, BadEditFailsBeforeAnyIo) {
  CreateDb();
  uint64_t size_before = 0;
  ASSERT_OK(fs_->GetFileSize(DescriptorFileName(kDb, 1), &size_before));
  VersionEdit bad;
  bad.DeleteFile(1, 12345);
  EXPECT_TRUE(LogAndApply(&bad).IsCorruption());
  VersionEdit cf;
  cf.SetColumnFamily(3);
  Status s = LogAndApply(&cf);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("column family 3 does not exist"), std::string::npos)
      << s.ToString();
  uint64_t size_after = 0;
  ASSERT_OK(fs_->GetFileSize(DescriptorFileName(kDb, 1), &size_after));
  EXPECT_EQ(size_before, size_after);
  VersionEdit fine;  // and the VersionSet still works
  EXPECT_OK(LogAndApply(&fine));
}

TEST_F(VersionSetTest, OldVersionKeepsFilesLiveUntilReleased) {
  CreateDb();
  VersionEdit add;
  add.AddFile(1, MakeFile(vs_->NewFileNumber(), "a", "c", 1, 2));
  add.AddFile(2, MakeFile(vs_->NewFileNumber(), "a", "c", 1, 1));
  ASSERT_OK(LogAndApply(&add));
  const uint64_t a = add.new_files()[0].second.number;
  const uint64_t b = add.new_files()[1].second.number;

  Version* old;
  {
    MutexLock lock(&mu_);
    old = vs_->current();
    old->Ref();  // a reader or iterator holding the version
  }
  VersionEdit del;
  del.DeleteFile(1, a);
  ASSERT_OK(LogAndApply(&del));
  std::set<uint64_t> live;
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live, (std::set<uint64_t>{a, b}));
  {
    MutexLock lock(&mu_);
    old->Unref();
  }
  live.clear();
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live, std::set<uint64_t>{b});
}

TEST_F(VersionSetTest, ConcurrentLogAndApplyCallsAreQueued) {
  CreateDb();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::thread> threads;
  std::vector<uint64_t> numbers[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &numbers] {
      for (int i = 0; i < kPerThread; ++i) {
        VersionEdit e;
        const uint64_t n = vs_->NewFileNumber();
        e.AddFile(0, MakeFile(n, UserKey(n), UserKey(n), n, n));
        numbers[t].push_back(n);
        EXPECT_OK(LogAndApply(&e));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(vs_->NumLevelFiles(0), kThreads * kPerThread);
  ASSERT_OK(Reopen());
  EXPECT_EQ(vs_->NumLevelFiles(0), kThreads * kPerThread);
  EXPECT_OK(vs_->current()->CheckConsistency());
}

// ---- Recover errors ----

TEST_F(VersionSetTest, MissingEmptyOrGarbageCurrentIsCorruption) {
  CreateDb();
  vs_.reset();
  const std::string current = CurrentFileName(kDb);
  for (const char* contents : {"", "MANIFEST-000001", "garbage\n", "MANIFEST-\n",
                               "MANIFEST-00000x\n", "000001.sst\n", "../MANIFEST-000001\n"}) {
    ASSERT_OK(WriteStringToFile(fs_.get(), contents, current, true));
    Status s = Reopen();
    EXPECT_TRUE(s.IsCorruption()) << contents << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(current), std::string::npos) << s.ToString();
  }
  ASSERT_OK(fs_->DeleteFile(current));
  Status s = Reopen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(current), std::string::npos) << s.ToString();
  ASSERT_OK(WriteStringToFile(fs_.get(), "MANIFEST-000001\n", current, true));
  EXPECT_OK(Reopen());
}

TEST_F(VersionSetTest, MissingManifestIsCorruption) {
  CreateDb();
  vs_.reset();
  ASSERT_OK(WriteStringToFile(fs_.get(), "MANIFEST-000077\n", CurrentFileName(kDb), true));
  Status s = Reopen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("MANIFEST-000077"), std::string::npos) << s.ToString();
}

class ManifestDamageTest : public VersionSetTest {
 protected:
  // A DB with several MANIFEST records; keeps the MANIFEST's path and contents.
  void SetUp() override {
    CreateDb();
    Random rnd(8);
    ApplyRandomEdits(&rnd, 10);
    before_last_ = DescribeModel(model_);
    ApplyRandomEdits(&rnd, 1);
    vs_.reset();
    path_ = DescriptorFileName(kDb, 1);
    ASSERT_OK(ReadFileToString(fs_.get(), path_, &contents_));
  }
  void Rewrite(const std::string& contents) {
    ASSERT_OK(WriteStringToFile(fs_.get(), contents, path_, true));
  }
  std::string path_;
  std::string contents_;
  std::string before_last_;
};

TEST_F(ManifestDamageTest, TornLastRecordIsDropped) {
  Rewrite(contents_.substr(0, contents_.size() - 3));
  ASSERT_OK(Reopen());
  EXPECT_EQ(DescribeVersionSet(*vs_), before_last_);
}

TEST_F(ManifestDamageTest, DamageInTheMiddleIsCorruptionNamingTheFile) {
  std::string damaged = contents_;
  damaged[20] ^= 0x40;
  Rewrite(damaged);
  Status s = Reopen();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(path_), std::string::npos) << s.ToString();
}

// A well-framed record whose contents are wrong, appended by hand.
void AppendRecord(FileSystem* fs, const std::string& path, const std::string& record) {
  uint64_t size = 0;
  ASSERT_OK(fs->GetFileSize(path, &size));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs->NewAppendableFile(path, &file));
  log::Writer writer(std::move(file), size);
  ASSERT_OK(writer.AddRecord(record));
  ASSERT_OK(writer.Sync());
  ASSERT_OK(writer.Close());
}

TEST_F(ManifestDamageTest, UndecodableRecordIsCorruptionNamingTheFileAndOffset) {
  std::string record;
  PutVarint32(&record, 99);  // an unknown tag that is not safe to ignore
  AppendRecord(fs_.get(), path_, record);
  Status s = Reopen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(path_ + ": record at offset"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown tag 99"), std::string::npos) << s.ToString();
}

TEST_F(ManifestDamageTest, EditThatDoesNotApplyIsCorruption) {
  VersionEdit e;
  e.DeleteFile(3, 999999);
  std::string record;
  e.EncodeTo(&record);
  AppendRecord(fs_.get(), path_, record);
  Status s = Reopen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("#999999"), std::string::npos) << s.ToString();
}

TEST_F(ManifestDamageTest, IgnorableUnknownFieldIsSkipped) {
  std::string record;
  PutVarint32(&record, VersionEdit::kTagSafeToIgnoreBit | 3);
  PutLengthPrefixed(&record, "from the future");
  AppendRecord(fs_.get(), path_, record);
  ASSERT_OK(Reopen());
  ExpectMatchesModel();
}

TEST_F(ManifestDamageTest, OtherComparatorIsInvalidArgument) {
  OtherComparator other;
  vs_ = NewVersionSet(kLevels, 1 << 30, &other);
  bool save = false;
  Status s = vs_->Recover(&save);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("leveldb.BytewiseComparator"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("test.OtherComparator"), std::string::npos) << s.ToString();
  EXPECT_FALSE(save);
  EXPECT_EQ(vs_->NumLevelFiles(0), 0);  // nothing installed
  vs_.reset();                          // before `other` goes away
}

TEST_F(ManifestDamageTest, FewerLevelsThanTheManifestUsesIsInvalidArgument) {
  int deepest = 0;
  for (const auto& [level, number] : model_.AllFiles()) deepest = std::max(deepest, level);
  ASSERT_GT(deepest, 0);
  Status s = Reopen(deepest);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(VersionSetTest, ManifestWithoutRequiredFieldsIsCorruption) {
  const std::string path = DescriptorFileName(kDb, 4);
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWritableFile(path, &file));
  log::Writer writer(std::move(file));
  VersionEdit e;
  e.SetComparatorName(BytewiseComparator()->Name());
  e.SetLogNumber(0);
  e.SetLastSequence(0);  // no next file number
  std::string record;
  e.EncodeTo(&record);
  ASSERT_OK(writer.AddRecord(record));
  ASSERT_OK(writer.Close());
  ASSERT_OK(WriteStringToFile(fs_.get(), "MANIFEST-000004\n", CurrentFileName(kDb), true));
  Status s = Reopen();
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("next-file-number"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace shale::test
