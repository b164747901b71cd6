// Arena: bump allocation for one memtable. Memory is taken from a MemtableAllocator in blocks
// and given back only all at once, when the arena is destroyed; after freeing its blocks the
// arena asks the allocator to return free pages to the OS (ReleaseFreeMemory), so the process
// RSS falls when a memtable goes away.
//
// Blocks have a fixed size (block_size, default 1 MiB). A request that does not fit in the rest
// of the current block starts a new one, unless it is larger than a quarter block: then it gets
// a block of exactly its size and the current block stays in use. So at most a quarter of each
// block is wasted.
//
// MemoryUsage() is exact: the sum of the sizes of the blocks the arena holds (bookkeeping
// outside the blocks is not counted).
//
// Thread-safety: Allocate* are for one thread at a time (the memtable's single writer).
// MemoryUsage() may be called from any thread concurrently with them. Memory handed out stays
// valid, at the same address, until the arena is destroyed.
#ifndef SHALE_MEMTABLE_ARENA_H_
#define SHALE_MEMTABLE_ARENA_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memtable/memtable_allocator.h"

namespace shale {

class Arena {
 public:
  static constexpr size_t kDefaultBlockSize = size_t{1} << 20;
  // Smaller block sizes are raised to this.
  static constexpr size_t kMinBlockSize = 4096;

  explicit Arena(size_t block_size = kDefaultBlockSize,
                 MemtableAllocator* allocator = MemtableAllocator::Get());
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  // Frees every block, then MemtableAllocator::ReleaseFreeMemory().
  ~Arena();

  // `bytes` bytes with no alignment promise. REQUIRES: bytes > 0.
  char* Allocate(size_t bytes);
  // `bytes` bytes aligned to `align`. REQUIRES: bytes > 0; align a power of two, at most
  // alignof(std::max_align_t).
  char* AllocateAligned(size_t bytes, size_t align = alignof(std::max_align_t));

  // Bytes of the blocks held. Any thread.
  size_t MemoryUsage() const { return memory_usage_.load(std::memory_order_relaxed); }

  size_t block_size() const { return block_size_; }
  MemtableAllocator* allocator() const { return allocator_; }

 private:
  struct Block {
    char* data;
    size_t size;
  };

  // Serves a request that does not fit in the current block.
  char* AllocateFallback(size_t bytes, size_t align);
  // Takes a new block of `size` bytes from the allocator; aborts when out of memory.
  char* NewBlock(size_t size);

  const size_t block_size_;
  MemtableAllocator* const allocator_;

  // The free tail of the current block: [alloc_ptr_, alloc_ptr_ + alloc_bytes_remaining_).
  char* alloc_ptr_ = nullptr;
  size_t alloc_bytes_remaining_ = 0;
  std::vector<Block> blocks_;
  // Invariant: equals the sum of blocks_[i].size.
  std::atomic<size_t> memory_usage_{0};
};

inline char* Arena::Allocate(size_t bytes) {
  return AllocateAligned(bytes, 1);
}

inline char* Arena::AllocateAligned(size_t bytes, size_t align) {
  const size_t misalignment = reinterpret_cast<uintptr_t>(alloc_ptr_) & (align - 1);
  const size_t slop = misalignment == 0 ? 0 : align - misalignment;
  if (bytes + slop <= alloc_bytes_remaining_) {
    char* result = alloc_ptr_ + slop;
    alloc_ptr_ += bytes + slop;
    alloc_bytes_remaining_ -= bytes + slop;
    return result;
  }
  return AllocateFallback(bytes, align);
}

}  // namespace shale

#endif  // SHALE_MEMTABLE_ARENA_H_
