// BulkLoader::Finish's automatic descriptor budget leaves the DB's table cache its share when
// the DB's max_open_files is -1 (review of issue 19, finding 15). With -1 the table cache may
// keep up to half of RLIMIT_NOFILE open (db_impl.cc, TableCacheCapacity), but the loader
// used to assume the DB would open no more files than it had open when Finish started: a
// scan of the DB during the merge then found no descriptor for its tables and failed with
// "Too many open files".
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/file_descriptors.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::OpenDescriptors;
using test::ScopedFileLimit;

// Forwards to the default file system; the first time the loader creates a table file in
// its temporary directory (its final merge pass then holds its run files open), calls
// `on_first_table` once. Thread-safety: as the default file system; the hook runs on the
// loader's merge thread.
class HookFileSystem final : public test::ForwardingFileSystem {
 public:
  explicit HookFileSystem(std::function<void()> on_first_table)
      : ForwardingFileSystem(FileSystem::Default()), on_first_table_(std::move(on_first_table)) {}

  const char* Name() const override { return "HookFileSystem"; }
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* result) override {
    if (path.find("bulkload.tmp/") != std::string::npos && path.ends_with(".sst") &&
        !fired_.exchange(true)) {
      on_first_table_();
    }
    return base()->NewWritableFile(path, result);
  }
  bool fired() const { return fired_.load(); }

 private:
  const std::function<void()> on_first_table_;
  std::atomic<bool> fired_{false};
};

TEST(BulkDescriptorShareTest, UnlimitedTableCacheKeepsItsShareDuringFinish) {
  const std::string dir =
      testing::TempDir() + "/bulk_descriptor_share_" + std::to_string(::getpid());
  const test::ScopedDirRemoval remove_dir(dir);

  // The limit while the load runs, and the tables the table cache may legitimately keep open
  // under it with max_open_files = -1 (half the limit), less one.
  const uint64_t limit = OpenDescriptors() + 80;
  const int tables = static_cast<int>(limit / 2) - 1;

  DB* db_for_hook = nullptr;
  Status scan_status;
  uint64_t scanned = 0;
  auto fs = std::make_shared<HookFileSystem>([&] {
    // A reader of the DB while the loader holds its run files: every table at once.
    std::unique_ptr<Iterator> it = db_for_hook->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) scanned++;
    scan_status = it->status();
  });
  Options options;
  options.create_if_missing = true;
  options.max_open_files = -1;
  options.disable_auto_compactions = true;
  options.file_system = fs;
  {
    // Overlapping L0 tables: a scan opens every one of them.
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));
    for (int t = 0; t < tables; t++) {
      ASSERT_OK(db->Put(WriteOptions(), absl::StrCat("a", t), "v"));
      ASSERT_OK(db->Put(WriteOptions(), absl::StrCat("z", t), "v"));
      ASSERT_OK(db->Flush(FlushOptions()));
    }
    ASSERT_OK(db->Close());
  }

  BulkLoadResult r;
  {
    ScopedFileLimit file_limit(limit);
    ASSERT_TRUE(file_limit.ok());
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));  // opens no table yet
    db_for_hook = db.get();
    BulkLoaderOptions o;
    o.memory_budget = 768 << 10;  // room for a fan-in of the whole automatic budget
    o.threads = 1;
    std::unique_ptr<BulkLoader> loader;
    ASSERT_OK(BulkLoader::Open(db.get(), o, &loader));
    // About 45 runs of 384 KiB: more than the automatic budget lets one merge open.
    Random rnd(77);
    const int entries = static_cast<int>(45 * (o.memory_budget / 2) / 70);
    for (int i = 0; i < entries; i++) {
      ASSERT_OK(loader->Add(absl::StrCat("m", 10000000 + rnd.Uniform(1000000)),
                            std::string(20, 'x')));
    }
    ASSERT_OK(loader->Finish(&r));
    EXPECT_TRUE(fs->fired());
    EXPECT_GE(r.runs_spilled, 40u);
    EXPECT_EQ(r.entries_loaded + r.duplicates_dropped, static_cast<uint64_t>(entries));
    std::printf("runs %llu, fan-in %llu, passes %llu, limit %llu, tables %d\n",
                static_cast<unsigned long long>(r.runs_spilled),
                static_cast<unsigned long long>(r.merge_fan_in),
                static_cast<unsigned long long>(r.merge_passes),
                static_cast<unsigned long long>(limit), tables);
    // Before the fix: "Too many open files ... the table cache could not free a file
    // descriptor" (the loader held all but 32 of the free descriptors).
    EXPECT_TRUE(scan_status.ok()) << scan_status.ToString() << " (merge fan-in " << r.merge_fan_in
                                  << ", limit " << limit << ")";
    EXPECT_EQ(scanned, static_cast<uint64_t>(2 * tables));
    db_for_hook = nullptr;
    ASSERT_OK(db->Close());
  }
  options.file_system = nullptr;
  ASSERT_OK(DestroyDB(dir, options));
}

// A DB max_open_files far above RLIMIT_NOFILE (the table cache caps itself at half the limit)
// used to be subtracted whole from the free descriptors: nothing was left, and Finish merged
// with a fan-in of 2, passing over the whole load log2(runs) times.
TEST(BulkDescriptorShareTest, HugeDbMaxOpenFilesDoesNotShrinkTheFanInToTwo) {
  const std::string dir =
      testing::TempDir() + "/bulk_descriptor_huge_" + std::to_string(::getpid());
  const test::ScopedDirRemoval remove_dir(dir);
  Options options;
  options.create_if_missing = true;
  options.max_open_files = 1000000;
  BulkLoadResult r;
  {
    ScopedFileLimit file_limit(OpenDescriptors() + 200);
    ASSERT_TRUE(file_limit.ok());
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));
    BulkLoaderOptions o;
    o.memory_budget = 256 << 10;
    o.threads = 1;
    std::unique_ptr<BulkLoader> loader;
    ASSERT_OK(BulkLoader::Open(db.get(), o, &loader));
    Random rnd(78);
    const int entries = static_cast<int>(12 * (o.memory_budget / 2) / 70);  // about 12 runs
    for (int i = 0; i < entries; i++) {
      ASSERT_OK(loader->Add(absl::StrCat("m", 10000000 + rnd.Uniform(1000000)),
                            std::string(20, 'x')));
    }
    ASSERT_OK(loader->Finish(&r));
    EXPECT_GE(r.runs_spilled, 8u);
    // Room for every run at once: 200 - 100 (the table cache's half) - 32 - the DB's own.
    EXPECT_EQ(r.merge_passes, 0u) << "fan-in " << r.merge_fan_in;
    EXPECT_EQ(r.entries_loaded + r.duplicates_dropped, static_cast<uint64_t>(entries));
    ASSERT_OK(db->Close());
  }
  ASSERT_OK(DestroyDB(dir, options));
}

}  // namespace
}  // namespace shale
