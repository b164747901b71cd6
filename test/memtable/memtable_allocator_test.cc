// The allocator with jemalloc in the process (this binary links it): blocks come from the
// dedicated arena, are counted exactly, and freeing a memtable returns its pages. The malloc
// fallback is reached through the test hook here; memtable_malloc_test.cc covers a process
// without jemalloc.
#include "memtable/memtable_allocator.h"

#include <gtest/gtest.h>
#include <jemalloc/jemalloc.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "memtable/memtable.h"

namespace shale {
namespace {

// Reads a size_t statistic of jemalloc arena `arena` ("stats.arenas.<i>.<stat>") after
// refreshing the stats snapshot.
size_t ArenaStat(int arena, const char* stat) {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  EXPECT_EQ(mallctl("epoch", &epoch, &len, &epoch, len), 0);
  size_t value = 0;
  len = sizeof(value);
  const std::string name = absl::StrCat("stats.arenas.", arena, ".", stat);
  EXPECT_EQ(mallctl(name.c_str(), &value, &len, nullptr, 0), 0) << name;
  return value;
}

size_t PageSize() {
  size_t page = 0;
  size_t len = sizeof(page);
  EXPECT_EQ(mallctl("arenas.page", &page, &len, nullptr, 0), 0);
  return page;
}

// Resident set size of this process, in bytes.
size_t ProcessRss() {
  std::ifstream statm("/proc/self/statm");
  size_t total_pages = 0;
  size_t resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Fills a new memtable with sorted 16-byte keys and 100-byte values until its arena holds
// `bytes`. The caller Unrefs it.
MemTable* FilledMemTable(const InternalKeyComparator& cmp, size_t bytes) {
  auto* mem = new MemTable(cmp);
  mem->Ref();
  const std::string value(100, 'v');
  for (uint64_t i = 0; mem->ApproximateMemoryUsage() < bytes; i++) {
    mem->Add(i + 1, kTypeValue, absl::StrFormat("%016d", i), value);
  }
  return mem;
}

class MemtableAllocatorTest : public testing::Test {
 protected:
  void TearDown() override { MemtableAllocator::ForceMallocForTesting(false); }

  InternalKeyComparator cmp_{BytewiseComparator()};
};

TEST_F(MemtableAllocatorTest, UsesADedicatedJemallocArena) {
  MemtableAllocator* allocator = MemtableAllocator::Get();
  ASSERT_STREQ(allocator->name(), "jemalloc-arena");
  EXPECT_EQ(MemtableAllocator::Get(), allocator) << "one arena per process";
  const int index = allocator->jemalloc_arena_index();
  ASSERT_GE(index, 0);

  // Blocks really come from that arena, and it is not the one jemalloc picks by default.
  void* block = allocator->AllocateBlock(1 << 20);
  ASSERT_NE(block, nullptr);
  unsigned owner = 0;
  size_t len = sizeof(owner);
  ASSERT_EQ(mallctl("arenas.lookup", &owner, &len, &block, sizeof(block)), 0);
  EXPECT_EQ(static_cast<int>(owner), index);
  void* plain = mallocx(1 << 20, 0);
  unsigned plain_owner = 0;
  ASSERT_EQ(mallctl("arenas.lookup", &plain_owner, &len, &plain, sizeof(plain)), 0);
  EXPECT_NE(static_cast<int>(plain_owner), index);
  dallocx(plain, 0);
  allocator->FreeBlock(block, 1 << 20);

  EXPECT_STREQ(MemtableAllocator::Malloc()->name(), "malloc");
  EXPECT_EQ(MemtableAllocator::Malloc()->jemalloc_arena_index(), -1);
}

TEST_F(MemtableAllocatorTest, AccountingIsExactOnBothPaths) {
  std::mt19937_64 rng(11);
  for (MemtableAllocator* allocator : {MemtableAllocator::Get(), MemtableAllocator::Malloc()}) {
    SCOPED_TRACE(allocator->name());
    const size_t before = allocator->allocated_bytes();
    std::vector<std::pair<void*, size_t>> blocks;
    size_t expected = 0;
    for (int i = 0; i < 200; i++) {
      const size_t size = 1 + rng() % (3 << 20);
      void* block = allocator->AllocateBlock(size);
      ASSERT_NE(block, nullptr);
      blocks.emplace_back(block, size);
      expected += size;
      ASSERT_EQ(allocator->allocated_bytes() - before, expected);
      if (i % 3 == 2) {  // free one of the live blocks now and then
        auto [b, s] = blocks[rng() % blocks.size()];
        std::erase(blocks, std::make_pair(b, s));
        allocator->FreeBlock(b, s);
        expected -= s;
        ASSERT_EQ(allocator->allocated_bytes() - before, expected);
      }
    }
    for (auto [b, s] : blocks) allocator->FreeBlock(b, s);
    EXPECT_EQ(allocator->allocated_bytes(), before);
  }
}

TEST_F(MemtableAllocatorTest, FreeingA64MiBMemtableReturnsItsPages) {
  MemtableAllocator* allocator = MemtableAllocator::Get();
  ASSERT_STREQ(allocator->name(), "jemalloc-arena");
  const int index = allocator->jemalloc_arena_index();
  const size_t page = PageSize();
  const size_t kMemtableBytes = size_t{64} << 20;
  const size_t active_before = ArenaStat(index, "pactive") * page;
  const size_t counted_before = allocator->allocated_bytes();

  MemTable* mem = FilledMemTable(cmp_, kMemtableBytes);
  const size_t usage = mem->ApproximateMemoryUsage();
  EXPECT_EQ(allocator->allocated_bytes() - counted_before, usage);
  const size_t active_full = ArenaStat(index, "pactive") * page;
  const size_t resident_full = ArenaStat(index, "resident");
  const size_t rss_full = ProcessRss();
  EXPECT_GE(active_full - active_before, kMemtableBytes);
  EXPECT_GE(resident_full, kMemtableBytes);

  mem->Unref();
  EXPECT_EQ(allocator->allocated_bytes(), counted_before);
  EXPECT_LE(ArenaStat(index, "pactive") * page, active_before);
  // Purged: nothing is left dirty or muzzy (freed but still mapped) in the arena...
  EXPECT_EQ(ArenaStat(index, "pdirty"), 0u);
  EXPECT_EQ(ArenaStat(index, "pmuzzy"), 0u);
  // ...so its resident memory, and the process's, fell by about the memtable's size.
  EXPECT_LE(ArenaStat(index, "resident") + kMemtableBytes - (4 << 20), resident_full);
  EXPECT_LE(ProcessRss() + kMemtableBytes - (16 << 20), rss_full);
}

TEST_F(MemtableAllocatorTest, HookForcesTheMallocFallback) {
  MemtableAllocator* jemalloc = MemtableAllocator::Get();
  const int index = jemalloc->jemalloc_arena_index();
  const size_t page = PageSize();
  const size_t jemalloc_counted = jemalloc->allocated_bytes();
  const size_t active_before = ArenaStat(index, "pactive") * page;

  MemtableAllocator::ForceMallocForTesting(true);
  MemtableAllocator* fallback = MemtableAllocator::Get();
  ASSERT_EQ(fallback, MemtableAllocator::Malloc());
  EXPECT_STREQ(fallback->name(), "malloc");
  const size_t malloc_counted = fallback->allocated_bytes();

  MemTable* mem = FilledMemTable(cmp_, size_t{8} << 20);
  EXPECT_EQ(fallback->allocated_bytes() - malloc_counted, mem->ApproximateMemoryUsage());
  EXPECT_EQ(jemalloc->allocated_bytes(), jemalloc_counted);
  EXPECT_LT(ArenaStat(index, "pactive") * page, active_before + (1 << 20))
      << "the dedicated arena was used despite the hook";

  // Turning the hook off does not move existing memtables: blocks go back where they came from.
  MemtableAllocator::ForceMallocForTesting(false);
  EXPECT_EQ(MemtableAllocator::Get(), jemalloc);
  mem->Unref();
  EXPECT_EQ(fallback->allocated_bytes(), malloc_counted);
  EXPECT_EQ(jemalloc->allocated_bytes(), jemalloc_counted);
}

}  // namespace
}  // namespace shale
