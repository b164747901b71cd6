// Heap bytes an object really takes: what the allocator hands out, size-class slack included.
// Memory budgets (the block cache's charges) count these, so that a budget bounds the process's
// heap and not just the bytes asked for: jemalloc, the allocator of ShaleDB's executables, serves
// a 4,200-byte block from its 5,120-byte class (~20% more).
//
// The figure is computed from jemalloc's size classes, not asked of the allocator: it depends on
// the request alone (a charge must not change with allocation history). Under glibc's malloc
// (programs that load libshale.so without jemalloc) it is close but not exact: glibc adds 8 bytes
// and rounds to 16, so it can exceed this figure by up to 16 bytes for small requests and fall
// short of it by up to a quarter for requests just above a class boundary.
//
// Thread-safety: pure functions.
#ifndef SHALE_UTIL_HEAP_SIZE_H_
#define SHALE_UTIL_HEAP_SIZE_H_

#include <cstddef>
#include <string>

namespace shale {

// jemalloc's small size classes end here (with 4 KiB pages); above, an allocation is "large".
inline constexpr size_t kLargestSmallSizeClass = 14336;

// The resident bytes jemalloc takes for a request of `n` bytes: its size class (8, then
// multiples of 16 up to 128, then four classes per doubling: for 2^k < n <= 2^(k+1), multiples of
// 2^(k-2)), plus one 4 KiB page for a large request (above kLargestSmallSizeClass), which
// jemalloc's cache-oblivious placement adds to each large extent. 0 for 0; n itself for requests
// too large to round (near SIZE_MAX) rather than a wrapped value.
size_t AllocationFootprint(size_t n);

// The heap bytes behind `s`'s characters: 0 while they sit in the string's inline buffer, the
// footprint of its heap buffer (capacity + 1 for the terminator) otherwise.
size_t StringHeapBytes(const std::string& s);

}  // namespace shale

#endif  // SHALE_UTIL_HEAP_SIZE_H_
