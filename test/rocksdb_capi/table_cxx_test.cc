// RocksDB's C API, "table" group, from the C++ side (src/rocksdb_capi/callbacks.h, handles.h,
// read_write_options.h), linked with the rocksdb_capi module and the engine:
// - a comparator and a merge operator made of C callbacks are ShaleDB's Comparator and
//   MergeOperator: called directly, and used by a real DB (order of keys, merges on read, on
//   flush and compaction); the client's destructor runs exactly once, when the last owner
//   (RocksDB's rule: the caller for a comparator, the options/DB for a merge operator) lets go;
//   results go back to delete_value (or free());
// - a filter policy given to table options lives as long as any copy of those options;
// - block-based options map onto TableOptions (what maps, what is a knob, what the open
//   refuses); a shared cache shows the DB's usage;
// - ReadOptionsFor / CompactRangeOptionsFor: defaults, copies of the bounds, and refusals of
//   what ShaleDB cannot honour;
// - slice transforms and compaction filters call their callbacks.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/callbacks.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/read_write_options.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/iterator.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::string TestDir(const char* name) {
  return testing::TempDir() + "/rocksdb_capi_table_" + name + "_" + std::to_string(::getpid());
}

// ------------------------------------------------------------------ A reverse comparator in C

struct ComparatorState {
  int destroyed = 0;
  int compares = 0;
};

void DestroyComparator(void* state) { ++static_cast<ComparatorState*>(state)->destroyed; }

// Bytewise order, reversed.
int ReverseCompare(void* state, const char* a, size_t alen, const char* b, size_t blen) {
  ++static_cast<ComparatorState*>(state)->compares;
  const std::string_view x = alen == 0 ? std::string_view() : std::string_view(a, alen);
  const std::string_view y = blen == 0 ? std::string_view() : std::string_view(b, blen);
  return y.compare(x);
}

const char* ReverseName(void*) { return "test.Reverse"; }

TEST(RocksdbCapiComparator, IsShaleComparatorOverTheCallbacks) {
  ComparatorState state;
  rocksdb_comparator_t* cmp =
      rocksdb_comparator_create(&state, DestroyComparator, ReverseCompare, ReverseName);
  ASSERT_NE(cmp, nullptr);
  const Comparator* c = cmp;
  EXPECT_GT(c->Compare("a", "b"), 0);
  EXPECT_LT(c->Compare("b", "a"), 0);
  EXPECT_EQ(c->Compare("", ""), 0);
  EXPECT_TRUE(c->Equal("k", "k"));
  EXPECT_STREQ(c->Name(), "test.Reverse");
  // No shortening: always correct, whatever the order.
  std::string start = "abcdef";
  c->FindShortestSeparator(&start, "a");
  EXPECT_EQ(start, "abcdef");
  std::string key = "zzz";
  c->FindShortSuccessor(&key);
  EXPECT_EQ(key, "zzz");
  EXPECT_GT(state.compares, 0);
  rocksdb_comparator_destroy(cmp);
  EXPECT_EQ(state.destroyed, 1);
}

TEST(RocksdbCapiComparator, OrdersADbAndOutlivesIt) {
  const std::string dir = TestDir("comparator");
  const test::ScopedDirRemoval remove_dir(dir);
  ComparatorState state;
  rocksdb_comparator_t* cmp =
      rocksdb_comparator_create(&state, DestroyComparator, ReverseCompare, ReverseName);
  {
    Options options;
    options.create_if_missing = true;
    options.comparator = cmp;  // what rocksdb_options_set_comparator does: borrowed
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));
    for (const char* k : {"b", "d", "a", "c"}) ASSERT_OK(db->Put(WriteOptions(), k, k));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Put(WriteOptions(), "e", "e"));
    std::string keys;
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) keys += std::string(it->key());
    ASSERT_OK(it->status());
    EXPECT_EQ(keys, "edcba");
    it.reset();
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ(state.destroyed, 0);  // the options only borrowed it
  rocksdb_comparator_destroy(cmp);
  EXPECT_EQ(state.destroyed, 1);
}

