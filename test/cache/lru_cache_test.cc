// The block cache (LRUCache, cache/lru_cache.h and shale/cache.h) against its contract:
// hits and misses, the byte budget under random workloads (an exact LRU model with one shard,
// accounting checks with pins and several shards), LRU order, pinning, the strict limit (also
// with concurrent readers), the high-priority pool, fill_cache, loader errors, SetCapacity,
// EraseUnRefEntries, argument checks, default sharding, cache id prefixes, FromCache and two
// threads missing the same key at once.
//
// Blocks are real LoadedBlocks: one entry whose key names the BlockKey (fixed width, so that
// blocks with the same padding have the same charge) and whose value is `pad` bytes. Every block
// the cache returns is checked against the contents its key should have.
#include "cache/lru_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "table/block.h"
#include "table/block_builder.h"
#include "table/block_source.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using BlockPtr = std::shared_ptr<const LoadedBlock>;

constexpr size_t kPad = 1000;  // the value size of the uniform blocks

// The block's only key: cache id and offset as 16 hex digits each.
std::string KeyText(const BlockKey& key) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64 "%016" PRIx64, key.cache_id, key.offset);
  return buf;
}

// The contents of the block stored under `key` with a `pad`-byte value.
std::string BlockContents(const BlockKey& key, size_t pad) {
  BlockBuilder builder(16);
  builder.Add(KeyText(key), std::string(pad, 'v'));
  return std::string(builder.Finish());
}

Status MakeLoaded(const BlockKey& key, size_t pad, std::unique_ptr<LoadedBlock>* out) {
  return LoadedBlock::MakeBlock(BlockContents(key, pad), LoadedBlock::Memory::kHeap, out);
}

// What the cache charges for a block with a `pad`-byte value (the same for every key).
size_t ChargeFor(size_t pad) {
  std::unique_ptr<LoadedBlock> loaded;
  Status s = MakeLoaded(BlockKey{}, pad, &loaded);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return loaded == nullptr ? 0 : loaded->charge();
}

BlockKey Key(uint64_t i) { return BlockKey{1 + i % 5, (i / 5) * 4096}; }

std::shared_ptr<LRUCache> MakeCache(size_t capacity, int shard_bits, bool strict = false,
                                    double ratio = 0.5) {
  std::shared_ptr<Cache> cache = NewLRUCache(capacity, shard_bits, strict, ratio);
  EXPECT_NE(cache, nullptr);
  LRUCache* lru = LRUCache::FromCache(cache.get());
  EXPECT_NE(lru, nullptr);
  return std::shared_ptr<LRUCache>(cache, lru);  // aliasing: shares ownership of `cache`
}

// GetBlock through a loader that counts its calls in *loads and builds the block for the key.
// Checks the status and the contents of the returned block.
BlockPtr Fetch(LRUCache* cache, const BlockKey& key, std::atomic<int>* loads, size_t pad = kPad,
               BlockKind kind = BlockKind::kData, bool fill_cache = true) {
  BlockRequest request;
  request.key = key;
  request.kind = kind;
  request.fill_cache = fill_cache;
  BlockPtr block;
  Status s = cache->GetBlock(
      request,
      [&](std::unique_ptr<LoadedBlock>* out) {
        loads->fetch_add(1);
        return MakeLoaded(key, pad, out);
      },
      &block);
  EXPECT_TRUE(s.ok()) << KeyText(key) << ": " << s.ToString();
  EXPECT_NE(block, nullptr) << KeyText(key);
  if (block != nullptr) {
    EXPECT_NE(block->block(), nullptr);
    if (block->block() != nullptr) {
      EXPECT_EQ(block->block()->contents(), BlockContents(key, pad)) << KeyText(key);
    }
  }
  return block;
}

// Whether `key` is cached, asked without inserting it (fill_cache = false) and without keeping
// it pinned. *charge gets the block's charge on a hit.
bool IsCached(LRUCache* cache, const BlockKey& key, size_t pad = kPad, size_t* charge = nullptr,
              BlockKind kind = BlockKind::kData) {
  std::atomic<int> loads{0};
  BlockPtr block = Fetch(cache, key, &loads, pad, kind, /*fill_cache=*/false);
  if (charge != nullptr && block != nullptr) *charge = block->charge();
  return loads.load() == 0;
}

// ---------------------------------------------------------------------------------------------
// Hits and misses

