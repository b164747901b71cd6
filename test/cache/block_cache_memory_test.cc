// The block cache's byte budget bounds the heap its blocks really take (issue 20: at 4 GB the
// read benchmark held 1.28 GiB with a 1 GiB cache, ~230 MB of it the allocator's size-class
// slack of blocks just over 4 KiB, which the cache did not charge). Linked with jemalloc, the
// allocator of every ShaleDB executable, so the heap is measured as the process would have it.
#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <memory>
#include <string>

#include "cache/lru_cache.h"
#include "shale/cache.h"
#include "table/block_builder.h"
#include "table/block_source.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// Bytes of jemalloc's pages the process uses now (its stats.active counter).
uint64_t HeapAllocated() {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  EXPECT_EQ(mallctl("epoch", &epoch, &size, &epoch, size), 0);
  size_t allocated = 0;
  size = sizeof(allocated);
  // stats.active: pages in use, so the page jemalloc adds to each large extent counts too.
  EXPECT_EQ(mallctl("stats.active", &allocated, &size, nullptr, 0), 0);
  return allocated;
}

// A data block whose contents are `bytes` long (within a few bytes), as a table read hands it
// to the cache: a heap string of exactly that capacity.
std::string BlockOfSize(uint64_t id, size_t bytes) {
  BlockBuilder builder(16);
  const std::string key = "key" + std::to_string(id);
  builder.Add(key, std::string(bytes - key.size() - 16, 'v'));
  std::string contents(builder.Finish());
  contents.shrink_to_fit();
  return contents;
}

// Fills a cache of `capacity` bytes with blocks of `block_bytes` until it has evicted plenty,
// and returns the heap the cache then holds, measured around the cache's life.
uint64_t HeapOfFullCache(size_t capacity, size_t block_bytes) {
  const uint64_t before = HeapAllocated();
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
      Status s = source->GetBlock(request, [&](std::unique_ptr<LoadedBlock>* out) {
        return LoadedBlock::MakeBlock(BlockOfSize(i, block_bytes), LoadedBlock::Memory::kHeap, out);
      }, &block);
      EXPECT_OK(s);
    }
    EXPECT_LE(cache->GetUsage(), capacity);
    held = HeapAllocated() - before;
  }
  return held;
}

// Blocks just over 4 KiB are what a 4 KiB block_size produces (a block is cut once it reaches
// block_size); jemalloc serves them from its 5 KiB size class.
TEST(BlockCacheMemoryTest, HeapOfAFullCacheStaysWithinItsCapacity) {
  constexpr size_t kCapacity = 16 << 20;
  for (size_t block_bytes : {4096 + 150, 4096 - 200, 8192 + 300, 1000, 16000, 65536 + 100}) {
    const uint64_t held = HeapOfFullCache(kCapacity, block_bytes);
    // 3%: the cache's own tables and the rounding of the last entries.
    EXPECT_LE(held, kCapacity + kCapacity * 3 / 100)
        << "blocks of " << block_bytes << " bytes: the cache holds " << held
        << " heap bytes for a capacity of " << kCapacity;
  }
}

}  // namespace
}  // namespace shale