// ------------------------------------------------------------------ A merge operator in C

// Appends operands with ',' (no existing value: the operands alone); counts what it hands out
// and what comes back through delete_value. An operand "bad" makes the full merge fail.
struct MergeState {
  int destroyed = 0;
  int full_merges = 0;
  int partial_merges = 0;
  int results = 0;
  int deleted = 0;
};

char* Copy(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  std::memcpy(out, s.data(), s.size());
  return out;
}

char* AppendFullMerge(void* state, const char* /*key*/, size_t /*key_length*/,
                      const char* existing, size_t existing_length,
                      const char* const* operands, const size_t* lengths, int n,
                      unsigned char* success, size_t* new_length) {
  auto* s = static_cast<MergeState*>(state);
  ++s->full_merges;
  std::string out = existing == nullptr ? std::string() : std::string(existing, existing_length);
  for (int i = 0; i < n; ++i) {
    const std::string operand(operands[i], lengths[i]);
    if (operand == "bad") {
      *success = 0;
      *new_length = 0;
      return nullptr;
    }
    if (!out.empty()) out += ',';
    out += operand;
  }
  ++s->results;
  *success = 1;
  *new_length = out.size();
  return Copy(out);
}

char* AppendPartialMerge(void* state, const char* /*key*/, size_t /*key_length*/,
                         const char* const* operands, const size_t* lengths, int n,
                         unsigned char* success, size_t* new_length) {
  auto* s = static_cast<MergeState*>(state);
  ++s->partial_merges;
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out.append(operands[i], lengths[i]);
  }
  ++s->results;
  *success = 1;
  *new_length = out.size();
  return Copy(out);
}

void DeleteValue(void* state, const char* value, size_t /*length*/) {
  ++static_cast<MergeState*>(state)->deleted;
  std::free(const_cast<char*>(value));
}

void DestroyMerge(void* state) { ++static_cast<MergeState*>(state)->destroyed; }

const char* AppendName(void*) { return "test.Append"; }

std::string FullMerge(const MergeOperator& op, const std::string_view* existing,
                      const std::vector<std::string_view>& operands, bool* ok) {
  std::string value;
  std::string_view existing_operand;
  MergeOperator::MergeOperationInput in("key", existing, operands);
  MergeOperator::MergeOperationOutput out(value, existing_operand);
  *ok = op.FullMergeV2(in, &out);
  if (!*ok) {
    EXPECT_FALSE(out.error_message.empty());
  }
  return value;
}

TEST(RocksdbCapiMergeOperator, IsShaleMergeOperatorOverTheCallbacks) {
  MergeState state;
  rocksdb_mergeoperator_t* handle = rocksdb_mergeoperator_create(
      &state, DestroyMerge, AppendFullMerge, AppendPartialMerge, DeleteValue, AppendName);
  ASSERT_NE(handle, nullptr);
  const MergeOperator& op = *handle;
  EXPECT_STREQ(op.Name(), "test.Append");
  bool ok = false;
  const std::string_view base = "v";
  EXPECT_EQ(FullMerge(op, &base, {"a", "b"}, &ok), "v,a,b");
  EXPECT_TRUE(ok);
  EXPECT_EQ(FullMerge(op, nullptr, {"a"}, &ok), "a");
  EXPECT_TRUE(ok);
  FullMerge(op, &base, {"a", "bad"}, &ok);
  EXPECT_FALSE(ok);
  std::string partial;
  EXPECT_TRUE(op.PartialMerge("key", "x", "y", &partial));
  EXPECT_EQ(partial, "x,y");
  EXPECT_TRUE(op.PartialMergeMulti("key", {"x", "y", "z"}, &partial));
  EXPECT_EQ(partial, "x,y,z");
  EXPECT_EQ(state.full_merges, 3);
  EXPECT_EQ(state.partial_merges, 2);
  // Every buffer the callbacks returned went back through delete_value.
  EXPECT_EQ(state.deleted, state.results);
  EXPECT_EQ(state.destroyed, 0);
  rocksdb_mergeoperator_destroy(handle);
  EXPECT_EQ(state.destroyed, 1);
}

