// The files of one sorted level (L1 and below) as the iterator layer sees them:
// - VersionLevelFiles: a sorted, non-overlapping list of FileMetaData as a LevelFileList, for
//   FindFile/FindFileForPrev (iterator/level_iterator.h) and LevelIterator;
// - NewLevelFilesIterator: the one builder of the iterator over such files, used by the read
//   path (Version::AddIterators) and by compaction (its inputs of a level >= 1). The files are
//   read through the DB's TableCache, one at a time, each opened only when the iteration
//   reaches it.
//
// Thread-safety: the builder may be called from any thread; the iterator it returns is used by
// one thread at a time (InternalIterator's rule). A VersionLevelFiles is immutable.
#ifndef SHALE_VERSION_VERSION_LEVEL_FILES_H_
#define SHALE_VERSION_VERSION_LEVEL_FILES_H_

#include <memory>
#include <string_view>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "iterator/level_iterator.h"
#include "version/file_metadata.h"

namespace shale {

// It borrows the vector: the owner keeps it (and the Version listing the files) alive while
// the list is used.
class VersionLevelFiles final : public LevelFileList {
 public:
  explicit VersionLevelFiles(const std::vector<FileMetaData*>* files) : files_(files) {}
  size_t Size() const override { return files_->size(); }
  std::string_view Smallest(size_t i) const override { return (*files_)[i]->smallest; }
  std::string_view Largest(size_t i) const override { return (*files_)[i]->largest; }

 private:
  const std::vector<FileMetaData*>* files_;
};

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
