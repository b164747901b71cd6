// Creating a DB makes its directory's entry durable (issue 19, finding 17): DB::Open syncs the
// parent directory after creating the DB directory, so a power loss right after the first
// synced write keeps the DB. The fault-injecting file system, with directory creation
// modelled, drops a directory whose parent was never synced.
#include <unistd.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "fs/fault_injection_file_system.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

TEST(DbCreateDirSyncTest, NewDbDirectorySurvivesPowerLoss) {
  auto base = NewMemFileSystem();
  ASSERT_OK(base->CreateDir("/data"));
  auto fs = std::make_shared<FaultInjectionFileSystem>(base);
  fs->SetModelDirCreation(true);
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, "/data/db", &db));
    WriteOptions sync;
    sync.sync = true;
    ASSERT_OK(db->Put(sync, "k", "acknowledged and synced"));
    fs->SetFilesystemActive(false);  // the power goes: nothing more reaches the disk
    db.reset();
  }
  ASSERT_OK(fs->DropUnsyncedData());
  fs->SetFilesystemActive(true);
  options.create_if_missing = false;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/data/db", &db));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "k", &value));
  EXPECT_EQ(value, "acknowledged and synced");
  ASSERT_OK(db->Close());
}

// A relative DB name on the POSIX file system: its parent is the current directory, which is
// synced as ".".
TEST(DbCreateDirSyncTest, RelativeNameSyncsTheCurrentDirectory) {
  std::string tmpl = testing::TempDir() + "/shale_create_dir_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(tmpl.c_str()), 0);
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  Status s = DB::Open(options, "reldb", &db);
  if (s.ok()) {
    s = db->Put(WriteOptions(), "k", "v");
    if (s.ok()) s = db->Close();
    db.reset();
  }
  Status destroyed = DestroyDB("reldb", options);
  ASSERT_EQ(::chdir(old_cwd), 0);
  ::rmdir(tmpl.c_str());
  ASSERT_OK(s);
  ASSERT_OK(destroyed);
}

}  // namespace
}  // namespace shale
