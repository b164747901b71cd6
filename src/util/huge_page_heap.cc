#include "util/huge_page_heap.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "util/jemalloc_api.h"

namespace shale {
namespace {

// jemalloc 5.x's extent hook table (<jemalloc/jemalloc.h>, "arena.<i>.extent_hooks"): nine
// function pointers in this order. Only `alloc` is replaced; the others are jemalloc's defaults.
struct ExtentHooks {
  void* (*alloc)(ExtentHooks*, void* new_addr, size_t size, size_t alignment, bool* zero,
                 bool* commit, unsigned arena_ind);
  void* dalloc;
  void* destroy;
  void* commit;
  void* decommit;
  void* purge_lazy;
  void* purge_forced;
  void* split;
  void* merge;
};

// jemalloc's default hooks (read once from the new arena, before the wrapper replaces them).
ExtentHooks* default_hooks = nullptr;
ExtentHooks huge_page_hooks;

void* AllocHugePageExtent(ExtentHooks*, void* new_addr, size_t size, size_t alignment, bool* zero,
                          bool* commit, unsigned arena_ind) {
  // The defaults ignore the hooks pointer they are given; pass their own table all the same.
  void* p = default_hooks->alloc(default_hooks, new_addr, size, alignment, zero, commit,
                                 arena_ind);
  // A hint: where the kernel refuses it (THP "never", or an old kernel) the extent simply keeps
  // 4 KiB pages.
  if (p != nullptr) madvise(p, size, MADV_HUGEPAGE);
  return p;
}

struct Backend {
  const JemallocApi* api = nullptr;  // null: malloc
  int flags = 0;                     // MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE
};

const Backend& GetBackend() {
  static const Backend backend = [] {
    Backend b;
    const JemallocApi* api = JemallocApi::Find();
    if (api == nullptr) return b;
    // The arena is created with jemalloc's own hooks, and the wrapping hook installed after:
    // jemalloc allocates a new arena's metadata through the hooks it is created with, before
    // the arena exists, and the default alloc hook of jemalloc before 5.3 dereferences the
    // arena it allocates for (NULL then: a crash on the first allocation). RocksDB's jemalloc
    // allocator does the same for the same reason.
    unsigned index = 0;
    size_t len = sizeof(index);
    if (api->mallctl("arenas.create", &index, &len, nullptr, 0) != 0) return b;
    const std::string hooks_name = "arena." + std::to_string(index) + ".extent_hooks";
    ExtentHooks* defaults = nullptr;
    len = sizeof(defaults);
    if (api->mallctl(hooks_name.c_str(), &defaults, &len, nullptr, 0) != 0 || defaults == nullptr ||
        defaults->alloc == nullptr) {
      return b;  // the arena stays unused
    }
    default_hooks = defaults;
    huge_page_hooks = *defaults;
    huge_page_hooks.alloc = &AllocHugePageExtent;
    ExtentHooks* hooks = &huge_page_hooks;
    if (api->mallctl(hooks_name.c_str(), nullptr, nullptr, &hooks, sizeof(hooks)) != 0) return b;
    b.api = api;
    // The thread caches are bypassed: they would mix this arena's memory with the default
    // arenas' (a tcache serves any arena's freed objects of the class).
    b.flags = JemallocApi::Arena(index) | JemallocApi::kTcacheNone;
    return b;
  }();
  return backend;
}

}  // namespace

void* HugePageHeap::Allocate(size_t size) {
  const Backend& b = GetBackend();
  return b.api != nullptr ? b.api->mallocx(size, b.flags) : std::malloc(size);
}

void HugePageHeap::Free(void* p) {
  if (p == nullptr) return;
  const Backend& b = GetBackend();
  if (b.api != nullptr) {
    b.api->dallocx(p, b.flags);
  } else {
    std::free(p);
  }
}

const char* HugePageHeap::BackendName() {
  return GetBackend().api != nullptr ? "jemalloc-thp-arena" : "malloc";
}

}  // namespace shale
