// util/heap_size.h: the computed size classes are jemalloc's own (nallocx), for every request
// size up to 64 KiB and for samples beyond, and a string's heap bytes follow its capacity.
#include "util/heap_size.h"

#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <limits>
#include <string>

namespace shale {
namespace {

TEST(HeapSizeTest, FootprintsAreJemallocsSizeClassesPlusThePageOfLargeExtents) {
  EXPECT_EQ(AllocationFootprint(0), 0u);
  for (size_t n = 1; n <= (64 << 10); n++) {
    const size_t expected = nallocx(n, 0) + (n > kLargestSmallSizeClass ? 4096 : 0);
    ASSERT_EQ(AllocationFootprint(n), expected) << "request of " << n << " bytes";
  }
  for (size_t n = 64 << 10; n <= (64 << 20); n = n * 9 / 8 + 1) {
    ASSERT_EQ(AllocationFootprint(n), nallocx(n, 0) + 4096) << "request of " << n << " bytes";
  }
  // jemalloc's own boundary between small and large classes is where this file puts it.
  EXPECT_EQ(nallocx(kLargestSmallSizeClass, 0), kLargestSmallSizeClass);
  EXPECT_GT(nallocx(kLargestSmallSizeClass + 1, 0), kLargestSmallSizeClass);
}

TEST(HeapSizeTest, HugeRequestsSaturateInsteadOfWrapping) {
  const size_t max = std::numeric_limits<size_t>::max();
  EXPECT_EQ(AllocationFootprint(max), max);
  EXPECT_GE(AllocationFootprint(max / 2 + 1), max / 2 + 1);
  EXPECT_GE(AllocationFootprint(max / 2), max / 2);
}

TEST(HeapSizeTest, StringHeapBytesFollowCapacity) {
  EXPECT_EQ(StringHeapBytes(std::string()), 0u);
  EXPECT_EQ(StringHeapBytes(std::string("short")), 0u);  // inline
  std::string block(4200, 'x');
  block.shrink_to_fit();
  EXPECT_EQ(StringHeapBytes(block), AllocationFootprint(block.capacity() + 1));
  EXPECT_EQ(StringHeapBytes(block), 5120u);
}

}  // namespace
}  // namespace shale
