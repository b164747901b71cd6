// Review of the write path's shutdown (issue 19, findings 9 and 17, as merged): Close waits
// for every call in flight and refuses new ones. A way that went wrong:
// - a second Close returned OK while the first was still releasing the DB (its LOCK still held,
//   so a reopen by the caller of the second Close failed).
// The moments are fixed with GatedFileSystem, not sleeps; the only timed waits bound how long
// a wrong outcome takes to show.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "gated_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using namespace std::chrono_literals;
using Op = GatedFileSystem::Op;
constexpr char kDBName[] = "/writereviewdb";

// A second Close, concurrent with a first one that is still releasing the DB (held in
// UnlockFile), returns only once the DB is closed: the caller can reopen it at once.
TEST(DBWriteReviewTest, ConcurrentCloseReturnsOnceTheDBIsClosed) {
  auto gated = std::make_shared<GatedFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = gated;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));

  gated->Arm(Op::kUnlock, "");
  Status first;
  std::thread closer([&] { first = db->Close(); });
  ASSERT_TRUE(gated->WaitUntilHeld(10s));

  std::atomic<bool> second_returned{false};
  Status second, reopen;
  std::string value;
  std::thread other([&] {
    second = db->Close();
    second_returned = true;
    std::unique_ptr<DB> again;
    reopen = DB::Open(options, kDBName, &again);
    if (reopen.ok()) reopen = again->Get(ReadOptions(), "k", &value);
  });
  // A second Close that does not wait returns at once; give it the time to show.
  for (int i = 0; i < 50 && !second_returned; i++) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(second_returned.load()) << "the second Close returned while the first held the LOCK";
  gated->Release();
  closer.join();
  other.join();
  EXPECT_OK(first);
  EXPECT_OK(second);
  EXPECT_OK(reopen);
  EXPECT_EQ(value, "v");
}

}  // namespace
}  // namespace shale
