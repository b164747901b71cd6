// LockedPathSet: a set of paths held locked, for the file systems' LockFile. POSIX keeps one per
// process (fcntl locks do not conflict within a process, so this set catches a second lock of
// the same path by the same process); the in-memory file system keeps one per instance.
// Thread-safe.
#ifndef SHALE_FS_LOCKED_PATH_SET_H_
#define SHALE_FS_LOCKED_PATH_SET_H_

#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "util/mutex.h"

namespace shale {

class LockedPathSet {
 public:
  // Adds path; returns false (and changes nothing) if it is held already.
  bool Insert(const std::string& path) {
    MutexLock l(&mu_);
    return paths_.insert(path).second;
  }
  void Erase(const std::string& path) {
    MutexLock l(&mu_);
    paths_.erase(path);
  }

 private:
  Mutex mu_;
  std::set<std::string> paths_ ABSL_GUARDED_BY(mu_);  // normalised paths held locked
};

}  // namespace shale

#endif  // SHALE_FS_LOCKED_PATH_SET_H_
