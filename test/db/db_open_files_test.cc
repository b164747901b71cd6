// The DB's promises about open files (DESIGN.md, "Resource limits"): whatever max_open_files
// says, Gets and scans never fail with "Too many open files" while the table cache can close
// idle tables, and the process stays under its descriptor limit; and Open opens no table at
// all (tables are opened lazily, on first use).
#include <sys/resource.h>

#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) { return absl::StrFormat("value%d", i); }

// Passes every call to `base` and counts the table files opened for reading.
class TableOpenCountingFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;

  uint64_t table_opens() const { return table_opens_.load(); }

  const char* Name() const override { return "table_open_counting"; }
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    if (path.ends_with(".sst")) table_opens_++;
    return base()->NewRandomAccessFile(path, result);
  }

 private:
  std::atomic<uint64_t> table_opens_{0};
};

// Lowers the soft RLIMIT_NOFILE for its scope and restores the old limits when it ends (also
// when an assertion ends the test early).
class ScopedFileLimit {
 public:
  explicit ScopedFileLimit(rlim_t soft) {
    ok_ = getrlimit(RLIMIT_NOFILE, &old_) == 0;
    if (!ok_) return;
    struct rlimit lowered = old_;
    lowered.rlim_cur = soft;
    ok_ = setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~ScopedFileLimit() {
    if (ok_) setrlimit(RLIMIT_NOFILE, &old_);
  }
  ScopedFileLimit(const ScopedFileLimit&) = delete;
  ScopedFileLimit& operator=(const ScopedFileLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  struct rlimit old_ = {};
  bool ok_ = false;
};

// A DB of `n` tables, each holding one key (Key(i) -> Value(i)), all in the last level
// (sorted flushes overlap nothing below them), written by one Put + Flush per table.
void MakeDbOfTables(std::shared_ptr<FileSystem> fs, const std::string& dbname, int n) {
  Options options;
  options.file_system = std::move(fs);
  options.create_if_missing = true;
  options.compaction_style = kCompactionStyleNone;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  for (int i = 0; i < n; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  uint64_t files = 0;
  ASSERT_TRUE(db->GetIntProperty(
      "shale.num-files-at-level" + std::to_string(options.num_levels - 1), &files));
  ASSERT_EQ(files, static_cast<uint64_t>(n));
  ASSERT_OK(db->Close());
}

// The same DB of `n` one-key tables in the last level, made faster: the keys are flushed into
// one table, which a forced compaction then splits into one table per key (target file size
// 1 byte, 1-byte blocks). A flush costs time in proportion to the tables already in the DB,
// so n flushes cost n^2 / 2 of that; this costs one compaction.
void MakeDbOfTablesByCompaction(std::shared_ptr<FileSystem> fs, const std::string& dbname,
                                int n) {
  Options options;
  options.file_system = std::move(fs);
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.target_file_size_base = 1;
  options.table_options.block_size = 1;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  for (int i = 0; i < n; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
  ASSERT_OK(db->Flush(FlushOptions()));
  CompactRangeOptions compact;
  compact.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(compact, nullptr, nullptr));
  uint64_t files = 0;
  ASSERT_TRUE(db->GetIntProperty(
      "shale.num-files-at-level" + std::to_string(options.num_levels - 1), &files));
  ASSERT_EQ(files, static_cast<uint64_t>(n));
  ASSERT_OK(db->Close());
}

// Copies every file of the DB directory `from_dir` to `to_dir` on another file system.
void CopyDb(FileSystem* from, const std::string& from_dir, FileSystem* to,
            const std::string& to_dir) {
  std::vector<std::string> names;
  ASSERT_OK(from->GetChildren(from_dir, &names));
  ASSERT_OK(to->CreateDirIfMissing(to_dir));
  for (const std::string& name : names) {
    std::string data;
    ASSERT_OK(ReadFileToString(from, from_dir + "/" + name, &data));
    ASSERT_OK(WriteStringToFile(to, data, to_dir + "/" + name, /*sync=*/false));
  }
}

// Every key by Get (in random order, so the table cache keeps missing), then a full forward
// scan; all must succeed. Returns the first failure, empty if none.
std::string ReadEverything(DB* db, int n) {
  std::vector<int> order(n);
  for (int i = 0; i < n; i++) order[i] = i;
  Random rnd(301);
  for (int i = n - 1; i > 0; i--) std::swap(order[i], order[rnd.Uniform(i + 1)]);
  for (int i : order) {
    std::string value;
    Status s = db->Get(ReadOptions(), Key(i), &value);
    if (!s.ok()) return "Get " + Key(i) + ": " + s.ToString();
    if (value != Value(i)) return "Get " + Key(i) + ": wrong value " + value;
  }
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  int i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    if (i >= n || it->key() != Key(i) || it->value() != Value(i)) {
      return "scan: wrong entry at " + std::to_string(i) + ": " + std::string(it->key());
    }
  }
  if (!it->status().ok()) return "scan: " + it->status().ToString();
  if (i != n) return "scan: " + std::to_string(i) + " entries, expected " + std::to_string(n);
  return "";
}

constexpr int kManyTables = 2000;
constexpr uint64_t kFileLimit = 128;

class DBOpenFilesTest : public ::testing::Test {
 protected:
  // The 2,000-table DB, built once for the tests that read it.
  static void SetUpTestSuite() {
    mem_ = NewMemFileSystem();
    MakeDbOfTables(mem_, "/many", kManyTables);
    built_ = !::testing::Test::HasFatalFailure();
  }
  static void TearDownTestSuite() { mem_.reset(); }

  // Opens the 2,000-table DB through a fresh fault-injecting layer allowing kFileLimit open
  // files, and reads everything.
  void ReadUnderFileLimit(int max_open_files) {
    ASSERT_TRUE(built_);
    auto fs = std::make_shared<FaultInjectionFileSystem>(mem_);
    fs->SetMaxOpenFiles(kFileLimit);
    Options options;
    options.file_system = fs;
    options.max_open_files = max_open_files;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, "/many", &db));
    EXPECT_EQ(ReadEverything(db.get(), kManyTables), "");
    EXPECT_EQ(ReadEverything(db.get(), kManyTables), "");  // the cache is warm and capped now
    EXPECT_LE(fs->PeakOpenFiles(), kFileLimit);
    ASSERT_OK(db->Close());
  }

