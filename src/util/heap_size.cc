#include "util/heap_size.h"

#include <bit>

namespace shale {

size_t AllocationSizeClass(size_t n) {
  if (n == 0) return 0;
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) & ~size_t{15};
  // 2^k < n <= 2^(k+1): k = bit_width(n - 1) - 1; the classes in that doubling are 2^(k-2) apart.
  const int k = std::bit_width(n - 1) - 1;
  const size_t spacing = size_t{1} << (k - 2);
  return (n + spacing - 1) & ~(spacing - 1);
}

size_t StringHeapBytes(const std::string& s) {
  // A default-constructed string's capacity is its inline buffer's: anything larger is on the
  // heap (libstdc++ and libc++ alike never go back inline once they have allocated).
  static const size_t kInlineCapacity = std::string().capacity();
  if (s.capacity() <= kInlineCapacity) return 0;
  return AllocationSizeClass(s.capacity() + 1);
}

}  // namespace shale
