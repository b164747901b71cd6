// The CLOCK cache's accounting under concurrent hits, releases, evictions, SetCapacity,
// EraseUnRefEntries and strict-limit changes (perf review of issue 21): once every block is
// released, nothing is pinned, the usage is the charges of the resident entries, and a capacity
// of zero evicts every entry (which needs the per-priority idle counters to be exact: a counter
// too low stops eviction early, one too high sends the scan around an empty list).
//
// Thread-safety: the worker threads share only the cache.
#include <gtest/gtest.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cache/lru_cache.h"
#include "shale/cache.h"
#include "table/block_builder.h"
#include "table/block_source.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using BlockPtr = std::shared_ptr<const LoadedBlock>;

std::string BlockFor(uint64_t i) {
  char key[24];
  std::snprintf(key, sizeof(key), "%016" PRIx64, i);
  BlockBuilder builder(16);
  builder.Add(key, std::string(500, 'v'));
  return std::string(builder.Finish());
}

size_t UniformCharge() {
  std::unique_ptr<LoadedBlock> loaded;
  EXPECT_OK(LoadedBlock::MakeBlock(BlockFor(0), LoadedBlock::Memory::kHeap, &loaded));
  return loaded->charge();
}

Status Get(BlockSource* source, uint64_t i, BlockPtr* block) {
  BlockRequest request;
  request.key = BlockKey{1, i};
  request.kind = i % 3 == 0 ? BlockKind::kIndexPartition : BlockKind::kData;  // both lists
  return source->GetBlock(
      request,
      [&](std::unique_ptr<LoadedBlock>* out) {
        return LoadedBlock::MakeBlock(BlockFor(i), LoadedBlock::Memory::kHeap, out);
      },
      block);
}

// Checks the accounting of a quiescent cache (no block held) and that a zero capacity then
// empties it.
void CheckQuiescent(Cache* cache, size_t charge) {
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(cache->GetUsage(), cache->GetOccupancyCount() * charge);
  cache->SetCapacity(0);
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);
  EXPECT_EQ(cache->GetUsage(), 0u);
}

TEST(LRUCacheClockTest, ConcurrentHitsEvictionsAndResizesKeepTheAccounting) {
  const size_t charge = UniformCharge();
  for (int shard_bits : {0, 2}) {
    std::shared_ptr<Cache> cache = NewLRUCache(40 * charge, shard_bits, false, 0.3);
    ASSERT_NE(cache, nullptr);
    auto* source = dynamic_cast<BlockSource*>(cache.get());
    ASSERT_NE(source, nullptr);
    std::atomic<bool> stop{false};
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; t++) {
      workers.emplace_back([&, t] {
        std::mt19937_64 rng(t + 1);
        std::deque<BlockPtr> held;  // keeps some blocks in use across other threads' work
        for (int op = 0; op < 20000; op++) {
          // Skewed keys: hot ones are hit (visited) while cold ones churn.
          const uint64_t i = rng() % 4 == 0 ? rng() % 400 : rng() % 30;
          BlockPtr block;
          Status s = Get(source, i, &block);
          ASSERT_TRUE(s.ok()) << s.ToString();
          if (rng() % 3 == 0) held.push_back(std::move(block));
          while (held.size() > rng() % 12) held.pop_front();
        }
      });
    }
    std::thread resizer([&] {
      std::mt19937_64 rng(99);
      while (!stop.load()) {
        switch (rng() % 4) {
          case 0:
            cache->SetCapacity((rng() % 60) * charge);
            break;
          case 1:
            cache->EraseUnRefEntries();
            break;
          case 2:
            cache->SetStrictCapacityLimit(rng() % 2 == 0);
            break;
          default:
            cache->SetCapacity(40 * charge);
            break;
        }
        std::this_thread::yield();
      }
    });
    for (auto& w : workers) w.join();
    stop = true;
    resizer.join();
    cache->SetStrictCapacityLimit(false);
    cache->SetCapacity(40 * charge);
    ASSERT_NO_FATAL_FAILURE(CheckQuiescent(cache.get(), charge));
  }
}

// One shard, one step at a time: a scan takes in-use entries off the list; released while the
// cache is over capacity (the scan's path and the release's path both see such an entry), they
// leave the table with the accounting intact.
TEST(LRUCacheClockTest, InUseEntriesTakenOffByAScanAreAccountedWhenReleased) {
  const size_t charge = UniformCharge();
  std::shared_ptr<Cache> cache = NewLRUCache(4 * charge, 0, false, 0.0);
  auto* source = dynamic_cast<BlockSource*>(cache.get());
  std::vector<BlockPtr> held(4);
  for (uint64_t i = 0; i < 4; i++) ASSERT_OK(Get(source, 3 * i + 1, &held[i]));  // data blocks
  BlockPtr extra;
  ASSERT_OK(Get(source, 100, &extra));  // nothing idle: over capacity, the scan unlinks all four
  EXPECT_EQ(cache->GetUsage(), 5 * charge);
  held[0].reset();  // over capacity: leaves at once
  EXPECT_EQ(cache->GetOccupancyCount(), 4u);
  extra.reset();    // at capacity, not over: idle
  held[1].reset();  // idle, back on the list (the scan had taken it off)
  EXPECT_EQ(cache->GetUsage(), 4 * charge);
  EXPECT_EQ(cache->GetPinnedUsage(), 2 * charge);
  BlockPtr again;
  ASSERT_OK(Get(source, 4, &again));  // a hit on the relinked entry
  again.reset();
  ASSERT_OK(Get(source, 200, &extra));
  ASSERT_OK(Get(source, 201, &again));  // evicts an idle one
  EXPECT_LE(cache->GetUsage(), 4 * charge);
  held.clear();
  extra.reset();
  again.reset();
  ASSERT_NO_FATAL_FAILURE(CheckQuiescent(cache.get(), charge));
}

}  // namespace
}  // namespace shale
