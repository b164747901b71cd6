// ScopedDirRemoval (tests only): a test that works in a real directory (usually under
// testing::TempDir()) removes it with everything in it when it starts -- leftovers of an
// earlier, aborted run -- and again when the test ends, also when an assertion ends it early.
//
//   const std::string dir = testing::TempDir() + "/my_test_" + std::to_string(::getpid());
//   const test::ScopedDirRemoval remove_dir(dir);
//
// The removal at construction throws std::filesystem::filesystem_error if it fails; the one at
// destruction ignores errors. Thread-safety: none needed (one object, one thread); nothing else
// may use the directory once the object is destroyed.
#ifndef SHALE_TEST_TESTUTIL_SCOPED_DIR_REMOVAL_H_
#define SHALE_TEST_TESTUTIL_SCOPED_DIR_REMOVAL_H_

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace shale::test {

class ScopedDirRemoval {
 public:
  explicit ScopedDirRemoval(std::string dir) : dir_(std::move(dir)) {
    std::filesystem::remove_all(dir_);
  }
  ~ScopedDirRemoval() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScopedDirRemoval(const ScopedDirRemoval&) = delete;
  ScopedDirRemoval& operator=(const ScopedDirRemoval&) = delete;

 private:
  const std::string dir_;
};

}  // namespace shale::test

#endif  // SHALE_TEST_TESTUTIL_SCOPED_DIR_REMOVAL_H_