TEST(RocksdbCapiMergeOperator, WithoutPartialMergeOperandsAreKept) {
  MergeState state;
  // No partial_merge, no delete_value: results are released with free() (ASan checks).
  rocksdb_mergeoperator_t* handle = rocksdb_mergeoperator_create(
      &state, DestroyMerge, AppendFullMerge, nullptr, nullptr, AppendName);
  std::string partial;
  EXPECT_FALSE(handle->PartialMerge("key", "x", "y", &partial));
  EXPECT_FALSE(handle->PartialMergeMulti("key", {"x", "y"}, &partial));
  bool ok = false;
  EXPECT_EQ(FullMerge(*handle, nullptr, {"a", "b"}, &ok), "a,b");
  EXPECT_TRUE(ok);
  EXPECT_EQ(state.deleted, 0);
  rocksdb_mergeoperator_destroy(handle);
  EXPECT_EQ(state.destroyed, 1);
}

TEST(RocksdbCapiMergeOperator, MergesInADbAndDiesWithItsLastOwner) {
  const std::string dir = TestDir("merge");
  const test::ScopedDirRemoval remove_dir(dir);
  MergeState state;
  {
    Options options;
    options.create_if_missing = true;
    // What rocksdb_options_set_merge_operator does: the options take the operator.
    options.merge_operator = std::shared_ptr<MergeOperator>(rocksdb_mergeoperator_create(
        &state, DestroyMerge, AppendFullMerge, AppendPartialMerge, DeleteValue, AppendName));
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));
    ASSERT_OK(db->Put(WriteOptions(), "k", "v"));
    ASSERT_OK(db->Merge(WriteOptions(), "k", "a"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Merge(WriteOptions(), "k", "b"));
    ASSERT_OK(db->Merge(WriteOptions(), "n", "x"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Merge(WriteOptions(), "n", "y"));
    ASSERT_OK(db->Merge(WriteOptions(), "n", "z"));
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), "k", &value));
    EXPECT_EQ(value, "v,a,b");
    ASSERT_OK(db->Get(ReadOptions(), "n", &value));
    EXPECT_EQ(value, "x,y,z");
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    ASSERT_OK(db->Get(ReadOptions(), "k", &value));
    EXPECT_EQ(value, "v,a,b");
    ASSERT_OK(db->Get(ReadOptions(), "n", &value));
    EXPECT_EQ(value, "x,y,z");
    // A failing merge is an error on read, never a silent drop.
    ASSERT_OK(db->Merge(WriteOptions(), "k", "bad"));
    const Status s = db->Get(ReadOptions(), "k", &value);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("full_merge callback reported failure"), std::string::npos)
        << s.ToString();
    ASSERT_OK(db->Close());
    db.reset();
    EXPECT_EQ(state.destroyed, 0);  // the options still hold it
  }
  EXPECT_EQ(state.destroyed, 1);
  EXPECT_EQ(state.deleted, state.results);
  EXPECT_GT(state.full_merges, 0);
}

// ------------------------------------------------------------------ Filter policies, caches

TEST(RocksdbCapiTableOptions, FilterPolicyLivesAsLongAsACopyOfTheOptions) {
  rocksdb_block_based_table_options_t* t = rocksdb_block_based_options_create();
  rocksdb_filterpolicy_t* policy = rocksdb_filterpolicy_create_ribbon(10);
  ASSERT_NE(policy->rep, nullptr);
  // A ribbon request is a bloom filter of the same bits per key (same false-positive rate).
  EXPECT_DOUBLE_EQ(policy->rep->bits_per_key(), 10);
  std::weak_ptr<const FilterPolicy> weak = policy->rep;
  rocksdb_block_based_options_set_filter_policy(t, policy);
  ASSERT_NE(t->rep.filter_policy, nullptr);
  EXPECT_EQ(t->rep.filter_policy.get(), weak.lock().get());
  Options options;
  options.table_options = t->rep;  // what rocksdb_options_set_block_based_table_factory does
  rocksdb_block_based_options_destroy(t);
  EXPECT_FALSE(weak.expired());
  options.table_options.filter_policy.reset();
  EXPECT_TRUE(weak.expired());

  // Below 0.5 bits per key RocksDB builds no filter.
  rocksdb_filterpolicy_t* none = rocksdb_filterpolicy_create_bloom(0.4);
  EXPECT_EQ(none->rep, nullptr);
  rocksdb_filterpolicy_destroy(none);
}