TEST(LRUCacheTest, LoaderRunsOncePerMissAndHitsReturnTheSameBlock) {
  auto cache = MakeCache(1 << 20, 0);
  std::atomic<int> loads{0};
  const size_t charge = ChargeFor(kPad);

  BlockPtr a = Fetch(cache.get(), BlockKey{1, 0}, &loads);
  EXPECT_EQ(loads.load(), 1);
  BlockPtr a2 = Fetch(cache.get(), BlockKey{1, 0}, &loads);
  EXPECT_EQ(loads.load(), 1) << "a hit must not call the loader";
  EXPECT_EQ(a.get(), a2.get());
  EXPECT_EQ(a->charge(), charge);

  // Another cache id, another offset, and the two swapped: all different keys.
  BlockPtr b = Fetch(cache.get(), BlockKey{2, 0}, &loads);
  EXPECT_EQ(loads.load(), 2);
  BlockPtr c = Fetch(cache.get(), BlockKey{1, 4096}, &loads);
  EXPECT_EQ(loads.load(), 3);
  BlockPtr d = Fetch(cache.get(), BlockKey{4096, 1}, &loads);
  BlockPtr e = Fetch(cache.get(), BlockKey{0, 1}, &loads);
  BlockPtr f = Fetch(cache.get(), BlockKey{1, 1}, &loads);
  EXPECT_EQ(loads.load(), 6);
  std::set<const LoadedBlock*> distinct = {a.get(), b.get(), c.get(), d.get(), e.get(), f.get()};
  EXPECT_EQ(distinct.size(), 6u);
  EXPECT_EQ(cache->GetOccupancyCount(), 6u);
  EXPECT_EQ(cache->GetUsage(), 6 * charge);
  EXPECT_EQ(cache->GetPinnedUsage(), 6 * charge);

  // Released blocks stay cached: the next request is a hit on the same object.
  const LoadedBlock* raw_c = c.get();
  a.reset(), a2.reset(), b.reset(), c.reset(), d.reset(), e.reset(), f.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(cache->GetUsage(), 6 * charge);
  BlockPtr c2 = Fetch(cache.get(), BlockKey{1, 4096}, &loads);
  EXPECT_EQ(loads.load(), 6);
  EXPECT_EQ(c2.get(), raw_c);
  EXPECT_STREQ(cache->Name(), "LRUCache");
}

// ---------------------------------------------------------------------------------------------
// Capacity under random workloads

// The resident set of a one-shard cache of data blocks when every block is released at once,
// by the eviction rule lru_cache.h documents (CLOCK): a hit sets the key's visited bit; a miss
// scans from the head -- a visited key loses the bit and moves to the tail, the first unvisited
// one is evicted -- until the new block fits, then appends it unvisited at the tail.
class ClockModel {
 public:
  explicit ClockModel(size_t capacity) : capacity_(capacity) {}

  // Returns whether `key` was resident.
  bool Access(int key, size_t charge) {
    if (charges_.count(key) != 0) {
      visited_[key] = true;
      return true;
    }
    while (!order_.empty() && usage_ + charge > capacity_) {
      const int head = order_.front();
      order_.pop_front();
      if (visited_[head]) {
        visited_[head] = false;
        order_.push_back(head);
        continue;
      }
      usage_ -= charges_[head];
      charges_.erase(head);
      visited_.erase(head);
    }
    order_.push_back(key);
    charges_[key] = charge;
    visited_[key] = false;
    usage_ += charge;
    return false;
  }
  size_t usage() const { return usage_; }
  size_t count() const { return order_.size(); }

 private:
  const size_t capacity_;
  std::deque<int> order_;  // scan order: the head is examined first
  std::unordered_map<int, size_t> charges_;
  std::unordered_map<int, bool> visited_;
  size_t usage_ = 0;
};

TEST(LRUCacheTest, RandomWorkloadMatchesExactClockModelWithOneShard) {
  constexpr size_t kCapacity = 30'000;
  constexpr int kKeys = 150;
  auto cache = MakeCache(kCapacity, 0);
  std::mt19937 rng(7);
  std::vector<size_t> pads(kKeys), charges(kKeys);
  for (int i = 0; i < kKeys; i++) {
    pads[i] = rng() % 3000;
    charges[i] = ChargeFor(pads[i]);
  }
  ClockModel model(kCapacity);
  std::atomic<int> loads{0};
  for (int op = 0; op < 4000; op++) {
    // Skewed: half the requests go to a tenth of the keys, so hits and misses both happen.
    int k = (rng() % 2 == 0) ? static_cast<int>(rng() % (kKeys / 10))
                             : static_cast<int>(rng() % kKeys);
    int before = loads.load();
    Fetch(cache.get(), Key(k), &loads, pads[k]);
    bool hit = loads.load() == before;
    bool model_hit = model.Access(k, charges[k]);
    ASSERT_EQ(hit, model_hit) << "op " << op << " key " << k;
    ASSERT_EQ(cache->GetUsage(), model.usage()) << "op " << op;
    ASSERT_EQ(cache->GetOccupancyCount(), model.count()) << "op " << op;
    ASSERT_LE(cache->GetUsage(), kCapacity);
    ASSERT_EQ(cache->GetPinnedUsage(), 0u);
  }
}

// Probes every key without inserting: the hits must be exactly the entries the cache reports.
void ExpectAccountingMatchesProbes(LRUCache* cache, const std::vector<size_t>& pads,
                                   const std::vector<BlockKind>& kinds) {
  size_t hits = 0, hit_bytes = 0;
  for (size_t k = 0; k < pads.size(); k++) {
    size_t charge = 0;
    if (IsCached(cache, Key(k), pads[k], &charge, kinds[k])) {
      hits++;
      hit_bytes += charge;
    }
  }
  EXPECT_EQ(cache->GetOccupancyCount(), hits);
  EXPECT_EQ(cache->GetUsage(), hit_bytes);
}

