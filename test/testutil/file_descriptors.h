// Helpers for tests that run the engine against the process's file-descriptor limit (the bulk
// loader's descriptor budget): count the descriptors open now, and lower RLIMIT_NOFILE for a
// scope. Such a test lowers a process-wide limit, so it belongs in a test program of its own.
//
// Thread-safety: OpenDescriptors may be called from any thread (its count is a snapshot, exact
// only while no other thread opens or closes files). A ScopedFileLimit changes the limit of the
// whole process: create and destroy it on the test's thread while no other test runs.
#ifndef SHALE_TEST_TESTUTIL_FILE_DESCRIPTORS_H_
#define SHALE_TEST_TESTUTIL_FILE_DESCRIPTORS_H_

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

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
