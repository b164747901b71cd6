// Cache: the block cache, a byte budget shared by the blocks of every open table -- data
// blocks, index partitions and filter partitions, and with
// TableOptions::cache_index_and_filter_blocks the tables' top-level index and filter too.
// Put one in TableOptions::block_cache; the same cache may serve several DBs at once.
//
// The cache made by NewLRUCache:
// - charges each block by the bytes it keeps in memory (the parsed block, not the file bytes);
// - evicts entry by entry, least recently used first (approximated, as RocksDB's
//   HyperClockCache does, by CLOCK: a hit only marks the entry, so hits are cheap), and only
//   entries nobody is reading; a
//   block in use ("pinned": a Get or an iterator holds it, or a table reader pins its top-level
//   index and filter) stays until its last user lets go;
// - keeps index and filter blocks in a high-priority pool of high_pri_pool_ratio * capacity:
//   they are evicted only after the data blocks, unless the pool itself is over its share;
//   with a ratio of 0 there is no pool and they are kept and evicted as data blocks are;
// - with strict_capacity_limit, refuses an insert that would take usage past capacity (the
//   read goes on with its block uncached); without it, usage may exceed capacity only by the
//   blocks that are pinned;
// - is split into 2^num_shard_bits shards, each with its own lock, chosen by a hash of the
//   block's key, so lookups from several threads rarely meet on one lock.
//
// Caches come only from NewLRUCache: DB::Open rejects other implementations of this class.
// Thread-safety: every method may be called from any thread.
#ifndef SHALE_CACHE_H_
#define SHALE_CACHE_H_

#include <cstddef>
#include <memory>

#include "shale/export.h"

namespace shale {

class SHALE_EXPORT Cache {
 public:
  virtual ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // "LRUCache".
  virtual const char* Name() const = 0;

  // The byte budget. Lowering it evicts unpinned entries until usage fits (or only pinned
  // ones are left).
  virtual size_t GetCapacity() const = 0;
  virtual void SetCapacity(size_t capacity) = 0;

  virtual bool HasStrictCapacityLimit() const = 0;
  virtual void SetStrictCapacityLimit(bool strict) = 0;

  // Bytes charged for every entry the cache holds, pinned ones included.
  virtual size_t GetUsage() const = 0;
  // Bytes charged for the entries in use right now (pinned: not evictable).
  virtual size_t GetPinnedUsage() const = 0;
  // Entries held.
  virtual size_t GetOccupancyCount() const = 0;

  // Drops every entry that is not in use.
  virtual void EraseUnRefEntries() = 0;

 protected:
  Cache() = default;
};

struct LRUCacheOptions {
  // Bytes. 0 is allowed (nothing is kept).
  size_t capacity = 0;
  // The cache is split into 2^num_shard_bits shards (at most 2^19); -1 picks a count so that
  // each shard holds at least 512 KiB (at most 64 shards).
  int num_shard_bits = -1;
  // Fail inserts rather than exceed capacity.
  bool strict_capacity_limit = false;
  // Share of the capacity reserved for index and filter blocks, in [0, 1].
  double high_pri_pool_ratio = 0.5;
};

// A new LRU cache, or null when an argument is out of range (num_shard_bits >= 20,
// high_pri_pool_ratio outside [0, 1]), as RocksDB's NewLRUCache.
SHALE_EXPORT std::shared_ptr<Cache> NewLRUCache(size_t capacity, int num_shard_bits = -1,
                                                bool strict_capacity_limit = false,
                                                double high_pri_pool_ratio = 0.5);
SHALE_EXPORT std::shared_ptr<Cache> NewLRUCache(const LRUCacheOptions& options);

}  // namespace shale

#endif  // SHALE_CACHE_H_
