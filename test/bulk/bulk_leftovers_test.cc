// Files a crashed bulk load leaves in "<db>/bulkload.tmp" (issue 19, finding 17): removed at
// the DB's Open, at the start of the next load (keeping the files of loads still running in
// this process) and by DestroyDB; in a temporary directory the caller chose, only this
// process's leftovers go. The leftovers are made as a crashed process leaves them: files
// named "<pid>-<id>-run-NNNNNN.tmp" and "<pid>-<id>-rNN-NNNNNN.sst".
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/bulk_temp_dir.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

// A process id that is not this one, as a crashed process's.
constexpr uint64_t kDeadPid = 999999;

class BulkLeftoversTest : public testing::Test {
 protected:
  BulkLeftoversTest() : fs_(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
  }
  ~BulkLeftoversTest() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/db", &db_)); }
  void Close() {
    ASSERT_OK(db_->Close());
    db_.reset();
  }

  // Writes the files a load of process `pid` (loader `id`) leaves when it crashes in `dir`.
  std::vector<std::string> MakeLeftovers(const std::string& dir, uint64_t pid, int id) {
    fs_->CreateDirIfMissing(dir).PermitUncheckedError();
    std::vector<std::string> names;
    for (int i = 1; i <= 3; i++) names.push_back(absl::StrCat(pid, "-", id, "-run-00000", i, ".tmp"));
    names.push_back(absl::StrCat(pid, "-", id, "-r01-000001.sst"));
    for (const std::string& name : names) {
      std::unique_ptr<WritableFile> f;
      EXPECT_OK(fs_->NewWritableFile(dir + "/" + name, &f));
      EXPECT_OK(f->Append(std::string(1000, 'x')));
      EXPECT_OK(f->Close());
    }
    return names;
  }

  std::vector<std::string> Children(const std::string& dir) {
    std::vector<std::string> names;
    if (!fs_->GetChildren(dir, &names).ok()) names.clear();
    std::sort(names.begin(), names.end());
    return names;
  }
  bool Exists(const std::string& path) { return fs_->FileExists(path).ok(); }

  static void AddRandom(BulkLoader* loader, int n, uint64_t seed, Model* model) {
    Random rnd(seed);
    for (int i = 0; i < n; i++) {
      const std::string key = absl::StrCat("key", rnd.Uniform(100000));
      const std::string value = absl::StrCat(i, std::string(rnd.Uniform(40), 'v'));
      ASSERT_OK(loader->Add(key, value));
      (*model)[key] = value;
    }
  }

  Model ReadAll() {
    Model out;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) out[std::string(it->key())] = it->value();
    EXPECT_OK(it->status());
    return out;
  }

  std::shared_ptr<FaultInjectionFileSystem> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(BulkLeftoversTest, OpenRemovesACrashedLoadsFiles) {
  Open();
  Close();
  MakeLeftovers("/db/bulkload.tmp", kDeadPid, 1);
  // This process's id too: a crashed process may have had it (PID 1 in a container).
  MakeLeftovers("/db/bulkload.tmp", static_cast<uint64_t>(::getpid()), 424242);
  ASSERT_EQ(Children("/db/bulkload.tmp").size(), 8u);
  Open();
  EXPECT_FALSE(Exists("/db/bulkload.tmp")) << Children("/db/bulkload.tmp").size() << " left";
}

TEST_F(BulkLeftoversTest, DestroyDbRemovesTheTempDir) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  Close();
  MakeLeftovers("/db/bulkload.tmp", kDeadPid, 1);
  ASSERT_OK(DestroyDB("/db", options_));
  EXPECT_FALSE(Exists("/db/bulkload.tmp"));
  EXPECT_FALSE(Exists("/db"));
}

// A new load removes leftovers but not the files of a load still running in this process.
TEST_F(BulkLeftoversTest, ANewLoadRemovesLeftoversButNotALiveLoadsFiles) {
  Open();
  BulkLoaderOptions o;
  o.memory_budget = 64 << 10;
  std::unique_ptr<BulkLoader> running;
  ASSERT_OK(BulkLoader::Open(db_.get(), o, &running));
  Model model;
  AddRandom(running.get(), 5000, 7, &model);  // spills runs
  const std::vector<std::string> live = Children("/db/bulkload.tmp");
  ASSERT_GE(live.size(), 2u);
  const std::vector<std::string> dead = MakeLeftovers("/db/bulkload.tmp", kDeadPid, 3);

  std::unique_ptr<BulkLoader> second;
  ASSERT_OK(BulkLoader::Open(db_.get(), o, &second));
  // The dead load's files went, the running load's stayed. (Not an equality of listings: the
  // running load's spill thread may create another run file after `live` was listed.)
  for (const std::string& name : dead) EXPECT_FALSE(Exists("/db/bulkload.tmp/" + name)) << name;
  for (const std::string& name : live) EXPECT_TRUE(Exists("/db/bulkload.tmp/" + name)) << name;
  ASSERT_OK(second->Add("zzz", "second"));
  ASSERT_OK(second->Finish());
  EXPECT_TRUE(Exists("/db/bulkload.tmp"));  // the running load still uses it
  ASSERT_OK(running->Finish());
  model["zzz"] = "second";
  EXPECT_EQ(ReadAll(), model);
  EXPECT_FALSE(Exists("/db/bulkload.tmp"));
}

// In a directory the caller chose (perhaps shared with other processes), a load removes only
// this process's leftovers and keeps the directory.
TEST_F(BulkLeftoversTest, ACustomTempDirLosesOnlyThisProcesssLeftovers) {
  Open();
  const std::vector<std::string> foreign = MakeLeftovers("/shared", kDeadPid, 1);
  MakeLeftovers("/shared", static_cast<uint64_t>(::getpid()), 525252);
  std::unique_ptr<WritableFile> f;
  ASSERT_OK(fs_->NewWritableFile("/shared/user-file", &f));  // not a loader's: kept
  ASSERT_OK(f->Close());
  BulkLoaderOptions o;
  o.temp_dir = "/shared";
  std::unique_ptr<BulkLoader> loader;
  ASSERT_OK(BulkLoader::Open(db_.get(), o, &loader));
  std::vector<std::string> expected = foreign;
  expected.push_back("user-file");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Children("/shared"), expected);
  ASSERT_OK(loader->Add("k", "v"));
  ASSERT_OK(loader->Finish());
  EXPECT_EQ(Children("/shared"), expected);
}

TEST(BulkTempDirTest, ParsesOnlyLoaderFileNames) {
  uint64_t pid = 0;
  EXPECT_TRUE(ParseBulkLoadFileName("123-4-run-000001.tmp", &pid));
  EXPECT_EQ(pid, 123u);
  EXPECT_TRUE(ParseBulkLoadFileName("77-12-r03-000009.sst", &pid));
  EXPECT_EQ(pid, 77u);
  for (const char* name : {"", "run-000001.tmp", "123-run-000001.tmp", "123-4-", "123-4-x.tmp",
                           "a-4-run-1.tmp", "123-4-run-000001.log", "000123.sst", "LOCK"}) {
    EXPECT_FALSE(ParseBulkLoadFileName(name, &pid)) << name;
  }
}

}  // namespace
}  // namespace shale
