// The global memtable budget at its extremes (issue 19, finding 10): db_write_buffer_size of 1,
// 1024 and 64 KiB take a write load within a time limit, on the in-memory file system and on
// disk, and everything reads back, also after a reopen.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include <unistd.h>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr char kDBName[] = "/budgetdb";

// Finding 10: a global memtable budget of any size makes progress. A write load runs under a
// deadline (a hang fails the test instead of the suite timing out) while the memtables stay
// near the budget, then every key reads back, also after a reopen.
// Both on the in-memory file system and on the disk (where every flush costs fsyncs).
class DBTinyBudgetTest : public testing::TestWithParam<std::tuple<size_t, bool>> {};

TEST_P(DBTinyBudgetTest, WritesMakeProgress) {
  const auto [budget, on_disk] = GetParam();
  Options options;
  std::string name = kDBName;
  if (on_disk) {
    name = testing::TempDir() + "/shale_tiny_budget_" + std::to_string(getpid());
    ASSERT_OK(DestroyDB(name, options));
  } else {
    options.file_system = NewMemFileSystem();
  }
  options.create_if_missing = true;
  options.db_write_buffer_size = budget;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, name, &db));
  // 2 MB of writes: one flush per write (what a budget below one memtable's first arena block
  // caused) takes minutes on disk.
  constexpr int kKeys = 20000;
  auto key = [](int i) { return "key" + std::to_string(i); };
  auto value = [](int i) { return std::string(100, static_cast<char>('a' + i % 26)); };
  std::atomic<bool> done{false};
  Status write_status;
  std::thread writer([&] {
    for (int i = 0; i < kKeys && write_status.ok(); i++) {
      write_status = db->Put(WriteOptions(), key(i), value(i));
    }
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  uint64_t peak_memtable_bytes = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    uint64_t bytes = 0;
    if (db->GetIntProperty(DB::Properties::kCurSizeAllMemTables, &bytes)) {
      peak_memtable_bytes = std::max(peak_memtable_bytes, bytes);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!done) {
    // The writer is stuck inside the DB: neither it nor the DB can be cleaned up.
    ADD_FAILURE() << "db_write_buffer_size=" << budget << ": writes did not finish in 30 s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  writer.join();
  ASSERT_OK(write_status);
  // The budget holds, give or take a memtable (the budget is raised to 64 KiB at most).
  EXPECT_LE(peak_memtable_bytes, uint64_t{256} << 10) << "db_write_buffer_size=" << budget;
  for (int i = 0; i < kKeys; i++) {
    std::string got;
    ASSERT_OK(db->Get(ReadOptions(), key(i), &got));
    ASSERT_EQ(got, value(i));
  }
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(options, name, &db));
  for (int i = 0; i < kKeys; i += 7) {
    std::string got;
    ASSERT_OK(db->Get(ReadOptions(), key(i), &got));
    ASSERT_EQ(got, value(i));
  }
  db.reset();
  if (on_disk) EXPECT_OK(DestroyDB(name, options));
}

INSTANTIATE_TEST_SUITE_P(Budgets, DBTinyBudgetTest,
                         testing::Combine(testing::Values(size_t{1}, size_t{1024},
                                                          size_t{64} << 10),
                                          testing::Bool()));

}  // namespace
}  // namespace shale