TEST(LRUCacheTest, RandomWorkloadWithPinsKeepsUsageWithinCapacityPlusPinned) {
  // Not a multiple of the shard count: per-shard budgets must not add up to more.
  constexpr size_t kCapacity = 60'003;
  constexpr int kKeys = 300;
  auto cache = MakeCache(kCapacity, 2);
  std::mt19937 rng(11);
  std::vector<size_t> pads(kKeys), charges(kKeys);
  std::vector<BlockKind> kinds(kKeys);
  for (int i = 0; i < kKeys; i++) {
    pads[i] = rng() % 3000;
    charges[i] = ChargeFor(pads[i]);
    kinds[i] = (rng() % 5 == 0) ? BlockKind::kIndexPartition : BlockKind::kData;
  }
  std::map<int, BlockPtr> held;  // key -> the block the test pins
  std::atomic<int> loads{0};
  for (int op = 0; op < 4000; op++) {
    int k = static_cast<int>(rng() % kKeys);
    int before = loads.load();
    BlockPtr block = Fetch(cache.get(), Key(k), &loads, pads[k], kinds[k]);
    auto it = held.find(k);
    if (it != held.end()) {
      ASSERT_EQ(loads.load(), before) << "a pinned block was reloaded, op " << op;
      ASSERT_EQ(block.get(), it->second.get()) << "op " << op;
    } else if (rng() % 4 == 0 && held.size() < 8) {
      held[k] = block;
    }
    if (rng() % 3 == 0 && !held.empty()) {
      auto victim = held.begin();
      std::advance(victim, rng() % held.size());
      held.erase(victim);
    }
    block.reset();

    size_t pinned = 0;
    for (const auto& [key, b] : held) pinned += charges[key];
    ASSERT_EQ(cache->GetPinnedUsage(), pinned) << "op " << op;
    ASSERT_LE(cache->GetUsage(), kCapacity + pinned) << "op " << op;

    if (op % 400 == 399) {
      held.clear();
      ASSERT_EQ(cache->GetPinnedUsage(), 0u);
      ASSERT_LE(cache->GetUsage(), kCapacity) << "op " << op << ": nothing pinned";
      ExpectAccountingMatchesProbes(cache.get(), pads, kinds);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// LRU order

TEST(LRUCacheTest, EvictsTheLeastRecentlyUsedBlock) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(4 * charge, 0);
  std::atomic<int> loads{0};
  for (int k = 0; k < 4; k++) Fetch(cache.get(), Key(k), &loads);  // LRU -> MRU: 0 1 2 3
  EXPECT_EQ(cache->GetOccupancyCount(), 4u);
  Fetch(cache.get(), Key(0), &loads);  // 1 2 3 0
  Fetch(cache.get(), Key(4), &loads);  // evicts 1: 2 3 0 4
  Fetch(cache.get(), Key(2), &loads);  // 3 0 4 2
  Fetch(cache.get(), Key(5), &loads);  // evicts 3: 0 4 2 5
  EXPECT_EQ(loads.load(), 6);
  EXPECT_EQ(cache->GetOccupancyCount(), 4u);
  EXPECT_EQ(cache->GetUsage(), 4 * charge);
  EXPECT_FALSE(IsCached(cache.get(), Key(1)));
  EXPECT_FALSE(IsCached(cache.get(), Key(3)));
  EXPECT_TRUE(IsCached(cache.get(), Key(0)));
  EXPECT_TRUE(IsCached(cache.get(), Key(4)));
  EXPECT_TRUE(IsCached(cache.get(), Key(2)));
  EXPECT_TRUE(IsCached(cache.get(), Key(5)));
}

// ---------------------------------------------------------------------------------------------
// Pinned blocks

TEST(LRUCacheTest, PinnedBlockIsNotEvictedAndCountsAsPinned) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(4 * charge, 0);
  std::atomic<int> loads{0};
  BlockPtr pinned = Fetch(cache.get(), Key(0), &loads);
  EXPECT_EQ(cache->GetPinnedUsage(), charge);
  for (int k = 1; k <= 10; k++) Fetch(cache.get(), Key(k), &loads);  // a flood of others
  EXPECT_EQ(cache->GetPinnedUsage(), charge);
  EXPECT_LE(cache->GetUsage(), 4 * charge);
  int before = loads.load();
  BlockPtr again = Fetch(cache.get(), Key(0), &loads);
  EXPECT_EQ(loads.load(), before) << "the pinned block was evicted";
  EXPECT_EQ(again.get(), pinned.get());

  // Pinned until the last holder lets go.
  again.reset();
  BlockPtr copy = pinned;
  pinned.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), charge);
  copy.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_TRUE(IsCached(cache.get(), Key(0)));
}

