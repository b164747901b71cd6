// LRUCache: the block cache that NewLRUCache makes (the contract is in shale/cache.h). It is
// the public Cache and, inside the engine, a BlockSource: table readers get their blocks
// through GetBlock, which returns a cached block or loads, inserts and returns it.
//
// Structure: 2^num_shard_bits shards, each a hash table of entries plus two CLOCK lists
// (high priority: index and filter blocks; low priority: data blocks). An entry is in exactly
// one of three states:
//   - in use: refs > 0 (cannot be evicted; its charge counts as pinned);
//   - idle: refs == 0, on the list of its priority (evictable);
//   - detached: erased from the table (evicted or replaced) while in use; freed, and its charge
//     released, when its last user lets go.
// Usage counts the charge of every entry in the table and of every detached entry, plus the
// memory charged from outside (ChargeMemory: table readers' indexes and filters), which counts
// as pinned: it makes idle blocks go, and is never evicted itself.
//
// Eviction order: least recently used, approximated by CLOCK (lru_cache.cc's shard comment): a
// hit sets the entry's visited bit and touches no list; eviction takes the first idle entry
// from the head of a list that has not been visited since the scan last passed it. The victim
// is a data block, unless the idle index/filter blocks together exceed high_pri_pool_ratio *
// capacity (or no data block is idle); then an index/filter block.
//
// Handing out blocks: GetBlock returns std::shared_ptr<const LoadedBlock> whose deleter
// releases the entry's reference, so whoever holds the block keeps the entry in use.
//
// Keys: BlockKey's cache_id must be unique among all the tables (of all the DBs) that share a
// cache. A DB takes a prefix with NewCacheIdPrefix() and uses prefix | file number
// (file numbers stay below 2^kCacheIdPrefixShift).
//
// Thread-safety: every method may be called from any thread; each shard has its own lock.
#ifndef SHALE_CACHE_LRU_CACHE_H_
#define SHALE_CACHE_LRU_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "shale/cache.h"
#include "table/block_source.h"
#include "util/mutex.h"

namespace shale {

class LRUCacheShard;

class LRUCache final : public Cache, public BlockSource {
 public:
  // Bits of a cache id left for the file number; the DB's prefix sits above them.
  static constexpr int kCacheIdPrefixShift = 40;

  // REQUIRES: the options are in range (NewLRUCache checks).
  explicit LRUCache(const LRUCacheOptions& options);
  ~LRUCache() override;

  // The engine's view of a public cache: the LRUCache behind it, or null when `cache` was
  // not made by NewLRUCache.
  static LRUCache* FromCache(Cache* cache);

  // ---- Cache ----
  const char* Name() const override { return "LRUCache"; }
  size_t GetCapacity() const override;
  void SetCapacity(size_t capacity) override;
  bool HasStrictCapacityLimit() const override;
  void SetStrictCapacityLimit(bool strict) override;
  size_t GetUsage() const override;
  size_t GetPinnedUsage() const override;
  size_t GetOccupancyCount() const override;
  void EraseUnRefEntries() override;

  // ---- BlockSource ----
  // A miss calls `load` without any lock held; two threads that miss the same key at once
  // both load, and the second insert keeps the first block. When the insert fails (strict
  // limit, or fill_cache false) the loaded block is returned uncached.
  Status GetBlock(const BlockRequest& request, BlockLoader load,
                  std::shared_ptr<const LoadedBlock>* block) override;
  bool IsCharged(const std::shared_ptr<const LoadedBlock>& block) const override;
  // Spread over the shards (each takes its share, as the capacity is split), counted as
  // pinned usage until the charge is destroyed. With a strict limit, MemoryLimit when a
  // shard cannot fit its share beside its pinned entries (nothing is charged then).
  Status ChargeMemory(size_t bytes, std::unique_ptr<MemoryCharge>* charge) override;
  bool MayRefuseCharges() const override { return HasStrictCapacityLimit(); }

  // A prefix for the cache ids of one DB's tables, unique within this cache.
  uint64_t NewCacheIdPrefix();

  int num_shard_bits() const { return num_shard_bits_; }

 private:
  class ShardedCharge;

  size_t NumShards() const { return size_t{1} << num_shard_bits_; }
  LRUCacheShard& ShardFor(const BlockKey& key) const;
  // Gives each shard its share of the capacity and the current limits.
  void ConfigureShards();

  const int num_shard_bits_;
  std::unique_ptr<LRUCacheShard[]> shards_;
  // Serialises SetCapacity / SetStrictCapacityLimit (the shards lock themselves).
  Mutex config_mu_;
  std::atomic<size_t> capacity_;
  std::atomic<bool> strict_;
  const double high_pri_ratio_;
  std::atomic<uint64_t> next_prefix_{1};
};

}  // namespace shale

#endif  // SHALE_CACHE_LRU_CACHE_H_
