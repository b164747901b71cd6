#include "version/version_level_files.h"

#include <string_view>

#include "cache/table_cache.h"
#include "iterator/level_iterator.h"
#include "table/table_reader.h"

namespace shale {
namespace {

// The files of one sorted level as a LevelIterator sees them. It borrows the vector.
class VersionLevelFiles final : public LevelFileList {
 public:
  explicit VersionLevelFiles(const std::vector<FileMetaData*>* files) : files_(files) {}
  size_t Size() const override { return files_->size(); }
  std::string_view Smallest(size_t i) const override { return (*files_)[i]->smallest; }
  std::string_view Largest(size_t i) const override { return (*files_)[i]->largest; }

 private:
  const std::vector<FileMetaData*>* files_;
};

}  // namespace

std::unique_ptr<InternalIterator> NewLevelFilesIterator(const InternalKeyComparator* icmp,
                                                        TableCache* table_cache,
                                                        const TableReadOptions& options,
                                                        const std::vector<FileMetaData*>* files,
                                                        int level) {
  return NewLevelIterator(
      icmp, std::make_unique<VersionLevelFiles>(files),
      [table_cache, files, options, level](size_t i, Status*) {
        const FileMetaData* f = (*files)[i];
        return table_cache->NewIterator(options, f->number, f->file_size, level, f->global_seqno);
      });
}

}  // namespace shale
