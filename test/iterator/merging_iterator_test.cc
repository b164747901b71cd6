#include "iterator/merging_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
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

using test::Key;

// The value of `key` in child `child`, so a test can tell children apart.
std::string Val(std::string_view key, size_t child) {
  return std::string(key) + "@" + std::to_string(child);
}

std::unique_ptr<InternalIterator> Child(const Comparator* cmp, const std::vector<int>& keys,
                                        size_t child, std::optional<size_t> poison = {}) {
  Entries entries;
  for (int k : keys) entries.emplace_back(Key(k), Val(Key(k), child));
  return std::make_unique<VectorIterator>(cmp, std::move(entries), poison);
}

// Collects "key@child" values from SeekToFirst/Next, or SeekToLast/Prev when !forward.
std::vector<std::string> Scan(InternalIterator* it, bool forward) {
  std::vector<std::string> out;
  if (forward) {
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->value());
  } else {
    for (it->SeekToLast(); it->Valid(); it->Prev()) out.emplace_back(it->value());
  }
  return out;
}

TEST(MergingIteratorTest, NoChildrenIsEmpty) {
  auto it = NewMergingIterator(BytewiseComparator(), {});
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek("a");
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev("z");
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST(MergingIteratorTest, OneChildIsReturnedAsIs) {
  auto child = Child(BytewiseComparator(), {1, 2}, 0);
  InternalIterator* raw = child.get();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(std::move(child));
  auto it = NewMergingIterator(BytewiseComparator(), std::move(children));
  EXPECT_EQ(it.get(), raw);
  EXPECT_EQ(Scan(it.get(), true), (std::vector<std::string>{"k001@0", "k002@0"}));
}

TEST(MergingIteratorTest, EqualKeysComeInChildOrderForwardAndReverseBackward) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {1, 2}, 0));
  children.push_back(Child(cmp, {1, 2, 3}, 1));
  children.push_back(Child(cmp, {1}, 2));
  auto it = NewMergingIterator(cmp, std::move(children));
  const std::vector<std::string> forward = {"k001@0", "k001@1", "k001@2",
                                            "k002@0", "k002@1", "k003@1"};
  EXPECT_EQ(Scan(it.get(), true), forward);
  EXPECT_EQ(Scan(it.get(), false), std::vector<std::string>(forward.rbegin(), forward.rend()));

  // Direction changes among equal keys step to the exact neighbour.
  it->Seek(Key(1));
  it->Next();
  ASSERT_EQ(it->value(), "k001@1");
  it->Prev();
  ASSERT_EQ(it->value(), "k001@0");
  it->Next();
  ASSERT_EQ(it->value(), "k001@1");
  it->Next();
  ASSERT_EQ(it->value(), "k001@2");
  it->Prev();
  ASSERT_EQ(it->value(), "k001@1");
  it->SeekForPrev(Key(2));
  ASSERT_EQ(it->value(), "k002@1");
  it->Prev();
  ASSERT_EQ(it->value(), "k002@0");
  it->Next();
  ASSERT_EQ(it->value(), "k002@1");
  EXPECT_OK(it->status());
}

TEST(MergingIteratorTest, SeeksLandOnTheRightEntries) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {10, 30}, 0));
  children.push_back(Child(cmp, {20, 40}, 1));
  auto it = NewMergingIterator(cmp, std::move(children));
  it->Seek(Key(15));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(20));
  it->Seek(Key(41));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(Key(35));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(30));
  it->SeekForPrev(Key(9));
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(40));
  EXPECT_OK(it->status());
}

// Internal keys: the comparator, not the child index, orders versions of one user key
// (newest sequence first), whichever child holds them.
TEST(MergingIteratorTest, InternalKeysOrderVersionsNewestFirst) {
  InternalKeyComparator icmp(BytewiseComparator());
  auto child = [&](Entries entries) {
    return std::make_unique<VectorIterator>(&icmp, std::move(entries));
  };
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(child({{MakeInternalKey("a", 5, kTypeValue), "a5"},
                            {MakeInternalKey("b", 3, kTypeDeletion), "b3"}}));
  children.push_back(child({{MakeInternalKey("a", 9, kTypeValue), "a9"},
                            {MakeInternalKey("b", 1, kTypeValue), "b1"}}));
  auto it = NewMergingIterator(&icmp, std::move(children));
  EXPECT_EQ(Scan(it.get(), true), (std::vector<std::string>{"a9", "a5", "b3", "b1"}));
  EXPECT_EQ(Scan(it.get(), false), (std::vector<std::string>{"b1", "b3", "a5", "a9"}));
  // A lookup key for snapshot 6 lands on the newest version visible to it.
  it->Seek(MakeInternalKey("a", 6, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "a5");
  it->SeekForPrev(MakeInternalKey("b", 2, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "b3");
}

TEST(MergingIteratorTest, ChildErrorOnSeekStopsTheMerge) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {1, 2, 3}, 0));
  children.push_back(Child(cmp, {2, 5}, 1, /*poison=*/0));
  auto it = NewMergingIterator(cmp, std::move(children));
  it->SeekToFirst();  // child 1 fails on its first entry: child 0's k001 must not be returned
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsIOError()) << it->status().ToString();
  EXPECT_NE(it->status().ToString().find("k002"), std::string::npos);
  // A seek that keeps clear of the bad entry works again.
  it->Seek(Key(3));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "k003@0");
  EXPECT_OK(it->status());
}

