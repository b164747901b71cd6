// TableFileSink: writes a sorted stream of distinct user keys into table files cut at a target
// size, ready for DB::IngestExternalFile. Every entry is a value at sequence number 0, as
// SstFileWriter writes them; the files are built by the engine's TableBuilder directly (the
// stream is already sorted and distinct, so SstFileWriter's per-key order check and key copy
// would be wasted work), synced and closed before they are reported.
//
// Files are named <path_prefix><6-digit number>.sst, numbered from 1 in key order. A file is
// finished once its size reaches target_file_size (so it ends at most a block past it), and
// at Finish.
//
// Ownership: the sink borrows the file system and the comparator (both must outlive it). On
// failure, or when the sink is destroyed before Finish, the files it created stay where they
// are: created_files() lists them for the caller to delete.
//
// Thread-safety: one thread at a time; sinks with distinct prefixes are independent.
#ifndef SHALE_BULK_TABLE_SINK_H_
#define SHALE_BULK_TABLE_SINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/compression_type.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "table/table_builder.h"

namespace shale::bulk {

struct TableSinkOptions {
  FileSystem* file_system = nullptr;
  TableOptions table_options;
  CompressionType compression = kNoCompression;
  int compression_level = 0;
  const InternalKeyComparator* comparator = nullptr;
  uint64_t target_file_size = 64 << 20;
  std::string path_prefix;
};

class TableFileSink {
 public:
  explicit TableFileSink(TableSinkOptions options);
  // Abandons an unfinished file (it stays on disk: see created_files()).
  ~TableFileSink();

  TableFileSink(const TableFileSink&) = delete;
  TableFileSink& operator=(const TableFileSink&) = delete;

  // Adds key -> value. REQUIRES: key is greater than every key added before. Errors are
  // sticky.
  Status Add(std::string_view key, std::string_view value);
  // Finishes the open file, if any.
  Status Finish();

  // The finished files, in key order.
  const std::vector<std::string>& files() const { return files_; }
  // Every file created, finished or not.
  const std::vector<std::string>& created_files() const { return created_; }
  uint64_t file_bytes() const { return file_bytes_; }
  uint64_t entries() const { return entries_; }

 private:
  Status OpenFile();
  Status FinishFile();

  const TableSinkOptions options_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;  // non-null while a file is open
  std::vector<std::string> files_;
  std::vector<std::string> created_;
  std::string ikey_;  // scratch for the internal key
  uint64_t file_bytes_ = 0;
  uint64_t entries_ = 0;
  Status status_;
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_TABLE_SINK_H_
