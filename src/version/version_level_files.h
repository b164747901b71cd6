// NewLevelFilesIterator: the one builder of the iterator over the files of a sorted level (L1
// and below), used by the read path (Version::AddIterators) and by compaction (its inputs of
// a level >= 1). The files are read through the DB's TableCache, one at a time, each opened
// only when the iteration reaches it (iterator/level_iterator.h).
//
// Thread-safety: the builder may be called from any thread; the iterator it returns is used by
// one thread at a time (InternalIterator's rule).
#ifndef SHALE_VERSION_VERSION_LEVEL_FILES_H_
#define SHALE_VERSION_VERSION_LEVEL_FILES_H_

#include <memory>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "version/file_metadata.h"

namespace shale {

class TableCache;
struct TableReadOptions;

// An iterator over the point entries of *files, in order. `level` is the files' level in the
// version asking, passed to TableCache (-1: unknown, as compaction passes). Borrows `icmp`,
// `table_cache` and the vector: the caller keeps them (and a reference to the Version or
// Compaction listing the files) alive while the iterator lives; `options` is copied.
// REQUIRES: *files is sorted and non-overlapping (a level >= 1, or a part of one).
std::unique_ptr<InternalIterator> NewLevelFilesIterator(const InternalKeyComparator* icmp,
                                                        TableCache* table_cache,
                                                        const TableReadOptions& options,
                                                        const std::vector<FileMetaData*>* files,
                                                        int level);

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_LEVEL_FILES_H_