TEST(LRUCacheTest, WithoutStrictLimitUsageExceedsCapacityOnlyByPinnedBytes) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(4 * charge, 0);
  std::atomic<int> loads{0};
  for (int k = 0; k < 4; k++) Fetch(cache.get(), Key(100 + k), &loads);  // idle, evictable
  std::vector<BlockPtr> held;
  for (int k = 0; k < 6; k++) held.push_back(Fetch(cache.get(), Key(k), &loads));
  EXPECT_EQ(cache->GetPinnedUsage(), 6 * charge);
  EXPECT_EQ(cache->GetUsage(), 6 * charge) << "the idle blocks should have been evicted";
  EXPECT_EQ(cache->GetOccupancyCount(), 6u);
  // Every held block is cached: asking again is a hit.
  for (int k = 0; k < 6; k++) EXPECT_TRUE(IsCached(cache.get(), Key(k)));

  // Letting go brings usage back under capacity + pinned, and under capacity at the end.
  while (!held.empty()) {
    held.pop_back();
    size_t pinned = held.size() * charge;
    EXPECT_EQ(cache->GetPinnedUsage(), pinned);
    EXPECT_LE(cache->GetUsage(), 4 * charge + pinned);
  }
  EXPECT_LE(cache->GetUsage(), 4 * charge);
  EXPECT_LE(cache->GetOccupancyCount(), 4u);
}

// ---------------------------------------------------------------------------------------------
// strict_capacity_limit

TEST(LRUCacheTest, StrictLimitReturnsBlocksUncachedWhenEverythingIsPinned) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(4 * charge, 0, /*strict=*/true);
  EXPECT_TRUE(cache->HasStrictCapacityLimit());
  std::atomic<int> loads{0};
  std::vector<BlockPtr> held;
  for (int k = 0; k < 4; k++) held.push_back(Fetch(cache.get(), Key(k), &loads));
  EXPECT_EQ(cache->GetUsage(), 4 * charge);

  BlockPtr extra = Fetch(cache.get(), Key(4), &loads);  // does not fit: returned uncached
  EXPECT_EQ(loads.load(), 5);
  EXPECT_EQ(cache->GetUsage(), 4 * charge);
  EXPECT_EQ(cache->GetOccupancyCount(), 4u);
  EXPECT_EQ(cache->GetPinnedUsage(), 4 * charge) << "an uncached block is not pinned usage";
  BlockPtr extra2 = Fetch(cache.get(), Key(4), &loads);
  EXPECT_EQ(loads.load(), 6) << "an uncached block must be loaded again";
  extra.reset(), extra2.reset();
  EXPECT_EQ(cache->GetUsage(), 4 * charge);

  // Once a block is idle, a new one takes its place.
  held.erase(held.begin());  // key 0 becomes idle
  EXPECT_EQ(cache->GetPinnedUsage(), 3 * charge);
  Fetch(cache.get(), Key(5), &loads);
  EXPECT_EQ(loads.load(), 7);
  EXPECT_EQ(cache->GetUsage(), 4 * charge);
  EXPECT_TRUE(IsCached(cache.get(), Key(5)));
  EXPECT_FALSE(IsCached(cache.get(), Key(0)));

  // Turning the limit off lets pinned blocks push usage past capacity.
  cache->SetStrictCapacityLimit(false);
  EXPECT_FALSE(cache->HasStrictCapacityLimit());
  held.push_back(Fetch(cache.get(), Key(5), &loads));
  held.push_back(Fetch(cache.get(), Key(6), &loads));
  EXPECT_EQ(cache->GetUsage(), 5 * charge);
  EXPECT_TRUE(IsCached(cache.get(), Key(6)));
}

// The shards' budgets must add up to at most the capacity. Blocks of charge c in a cache of
// capacity 4c - 1 with 4 shards: the whole cache holds at most 3 of them, even though a shard
// given a rounded-up quarter of the capacity (c bytes) would take one each.
TEST(LRUCacheTest, ShardBudgetsAddUpToAtMostTheCapacity) {
  const size_t charge = ChargeFor(kPad);
  const size_t capacity = 4 * charge - 1;
  for (bool strict : {false, true}) {
    auto cache = MakeCache(capacity, 2, strict);
    std::atomic<int> loads{0};
    std::vector<BlockPtr> held;
    size_t max_usage = 0;
    for (int k = 0; k < 32; k++) {
      BlockPtr block = Fetch(cache.get(), Key(k), &loads);
      if (strict) held.push_back(block);  // strict: refusals must keep usage within capacity
      // Not strict: usage may exceed capacity by pinned bytes only, so measure it unpinned.
      block.reset();
      max_usage = std::max(max_usage, cache->GetUsage());
    }
    EXPECT_LE(max_usage, capacity) << "strict " << strict << ", block charge " << charge;
    EXPECT_LE(cache->GetOccupancyCount(), 3u) << "strict " << strict;
  }
}

TEST(LRUCacheTest, StrictLimitWithZeroCapacityCachesNothing) {
  auto cache = MakeCache(0, 0, /*strict=*/true);
  std::atomic<int> loads{0};
  BlockPtr a = Fetch(cache.get(), Key(0), &loads);
  BlockPtr b = Fetch(cache.get(), Key(0), &loads);
  EXPECT_EQ(loads.load(), 2);
  EXPECT_EQ(cache->GetUsage(), 0u);
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);
}

