// TempFiles: the files a bulk load creates in its temporary directory (spilled runs, table
// files before ingestion), remembered so that they can all be removed at the end, whether the
// load succeeded, failed or was abandoned.
//
// Thread-safety: thread-safe (the spill thread and the merge threads add files while the
// loader's thread may read the list).
#ifndef SHALE_BULK_TEMP_FILES_H_
#define SHALE_BULK_TEMP_FILES_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "util/mutex.h"

namespace shale::bulk {

class TempFiles {
 public:
  // `dir` is the temporary directory; `remove_dir` whether RemoveAll also removes it (the
  // loader created it); `owner_prefix` the loader's registered file-name prefix
  // (fs/bulk_temp_dir.h): the directory is not removed while another live loader uses it.
  // The file system must outlive this object.
  TempFiles(FileSystem* fs, std::string dir, bool remove_dir, std::string owner_prefix);

  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;

  const std::string& dir() const { return dir_; }

  // Remembers a file that is about to be created.
  void Add(const std::string& path);
  void Add(const std::vector<std::string>& paths);

  // Deletes every remembered file that still exists (ingestion may have moved some away), then
  // the directory when it is to be removed, is empty and no other live loader uses it. Returns the first error other than
  // "not found"; forgets the files either way.
  Status RemoveAll();

 private:
  FileSystem* const fs_;
  const std::string dir_;
  const std::string owner_prefix_;
  bool remove_dir_;
  Mutex mu_;
  std::vector<std::string> files_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_TEMP_FILES_H_
