// BulkLoader end to end over DB::IngestExternalFile: random keys with duplicates against a
// std::map (the last Add wins) with budgets that spill several runs or none, with one and with
// several merge threads; an empty load; loading under existing data (the loaded values win; a
// snapshot taken before does not see them); a custom comparator; bad options and a closed DB;
// failures injected at each file-system step leave the DB all-or-nothing and no temporary
// file behind; an abandoned load leaves nothing either.
#include "shale/bulk_loader.h"

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;
using FI = FaultInjectionFileSystem;

constexpr int kNumLevels = 7;
constexpr char kTempDir[] = "/db/bulkload.tmp";

class BulkLoaderTest : public testing::Test {
 protected:
  BulkLoaderTest() : fs_(std::make_shared<FI>(NewMemFileSystem())) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.num_levels = kNumLevels;
  }
  ~BulkLoaderTest() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/db", &db_)); }

  std::unique_ptr<BulkLoader> NewLoader(const BulkLoaderOptions& o) {
    std::unique_ptr<BulkLoader> loader;
    EXPECT_OK(BulkLoader::Open(db_.get(), o, &loader));
    return loader;
  }

  // Adds `n` random pairs from a key space of `space` keys to the loader and to *model.
  static void AddRandom(BulkLoader* loader, int n, int space, uint64_t seed, Model* model) {
    Random rnd(seed);
    for (int i = 0; i < n; i++) {
      const std::string key = absl::StrCat("key", rnd.Uniform(space));
      const std::string value = std::to_string(i) + std::string(rnd.Uniform(50), 'v');
      ASSERT_OK(loader->Add(key, value));
      (*model)[key] = value;
    }
  }

  Model ReadAll(const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    Model out;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    for (it->SeekToFirst(); it->Valid(); it->Next()) out[std::string(it->key())] = it->value();
    EXPECT_OK(it->status());
    return out;
  }

  uint64_t FilesAtLevel(int level) {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty(absl::StrCat("shale.num-files-at-level", level), &n));
    return n;
  }

  bool TempDirExists() { return fs_->FileExists(kTempDir).ok(); }

  std::shared_ptr<FI> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

struct LoadCase {
  uint64_t memory_budget;
  int threads;
  bool expect_spill;
};

void PrintTo(const LoadCase& c, std::ostream* os) {
  *os << "{budget " << c.memory_budget << ", threads " << c.threads << "}";
}

class BulkLoaderModelTest : public BulkLoaderTest,
                            public testing::WithParamInterface<LoadCase> {};

TEST_P(BulkLoaderModelTest, RandomKeysWithDuplicatesMatchModel) {
  const LoadCase c = GetParam();
  Open();
  BulkLoaderOptions o;
  o.memory_budget = c.memory_budget;
  o.threads = c.threads;
  o.target_file_size = 64 << 10;
  std::unique_ptr<BulkLoader> loader = NewLoader(o);
  ASSERT_TRUE(TempDirExists());
  Model model;
  AddRandom(loader.get(), 30000, 12000, 301, &model);
  BulkLoadResult r;
  ASSERT_OK(loader->Finish(&r));

  EXPECT_EQ(ReadAll(), model);
  EXPECT_EQ(r.entries_added, 30000u);
  EXPECT_EQ(r.entries_loaded, model.size());
  EXPECT_EQ(r.duplicates_dropped, 30000u - model.size());
  if (c.expect_spill) {
    EXPECT_GT(r.runs_spilled, 2u);
    EXPECT_GT(r.spilled_bytes, 0u);
  } else {
    EXPECT_EQ(r.runs_spilled, 0u);
  }
  EXPECT_GT(r.files, 1u);
  EXPECT_GT(r.file_bytes, 0u);
  EXPECT_GE(r.finish_seconds, r.merge_seconds + r.ingest_seconds);
  // Into an empty DB: every file in the bottom level, the DB fully compacted.
  EXPECT_EQ(FilesAtLevel(kNumLevels - 1), r.files);
  for (int level = 0; level + 1 < kNumLevels; level++) EXPECT_EQ(FilesAtLevel(level), 0u);
  EXPECT_FALSE(TempDirExists());
  // The loaded data survives a reopen.
  ASSERT_OK(db_->Close());
  db_.reset();
  Open();
  EXPECT_EQ(ReadAll(), model);
}

INSTANTIATE_TEST_SUITE_P(
    Budgets, BulkLoaderModelTest,
    testing::Values(LoadCase{256 << 10, 2, true},   // ~13 runs spilled
                    LoadCase{256 << 10, 1, true},   // one merge thread
                    LoadCase{256 << 10, 5, true},   // more threads than cores
                    LoadCase{64 << 20, 2, false},   // everything in one buffer
                    LoadCase{3 << 20, 2, false}),   // two buffers, both kept in memory
    [](const testing::TestParamInfo<LoadCase>& info) {
      return absl::StrCat("budget", info.param.memory_budget >> 10, "k_threads",
                          info.param.threads);
    });

