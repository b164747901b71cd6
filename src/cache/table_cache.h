// TableCache: the open table files of one DB, as an LRU of TableReaders keyed by file number.
// It is the DB's file-descriptor limiter: at most `capacity` tables are kept open; opening one
// more closes the least recently used table that nobody is reading.
//
// A table is handed out as a std::shared_ptr<const CachedTable>: whoever holds the pointer
// (a Get in progress, an iterator) keeps the reader and its file open, even if the table is
// evicted meanwhile, so readers in use are never closed under a reader. Eviction only drops the
// cache's own reference.
//
// Opening reads the footer, index and filter (TableReader::Open) and fragments the table's
// range deletions once, so point lookups can check them with one binary search.
//
// Thread-safety: every method may be called from any thread. Tables are opened without the
// cache's lock held; two threads that miss the same table at once may both open it, and one
// copy is dropped.
#ifndef SHALE_CACHE_TABLE_CACHE_H_
#define SHALE_CACHE_TABLE_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "util/mutex.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "table/block_source.h"
#include "table/table_reader.h"

namespace shale {

// An open table and what the DB precomputes from it.
struct CachedTable {
  std::unique_ptr<TableReader> reader;
  // The table's range deletions, fragmented. Empty when it has none.
  std::unique_ptr<RangeTombstones> tombstones;
};

class TableCache {
 public:
  // `fs`, `icmp` and `block_source` must outlive the cache. `capacity` >= 1 tables.
  TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
             BlockSource* block_source, const TableReaderOptions& reader_options,
             size_t capacity);
  ~TableCache();

  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // The open table with file number `number` (its size is `file_size`, from the MANIFEST),
  // opening it on a miss. Errors name the file.
  [[nodiscard]] Status Find(uint64_t number, uint64_t file_size,
                            std::shared_ptr<const CachedTable>* table);

  // An iterator over the point entries of the table; it keeps the table open while it lives.
  // On error, an empty iterator carrying the error.
  std::unique_ptr<InternalIterator> NewIterator(const TableReadOptions& options, uint64_t number,
                                                uint64_t file_size);

  // Forgets the table (its file is being deleted). Holders of it keep it until they let go.
  void Evict(uint64_t number);

  // Tables currently held open by the cache.
  size_t NumOpen() const;
  // How many tables the cache keeps open at most.
  size_t capacity() const { return capacity_; }

 private:
  using LruList = std::list<std::pair<uint64_t, std::shared_ptr<const CachedTable>>>;

  [[nodiscard]] Status Open(uint64_t number, uint64_t file_size,
                            std::shared_ptr<const CachedTable>* table) const;

  const std::string dbname_;
  FileSystem* const fs_;
  const InternalKeyComparator* const icmp_;
  BlockSource* const block_source_;
  const TableReaderOptions reader_options_;
  const size_t capacity_;

  mutable Mutex mu_;
  // Most recently used first. Guarded by mu_.
  LruList lru_ ABSL_GUARDED_BY(mu_);
  // Where each open table sits in lru_. Guarded by mu_.
  absl::flat_hash_map<uint64_t, LruList::iterator> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale

#endif  // SHALE_CACHE_TABLE_CACHE_H_
