#include "cache/table_cache.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "base/filename.h"

namespace shale {

TableCache::TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
                       BlockSource* block_source, const TableReaderOptions& reader_options,
                       size_t capacity, uint64_t cache_id_prefix, bool pin_l0_index_and_filter,
                       size_t max_open_files, bool charge_readers_memory)
    : dbname_(std::move(dbname)),
      icmp_(icmp),
      block_source_(block_source),
      reader_options_(reader_options),
      capacity_(std::max<size_t>(capacity, 1)),
      cache_id_prefix_(cache_id_prefix),
      pin_l0_index_and_filter_(pin_l0_index_and_filter),
      charge_readers_memory_(charge_readers_memory),
      pool_(std::make_shared<TableFilePool>(fs, max_open_files == 0 ? capacity_
                                                                    : max_open_files)) {}

TableCache::~TableCache() = default;

Status TableCache::Open(uint64_t number, uint64_t file_size, int level,
                        SequenceNumber global_seqno,
                        std::shared_ptr<CachedTable>* table) const {
  const std::string path = TableFileName(dbname_, number);
  // Opens no descriptor: the reader's reads take one from the pool each.
  std::unique_ptr<RandomAccessFile> file = TableFilePool::NewFile(pool_, number, path);
  TableReaderOptions options = reader_options_;
  if (level == 0 && pin_l0_index_and_filter_) options.pin_index_and_filter = true;
  options.global_seqno = global_seqno;
  auto cached = std::make_shared<CachedTable>();
  Status s = TableReader::Open(options, std::move(file), file_size, path,
                               cache_id_prefix_ | number, icmp_, block_source_, &cached->reader);
  if (!s.ok()) return s;
  cached->tombstones = std::make_unique<RangeTombstones>(icmp_->user_comparator());
  std::unique_ptr<InternalIterator> tombstones = cached->reader->NewRangeTombstoneIterator();
  s = cached->tombstones->AddAll(tombstones.get());
  if (!s.ok()) return Status::Corruption(path + ": range deletions: " + s.ToString());
  cached->tombstones->Finish();
  *table = std::move(cached);
  return Status::OK();
}

bool TableCache::Charge(CachedTable* table) {
  const size_t bytes = table->reader->ApproximateMemoryUsage();
  for (;;) {
    if (block_source_->ChargeMemory(bytes, &table->memory_charge).ok()) return true;
    // A strict cache is full of pinned usage: make room by dropping the least recently used
    // parsed table (its charge goes once no reader holds it), then try again.
    Dropped dropped;  // released after the lock
    MutexLock lock(&mu_);
    auto victim = lru_.end();
    for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
      if (!it->kept_for_file_life) {
        victim = std::prev(it.base());
        break;
      }
    }
    if (victim == lru_.end()) return false;
    DropLocked(victim, &dropped);
  }
}

void TableCache::MarkPinnableLocked(LruList::iterator it, bool* pinnable) {
  // Only a table handed out to be pinned is kept for its file's life: those iterators,
  // compactions and checks use may still be dropped for room.
  if (pinnable == nullptr || !KeepsTablesUntilEvicted()) return;
  it->kept_for_file_life = true;
  *pinnable = true;
}

void TableCache::DropLocked(LruList::iterator it, Dropped* dropped) {
  readers_memory_ -= it->memory;
  index_.erase(it->number);
  dropped->push_back(std::move(it->table));
  lru_.erase(it);
}

