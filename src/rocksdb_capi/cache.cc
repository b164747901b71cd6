// RocksDB's C API for block caches (shale/cache.h) and their LRU options. Every cache is
// ShaleDB's LRU cache; RocksDB's defaults (8 MiB only when a table has no cache of its own,
// -1 shard bits, high-priority pool ratio 0.5, no strict limit) are ShaleDB's too.
//
// Thread-safety: a cache may be used from any thread; an options handle from one at a time.
#include <memory>
#include <utility>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "shale/cache.h"

// RocksDB's LRUCacheOptions as the C API sets them. The memory allocator is not kept: ShaleDB's
// cache allocates with the process allocator (which allocator holds the blocks cannot change
// what a read returns).
struct rocksdb_lru_cache_options_t {
  shale::LRUCacheOptions rep;
};

namespace {

// A handle for `cache`, or NULL when the cache could not be made (an argument out of range).
rocksdb_cache_t* Wrap(std::shared_ptr<shale::Cache> cache) {
  if (cache == nullptr) return nullptr;
  auto* handle = new rocksdb_cache_t;
  handle->rep = std::move(cache);
  return handle;
}

}  // namespace

extern "C" {

rocksdb_lru_cache_options_t* rocksdb_lru_cache_options_create(void) {
  return new rocksdb_lru_cache_options_t;
}

void rocksdb_lru_cache_options_destroy(rocksdb_lru_cache_options_t* options) { delete options; }

void rocksdb_lru_cache_options_set_capacity(rocksdb_lru_cache_options_t* options,
                                            size_t capacity) {
  options->rep.capacity = capacity;
}

void rocksdb_lru_cache_options_set_num_shard_bits(rocksdb_lru_cache_options_t* options,
                                                  int num_shard_bits) {
  options->rep.num_shard_bits = num_shard_bits;
}

// Accepted without effect (see rocksdb_lru_cache_options_t); the allocator stays the caller's.
void rocksdb_lru_cache_options_set_memory_allocator(rocksdb_lru_cache_options_t* /*options*/,
                                                    rocksdb_memory_allocator_t* /*allocator*/) {}

rocksdb_cache_t* rocksdb_cache_create_lru(size_t capacity) {
  return Wrap(shale::NewLRUCache(capacity));
}

rocksdb_cache_t* rocksdb_cache_create_lru_with_strict_capacity_limit(size_t capacity) {
  return Wrap(shale::NewLRUCache(capacity, /*num_shard_bits=*/-1,
                                 /*strict_capacity_limit=*/true));
}

// NULL when an option is out of range (num_shard_bits of 20 or more), where RocksDB's
// NewLRUCache gives no cache either.
rocksdb_cache_t* rocksdb_cache_create_lru_opts(rocksdb_lru_cache_options_t* options) {
  return Wrap(shale::NewLRUCache(options->rep));
}

// Table options and DBs that share the cache keep it alive.
void rocksdb_cache_destroy(rocksdb_cache_t* cache) { delete cache; }

// RocksDB's DisownData only skips freeing the cache's memory at exit (a shutdown speed-up);
// ShaleDB's cache always frees it, which RocksDB's own base Cache does too.
void rocksdb_cache_disown_data(rocksdb_cache_t* /*cache*/) {}

void rocksdb_cache_set_capacity(rocksdb_cache_t* cache, size_t capacity) {
  cache->rep->SetCapacity(capacity);
}

size_t rocksdb_cache_get_capacity(rocksdb_cache_t* cache) { return cache->rep->GetCapacity(); }

size_t rocksdb_cache_get_usage(rocksdb_cache_t* cache) { return cache->rep->GetUsage(); }

size_t rocksdb_cache_get_pinned_usage(rocksdb_cache_t* cache) {
  return cache->rep->GetPinnedUsage();
}

}  // extern "C"