  static std::shared_ptr<FileSystem> mem_;
  static bool built_;
};

std::shared_ptr<FileSystem> DBOpenFilesTest::mem_;
bool DBOpenFilesTest::built_ = false;

TEST_F(DBOpenFilesTest, ReadsSucceedUnderFileLimitWithDefaultMaxOpenFiles) {
  ReadUnderFileLimit(-1);
}

TEST_F(DBOpenFilesTest, ReadsSucceedUnderFileLimitWithHugeMaxOpenFiles) {
  ReadUnderFileLimit(50000);
}

// The same on the real file system, under a real RLIMIT_NOFILE of 128. The DB is copied from
// memory (building it with 2,000 synced flushes on disk would be slow).
TEST_F(DBOpenFilesTest, ReadsSucceedUnderRlimitOnPosix) {
  ASSERT_TRUE(built_);
  std::string dir = (std::filesystem::temp_directory_path() / "shale_open_files_XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  struct RemoveDir {
    std::string path;
    ~RemoveDir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove_dir{dir};
  const std::string dbname = dir + "/db";
  std::shared_ptr<FileSystem> posix = FileSystem::Default();
  CopyDb(mem_.get(), "/many", posix.get(), dbname);
  ASSERT_FALSE(HasFatalFailure());

  ScopedFileLimit limit(kFileLimit);  // restored when the test ends, however it ends
  ASSERT_TRUE(limit.ok());
  Options options;
  options.file_system = posix;
  options.max_open_files = 50000;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  EXPECT_EQ(ReadEverything(db.get(), kManyTables), "");
  EXPECT_EQ(ReadEverything(db.get(), kManyTables), "");
  ASSERT_OK(db->Close());
}

// Open reads the MANIFEST only: not one of 10,000 tables is opened until a read needs it, and
// a Get opens only the table that may hold its key.
TEST(DBLazyTableOpenTest, OpenOpensNoTable) {
  constexpr int kTables = 10000;
  std::shared_ptr<FileSystem> mem = NewMemFileSystem();
  MakeDbOfTablesByCompaction(mem, "/db", kTables);
  ASSERT_FALSE(HasFatalFailure());

  auto fs = std::make_shared<TableOpenCountingFileSystem>(mem);
  Options options;
  options.file_system = fs;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  EXPECT_EQ(fs->table_opens(), 0u);
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), Key(4321), &value));
  EXPECT_EQ(value, Value(4321));
  EXPECT_GE(fs->table_opens(), 1u);
  EXPECT_LE(fs->table_opens(), 2u);
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
