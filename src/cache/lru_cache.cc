#include "cache/lru_cache.h"

#include <algorithm>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "util/huge_page_heap.h"
#include "util/mutex.h"

namespace shale {
namespace {

constexpr size_t kMinShardBytes = 512 * 1024;
constexpr int kMaxDefaultShardBits = 6;
constexpr int kMaxShardBits = 19;

uint64_t MixKey(const BlockKey& key) {
  // splitmix64 finaliser over both halves: well spread high bits for the shard choice.
  uint64_t x = key.cache_id * 0x9E3779B97F4A7C15ull ^ (key.offset + 0x632BE59BD9B4E019ull);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

struct KeyHash {
  size_t operator()(const BlockKey& key) const { return static_cast<size_t>(MixKey(key)); }
};

int DefaultShardBits(size_t capacity) {
  int bits = 0;
  for (size_t shards = capacity / kMinShardBytes; shards > 1 && bits < kMaxDefaultShardBits;
       shards >>= 1) {
    bits++;
  }
  return bits;
}

}  // namespace

// One entry of a shard (the states are described in lru_cache.h). Entries live in huge-page
// memory (util/huge_page_heap.h): every cache hit reads one at a random address.
struct LRUEntry {
  BlockKey key;
  std::unique_ptr<const LoadedBlock> value;
  size_t charge = 0;
  uint32_t refs = 0;
  bool in_table = false;  // false once detached
  bool high_pri = false;
  // Set by every hit, cleared when an eviction scan passes the entry (its second chance).
  bool visited = false;
  // Links of the list it is on (both null when on none: detached, or taken off by an eviction
  // scan while in use).
  LRUEntry* prev = nullptr;
  LRUEntry* next = nullptr;