Status TableCache::Find(uint64_t number, uint64_t file_size,
                        std::shared_ptr<const CachedTable>* table, int level,
                        SequenceNumber global_seqno, bool* pinnable) {
  if (pinnable != nullptr) *pinnable = false;
  std::shared_ptr<Pending> pending;
  {
    MutexLock lock(&mu_);
    if (closed_) return Status::ShutdownInProgress("the DB is closed");
    auto it = index_.find(number);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // now most recently used
      *table = it->second->table;
      MarkPinnableLocked(it->second, pinnable);
      return Status::OK();
    }
    if (auto p = pending_.find(number); p != pending_.end()) {
      // Another thread parses it: wait for its result.
      std::shared_ptr<Pending> other = p->second;
      while (!other->done) pending_cv_.Wait(&mu_);
      if (other->status.ok()) {
        *table = other->table;
        // Pinnable if the cache holds this very table now.
        auto kept = index_.find(number);
        if (kept != index_.end() && kept->second->table == other->table) {
          MarkPinnableLocked(kept->second, pinnable);
        }
      }
      return other->status;
    }
    pending = std::make_shared<Pending>();
    pending_.emplace(number, pending);
  }
  std::shared_ptr<CachedTable> opened;
  Status s = Open(number, file_size, level, global_seqno, &opened);
  // Refused only when a strict cache cannot fit the table even with no other table parsed:
  // then it serves the callers that asked for it and is not kept (as such a cache hands out a
  // block it cannot fit), so the budget holds.
  const bool keep = !s.ok() || !charge_readers_memory_ || Charge(opened.get());
  const size_t memory = s.ok() ? opened->reader->ApproximateMemoryUsage() : 0;
  Dropped dropped;  // released after the lock
  MutexLock lock(&mu_);
  if (pending->evicted) {
    // Evict (or Close) came while it was parsed, perhaps before its pooled file was made, and
    // then that file registered the old file's slot as the number's current one in the pool:
    // retire it again, before another parse of the number can start (pending_ holds it off
    // until now), so that a new file reusing the number gets a descriptor of its own.
    pool_->Retire(number);
  }
  pending_.erase(number);
  pending->done = true;
  pending->status = s;
  pending->table = opened;
  pending_cv_.SignalAll();
  if (!s.ok()) return s;
  // Not cached when its file is being deleted or the cache closed meanwhile, or when its
  // memory could not be charged: the callers that asked for it (and waited) still get it.
  if (keep && !pending->evicted && !closed_) {
    lru_.push_front(Entry{number, opened, memory});
    index_[number] = lru_.begin();
    readers_memory_ += memory;
    while (lru_.size() > capacity_) DropLocked(std::prev(lru_.end()), &dropped);
    if (auto kept = index_.find(number); kept != index_.end()) {
      MarkPinnableLocked(kept->second, pinnable);
    }
  }
  *table = std::move(opened);
  return Status::OK();
}

std::unique_ptr<InternalIterator> TableCache::NewIterator(const TableReadOptions& options,
                                                          uint64_t number, uint64_t file_size,
                                                          int level,
                                                          SequenceNumber global_seqno) {
  std::shared_ptr<const CachedTable> table;
  Status s = Find(number, file_size, &table, level, global_seqno);
  if (!s.ok()) return NewEmptyInternalIterator(s);
  std::unique_ptr<InternalIterator> iter = table->reader->NewIterator(options);
  return NewHoldingIterator(std::move(table), std::move(iter));
}

void TableCache::Evict(uint64_t number) {
  {
    Dropped dropped;  // released after the lock
    MutexLock lock(&mu_);
    auto it = index_.find(number);
    if (it != index_.end()) DropLocked(it->second, &dropped);
    if (auto p = pending_.find(number); p != pending_.end()) p->second->evicted = true;
  }
  // A new file with this number gets a descriptor of its own; the dropped table (if no one
  // holds it) closed its descriptor as it was destroyed above.
  pool_->Retire(number);
}

void TableCache::Close() {
  {
    Dropped dropped;  // released after the lock
    MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    while (!lru_.empty()) DropLocked(lru_.begin(), &dropped);
    for (auto& [number, p] : pending_) p->evicted = true;
  }
  // The tables no one holds are gone, with their descriptors; the rest keep theirs.
  pool_->Shutdown();
}

size_t TableCache::NumTables() const {
  MutexLock lock(&mu_);
  return lru_.size();
}

size_t TableCache::ApproximateReadersMemory() const {
  MutexLock lock(&mu_);
  return readers_memory_;
}

}  // namespace shale
