// Heap bytes an object really takes: what the allocator hands out, size-class slack included.
// Memory budgets (the block cache's charges, the table readers' usage) count these, so that a
// budget bounds the process's heap and not just the bytes asked for: jemalloc, the allocator of
// ShaleDB's executables, serves a 4,200-byte block from its 5,120-byte class (~20% more).
//
// The figure is jemalloc's size class of the request, computed, not asked of the allocator: it
// depends on the request alone (a charge must not change with allocation history), and under
// glibc's malloc (16-byte granularity) it is an upper bound.
//
// Thread-safety: pure functions.
#ifndef SHALE_UTIL_HEAP_SIZE_H_
#define SHALE_UTIL_HEAP_SIZE_H_

#include <cstddef>
#include <string>

namespace shale {

// jemalloc's size class for a request of `n` bytes: 8, then multiples of 16 up to 128, then four
// classes per doubling (for 2^k < n <= 2^(k+1), multiples of 2^(k-2)). 0 for 0.
size_t AllocationSizeClass(size_t n);

// The heap bytes behind `s`'s characters: 0 while they sit in the string's inline buffer, the
// size class of its heap buffer (capacity + 1 for the terminator) otherwise.
size_t StringHeapBytes(const std::string& s);

}  // namespace shale

#endif  // SHALE_UTIL_HEAP_SIZE_H_