  static void* operator new(size_t size) {
    void* p = HugePageHeap::Allocate(size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void operator delete(void* p) { HugePageHeap::Free(p); }
};

// One shard: a hash table and two CLOCK lists under one lock.
//
// A hit only counts a reference and sets the entry's visited bit: it touches no list, so it
// reads nothing but the table slot and the entry (a list unlink would write two neighbours at
// random addresses: two more cache misses per hit). Eviction walks a list from its head: an
// entry in use is taken off the list (it goes back to the tail when its last user lets go), a
// visited entry loses the bit and moves to the tail (its second chance), and the first idle,
// unvisited entry is evicted. That is least-recently-used order approximated by one bit per
// entry (CLOCK), as RocksDB's HyperClockCache does.
//
// Invariants (under mu_): an entry in the table is on its list or has refs > 0 (an entry off
// its list is in use); idle_count_[p] / idle_usage_[p] count the entries of priority p in the
// table with refs == 0 (all of them on the list).
// Thread-safety: every method locks mu_.
class LRUCacheShard {
 public:
  LRUCacheShard() {
    for (LRUEntry* head : {&low_, &high_}) head->prev = head->next = head;
  }
  ~LRUCacheShard() {
    // REQUIRES: no block of this cache is still held (the table readers that use a cache
    // hold a reference to it).
    for (auto& [key, e] : table_) delete e;
  }

  void Configure(size_t capacity, double high_pri_ratio, bool strict) {
    std::vector<LRUEntry*> evicted;
    {
      MutexLock lock(&mu_);
      capacity_ = capacity;
      high_pri_capacity_ = static_cast<size_t>(static_cast<double>(capacity) * high_pri_ratio);
      strict_ = strict;
      EvictLocked(0, &evicted);
    }
    Free(evicted);
  }

  // A referenced entry for `key`, or null.
  LRUEntry* Lookup(const BlockKey& key) {
    MutexLock lock(&mu_);
    auto it = table_.find(key);
    if (it == table_.end()) return nullptr;
    RefLocked(it->second);
    return it->second;
  }

  // Inserts `value` under `key` and returns the referenced entry; if the key is already
  // present, returns that entry (and `value` is dropped). Null when a strict limit refuses
  // the insert; then *value is left untouched.
  LRUEntry* Insert(const BlockKey& key, bool high_pri, std::unique_ptr<LoadedBlock>* value) {
    std::vector<LRUEntry*> evicted;
    LRUEntry* result = nullptr;
    {
      MutexLock lock(&mu_);
      auto it = table_.find(key);
      if (it != table_.end()) {
        RefLocked(it->second);
        result = it->second;
      } else {
        const size_t charge = (*value)->charge();
        // A strict limit refuses an insert that would not fit even with every idle entry gone;
        // then nothing is evicted for it.
        const bool fits = !strict_ || pinned_usage_ + charge <= capacity_;
        if (fits) EvictLocked(charge, &evicted);
        if (fits) {
          auto* e = new LRUEntry();
          e->key = key;
          e->value = std::move(*value);
          e->charge = charge;
          e->refs = 1;
          e->in_table = true;
          // Without a pool (ratio 0) index and filter blocks are kept as data blocks are, in
          // one CLOCK order (as RocksDB's LRU cache does): on a list of their own they would
          // all be over the pool's zero bytes and go before any data block, hit or not.
          e->high_pri = high_pri && high_pri_capacity_ > 0;
          table_.emplace(key, e);
          LinkLocked(e);
          usage_ += charge;
          pinned_usage_ += charge;
          result = e;
        }
      }
    }
    Free(evicted);
    return result;
  }

  // Counts `bytes` of memory kept outside the cache (LRUCache::ChargeMemory) as usage that is
  // pinned, evicting idle entries to make room. False, with nothing counted or evicted, when a
  // strict limit cannot fit them beside what is pinned already.
  bool Reserve(size_t bytes) {
    std::vector<LRUEntry*> evicted;
    bool fits;
    {
      MutexLock lock(&mu_);
      fits = !strict_ || pinned_usage_ + bytes <= capacity_;
      if (fits) {
        EvictLocked(bytes, &evicted);
        usage_ += bytes;
        pinned_usage_ += bytes;
      }
    }
    Free(evicted);
    return fits;
  }

  // Whether Reserve(bytes) would succeed now (it may not by the time it is called).
  bool CanReserve(size_t bytes) const {
    MutexLock lock(&mu_);
    return !strict_ || pinned_usage_ + bytes <= capacity_;
  }

  // Gives back what Reserve(bytes) counted.
  void Unreserve(size_t bytes) {
    MutexLock lock(&mu_);
    usage_ -= bytes;
    pinned_usage_ -= bytes;
  }

  void Release(LRUEntry* e) {
    bool free_it = false;
    {
      MutexLock lock(&mu_);
      if (--e->refs > 0) return;
      pinned_usage_ -= e->charge;
      if (!e->in_table) {
        usage_ -= e->charge;  // detached: its last user is gone
        free_it = true;
      } else if (usage_ > capacity_) {
        // Over capacity (pinned entries pushed it there, or the capacity shrank): an entry
        // nobody uses any more goes at once.
        if (e->prev != nullptr) UnlinkLocked(e);
        table_.erase(e->key);
        e->in_table = false;
        usage_ -= e->charge;
        free_it = true;
      } else {
        if (e->prev == nullptr) LinkLocked(e);  // an eviction scan took it off while in use
        BecomeIdleLocked(e);
      }
    }
    if (free_it) delete e;
  }

  void EraseUnRefEntries() {
    std::vector<LRUEntry*> evicted;
    {
      MutexLock lock(&mu_);
      for (LRUEntry* head : {&low_, &high_}) {
        for (LRUEntry* e = head->next; e != head;) {
          LRUEntry* next = e->next;
          if (e->refs == 0) evicted.push_back(RemoveIdleLocked(e));
          e = next;
        }
      }
    }
    Free(evicted);
  }

  size_t usage() const {
    MutexLock lock(&mu_);
    return usage_;
  }
  size_t pinned_usage() const {
    MutexLock lock(&mu_);
    return pinned_usage_;
  }
  size_t count() const {
    MutexLock lock(&mu_);
    return table_.size();
  }

 private:
  // A hit: one more reference, and the visited bit. No list is touched (see the class comment).
  void RefLocked(LRUEntry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    e->visited = true;
    if (e->refs++ == 0) {
      pinned_usage_ += e->charge;
      idle_count_[e->high_pri]--;
      idle_usage_[e->high_pri] -= e->charge;
    }
  }

  // An entry in the table whose last reference went: counted idle (it is on its list).
  void BecomeIdleLocked(LRUEntry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    idle_count_[e->high_pri]++;
    idle_usage_[e->high_pri] += e->charge;
  }

  // Appends an entry at the tail (the most recently inserted or passed end) of its list.
  void LinkLocked(LRUEntry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    LRUEntry* head = e->high_pri ? &high_ : &low_;
    e->next = head;
    e->prev = head->prev;
    head->prev->next = e;
    head->prev = e;
  }

  void UnlinkLocked(LRUEntry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = nullptr;
  }

  // Takes an idle entry out of the list and the table; the caller frees it.
  LRUEntry* RemoveIdleLocked(LRUEntry* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    UnlinkLocked(e);
    table_.erase(e->key);
    e->in_table = false;
    usage_ -= e->charge;
    idle_count_[e->high_pri]--;
    idle_usage_[e->high_pri] -= e->charge;
    return e;
  }

  // Walks list `high_pri` from its head until an idle, unvisited entry comes up, and returns
  // it (still on the list). REQUIRES: idle_count_[high_pri] > 0, so one comes up within two
  // passes (the first clears every visited bit it passes).
  LRUEntry* NextVictimLocked(bool high_pri) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    LRUEntry* head = high_pri ? &high_ : &low_;
    for (;;) {
      LRUEntry* e = head->next;
      if (e->refs > 0) {
        UnlinkLocked(e);  // in use: back on the tail when released
      } else if (e->visited) {
        e->visited = false;  // second chance
        UnlinkLocked(e);
        LinkLocked(e);
      } else {
        return e;
      }
    }
  }

  // Evicts idle entries, one at a time in eviction order, until `charge` more bytes fit or
  // nothing idle is left.
  void EvictLocked(size_t charge, std::vector<LRUEntry*>* evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (usage_ + charge > capacity_) {
      const bool low_empty = idle_count_[0] == 0;
      const bool high_empty = idle_count_[1] == 0;
      if (low_empty && high_empty) break;
      // A data block goes first, unless index and filter blocks take more than their pool (or
      // no data block is idle).
      const bool from_high =
          !high_empty && (low_empty || idle_usage_[1] > high_pri_capacity_);
      evicted->push_back(RemoveIdleLocked(NextVictimLocked(from_high)));
    }
  }

  static void Free(const std::vector<LRUEntry*>& entries) {
    for (LRUEntry* e : entries) delete e;  // blocks are freed without the lock held
  }

  mutable Mutex mu_;
  // Every entry in the table (in use or idle). Guarded by mu_.
  absl::flat_hash_map<BlockKey, LRUEntry*, KeyHash, std::equal_to<BlockKey>,
                      HugePageAllocator<std::pair<const BlockKey, LRUEntry*>>>
      table_ ABSL_GUARDED_BY(mu_);
  // Dummy heads of the CLOCK lists (data blocks; index and filter blocks); head.next is where
  // an eviction scan starts. Guarded by mu_.
  LRUEntry low_ ABSL_GUARDED_BY(mu_);
  LRUEntry high_ ABSL_GUARDED_BY(mu_);
  // Guarded by mu_. usage_ = charges of table_'s entries + of detached entries still in use +
  // the bytes reserved (Reserve) and not given back; pinned_usage_ = charges of the entries
  // with refs > 0 + the bytes reserved; idle_count_[p] / idle_usage_[p] =
  // number / charges of the idle entries of priority p (0: data, 1: index and filter).
  size_t usage_ ABSL_GUARDED_BY(mu_) = 0;
  size_t pinned_usage_ ABSL_GUARDED_BY(mu_) = 0;
  size_t idle_count_[2] ABSL_GUARDED_BY(mu_) = {0, 0};
  size_t idle_usage_[2] ABSL_GUARDED_BY(mu_) = {0, 0};
  size_t capacity_ ABSL_GUARDED_BY(mu_) = 0;
  size_t high_pri_capacity_ ABSL_GUARDED_BY(mu_) = 0;
  bool strict_ ABSL_GUARDED_BY(mu_) = false;
};

namespace {

// Drops the cache's reference to an entry when the last holder of its block lets go.
struct EntryReleaser {
  LRUCacheShard* shard;
  LRUEntry* entry;
  void operator()(const LoadedBlock*) const { shard->Release(entry); }
};

std::shared_ptr<const LoadedBlock> HandleFor(LRUCacheShard* shard, LRUEntry* e) {
  return std::shared_ptr<const LoadedBlock>(e->value.get(), EntryReleaser{shard, e});
}

}  // namespace

Cache::~Cache() = default;

LRUCache::LRUCache(const LRUCacheOptions& options)
    : num_shard_bits_(options.num_shard_bits < 0 ? DefaultShardBits(options.capacity)
                                                 : options.num_shard_bits),
      shards_(new LRUCacheShard[size_t{1} << num_shard_bits_]),
      capacity_(options.capacity),
      strict_(options.strict_capacity_limit),
      high_pri_ratio_(options.high_pri_pool_ratio) {
  ConfigureShards();
}

LRUCache::~LRUCache() = default;

LRUCache* LRUCache::FromCache(Cache* cache) { return dynamic_cast<LRUCache*>(cache); }

void LRUCache::ConfigureShards() {
  // The shares add up to exactly the capacity: the remainder goes to the first shards.
  const size_t n = size_t{1} << num_shard_bits_;
  const size_t capacity = capacity_.load();
  for (size_t i = 0; i < n; i++) {
    const size_t share = capacity / n + (i < capacity % n ? 1 : 0);
    shards_[i].Configure(share, high_pri_ratio_, strict_.load());
  }
}

size_t LRUCache::GetCapacity() const { return capacity_.load(); }

void LRUCache::SetCapacity(size_t capacity) {
  MutexLock lock(&config_mu_);
  capacity_ = capacity;
  ConfigureShards();
}

bool LRUCache::HasStrictCapacityLimit() const { return strict_.load(); }

void LRUCache::SetStrictCapacityLimit(bool strict) {
  MutexLock lock(&config_mu_);
  strict_ = strict;
  ConfigureShards();
}

size_t LRUCache::GetUsage() const {
  size_t total = 0;
  for (size_t i = 0; i < (size_t{1} << num_shard_bits_); i++) total += shards_[i].usage();
  return total;
}

size_t LRUCache::GetPinnedUsage() const {
  size_t total = 0;
  for (size_t i = 0; i < (size_t{1} << num_shard_bits_); i++) total += shards_[i].pinned_usage();
  return total;
}

size_t LRUCache::GetOccupancyCount() const {
  size_t total = 0;
  for (size_t i = 0; i < (size_t{1} << num_shard_bits_); i++) total += shards_[i].count();
  return total;
}

void LRUCache::EraseUnRefEntries() {
  for (size_t i = 0; i < (size_t{1} << num_shard_bits_); i++) shards_[i].EraseUnRefEntries();
}

LRUCacheShard& LRUCache::ShardFor(const BlockKey& key) const {
  if (num_shard_bits_ == 0) return shards_[0];
  return shards_[MixKey(key) >> (64 - num_shard_bits_)];
}

Status LRUCache::GetBlock(const BlockRequest& request, BlockLoader load,
                          std::shared_ptr<const LoadedBlock>* block) {
  block->reset();
  LRUCacheShard& shard = ShardFor(request.key);
  if (LRUEntry* e = shard.Lookup(request.key)) {
    *block = HandleFor(&shard, e);
    return Status::OK();
  }
  std::unique_ptr<LoadedBlock> loaded;
  Status s = load(&loaded);
  if (!s.ok()) return s;
  if (request.fill_cache) {
    if (LRUEntry* e = shard.Insert(request.key, IsIndexOrFilter(request.kind), &loaded)) {
      *block = HandleFor(&shard, e);
      return Status::OK();
    }
  }
  *block = std::move(loaded);  // not kept: the block lives as long as its holder
  return Status::OK();
}

// A charge spread over every shard (each takes its share of the bytes), so a large charge does
// not empty one shard: bytes / n each, the remainder one byte apiece to the first shards, as
// ConfigureShards splits the capacity.
class LRUCache::ShardedCharge final : public MemoryCharge {
 public:
  ShardedCharge(LRUCache* cache, size_t bytes) : cache_(cache), bytes_(bytes) {}
  ~ShardedCharge() override {
    const size_t n = cache_->NumShards();
    for (size_t i = 0; i < n; i++) {
      if (size_t share = Share(bytes_, n, i)) cache_->shards_[i].Unreserve(share);
    }
  }
  size_t bytes() const override { return bytes_; }

