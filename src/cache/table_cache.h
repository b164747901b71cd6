// TableCache: the tables of one DB in parsed form (footer, index, filter, properties, range
// deletions), as an LRU of TableReaders keyed by file number; and, apart from them, the pool
// of the tables' file descriptors (TableFilePool, the DB's file-descriptor limiter).
//
// A parsed table holds no file descriptor: its reader reads through a pooled file, which takes
// the table's descriptor from the pool for each block read and hands it back after the pread
// (table_file_pool.h). So the number of tables the cache keeps parsed (capacity(): in a DB,
// max_open_files less its reserve, or unlimited with -1) and the number of descriptors open
// (file_capacity(), from max_open_files and the process's RLIMIT_NOFILE) are separate
// budgets: a DB of any number of tables serves every read, scans over all of them included,
// within a small descriptor budget, and a Get never re-reads an index or a filter because a
// descriptor was closed (only because its table was evicted from a full cache). The memory of
// the parsed tables is their index and filter bytes (ApproximateReadersMemory), bounded by
// capacity(); with cache_index_and_filter_blocks those live in the block cache and are
// bounded by it; with charge_readers_memory (TableOptions::charge_table_reader_memory) they
// stay in the readers but are charged to the block cache, so data blocks make room for them
// and the two together stay within the cache's capacity.
//
// A table is handed out as a std::shared_ptr<const CachedTable>: whoever holds the pointer (a
// Get in progress, an iterator) keeps the parsed table, even if it is evicted meanwhile.
// Eviction only drops the cache's own reference.
//
// Opening reads the footer, index and filter (TableReader::Open) and fragments the table's
// range deletions once, so point lookups can check them with one binary search. Each reader's
// id in the block source is `cache_id_prefix | file number`, so several DBs can share one
// block cache. A table opened for level 0 (the `level` argument of Find and NewIterator, as
// the version says at open time) pins its index and filter in the block source when the cache
// was made with pin_l0_index_and_filter; the choice is fixed for as long as the table stays
// cached.
//
// Running out of file descriptors is the pool's to handle (table_file_pool.h): it closes idle
// descriptors, learns the limit, and waits a bounded time for reads in flight; "Too many open
// files" reaches a caller only when descriptors outside the pool hold the limit for the whole
// wait.
//
// Misses of one table are single-flight: the first thread parses it, the others that miss it
// meanwhile wait for that result (the table, or the error) instead of parsing it again.
//
// Close (the DB is closing): the cache drops every table, refuses new ones (Find fails with
// ShutdownInProgress), and the pool pins the descriptors of the tables readers still hold
// (table_file_pool.h), so those readers keep working even if the files are deleted by another
// process later; each descriptor is closed when the last holder of its table lets go.
//
// Thread-safety: every method may be called from any thread. Tables are opened (parsed) and
// dropped without the cache's lock held.
#ifndef SHALE_CACHE_TABLE_CACHE_H_
#define SHALE_CACHE_TABLE_CACHE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "cache/table_file_pool.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "table/block_source.h"
#include "table/table_reader.h"
#include "util/mutex.h"

namespace shale {

// A parsed table and what the DB precomputes from it.
struct CachedTable {
  // The reader's memory charged to the block source (TableCache's charge_readers_memory), or
  // null. Released when the parsed table goes, after the reader (declared first).
  std::unique_ptr<MemoryCharge> memory_charge;
  std::unique_ptr<TableReader> reader;
  // The table's range deletions, fragmented. Empty when it has none.
  std::unique_ptr<RangeTombstones> tombstones;
};

class TableCache {
 public:
  // No bound on the number of parsed tables (for `capacity`).
  static constexpr size_t kUnlimited = SIZE_MAX;

