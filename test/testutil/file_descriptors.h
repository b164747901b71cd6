// Helpers for tests that run the engine against the process's file-descriptor limit (the bulk
// loader's descriptor budget): count the descriptors open now (all, or those of a directory's
// table files), and lower RLIMIT_NOFILE for a scope. Such a test lowers a process-wide limit, so it belongs in a test program of its own.
//
// Thread-safety: OpenDescriptors may be called from any thread (its count is a snapshot, exact
// only while no other thread opens or closes files). A ScopedFileLimit changes the limit of the
// whole process: create and destroy it on the test's thread while no other test runs.
#ifndef SHALE_TEST_TESTUTIL_FILE_DESCRIPTORS_H_
#define SHALE_TEST_TESTUTIL_FILE_DESCRIPTORS_H_

#include <dirent.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

namespace shale::test {

// Descriptors open in this process now (0 if /proc/self/fd cannot be read).
inline uint64_t OpenDescriptors() {
  uint64_t n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return 0;
  while (const struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') n++;
  }
  ::closedir(d);
  return n - 1;  // the directory's own
}

// Descriptors open in this process whose target is a table file (.sst) under `dir` (a deleted
// file's target reads "<path> (deleted)" and still counts).
inline int OpenTableDescriptors(const std::string& dir) {
  const std::string prefix = std::filesystem::canonical(dir).string() + "/";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    char target[PATH_MAX];
    const ssize_t len = ::readlink(e.path().c_str(), target, sizeof(target) - 1);
    if (len <= 0) continue;
    const std::string t(target, static_cast<size_t>(len));
    if (t.starts_with(prefix) && t.find(".sst") != std::string::npos) n++;
  }
  return n;
}

// Lowers the soft RLIMIT_NOFILE to `soft` (at most the hard limit) for its lifetime, then
// restores the old limits (also when an assertion ends the test early). ok() is false when
// the limit could not be read or set.
class ScopedFileLimit {
 public:
  explicit ScopedFileLimit(rlim_t soft) {
    ok_ = ::getrlimit(RLIMIT_NOFILE, &saved_) == 0;
    if (!ok_) return;
    struct rlimit lowered = saved_;
    lowered.rlim_cur = std::min(soft, saved_.rlim_max);
    ok_ = ::setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~ScopedFileLimit() {
    if (ok_) ::setrlimit(RLIMIT_NOFILE, &saved_);
  }
  ScopedFileLimit(const ScopedFileLimit&) = delete;
  ScopedFileLimit& operator=(const ScopedFileLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  struct rlimit saved_;
  bool ok_ = false;
};

}  // namespace shale::test

#endif  // SHALE_TEST_TESTUTIL_FILE_DESCRIPTORS_H_