TEST(RocksdbCapiTableOptions, MapsKnobsAndPassesInvalidValuesToTheOpen) {
  rocksdb_block_based_table_options_t* t = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_index_type(t, 1);  // kHashSearch: binary search here
  EXPECT_EQ(t->rep.index_type, TableOptions::kBinarySearch);
  EXPECT_EQ(t->accepted_knobs.at("index_type"), "kHashSearch");
  rocksdb_block_based_options_set_index_type(t, 2);
  EXPECT_EQ(t->rep.index_type, TableOptions::kTwoLevelIndexSearch);
  EXPECT_EQ(t->accepted_knobs.count("index_type"), 0u);
  rocksdb_block_based_options_set_whole_key_filtering(t, 0);
  EXPECT_TRUE(t->rep.whole_key_filtering);
  EXPECT_EQ(t->accepted_knobs.at("whole_key_filtering"), "false");
  rocksdb_block_based_options_set_format_version(t, 5);  // RocksDB's default: no knob
  EXPECT_EQ(t->accepted_knobs.count("format_version"), 0u);
  rocksdb_block_based_options_set_format_version(t, 3);
  EXPECT_EQ(t->accepted_knobs.at("format_version"), "3");
  EXPECT_EQ(t->rep.format_version, 1u);
  rocksdb_block_based_options_set_checksum(t, 1);
  EXPECT_EQ(t->accepted_knobs.at("checksum"), "1");
  rocksdb_block_based_options_set_block_size(t, 8192);
  EXPECT_EQ(t->rep.block_size, 8192u);

  // no_block_cache drops a block cache, in either order (RocksDB's rule).
  rocksdb_cache_t* cache = rocksdb_cache_create_lru(1 << 20);
  rocksdb_block_based_options_set_block_cache(t, cache);
  EXPECT_EQ(t->rep.block_cache, cache->rep);
  rocksdb_block_based_options_set_no_block_cache(t, 1);
  EXPECT_EQ(t->rep.block_cache, nullptr);
  rocksdb_block_based_options_set_no_block_cache(t, 0);
  EXPECT_EQ(t->rep.block_cache, cache->rep);
  rocksdb_cache_destroy(cache);

  // An index type RocksDB does not define reaches the open, which names it.
  const std::string dir = TestDir("bad_index");
  const test::ScopedDirRemoval remove_dir(dir);
  rocksdb_block_based_options_set_index_type(t, 9);
  Options options;
  options.create_if_missing = true;
  options.table_options = t->rep;
  std::unique_ptr<DB> db;
  const Status s = DB::Open(options, dir, &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("block_based_table_factory.index_type"), std::string::npos)
      << s.ToString();
  rocksdb_block_based_options_destroy(t);
}

TEST(RocksdbCapiCache, SharedCacheShowsTheDbsUsage) {
  const std::string dir = TestDir("cache");
  const test::ScopedDirRemoval remove_dir(dir);
  rocksdb_cache_t* cache = rocksdb_cache_create_lru(8 << 20);
  rocksdb_block_based_table_options_t* t = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_block_cache(t, cache);
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(10));
  Options options;
  options.create_if_missing = true;
  options.table_options = t->rep;
  rocksdb_block_based_options_destroy(t);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir, &db));
  for (int i = 0; i < 1000; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i), std::string(100, 'v')));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "key7", &value));
  // The open table's reader memory is charged as pinned usage (charge_table_reader_memory):
  // blocks are what the cache holds beyond it.
  uint64_t charged = 0;
  ASSERT_TRUE(db->GetIntProperty("shale.table-readers-mem-charged", &charged));
  EXPECT_EQ(rocksdb_cache_get_pinned_usage(cache), charged);
  EXPECT_GT(rocksdb_cache_get_usage(cache), charged);
  {
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    EXPECT_GT(rocksdb_cache_get_pinned_usage(cache), charged);  // the iterator holds its block
  }
  ASSERT_OK(db->Close());
  db.reset();
  rocksdb_cache_destroy(cache);
}

