// Close does not wait out a compaction's wait for file descriptors (issue 19, pool review 2,
// finding 2). A compaction whose inputs cannot get a descriptor (the process limit is held by
// files outside the pool) waits up to max_descriptor_wait (3 s) for each input it opens; Close
// waits for the scheduled compactions before it shuts the pool down. Before the fix Close took
// about 3 s per L0 input (18 s here); now the start of Close ends such waits at once.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <cstdio>
#include <thread>

#include "absl/strings/str_format.h"
#include "fs/posix_errors.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int t, int i) { return absl::StrFormat("value%d-%d", t, i); }

// Fails every open of a table file for reading with EMFILE while `fail` is set, as when the
// process's descriptors are all held elsewhere; counts those failures.
// Thread-safety: as the wrapped file system; the flags are atomic.
class TableOpenFailingFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "table_open_failing"; }
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    if (fail.load() && path.ends_with(".sst")) {
      failures++;
      return PosixError(path, "open", EMFILE);
    }
    return base()->NewRandomAccessFile(path, result);
  }
  std::atomic<bool> fail{false};
  std::atomic<int> failures{0};
};

TEST(DBCloseDescriptorWaitTest, CloseEndsACompactionsWaitForDescriptors) {
  auto fs = std::make_shared<TableOpenFailingFileSystem>(NewMemFileSystem());
  const std::string dbname = "/fdshortage";
  constexpr int kTables = 6;
  constexpr int kKeys = 50;
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.level0_file_num_compaction_trigger = kTables;
  {
    Options fifo = options;
    fifo.compaction_style = kCompactionStyleFIFO;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(fifo, dbname, &db));
    for (int t = 0; t < kTables; t++) {
      for (int i = 0; i < kKeys; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(t, i)));
      ASSERT_OK(db->Flush(FlushOptions()));
    }
    ASSERT_OK(db->Close());
  }
  fs->fail = true;
  options.disable_auto_compactions = false;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  const auto start = std::chrono::steady_clock::now();
  while (fs->failures.load() == 0 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GT(fs->failures.load(), 0);
  const auto close_start = std::chrono::steady_clock::now();
  ASSERT_OK(db->Close());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                    close_start).count();
  std::printf("Close took %.2f s\n", secs);
  EXPECT_LT(secs, 2.0) << "Close waited for a compaction polling for descriptors";
}

}  // namespace
}  // namespace shale
