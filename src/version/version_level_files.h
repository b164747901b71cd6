// VersionLevelFiles: the files of one sorted level (L1 and below), or any sorted,
// non-overlapping list of FileMetaData, as a LevelIterator sees them. It borrows the vector:
// the owner keeps it (and the Version listing the files) alive while an iterator uses it.
#ifndef SHALE_VERSION_VERSION_LEVEL_FILES_H_
#define SHALE_VERSION_VERSION_LEVEL_FILES_H_

#include <string_view>
#include <vector>

#include "iterator/level_iterator.h"
#include "version/file_metadata.h"

namespace shale {

class VersionLevelFiles final : public LevelFileList {
 public:
  explicit VersionLevelFiles(const std::vector<FileMetaData*>* files) : files_(files) {}
  size_t Size() const override { return files_->size(); }
  std::string_view Smallest(size_t i) const override { return (*files_)[i]->smallest; }
  std::string_view Largest(size_t i) const override { return (*files_)[i]->largest; }

 private:
  const std::vector<FileMetaData*>* files_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_LEVEL_FILES_H_