// ------------------------------------------------------------------ ReadOptionsFor & co.

TEST(RocksdbCapiReadOptionsFor, DefaultsSnapshotAndCopiedBounds) {
  ReadOptions out;
  rocksdb_capi::ReadBounds none;
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(nullptr, &none, &out));
  EXPECT_EQ(out.snapshot, nullptr);
  EXPECT_EQ(out.iterate_lower_bound, nullptr);
  EXPECT_EQ(out.iterate_upper_bound, nullptr);
  EXPECT_TRUE(out.verify_checksums);
  EXPECT_TRUE(out.fill_cache);

  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_readoptions_set_verify_checksums(ro, 0);
  rocksdb_readoptions_set_fill_cache(ro, 0);
  std::string lower = "b";
  rocksdb_readoptions_set_iterate_lower_bound(ro, lower.data(), lower.size());
  rocksdb_readoptions_set_iterate_upper_bound(ro, "d\0x", 3);
  lower = "zzz";  // the handle copied the caller's bytes
  rocksdb_capi::ReadBounds bounds;
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, &bounds, &out));
  EXPECT_FALSE(out.verify_checksums);
  EXPECT_FALSE(out.fill_cache);
  ASSERT_NE(out.iterate_lower_bound, nullptr);
  ASSERT_NE(out.iterate_upper_bound, nullptr);
  EXPECT_EQ(*out.iterate_lower_bound, "b");
  EXPECT_EQ(*out.iterate_upper_bound, std::string_view("d\0x", 3));
  // The iterator's copies do not change with the handle.
  rocksdb_readoptions_set_iterate_upper_bound(ro, nullptr, 0);
  EXPECT_EQ(*out.iterate_upper_bound, std::string_view("d\0x", 3));
  ReadOptions point;
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, nullptr, &point));
  EXPECT_EQ(point.iterate_lower_bound, nullptr);  // point reads take no bounds

  // The bounds work on a real DB's iterator; the snapshot is the DB's.
  const std::string dir = TestDir("bounds");
  const test::ScopedDirRemoval remove_dir(dir);
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir, &db));
  for (const char* k : {"a", "b", "c", "d", "e"}) ASSERT_OK(db->Put(WriteOptions(), k, k));
  rocksdb_snapshot_t snapshot;
  snapshot.rep = db->GetSnapshot();
  ASSERT_OK(db->Put(WriteOptions(), "c", "new"));
  rocksdb_readoptions_set_snapshot(ro, &snapshot);
  rocksdb_readoptions_set_iterate_upper_bound(ro, "d", 1);
  std::string seen;
  {
    rocksdb_capi::ReadBounds iterator_bounds;
    ReadOptions iterator_options;
    ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, &iterator_bounds, &iterator_options));
    EXPECT_EQ(iterator_options.snapshot, snapshot.rep);
    std::unique_ptr<Iterator> it = db->NewIterator(iterator_options);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen += std::string(it->key()) + "=" + std::string(it->value()) + ";";
    }
    ASSERT_OK(it->status());
  }
  EXPECT_EQ(seen, "b=b;c=c;");
  rocksdb_readoptions_set_snapshot(ro, nullptr);
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, nullptr, &point));
  EXPECT_EQ(point.snapshot, nullptr);
  db->ReleaseSnapshot(snapshot.rep);
  ASSERT_OK(db->Close());
  rocksdb_readoptions_destroy(ro);
}

