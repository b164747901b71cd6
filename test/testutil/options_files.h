// LatestOptionsFile (tests only): the options a DB's newest OPTIONS file holds, for tests that
// check what SetOptions and Open wrote to disk. Thread-safety: as FileSystem::GetChildren and
// LoadOptionsFromFile on `fs` (safe from any thread); it reports through gtest's EXPECT_*.
#ifndef SHALE_TEST_TESTUTIL_OPTIONS_FILES_H_
#define SHALE_TEST_TESTUTIL_OPTIONS_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale::test {

// The options in the newest (highest-numbered) OPTIONS-<n> file of `dbname` on `fs`, and that
// number in *number when it is not null (0 if there is none). A missing file or one that does
// not load is a non-fatal test failure, and the default Options are returned.
inline Options LatestOptionsFile(FileSystem* fs, const std::string& dbname,
                                 uint64_t* number = nullptr) {
  std::vector<std::string> names;
  EXPECT_OK(fs->GetChildren(dbname, &names));
  std::string latest;
  uint64_t latest_number = 0;
  for (const std::string& name : names) {
    if (name.rfind("OPTIONS-", 0) != 0) continue;
    const uint64_t n = std::stoull(name.substr(8));
    if (n >= latest_number) {
      latest_number = n;
      latest = name;
    }
  }
  if (number != nullptr) *number = latest_number;
  Options options;
  EXPECT_FALSE(latest.empty()) << "no OPTIONS file";
  if (!latest.empty()) EXPECT_OK(LoadOptionsFromFile(fs, dbname + "/" + latest, &options));
  return options;
}

}  // namespace shale::test

#endif  // SHALE_TEST_TESTUTIL_OPTIONS_FILES_H_
