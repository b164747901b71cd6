// MemtableAllocator: where memtable arenas get their blocks, and the process-wide count of the
// bytes those blocks hold.
//
// Two back ends, chosen once per process:
// - "jemalloc-arena": when jemalloc is in the process (an executable linked with -ljemalloc, or
//   LD_PRELOAD), blocks come from one dedicated jemalloc arena (`arenas.create`) through
//   mallocx/dallocx with the thread cache bypassed, and ReleaseFreeMemory() purges that arena so
//   the pages of freed memtables go back to the OS at once.
// - "malloc": otherwise, blocks come from malloc/free, and ReleaseFreeMemory() asks glibc to
//   return free heap memory (malloc_trim).
//
// jemalloc is found at run time, never linked (util/jemalloc_api.h says why).
//
// Accounting is the same in both back ends and exact: allocated_bytes() is the sum of the sizes
// passed to AllocateBlock() for blocks not yet freed (allocator rounding is not included).
//
// Thread-safety: every method may be called from any thread at any time. The objects returned
// by Get() and Malloc() live until the process ends.
#ifndef SHALE_MEMTABLE_MEMTABLE_ALLOCATOR_H_
#define SHALE_MEMTABLE_MEMTABLE_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <string>

#include "util/jemalloc_api.h"

namespace shale {

class MemtableAllocator {
 public:
  // The allocator memtables use: the jemalloc arena when jemalloc is in the process (and the
  // fallback is not forced), else the malloc one.
  static MemtableAllocator* Get();
  // The malloc allocator, always available.
  static MemtableAllocator* Malloc();

  // Test hook: while `force` is true, Get() returns Malloc() even when jemalloc is present.
  // Blocks must be freed through the allocator that made them; Arena remembers it, so flipping
  // the hook while arenas are alive is safe.
  static void ForceMallocForTesting(bool force);

  MemtableAllocator(const MemtableAllocator&) = delete;
  MemtableAllocator& operator=(const MemtableAllocator&) = delete;

  // A block of `size` bytes, aligned at least like malloc's, or nullptr when out of memory.
  // REQUIRES: size > 0.
  void* AllocateBlock(size_t size);
  // Frees a block made by AllocateBlock(size) of this same allocator.
  void FreeBlock(void* block, size_t size);

  // Bytes of live blocks of this allocator (sum of the requested sizes).
  size_t allocated_bytes() const { return allocated_bytes_.load(std::memory_order_relaxed); }

  // "jemalloc-arena" or "malloc" (the DB reports it as `shale.memtable-allocator`).
  const char* name() const;

  // Returns unused pages to the OS: purges the dedicated jemalloc arena, or malloc_trim(0).
  void ReleaseFreeMemory();

  // The index of the dedicated jemalloc arena, or -1 for the malloc allocator. For stats.
  int jemalloc_arena_index() const { return arena_index_; }

 private:
  // Malloc back end when `api` is null; else the jemalloc arena `arena_index`.
  MemtableAllocator(const JemallocApi* api, int arena_index);

  // Made once: the jemalloc allocator, or nullptr when jemalloc is not in the process or the
  // arena could not be created.
  static MemtableAllocator* Jemalloc();

  const JemallocApi* const api_;   // null for the malloc back end
  const int arena_index_;          // -1 for the malloc back end
  const int mallocx_flags_;        // MALLOCX_ARENA(arena_index_) | MALLOCX_TCACHE_NONE
  const std::string purge_name_;   // "arena.<i>.purge"
  std::atomic<size_t> allocated_bytes_{0};
};

}  // namespace shale

#endif  // SHALE_MEMTABLE_MEMTABLE_ALLOCATOR_H_
