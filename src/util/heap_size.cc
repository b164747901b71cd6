#include "util/heap_size.h"

#include <bit>
#include <limits>

namespace shale {

namespace {

constexpr size_t kPage = 4096;

}  // namespace

size_t AllocationFootprint(size_t n) {
  if (n == 0) return 0;
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) & ~size_t{15};
  if (n > std::numeric_limits<size_t>::max() / 2) return n;  // no room to round: saturate
  // 2^k < n <= 2^(k+1): k = bit_width(n - 1) - 1 >= 7; the classes in that doubling are 2^(k-2)
  // apart.
  const int k = std::bit_width(n - 1) - 1;
  const size_t spacing = size_t{1} << (k - 2);
  const size_t size_class = (n + spacing - 1) & ~(spacing - 1);
  return n > kLargestSmallSizeClass ? size_class + kPage : size_class;
}

size_t StringHeapBytes(const std::string& s) {
  // A default-constructed string's capacity is its inline buffer's; a string whose capacity is
  // larger has its characters on the heap now (whatever it held before).
  static const size_t kInlineCapacity = std::string().capacity();
  if (s.capacity() <= kInlineCapacity) return 0;
  return AllocationFootprint(s.capacity() + 1);
}

}  // namespace shale