TEST(LRUCacheTest, StrictLimitHoldsUnderConcurrentReaders) {
  // Small enough that the readers' pinned blocks often fill a shard, so inserts get refused.
  constexpr size_t kCapacity = 12'000;
  constexpr int kKeys = 64;
  auto cache = MakeCache(kCapacity, 1, /*strict=*/true);
  std::vector<size_t> pads(kKeys);
  std::vector<BlockKind> kinds(kKeys);
  std::mt19937 seed_rng(5);
  for (int i = 0; i < kKeys; i++) {
    pads[i] = seed_rng() % 3000;
    kinds[i] = (i % 4 == 0) ? BlockKind::kFilterPartition : BlockKind::kData;
  }
  std::atomic<int> loads{0};
  std::atomic<size_t> max_usage{0};
  std::atomic<int> over{0};
  std::atomic<int> refused{0};
  auto reader = [&](int seed) {
    std::mt19937 rng(seed);
    std::deque<BlockPtr> held;  // blocks this reader is still "using"
    for (int op = 0; op < 3000; op++) {
      int k = static_cast<int>(rng() % kKeys);
      int before = loads.load();
      held.push_back(Fetch(cache.get(), Key(k), &loads, pads[k], kinds[k]));
      // A block we hold cannot be evicted: if a miss is not cached now, it was refused.
      if (loads.load() != before && !IsCached(cache.get(), Key(k), pads[k], nullptr, kinds[k])) {
        refused.fetch_add(1);
      }
      while (held.size() > rng() % 6) held.pop_front();
      size_t usage = cache->GetUsage();
      if (usage > kCapacity) over.fetch_add(1);
      size_t seen = max_usage.load();
      while (usage > seen && !max_usage.compare_exchange_weak(seen, usage)) {
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) threads.emplace_back(reader, 100 + t);
  for (auto& t : threads) t.join();
  EXPECT_GT(refused.load(), 0) << "the workload never hit the strict limit";
  EXPECT_EQ(over.load(), 0) << "usage went up to " << max_usage.load() << " > " << kCapacity;
  EXPECT_LE(cache->GetUsage(), kCapacity);
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  ExpectAccountingMatchesProbes(cache.get(), pads, kinds);
}

// ---------------------------------------------------------------------------------------------
// The high-priority pool

constexpr BlockKind kHighPriKinds[] = {BlockKind::kIndexPartition, BlockKind::kFilterPartition,
                                       BlockKind::kIndex, BlockKind::kFilter,
                                       BlockKind::kFilterIndex};

TEST(LRUCacheTest, IndexAndFilterBlocksSurviveADataFloodWithinThePool) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(11 * charge, 0, false, 0.5);  // pool: 5.5 blocks
  std::atomic<int> loads{0};
  for (int i = 0; i < 5; i++) {
    ASSERT_TRUE(IsIndexOrFilter(kHighPriKinds[i]));
    Fetch(cache.get(), Key(i), &loads, kPad, kHighPriKinds[i]);
  }
  for (int k = 100; k < 150; k++) Fetch(cache.get(), Key(k), &loads);
  EXPECT_EQ(cache->GetOccupancyCount(), 11u);
  for (int i = 0; i < 5; i++) {
    EXPECT_TRUE(IsCached(cache.get(), Key(i), kPad, nullptr, kHighPriKinds[i]))
        << BlockKindName(kHighPriKinds[i]);
  }
  EXPECT_TRUE(IsCached(cache.get(), Key(149)));
  EXPECT_FALSE(IsCached(cache.get(), Key(100)));
}

TEST(LRUCacheTest, HighPriorityBlocksOverThePoolAreEvictedOldestFirst) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(11 * charge, 0, false, 0.5);  // pool: 5.5 blocks
  std::atomic<int> loads{0};
  for (int i = 0; i < 8; i++) Fetch(cache.get(), Key(i), &loads, kPad, BlockKind::kIndex);
  for (int k = 100; k < 150; k++) Fetch(cache.get(), Key(k), &loads);
  // The three oldest index blocks went (8 > 5.5 blocks); the five newest fit in the pool.
  for (int i = 0; i < 8; i++) {
    EXPECT_EQ(IsCached(cache.get(), Key(i), kPad, nullptr, BlockKind::kIndex), i >= 3)
        << "index block " << i;
  }
  EXPECT_EQ(cache->GetOccupancyCount(), 11u);
}

TEST(LRUCacheTest, WithRatioZeroIndexAndFilterBlocksAreEvictedLikeData) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(11 * charge, 0, false, 0.0);
  std::atomic<int> loads{0};
  for (int i = 0; i < 5; i++) Fetch(cache.get(), Key(i), &loads, kPad, kHighPriKinds[i]);
  for (int k = 100; k < 150; k++) Fetch(cache.get(), Key(k), &loads);
  for (int i = 0; i < 5; i++) {
    EXPECT_FALSE(IsCached(cache.get(), Key(i), kPad, nullptr, kHighPriKinds[i]))
        << BlockKindName(kHighPriKinds[i]);
  }
  EXPECT_EQ(cache->GetOccupancyCount(), 11u);
}

