// HugePageHeap with jemalloc in the process (this binary links it): memory comes from the
// dedicated arena, and the arena's new mappings carry the MADV_HUGEPAGE advice (the "hg" flag
// in /proc/self/smaps). Perf review of issue 21: the arena's creation must not crash in
// jemalloc 5.3, whose default alloc hook cannot serve an arena that does not exist yet.
//
// Thread-safety: single-threaded tests.
#include "util/huge_page_heap.h"

#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace shale {
namespace {

// The VmFlags line of the /proc/self/smaps mapping holding `p` ("" if not found).
std::string VmFlagsOf(const void* p) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(HugePageHeapTest, JemallocArenaIsUsedAndServesAllocations) {
  // Creating the arena (the first call) must not crash, and must succeed.
  void* small = HugePageHeap::Allocate(100);
  ASSERT_NE(small, nullptr);
  EXPECT_STREQ(HugePageHeap::BackendName(), "jemalloc-thp-arena");
  std::memset(small, 1, 100);
  HugePageHeap::Free(small);
}

TEST(HugePageHeapTest, NewExtentsAreAdvisedHugePages) {
  ASSERT_STREQ(HugePageHeap::BackendName(), "jemalloc-thp-arena");
  // Big enough that the arena must map a new extent for it (through the alloc hook).
  constexpr size_t kSize = 8 << 20;
  char* p = static_cast<char*>(HugePageHeap::Allocate(kSize));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, kSize);
  const std::string flags = VmFlagsOf(p + kSize / 2);
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  // The allocation is in the dedicated arena, not the application's.
  unsigned arena = 0;
  size_t len = sizeof(arena);
  void* ptr = p;
  ASSERT_EQ(mallctl("arenas.lookup", &arena, &len, &ptr, sizeof(ptr)), 0);
  EXPECT_NE(arena, 0u);
  HugePageHeap::Free(p);
  // The control: the application's own memory is not advised (the flag is the hook's doing).
  char* plain = static_cast<char*>(std::malloc(kSize));
  ASSERT_NE(plain, nullptr);
  std::memset(plain, 1, kSize);
  EXPECT_EQ(VmFlagsOf(plain + kSize / 2).find(" hg"), std::string::npos);
  std::free(plain);
}

}  // namespace
}  // namespace shale
