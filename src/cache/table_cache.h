// TableCache: the open table files of one DB, as an LRU of TableReaders keyed by file number.
// It is the DB's file-descriptor limiter: at most capacity() tables are kept open; opening one
// more closes the least recently used table.
//
// A table is handed out as a std::shared_ptr<const CachedTable>: whoever holds the pointer
// (a Get in progress, an iterator) keeps the reader and its file open, even if the table is
// evicted meanwhile, so readers in use are never closed under a reader. Eviction only drops the
// cache's own reference; the file closes when the last holder lets go.
//
// Opening reads the footer, index and filter (TableReader::Open) and fragments the table's
// range deletions once, so point lookups can check them with one binary search. Each reader's
// id in the block source is `cache_id_prefix | file number`, so several DBs can share one
// block cache. A table opened for level 0 (the `level` argument of Find and NewIterator, as
// the version says at open time) pins its index and filter in the block source when the cache
// was made with pin_l0_index_and_filter; the choice is fixed for as long as the table stays
// open.
//
// Running out of file descriptors (the EMFILE policy): when opening a table fails with
// IsTooManyOpenFiles (the process or the system is at its limit), the cache
//   1. lowers its capacity to what evidently fits: one less than the tables it had open or
//      being opened when the limit was hit, less 1/16 of them as room for the DB's other files
//      (WAL, MANIFEST, flush and compaction outputs); never below 1, and never raised again;
//   2. evicts least recently used tables down to that capacity, and at least one table nobody
//      is reading (whose file therefore closes at once), and retries the open at once;
//   3. when every table it holds is in use by a reader (nothing to close), polls: it sleeps a
//      little (1 ms, doubling up to 50 ms) for readers in flight to let go, and retries, until
//      max_descriptor_wait() (3 s by default) has passed since the first attempt. Then it gives
//      up with an IOError (not matched by IsTooManyOpenFiles) saying that the table cache could
//      not free a file descriptor.
// So "Too many open files" reaches a caller only when the cache cannot help: the descriptors
// are held by readers or by something outside the cache for the whole wait.
//
// Thread-safety: every method may be called from any thread. Tables are opened, and dropped
// tables closed, without the cache's lock held; two threads that miss the same table at once
// may both open it, and one copy is dropped.
#ifndef SHALE_CACHE_TABLE_CACHE_H_
#define SHALE_CACHE_TABLE_CACHE_H_

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "table/block_source.h"
#include "table/table_reader.h"
#include "util/mutex.h"

namespace shale {

// An open table and what the DB precomputes from it.
struct CachedTable {
  std::unique_ptr<TableReader> reader;
  // The table's range deletions, fragmented. Empty when it has none.
  std::unique_ptr<RangeTombstones> tombstones;
};

class TableCache {
 public:
  // `fs`, `icmp` and `block_source` must outlive the cache. `capacity` >= 1 tables (0 is taken
  // as 1). `cache_id_prefix` is or-ed with each file number to make the reader's id in
  // `block_source`; it must leave the file numbers' bits clear.
  TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
             BlockSource* block_source, const TableReaderOptions& reader_options,
             size_t capacity, uint64_t cache_id_prefix = 0,
             bool pin_l0_index_and_filter = false);
  ~TableCache();

  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // The open table with file number `number` (its size is `file_size`, from the MANIFEST),
  // opening it on a miss. `level` is the table's level in the version asking (-1: unknown);
  // it matters only when the table is opened. `global_seqno` is the file's
  // FileMetaData::global_seqno (0 for every file that was not ingested with one); a file
  // number's global sequence never changes. Errors name the file.
  [[nodiscard]] Status Find(uint64_t number, uint64_t file_size,
                            std::shared_ptr<const CachedTable>* table, int level = -1,
                            SequenceNumber global_seqno = 0);

  // An iterator over the point entries of the table; it keeps the table open while it lives.
  // On error, an empty iterator carrying the error.
  std::unique_ptr<InternalIterator> NewIterator(const TableReadOptions& options, uint64_t number,
                                                uint64_t file_size, int level = -1,
                                                SequenceNumber global_seqno = 0);

  // Forgets the table (its file is being deleted). Holders of it keep it until they let go.
  void Evict(uint64_t number);

  // Tables currently held open by the cache (not counting evicted ones readers still hold).
  size_t NumOpen() const;
  // How many tables the cache keeps open at most now: the capacity it was made with, or less
  // once the file-descriptor limit has been hit.
  size_t capacity() const;
  // The capacity the cache was made with.
  size_t configured_capacity() const { return configured_capacity_; }
  // Bytes the readers of the tables the cache holds keep in memory
  // (TableReader::ApproximateMemoryUsage, summed).
  size_t ApproximateReadersMemory() const;
  // Opens that failed with "Too many open files" and were retried (or given up on).
  uint64_t TooManyOpenFilesHits() const;

  // How long an open waits for readers to release tables when the descriptor limit is hit and
  // nothing idle is left to close. Default: 3 s.
  std::chrono::milliseconds max_descriptor_wait() const;
  void set_max_descriptor_wait(std::chrono::milliseconds wait);

 private:
  struct Entry {
    uint64_t number;
    std::shared_ptr<const CachedTable> table;
    size_t memory;  // table->reader->ApproximateMemoryUsage(), fixed once opened
  };
  using LruList = std::list<Entry>;
  using Dropped = std::vector<std::shared_ptr<const CachedTable>>;

  // Opens the table once.
  [[nodiscard]] Status Open(uint64_t number, uint64_t file_size, int level,
                            SequenceNumber global_seqno,
                            std::shared_ptr<const CachedTable>* table) const;
  // Opens the table, applying the EMFILE policy above.
  [[nodiscard]] Status OpenWithRetry(uint64_t number, uint64_t file_size, int level,
                                     SequenceNumber global_seqno,
                                     std::shared_ptr<const CachedTable>* table)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Steps 1 and 2 of the policy after an open failed with too many open files. True when a
  // table nobody was reading was dropped, so a descriptor is free once *dropped is destroyed.
  bool ShrinkForDescriptorLimitLocked(Dropped* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the entry to *dropped and out of the cache.
  void DropLocked(LruList::iterator it, Dropped* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dbname_;
  FileSystem* const fs_;
  const InternalKeyComparator* const icmp_;
  BlockSource* const block_source_;
  const TableReaderOptions reader_options_;
  const size_t configured_capacity_;
  const uint64_t cache_id_prefix_;
  const bool pin_l0_index_and_filter_;

  // Guards the fields below. Never held while a file is opened or closed.
  mutable Mutex mu_;
  // Most recently used first.
  LruList lru_ ABSL_GUARDED_BY(mu_);
  // Where each open table sits in lru_. Invariant: index_ and lru_ hold the same numbers.
  absl::flat_hash_map<uint64_t, LruList::iterator> index_ ABSL_GUARDED_BY(mu_);
  // Invariant: 1 <= capacity_ <= configured_capacity_; lru_.size() <= capacity_ whenever mu_
  // is released.
  size_t capacity_ ABSL_GUARDED_BY(mu_);
  // Sum of Entry::memory over lru_.
  size_t readers_memory_ ABSL_GUARDED_BY(mu_) = 0;
  // Opens in progress (by Find misses), for sizing the capacity when the limit is hit.
  size_t opening_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t too_many_open_files_hits_ ABSL_GUARDED_BY(mu_) = 0;
  std::chrono::milliseconds max_descriptor_wait_ ABSL_GUARDED_BY(mu_){3000};
};

}  // namespace shale

#endif  // SHALE_CACHE_TABLE_CACHE_H_