  static size_t Share(size_t bytes, size_t n, size_t i) {
    return bytes / n + (i < bytes % n ? 1 : 0);
  }

 private:
  LRUCache* const cache_;
  const size_t bytes_;
};

Status LRUCache::ChargeMemory(size_t bytes, std::unique_ptr<MemoryCharge>* charge) {
  charge->reset();
  const size_t n = NumShards();
  auto refused = [bytes] {
    return Status::MemoryLimit("the block cache (strict_capacity_limit) cannot fit " +
                               std::to_string(bytes) + " bytes beside its pinned blocks");
  };
  // A first pass that evicts nothing, so a charge that cannot fit usually leaves every shard
  // as it was; a shard whose pinned usage grew between the passes still refuses below (its
  // earlier shards then may have evicted idle blocks for nothing).
  if (HasStrictCapacityLimit()) {
    for (size_t i = 0; i < n; i++) {
      if (!shards_[i].CanReserve(ShardedCharge::Share(bytes, n, i))) return refused();
    }
  }
  for (size_t i = 0; i < n; i++) {
    const size_t share = ShardedCharge::Share(bytes, n, i);
    if (share == 0 || shards_[i].Reserve(share)) continue;
    for (size_t j = 0; j < i; j++) {  // refused: give back what the earlier shards took
      if (size_t taken = ShardedCharge::Share(bytes, n, j)) shards_[j].Unreserve(taken);
    }
    return refused();
  }
  *charge = std::make_unique<ShardedCharge>(this, bytes);
  return Status::OK();
}

bool LRUCache::IsCharged(const std::shared_ptr<const LoadedBlock>& block) const {
  return std::get_deleter<EntryReleaser>(block) != nullptr;  // only cache entries have one
}

uint64_t LRUCache::NewCacheIdPrefix() {
  return next_prefix_.fetch_add(1) << kCacheIdPrefixShift;
}

std::shared_ptr<Cache> NewLRUCache(const LRUCacheOptions& options) {
  if (options.num_shard_bits > kMaxShardBits) return nullptr;
  if (!(options.high_pri_pool_ratio >= 0.0 && options.high_pri_pool_ratio <= 1.0)) {
    return nullptr;
  }
  return std::make_shared<LRUCache>(options);
}

std::shared_ptr<Cache> NewLRUCache(size_t capacity, int num_shard_bits,
                                   bool strict_capacity_limit, double high_pri_pool_ratio) {
  LRUCacheOptions options;
  options.capacity = capacity;
  options.num_shard_bits = num_shard_bits;
  options.strict_capacity_limit = strict_capacity_limit;
  options.high_pri_pool_ratio = high_pri_pool_ratio;
  return NewLRUCache(options);
}

}  // namespace shale
