// The block cache's byte budget bounds the heap its blocks take when they live in huge-page
// memory (perf review of issue 21): a cache fills with LoadedBlocks made as a table read with a
// cache makes them (LoadedBlock::Memory::kHugePages, the block, its restart prefixes and its
// bytes in one allocation), and jemalloc's count of active pages stays within the capacity.
// block_cache_memory_test covers the ordinary heap (kHeap). Linked with jemalloc, the
// allocator of every ShaleDB executable.
//
// Thread-safety: single-threaded.
#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "base/internal_key.h"
#include "cache/lru_cache.h"
#include "shale/cache.h"
#include "shale/comparator.h"
#include "table/block_builder.h"
#include "table/block_source.h"
#include "testutil/status_matchers.h"
#include "util/huge_page_heap.h"

namespace shale {
namespace {

// Bytes of jemalloc's pages the process uses now (stats.active, every arena).
uint64_t HeapActive() {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  EXPECT_EQ(mallctl("epoch", &epoch, &size, &epoch, size), 0);
  size_t active = 0;
  size = sizeof(active);
  EXPECT_EQ(mallctl("stats.active", &active, &size, nullptr, 0), 0);
  return active;
}

// A data block of internal keys whose contents are about `bytes` long, restart interval 16.
std::string DataBlockOfSize(uint64_t id, size_t bytes) {
  BlockBuilder builder(16);
  const std::string value(80, 'v');
  for (uint64_t k = 0; builder.CurrentSizeEstimate() + 120 < bytes; k++) {
    char user[32];
    std::snprintf(user, sizeof(user), "user%08llu%08llu", static_cast<unsigned long long>(id),
                  static_cast<unsigned long long>(k));
    builder.Add(MakeInternalKey(user, 1, kTypeValue), value);
  }
  std::string contents(builder.Finish());
  contents.shrink_to_fit();
  return contents;
}

uint64_t HeapOfFullCache(size_t capacity, size_t block_bytes, bool with_prefixes) {
  InternalKeyComparator icmp(BytewiseComparator());
  const uint64_t before = HeapActive();
  uint64_t held = 0;
  {
    LRUCacheOptions options;
    options.capacity = capacity;
    options.num_shard_bits = 0;
    std::shared_ptr<Cache> cache = NewLRUCache(options);
    auto* source = dynamic_cast<BlockSource*>(cache.get());
    EXPECT_NE(source, nullptr);
    for (uint64_t i = 0; i < 2 * capacity / block_bytes; i++) {
      BlockRequest request;
      request.key = BlockKey{1, i * block_bytes};
      std::shared_ptr<const LoadedBlock> block;
      Status s = source->GetBlock(
          request,
          [&](std::unique_ptr<LoadedBlock>* out) {
            return LoadedBlock::MakeBlock(DataBlockOfSize(i, block_bytes),
                                          LoadedBlock::Memory::kHugePages, out,
                                          with_prefixes ? &icmp : nullptr);
          },
          &block);
      EXPECT_OK(s);
    }
    EXPECT_LE(cache->GetUsage(), capacity);
    held = HeapActive() - before;
  }
  return held;
}

TEST(BlockCacheHugePageMemoryTest, HeapOfAFullCacheStaysWithinItsCapacity) {
  ASSERT_STREQ(HugePageHeap::BackendName(), "jemalloc-thp-arena");
  constexpr size_t kCapacity = 16 << 20;
  for (bool with_prefixes : {false, true}) {
    for (size_t block_bytes : {4096 + 150, 4096 - 200, 8192 + 300, 16000, 65536 + 100}) {
      const uint64_t held = HeapOfFullCache(kCapacity, block_bytes, with_prefixes);
      EXPECT_LE(held, kCapacity + kCapacity * 3 / 100)
          << "blocks of " << block_bytes << " bytes" << (with_prefixes ? " with prefixes" : "")
          << ": the cache holds " << held << " heap bytes for a capacity of " << kCapacity;
    }
  }
}

}  // namespace
}  // namespace shale