TEST_F(BulkLoaderTest, EmptyLoadIngestsNothing) {
  Open();
  std::unique_ptr<BulkLoader> loader = NewLoader(BulkLoaderOptions());
  BulkLoadResult r;
  r.files = 99;
  ASSERT_OK(loader->Finish(&r));
  EXPECT_EQ(r.entries_added, 0u);
  EXPECT_EQ(r.files, 0u);
  EXPECT_TRUE(ReadAll().empty());
  EXPECT_FALSE(TempDirExists());
}

TEST_F(BulkLoaderTest, CallsAfterFinishAreRejected) {
  Open();
  std::unique_ptr<BulkLoader> loader = NewLoader(BulkLoaderOptions());
  ASSERT_OK(loader->Add("a", "1"));
  ASSERT_OK(loader->Finish());
  EXPECT_TRUE(loader->Add("b", "2").IsInvalidArgument());
  EXPECT_TRUE(loader->Finish().IsInvalidArgument());
  EXPECT_EQ(ReadAll(), (Model{{"a", "1"}}));
}

// Loading over existing data (memtable, L0 and a lower level): the loaded values win; keys only
// the DB has stay; a snapshot from before the load sees the old state.
TEST_F(BulkLoaderTest, LoadsOverExistingData) {
  Open();
  Model model;
  for (int i = 0; i < 300; i++) {
    const std::string key = absl::StrCat("key", i * 10);
    ASSERT_OK(db_->Put(WriteOptions(), key, "old"));
    model[key] = "old";
    if (i == 100) ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    if (i == 200) ASSERT_OK(db_->Flush(FlushOptions()));
  }
  const Model before = model;
  const Snapshot* snapshot = db_->GetSnapshot();
  BulkLoaderOptions o;
  o.memory_budget = 128 << 10;
  std::unique_ptr<BulkLoader> loader = NewLoader(o);
  AddRandom(loader.get(), 10000, 6000, 7, &model);
  ASSERT_OK(loader->Finish());
  EXPECT_EQ(ReadAll(), model);
  EXPECT_EQ(ReadAll(snapshot), before);
  db_->ReleaseSnapshot(snapshot);
  // Later writes still win over the loaded values.
  ASSERT_OK(db_->Put(WriteOptions(), "key5", "newest"));
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "key5", &value));
  EXPECT_EQ(value, "newest");
}

// Reverse bytewise order, under a name that is not the bytewise comparator's.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return b.compare(a); }
  const char* Name() const override { return "test.Reverse"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST_F(BulkLoaderTest, CustomComparator) {
  static ReverseComparator reverse;
  options_.comparator = &reverse;
  Open();
  BulkLoaderOptions o;
  o.memory_budget = 128 << 10;
  std::unique_ptr<BulkLoader> loader = NewLoader(o);
  Model model;
  AddRandom(loader.get(), 8000, 5000, 11, &model);
  ASSERT_OK(loader->Finish());
  ReadOptions ro;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  auto expected = model.rbegin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    ASSERT_NE(expected, model.rend());
    EXPECT_EQ(it->key(), expected->first);
    EXPECT_EQ(it->value(), expected->second);
  }
  EXPECT_EQ(expected, model.rend());
}

TEST_F(BulkLoaderTest, BadOptionsAndTempDir) {
  Open();
  std::unique_ptr<BulkLoader> loader;
  BulkLoaderOptions o;
  o.memory_budget = 1000;
  Status s = BulkLoader::Open(db_.get(), o, &loader);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("memory_budget"), std::string::npos) << s.ToString();
  EXPECT_EQ(loader, nullptr);
  o = BulkLoaderOptions();
  o.threads = -1;
  EXPECT_TRUE(BulkLoader::Open(db_.get(), o, &loader).IsInvalidArgument());
  o = BulkLoaderOptions();
  o.compression = kBZip2Compression;
  s = BulkLoader::Open(db_.get(), o, &loader);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("BZip2 is not supported by this build (supported: "),
            std::string::npos)
      << s.ToString();
  EXPECT_TRUE(BulkLoader::Open(nullptr, BulkLoaderOptions(), &loader).IsInvalidArgument());
  // A temporary directory that cannot be made: its parent is a file.
  ASSERT_OK(WriteStringToFile(fs_.get(), "x", "/plain", false));
  o = BulkLoaderOptions();
  o.temp_dir = "/plain/tmp";
  s = BulkLoader::Open(db_.get(), o, &loader);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("/plain/tmp"), std::string::npos) << s.ToString();
  // An entry larger than half the budget.
  o = BulkLoaderOptions();
  o.memory_budget = 64 << 10;
  loader = NewLoader(o);
  s = loader->Add("big", std::string(40 << 10, 'x'));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_OK(loader->Add("small", "x"));  // not sticky: nothing was lost
  ASSERT_OK(loader->Finish());
  EXPECT_EQ(ReadAll(), (Model{{"small", "x"}}));
}

