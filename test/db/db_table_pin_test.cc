// The tables point reads pin with their files' metadata (FileMetaData::table_pin, issue 21: a Get
// finds a file's parsed table without the table cache's lock) and Close, on the POSIX file system
// in a real directory:
// - Close lets go of every pinned table no reader holds, so no table descriptor is left open
//   after Close although the DB object lives on (the table file pool pins, at Close, the
//   descriptor of every table still held: pins left in place would keep all of them open);
// - a Get that was under way when Close ran reads on through the tables it had pinned (Close
//   keeps the pins of files a read still reaches), and the pins go once it is done.
// Descriptors are counted in /proc/self/fd.
#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "shale/comparator.h"
#include "shale/db.h"
#include "testutil/file_descriptors.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using test::OpenTableDescriptors;

constexpr int kKeys = 300;
constexpr int kTables = 5;

std::string Key(int i) { return absl::StrFormat("key%06d", i); }

// The bytewise order, calling `hook` (once, then disarmed) from the first comparison made while
// it is armed: a way to run something in the middle of a Get.
class HookComparator : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    if (armed_.exchange(false)) hook_();
    return BytewiseComparator()->Compare(a, b);
  }
  const char* Name() const override { return BytewiseComparator()->Name(); }
  void FindShortestSeparator(std::string* start, std::string_view limit) const override {
    BytewiseComparator()->FindShortestSeparator(start, limit);
  }
  void FindShortSuccessor(std::string* key) const override {
    BytewiseComparator()->FindShortSuccessor(key);
  }
  void Arm(std::function<void()> hook) {
    hook_ = std::move(hook);
    armed_.store(true);
  }

 private:
  mutable std::atomic<bool> armed_{false};
  std::function<void()> hook_;
};

class DBTablePinTest : public ::testing::Test {
 protected:
  DBTablePinTest()
      : dir_(::testing::TempDir() + "/shale_table_pin_" + std::to_string(::getpid())),
        remove_dir_(dir_) {}

  // kTables tables of disjoint key ranges (each flush goes below level 0), every one read by a
  // Get, so every one is pinned (max_open_files -1: the table cache keeps every table).
  void OpenAndPinTables(const Options& base) {
    Options options = base;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    ASSERT_OK(DB::Open(options, dir_, &db_));
    for (int t = 0; t < kTables; t++) {
      for (int i = 0; i < kKeys; i++) {
        ASSERT_OK(db_->Put(WriteOptions(), Key(t * kKeys + i), "v" + std::to_string(i)));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    for (int t = 0; t < kTables; t++) {
      std::string value;
      ASSERT_OK(db_->Get(ReadOptions(), Key(t * kKeys + 1), &value));
      ASSERT_EQ(value, "v1");
    }
  }

  const std::string dir_;
  const test::ScopedDirRemoval remove_dir_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBTablePinTest, CloseLeavesNoTableDescriptorOpenAfterGetsPinnedEveryTable) {
  ASSERT_NO_FATAL_FAILURE(OpenAndPinTables(Options()));
  ASSERT_OK(db_->Close());
  EXPECT_EQ(OpenTableDescriptors(dir_), 0)
      << "the tables Gets pinned kept their descriptors past Close";
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), Key(1), &value).IsShutdownInProgress());
}

TEST_F(DBTablePinTest, AGetUnderWayWhenCloseRunsReadsOnThroughItsPinnedTables) {
  HookComparator comparator;
  Options options;
  options.comparator = &comparator;
  ASSERT_NO_FATAL_FAILURE(OpenAndPinTables(options));
  const int last_table = kTables - 1;
  Status close_status;
  bool closed = false;
  // Close runs inside the Get, after it took its SuperVersion and before it reads the table.
  comparator.Arm([&] {
    close_status = db_->Close();
    closed = true;
  });
  std::string value;
  Status s = db_->Get(ReadOptions(), Key(last_table * kKeys + 7), &value);
  ASSERT_TRUE(closed) << "the Get made no comparison";
  ASSERT_OK(close_status);
  ASSERT_TRUE(s.ok()) << "Close took the pinned table from under a Get that reaches it: "
                      << s.ToString();
  EXPECT_EQ(value, "v7");
  EXPECT_EQ(OpenTableDescriptors(dir_), 0) << "the last reader let go of the pinned tables";
  EXPECT_TRUE(db_->Get(ReadOptions(), Key(1), &value).IsShutdownInProgress());
}

}  // namespace
}  // namespace shale
