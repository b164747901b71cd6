#include "iterator/level_iterator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/internal_key.h"
#include "iterator/iterator_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::Entries;
using test::Model;
using test::VectorIterator;

// A level for tests: the files' entries and bounds, an opener that counts opens and can be
// told to fail, and the iterator over it.
class TestLevel {
 public:
  explicit TestLevel(const Comparator* cmp) : cmp_(cmp) {}

  // Adds a file holding `entries` (sorted), with bounds = its first and last keys.
  void AddFile(Entries entries) {
    const std::string smallest = entries.front().first;
    const std::string largest = entries.back().first;
    AddFile(std::move(entries), smallest, largest);
  }
  // Adds a file with explicit bounds, e.g. a file that turns out to be empty.
  void AddFile(Entries entries, std::string smallest, std::string largest) {
    files_.push_back({std::move(smallest), std::move(largest), files_.size() + 100});
    contents_.push_back(std::move(entries));
    poison_.emplace_back();
  }
  // File i's iterator fails on entry `entry`, the next `times` times it is opened.
  void PoisonFile(size_t i, size_t entry, int times) {
    poison_[i] = entry;
    poison_times_[i] = times;
  }
  void FailOpen(size_t i) { failing_opens_.insert(i); }
  void HealOpen(size_t i) { failing_opens_.erase(i); }
  void ReturnNullFor(size_t i) { null_opens_.insert(i); }

  std::unique_ptr<InternalIterator> NewIterator() {
    return NewLevelIterator(cmp_, NewLevelFileList(files_),
                            [this](size_t i, Status* s) { return Open(i, s); });
  }

  const std::vector<LevelFile>& files() const { return files_; }
  const std::vector<size_t>& opened() const { return opened_; }
  // Returns the files opened since the last call.
  std::vector<size_t> TakeOpened() { return std::exchange(opened_, {}); }

 private:
  std::unique_ptr<InternalIterator> Open(size_t i, Status* s) {
    EXPECT_LT(i, files_.size());
    opened_.push_back(i);
    if (failing_opens_.count(i) != 0) {
      *s = Status::IOError("file " + std::to_string(files_[i].id) + ".sst", "open failed");
      return nullptr;
    }
    if (null_opens_.count(i) != 0) return nullptr;
    std::optional<size_t> poison;
    if (poison_[i] && poison_times_[i]-- > 0) poison = poison_[i];
    return std::make_unique<VectorIterator>(cmp_, contents_[i], poison);
  }

  const Comparator* const cmp_;
  std::vector<LevelFile> files_;
  std::vector<Entries> contents_;
  std::vector<std::optional<size_t>> poison_;
  std::map<size_t, int> poison_times_;
  std::set<size_t> failing_opens_;
  std::set<size_t> null_opens_;
  std::vector<size_t> opened_;
};

using test::Key;

// The value stored under Key(i).
std::string Value(int i) {
  std::string v = "v";
  v += Key(i);
  return v;
}

// A file with keys `keys`, each valued "v<key>".
Entries File(std::initializer_list<int> keys) {
  Entries e;
  for (int k : keys) e.emplace_back(Key(k), Value(k));
  return e;
}

std::vector<std::string> ScanKeys(InternalIterator* it, bool forward) {
  std::vector<std::string> out;
  if (forward) {
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key());
  } else {
    for (it->SeekToLast(); it->Valid(); it->Prev()) out.emplace_back(it->key());
  }
  return out;
}

std::vector<std::string> Keys(std::initializer_list<int> ks) {
  std::vector<std::string> out;
  for (int k : ks) out.push_back(Key(k));
  return out;
}

TEST(LevelIteratorTest, FindFileAndFindFileForPrev) {
  const Comparator* cmp = BytewiseComparator();
  auto files = NewLevelFileList({{Key(10), Key(20), 1}, {Key(30), Key(40), 2}});
  EXPECT_EQ(FindFile(*cmp, *files, Key(5)), 0u);
  EXPECT_EQ(FindFile(*cmp, *files, Key(20)), 0u);
  EXPECT_EQ(FindFile(*cmp, *files, Key(21)), 1u);
  EXPECT_EQ(FindFile(*cmp, *files, Key(40)), 1u);
  EXPECT_EQ(FindFile(*cmp, *files, Key(41)), 2u);
  EXPECT_EQ(FindFileForPrev(*cmp, *files, Key(9)), 2u);  // none
  EXPECT_EQ(FindFileForPrev(*cmp, *files, Key(10)), 0u);
  EXPECT_EQ(FindFileForPrev(*cmp, *files, Key(29)), 0u);
  EXPECT_EQ(FindFileForPrev(*cmp, *files, Key(30)), 1u);
  EXPECT_EQ(FindFileForPrev(*cmp, *files, Key(99)), 1u);
  auto none = NewLevelFileList({});
  EXPECT_EQ(FindFile(*cmp, *none, Key(1)), 0u);
  EXPECT_EQ(FindFileForPrev(*cmp, *none, Key(1)), 0u);
}

