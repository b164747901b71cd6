#include "version/version_level_files.h"

#include "cache/table_cache.h"
#include "iterator/level_iterator.h"
#include "table/table_reader.h"

namespace shale {

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
