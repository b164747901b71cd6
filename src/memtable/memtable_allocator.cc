#include "memtable/memtable_allocator.h"

#include <cassert>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "util/jemalloc_api.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace shale {

namespace {

std::atomic<bool> force_malloc{false};

}  // namespace

MemtableAllocator::MemtableAllocator(const JemallocApi* api, int arena_index)
    : api_(api),
      arena_index_(api != nullptr ? arena_index : -1),
      mallocx_flags_(api != nullptr ? JemallocApi::Arena(static_cast<unsigned>(arena_index)) |
                                          JemallocApi::kTcacheNone
                                    : 0),
      purge_name_(api != nullptr ? absl::StrCat("arena.", arena_index, ".purge") : "") {}

MemtableAllocator* MemtableAllocator::Jemalloc() {
  // Created once, thread-safely (a function-local static), and never destroyed: memtables may
  // still be freed while static objects are torn down at exit.
  static MemtableAllocator* const instance = []() -> MemtableAllocator* {
    const JemallocApi* api = JemallocApi::Find();
    if (api == nullptr) return nullptr;
    unsigned index = 0;
    size_t len = sizeof(index);
    if (api->mallctl("arenas.create", &index, &len, nullptr, 0) != 0) return nullptr;
    return new MemtableAllocator(api, static_cast<int>(index));
  }();
  return instance;
}

MemtableAllocator* MemtableAllocator::Malloc() {
  static MemtableAllocator* const instance = new MemtableAllocator(nullptr, -1);
  return instance;
}

MemtableAllocator* MemtableAllocator::Get() {
  if (!force_malloc.load(std::memory_order_acquire)) {
    MemtableAllocator* j = Jemalloc();
    if (j != nullptr) return j;
  }
  return Malloc();
}

void MemtableAllocator::ForceMallocForTesting(bool force) {
  force_malloc.store(force, std::memory_order_release);
}

void* MemtableAllocator::AllocateBlock(size_t size) {
  assert(size > 0);
  void* block = api_ != nullptr ? api_->mallocx(size, mallocx_flags_) : std::malloc(size);
  if (block != nullptr) allocated_bytes_.fetch_add(size, std::memory_order_relaxed);
  return block;
}

void MemtableAllocator::FreeBlock(void* block, size_t size) {
  if (block == nullptr) return;
  assert(allocated_bytes_.load(std::memory_order_relaxed) >= size);
  allocated_bytes_.fetch_sub(size, std::memory_order_relaxed);
  if (api_ != nullptr) {
    api_->dallocx(block, mallocx_flags_);
  } else {
    std::free(block);
  }
}

const char* MemtableAllocator::name() const {
  return api_ != nullptr ? "jemalloc-arena" : "malloc";
}

void MemtableAllocator::ReleaseFreeMemory() {
  if (api_ != nullptr) {
    // Failure only means the pages stay until jemalloc's own decay returns them.
    api_->mallctl(purge_name_.c_str(), nullptr, nullptr, nullptr, 0);
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace shale
