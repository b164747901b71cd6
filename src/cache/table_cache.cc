#include "cache/table_cache.h"

#include <algorithm>
#include <iterator>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "fs/posix_errors.h"

namespace shale {

TableCache::TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
                       BlockSource* block_source, const TableReaderOptions& reader_options,
                       size_t capacity, uint64_t cache_id_prefix, bool pin_l0_index_and_filter)
    : dbname_(std::move(dbname)),
      fs_(fs),
      icmp_(icmp),
      block_source_(block_source),
      reader_options_(reader_options),
      configured_capacity_(std::max<size_t>(capacity, 1)),
      cache_id_prefix_(cache_id_prefix),
      pin_l0_index_and_filter_(pin_l0_index_and_filter),
      capacity_(configured_capacity_) {}

TableCache::~TableCache() = default;

Status TableCache::Open(uint64_t number, uint64_t file_size, int level,
                        SequenceNumber global_seqno,
                        std::shared_ptr<const CachedTable>* table) const {
  const std::string path = TableFileName(dbname_, number);
  std::unique_ptr<RandomAccessFile> file;
  Status s = fs_->NewRandomAccessFile(path, &file);
  if (!s.ok()) return s;
  TableReaderOptions options = reader_options_;
  if (level == 0 && pin_l0_index_and_filter_) options.pin_index_and_filter = true;
  options.global_seqno = global_seqno;
  auto cached = std::make_shared<CachedTable>();
  s = TableReader::Open(options, std::move(file), file_size, path, cache_id_prefix_ | number,
                        icmp_, block_source_, &cached->reader);
  if (!s.ok()) return s;
  cached->tombstones = std::make_unique<RangeTombstones>(icmp_->user_comparator());
  std::unique_ptr<InternalIterator> tombstones = cached->reader->NewRangeTombstoneIterator();
  s = cached->tombstones->AddAll(tombstones.get());
  if (!s.ok()) return Status::Corruption(path + ": range deletions: " + s.ToString());
  cached->tombstones->Finish();
  *table = std::move(cached);
  return Status::OK();
}

void TableCache::DropLocked(LruList::iterator it, Dropped* dropped) {
  readers_memory_ -= it->memory;
  index_.erase(it->number);
  dropped->push_back(std::move(it->table));
  lru_.erase(it);
}

bool TableCache::ShrinkForDescriptorLimitLocked(Dropped* dropped) {
  too_many_open_files_hits_++;
  // The tables open or being opened (by other threads) when the limit was hit evidently fit;
  // keep one fewer (an open briefly holds one more), and 1/16 fewer again as headroom.
  const size_t fits = lru_.size() + (opening_ - 1);
  if (fits > 1) capacity_ = std::min(capacity_, std::max<size_t>(fits - 1 - fits / 16, 1));
  // Make room for the table being opened, then make sure one file really closes.
  bool closed_one = false;
  while (!lru_.empty() && lru_.size() + 1 > capacity_) {
    auto victim = std::prev(lru_.end());
    closed_one |= victim->table.use_count() == 1;
    DropLocked(victim, dropped);
  }
  for (auto it = lru_.rbegin(); !closed_one && it != lru_.rend(); ++it) {
    if (it->table.use_count() != 1) continue;  // a reader holds it: its file would stay open
    DropLocked(std::prev(it.base()), dropped);
    closed_one = true;
  }
  return closed_one;
}

Status TableCache::OpenWithRetry(uint64_t number, uint64_t file_size, int level,
                                 SequenceNumber global_seqno,
                                 std::shared_ptr<const CachedTable>* table) {
  using Clock = std::chrono::steady_clock;
  std::chrono::milliseconds wait;
  {
    MutexLock lock(&mu_);
    opening_++;
    wait = max_descriptor_wait_;
  }
  const Clock::time_point deadline = Clock::now() + wait;
  std::chrono::milliseconds pause(1);
  Status s;
  for (;;) {
    s = Open(number, file_size, level, global_seqno, table);
    if (s.ok() || !IsTooManyOpenFiles(s)) break;
    Dropped dropped;
    bool closed_one;
    {
      MutexLock lock(&mu_);
      closed_one = ShrinkForDescriptorLimitLocked(&dropped);
    }
    dropped.clear();  // closes the idle tables' files, outside the lock
    if (closed_one) continue;  // a descriptor is free now: retry at once
    if (Clock::now() >= deadline) {
      // The message ends with our words, so IsTooManyOpenFiles() does not match it again.
      s = Status::IOError(s.message(),
                          absl::StrCat("the table cache could not free a file descriptor within ",
                                       wait.count(), " ms (no idle table left to close)"));
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  MutexLock lock(&mu_);
  opening_--;
  return s;
}

Status TableCache::Find(uint64_t number, uint64_t file_size,
                        std::shared_ptr<const CachedTable>* table, int level,
                        SequenceNumber global_seqno) {
  {
    MutexLock lock(&mu_);
    auto it = index_.find(number);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // now most recently used
      *table = it->second->table;
      return Status::OK();
    }
  }
  std::shared_ptr<const CachedTable> opened;
  Status s = OpenWithRetry(number, file_size, level, global_seqno, &opened);
  if (!s.ok()) return s;
  const size_t memory = opened->reader->ApproximateMemoryUsage();
  Dropped dropped;  // released after the lock: closes their files unless a reader holds them
  MutexLock lock(&mu_);
  auto it = index_.find(number);
  if (it != index_.end()) {  // another thread opened it meanwhile: use that one
    dropped.push_back(std::move(opened));
    *table = it->second->table;
    return Status::OK();
  }
  lru_.push_front(Entry{number, opened, memory});
  index_[number] = lru_.begin();
  readers_memory_ += memory;
  while (lru_.size() > capacity_) DropLocked(std::prev(lru_.end()), &dropped);
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
  Dropped dropped;  // released after the lock
  MutexLock lock(&mu_);
  auto it = index_.find(number);
  if (it == index_.end()) return;
  DropLocked(it->second, &dropped);
}

size_t TableCache::NumOpen() const {
  MutexLock lock(&mu_);
  return lru_.size();
}

size_t TableCache::capacity() const {
  MutexLock lock(&mu_);
  return capacity_;
}

size_t TableCache::ApproximateReadersMemory() const {
  MutexLock lock(&mu_);
  return readers_memory_;
}

uint64_t TableCache::TooManyOpenFilesHits() const {
  MutexLock lock(&mu_);
  return too_many_open_files_hits_;
}

std::chrono::milliseconds TableCache::max_descriptor_wait() const {
  MutexLock lock(&mu_);
  return max_descriptor_wait_;
}

void TableCache::set_max_descriptor_wait(std::chrono::milliseconds wait) {
  MutexLock lock(&mu_);
  max_descriptor_wait_ = wait;
}

}  // namespace shale
