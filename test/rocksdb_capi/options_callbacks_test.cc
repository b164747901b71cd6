// RocksDB's C API, options group: the setters that take C-callback objects
// (src/rocksdb_capi/options_callbacks.cc). The comparator and merge operator reach the options a
// DB opens with, and so do the prefix extractor and compaction filters; ownership is
// RocksDB's (the comparator and compaction filter are borrowed, the merge operator, prefix
// extractor and compaction filter factory pass to the options and die with their last copy).
// The objects themselves are the table group's (rocksdb_comparator_create,
// rocksdb_cuckoo_options_create, ...).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/comparator.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale::rocksdb_capi {
namespace {

// How many callback objects were destroyed (each test resets it).
int destroyed = 0;
void CountDestroy(void*) { destroyed++; }

int ReverseCompare(void*, const char* a, size_t alen, const char* b, size_t blen) {
  const int c = std::memcmp(a, b, alen < blen ? alen : blen);
  if (c != 0) return -c;
  return alen == blen ? 0 : (alen < blen ? 1 : -1);
}
const char* ReverseName(void*) { return "test.reverse"; }

char* ConcatFullMerge(void*, const char*, size_t, const char* existing, size_t existing_len,
                      const char* const* operands, const size_t* operand_lens, int n,
                      unsigned char* success, size_t* new_len) {
  std::string out(existing != nullptr ? std::string(existing, existing_len) : "");
  for (int i = 0; i < n; i++) out.append(operands[i], operand_lens[i]);
  *success = 1;
  *new_len = out.size();
  char* buf = static_cast<char*>(std::malloc(out.size() + 1));
  std::memcpy(buf, out.data(), out.size());
  return buf;
}
char* ConcatPartialMerge(void*, const char*, size_t, const char* const*, const size_t*, int,
                         unsigned char* success, size_t*) {
  *success = 0;
  return nullptr;
}
void FreeValue(void*, const char* value, size_t) { std::free(const_cast<char*>(value)); }
const char* ConcatName(void*) { return "test.concat"; }

unsigned char KeepAll(void*, int, const char*, size_t, const char*, size_t, char**, size_t*,
                      unsigned char*) {
  return 0;
}
const char* FilterName(void*) { return "test.filter"; }
rocksdb_compactionfilter_t* NoFilter(void*, rocksdb_compactionfiltercontext_t*) {
  return nullptr;
}

TEST(RocksdbCapiOptionsCallbacksTest, ComparatorIsBorrowedAndReachesTheOptions) {
  destroyed = 0;
  rocksdb_comparator_t* cmp =
      rocksdb_comparator_create(nullptr, CountDestroy, ReverseCompare, ReverseName);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_comparator(o, cmp);
  const Options mapped = ShaleOptionsFor(o);
  EXPECT_STREQ(mapped.comparator->Name(), "test.reverse");
  EXPECT_GT(mapped.comparator->Compare("a", "b"), 0);
  EXPECT_OK(CheckOptionsForOpen(o, "/db"));
  rocksdb_options_set_comparator(o, nullptr);  // back to the bytewise order
  EXPECT_EQ(ShaleOptionsFor(o).comparator, BytewiseComparator());
  rocksdb_options_destroy(o);
  EXPECT_EQ(destroyed, 0);  // borrowed
  rocksdb_comparator_destroy(cmp);
  EXPECT_EQ(destroyed, 1);
}

TEST(RocksdbCapiOptionsCallbacksTest, MergeOperatorPassesToTheOptions) {
  destroyed = 0;
  rocksdb_mergeoperator_t* op = rocksdb_mergeoperator_create(
      nullptr, CountDestroy, ConcatFullMerge, ConcatPartialMerge, FreeValue, ConcatName);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_merge_operator(o, op);
  ASSERT_NE(ShaleOptionsFor(o).merge_operator, nullptr);
  EXPECT_STREQ(ShaleOptionsFor(o).merge_operator->Name(), "test.concat");
  rocksdb_options_t* copy = rocksdb_options_create_copy(o);
  rocksdb_options_destroy(o);
  EXPECT_EQ(destroyed, 0);  // the copy still holds it
  rocksdb_options_destroy(copy);
  EXPECT_EQ(destroyed, 1);
}

TEST(RocksdbCapiOptionsCallbacksTest, PrefixExtractorPassesToTheOptions) {
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_slicetransform_t* fixed = rocksdb_slicetransform_create_fixed_prefix(3);
  rocksdb_options_set_prefix_extractor(o, fixed);
  EXPECT_OK(CheckOptionsForOpen(o, "/db"));  // the DB's iterators use it (prefix_iterator.h)
  EXPECT_EQ(o->prefix_extractor.get(), fixed);
  rocksdb_options_t* copy = rocksdb_options_create_copy(o);
  EXPECT_EQ(copy->prefix_extractor.get(), fixed);  // shared by the copies
  rocksdb_options_set_prefix_extractor(o, nullptr);
  EXPECT_EQ(o->prefix_extractor, nullptr);
  rocksdb_options_destroy(copy);  // the last holder destroys it (a leak shows under ASan)
  // Owned by the options: destroyed with them (a leak or double free shows under ASan).
  rocksdb_options_set_prefix_extractor(o, rocksdb_slicetransform_create_fixed_prefix(4));
  rocksdb_options_destroy(o);
}

TEST(RocksdbCapiOptionsCallbacksTest, CompactionFiltersReachTheOptions) {
  destroyed = 0;
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(nullptr, CountDestroy, KeepAll, FilterName);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_compaction_filter(o, filter);
  EXPECT_OK(CheckOptionsForOpen(o, "/db"));
  Options mapped = ShaleOptionsFor(o);
  ASSERT_NE(mapped.compaction_filter, nullptr);
  EXPECT_STREQ(mapped.compaction_filter->Name(), "test.filter");
  rocksdb_options_set_compaction_filter(o, nullptr);
  EXPECT_EQ(ShaleOptionsFor(o).compaction_filter, nullptr);
  rocksdb_options_set_compaction_filter(o, filter);
  rocksdb_options_destroy(o);
  EXPECT_EQ(destroyed, 0);  // borrowed
  rocksdb_compactionfilter_destroy(filter);
  EXPECT_EQ(destroyed, 1);

  rocksdb_compactionfilterfactory_t* factory =
      rocksdb_compactionfilterfactory_create(nullptr, CountDestroy, NoFilter, FilterName);
  o = rocksdb_options_create();
  rocksdb_options_set_compaction_filter_factory(o, factory);
  EXPECT_OK(CheckOptionsForOpen(o, "/db"));
  mapped = ShaleOptionsFor(o);
  ASSERT_NE(mapped.compaction_filter_factory, nullptr);
  EXPECT_STREQ(mapped.compaction_filter_factory->Name(), "test.filter");
  rocksdb_options_t* copy = rocksdb_options_create_copy(o);
  rocksdb_options_destroy(o);
  EXPECT_EQ(destroyed, 1);  // the copy and `mapped` still hold it
  rocksdb_options_destroy(copy);
  mapped = Options();
  EXPECT_EQ(destroyed, 2);  // owned by the options: gone with the last holder
}

TEST(RocksdbCapiOptionsCallbacksTest, CuckooTableFailsTheOpen) {
  rocksdb_cuckoo_table_options_t* cuckoo = rocksdb_cuckoo_options_create();
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_cuckoo_table_factory(o, cuckoo);
  rocksdb_cuckoo_options_destroy(cuckoo);  // the options keep nothing of it
  EXPECT_EQ(CheckOptionsForOpen(o, "/db").ToString(),
            "Invalid argument: table_factory is not supported by ShaleDB (set by "
            "rocksdb_options_set_cuckoo_table_factory)");
  rocksdb_options_destroy(o);
}

}  // namespace
}  // namespace shale::rocksdb_capi