TEST_F(BulkLoaderTest, ClosedDb) {
  Open();
  std::unique_ptr<BulkLoader> loader = NewLoader(BulkLoaderOptions());
  ASSERT_OK(loader->Add("a", "1"));
  ASSERT_OK(db_->Close());
  Status s = loader->Finish();
  EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
  EXPECT_NE(s.ToString().find("BulkLoader::Finish"), std::string::npos) << s.ToString();
  EXPECT_FALSE(TempDirExists());
  EXPECT_EQ(loader->Finish().ToString(), s.ToString());  // sticky
  std::unique_ptr<BulkLoader> another;
  s = BulkLoader::Open(db_.get(), BulkLoaderOptions(), &another);
  EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
}

TEST_F(BulkLoaderTest, AbandonedLoadLeavesNothing) {
  Open();
  BulkLoaderOptions o;
  o.memory_budget = 64 << 10;
  std::unique_ptr<BulkLoader> loader = NewLoader(o);
  Model model;
  AddRandom(loader.get(), 5000, 100000, 3, &model);
  loader.reset();
  EXPECT_FALSE(TempDirExists());
  EXPECT_TRUE(ReadAll().empty());
}

// A temporary directory the loader did not create is left in place; the loader's files go.
TEST_F(BulkLoaderTest, KeepsATempDirItDidNotCreate) {
  Open();
  ASSERT_OK(fs_->CreateDir("/mine"));
  BulkLoaderOptions o;
  o.temp_dir = "/mine";
  o.memory_budget = 64 << 10;
  std::unique_ptr<BulkLoader> loader = NewLoader(o);
  Model model;
  AddRandom(loader.get(), 3000, 100000, 5, &model);
  std::vector<std::string> children;
  ASSERT_OK(fs_->GetChildren("/mine", &children));
  EXPECT_FALSE(children.empty());  // spilled runs
  ASSERT_OK(loader->Finish());
  ASSERT_OK(fs_->GetChildren("/mine", &children));
  EXPECT_TRUE(children.empty());
  EXPECT_EQ(ReadAll(), model);
}

// A failure at any file-system step: an error from Add or Finish, no temporary file left, and
// the DB holds either the whole load or none of it.
TEST_F(BulkLoaderTest, InjectedFailuresAreAllOrNothing) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "existing", "1"));
  const Model base = ReadAll();
  int failures = 0;
  for (FI::OpKind kind : {FI::OpKind::kCreate, FI::OpKind::kWrite, FI::OpKind::kSync,
                          FI::OpKind::kRead, FI::OpKind::kLink}) {
    for (uint64_t nth : {1, 3, 20}) {
      SCOPED_TRACE(testing::Message() << FI::OpKindName(kind) << " #" << nth);
      BulkLoaderOptions o;
      o.memory_budget = 64 << 10;
      o.target_file_size = 16 << 10;
      std::unique_ptr<BulkLoader> loader = NewLoader(o);
      Model model = ReadAll();
      fs_->InjectError(kind, nth, FaultIOError("bulk test"));
      Status s;
      Random rnd(nth);
      for (int i = 0; i < 4000 && s.ok(); i++) {
        const std::string key = absl::StrCat("key", rnd.Uniform(3000));
        s = loader->Add(key, absl::StrCat("v", i));
        model[key] = absl::StrCat("v", i);
      }
      if (s.ok()) s = loader->Finish();
      fs_->ClearInjectedErrors();
      EXPECT_FALSE(TempDirExists());
      const Model now = ReadAll();
      if (s.ok()) {
        EXPECT_EQ(now, model);
      } else {
        failures++;
        EXPECT_TRUE(s.IsIOError()) << s.ToString();
        EXPECT_EQ(now, base) << s.ToString();
      }
      // Start the next round from the DB as it is, writable again if an error stuck.
      if (!db_->Resume().ok()) {
        ASSERT_OK(db_->Close());
        db_.reset();
        Open();
      }
      if (s.ok()) {
        // Undo the load so every round starts from `base`.
        for (const auto& [key, value] : model) {
          if (base.count(key) == 0) ASSERT_OK(db_->Delete(WriteOptions(), key));
        }
      }
    }
  }
  EXPECT_GT(failures, 5);
}

}  // namespace
}  // namespace shale
