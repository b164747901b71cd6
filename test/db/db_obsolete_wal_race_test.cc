// The WALs a flush leaves obsolete, seen from outside the DB (issue 20's flaky Python test
// test_read_only.py::test_read_only_beside_a_writer, where 000001.log vanished between two
// listings taken after writer.flush()):
//  - Flush(wait) returns only once the WALs its flush made obsolete are deleted (RocksDB's
//    BackgroundCallFlush purges obsolete files before it wakes the flush's waiters), so a
//    directory listed after Flush returns stays as it is while nothing is written. A file
//    system whose WAL deletions are slow widens the window the old code left open.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

bool IsWal(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0;
}

// Deletions of WALs take `delay` before they happen. Tests only. Thread-safe (no state beyond
// the constant delay).
class SlowWalDeleteFileSystem final : public test::ForwardingFileSystem {
 public:
  SlowWalDeleteFileSystem(std::shared_ptr<FileSystem> base, std::chrono::milliseconds delay)
      : ForwardingFileSystem(std::move(base)), delay_(delay) {}
  const char* Name() const override { return "slow-wal-delete"; }
  Status DeleteFile(const std::string& path) override {
    if (IsWal(path)) std::this_thread::sleep_for(delay_);
    return base()->DeleteFile(path);
  }

 private:
  const std::chrono::milliseconds delay_;
};

class DBObsoleteWalRaceTest : public testing::Test {
 protected:
  DBObsoleteWalRaceTest()
      : dir_(testing::TempDir() + "/db_obsolete_wal_race_test_" + std::to_string(::getpid()) +
             "_" + testing::UnitTest::GetInstance()->current_test_info()->name()),
        remove_dir_(dir_) {}

  std::vector<std::string> Wals() {
    std::vector<std::string> children, wals;
    EXPECT_OK(FileSystem::Default()->GetChildren(dir_, &children));
    for (const std::string& name : children) {
      if (IsWal(name)) wals.push_back(name);
    }
    return wals;
  }

  const std::string dir_;
  test::ScopedDirRemoval remove_dir_;
};

TEST_F(DBObsoleteWalRaceTest, FlushWaitReturnsOnceTheObsoleteWalIsDeleted) {
  Options options;
  options.create_if_missing = true;
  options.file_system = std::make_shared<SlowWalDeleteFileSystem>(
      FileSystem::Default(), std::chrono::milliseconds(300));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir_, &db));
  for (int round = 0; round < 3; round++) {
    ASSERT_OK(db->Put(WriteOptions(), "k" + std::to_string(round), "v"));
    const std::vector<std::string> before = Wals();
    ASSERT_EQ(before.size(), 1u);
    ASSERT_OK(db->Flush(FlushOptions()));
    // The flush moved the log number past the WAL it emptied: gone by now.
    for (const std::string& name : before) {
      EXPECT_TRUE(FileSystem::Default()->FileExists(dir_ + "/" + name).IsNotFound())
          << "round " << round << ": " << name << " is still there after Flush(wait) returned";
    }
    EXPECT_EQ(Wals().size(), 1u) << "round " << round;  // the new WAL only
  }
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
