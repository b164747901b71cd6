#include "memtable/skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "memtable/arena.h"

namespace shale {
namespace {

using Key = uint64_t;

struct U64Comparator {
  int operator()(const Key& a, const Key& b) const { return a < b ? -1 : (a > b ? 1 : 0); }
};

using IntSkipList = SkipList<Key, U64Comparator>;

// Checks every read operation of `list` against `model`, probing targets in [0, max_key].
void ExpectSameAsModel(const IntSkipList& list, const std::set<Key>& model, Key max_key,
                       std::mt19937_64* rng) {
  // Forward and backward full scans.
  IntSkipList::Iterator it(&list);
  std::vector<Key> forward;
  for (it.SeekToFirst(); it.Valid(); it.Next()) forward.push_back(it.key());
  ASSERT_EQ(forward, std::vector<Key>(model.begin(), model.end()));
  std::vector<Key> backward;
  for (it.SeekToLast(); it.Valid(); it.Prev()) backward.push_back(it.key());
  ASSERT_EQ(backward, std::vector<Key>(model.rbegin(), model.rend()));

  std::uniform_int_distribution<Key> pick(0, max_key + 1);
  for (int i = 0; i < 500; i++) {
    const Key target = pick(*rng);
    EXPECT_EQ(list.Contains(target), model.count(target) == 1) << target;

    // Seek: first >= target, then one step each way.
    auto lb = model.lower_bound(target);
    it.Seek(target);
    ASSERT_EQ(it.Valid(), lb != model.end()) << target;
    if (it.Valid()) {
      EXPECT_EQ(it.key(), *lb);
      it.Next();
      auto next = std::next(lb);
      ASSERT_EQ(it.Valid(), next != model.end());
      if (it.Valid()) {
        EXPECT_EQ(it.key(), *next);
      }
      it.Seek(target);
      it.Prev();
      ASSERT_EQ(it.Valid(), lb != model.begin());
      if (it.Valid()) {
        EXPECT_EQ(it.key(), *std::prev(lb));
      }
    }

    // SeekForPrev: last <= target.
    auto ub = model.upper_bound(target);
    it.SeekForPrev(target);
    ASSERT_EQ(it.Valid(), ub != model.begin()) << target;
    if (it.Valid()) {
      EXPECT_EQ(it.key(), *std::prev(ub));
    }
  }
}

TEST(SkipListTest, Empty) {
  Arena arena;
  IntSkipList list(U64Comparator(), &arena);
  EXPECT_FALSE(list.Contains(10));
  EXPECT_TRUE(list.AppendOnly());
  IntSkipList::Iterator it(&list);
  EXPECT_FALSE(it.Valid());
  it.SeekToFirst();
  EXPECT_FALSE(it.Valid());
  it.SeekToLast();
  EXPECT_FALSE(it.Valid());
  it.Seek(100);
  EXPECT_FALSE(it.Valid());
  it.SeekForPrev(100);
  EXPECT_FALSE(it.Valid());
}

TEST(SkipListTest, RandomInsertsMatchStdSet) {
  std::mt19937_64 rng(301);
  for (Key max_key : {Key{10}, Key{5000}, Key{1} << 40}) {
    Arena arena(4096);
    IntSkipList list(U64Comparator(), &arena);
    std::set<Key> model;
    std::uniform_int_distribution<Key> pick(0, max_key);
    for (int i = 0; i < 3000; i++) {
      const Key k = pick(rng);
      if (!model.insert(k).second) continue;
      list.Insert(k);
    }
    ExpectSameAsModel(list, model, max_key, &rng);
    EXPECT_FALSE(list.AppendOnly());
  }
}

TEST(SkipListTest, AscendingInsertsStayAppendOnly) {
  Arena arena;
  IntSkipList list(U64Comparator(), &arena);
  std::set<Key> model;
  for (Key k = 5; k < 20000; k += 3) {
    list.Insert(k);
    model.insert(k);
    ASSERT_TRUE(list.AppendOnly()) << k;
  }
  std::mt19937_64 rng(7);
  ExpectSameAsModel(list, model, 20000, &rng);

  // One key below the largest ends it, for good.
  list.Insert(6);
  model.insert(6);
  EXPECT_FALSE(list.AppendOnly());
  list.Insert(30000);
  model.insert(30000);
  EXPECT_FALSE(list.AppendOnly());
  ExpectSameAsModel(list, model, 30000, &rng);
}

TEST(SkipListTest, DescendingInserts) {
  Arena arena;
  IntSkipList list(U64Comparator(), &arena);
  std::set<Key> model;
  for (Key k = 10000; k > 0; k -= 2) {
    list.Insert(k);
    model.insert(k);
  }
  EXPECT_FALSE(list.AppendOnly());
  std::mt19937_64 rng(8);
  ExpectSameAsModel(list, model, 10000, &rng);
}

// Ascending runs that start at random places fill the gaps between existing keys: the
// last-position hint is taken inside the list, not only at its end, and must keep every level
// (checked through Contains and Seek, which descend from the top) consistent.
TEST(SkipListTest, AscendingRunsInsideTheList) {
  std::mt19937_64 rng(99);
  Arena arena;
  IntSkipList list(U64Comparator(), &arena);
  std::set<Key> model;
  const Key kMax = 1'000'000;
  std::uniform_int_distribution<Key> pick(0, kMax - 1000);
  std::uniform_int_distribution<int> run_length(1, 200);
  for (int run = 0; run < 300; run++) {
    Key k = pick(rng);
    const int n = run_length(rng);
    for (int i = 0; i < n; i++, k += 1 + rng() % 3) {
      if (model.insert(k).second) list.Insert(k);
    }
  }
  ASSERT_GT(model.size(), 10000u);
  ExpectSameAsModel(list, model, kMax, &rng);
}

// One writer inserts while readers check, again and again, that (1) every key whose insert
// was published before the check is found, (2) a scan is strictly ascending and only holds
// keys the writer inserts, and (3) every key a reader saw in its previous scan is still there.
TEST(SkipListTest, ConcurrentReadersSeeAConsistentList) {
  constexpr int kKeys = 20000;
  std::vector<Key> keys(kKeys);
  std::iota(keys.begin(), keys.end(), 0);
  for (Key& k : keys) k = k * 7 + 3;  // distinct, gaps in between
  std::mt19937_64 rng(5);
  std::shuffle(keys.begin(), keys.end(), rng);
  const std::set<Key> all(keys.begin(), keys.end());

  Arena arena;
  IntSkipList list(U64Comparator(), &arena);
  std::atomic<int> published{0};
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::atomic<int> scans{0};

  auto reader = [&](uint64_t seed) {
    std::mt19937_64 r(seed);
    std::vector<Key> previous;
    while (true) {
      const bool last_round = done.load(std::memory_order_acquire);
      const int n = published.load(std::memory_order_acquire);
      for (int i = 0; i < 50 && n > 0; i++) {
        if (!list.Contains(keys[r() % n])) failures++;
      }
      std::vector<Key> scan;
      IntSkipList::Iterator it(&list);
      for (it.SeekToFirst(); it.Valid(); it.Next()) {
        if (!scan.empty() && scan.back() >= it.key()) failures++;
        if (all.count(it.key()) == 0) failures++;
        scan.push_back(it.key());
      }
      if (static_cast<int>(scan.size()) < n) failures++;
      if (!std::includes(scan.begin(), scan.end(), previous.begin(), previous.end())) failures++;
      previous = std::move(scan);
      scans++;
      if (last_round) break;
    }
    if (static_cast<int>(previous.size()) != kKeys) failures++;
  };

  std::thread r1(reader, 1);
  std::thread r2(reader, 2);
  for (int i = 0; i < kKeys; i++) {
    list.Insert(keys[i]);
    published.store(i + 1, std::memory_order_release);
    if (i % 1000 == 999) {
      // Let the readers scan while the list is still growing.
      const int seen = scans.load();
      while (scans.load() < seen + 2) std::this_thread::yield();
    }
  }
  done.store(true, std::memory_order_release);
  r1.join();
  r2.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(scans.load(), 2 * kKeys / 1000);
}

}  // namespace
}  // namespace shale
