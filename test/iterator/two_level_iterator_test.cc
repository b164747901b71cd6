#include "iterator/two_level_iterator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "iterator/iterator_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::Entries;
using test::Model;
using test::VectorIterator;

using test::Key;

// The value stored under Key(i).
std::string Value(int i) {
  std::string v = "v";
  v += Key(i);
  return v;
}

// Parts and an index over them; the index value of part i is "part<i>". The opener counts
// opens and can be told to fail.
class TestParts {
 public:
  // Adds a part and its index key (every key of the part <= index_key < the next part's keys).
  void AddEntries(Entries entries, std::string index_key) {
    index_.emplace_back(std::move(index_key), "part" + std::to_string(parts_.size()));
    parts_.push_back(std::move(entries));
    poison_.emplace_back();
  }
  // A part holding `keys`; the index key defaults to the last key.
  void Add(std::initializer_list<int> keys, std::string index_key = "") {
    Entries e;
    for (int k : keys) e.emplace_back(Key(k), Value(k));
    if (index_key.empty()) index_key = e.back().first;
    AddEntries(std::move(e), std::move(index_key));
  }
  void FailOpen(size_t i) { failing_.insert(i); }
  void HealOpen(size_t i) { failing_.erase(i); }
  void ReturnNullFor(size_t i) { null_.insert(i); }
  void PoisonPart(size_t i, size_t entry) { poison_[i] = entry; }
  void PoisonIndex(size_t entry) { index_poison_ = entry; }

  std::unique_ptr<InternalIterator> NewIterator() {
    auto index = std::make_unique<VectorIterator>(BytewiseComparator(), index_, index_poison_);
    return NewTwoLevelIterator(std::move(index), [this](std::string_view handle, Status* s) {
      return Open(handle, s);
    });
  }
  size_t size() const { return parts_.size(); }
  int TakeOpens() { return std::exchange(opens_, 0); }

 private:
  std::unique_ptr<InternalIterator> Open(std::string_view handle, Status* s) {
    opens_++;
    EXPECT_EQ(handle.substr(0, 4), "part");
    const size_t i = std::stoul(std::string(handle.substr(4)));
    if (failing_.count(i) != 0) {
      *s = Status::IOError("part " + std::to_string(i), "read failed");
      return nullptr;
    }
    if (null_.count(i) != 0) return nullptr;
    return std::make_unique<VectorIterator>(BytewiseComparator(), parts_[i], poison_[i]);
  }

  Entries index_;
  std::optional<size_t> index_poison_;
  std::vector<Entries> parts_;
  std::vector<std::optional<size_t>> poison_;
  std::set<size_t> failing_;
  std::set<size_t> null_;
  int opens_ = 0;
};

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

TEST(TwoLevelIteratorTest, EmptyIndex) {
  TestParts parts;
  auto it = parts.NewIterator();
  EXPECT_TRUE(ScanKeys(it.get(), true).empty());
  EXPECT_TRUE(ScanKeys(it.get(), false).empty());
  it->SeekForPrev(Key(1));
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
  EXPECT_EQ(parts.TakeOpens(), 0);
}

TEST(TwoLevelIteratorTest, ScansAndSeeksAcrossPartsSkippingEmptyOnes) {
  TestParts parts;
  parts.Add({}, Key(0));
  parts.Add({1, 2});
  parts.Add({}, Key(4));
  parts.Add({5}, Key(5) + "~");  // a separator beyond the part's last key
  parts.Add({}, Key(7));
  auto it = parts.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1, 2, 5}));
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({5, 2, 1}));

  it->Seek(Key(3));  // index lands on empty part 2, moves on to part 3
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(5));
  it->SeekForPrev(Key(4));  // part 2 is empty: back to part 1's last entry
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(2));
  it->SeekForPrev(Key(6));  // index key "k005~" < "k006": the entry is in part 3 or before
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(5));
  it->SeekForPrev(Key(99));  // past the last index key
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(5));
  it->SeekForPrev(Key(0));
  EXPECT_FALSE(it->Valid());
  it->Seek(Key(6));
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(TwoLevelIteratorTest, KeepsThePartOpenWhileTheIndexStaysOnIt) {
  TestParts parts;
  parts.Add({1, 2, 3});
  parts.Add({4, 5});
  auto it = parts.NewIterator();
  it->Seek(Key(1));
  it->Seek(Key(3));
  it->SeekForPrev(Key(2));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(2));
  EXPECT_EQ(parts.TakeOpens(), 1);
  it->Seek(Key(4));
  EXPECT_EQ(parts.TakeOpens(), 1);
}

