#include "memtable/memtable_allocator.h"

#include <dlfcn.h>

#include <cassert>
#include <cstdlib>

#include "absl/strings/str_cat.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace shale {

// jemalloc's non-standard entry points, found with dlsym. Debian builds jemalloc without a
// symbol prefix, so they are exported as mallctl/mallocx/dallocx.
struct MemtableAllocator::JemallocApi {
  int (*mallctl)(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);
  void* (*mallocx)(size_t size, int flags);
  void (*dallocx)(void* ptr, int flags);
};

namespace {

// mallocx flag encodings, as <jemalloc/jemalloc.h> (5.x) defines them; that header is not
// included here because libshale must not depend on jemalloc at build or link time.
//   #define MALLOCX_TCACHE(tc)  ((int)(((tc)+2) << 8))
//   #define MALLOCX_TCACHE_NONE MALLOCX_TCACHE(-1)
//   #define MALLOCX_ARENA(a)    ((((int)(a))+1) << 20)
constexpr int kMallocxTcacheNone = (-1 + 2) << 8;
constexpr int MallocxArena(int arena_index) { return (arena_index + 1) << 20; }

std::atomic<bool> force_malloc{false};

}  // namespace

const MemtableAllocator::JemallocApi* MemtableAllocator::FindJemallocApi() {
  static const JemallocApi api = [] {
    JemallocApi a;
    a.mallctl = reinterpret_cast<decltype(a.mallctl)>(dlsym(RTLD_DEFAULT, "mallctl"));
    a.mallocx = reinterpret_cast<decltype(a.mallocx)>(dlsym(RTLD_DEFAULT, "mallocx"));
    a.dallocx = reinterpret_cast<decltype(a.dallocx)>(dlsym(RTLD_DEFAULT, "dallocx"));
    return a;
  }();
  if (api.mallctl == nullptr || api.mallocx == nullptr || api.dallocx == nullptr) return nullptr;
  return &api;
}

MemtableAllocator::MemtableAllocator(const JemallocApi* api, int arena_index)
    : api_(api),
      arena_index_(api != nullptr ? arena_index : -1),
      mallocx_flags_(api != nullptr ? MallocxArena(arena_index) | kMallocxTcacheNone : 0),
      purge_name_(api != nullptr ? absl::StrCat("arena.", arena_index, ".purge") : "") {}

MemtableAllocator* MemtableAllocator::Jemalloc() {
  // Created once, thread-safely (a function-local static), and never destroyed: memtables may
  // still be freed while static objects are torn down at exit.
  static MemtableAllocator* const instance = []() -> MemtableAllocator* {
    const JemallocApi* api = FindJemallocApi();
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
