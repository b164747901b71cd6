// The C ABI of the block-based table options, filter policies and the block cache
// (include/shale/c.h).
#include <memory>

#include "capi/c_handles.h"
#include "shale/filter_policy.h"

extern "C" {

shale_block_based_table_options_t* shale_block_based_options_create(void) {
  return new shale_block_based_table_options_t;
}

void shale_block_based_options_destroy(shale_block_based_table_options_t* options) {
  delete options;
}

void shale_block_based_options_set_block_size(shale_block_based_table_options_t* options,
                                              size_t block_size) {
  options->rep.block_size = block_size;
}

void shale_block_based_options_set_block_restart_interval(
    shale_block_based_table_options_t* options, int block_restart_interval) {
  options->rep.block_restart_interval = block_restart_interval;
}

void shale_block_based_options_set_index_block_restart_interval(
    shale_block_based_table_options_t* options, int index_block_restart_interval) {
  options->rep.index_block_restart_interval = index_block_restart_interval;
}

void shale_block_based_options_set_filter_policy(shale_block_based_table_options_t* options,
                                                 shale_filterpolicy_t* policy) {
  options->filter_policy.reset(policy);
  options->rep.filter_policy = policy == nullptr ? nullptr : policy->rep;
}

void shale_block_based_options_set_partition_filters(shale_block_based_table_options_t* options,
                                                     unsigned char v) {
  options->rep.partition_filters = v != 0;
}

void shale_block_based_options_set_index_type(shale_block_based_table_options_t* options,
                                              int v) {
  options->rep.index_type = static_cast<shale::TableOptions::IndexType>(v);
}

void shale_block_based_options_set_metadata_block_size(
    shale_block_based_table_options_t* options, uint64_t v) {
  options->rep.metadata_block_size = v;
}

void shale_block_based_options_set_cache_index_and_filter_blocks(
    shale_block_based_table_options_t* options, unsigned char v) {
  options->rep.cache_index_and_filter_blocks = v != 0;
}

void shale_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
    shale_block_based_table_options_t* options, unsigned char v) {
  options->rep.pin_l0_filter_and_index_blocks_in_cache = v != 0;
}

void shale_block_based_options_set_no_block_cache(shale_block_based_table_options_t* options,
                                                  unsigned char v) {
  options->rep.no_block_cache = v != 0;
}

void shale_block_based_options_set_charge_table_reader_memory(
    shale_block_based_table_options_t* options, unsigned char v) {
  options->rep.charge_table_reader_memory = v != 0;
}

void shale_block_based_options_set_pin_top_level_index_and_filter(
    shale_block_based_table_options_t* options, unsigned char v) {
  options->rep.pin_top_level_index_and_filter = v != 0;
}

void shale_block_based_options_set_data_block_index_type(
    shale_block_based_table_options_t* options, int v) {
  options->rep.data_block_index_type = static_cast<shale::TableOptions::DataBlockIndexType>(v);
}

void shale_block_based_options_set_enable_index_compression(
    shale_block_based_table_options_t* options, unsigned char v) {
  options->rep.enable_index_compression = v != 0;
}

void shale_block_based_options_set_block_cache(shale_block_based_table_options_t* options,
                                               shale_cache_t* cache) {
  options->rep.block_cache = cache == nullptr ? nullptr : cache->rep;
}

void shale_options_set_block_based_table_factory(
    shale_options_t* opt, shale_block_based_table_options_t* table_options) {
  opt->rep.table_options = table_options->rep;
}

// ---------------------------------------------------------------- Filter policy and cache

shale_filterpolicy_t* shale_filterpolicy_create_bloom(double bits_per_key) {
  return new shale_filterpolicy_t{shale::NewBloomFilterPolicy(bits_per_key)};
}

void shale_filterpolicy_destroy(shale_filterpolicy_t* policy) { delete policy; }

shale_cache_t* shale_cache_create_lru(size_t capacity) {
  return new shale_cache_t{shale::NewLRUCache(capacity)};
}

shale_cache_t* shale_cache_create_lru_with_strict_capacity_limit(size_t capacity) {
  return new shale_cache_t{shale::NewLRUCache(capacity, -1, /*strict_capacity_limit=*/true)};
}

shale_cache_t* shale_cache_create_lru_opts(const shale_lru_cache_options_t* options) {
  std::shared_ptr<shale::Cache> cache = shale::NewLRUCache(options->rep);
  return cache == nullptr ? nullptr : new shale_cache_t{std::move(cache)};
}

void shale_cache_destroy(shale_cache_t* cache) { delete cache; }

void shale_cache_set_capacity(shale_cache_t* cache, size_t capacity) {
  cache->rep->SetCapacity(capacity);
}

size_t shale_cache_get_capacity(const shale_cache_t* cache) { return cache->rep->GetCapacity(); }

size_t shale_cache_get_usage(const shale_cache_t* cache) { return cache->rep->GetUsage(); }

size_t shale_cache_get_pinned_usage(const shale_cache_t* cache) {
  return cache->rep->GetPinnedUsage();
}

size_t shale_cache_get_occupancy_count(const shale_cache_t* cache) {
  return cache->rep->GetOccupancyCount();
}

shale_lru_cache_options_t* shale_lru_cache_options_create(void) {
  return new shale_lru_cache_options_t;
}

void shale_lru_cache_options_destroy(shale_lru_cache_options_t* options) { delete options; }

void shale_lru_cache_options_set_capacity(shale_lru_cache_options_t* options, size_t capacity) {
  options->rep.capacity = capacity;
}

void shale_lru_cache_options_set_num_shard_bits(shale_lru_cache_options_t* options, int bits) {
  options->rep.num_shard_bits = bits;
}

void shale_lru_cache_options_set_strict_capacity_limit(shale_lru_cache_options_t* options,
                                                       unsigned char v) {
  options->rep.strict_capacity_limit = v != 0;
}

void shale_lru_cache_options_set_high_pri_pool_ratio(shale_lru_cache_options_t* options,
                                                     double ratio) {
  options->rep.high_pri_pool_ratio = ratio;
}

}  // extern "C"
