#include "bulk/temp_files.h"

#include <utility>

#include "fs/bulk_temp_dir.h"

namespace shale::bulk {

TempFiles::TempFiles(FileSystem* fs, std::string dir, bool remove_dir, std::string owner_prefix)
    : fs_(fs), dir_(std::move(dir)), owner_prefix_(std::move(owner_prefix)),
      remove_dir_(remove_dir) {}

void TempFiles::Add(const std::string& path) {
  MutexLock lock(&mu_);
  files_.push_back(path);
}

void TempFiles::Add(const std::vector<std::string>& paths) {
  MutexLock lock(&mu_);
  files_.insert(files_.end(), paths.begin(), paths.end());
}

Status TempFiles::RemoveAll() {
  std::vector<std::string> files;
  {
    MutexLock lock(&mu_);
    files.swap(files_);
  }
  Status result;
  for (const std::string& path : files) {
    Status s = fs_->DeleteFile(path);
    if (!s.ok() && !s.IsPathNotFound() && !s.IsNotFound() && result.ok()) result = s;
  }
  if (remove_dir_) {
    Status s = RemoveBulkLoadDirIfUnused(fs_, dir_, owner_prefix_);
    if (!s.ok() && result.ok()) result = s;
  }
  return result;
}

}  // namespace shale::bulk
