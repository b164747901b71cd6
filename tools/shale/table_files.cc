#include "table_files.h"

#include <cstdint>

namespace shale::cli {

Status OpenTableFile(const std::string& path, std::unique_ptr<TableFile>* table) {
  const std::shared_ptr<FileSystem> fs = FileSystem::Default();
  auto t = std::make_unique<TableFile>();
  uint64_t size = 0;
  std::unique_ptr<RandomAccessFile> file;
  Status s = fs->GetFileSize(path, &size);
  if (s.ok()) s = fs->NewRandomAccessFile(path, &file);
  if (s.ok()) s = fs->NewRandomAccessFile(path, &t->raw);
  if (s.ok()) {
    s = TableReader::Open(TableReaderOptions(), std::move(file), size, path, /*cache_id=*/0,
                          &t->icmp, UncachedBlockSource(), &t->reader);
  }
  if (!s.ok()) return s;
  *table = std::move(t);
  return Status::OK();
}

}  // namespace shale::cli
