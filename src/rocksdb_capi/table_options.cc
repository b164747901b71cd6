// RocksDB's C API for the block-based table options, the cuckoo table options and filter
// policies, mapped onto shale::TableOptions (shale/table_options.h).
//
// What maps: block_size, block_restart_interval, index_block_restart_interval,
// metadata_block_size, partition_filters, filter_policy, block_cache, no_block_cache,
// index_type (kBinarySearch, kTwoLevelIndexSearch), data_block_index_type, data_block_hash_ratio,
// cache_index_and_filter_blocks, pin_l0_filter_and_index_blocks_in_cache,
// pin_top_level_index_and_filter.
// Accepted without effect (they decide the file layout or cache priorities, never what a read
// returns; recorded in accepted_knobs): checksum, block_size_deviation, use_delta_encoding,
// block_cache_compressed, whole_key_filtering=false, format_version, index_type kHashSearch and
// kBinarySearchWithFirstKey (read as kBinarySearch: a hash index needs a prefix extractor, and
// RocksDB falls back to binary search without one), and
// cache_index_and_filter_blocks_with_high_priority (ShaleDB always caches index and filter
// blocks at high priority).
// An index or data-block index type RocksDB does not define is passed on, and the open refuses
// it naming block_based_table_factory.index_type / .data_block_index_type.
#include <memory>
#include <string>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/table_knobs.h"
#include "rocksdb_capi/table_options.h"
#include "shale/filter_policy.h"
#include "shale/table_options.h"

namespace {

using shale::TableOptions;
using shale::rocksdb_capi::SetBoolKnob;
using shale::rocksdb_capi::SetKnob;

// RocksDB's BlockBasedTableOptions::IndexType values ShaleDB reads as binary search.
constexpr int kRocksHashSearch = 1;
constexpr int kRocksBinarySearchWithFirstKey = 3;
// RocksDB's default ChecksumType (kXXH3) and format_version.
constexpr int kRocksDefaultChecksum = 4;
constexpr int kRocksDefaultFormatVersion = 5;

// Keeps rep.block_cache as RocksDB resolves it: no_block_cache drops the block cache.
void ResolveBlockCache(rocksdb_block_based_table_options_t* options) {
  options->rep.block_cache =
      options->rep.no_block_cache ? nullptr : options->requested_block_cache;
}

// A filter policy of RocksDB's kind with `bits_per_key`: below 0.5 bits per key RocksDB builds
// no filter (rep stays null); otherwise ShaleDB's bloom filter.
rocksdb_filterpolicy_t* NewPolicy(double bits_per_key) {
  auto* policy = new rocksdb_filterpolicy_t;
  if (bits_per_key >= 0.5) policy->rep = shale::NewBloomFilterPolicy(bits_per_key);
  return policy;
}

}  // namespace

