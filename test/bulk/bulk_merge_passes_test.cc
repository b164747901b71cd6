// BulkLoader::Finish within its descriptor and memory budgets (issue 19, finding 15): a load
// that spills ten times more runs than the process may open files must merge them in passes
// and still load every key in order with the last Add winning; the merge's open files and
// buffer bytes stay within the budgets; and the plan (bulk/merge_plan.h) on its own.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bulk/merge_plan.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "testutil/file_descriptors.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

using test::OpenDescriptors;
using test::ScopedFileLimit;

// Adds n pairs over a key space of `space` keys (so later runs overwrite keys of earlier
// ones), to the loader and the model.
void AddRandom(BulkLoader* loader, int n, int space, uint64_t seed, Model* model) {
  Random rnd(seed);
  for (int i = 0; i < n; i++) {
    const std::string key = absl::StrCat("key", 10000000 + rnd.Uniform(space));
    const std::string value = absl::StrCat(i, "-", std::string(rnd.Uniform(40), 'v'));
    ASSERT_OK(loader->Add(key, value));
    (*model)[key] = value;
  }
}

// Every key of the DB, in the iterator's order, equals the model's (which is sorted).
void ExpectDbEqualsModel(DB* db, const Model& model) {
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m, ++n) {
    ASSERT_NE(m, model.end()) << "extra key " << it->key();
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second) << m->first;
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, model.size());
}

// Entries of about 60 bytes whose sort-buffer charge (record + index) fills a buffer of
// `budget` / 2 about every budget / 2 / 95 entries: enough for `runs` runs.
int EntriesForRuns(uint64_t budget, uint64_t runs) {
  return static_cast<int>(runs * (budget / 2) / 70);
}

// The failing case of the finding: with the default automatic budget, Finish used to open
// every spilled run at once on every merge thread and failed with "Too many open files".
TEST(BulkMergePassesTest, LoadOfTenTimesTheDescriptorLimitSucceeds) {
  const std::string dir = testing::TempDir() + "/bulk_merge_passes_" + std::to_string(::getpid());
  const test::ScopedDirRemoval remove_dir(dir);
  Options options;
  options.create_if_missing = true;
  const uint64_t limit = std::max<uint64_t>(64, OpenDescriptors() + 48);
  const uint64_t budget = 64 << 10;
  Model model;
  BulkLoadResult r;
  {
    ScopedFileLimit file_limit(limit);
    ASSERT_TRUE(file_limit.ok());
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, dir, &db));
    BulkLoaderOptions o;
    o.memory_budget = budget;
    o.threads = 4;
    std::unique_ptr<BulkLoader> loader;
    ASSERT_OK(BulkLoader::Open(db.get(), o, &loader));
    AddRandom(loader.get(), EntriesForRuns(budget, 11 * limit), 60000, 1501, &model);
    ASSERT_OK(loader->Finish(&r));
    EXPECT_GE(r.runs_spilled, 10 * limit);
    EXPECT_GE(r.merge_passes, 1u);
    EXPECT_LE(r.merge_buffer_bytes, budget);
    EXPECT_EQ(r.entries_loaded, model.size());
    ExpectDbEqualsModel(db.get(), model);
    ASSERT_OK(db->Close());
  }
  // And after a reopen, under the usual limit.
  std::unique_ptr<DB> db;
  options.create_if_missing = false;
  ASSERT_OK(DB::Open(options, dir, &db));
  ExpectDbEqualsModel(db.get(), model);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DestroyDB(dir, options));
}

// An explicit descriptor budget, enforced by the fault-injecting file system (which fails an
// open past its limit like EMFILE): the merge never holds more files than the budget, its
// buffers stay within the memory budget, and the load is whole.
TEST(BulkMergePassesTest, StaysWithinExplicitDescriptorAndMemoryBudgets) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  for (const int max_open : {3, 5, 9}) {
    SCOPED_TRACE(max_open);
    const uint64_t budget = 128 << 10;
    BulkLoaderOptions o;
    o.memory_budget = budget;
    o.threads = 3;
    o.max_open_files = max_open;
    std::unique_ptr<BulkLoader> loader;
    ASSERT_OK(BulkLoader::Open(db.get(), o, &loader));
    Model model;
    {
      // Snapshot the DB's reads to start from what is in it (earlier rounds).
      std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
      for (it->SeekToFirst(); it->Valid(); it->Next()) model[std::string(it->key())] = it->value();
    }
    AddRandom(loader.get(), EntriesForRuns(budget, 10 * max_open + 5), 40000, 1700 + max_open,
              &model);
    const uint64_t base = fs->OpenFiles();
    fs->SetMaxOpenFiles(base + static_cast<uint64_t>(max_open));
    BulkLoadResult r;
    Status s = loader->Finish(&r);
    fs->SetMaxOpenFiles(FaultInjectionFileSystem::kNoLimit);
    ASSERT_OK(s);
    EXPECT_GE(r.runs_spilled, 10u * static_cast<uint64_t>(max_open));
    EXPECT_GE(r.merge_passes, 1u);
    EXPECT_LE(r.merge_threads * (r.merge_fan_in + 1), static_cast<uint64_t>(max_open));
    EXPECT_GT(r.merge_buffer_bytes, 0u);
    EXPECT_LE(r.merge_buffer_bytes, budget);
    ExpectDbEqualsModel(db.get(), model);
    std::vector<std::string> left;
    if (fs->GetChildren("/db/bulkload.tmp", &left).ok()) {
      EXPECT_TRUE(left.empty()) << left.size() << " files left, e.g. " << left[0];
    }
  }
  ASSERT_OK(db->Close());
}