  // `fs`, `icmp` and `block_source` must outlive the cache. `capacity`: the most tables kept
  // parsed, >= 1 (0 is taken as 1), or kUnlimited. `max_open_files`: the most table
  // descriptors open at once (0: as many as `capacity`). `cache_id_prefix` is or-ed with each
  // file number to make the reader's id in `block_source`; it must leave the file numbers'
  // bits clear. `charge_readers_memory`: charge each parsed table's memory
  // (TableReader::ApproximateMemoryUsage) to `block_source` (BlockSource::ChargeMemory) for as
  // long as the table is parsed. When a strict cache refuses a charge, the least recently used
  // parsed tables make room; a table that does not fit even then serves the callers that asked
  // for it and is not kept.
  TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
             BlockSource* block_source, const TableReaderOptions& reader_options,
             size_t capacity, uint64_t cache_id_prefix = 0,
             bool pin_l0_index_and_filter = false, size_t max_open_files = 0,
             bool charge_readers_memory = false);
  ~TableCache();

  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // The parsed table with file number `number` (its size is `file_size`, from the MANIFEST),
  // parsing it on a miss (ShutdownInProgress after Close). `level` is the table's level in the
  // version asking (-1: unknown); it matters only when the table is parsed. `global_seqno` is
  // the file's FileMetaData::global_seqno (0 for every file that was not ingested with one); a
  // file number's global sequence never changes. Errors name the file.
  //
  // `pinnable` (optional, for point reads that keep the table with the file's metadata,
  // FileMetaData::table_pin): *pinnable is set when the cache keeps the table it handed out
  // until Evict or Close (KeepsTablesUntilEvicted holds and the cache holds this table), and
  // the cache then marks it so: it is never dropped to make room for another table's charge,
  // so a pin keeps nothing the cache does not. This is RocksDB's rule for max_open_files = -1
  // (a table stays open for its file's life): a block cache made strict later does not evict
  // a marked table's charge; a new table that does not fit then is served and not kept.
  [[nodiscard]] Status Find(uint64_t number, uint64_t file_size,
                            std::shared_ptr<const CachedTable>* table, int level = -1,
                            SequenceNumber global_seqno = 0, bool* pinnable = nullptr);

  // True when the cache may mark the tables it hands out as kept until Evict or Close (see
  // Find's `pinnable`): the number of parsed tables is unbounded, and their memory is either
  // not charged or charged to a block source that cannot refuse it now (a strict one makes
  // room by dropping tables).
  bool KeepsTablesUntilEvicted() const {
    return capacity_ == kUnlimited &&
           !(charge_readers_memory_ && block_source_->MayRefuseCharges());
  }

  // An iterator over the point entries of the table; it keeps the parsed table while it
  // lives (not a descriptor). On error, an empty iterator carrying the error.
  std::unique_ptr<InternalIterator> NewIterator(const TableReadOptions& options, uint64_t number,
                                                uint64_t file_size, int level = -1,
                                                SequenceNumber global_seqno = 0);

  // Forgets the table (its file is being deleted; the number may be reused). Holders of the
  // parsed table keep it, and its descriptor if it is open, until they let go; the
  // descriptor is closed then.
  void Evict(uint64_t number);

  // The DB starts closing: a read short of file descriptors held outside the pool fails at
  // once from now on instead of waiting for them (TableFilePool::CancelWaits), so Close does
  // not wait that long for a compaction. Call before waiting for background work, and Close()
  // after it.
  void CancelWaits() { pool_->CancelWaits(); }

  // The DB is closing: drops every table and refuses new ones from now on (see above). The
  // tables readers hold keep their descriptors until their last holder lets go.
  void Close();

  // Tables the cache keeps parsed (not counting evicted ones readers still hold).
  size_t NumTables() const;
  // The most tables kept parsed (kUnlimited: no bound).
  size_t capacity() const { return capacity_; }
  // Bytes the parsed tables the cache holds keep in memory
  // (TableReader::ApproximateMemoryUsage, summed).
  size_t ApproximateReadersMemory() const;
  // Whether those bytes are charged to the block source (the constructor's
  // charge_readers_memory).
  bool charges_readers_memory() const { return charge_readers_memory_; }

  // The descriptor pool's figures (table_file_pool.h): descriptors open now, the most kept
  // open now (lowered once the descriptor limit was hit), the configured most, the most open
  // at once so far, and opens that failed with "Too many open files".
  size_t NumOpenFiles() const { return pool_->NumOpen(); }
  size_t file_capacity() const { return pool_->capacity(); }
  size_t configured_file_capacity() const { return pool_->configured_capacity(); }
  size_t PeakOpenFiles() const { return pool_->PeakOpen(); }
  uint64_t TooManyOpenFilesHits() const { return pool_->TooManyOpenFilesHits(); }

