// Helpers shared by the fs tests: a temporary directory on disk, and small file shortcuts that
// fail the test when the file system does.
#ifndef SHALE_TEST_FS_FS_TEST_UTIL_H_
#define SHALE_TEST_FS_FS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "shale/file_system.h"

namespace shale {

// A fresh directory under testing::TempDir(), removed with everything in it when destroyed.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string dir = testing::TempDir();
    if (dir.empty() || dir.back() != '/') dir.push_back('/');
    std::string tmpl = dir + "shale_fs_test_XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    path_ = tmpl;
  }
  ~ScopedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The contents of path, or "<error: ...>" when it cannot be read.
inline std::string Contents(FileSystem* fs, const std::string& path) {
  std::string data;
  Status s = ReadFileToString(fs, path, &data);
  return s.ok() ? data : "<error: " + s.ToString() + ">";
}

// n pseudo-random printable bytes.
inline std::string RandomBytes(std::mt19937_64* rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>('a' + (*rng)() % 26);
  return s;
}

}  // namespace shale

#endif  // SHALE_TEST_FS_FS_TEST_UTIL_H_
