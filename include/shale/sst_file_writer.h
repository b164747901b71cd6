// SstFileWriter: writes a table file (SST) outside any DB -- in another process, on another
// machine, in a batch job -- from keys given in sorted order; DB::IngestExternalFile then links
// it into a DB. The same shape as RocksDB's SstFileWriter.
//
//   shale::SstFileWriter writer(table_options);
//   s = writer.Open("/tmp/file1.sst");
//   s = writer.Put("a", "1");  s = writer.Put("b", "2");  s = writer.Delete("c");
//   s = writer.Finish(&info);
//
// Rules:
// - Put and Delete take user keys in strictly increasing order of the comparator; a key out of
//   order or repeated fails with InvalidArgument naming it. DeleteRange may come in any order
//   relative to the point keys.
// - Errors are sticky: after the first failure every later call returns it, and Finish (or the
//   destructor) deletes the partial file. A file with no entries cannot be finished.
// - Every entry is written with sequence number 0; ingestion assigns the real one.
//
// Thread-safety: one SstFileWriter is used by one thread at a time; different writers are
// independent.
#ifndef SHALE_SST_FILE_WRITER_H_
#define SHALE_SST_FILE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/comparator.h"
#include "shale/compression_type.h"
#include "shale/export.h"
#include "shale/file_system.h"
#include "shale/limits.h"
#include "shale/status.h"
#include "shale/table_options.h"

namespace shale {

// What Finish reports about the file it wrote.
struct SHALE_EXPORT ExternalSstFileInfo {
  std::string file_path;
  // The first and last user keys of the point entries (Put, Delete); empty if there are none.
  std::string smallest_key;
  std::string largest_key;
  // The smallest start and the largest end of the range deletions; empty if there are none.
  std::string smallest_range_del_key;
  std::string largest_range_del_key;
  uint64_t sequence_number = 0;      // of every entry: always 0
  uint64_t file_size = 0;            // bytes
  uint64_t num_entries = 0;          // point entries
  uint64_t num_range_del_entries = 0;
  int32_t version = 0;               // the table format version
};

class SHALE_EXPORT SstFileWriter {
 public:
  // `compression` applies to data blocks (and index blocks when
  // table_options.enable_index_compression). `comparator` orders the user keys (it must
  // outlive the writer and be the DB's when the file is ingested). `file_system` null means
  // FileSystem::Default().
  explicit SstFileWriter(const TableOptions& table_options,
                         CompressionType compression = kNoCompression,
                         const Comparator* comparator = BytewiseComparator(),
                         std::shared_ptr<FileSystem> file_system = nullptr);
  // Abandons an unfinished file and deletes it.
  ~SstFileWriter();

  SstFileWriter(const SstFileWriter&) = delete;
  SstFileWriter& operator=(const SstFileWriter&) = delete;

  // Creates (or truncates) the file at `file_path`. InvalidArgument if a file is open already.
  Status Open(const std::string& file_path);

  // Adds a value / a deletion / a merge operand for `user_key` (one entry per key). A file
  // with merge operands can only be ingested into a DB with a merge operator; its operands
  // apply on top of what the DB holds for their keys (as DB::Merge would), or on nothing when
  // the file lands below every other version. A key over kMaxKeySize or a value over
  // kMaxValueSize (shale/limits.h) is refused with InvalidArgument; nothing is added then and
  // the file stays open.
  Status Put(std::string_view user_key, std::string_view value);
  Status Delete(std::string_view user_key);
  Status Merge(std::string_view user_key, std::string_view operand);
  // Deletes the keys in [begin_key, end_key). An empty range (begin == end) is ignored;
  // InvalidArgument when end_key < begin_key, or (with nothing added, the file still open)
  // when either key is longer than kMaxKeySize.
  Status DeleteRange(std::string_view begin_key, std::string_view end_key);

  // Writes the rest of the file, syncs and closes it, and fills *file_info if not null. After
  // a failure (here or earlier) the file is deleted and the first error returned.
  Status Finish(ExternalSstFileInfo* file_info = nullptr);

  // Bytes written to the file so far.
  uint64_t FileSize() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace shale

#endif  // SHALE_SST_FILE_WRITER_H_