extern "C" {

// ------------------------------------------------------------------------ Block-based options

rocksdb_block_based_table_options_t* rocksdb_block_based_options_create(void) {
  auto* options = new rocksdb_block_based_table_options_t;
  options->rep.block_restart_interval = 16;  // RocksDB's default (ShaleDB's is 4)
  return options;
}

void rocksdb_block_based_options_destroy(rocksdb_block_based_table_options_t* options) {
  delete options;
}

void rocksdb_block_based_options_set_checksum(rocksdb_block_based_table_options_t* options,
                                              char v) {
  // accepted without effect
  SetKnob(&options->accepted_knobs, "checksum", static_cast<unsigned char>(v),
          kRocksDefaultChecksum);
}

void rocksdb_block_based_options_set_block_size(rocksdb_block_based_table_options_t* options,
                                                size_t block_size) {
  options->rep.block_size = block_size;
}

void rocksdb_block_based_options_set_block_size_deviation(
    rocksdb_block_based_table_options_t* options, int block_size_deviation) {
  // accepted without effect
  SetKnob(&options->accepted_knobs, "block_size_deviation",
          static_cast<uint64_t>(static_cast<int64_t>(block_size_deviation)), 10);
}

void rocksdb_block_based_options_set_block_restart_interval(
    rocksdb_block_based_table_options_t* options, int block_restart_interval) {
  options->rep.block_restart_interval = block_restart_interval;
}

void rocksdb_block_based_options_set_index_block_restart_interval(
    rocksdb_block_based_table_options_t* options, int index_block_restart_interval) {
  options->rep.index_block_restart_interval = index_block_restart_interval;
}

void rocksdb_block_based_options_set_metadata_block_size(
    rocksdb_block_based_table_options_t* options, uint64_t metadata_block_size) {
  options->rep.metadata_block_size = metadata_block_size;
}

void rocksdb_block_based_options_set_partition_filters(
    rocksdb_block_based_table_options_t* options, unsigned char partition_filters) {
  options->rep.partition_filters = partition_filters != 0;
}

void rocksdb_block_based_options_set_use_delta_encoding(
    rocksdb_block_based_table_options_t* options, unsigned char use_delta_encoding) {
  // accepted without effect
  SetBoolKnob(&options->accepted_knobs, "use_delta_encoding", use_delta_encoding != 0, true);
}

// Takes `filter_policy` (RocksDB's rule): the handle is deleted when the last copy of these
// table options (including those in options and open DBs) lets go of the policy. NULL clears.
void rocksdb_block_based_options_set_filter_policy(rocksdb_block_based_table_options_t* options,
                                                   rocksdb_filterpolicy_t* filter_policy) {
  if (filter_policy == nullptr) {
    options->rep.filter_policy = nullptr;
    return;
  }
  std::shared_ptr<rocksdb_filterpolicy_t> owner(filter_policy);
  if (filter_policy->rep == nullptr) {
    options->rep.filter_policy = nullptr;  // a policy that builds no filter; owner deletes it
    return;
  }
  // Shares owner's count while pointing at the policy inside it.
  options->rep.filter_policy =
      std::shared_ptr<const shale::FilterPolicy>(owner, filter_policy->rep.get());
}

void rocksdb_block_based_options_set_no_block_cache(rocksdb_block_based_table_options_t* options,
                                                    unsigned char no_block_cache) {
  options->rep.no_block_cache = no_block_cache != 0;
  ResolveBlockCache(options);
}

// Shares the cache; the caller still destroys its handle (RocksDB's rule). NULL is ignored.
void rocksdb_block_based_options_set_block_cache(rocksdb_block_based_table_options_t* options,
                                                 rocksdb_cache_t* block_cache) {
  if (block_cache == nullptr) return;
  options->requested_block_cache = block_cache->rep;
  ResolveBlockCache(options);
}

// ShaleDB has no compressed block cache; the cache is not used. NULL is ignored (as RocksDB).
void rocksdb_block_based_options_set_block_cache_compressed(
    rocksdb_block_based_table_options_t* options, rocksdb_cache_t* block_cache_compressed) {
  // accepted without effect
  if (block_cache_compressed == nullptr) return;
  options->accepted_knobs["block_cache_compressed"] =
      std::to_string(block_cache_compressed->rep == nullptr
                         ? 0
                         : block_cache_compressed->rep->GetCapacity());
}

// ShaleDB filters on whole keys only; false (prefix-only filtering: ShaleDB's engine builds no
// prefix bloom filters, even with a prefix extractor) is accepted and leaves whole-key filters
// on. Filters never change what a read returns.
void rocksdb_block_based_options_set_whole_key_filtering(
    rocksdb_block_based_table_options_t* options, unsigned char v) {
  // accepted without effect
  SetBoolKnob(&options->accepted_knobs, "whole_key_filtering", v != 0, true);
}

// RocksDB's table format versions number RocksDB's formats; ShaleDB writes its own (version 1).
void rocksdb_block_based_options_set_format_version(rocksdb_block_based_table_options_t* options,
                                                    int v) {
  // accepted without effect
  SetKnob(&options->accepted_knobs, "format_version",
          static_cast<uint64_t>(static_cast<int64_t>(v)), kRocksDefaultFormatVersion);
}

void rocksdb_block_based_options_set_index_type(rocksdb_block_based_table_options_t* options,
                                                int v) {
  if (v == kRocksHashSearch || v == kRocksBinarySearchWithFirstKey) {
    options->rep.index_type = TableOptions::kBinarySearch;
    options->accepted_knobs["index_type"] =
        v == kRocksHashSearch ? "kHashSearch" : "kBinarySearchWithFirstKey";
    return;
  }
  options->accepted_knobs.erase("index_type");
  options->rep.index_type = static_cast<TableOptions::IndexType>(v);
}

void rocksdb_block_based_options_set_data_block_index_type(
    rocksdb_block_based_table_options_t* options, int v) {
  options->rep.data_block_index_type = static_cast<TableOptions::DataBlockIndexType>(v);
}

void rocksdb_block_based_options_set_data_block_hash_ratio(
    rocksdb_block_based_table_options_t* options, double v) {
  options->rep.data_block_hash_table_util_ratio = v;
}

void rocksdb_block_based_options_set_cache_index_and_filter_blocks(
    rocksdb_block_based_table_options_t* options, unsigned char v) {
  options->rep.cache_index_and_filter_blocks = v != 0;
}

// ShaleDB always keeps cached index and filter blocks in the high-priority pool.
void rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(
    rocksdb_block_based_table_options_t* options, unsigned char v) {
  // accepted without effect
  SetBoolKnob(&options->accepted_knobs, "cache_index_and_filter_blocks_with_high_priority",
              v != 0, true);
}

void rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
    rocksdb_block_based_table_options_t* options, unsigned char v) {
  options->rep.pin_l0_filter_and_index_blocks_in_cache = v != 0;
}

