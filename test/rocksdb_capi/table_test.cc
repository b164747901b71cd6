// RocksDB's C API, "table" group (src/rocksdb_capi: table_options.cc, cache.cc, callbacks.cc,
// read_write_options.cc), called the way a binding calls it: through Debian's rocksdb/c.h,
// linked with lib/shale-rocksdb/librocksdb.so and nothing else.
// - read, write, flush, compact and ingest options start with RocksDB 7.8's defaults and their
//   getters return what the setters set (including the knobs ShaleDB accepts without effect);
// - caches report and change their capacity; bad LRU options give no cache;
// - objects made of C callbacks call the client's destructor exactly once, at destroy, and
//   refuse to be made without their required callbacks;
// - table options take ownership of a filter policy and share a cache (ASan proves no leak and
//   no double free);
// - what ShaleDB does not have gives NULL (timestamped comparators).
// The C++ side of these objects and their use by a real DB: table_cxx_test.cc.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/c.h"

namespace {

// ------------------------------------------------------------------ Read, write, ... options

TEST(RocksdbCapiReadOptions, DefaultsAreRocksDbs) {
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(rocksdb_readoptions_get_verify_checksums(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_fill_cache(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_read_tier(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_tailing(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_readahead_size(ro), 0u);
  EXPECT_EQ(rocksdb_readoptions_get_prefix_same_as_start(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_pin_data(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_total_order_seek(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_max_skippable_internal_keys(ro), 0u);
  EXPECT_EQ(rocksdb_readoptions_get_background_purge_on_iterator_cleanup(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_ignore_range_deletions(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_deadline(ro), 0u);
  EXPECT_EQ(rocksdb_readoptions_get_io_timeout(ro), 0u);
  rocksdb_readoptions_destroy(ro);
}

TEST(RocksdbCapiReadOptions, GettersReturnWhatWasSet) {
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_readoptions_set_verify_checksums(ro, 0);
  rocksdb_readoptions_set_fill_cache(ro, 0);
  rocksdb_readoptions_set_read_tier(ro, 1);
  rocksdb_readoptions_set_tailing(ro, 1);
  rocksdb_readoptions_set_readahead_size(ro, 2u << 20);
  rocksdb_readoptions_set_prefix_same_as_start(ro, 1);
  rocksdb_readoptions_set_pin_data(ro, 1);
  rocksdb_readoptions_set_total_order_seek(ro, 1);
  rocksdb_readoptions_set_max_skippable_internal_keys(ro, UINT64_MAX);
  rocksdb_readoptions_set_background_purge_on_iterator_cleanup(ro, 1);
  rocksdb_readoptions_set_ignore_range_deletions(ro, 1);
  rocksdb_readoptions_set_deadline(ro, 123456789);
  rocksdb_readoptions_set_io_timeout(ro, 987);
  rocksdb_readoptions_set_managed(ro, 1);
  EXPECT_EQ(rocksdb_readoptions_get_verify_checksums(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_fill_cache(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_read_tier(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_tailing(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_readahead_size(ro), 2u << 20);
  EXPECT_EQ(rocksdb_readoptions_get_prefix_same_as_start(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_pin_data(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_total_order_seek(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_max_skippable_internal_keys(ro), UINT64_MAX);
  EXPECT_EQ(rocksdb_readoptions_get_background_purge_on_iterator_cleanup(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_ignore_range_deletions(ro), 1);
  EXPECT_EQ(rocksdb_readoptions_get_deadline(ro), 123456789u);
  EXPECT_EQ(rocksdb_readoptions_get_io_timeout(ro), 987u);
  // And back to the defaults.
  rocksdb_readoptions_set_readahead_size(ro, 0);
  rocksdb_readoptions_set_pin_data(ro, 0);
  rocksdb_readoptions_set_read_tier(ro, 0);
  EXPECT_EQ(rocksdb_readoptions_get_readahead_size(ro), 0u);
  EXPECT_EQ(rocksdb_readoptions_get_pin_data(ro), 0);
  EXPECT_EQ(rocksdb_readoptions_get_read_tier(ro), 0);
  rocksdb_readoptions_destroy(ro);
}

TEST(RocksdbCapiReadOptions, NullArgumentsRocksDbAllows) {
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_readoptions_set_snapshot(ro, nullptr);
  rocksdb_readoptions_set_iterate_lower_bound(ro, "a", 1);
  rocksdb_readoptions_set_iterate_upper_bound(ro, "z", 1);
  rocksdb_readoptions_set_iterate_lower_bound(ro, nullptr, 0);
  rocksdb_readoptions_set_iterate_upper_bound(ro, nullptr, 0);
  rocksdb_readoptions_set_timestamp(ro, nullptr, 0);
  rocksdb_readoptions_set_iter_start_ts(ro, nullptr, 0);
  rocksdb_readoptions_destroy(ro);
  rocksdb_readoptions_destroy(nullptr);
  rocksdb_writeoptions_destroy(nullptr);
  rocksdb_flushoptions_destroy(nullptr);
  rocksdb_compactoptions_destroy(nullptr);
  rocksdb_ingestexternalfileoptions_destroy(nullptr);
}

TEST(RocksdbCapiWriteOptions, DefaultsAndRoundTrips) {
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  EXPECT_EQ(rocksdb_writeoptions_get_sync(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_disable_WAL(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_ignore_missing_column_families(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_no_slowdown(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_low_pri(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_memtable_insert_hint_per_batch(wo), 0);
  rocksdb_writeoptions_set_sync(wo, 1);
  rocksdb_writeoptions_disable_WAL(wo, 5);  // any non-zero int disables
  rocksdb_writeoptions_set_ignore_missing_column_families(wo, 1);
  rocksdb_writeoptions_set_no_slowdown(wo, 1);
  rocksdb_writeoptions_set_low_pri(wo, 1);
  rocksdb_writeoptions_set_memtable_insert_hint_per_batch(wo, 1);
  EXPECT_EQ(rocksdb_writeoptions_get_sync(wo), 1);
  EXPECT_EQ(rocksdb_writeoptions_get_disable_WAL(wo), 1);
  EXPECT_EQ(rocksdb_writeoptions_get_ignore_missing_column_families(wo), 1);
  EXPECT_EQ(rocksdb_writeoptions_get_no_slowdown(wo), 1);
  EXPECT_EQ(rocksdb_writeoptions_get_low_pri(wo), 1);
  EXPECT_EQ(rocksdb_writeoptions_get_memtable_insert_hint_per_batch(wo), 1);
  rocksdb_writeoptions_disable_WAL(wo, 0);
  rocksdb_writeoptions_set_no_slowdown(wo, 0);
  EXPECT_EQ(rocksdb_writeoptions_get_disable_WAL(wo), 0);
  EXPECT_EQ(rocksdb_writeoptions_get_no_slowdown(wo), 0);
  rocksdb_writeoptions_destroy(wo);
}

TEST(RocksdbCapiFlushOptions, WaitDefaultsToTrue) {
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  EXPECT_EQ(rocksdb_flushoptions_get_wait(fo), 1);
  rocksdb_flushoptions_set_wait(fo, 0);
  EXPECT_EQ(rocksdb_flushoptions_get_wait(fo), 0);
  rocksdb_flushoptions_destroy(fo);
}

TEST(RocksdbCapiCompactOptions, DefaultsAreRocksDbsAndRoundTrip) {
  rocksdb_compactoptions_t* co = rocksdb_compactoptions_create();
  // RocksDB 7.8: exclusive_manual_compaction false, kIfHaveCompactionFilter, no level change.
  EXPECT_EQ(rocksdb_compactoptions_get_exclusive_manual_compaction(co), 0);
  EXPECT_EQ(rocksdb_compactoptions_get_bottommost_level_compaction(co), 1);
  EXPECT_EQ(rocksdb_compactoptions_get_change_level(co), 0);
  EXPECT_EQ(rocksdb_compactoptions_get_target_level(co), -1);
  rocksdb_compactoptions_set_exclusive_manual_compaction(co, 1);
  rocksdb_compactoptions_set_bottommost_level_compaction(co, 2);
  rocksdb_compactoptions_set_change_level(co, 1);
  rocksdb_compactoptions_set_target_level(co, 3);
  EXPECT_EQ(rocksdb_compactoptions_get_exclusive_manual_compaction(co), 1);
  EXPECT_EQ(rocksdb_compactoptions_get_bottommost_level_compaction(co), 2);
  EXPECT_EQ(rocksdb_compactoptions_get_change_level(co), 1);
  EXPECT_EQ(rocksdb_compactoptions_get_target_level(co), 3);
  char ts[8] = {0};
  rocksdb_compactoptions_set_full_history_ts_low(co, ts, sizeof(ts));
  rocksdb_compactoptions_set_full_history_ts_low(co, nullptr, 0);
  rocksdb_compactoptions_destroy(co);
}

TEST(RocksdbCapiIngestOptions, SettersAndDestroy) {
  rocksdb_ingestexternalfileoptions_t* io = rocksdb_ingestexternalfileoptions_create();
  ASSERT_NE(io, nullptr);
  rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
  rocksdb_ingestexternalfileoptions_set_snapshot_consistency(io, 0);
  rocksdb_ingestexternalfileoptions_set_allow_global_seqno(io, 0);
  rocksdb_ingestexternalfileoptions_set_allow_blocking_flush(io, 0);
  rocksdb_ingestexternalfileoptions_set_ingest_behind(io, 1);
  rocksdb_ingestexternalfileoptions_destroy(io);
}

// ------------------------------------------------------------------ Caches

TEST(RocksdbCapiCache, CapacityUsageAndPinnedUsage) {
  rocksdb_cache_t* cache = rocksdb_cache_create_lru(1 << 20);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(rocksdb_cache_get_capacity(cache), size_t{1} << 20);
  EXPECT_EQ(rocksdb_cache_get_usage(cache), 0u);
  EXPECT_EQ(rocksdb_cache_get_pinned_usage(cache), 0u);
  rocksdb_cache_set_capacity(cache, 3 << 20);
  EXPECT_EQ(rocksdb_cache_get_capacity(cache), size_t{3} << 20);
  rocksdb_cache_disown_data(cache);
  rocksdb_cache_destroy(cache);

  rocksdb_cache_t* strict = rocksdb_cache_create_lru_with_strict_capacity_limit(4096);
  ASSERT_NE(strict, nullptr);
  EXPECT_EQ(rocksdb_cache_get_capacity(strict), 4096u);
  rocksdb_cache_destroy(strict);
}

TEST(RocksdbCapiCache, LruOptions) {
  rocksdb_lru_cache_options_t* opts = rocksdb_lru_cache_options_create();
  rocksdb_lru_cache_options_set_capacity(opts, 5 << 20);
  rocksdb_lru_cache_options_set_num_shard_bits(opts, 2);
  rocksdb_lru_cache_options_set_memory_allocator(opts, nullptr);
  rocksdb_cache_t* cache = rocksdb_cache_create_lru_opts(opts);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(rocksdb_cache_get_capacity(cache), size_t{5} << 20);
  rocksdb_cache_destroy(cache);
  // RocksDB's NewLRUCache gives no cache for 20 or more shard bits: neither do we.
  rocksdb_lru_cache_options_set_num_shard_bits(opts, 20);
  EXPECT_EQ(rocksdb_cache_create_lru_opts(opts), nullptr);
  rocksdb_lru_cache_options_destroy(opts);
}

// ------------------------------------------------------------------ Table options

TEST(RocksdbCapiBlockBasedOptions, EverySetterAndOwnership) {
  rocksdb_block_based_table_options_t* t = rocksdb_block_based_options_create();
  ASSERT_NE(t, nullptr);
  rocksdb_cache_t* cache = rocksdb_cache_create_lru(1 << 20);
  rocksdb_block_based_options_set_block_cache(t, cache);
  rocksdb_block_based_options_set_block_cache(t, nullptr);  // ignored, as RocksDB
  rocksdb_block_based_options_set_block_cache_compressed(t, cache);
  rocksdb_block_based_options_set_block_cache_compressed(t, nullptr);
  rocksdb_cache_destroy(cache);  // the table options share the cache: still valid
  rocksdb_block_based_options_set_checksum(t, 1);
  rocksdb_block_based_options_set_block_size(t, 16 << 10);
  rocksdb_block_based_options_set_block_size_deviation(t, 5);
  rocksdb_block_based_options_set_block_restart_interval(t, 8);
  rocksdb_block_based_options_set_index_block_restart_interval(t, 2);
  rocksdb_block_based_options_set_metadata_block_size(t, 8192);
  rocksdb_block_based_options_set_partition_filters(t, 1);
  rocksdb_block_based_options_set_use_delta_encoding(t, 0);
  rocksdb_block_based_options_set_no_block_cache(t, 0);
  rocksdb_block_based_options_set_whole_key_filtering(t, 0);
  rocksdb_block_based_options_set_format_version(t, 4);
  rocksdb_block_based_options_set_index_type(
      t, rocksdb_block_based_table_index_type_two_level_index_search);
  rocksdb_block_based_options_set_data_block_index_type(
      t, rocksdb_block_based_table_data_block_index_type_binary_search_and_hash);
  rocksdb_block_based_options_set_data_block_hash_ratio(t, 0.5);
  rocksdb_block_based_options_set_cache_index_and_filter_blocks(t, 1);
  rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(t, 0);
  rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(t, 1);
  rocksdb_block_based_options_set_pin_top_level_index_and_filter(t, 0);
  // The table options take the policy (RocksDB's rule): a second policy replaces the first,
  // and neither is destroyed by the caller. ASan reports a leak or double free otherwise.
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(10));
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_ribbon(9.9));
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(0.1));
  rocksdb_block_based_options_set_filter_policy(t, nullptr);
  rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom_full(12));
  rocksdb_block_based_options_destroy(t);
  rocksdb_block_based_options_destroy(nullptr);
}

TEST(RocksdbCapiFilterPolicy, EveryKindCanBeDestroyedByItsOwner) {
  rocksdb_filterpolicy_t* policies[] = {
      rocksdb_filterpolicy_create_bloom(10), rocksdb_filterpolicy_create_bloom_full(10),
      rocksdb_filterpolicy_create_ribbon(10), rocksdb_filterpolicy_create_ribbon_hybrid(10, 1),
      rocksdb_filterpolicy_create_bloom(0)};
  for (rocksdb_filterpolicy_t* p : policies) {
    ASSERT_NE(p, nullptr);
    rocksdb_filterpolicy_destroy(p);
  }
}

TEST(RocksdbCapiCuckooOptions, SettersAndDestroy) {
  rocksdb_cuckoo_table_options_t* c = rocksdb_cuckoo_options_create();
  ASSERT_NE(c, nullptr);
  rocksdb_cuckoo_options_set_hash_ratio(c, 0.5);
  rocksdb_cuckoo_options_set_max_search_depth(c, 10);
  rocksdb_cuckoo_options_set_cuckoo_block_size(c, 3);
  rocksdb_cuckoo_options_set_identity_as_first_hash(c, 1);
  rocksdb_cuckoo_options_set_use_module_hash(c, 0);
  rocksdb_cuckoo_options_destroy(c);
}

// ------------------------------------------------------------------ Objects of C callbacks

// Counts destructor calls on a client's state.
struct Counted {
  int destroyed = 0;
};

void CountDestroy(void* state) { ++static_cast<Counted*>(state)->destroyed; }
const char* TestName(void*) { return "test"; }
int CompareBytes(void*, const char* a, size_t alen, const char* b, size_t blen) {
  const int c = std::memcmp(a, b, alen < blen ? alen : blen);
  return c != 0 ? c : (alen < blen ? -1 : alen > blen ? 1 : 0);
}
char* FullMerge(void*, const char*, size_t, const char*, size_t, const char* const*,
                const size_t*, int, unsigned char* success, size_t* len) {
  *success = 1;
  *len = 0;
  return nullptr;
}
char* Transform(void*, const char* key, size_t, size_t* len) {
  *len = 0;
  return const_cast<char*>(key);
}
unsigned char InDomain(void*, const char*, size_t) { return 1; }
unsigned char Filter(void*, int, const char*, size_t, const char*, size_t, char**, size_t*,
                     unsigned char*) {
  return 0;
}
rocksdb_compactionfilter_t* NoFilter(void*, rocksdb_compactionfiltercontext_t*) {
  return nullptr;
}

TEST(RocksdbCapiCallbacks, DestroyCallsTheDestructorOnce) {
  Counted c;
  rocksdb_comparator_t* cmp = rocksdb_comparator_create(&c, CountDestroy, CompareBytes, TestName);
  ASSERT_NE(cmp, nullptr);
  EXPECT_EQ(c.destroyed, 0);
  rocksdb_comparator_destroy(cmp);
  EXPECT_EQ(c.destroyed, 1);

  Counted m;
  rocksdb_mergeoperator_t* op =
      rocksdb_mergeoperator_create(&m, CountDestroy, FullMerge, nullptr, nullptr, TestName);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(m.destroyed, 0);
  rocksdb_mergeoperator_destroy(op);
  EXPECT_EQ(m.destroyed, 1);

  Counted s;
  rocksdb_slicetransform_t* st =
      rocksdb_slicetransform_create(&s, CountDestroy, Transform, InDomain, InDomain, TestName);
  ASSERT_NE(st, nullptr);
  rocksdb_slicetransform_destroy(st);
  EXPECT_EQ(s.destroyed, 1);

  Counted f;
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(&f, CountDestroy, Filter, TestName);
  ASSERT_NE(filter, nullptr);
  rocksdb_compactionfilter_set_ignore_snapshots(filter, 0);
  rocksdb_compactionfilter_destroy(filter);
  EXPECT_EQ(f.destroyed, 1);

  Counted ff;
  rocksdb_compactionfilterfactory_t* factory =
      rocksdb_compactionfilterfactory_create(&ff, CountDestroy, NoFilter, TestName);
  ASSERT_NE(factory, nullptr);
  rocksdb_compactionfilterfactory_destroy(factory);
  EXPECT_EQ(ff.destroyed, 1);

  // A NULL destructor is allowed.
  rocksdb_comparator_destroy(rocksdb_comparator_create(nullptr, nullptr, CompareBytes, TestName));
}

TEST(RocksdbCapiCallbacks, MissingRequiredCallbacksGiveNoObject) {
  Counted c;
  EXPECT_EQ(rocksdb_comparator_create(&c, CountDestroy, nullptr, TestName), nullptr);
  EXPECT_EQ(rocksdb_comparator_create(&c, CountDestroy, CompareBytes, nullptr), nullptr);
  EXPECT_EQ(rocksdb_mergeoperator_create(&c, CountDestroy, nullptr, nullptr, nullptr, TestName),
            nullptr);
  EXPECT_EQ(rocksdb_slicetransform_create(&c, CountDestroy, nullptr, InDomain, nullptr, TestName),
            nullptr);
  EXPECT_EQ(rocksdb_compactionfilter_create(&c, CountDestroy, nullptr, TestName), nullptr);
  EXPECT_EQ(rocksdb_compactionfilterfactory_create(&c, CountDestroy, nullptr, TestName), nullptr);
  // The caller keeps its state when no object is made.
  EXPECT_EQ(c.destroyed, 0);
}

TEST(RocksdbCapiCallbacks, TimestampComparatorIsNotSupported) {
  Counted c;
  EXPECT_EQ(rocksdb_comparator_with_ts_create(&c, CountDestroy, CompareBytes, CompareBytes,
                                              nullptr, TestName, 8),
            nullptr);
  EXPECT_EQ(c.destroyed, 0);
}

TEST(RocksdbCapiCallbacks, BuiltInSliceTransforms) {
  rocksdb_slicetransform_t* fixed = rocksdb_slicetransform_create_fixed_prefix(4);
  ASSERT_NE(fixed, nullptr);
  rocksdb_slicetransform_destroy(fixed);
  rocksdb_slicetransform_t* noop = rocksdb_slicetransform_create_noop();
  ASSERT_NE(noop, nullptr);
  rocksdb_slicetransform_destroy(noop);
}

}  // namespace