void ExpectRefused(rocksdb_readoptions_t* ro, bool for_iterator, const char* setter) {
  ReadOptions out;
  rocksdb_capi::ReadBounds bounds;
  const Status s = rocksdb_capi::ReadOptionsFor(ro, for_iterator ? &bounds : nullptr, &out);
  EXPECT_TRUE(s.IsNotSupported()) << setter << ": " << s.ToString();
  EXPECT_NE(s.ToString().find(std::string("Not supported by ShaleDB: ") + setter),
            std::string::npos)
      << s.ToString();
}

TEST(RocksdbCapiReadOptionsFor, RefusesWhatWouldChangeResults) {
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  ReadOptions out;
  rocksdb_capi::ReadBounds bounds;
  for (int tier : {1, 2, 3}) {
    rocksdb_readoptions_set_read_tier(ro, tier);
    ExpectRefused(ro, false, "rocksdb_readoptions_set_read_tier");
  }
  rocksdb_readoptions_set_read_tier(ro, 0);
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, &bounds, &out));

  rocksdb_readoptions_set_ignore_range_deletions(ro, 1);
  ExpectRefused(ro, true, "rocksdb_readoptions_set_ignore_range_deletions");
  rocksdb_readoptions_set_ignore_range_deletions(ro, 0);

  rocksdb_readoptions_set_timestamp(ro, "12345678", 8);
  ExpectRefused(ro, false, "rocksdb_readoptions_set_timestamp");
  rocksdb_readoptions_set_timestamp(ro, nullptr, 0);
  rocksdb_readoptions_set_iter_start_ts(ro, "12345678", 8);
  ExpectRefused(ro, true, "rocksdb_readoptions_set_iter_start_ts");
  rocksdb_readoptions_set_iter_start_ts(ro, nullptr, 0);

  // A tailing iterator would see later writes: refused for iterators, meaningless for a Get.
  rocksdb_readoptions_set_tailing(ro, 1);
  ExpectRefused(ro, true, "rocksdb_readoptions_set_tailing");
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, nullptr, &out));
  rocksdb_readoptions_set_tailing(ro, 0);

  // Knobs that cannot change a result are accepted and recorded. The prefix seek settings are
  // fields of their own, for iterator creation (prefix_iterator.h).
  rocksdb_readoptions_set_total_order_seek(ro, 1);
  rocksdb_readoptions_set_prefix_same_as_start(ro, 1);
  rocksdb_readoptions_set_readahead_size(ro, 1 << 20);
  rocksdb_readoptions_set_deadline(ro, 5);
  ASSERT_OK(rocksdb_capi::ReadOptionsFor(ro, &bounds, &out));
  EXPECT_TRUE(ro->total_order_seek);
  EXPECT_TRUE(ro->prefix_same_as_start);
  EXPECT_EQ(ro->accepted_knobs.count("total_order_seek"), 0u);
  EXPECT_EQ(ro->accepted_knobs.at("readahead_size"), "1048576");
  EXPECT_EQ(ro->accepted_knobs.at("deadline"), "5");
  rocksdb_readoptions_destroy(ro);
}