  // How long a read waits for a descriptor when the descriptor limit is hit and nothing idle
  // is left to close. Default: 3 s.
  std::chrono::milliseconds max_descriptor_wait() const { return pool_->max_descriptor_wait(); }
  void set_max_descriptor_wait(std::chrono::milliseconds wait) {
    pool_->set_max_descriptor_wait(wait);
  }
  // How long the pool's capacity, cut when the descriptor limit was hit, grows back only up to
  // the cut's level (keeping the room it left for the DB's other files) after the limit was
  // last hit. Default: 5 minutes (TableFilePool::kDefaultHeadroomHold).
  std::chrono::milliseconds headroom_hold() const { return pool_->headroom_hold(); }
  void set_headroom_hold(std::chrono::milliseconds hold) { pool_->set_headroom_hold(hold); }

 private:
  struct Entry {
    uint64_t number;
    std::shared_ptr<const CachedTable> table;
    size_t memory;  // table->reader->ApproximateMemoryUsage(), fixed once parsed
    // Handed out as pinnable (Find): kept until Evict or Close, never dropped for room.
    bool kept_for_file_life = false;
  };
  // A parse under way (single flight): the threads missing the same table wait for it.
  struct Pending {
    bool done = false;
    bool evicted = false;  // Evict or Close came while it was parsed: do not cache it
    Status status;
    std::shared_ptr<const CachedTable> table;
  };
  using LruList = std::list<Entry>;
  using Dropped = std::vector<std::shared_ptr<const CachedTable>>;

  // Parses the table (reading through the pool).
  [[nodiscard]] Status Open(uint64_t number, uint64_t file_size, int level,
                            SequenceNumber global_seqno,
                            std::shared_ptr<CachedTable>* table) const;
  // Charges the table's reader memory to the block source (table->memory_charge). When a
  // strict cache refuses, drops the least recently used parsed tables one at a time (never one
  // kept for its file's life) and tries again; false once none is left to drop.
  bool Charge(CachedTable* table) ABSL_LOCKS_EXCLUDED(mu_);
  // Moves the entry to *dropped and out of the cache.
  void DropLocked(LruList::iterator it, Dropped* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // When `pinnable` is not null and KeepsTablesUntilEvicted: sets *pinnable and marks the
  // entry kept for its file's life (permanently: until Evict or Close).
  void MarkPinnableLocked(LruList::iterator it, bool* pinnable) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dbname_;
  const InternalKeyComparator* const icmp_;
  BlockSource* const block_source_;
  const TableReaderOptions reader_options_;
  const size_t capacity_;  // >= 1
  const uint64_t cache_id_prefix_;
  const bool pin_l0_index_and_filter_;
  const bool charge_readers_memory_;
  // The tables' descriptors. Shared with the pooled files of the readers, which may outlive
  // the cache.
  const std::shared_ptr<TableFilePool> pool_;

  // Guards the fields below. Never held while a table is parsed or dropped.
  mutable Mutex mu_;
  // Most recently used first.
  LruList lru_ ABSL_GUARDED_BY(mu_);
  // Where each parsed table sits in lru_. Invariant: index_ and lru_ hold the same numbers,
  // and lru_.size() <= capacity_ whenever mu_ is released.
  absl::flat_hash_map<uint64_t, LruList::iterator> index_ ABSL_GUARDED_BY(mu_);
  // Sum of Entry::memory over lru_.
  size_t readers_memory_ ABSL_GUARDED_BY(mu_) = 0;
  // Parses under way, by file number. Invariant: no number is in both index_ and pending_.
  absl::flat_hash_map<uint64_t, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  // Signalled when a parse ends.
  CondVar pending_cv_;
  // Close() was called: Find refuses tables not cached (there are none).
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace shale

#endif  // SHALE_CACHE_TABLE_CACHE_H_
