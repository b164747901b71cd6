// Close and the table-file descriptor pool (issue 19, pool review finding 1), on the POSIX file
// system in a real directory:
// - an iterator made before Close keeps reading all its tables after another DB instance opened
//   the directory, compacted and deleted them: the tables it holds keep their descriptors past
//   Close (Close used to close every idle descriptor, and the iterator's next block read
//   re-opened the table by path: ENOENT);
// - after Close, a read that reaches a table it had not opened yet gets ShutdownInProgress (the
//   table cache refuses new tables), and once the last reader lets go no descriptor of the DB's
//   tables is open (one opened after Close used to stay open until the DB was destroyed).
// Descriptors are counted in /proc/self/fd.
#include <limits.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
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
std::string Value(int table, int i) { return absl::StrFormat("v%d-%d", table, i); }

// Table files in `dir`.
std::vector<std::string> TableFiles(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") names.push_back(e.path().filename().string());
  }
  return names;
}

class DBClosePoolTest : public ::testing::Test {
 protected:
  DBClosePoolTest()
      : dir_(::testing::TempDir() + "/shale_close_pool_" + std::to_string(::getpid())),
        remove_dir_(dir_) {}

  const std::string dir_;
  const test::ScopedDirRemoval remove_dir_;
};

// kTables overlapping tables (each holds every key, the last one newest), all in level 0: an
// iterator opens every one of them when it is made.
TEST_F(DBClosePoolTest, IteratorMadeBeforeCloseReadsTablesAnotherInstanceDeleted) {
  Options options;
  options.create_if_missing = true;
  options.compaction_style = kCompactionStyleFIFO;  // flushes stay in level 0
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir_, &db));
  for (int t = 0; t < kTables; t++) {
    for (int i = 0; i < kKeys; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(t, i)));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  const std::vector<std::string> old_tables = TableFiles(dir_);
  ASSERT_EQ(old_tables.size(), static_cast<size_t>(kTables));

  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  ASSERT_OK(it->status());
  ASSERT_OK(db->Close());

  // Another instance: a full compaction replaces (and deletes) every table the iterator holds.
  {
    Options other;
    std::unique_ptr<DB> db2;
    ASSERT_OK(DB::Open(other, dir_, &db2));
    ASSERT_OK(db2->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    ASSERT_OK(db2->Close());
  }
  for (const std::string& name : TableFiles(dir_)) {
    for (const std::string& old : old_tables) ASSERT_NE(name, old) << "not deleted: " << old;
  }

  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    ASSERT_EQ(it->key(), Key(n));
    ASSERT_EQ(it->value(), Value(kTables - 1, n));
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(n, kKeys);
  // And backwards (the blocks are read again).
  n = kKeys;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    n--;
    ASSERT_EQ(it->key(), Key(n));
  }
  EXPECT_OK(it->status());
  EXPECT_EQ(n, 0);

  it.reset();
  EXPECT_EQ(OpenTableDescriptors(dir_), 0) << "the last reader let go";
}

// Tables in the levels below 0, one key range each: an iterator opens them as it reaches
// them. After Close it may not open new ones, and nothing of the DB's tables stays open once
// it is destroyed, although the DB object is not destroyed.
TEST_F(DBClosePoolTest, NoTableDescriptorOutlivesCloseAndTheLastReader) {
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir_, &db));
  for (int t = 0; t < kTables; t++) {  // disjoint, ascending: each flush goes below level 0
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(t * kKeys + i), Value(t, i)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  std::string level0;
  ASSERT_TRUE(db->GetProperty("shale.num-files-at-level0", &level0));
  ASSERT_EQ(level0, "0");

  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  ASSERT_EQ(it->key(), Key(0));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), Key(kKeys), &value));  // parses a second table
  ASSERT_OK(db->Close());

  // Walk on into the tables the iterator has not opened yet: either they read (the DB has not
  // refused them) or the walk ends with ShutdownInProgress, never with another error.
  int n = 0;
  for (; it->Valid(); it->Next()) n++;
  EXPECT_GE(n, kKeys);
  EXPECT_TRUE(it->status().ok() || it->status().IsShutdownInProgress()) << it->status().ToString();
  it.reset();
  EXPECT_EQ(OpenTableDescriptors(dir_), 0)
      << "a table opened after Close keeps its descriptor until the DB is destroyed";
  // A read after Close is refused.
  EXPECT_TRUE(db->Get(ReadOptions(), Key(0), &value).IsShutdownInProgress());
}

}  // namespace
}  // namespace shale
