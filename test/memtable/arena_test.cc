#include "memtable/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace shale {
namespace {

// Runs each test with the allocator memtables use here (the jemalloc arena: this binary links
// jemalloc) and with the malloc fallback.
class ArenaTest : public testing::TestWithParam<bool> {
 protected:
  MemtableAllocator* allocator() const {
    return GetParam() ? MemtableAllocator::Get() : MemtableAllocator::Malloc();
  }
};

TEST_P(ArenaTest, EmptyArenaHoldsNothing) {
  const size_t before = allocator()->allocated_bytes();
  {
    Arena arena(Arena::kDefaultBlockSize, allocator());
    EXPECT_EQ(arena.MemoryUsage(), 0u);
    EXPECT_EQ(allocator()->allocated_bytes(), before);
  }
  EXPECT_EQ(allocator()->allocated_bytes(), before);
}

// The block policy, step by step: a request that fits in the current block is served from it;
// one that does not starts a new block of block_size, unless it is larger than a quarter block,
// which gets a block of exactly its size (the current block stays in use). Usage counts whole
// blocks.
TEST_P(ArenaTest, UsageIsTheSumOfBlockSizes) {
  const size_t before = allocator()->allocated_bytes();
  {
    Arena arena(4096, allocator());
    arena.Allocate(1000);
    EXPECT_EQ(arena.MemoryUsage(), 4096u);
    arena.Allocate(1000);
    arena.Allocate(1000);
    arena.Allocate(1000);  // 4000 of 4096 used
    EXPECT_EQ(arena.MemoryUsage(), 4096u);
    arena.Allocate(200);  // does not fit: a new block, 200 used
    EXPECT_EQ(arena.MemoryUsage(), 8192u);
    arena.Allocate(2000);  // fits: 2200 used
    EXPECT_EQ(arena.MemoryUsage(), 8192u);
    arena.Allocate(3000);  // does not fit, > 1024: a block of its own
    EXPECT_EQ(arena.MemoryUsage(), 8192u + 3000u);
    arena.Allocate(1896);  // the current block's tail is still used: 4096 used
    EXPECT_EQ(arena.MemoryUsage(), 8192u + 3000u);
    arena.Allocate(1);
    EXPECT_EQ(arena.MemoryUsage(), 12288u + 3000u);
    EXPECT_EQ(allocator()->allocated_bytes() - before, arena.MemoryUsage());
  }
  EXPECT_EQ(allocator()->allocated_bytes(), before);
}

TEST_P(ArenaTest, SmallBlockSizeIsRaisedToTheMinimum) {
  Arena arena(10, allocator());
  EXPECT_EQ(arena.block_size(), Arena::kMinBlockSize);
  arena.Allocate(1);
  EXPECT_EQ(arena.MemoryUsage(), Arena::kMinBlockSize);
}

// Random sizes: memory handed out never overlaps, alignment holds, and the usage is exactly
// what the allocator counts, at most a quarter of each block wasted.
TEST_P(ArenaTest, RandomAllocationsAreDisjointAlignedAndCounted) {
  std::mt19937_64 rng(42);
  const size_t before = allocator()->allocated_bytes();
  {
    constexpr size_t kBlock = 64 * 1024;
    Arena arena(kBlock, allocator());
    struct Allocation {
      char* p;
      size_t size;
      unsigned char fill;
    };
    std::vector<Allocation> allocations;
    size_t small_blocks_bytes = 0;  // blocks of kBlock
    size_t used_bytes = 0;  // bytes served from those blocks
    for (int i = 0; i < 4000; i++) {
      size_t size = (i % 100 == 0) ? 1 + rng() % (200 * 1024) : 1 + rng() % 3000;
      const size_t align = size_t{1} << (rng() % 5);  // 1..16
      const size_t usage_before = arena.MemoryUsage();
      char* p = (i % 2 == 0) ? arena.Allocate(size) : arena.AllocateAligned(size, align);
      if (i % 2 == 1) {
        ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
      }
      // Served from the current block, or by exactly one new block of the policy's size.
      const size_t growth = arena.MemoryUsage() - usage_before;
      if (size > kBlock / 4) {
        ASSERT_TRUE(growth == 0 || growth == size) << size << " grew " << growth;
        if (growth == 0) used_bytes += size;  // it fit in the current block
      } else {
        ASSERT_TRUE(growth == 0 || growth == kBlock) << size << " grew " << growth;
        if (growth == kBlock) small_blocks_bytes += kBlock;
        used_bytes += size;
      }
      const auto fill = static_cast<unsigned char>(i);
      std::memset(p, fill, size);
      allocations.push_back({p, size, fill});
    }
    for (const Allocation& a : allocations) {
      for (size_t j = 0; j < a.size; j++) {
        ASSERT_EQ(static_cast<unsigned char>(a.p[j]), a.fill) << "overlapping allocations";
      }
    }
    EXPECT_EQ(allocator()->allocated_bytes() - before, arena.MemoryUsage());
    // A block is left only when less than a quarter of it is free (alignment padding and the
    // last, partly used block account for the rest).
    EXPECT_LE(small_blocks_bytes, used_bytes + used_bytes / 3 + 2 * kBlock);
  }
  EXPECT_EQ(allocator()->allocated_bytes(), before);
}

INSTANTIATE_TEST_SUITE_P(Allocators, ArenaTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Default") : std::string("Malloc");
                         });

}  // namespace
}  // namespace shale
