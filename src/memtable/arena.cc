#include "memtable/arena.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace shale {

Arena::Arena(size_t block_size, MemtableAllocator* allocator)
    : block_size_(block_size < kMinBlockSize ? kMinBlockSize : block_size),
      allocator_(allocator) {}

Arena::~Arena() {
  for (const Block& b : blocks_) allocator_->FreeBlock(b.data, b.size);
  const bool held_memory = !blocks_.empty();
  blocks_.clear();
  memory_usage_.store(0, std::memory_order_relaxed);
  if (held_memory) allocator_->ReleaseFreeMemory();
}

char* Arena::AllocateFallback(size_t bytes, size_t align) {
  assert(bytes > 0);
  assert((align & (align - 1)) == 0 && align <= alignof(std::max_align_t));
  if (bytes > block_size_ / 4) {
    // A block of its own, so the tail of the current block stays in use.
    return NewBlock(bytes);
  }
  // The rest of the current block is wasted. Blocks start at max_align_t alignment.
  alloc_ptr_ = NewBlock(block_size_);
  alloc_bytes_remaining_ = block_size_;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_bytes_remaining_ -= bytes;
  return result;
}

char* Arena::NewBlock(size_t size) {
  auto* data = static_cast<char*>(allocator_->AllocateBlock(size));
  if (data == nullptr) {
    // The engine has no exceptions and Add() cannot fail: running out of memory is fatal, as an
    // uncaught std::bad_alloc would be.
    std::fprintf(stderr, "shale: memtable arena: out of memory allocating a block of %zu bytes\n",
                 size);
    std::abort();
  }
  blocks_.push_back(Block{data, size});
  memory_usage_.fetch_add(size, std::memory_order_relaxed);
  return data;
}

}  // namespace shale