TEST(LevelIteratorTest, NoFiles) {
  TestLevel level(BytewiseComparator());
  auto it = level.NewIterator();
  EXPECT_TRUE(ScanKeys(it.get(), true).empty());
  EXPECT_TRUE(ScanKeys(it.get(), false).empty());
  it->Seek(Key(1));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(Key(1));
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(LevelIteratorTest, OpensFilesLazilyAndOnlyTheOneASeekNeeds) {
  TestLevel level(BytewiseComparator());
  level.AddFile(File({10, 12}));
  level.AddFile(File({20, 22}));
  level.AddFile(File({30, 32}));
  level.AddFile(File({40, 42}));
  auto it = level.NewIterator();
  EXPECT_TRUE(level.TakeOpened().empty());

  it->Seek(Key(21));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(22));
  EXPECT_EQ(level.TakeOpened(), std::vector<size_t>{1});
  it->Seek(Key(20));  // same file: kept open
  EXPECT_EQ(it->key(), Key(20));
  EXPECT_TRUE(level.TakeOpened().empty());

  it->Seek(Key(25));  // between files 1 and 2: the first entry of file 2
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(30));
  EXPECT_EQ(level.TakeOpened(), std::vector<size_t>{2});
  it->SeekForPrev(Key(15));  // between files 0 and 1: the last entry of file 0
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(12));
  EXPECT_EQ(level.TakeOpened(), std::vector<size_t>{0});

  it->Seek(Key(43));  // past the last file: nothing to open
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(Key(9));  // before the first file
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(level.TakeOpened().empty());
  EXPECT_OK(it->status());

  EXPECT_EQ(ScanKeys(it.get(), true), Keys({10, 12, 20, 22, 30, 32, 40, 42}));
  EXPECT_EQ(level.TakeOpened(), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({42, 40, 32, 30, 22, 20, 12, 10}));
  EXPECT_EQ(level.TakeOpened(), (std::vector<size_t>{2, 1, 0}));  // file 3 was still open
}

TEST(LevelIteratorTest, SkipsEmptyFilesInBothDirections) {
  TestLevel level(BytewiseComparator());
  level.AddFile({}, Key(1), Key(2));
  level.AddFile(File({10}));
  level.AddFile({}, Key(11), Key(12));
  level.AddFile({}, Key(13), Key(14));
  level.AddFile(File({20, 21}));
  level.AddFile({}, Key(30), Key(31));
  auto it = level.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({10, 20, 21}));
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({21, 20, 10}));
  it->Seek(Key(12));  // in the range of empty file 2: on to file 4
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(20));
  it->SeekForPrev(Key(13));  // in empty file 3: back to file 1
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(10));
  it->Seek(Key(30));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(Key(2));
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(LevelIteratorTest, AllFilesEmpty) {
  TestLevel level(BytewiseComparator());
  level.AddFile({}, Key(1), Key(2));
  level.AddFile({}, Key(3), Key(4));
  auto it = level.NewIterator();
  EXPECT_TRUE(ScanKeys(it.get(), true).empty());
  EXPECT_TRUE(ScanKeys(it.get(), false).empty());
  EXPECT_OK(it->status());
}

TEST(LevelIteratorTest, SingleKeyFiles) {
  TestLevel level(BytewiseComparator());
  for (int k = 0; k < 10; k++) level.AddFile(File({k * 2}));
  auto it = level.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({0, 2, 4, 6, 8, 10, 12, 14, 16, 18}));
  it->Seek(Key(7));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(8));
  it->Prev();
  EXPECT_EQ(it->key(), Key(6));
  it->Prev();
  EXPECT_EQ(it->key(), Key(4));
  it->Next();
  EXPECT_EQ(it->key(), Key(6));
  EXPECT_EQ(it->value(), Value(6));
}

TEST(LevelIteratorTest, OpenErrorStopsIterationInBothDirections) {
  TestLevel level(BytewiseComparator());
  level.AddFile(File({1, 2}));
  level.AddFile(File({3}));
  level.AddFile(File({5, 6}));
  level.AddFile(File({7}));
  level.FailOpen(2);
  auto it = level.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1, 2, 3}));
  EXPECT_TRUE(it->status().IsIOError());
  EXPECT_NE(it->status().ToString().find("102.sst: open failed"), std::string::npos)
      << it->status().ToString();
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({7}));
  EXPECT_TRUE(it->status().IsIOError());
  it->Seek(Key(5));
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsIOError());

  // A new seek elsewhere clears the error; a retry of the failed file opens it again.
  it->Seek(Key(7));
  ASSERT_TRUE(it->Valid());
  EXPECT_OK(it->status());
  level.HealOpen(2);
  it->SeekForPrev(Key(6));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(6));
  EXPECT_OK(it->status());
}