TEST(BulkMergePassesTest, BadMaxOpenFilesIsRefused) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  for (const int bad : {-1, 1, 2}) {
    BulkLoaderOptions o;
    o.max_open_files = bad;
    std::unique_ptr<BulkLoader> loader;
    Status s = BulkLoader::Open(db.get(), o, &loader);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("max_open_files"), std::string::npos) << s.ToString();
  }
  ASSERT_OK(db->Close());
}

TEST(MergePlanTest, StaysWithinBothBudgets) {
  for (uint64_t descriptors : {0, 1, 3, 4, 7, 50, 1000, 1 << 20}) {
    for (uint64_t memory : {64ull << 10, 1ull << 20, 64ull << 20, 1ull << 30}) {
      for (int threads : {1, 2, 4, 16}) {
        for (size_t runs : {0, 1, 2, 5, 128, 100000}) {
          const bulk::MergePlan p = bulk::PlanMerge(descriptors, memory, threads, runs);
          SCOPED_TRACE(absl::StrCat(descriptors, " fds, ", memory, " bytes, ", threads,
                                    " threads, ", runs, " runs"));
          ASSERT_GE(p.threads, 1);
          ASSERT_LE(p.threads, threads);
          ASSERT_GE(p.fan_in, 2);
          ASSERT_LE(p.buffer_size, bulk::kMaxRunBuffer);
          const uint64_t files = static_cast<uint64_t>(p.threads) * (p.fan_in + 1);
          if (descriptors >= 3) {
            EXPECT_LE(files, descriptors);
          }
          EXPECT_LE(files * p.buffer_size, memory);
          EXPECT_GE(p.buffer_size, bulk::kMinRunBuffer);
          if (runs >= 2) {
            EXPECT_LE(static_cast<size_t>(p.fan_in), runs);
          }
        }
      }
    }
  }
  // Few runs and room to spare: every run at once, with large buffers.
  const bulk::MergePlan p = bulk::PlanMerge(1000, 512ull << 20, 4, 16);
  EXPECT_EQ(p.threads, 4);
  EXPECT_EQ(p.fan_in, 16);
  EXPECT_EQ(p.buffer_size, bulk::kMaxRunBuffer);
}

TEST(MergePlanTest, PassesReachTheFanInMergingConsecutiveRuns) {
  for (size_t runs : {0, 1, 2, 3, 10, 11, 100, 1281}) {
    for (int fan_in : {2, 3, 10}) {
      SCOPED_TRACE(absl::StrCat(runs, " runs, fan-in ", fan_in));
      size_t n = runs;
      int passes = 0;
      for (;;) {
        const std::vector<bulk::RunGroup> groups = bulk::PlanPass(n, fan_in);
        if (groups.empty()) break;
        size_t prev_end = 0;
        size_t removed = 0;
        for (const bulk::RunGroup& g : groups) {
          ASSERT_GE(g.begin, prev_end);
          ASSERT_GE(g.end - g.begin, 2u);
          ASSERT_LE(g.end - g.begin, static_cast<size_t>(fan_in));
          ASSERT_LE(g.end, n);
          removed += g.end - g.begin - 1;
          prev_end = g.end;
        }
        ASSERT_LE(removed, n - static_cast<size_t>(fan_in));  // never below the fan-in
        n -= removed;
        ASSERT_LT(++passes, 64);
      }
      EXPECT_LE(n, static_cast<size_t>(std::max<size_t>(fan_in, runs < 2 ? runs : 2)));
      if (runs > static_cast<size_t>(fan_in)) {
        EXPECT_EQ(n, static_cast<size_t>(fan_in));
      }
    }
  }
}

}  // namespace
}  // namespace shale
