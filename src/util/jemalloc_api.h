// JemallocApi: jemalloc's non-standard entry points (mallctl, mallocx, dallocx), found at run
// time, for the engine's dedicated arenas (memtables, cached blocks).
//
// The dlopen trap: libshale must load with dlopen into processes that have no jemalloc (Python
// ctypes), and Debian's libjemalloc.so.2 cannot be dlopen'ed ("cannot allocate memory in static
// TLS block"). So libshale never links jemalloc; it looks the functions up with
// dlsym(RTLD_DEFAULT, ...) and uses them only when the process already has them (an executable
// linked with -ljemalloc, or LD_PRELOAD). Debian builds jemalloc without a symbol prefix.
//
// Thread-safety: Find() may be called from any thread; the table it returns is immutable.
#ifndef SHALE_UTIL_JEMALLOC_API_H_
#define SHALE_UTIL_JEMALLOC_API_H_

#include <cstddef>

namespace shale {

struct JemallocApi {
  int (*mallctl)(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);
  void* (*mallocx)(size_t size, int flags);
  void (*dallocx)(void* ptr, int flags);

  // The process's jemalloc (looked up once), or nullptr when any entry point is missing.
  static const JemallocApi* Find();

  // mallocx flag encodings, as <jemalloc/jemalloc.h> (5.x) defines them; that header is not
  // included because libshale must not depend on jemalloc at build or link time:
  //   #define MALLOCX_TCACHE(tc)  ((int)(((tc)+2) << 8))
  //   #define MALLOCX_TCACHE_NONE MALLOCX_TCACHE(-1)
  //   #define MALLOCX_ARENA(a)    ((((int)(a))+1) << 20)
  static constexpr int kTcacheNone = (-1 + 2) << 8;
  static constexpr int Arena(unsigned arena_index) {
    return (static_cast<int>(arena_index) + 1) << 20;
  }
};

}  // namespace shale

#endif  // SHALE_UTIL_JEMALLOC_API_H_
