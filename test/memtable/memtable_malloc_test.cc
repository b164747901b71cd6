// A process without jemalloc (this binary does not link it), as when libshale is loaded with
// dlopen from Python: the allocator must find no jemalloc and fall back to malloc, with the
// same accounting.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_format.h"
#include "memtable/memtable.h"
#include "memtable/memtable_allocator.h"

namespace shale {
namespace {

TEST(MemtableMallocTest, FallsBackToMallocWithoutJemalloc) {
  ASSERT_EQ(dlsym(RTLD_DEFAULT, "mallocx"), nullptr) << "this test must run without jemalloc";
  MemtableAllocator* allocator = MemtableAllocator::Get();
  EXPECT_EQ(allocator, MemtableAllocator::Malloc());
  EXPECT_STREQ(allocator->name(), "malloc");
  EXPECT_EQ(allocator->jemalloc_arena_index(), -1);
}

TEST(MemtableMallocTest, MemtableWorksAndCountsExactly) {
  MemtableAllocator* allocator = MemtableAllocator::Get();
  const size_t before = allocator->allocated_bytes();
  InternalKeyComparator cmp(BytewiseComparator());
  auto* mem = new MemTable(cmp);
  mem->Ref();
  for (int i = 0; i < 20000; i++) {
    mem->Add(i + 1, kTypeValue, absl::StrFormat("key%08d", i), std::string(100, 'v'));
  }
  EXPECT_GE(mem->ApproximateMemoryUsage(), 20000u * 100);
  EXPECT_EQ(allocator->allocated_bytes() - before, mem->ApproximateMemoryUsage());
  std::string value;
  Status s;
  SequenceNumber seq = 0;
  ASSERT_TRUE(mem->Get(LookupKey("key00012345", kMaxSequenceNumber), &value, &s, &seq));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(seq, 12346u);
  mem->Unref();
  EXPECT_EQ(allocator->allocated_bytes(), before);
}

}  // namespace
}  // namespace shale
