// Helpers for the table tests: build a table from a list of entries into a FileSystem, open it,
// and the entry generators and model the tests compare against.
#ifndef SHALE_TEST_TABLE_TABLE_TEST_UTIL_H_
#define SHALE_TEST_TABLE_TABLE_TEST_UTIL_H_

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/table_options.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "testutil/status_matchers.h"

namespace shale {

using Entry = std::pair<std::string, std::string>;  // internal key, value

// Writes `entries` (point entries in order, range deletions anywhere) as a table at `path`.
inline Status BuildTable(FileSystem* fs, const std::string& path, const TableOptions& options,
                         CompressionType compression, const InternalKeyComparator* cmp,
                         const std::vector<Entry>& entries, TableProperties* props = nullptr) {
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  TableBuilder builder(options, compression, /*compression_level=*/1, cmp, file.get(), path);
  for (const Entry& e : entries) builder.Add(e.first, e.second);
  s = builder.Finish();
  if (s.ok()) s = file->Close();
  if (s.ok() && props != nullptr) *props = builder.properties();
  return s;
}

// A BlockSource that keeps every block it loads (when the request allows), as a block cache
// would, and counts what it does. Tests only: one mutex, held while loading.
class MapBlockSource final : public BlockSource {
 public:
  Status GetBlock(const BlockRequest& request, BlockLoader load,
                  std::shared_ptr<const LoadedBlock>* block) override {
    std::lock_guard<std::mutex> lock(mu_);
    const auto key = std::make_pair(request.key.cache_id, request.key.offset);
    if (auto it = blocks_.find(key); it != blocks_.end()) {
      hits_++;
      *block = it->second;
      return Status::OK();
    }
    std::unique_ptr<LoadedBlock> loaded;
    Status s = load(&loaded);
    if (!s.ok()) return s;
    loads_[static_cast<int>(request.kind)]++;
    std::shared_ptr<const LoadedBlock> shared(std::move(loaded));
    if (request.fill_cache) {
      charge_ += shared->charge();
      blocks_[key] = shared;
    }
    *block = std::move(shared);
    return Status::OK();
  }

  uint64_t hits() const { return hits_; }
  uint64_t loads(BlockKind kind) const { return loads_[static_cast<int>(kind)]; }
  uint64_t total_loads() const { return loads_[0] + loads_[1] + loads_[2]; }
  size_t charge() const { return charge_; }
  void Clear() { blocks_.clear(); }

 private:
  std::mutex mu_;
  std::map<std::pair<uint64_t, uint64_t>, std::shared_ptr<const LoadedBlock>> blocks_;
  uint64_t hits_ = 0;
  uint64_t loads_[3] = {0, 0, 0};
  size_t charge_ = 0;
};

inline Status OpenTable(FileSystem* fs, const std::string& path,
                        const InternalKeyComparator* cmp, std::unique_ptr<TableReader>* reader,
                        BlockSource* source = nullptr,
                        const TableReaderOptions& options = TableReaderOptions()) {
  uint64_t size = 0;
  Status s = fs->GetFileSize(path, &size);
  std::unique_ptr<RandomAccessFile> file;
  if (s.ok()) s = fs->NewRandomAccessFile(path, &file);
  if (!s.ok()) return s;
  return TableReader::Open(options, std::move(file), size, path, /*cache_id=*/1, cmp, source,
                           reader);
}

// Every entry of `it` from first to last.
inline Status ScanAll(InternalIterator* it, std::vector<Entry>* out) {
  out->clear();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out->emplace_back(std::string(it->key()), std::string(it->value()));
  }
  return it->status();
}

// Get through the callback API, collecting every entry offered.
inline Status GetAll(const TableReader& reader, std::string_view user_key, SequenceNumber snapshot,
                     std::vector<Entry>* out, size_t stop_after = SIZE_MAX,
                     TableReadOptions options = TableReadOptions()) {
  out->clear();
  LookupKey lookup(user_key, snapshot);
  return reader.Get(options, lookup.internal_key(), [&](std::string_view k, std::string_view v) {
    out->emplace_back(std::string(k), std::string(v));
    return out->size() < stop_after;
  });
}

}  // namespace shale

#endif  // SHALE_TEST_TABLE_TABLE_TEST_UTIL_H_