TEST(TwoLevelIteratorTest, OpenErrorStopsIterationAndSeekRetries) {
  TestParts parts;
  parts.Add({1});
  parts.Add({2});
  parts.Add({3});
  parts.FailOpen(1);
  auto it = parts.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1}));
  EXPECT_TRUE(it->status().IsIOError());
  EXPECT_NE(it->status().ToString().find("part 1: read failed"), std::string::npos)
      << it->status().ToString();
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({3}));
  EXPECT_TRUE(it->status().IsIOError());
  parts.HealOpen(1);
  it->Seek(Key(2));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(2));
  EXPECT_OK(it->status());
}

TEST(TwoLevelIteratorTest, NullPartIsCorruption) {
  TestParts parts;
  parts.Add({1});
  parts.ReturnNullFor(0);
  auto it = parts.NewIterator();
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(TwoLevelIteratorTest, IndexErrorStopsIteration) {
  TestParts parts;
  parts.Add({1, 2});
  parts.Add({3});
  parts.Add({4});
  parts.PoisonIndex(1);
  auto it = parts.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1, 2}));
  EXPECT_TRUE(it->status().IsIOError()) << it->status().ToString();
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({4}));
  EXPECT_TRUE(it->status().IsIOError()) << it->status().ToString();
}

TEST(TwoLevelIteratorTest, PartErrorStopsIteration) {
  TestParts parts;
  parts.Add({1, 2});
  parts.Add({3, 4});
  parts.Add({5});
  parts.PoisonPart(1, 1);
  auto it = parts.NewIterator();
  EXPECT_EQ(ScanKeys(it.get(), true), Keys({1, 2, 3}));
  EXPECT_TRUE(it->status().IsIOError());
  EXPECT_EQ(ScanKeys(it.get(), false), Keys({5}));
  EXPECT_TRUE(it->status().IsIOError());
}

// Random parts (some empty, index keys exact or beyond the last key) against the model.
test::RandomOpsOutcome RunRandomTwoLevel(uint64_t seed, int rounds, uint64_t fail_one_in) {
  Random rnd(seed);
  test::RandomOpsOutcome total;
  for (int round = 0; round < rounds; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    TestParts parts;
    Model model(BytewiseComparator());
    bool failures = false;
    std::string last_index_key = "j";
    for (int k = 0; k < 80;) {
      const int size = static_cast<int>(rnd.Uniform(5));
      Entries entries;
      for (int i = 0; i < size && k < 80; k++) {
        if (!rnd.OneIn(2)) continue;
        entries.emplace_back(Key(2 * k), Value(2 * k));
        model.Add(Key(2 * k), 0, Value(2 * k));
        i++;
      }
      if (entries.empty()) {
        last_index_key += "~";
      } else {
        last_index_key = entries.back().first + (rnd.OneIn(2) ? "~" : "");
      }
      const size_t count = entries.size();
      parts.AddEntries(std::move(entries), last_index_key);
      if (rnd.OneIn(fail_one_in)) {
        parts.FailOpen(parts.size() - 1);
        failures = true;
      } else if (count > 0 && rnd.OneIn(fail_one_in)) {
        parts.PoisonPart(parts.size() - 1, rnd.Uniform(count));
        failures = true;
      }
    }
    if (rnd.OneIn(fail_one_in)) {
      parts.PoisonIndex(rnd.Uniform(parts.size()));
      failures = true;
    }
    auto it = parts.NewIterator();
    auto target = [](Random* r) { return Key(static_cast<int>(r->Uniform(162)) - 1); };
    const test::RandomOpsOutcome o =
        test::RunRandomOps(it.get(), &model, &rnd, 300, target, failures);
    if (testing::Test::HasFailure()) return total;
    total += o;
  }
  return total;
}

TEST(TwoLevelIteratorTest, RandomAgainstModel) {
  const test::RandomOpsOutcome o = RunRandomTwoLevel(501, 300, uint64_t{1} << 40);
  EXPECT_GT(o.on_entry, 50000);
  EXPECT_GT(o.at_end, 1000);
}

TEST(TwoLevelIteratorTest, RandomWithFailuresNeverReturnsWrongEntries) {
  const test::RandomOpsOutcome o = RunRandomTwoLevel(502, 300, 8);
  EXPECT_GT(o.on_entry, 20000);
  EXPECT_GT(o.failed, 1000);
}

}  // namespace
}  // namespace shale
