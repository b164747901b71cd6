// External table files, as IngestExternalFile takes them in: checking a file before it joins
// the DB, and copying it into the DB's directory.
//
// An ingestible file is a table (doc/table_format.md) written with the DB's comparator whose
// every entry -- point entries and range deletions -- has sequence number 0, with the point
// entries' user keys strictly increasing: what shale::SstFileWriter writes. Ingestion gives the
// file its real sequence number (FileMetaData::global_seqno) without rewriting it.
//
// Thread-safety: free functions over their arguments; different files may be inspected and
// copied from different threads at once.
#ifndef SHALE_DB_EXTERNAL_FILE_H_
#define SHALE_DB_EXTERNAL_FILE_H_

#include <cstdint>
#include <string>

#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "util/progress_reporter.h"
#include "version/file_metadata.h"

namespace shale {

// What inspecting one external file found.
struct ExternalFileInfo {
  std::string path;  // as the caller named it
  // Boundaries (at sequence 0; a range deletion's end as the largest key, as flushes record
  // it), entry counts, raw sizes and file size. number, global_seqno: not set.
  FileMetaData meta;
  // The user-key span the file may touch, both ends inclusive (a range deletion's exclusive
  // end counts as touched: the check errs on the side of overlap).
  std::string smallest_user_key;
  std::string largest_user_key;
  // Whether the file holds merge operands (it then needs a DB with a merge operator).
  bool has_merge_operands = false;
};

// Reads the whole file at `path`: its format and block checksums (every block when
// `verify_all_checksums`, otherwise the blocks a full scan reads: footer, tail, index and data),
// the comparator it was written with, every entry's sequence number and type, and the order
// of its keys. Errors name the file: NotFound / IOError as the file system says; Corruption for
// a damaged file or keys out of order; InvalidArgument for a file of another comparator, with
// non-zero sequence numbers, or with no entries. Point entries may be values, deletions, single
// deletions and merge operands.
[[nodiscard]] Status InspectExternalFile(FileSystem* fs, const InternalKeyComparator& icmp,
                                         const std::string& path, bool verify_all_checksums,
                                         ExternalFileInfo* info);

// Copies `src` to `target` (created or truncated) and syncs it, counting the bytes copied in
// *progress (when not null). On failure `target` is deleted.
[[nodiscard]] Status CopyFileSynced(FileSystem* fs, const std::string& src,
                                    const std::string& target,
                                    ProgressReporter* progress = nullptr);

// Makes the contents of the existing file `path` durable (opens it to append, syncs it, closes
// it; nothing is written). A file brought in by a hard link shares its data with a file that
// whoever wrote it (cp, rsync, a job on another host) may never have synced: the link alone
// makes only the name durable, once the directory is synced.
[[nodiscard]] Status SyncExistingFile(FileSystem* fs, const std::string& path);

}  // namespace shale

#endif  // SHALE_DB_EXTERNAL_FILE_H_