TEST(RocksdbCapiCompactOptionsFor, DefaultsMappingAndRefusals) {
  CompactRangeOptions out;
  ASSERT_OK(rocksdb_capi::CompactRangeOptionsFor(nullptr, &out));
  EXPECT_FALSE(out.exclusive_manual_compaction);  // RocksDB's default
  EXPECT_EQ(out.bottommost_level_compaction, BottommostLevelCompaction::kIfHaveCompactionFilter);

  rocksdb_compactoptions_t* co = rocksdb_compactoptions_create();
  ASSERT_OK(rocksdb_capi::CompactRangeOptionsFor(co, &out));
  EXPECT_FALSE(out.exclusive_manual_compaction);
  const BottommostLevelCompaction expected[] = {
      BottommostLevelCompaction::kSkip, BottommostLevelCompaction::kIfHaveCompactionFilter,
      BottommostLevelCompaction::kForce, BottommostLevelCompaction::kForceOptimized};
  for (unsigned char v = 0; v < 4; ++v) {
    rocksdb_compactoptions_set_bottommost_level_compaction(co, v);
    ASSERT_OK(rocksdb_capi::CompactRangeOptionsFor(co, &out));
    EXPECT_EQ(out.bottommost_level_compaction, expected[v]);
  }
  rocksdb_compactoptions_set_change_level(co, 1);
  rocksdb_compactoptions_set_target_level(co, 2);
  rocksdb_compactoptions_set_exclusive_manual_compaction(co, 1);
  ASSERT_OK(rocksdb_capi::CompactRangeOptionsFor(co, &out));
  EXPECT_TRUE(out.change_level);
  EXPECT_EQ(out.target_level, 2);
  EXPECT_TRUE(out.exclusive_manual_compaction);

  rocksdb_compactoptions_set_bottommost_level_compaction(co, 7);
  EXPECT_EQ(rocksdb_compactoptions_get_bottommost_level_compaction(co), 7);
  Status s = rocksdb_capi::CompactRangeOptionsFor(co, &out);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("bottommost_level_compaction"), std::string::npos);
  rocksdb_compactoptions_set_bottommost_level_compaction(co, 2);

  char ts[8] = {0};
  rocksdb_compactoptions_set_full_history_ts_low(co, ts, sizeof(ts));
  s = rocksdb_capi::CompactRangeOptionsFor(co, &out);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("rocksdb_compactoptions_set_full_history_ts_low"),
            std::string::npos);
  rocksdb_compactoptions_destroy(co);
}

TEST(RocksdbCapiOtherOptionsFor, WriteFlushIngest) {
  EXPECT_FALSE(rocksdb_capi::WriteOptionsFor(nullptr).sync);
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_writeoptions_set_sync(wo, 1);
  rocksdb_writeoptions_disable_WAL(wo, 1);
  EXPECT_TRUE(rocksdb_capi::WriteOptionsFor(wo).sync);
  EXPECT_TRUE(rocksdb_capi::WriteOptionsFor(wo).disableWAL);
  rocksdb_writeoptions_destroy(wo);

  EXPECT_TRUE(rocksdb_capi::FlushOptionsFor(nullptr).wait);
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flushoptions_set_wait(fo, 0);
  EXPECT_FALSE(rocksdb_capi::FlushOptionsFor(fo).wait);
  rocksdb_flushoptions_destroy(fo);

  const IngestExternalFileOptions defaults = rocksdb_capi::IngestOptionsFor(nullptr);
  EXPECT_FALSE(defaults.move_files);
  EXPECT_TRUE(defaults.snapshot_consistency);
  EXPECT_TRUE(defaults.allow_global_seqno);
  EXPECT_TRUE(defaults.allow_blocking_flush);
  EXPECT_FALSE(defaults.ingest_behind);
  rocksdb_ingestexternalfileoptions_t* io = rocksdb_ingestexternalfileoptions_create();
  rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
  rocksdb_ingestexternalfileoptions_set_snapshot_consistency(io, 0);
  rocksdb_ingestexternalfileoptions_set_allow_global_seqno(io, 0);
  rocksdb_ingestexternalfileoptions_set_allow_blocking_flush(io, 0);
  rocksdb_ingestexternalfileoptions_set_ingest_behind(io, 1);
  const IngestExternalFileOptions set = rocksdb_capi::IngestOptionsFor(io);
  EXPECT_TRUE(set.move_files);
  EXPECT_FALSE(set.snapshot_consistency);
  EXPECT_FALSE(set.allow_global_seqno);
  EXPECT_FALSE(set.allow_blocking_flush);
  EXPECT_TRUE(set.ingest_behind);
  rocksdb_ingestexternalfileoptions_destroy(io);
}

// ------------------------------------------------------------------ Slice transforms, filters