// With no pool, an index block a lookup just hit must not go before data blocks nobody touched
// (RocksDB's LRU cache puts high-priority entries among the others when the pool is empty).
// Before, every idle index or filter block was evicted first: at ratio 0 (db_bench's and
// shale_bench's default) the index and filter partitions of a cache-suite read churned through
// the cache ahead of the data blocks.
TEST(LRUCacheTest, WithRatioZeroARecentlyHitIndexBlockOutlivesUntouchedDataBlocks) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(11 * charge, 0, false, 0.0);
  std::atomic<int> loads{0};
  for (int i = 0; i < 5; i++) Fetch(cache.get(), Key(i), &loads, kPad, kHighPriKinds[i]);
  for (int k = 100; k < 106; k++) Fetch(cache.get(), Key(k), &loads);
  ASSERT_EQ(cache->GetOccupancyCount(), 11u);
  for (int i = 0; i < 5; i++) Fetch(cache.get(), Key(i), &loads, kPad, kHighPriKinds[i]);  // hits
  ASSERT_EQ(loads.load(), 11);
  Fetch(cache.get(), Key(106), &loads);  // one block must go: an untouched data block
  EXPECT_EQ(cache->GetOccupancyCount(), 11u);
  EXPECT_FALSE(IsCached(cache.get(), Key(100)));
  for (int i = 0; i < 5; i++) {
    EXPECT_TRUE(IsCached(cache.get(), Key(i), kPad, nullptr, kHighPriKinds[i]))
        << BlockKindName(kHighPriKinds[i]);
  }
}

// ---------------------------------------------------------------------------------------------
// fill_cache = false

