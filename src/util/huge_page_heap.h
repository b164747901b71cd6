// HugePageHeap: memory for large, long-lived data that is read at random addresses (the blocks
// a block cache keeps, a table's pinned index and filter), backed by transparent huge pages.
//
// Why: a cached read touches a few random cache lines spread over gigabytes (the cache's table,
// a filter, an index, a data block). With 4 KiB pages nearly every one of those touches also
// misses the TLB and walks the page table; with 2 MiB pages the walks mostly hit. On the
// reference machine this made cached point reads about 1.3x faster (bench/RESULTS.md, issue 21).
//
// How: when jemalloc is in the process (util/jemalloc_api.h), memory comes from one dedicated
// jemalloc arena whose extent hooks are jemalloc's own except that every new mapping is marked
// madvise(MADV_HUGEPAGE), so the kernel backs it with huge pages where the system's
// transparent_hugepage setting is "madvise" or "always" (with "never" the hint does nothing and
// this is an ordinary arena). The application's own allocations and jemalloc's settings are not
// touched. Without jemalloc, Allocate is malloc (no huge pages).
//
// Accounting: callers charge AllocationFootprint(size) (util/heap_size.h): the arena uses
// jemalloc's size classes like any other.
//
// Thread-safety: every function may be called from any thread at any time. The arena lives
// until the process ends (memory may be freed while static objects are torn down).
#ifndef SHALE_UTIL_HUGE_PAGE_HEAP_H_
#define SHALE_UTIL_HUGE_PAGE_HEAP_H_

#include <cstddef>
#include <memory>
#include <new>

namespace shale {

class HugePageHeap {
 public:
  // `size` bytes aligned like malloc's, or nullptr when out of memory. REQUIRES: size > 0.
  static void* Allocate(size_t size);
  // Frees memory from Allocate (nullptr is ignored).
  static void Free(void* p);
  // "jemalloc-thp-arena" or "malloc": which back end this process uses.
  static const char* BackendName();

  struct Deleter {
    void operator()(void* p) const { Free(p); }
  };
};

// A byte buffer from HugePageHeap.
using HugePageBuffer = std::unique_ptr<char[], HugePageHeap::Deleter>;

// A standard allocator over HugePageHeap (for containers such as a cache's hash table).
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding is implicit
  T* allocate(size_t n) {
    void* p = HugePageHeap::Allocate(n * sizeof(T) > 0 ? n * sizeof(T) : 1);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { HugePageHeap::Free(p); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace shale

#endif  // SHALE_UTIL_HUGE_PAGE_HEAP_H_
