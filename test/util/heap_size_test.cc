// util/heap_size.h: the computed size classes are jemalloc's own (nallocx), for every request
// size up to 64 KiB and for samples beyond, and a string's heap bytes follow its capacity.
#include "util/heap_size.h"

#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <string>

namespace shale {
namespace {

TEST(HeapSizeTest, SizeClassesAreJemallocs) {
  EXPECT_EQ(AllocationSizeClass(0), 0u);
  for (size_t n = 1; n <= (64 << 10); n++) {
    ASSERT_EQ(AllocationSizeClass(n), nallocx(n, 0)) << "request of " << n << " bytes";
  }
  for (size_t n = 64 << 10; n <= (64 << 20); n = n * 9 / 8 + 1) {
    ASSERT_EQ(AllocationSizeClass(n), nallocx(n, 0)) << "request of " << n << " bytes";
  }
}

TEST(HeapSizeTest, StringHeapBytesFollowCapacity) {
  EXPECT_EQ(StringHeapBytes(std::string()), 0u);
  EXPECT_EQ(StringHeapBytes(std::string("short")), 0u);  // inline
  std::string block(4200, 'x');
  block.shrink_to_fit();
  EXPECT_EQ(StringHeapBytes(block), AllocationSizeClass(block.capacity() + 1));
  EXPECT_EQ(StringHeapBytes(block), 5120u);
}

}  // namespace
}  // namespace shale