TEST(LRUCacheTest, FillCacheFalseReturnsTheBlockWithoutKeepingIt) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(1 << 20, 0);
  std::atomic<int> loads{0};
  BlockPtr a = Fetch(cache.get(), Key(0), &loads, kPad, BlockKind::kData, false);
  EXPECT_EQ(loads.load(), 1);
  EXPECT_EQ(cache->GetUsage(), 0u);
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  BlockPtr a2 = Fetch(cache.get(), Key(0), &loads, kPad, BlockKind::kData, false);
  EXPECT_EQ(loads.load(), 2);
  a.reset(), a2.reset();

  // Once cached, a fill_cache = false request is a hit on the cached block.
  BlockPtr cached = Fetch(cache.get(), Key(0), &loads);
  EXPECT_EQ(loads.load(), 3);
  BlockPtr hit = Fetch(cache.get(), Key(0), &loads, kPad, BlockKind::kData, false);
  EXPECT_EQ(loads.load(), 3);
  EXPECT_EQ(hit.get(), cached.get());
  EXPECT_EQ(cache->GetUsage(), charge);
  EXPECT_EQ(cache->GetOccupancyCount(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Loader errors

TEST(LRUCacheTest, LoaderErrorIsReturnedUnchangedAndNothingIsCached) {
  auto cache = MakeCache(1 << 20, 0);
  std::atomic<int> loads{0};
  BlockPtr other = Fetch(cache.get(), Key(9), &loads);
  const size_t usage = cache->GetUsage();

  const Status errors[] = {Status::IOError("000007.sst", "read at offset 4096 failed"),
                           Status::Corruption("000007.sst", "block checksum mismatch")};
  for (const Status& error : errors) {
    for (bool partial : {false, true}) {
      BlockRequest request;
      request.key = Key(0);
      BlockPtr block = other;  // must be cleared
      Status s = cache->GetBlock(
          request,
          [&](std::unique_ptr<LoadedBlock>* out) {
            if (partial) {  // a loader that made a block before failing
              Status made = MakeLoaded(Key(0), kPad, out);
              EXPECT_TRUE(made.ok()) << made.ToString();
            }
            return error;
          },
          &block);
      EXPECT_EQ(s.ToString(), error.ToString()) << "partial " << partial;
      EXPECT_EQ(s.IsIOError(), error.IsIOError());
      EXPECT_EQ(block, nullptr) << "partial " << partial;
      EXPECT_EQ(cache->GetOccupancyCount(), 1u) << "partial " << partial;
      EXPECT_EQ(cache->GetUsage(), usage) << "partial " << partial;
    }
  }
  int before = loads.load();
  Fetch(cache.get(), Key(0), &loads);
  EXPECT_EQ(loads.load(), before + 1) << "a failed load must not leave an entry";
}

// ---------------------------------------------------------------------------------------------
// SetCapacity and EraseUnRefEntries

TEST(LRUCacheTest, LoweringCapacityEvictsDownToIt) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(10 * charge, 0);
  std::atomic<int> loads{0};
  for (int k = 0; k < 10; k++) Fetch(cache.get(), Key(k), &loads);
  EXPECT_EQ(cache->GetUsage(), 10 * charge);
  cache->SetCapacity(4 * charge);
  EXPECT_EQ(cache->GetCapacity(), 4 * charge);
  EXPECT_EQ(cache->GetUsage(), 4 * charge);
  EXPECT_EQ(cache->GetOccupancyCount(), 4u);
  for (int k = 0; k < 10; k++) EXPECT_EQ(IsCached(cache.get(), Key(k)), k >= 6) << k;

  // Pinned blocks stay; they go once released.
  cache->SetCapacity(10 * charge);
  std::vector<BlockPtr> held;
  for (int k = 10; k < 16; k++) held.push_back(Fetch(cache.get(), Key(k), &loads));
  EXPECT_EQ(cache->GetUsage(), 10 * charge);
  cache->SetCapacity(2 * charge);
  EXPECT_EQ(cache->GetUsage(), 6 * charge) << "only the pinned blocks should be left";
  EXPECT_EQ(cache->GetOccupancyCount(), 6u);
  held.clear();
  EXPECT_LE(cache->GetUsage(), 2 * charge);
  EXPECT_LE(cache->GetOccupancyCount(), 2u);
}

TEST(LRUCacheTest, LoweringCapacityWithShardsStaysWithinIt) {
  auto cache = MakeCache(1 << 20, 3);
  std::atomic<int> loads{0};
  for (int k = 0; k < 500; k++) Fetch(cache.get(), Key(k), &loads, k % 1500);
  for (size_t capacity : {300'001u, 40'007u, 1'000u, 0u}) {
    cache->SetCapacity(capacity);
    EXPECT_EQ(cache->GetCapacity(), capacity);
    EXPECT_LE(cache->GetUsage(), capacity);
  }
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);
}

TEST(LRUCacheTest, EraseUnRefEntriesKeepsOnlyPinnedBlocks) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(1 << 20, 2);
  std::atomic<int> loads{0};
  std::vector<BlockPtr> held;
  for (int k = 0; k < 20; k++) {
    BlockKind kind = k % 2 == 0 ? BlockKind::kData : BlockKind::kFilterIndex;
    BlockPtr b = Fetch(cache.get(), Key(k), &loads, kPad, kind);
    if (k % 7 == 0) held.push_back(b);  // keys 0, 7, 14
  }
  cache->EraseUnRefEntries();
  EXPECT_EQ(cache->GetOccupancyCount(), 3u);
  EXPECT_EQ(cache->GetUsage(), 3 * charge);
  EXPECT_EQ(cache->GetPinnedUsage(), 3 * charge);
  for (int k = 0; k < 20; k++) EXPECT_EQ(IsCached(cache.get(), Key(k)), k % 7 == 0) << k;
  held.clear();
  EXPECT_EQ(cache->GetOccupancyCount(), 3u);
  cache->EraseUnRefEntries();
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);
  EXPECT_EQ(cache->GetUsage(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Construction

TEST(LRUCacheTest, NewLRUCacheRejectsArgumentsOutOfRange) {
  EXPECT_EQ(NewLRUCache(1 << 20, 20), nullptr);
  EXPECT_EQ(NewLRUCache(1 << 20, 30), nullptr);
  EXPECT_EQ(NewLRUCache(1 << 20, 2, false, -0.01), nullptr);
  EXPECT_EQ(NewLRUCache(1 << 20, 2, false, 1.01), nullptr);
  EXPECT_NE(NewLRUCache(1 << 20, 2, false, 0.0), nullptr);
  EXPECT_NE(NewLRUCache(1 << 20, 2, false, 1.0), nullptr);
  EXPECT_NE(NewLRUCache(0), nullptr);

  LRUCacheOptions options;
  options.capacity = 12345;
  options.num_shard_bits = 3;
  options.strict_capacity_limit = true;
  std::shared_ptr<Cache> cache = NewLRUCache(options);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->GetCapacity(), 12345u);
  EXPECT_TRUE(cache->HasStrictCapacityLimit());
  ASSERT_NE(LRUCache::FromCache(cache.get()), nullptr);
  EXPECT_EQ(LRUCache::FromCache(cache.get())->num_shard_bits(), 3);
  options.num_shard_bits = 20;
  EXPECT_EQ(NewLRUCache(options), nullptr);
  options.num_shard_bits = 3;
  options.high_pri_pool_ratio = 2;
  EXPECT_EQ(NewLRUCache(options), nullptr);
}

TEST(LRUCacheTest, NaNHighPriPoolRatioIsRejected) {
  EXPECT_EQ(NewLRUCache(1 << 20, 2, false, std::nan("")), nullptr)
      << "NaN is not in [0, 1]";
}

TEST(LRUCacheTest, DefaultShardBitsGiveEachShardAtLeast512KiB) {
  constexpr size_t kKiB = 1024, kMiB = 1024 * kKiB;
  const std::pair<size_t, int> cases[] = {
      {0, 0},           {512 * kKiB - 1, 0}, {kMiB - 1, 0},      {kMiB, 1},
      {2 * kMiB - 1, 1}, {2 * kMiB, 2},      {4 * kMiB, 3},      {16 * kMiB, 5},
      {32 * kMiB, 6},   {64 * kMiB, 6},      {1024 * kMiB, 6},
  };
  for (const auto& [capacity, bits] : cases) {
    std::shared_ptr<Cache> cache = NewLRUCache(capacity);
    ASSERT_NE(cache, nullptr);
    LRUCache* lru = LRUCache::FromCache(cache.get());
    ASSERT_NE(lru, nullptr);
    EXPECT_EQ(lru->num_shard_bits(), bits) << "capacity " << capacity;
    EXPECT_EQ(cache->GetCapacity(), capacity);
  }
  for (int bits : {0, 1, 4, 6, 9}) {
    std::shared_ptr<Cache> cache = NewLRUCache(1 << 20, bits);
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(LRUCache::FromCache(cache.get())->num_shard_bits(), bits);
  }
}

TEST(LRUCacheTest, CacheIdPrefixesAreDistinctAndLeaveTheFileNumberBits) {
  auto cache = MakeCache(1 << 20, 0);
  constexpr uint64_t kFileNumberMask = (uint64_t{1} << LRUCache::kCacheIdPrefixShift) - 1;
  std::vector<uint64_t> prefixes[2];
  std::thread other([&] {
    for (int i = 0; i < 500; i++) prefixes[1].push_back(cache->NewCacheIdPrefix());
  });
  for (int i = 0; i < 500; i++) prefixes[0].push_back(cache->NewCacheIdPrefix());
  other.join();
  std::set<uint64_t> distinct;
  for (const auto& list : prefixes) {
    for (uint64_t p : list) {
      EXPECT_EQ(p & kFileNumberMask, 0u) << "prefix " << p << " overlaps the file number bits";
      distinct.insert(p);
    }
  }
  EXPECT_EQ(distinct.size(), 1000u);
}

// A Cache that NewLRUCache did not make.
class OtherCache final : public Cache {
 public:
  const char* Name() const override { return "OtherCache"; }
  size_t GetCapacity() const override { return 0; }
  void SetCapacity(size_t) override {}
  bool HasStrictCapacityLimit() const override { return false; }
  void SetStrictCapacityLimit(bool) override {}
  size_t GetUsage() const override { return 0; }
  size_t GetPinnedUsage() const override { return 0; }
  size_t GetOccupancyCount() const override { return 0; }
  void EraseUnRefEntries() override {}
};

TEST(LRUCacheTest, FromCacheRecognisesOnlyLRUCaches) {
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  LRUCache* lru = LRUCache::FromCache(cache.get());
  ASSERT_NE(lru, nullptr);
  EXPECT_EQ(static_cast<Cache*>(lru), cache.get());
  OtherCache other;
  EXPECT_EQ(LRUCache::FromCache(&other), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Two threads missing the same key

TEST(LRUCacheTest, ConcurrentMissesOfOneKeyLeaveOneEntry) {
  const size_t charge = ChargeFor(kPad);
  auto cache = MakeCache(1 << 20, 2);
  int both_loaded = 0;  // rounds in which the two misses overlapped
  for (int round = 0; round < 20; round++) {
    const BlockKey key = Key(round);
    std::atomic<int> loads{0};
    std::atomic<int> entered{0};
    BlockPtr got[2];
    auto reader = [&](int i) {
      BlockRequest request;
      request.key = key;
      Status s = cache->GetBlock(
          request,
          [&](std::unique_ptr<LoadedBlock>* out) {
            loads.fetch_add(1);
            // Wait (briefly) for the other reader to miss too, so that both load.
            entered.fetch_add(1);
            auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
            while (entered.load() < 2 && std::chrono::steady_clock::now() < deadline) {
              std::this_thread::yield();
            }
            return MakeLoaded(key, kPad, out);
          },
          &got[i]);
      EXPECT_TRUE(s.ok()) << s.ToString();
    };
    std::thread t0(reader, 0), t1(reader, 1);
    t0.join(), t1.join();
    for (const BlockPtr& b : got) {
      ASSERT_NE(b, nullptr);
      ASSERT_NE(b->block(), nullptr);
      EXPECT_EQ(b->block()->contents(), BlockContents(key, kPad));
    }
    EXPECT_GE(loads.load(), 1);
    if (loads.load() == 2) both_loaded++;
    EXPECT_EQ(cache->GetOccupancyCount(), static_cast<size_t>(round + 1));
    EXPECT_EQ(cache->GetUsage(), static_cast<size_t>(round + 1) * charge);
    EXPECT_EQ(cache->GetPinnedUsage(), charge);
    const LoadedBlock* first = got[0].get();
    const LoadedBlock* second = got[1].get();
    got[0].reset(), got[1].reset();
    EXPECT_EQ(cache->GetPinnedUsage(), 0u);
    std::atomic<int> later{0};
    BlockPtr cached = Fetch(cache.get(), key, &later);
    EXPECT_EQ(later.load(), 0) << "round " << round;
    EXPECT_TRUE(cached.get() == first || cached.get() == second);
  }
  EXPECT_GT(both_loaded, 0) << "the two misses never overlapped: the race was not exercised";
}

}  // namespace
}  // namespace shale
