#include "util/jemalloc_api.h"

#include <dlfcn.h>

namespace shale {

const JemallocApi* JemallocApi::Find() {
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

}  // namespace shale