TEST(LevelIteratorTest, NullIteratorFromOpenerIsCorruption) {
  TestLevel level(BytewiseComparator());
  level.AddFile(File({1}));
  level.AddFile(File({2}));
  level.ReturnNullFor(1);
  auto it = level.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1}));
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(LevelIteratorTest, FileErrorStopsIterationAndTheFileIsReopened) {
  TestLevel level(BytewiseComparator());
  level.AddFile(File({1}));
  level.AddFile(File({2, 3, 4}));
  level.AddFile(File({5}));
  level.PoisonFile(1, /*entry=*/1, /*times=*/1);
  auto it = level.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1, 2}));
  EXPECT_TRUE(it->status().IsIOError());
  EXPECT_EQ(level.TakeOpened(), (std::vector<size_t>{0, 1}));
  it->Seek(Key(3));  // the failed file's iterator is replaced by a fresh one
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(3));
  EXPECT_OK(it->status());
  EXPECT_EQ(level.TakeOpened(), std::vector<size_t>{1});
}

// Random levels of internal keys (InternalKeyComparator), with empty files and single-entry
// files, against the model; without empty files, every operation opens at most one file.
// `fail_one_in`: each file fails to open, or fails on one entry, with these odds.
test::RandomOpsOutcome RunRandomLevels(uint64_t seed, int rounds, uint64_t fail_one_in) {
  InternalKeyComparator icmp(BytewiseComparator());
  Random rnd(seed);
  test::RandomOpsOutcome total;
  for (int round = 0; round < rounds; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    TestLevel level(&icmp);
    Model model(&icmp);
    const bool allow_empty = rnd.OneIn(2);
    bool empty_files = false;
    bool failures = false;
    std::string gap = "j";  // a user key between the last file and the next
    SequenceNumber seq = 1;
    for (int k = 0; k < 100;) {
      const int size = static_cast<int>(rnd.Uniform(allow_empty ? 5 : 4)) + (allow_empty ? 0 : 1);
      Entries entries;
      for (int i = 0; i < size && k < 100; k++) {
        if (!rnd.OneIn(3)) continue;
        const std::string ikey = MakeInternalKey(Key(2 * k), seq++, kTypeValue);
        entries.emplace_back(ikey, Value(2 * k));
        model.Add(ikey, 0, Value(2 * k));
        i++;
      }
      if (entries.empty()) {
        if (!allow_empty) continue;
        gap += "~";
        const std::string b = MakeInternalKey(gap, 0, kTypeValue);
        level.AddFile({}, b, b);
        empty_files = true;
        continue;
      }
      gap = Key(2 * (k - 1));
      const size_t file = level.files().size();
      const size_t count = entries.size();
      level.AddFile(std::move(entries));
      if (rnd.OneIn(fail_one_in)) {
        level.FailOpen(file);
        failures = true;
      } else if (rnd.OneIn(fail_one_in)) {
        level.PoisonFile(file, rnd.Uniform(count), 1 << 30);
        failures = true;
      }
    }
    auto it = level.NewIterator();
    auto target = [max_seq = seq](Random* r) {
      return MakeInternalKey(Key(static_cast<int>(r->Uniform(202)) - 1), r->Uniform(max_seq + 1),
                             kValueTypeForSeek);
    };
    auto after_op = [&](const std::string& op) {
      const std::vector<size_t> opened = level.TakeOpened();
      if (!empty_files) {
        EXPECT_LE(opened.size(), 1u) << op;
      }
    };
    const test::RandomOpsOutcome o =
        test::RunRandomOps(it.get(), &model, &rnd, 300, target, failures, after_op);
    if (testing::Test::HasFailure()) return total;
    total += o;
  }
  return total;
}

TEST(LevelIteratorTest, RandomInternalKeysAgainstModel) {
  const test::RandomOpsOutcome o = RunRandomLevels(401, 300, uint64_t{1} << 40);
  EXPECT_GT(o.on_entry, 50000);
  EXPECT_GT(o.at_end, 1000);
}

TEST(LevelIteratorTest, RandomWithFailingFilesNeverReturnsWrongEntries) {
  const test::RandomOpsOutcome o = RunRandomLevels(402, 300, 8);
  EXPECT_GT(o.on_entry, 20000);
  EXPECT_GT(o.failed, 1000);
}

}  // namespace
}  // namespace shale
