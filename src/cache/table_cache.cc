#include "cache/table_cache.h"

#include <utility>

#include "base/filename.h"

namespace shale {
namespace {

// Keeps a table open for as long as an iterator over it lives.
class PinnedTableIterator final : public InternalIterator {
 public:
  PinnedTableIterator(std::shared_ptr<const CachedTable> table,
                      std::unique_ptr<InternalIterator> iter)
      : table_(std::move(table)), iter_(std::move(iter)) {}

  bool Valid() const override { return iter_->Valid(); }
  void SeekToFirst() override { iter_->SeekToFirst(); }
  void SeekToLast() override { iter_->SeekToLast(); }
  void Seek(std::string_view target) override { iter_->Seek(target); }
  void SeekForPrev(std::string_view target) override { iter_->SeekForPrev(target); }
  void Next() override { iter_->Next(); }
  void Prev() override { iter_->Prev(); }
  std::string_view key() const override { return iter_->key(); }
  std::string_view value() const override { return iter_->value(); }
  Status status() const override { return iter_->status(); }

 private:
  std::shared_ptr<const CachedTable> table_;  // declared first: outlives iter_
  std::unique_ptr<InternalIterator> iter_;
};

}  // namespace

TableCache::TableCache(std::string dbname, FileSystem* fs, const InternalKeyComparator* icmp,
                       BlockSource* block_source, const TableReaderOptions& reader_options,
                       size_t capacity)
    : dbname_(std::move(dbname)),
      fs_(fs),
      icmp_(icmp),
      block_source_(block_source),
      reader_options_(reader_options),
      capacity_(capacity < 1 ? 1 : capacity) {}

TableCache::~TableCache() = default;

Status TableCache::Open(uint64_t number, uint64_t file_size,
                        std::shared_ptr<const CachedTable>* table) const {
  const std::string path = TableFileName(dbname_, number);
  std::unique_ptr<RandomAccessFile> file;
  Status s = fs_->NewRandomAccessFile(path, &file);
  if (!s.ok()) return s;
  auto cached = std::make_shared<CachedTable>();
  s = TableReader::Open(reader_options_, std::move(file), file_size, path, number, icmp_,
                        block_source_, &cached->reader);
  if (!s.ok()) return s;
  cached->tombstones = std::make_unique<RangeTombstones>(icmp_->user_comparator());
  std::unique_ptr<InternalIterator> tombstones = cached->reader->NewRangeTombstoneIterator();
  s = cached->tombstones->AddAll(tombstones.get());
  if (!s.ok()) return Status::Corruption(path + ": range deletions: " + s.ToString());
  cached->tombstones->Finish();
  *table = std::move(cached);
  return Status::OK();
}

Status TableCache::Find(uint64_t number, uint64_t file_size,
                        std::shared_ptr<const CachedTable>* table) {
  {
    MutexLock lock(&mu_);
    auto it = index_.find(number);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // now most recently used
      *table = it->second->second;
      return Status::OK();
    }
  }
  std::shared_ptr<const CachedTable> opened;
  Status s = Open(number, file_size, &opened);
  if (!s.ok()) return s;
  MutexLock lock(&mu_);
  auto it = index_.find(number);
  if (it != index_.end()) {  // another thread opened it meanwhile: use that one
    *table = it->second->second;
    return Status::OK();
  }
  lru_.emplace_front(number, opened);
  index_[number] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();  // closes the file unless a reader still holds the table
  }
  *table = std::move(opened);
  return Status::OK();
}

std::unique_ptr<InternalIterator> TableCache::NewIterator(const TableReadOptions& options,
                                                          uint64_t number, uint64_t file_size) {
  std::shared_ptr<const CachedTable> table;
  Status s = Find(number, file_size, &table);
  if (!s.ok()) return NewEmptyInternalIterator(s);
  std::unique_ptr<InternalIterator> iter = table->reader->NewIterator(options);
  return std::make_unique<PinnedTableIterator>(std::move(table), std::move(iter));
}

void TableCache::Evict(uint64_t number) {
  std::shared_ptr<const CachedTable> dropped;  // released after the lock
  MutexLock lock(&mu_);
  auto it = index_.find(number);
  if (it == index_.end()) return;
  dropped = std::move(it->second->second);
  lru_.erase(it->second);
  index_.erase(it);
}

size_t TableCache::NumOpen() const {
  MutexLock lock(&mu_);
  return lru_.size();
}

}  // namespace shale