TEST(RocksdbCapiSliceTransform, BuiltIns) {
  rocksdb_slicetransform_t* fixed = rocksdb_slicetransform_create_fixed_prefix(3);
  EXPECT_STREQ(fixed->Name(), "rocksdb.FixedPrefix.3");
  EXPECT_EQ(fixed->Transform("abcdef"), "abc");
  EXPECT_TRUE(fixed->InDomain("abc"));
  EXPECT_FALSE(fixed->InDomain("ab"));
  EXPECT_TRUE(fixed->InRange("xyz"));
  EXPECT_FALSE(fixed->InRange("xy"));
  rocksdb_slicetransform_destroy(fixed);
  rocksdb_slicetransform_t* noop = rocksdb_slicetransform_create_noop();
  EXPECT_STREQ(noop->Name(), "rocksdb.Noop");
  EXPECT_EQ(noop->Transform("abcdef"), "abcdef");
  EXPECT_TRUE(noop->InDomain(""));
  EXPECT_TRUE(noop->InRange("x"));
  rocksdb_slicetransform_destroy(noop);
}

struct FilterState {
  int destroyed = 0;
  int created = 0;
  bool saw_manual = false;
  std::string replacement = "changed";
};

void DestroyFilterState(void* state) { ++static_cast<FilterState*>(state)->destroyed; }

// Drops keys starting with "drop"; changes the value of keys starting with "change".
unsigned char TestFilter(void* state, int /*level*/, const char* key, size_t key_length,
                         const char* /*value*/, size_t /*value_length*/, char** new_value,
                         size_t* new_value_length, unsigned char* value_changed) {
  const std::string_view k(key, key_length);
  if (k.substr(0, 6) == "change") {
    auto* s = static_cast<FilterState*>(state);
    *new_value = s->replacement.data();
    *new_value_length = s->replacement.size();
    *value_changed = 1;
  }
  return k.substr(0, 4) == "drop" ? 1 : 0;
}

const char* FilterName(void*) { return "test.Filter"; }

rocksdb_compactionfilter_t* CreateFilter(void* state, rocksdb_compactionfiltercontext_t* context) {
  auto* s = static_cast<FilterState*>(state);
  ++s->created;
  s->saw_manual = rocksdb_compactionfiltercontext_is_manual_compaction(context) != 0;
  return rocksdb_compactionfilter_create(state, nullptr, TestFilter, FilterName);
}

TEST(RocksdbCapiCompactionFilter, CallsTheCallbacks) {
  FilterState state;
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(&state, DestroyFilterState, TestFilter, FilterName);
  EXPECT_TRUE(filter->ignore_snapshots);
  EXPECT_STREQ(filter->Name(), "test.Filter");
  std::string new_value;
  bool changed = false;
  EXPECT_TRUE(filter->Filter(1, "drop1", "v", &new_value, &changed));
  EXPECT_FALSE(changed);
  EXPECT_FALSE(filter->Filter(1, "change1", "v", &new_value, &changed));
  EXPECT_TRUE(changed);
  EXPECT_EQ(new_value, "changed");
  rocksdb_compactionfilter_destroy(filter);
  EXPECT_EQ(state.destroyed, 1);

  FilterState factory_state;
  rocksdb_compactionfilterfactory_t* factory = rocksdb_compactionfilterfactory_create(
      &factory_state, DestroyFilterState, CreateFilter, FilterName);
  rocksdb_compactionfiltercontext_t context;
  context.is_manual_compaction = true;
  EXPECT_EQ(rocksdb_compactionfiltercontext_is_full_compaction(&context), 0);
  std::unique_ptr<rocksdb_compactionfilter_t> made = factory->CreateCompactionFilter(context);
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(factory_state.created, 1);
  EXPECT_TRUE(factory_state.saw_manual);
  made.reset();  // the engine owns what the factory makes
  EXPECT_EQ(factory_state.destroyed, 0);
  rocksdb_compactionfilterfactory_destroy(factory);
  EXPECT_EQ(factory_state.destroyed, 1);
}

}  // namespace
}  // namespace shale
