// BuildTable: writes sorted internal entries (and range deletions) to a new table file, the
// output step of a flush and of WAL recovery.
//
// The file is written, synced and closed, and the directory synced so its entry survives a
// crash; its FileMetaData (key range, sequence range, counts,
// size) is filled in. When nothing is left to write (every entry dropped, no range deletion),
// no file remains and meta->file_size is 0. On error the partial file is deleted.
//
// Thread-safety: a plain function; the caller owns every argument for the duration.
#ifndef SHALE_COMPACTION_BUILD_TABLE_H_
#define SHALE_COMPACTION_BUILD_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "shale/compression_type.h"
#include "shale/file_system.h"
#include "shale/merge_operator.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "version/file_metadata.h"

namespace shale {

struct BuildTableOptions {
  TableOptions table_options;
  CompressionType compression = kNoCompression;
  int compression_level = 1;
  // Live snapshots, ascending (see compaction_iterator.h).
  std::vector<SequenceNumber> snapshots;
  // Combines merge operands (may be null).
  const MergeOperator* merge_operator = nullptr;
  // The column family the table is for, recorded in its properties (TableProperties::
  // column_family_id/name); an empty name records none.
  uint32_t column_family_id = 0;
  std::string column_family_name;
};

// Writes the entries of `points` (point entries, sorted; read from SeekToFirst) and of
// `range_deletions` (may be null) to TableFileName(dbname, meta->number).
// REQUIRES: meta->number set; the other fields of *meta at their defaults.
[[nodiscard]] Status BuildTable(const std::string& dbname, FileSystem* fs,
                                const InternalKeyComparator& icmp,
                                const BuildTableOptions& options, InternalIterator* points,
                                InternalIterator* range_deletions, FileMetaData* meta);

}  // namespace shale

#endif  // SHALE_COMPACTION_BUILD_TABLE_H_