void rocksdb_block_based_options_set_pin_top_level_index_and_filter(
    rocksdb_block_based_table_options_t* options, unsigned char v) {
  options->rep.pin_top_level_index_and_filter = v != 0;
}

// ------------------------------------------------------------------------ Cuckoo options

rocksdb_cuckoo_table_options_t* rocksdb_cuckoo_options_create(void) {
  return new rocksdb_cuckoo_table_options_t;
}

void rocksdb_cuckoo_options_destroy(rocksdb_cuckoo_table_options_t* options) { delete options; }

void rocksdb_cuckoo_options_set_hash_ratio(rocksdb_cuckoo_table_options_t* options, double v) {
  options->hash_table_ratio = v;
}

void rocksdb_cuckoo_options_set_max_search_depth(rocksdb_cuckoo_table_options_t* options,
                                                 uint32_t v) {
  options->max_search_depth = v;
}

void rocksdb_cuckoo_options_set_cuckoo_block_size(rocksdb_cuckoo_table_options_t* options,
                                                  uint32_t v) {
  options->cuckoo_block_size = v;
}

void rocksdb_cuckoo_options_set_identity_as_first_hash(rocksdb_cuckoo_table_options_t* options,
                                                       unsigned char v) {
  options->identity_as_first_hash = v != 0;
}

void rocksdb_cuckoo_options_set_use_module_hash(rocksdb_cuckoo_table_options_t* options,
                                                unsigned char v) {
  options->use_module_hash = v != 0;
}

// ------------------------------------------------------------------------ Filter policies

// Only for a policy the caller still owns (not given to set_filter_policy).
void rocksdb_filterpolicy_destroy(rocksdb_filterpolicy_t* policy) { delete policy; }

// RocksDB 7.8 builds the same (full-filter) format for both; so does ShaleDB.
rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom(double bits_per_key) {
  return NewPolicy(bits_per_key);
}

rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom_full(double bits_per_key) {
  return NewPolicy(bits_per_key);
}

// ShaleDB has no ribbon filter: a bloom filter with the same bits per key has the false-positive
// rate the caller asked for (RocksDB's argument is the bloom-equivalent bits per key), at more
// memory than a ribbon filter would take. Filters never change what a read returns.
rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_ribbon(double bloom_equivalent_bits_per_key) {
  return NewPolicy(bloom_equivalent_bits_per_key);
}

// As rocksdb_filterpolicy_create_ribbon, at every level (bloom_before_level has no effect).
rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_ribbon_hybrid(
    double bloom_equivalent_bits_per_key, int /*bloom_before_level*/) {
  return NewPolicy(bloom_equivalent_bits_per_key);
}

}  // extern "C"
