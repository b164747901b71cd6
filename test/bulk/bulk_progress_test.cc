// BulkLoaderOptions::progress (shale/progress.h): Finish reports its merge, over every pass, in
// order of the stages, with counts that only grow and end at the load's figures, and a single
// final report; a bad interval is refused at Open.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "util/mutex.h"
#include "util/random.h"

namespace shale {
namespace {

// Collects reports (Finish's merge threads call it, one at a time).
struct Collected {
  Mutex mu;
  std::vector<Progress> reports;
};

std::unique_ptr<DB> OpenMemDb() {
  Options options;
  options.file_system = NewMemFileSystem();
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  EXPECT_OK(DB::Open(options, "/db", &db));
  return db;
}

// Loads n entries over `space` keys (duplicates dropped) with the given budgets, recording
// every report; returns the result.
BulkLoadResult Load(DB* db, int n, int space, uint64_t budget, int max_open_files,
                    Collected* collected) {
  BulkLoaderOptions o;
  o.memory_budget = budget;
  o.max_open_files = max_open_files;
  o.threads = 2;
  o.progress_interval_seconds = 0;
  o.progress = [collected](const Progress& p) {
    MutexLock lock(&collected->mu);
    collected->reports.push_back(p);
  };
  std::unique_ptr<BulkLoader> loader;
  EXPECT_OK(BulkLoader::Open(db, o, &loader));
  Random rnd(77);
  for (int i = 0; i < n; i++) {
    EXPECT_OK(loader->Add(absl::StrCat("key", 1000000 + rnd.Uniform(space)),
                          std::string(20 + rnd.Uniform(20), 'v')));
  }
  BulkLoadResult r;
  EXPECT_OK(loader->Finish(&r));
  return r;
}

int StageRank(const std::string& stage) {
  if (stage == "merge_runs") return 0;
  if (stage == "write_tables") return 1;
  if (stage == "ingest") return 2;
  return -1;
}

void ExpectWellFormed(const std::vector<Progress>& reports) {
  ASSERT_GE(reports.size(), 2u);
  for (size_t i = 0; i < reports.size(); i++) {
    SCOPED_TRACE(i);
    const Progress& p = reports[i];
    EXPECT_STREQ(p.operation, "bulk_load");
    EXPECT_GE(StageRank(p.stage), 0) << p.stage;
    EXPECT_EQ(p.finished, i + 1 == reports.size());
    EXPECT_GT(p.bytes_total, 0u);
    EXPECT_GT(p.entries_total, 0u);
    EXPECT_LE(p.entries_done, p.entries_total);
    EXPECT_GE(p.fraction(), 0.0);
    EXPECT_LE(p.fraction(), 1.0);
    if (i > 0) {
      EXPECT_GE(p.entries_done, reports[i - 1].entries_done);
      EXPECT_GE(p.bytes_done, reports[i - 1].bytes_done);
      EXPECT_GE(StageRank(p.stage), StageRank(reports[i - 1].stage));
    }
  }
}

TEST(BulkProgressTest, InMemoryLoadReportsTheWriteAndEndsFinished) {
  std::unique_ptr<DB> db = OpenMemDb();
  Collected c;
  const BulkLoadResult r = Load(db.get(), 50000, 1 << 30, 64 << 20, 0, &c);
  EXPECT_EQ(r.runs_spilled, 0u);
  ExpectWellFormed(c.reports);
  const Progress& last = c.reports.back();
  EXPECT_STREQ(last.stage, "ingest");
  // No passes: the work is the entries once; with no duplicates all of it is done.
  EXPECT_EQ(last.entries_total, r.entries_added);
  EXPECT_EQ(last.entries_done, r.entries_loaded);
  EXPECT_EQ(last.eta_seconds, 0);
  ASSERT_OK(db->Close());
}

TEST(BulkProgressTest, SpilledLoadInPassesCountsEveryPass) {
  std::unique_ptr<DB> db = OpenMemDb();
  Collected c;
  // A 64 KiB budget spills a run every ~470 entries: ~100 runs, merged 3 at a time.
  const BulkLoadResult r = Load(db.get(), 50000, 20000, 64 << 10, 3, &c);
  ASSERT_GE(r.merge_passes, 1u);
  ExpectWellFormed(c.reports);
  bool saw_passes = false;
  for (const Progress& p : c.reports) saw_passes |= std::string(p.stage) == "merge_runs";
  EXPECT_TRUE(saw_passes);
  const Progress& last = c.reports.back();
  // The passes merged more entries than were loaded, and the total counted them.
  EXPECT_GT(last.entries_done, r.entries_loaded);
  EXPECT_GT(last.entries_total, r.entries_added);
  // Duplicates dropped within the passes keep the done work at or below the total.
  EXPECT_LE(last.entries_done, last.entries_total);
  ASSERT_OK(db->Close());
}

// Large entries first, then many tiny ones: the passes merge the oldest (large) runs, so the
// mean entry size underestimates their bytes; the reported total follows the work instead of
// being passed by it.
TEST(BulkProgressTest, SkewedEntrySizesNeverReportMoreDoneThanTotal) {
  std::unique_ptr<DB> db = OpenMemDb();
  Collected c;
  BulkLoaderOptions o;
  o.memory_budget = 64 << 10;
  o.max_open_files = 3;
  o.threads = 1;
  o.progress_interval_seconds = 0;
  o.progress = [&c](const Progress& p) {
    MutexLock lock(&c.mu);
    c.reports.push_back(p);
  };
  std::unique_ptr<BulkLoader> loader;
  ASSERT_OK(BulkLoader::Open(db.get(), o, &loader));
  for (int i = 0; i < 2000; i++) ASSERT_OK(loader->Add(absl::StrCat("big", i), std::string(2048, 'b')));
  for (int i = 0; i < 100000; i++) ASSERT_OK(loader->Add(absl::StrCat("s", i), "v"));
  ASSERT_OK(loader->Finish(nullptr));
  ASSERT_FALSE(c.reports.empty());
  for (const Progress& p : c.reports) {
    EXPECT_LE(p.bytes_done, p.bytes_total);
    EXPECT_LE(p.entries_done, p.entries_total);
  }
  ASSERT_OK(db->Close());
}

TEST(BulkProgressTest, NegativeIntervalIsRefusedAtOpen) {
  std::unique_ptr<DB> db = OpenMemDb();
  for (const double bad : {-1.0, std::nan("")}) {
    BulkLoaderOptions o;
    o.progress_interval_seconds = bad;
    std::unique_ptr<BulkLoader> loader;
    const Status s = BulkLoader::Open(db.get(), o, &loader);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("progress_interval_seconds"), std::string::npos);
    EXPECT_EQ(loader, nullptr);
  }
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
