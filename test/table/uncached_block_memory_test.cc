// Blocks nobody keeps stay on the ordinary heap (perf review of issue 21): with no block cache
// (UncachedBlockSource, as no_block_cache gives), a Get's data block is used once and freed,
// like a scan's (fill_cache false), so it must not go through the huge-page arena (one locked,
// thread-cache-less allocation per read) nor get restart prefixes. The reader's own index and
// filter, kept for its life, still do. Linked with jemalloc so that the arena exists.
//
// Thread-safety: single-threaded.
#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shale/filter_policy.h"
#include "table/table_test_util.h"
#include "util/huge_page_heap.h"

namespace shale {
namespace {

// The huge-page arena's index (found from one of its allocations).
unsigned HugePageArena() {
  void* p = HugePageHeap::Allocate(64);
  unsigned arena = 0;
  size_t len = sizeof(arena);
  EXPECT_EQ(mallctl("arenas.lookup", &arena, &len, &p, sizeof(p)), 0);
  HugePageHeap::Free(p);
  return arena;
}

// Allocations the arena has served so far (small and large).
uint64_t ArenaMallocs(unsigned arena) {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  EXPECT_EQ(mallctl("epoch", &epoch, &len, &epoch, len), 0);
  uint64_t total = 0;
  for (const char* kind : {"small", "large"}) {
    uint64_t n = 0;
    len = sizeof(n);
    const std::string name = absl::StrCat("stats.arenas.", arena, ".", kind, ".nmalloc");
    EXPECT_EQ(mallctl(name.c_str(), &n, &len, nullptr, 0), 0) << name;
    total += n;
  }
  return total;
}

TEST(UncachedBlockMemoryTest, UncachedGetsDoNotUseTheHugePageArena) {
  ASSERT_STREQ(HugePageHeap::BackendName(), "jemalloc-thp-arena");
  const unsigned arena = HugePageArena();
  InternalKeyComparator cmp(BytewiseComparator());
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  std::vector<Entry> entries;
  for (int i = 0; i < 5000; i++) {
    entries.emplace_back(MakeInternalKey(absl::StrFormat("key%08d", i), 1, kTypeValue),
                         std::string(100, 'v'));
  }
  TableOptions options;
  options.filter_policy = NewBloomFilterPolicy(10);
  ASSERT_OK(BuildTable(fs.get(), "/t.sst", options, kNoCompression, &cmp, entries));
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(OpenTable(fs.get(), "/t.sst", &cmp, &reader, /*source=*/nullptr));
  const uint64_t before = ArenaMallocs(arena);
  std::vector<Entry> got;
  for (int i = 0; i < 200; i++) {
    ASSERT_OK(GetAll(*reader, absl::StrFormat("key%08d", i * 25), kMaxSequenceNumber, &got));
    ASSERT_EQ(got.size(), 1u);
  }
  EXPECT_EQ(ArenaMallocs(arena) - before, 0u) << "200 uncached Gets";
}

}  // namespace
}  // namespace shale