TEST(MergingIteratorTest, ChildErrorOnNextStopsInsteadOfSkipping) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {1, 4, 7, 9}, 0));
  children.push_back(Child(cmp, {2, 5, 8}, 1, /*poison=*/1));  // fails on reaching k005
  auto it = NewMergingIterator(cmp, std::move(children));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace_back(it->value());
  EXPECT_EQ(seen, (std::vector<std::string>{"k001@0", "k002@1"}));
  EXPECT_TRUE(it->status().IsIOError()) << it->status().ToString();
}

TEST(MergingIteratorTest, ChildErrorOnDirectionSwitchStopsTheMerge) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {1, 6}, 0, /*poison=*/0));
  children.push_back(Child(cmp, {5, 7}, 1));
  auto it = NewMergingIterator(cmp, std::move(children));
  it->Seek(Key(5));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "k005@1");
  it->Prev();  // child 0 must be repositioned at k001, which fails
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsIOError());
}

TEST(MergingIteratorTest, StatusIsTheFirstFailedChild) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(Child(cmp, {1}, 0));
  children.push_back(NewEmptyInternalIterator(Status::Corruption("child 1 broken")));
  children.push_back(NewEmptyInternalIterator(Status::IOError("child 2 broken")));
  auto it = NewMergingIterator(cmp, std::move(children));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

// Random children (0..8, keys shared across children), random operations, compared step by
// step with the model. `poison_one_in`: each child fails on one random entry with that odds.
test::RandomOpsOutcome RunRandomMerges(uint64_t seed, int rounds, int poison_one_in) {
  const Comparator* cmp = BytewiseComparator();
  Random rnd(seed);
  test::RandomOpsOutcome total;
  for (int round = 0; round < rounds; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const size_t n = rnd.Uniform(9);
    const int key_space = 1 + static_cast<int>(rnd.Uniform(60));
    Model model(cmp);
    std::vector<std::unique_ptr<InternalIterator>> children;
    bool poisoned = false;
    for (size_t c = 0; c < n; c++) {
      std::set<int> keys;
      const int count = static_cast<int>(rnd.Uniform(static_cast<uint64_t>(key_space) + 1));
      for (int i = 0; i < count; i++) keys.insert(static_cast<int>(rnd.Uniform(key_space)));
      for (int k : keys) model.Add(Key(k), c, Val(Key(k), c));
      std::optional<size_t> poison;
      if (!keys.empty() && rnd.OneIn(poison_one_in)) poison = rnd.Uniform(keys.size());
      poisoned |= poison.has_value();
      children.push_back(Child(cmp, std::vector<int>(keys.begin(), keys.end()), c, poison));
    }
    auto it = NewMergingIterator(cmp, std::move(children));
    auto target = [key_space](Random* r) {
      return Key(static_cast<int>(r->Uniform(key_space + 2)) - 1);
    };
    const test::RandomOpsOutcome o =
        test::RunRandomOps(it.get(), &model, &rnd, 200, target, poisoned);
    if (testing::Test::HasFailure()) return total;
    total += o;
  }
  return total;
}

TEST(MergingIteratorTest, RandomAgainstModel) {
  const test::RandomOpsOutcome o = RunRandomMerges(301, 400, 1 << 30);
  EXPECT_GT(o.on_entry, 40000);
  EXPECT_GT(o.at_end, 1000);
}

TEST(MergingIteratorTest, RandomWithFailingChildrenNeverReturnsWrongEntries) {
  const test::RandomOpsOutcome o = RunRandomMerges(302, 300, 3);
  EXPECT_GT(o.on_entry, 20000);
  EXPECT_GT(o.failed, 1000);
}

TEST(MergingIteratorTest, RandomInternalKeysAgainstModel) {
  InternalKeyComparator icmp(BytewiseComparator());
  Random rnd(303);
  int on_entry = 0;
  for (int round = 0; round < 200; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const size_t n = rnd.Uniform(9);
    Model model(&icmp);
    std::vector<std::unique_ptr<InternalIterator>> children;
    SequenceNumber seq = 1;
    for (size_t c = 0; c < n; c++) {
      Entries entries;
      const int count = static_cast<int>(rnd.Uniform(30));
      std::vector<std::string> keys;
      for (int i = 0; i < count; i++) {
        const ValueType type = rnd.OneIn(4) ? kTypeDeletion : kTypeValue;
        keys.push_back(MakeInternalKey(Key(static_cast<int>(rnd.Uniform(20))), seq++, type));
      }
      std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
        return icmp.Compare(a, b) < 0;
      });
      for (const std::string& k : keys) {
        entries.emplace_back(k, Val(k, c));
        model.Add(k, c, Val(k, c));
      }
      children.push_back(std::make_unique<VectorIterator>(&icmp, std::move(entries)));
    }
    auto it = NewMergingIterator(&icmp, std::move(children));
    const SequenceNumber max_seq = seq;
    auto target = [max_seq](Random* r) {
      return MakeInternalKey(Key(static_cast<int>(r->Uniform(22)) - 1), r->Uniform(max_seq + 1),
                             kValueTypeForSeek);
    };
    const test::RandomOpsOutcome o =
        test::RunRandomOps(it.get(), &model, &rnd, 200, target, false);
    if (testing::Test::HasFailure()) return;
    on_entry += o.on_entry;
  }
  EXPECT_GT(on_entry, 20000);
}

}  // namespace
}  // namespace shale
