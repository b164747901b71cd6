// FaultInjectionFileSystem::SetModelDirCreation: a directory created without a SyncDir of its
// parent is gone after DropUnsyncedData, with everything in it (synced files included); a
// synced parent keeps it; off (the default), directories survive as before.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "fs/fault_injection_file_system.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class FaultDirCreationTest : public testing::Test {
 protected:
  FaultDirCreationTest() : base_(NewMemFileSystem()) {
    EXPECT_OK(base_->CreateDir("/root"));
    fs_ = std::make_shared<FaultInjectionFileSystem>(base_);
  }
  void WriteSynced(const std::string& path) {
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(fs_->NewWritableFile(path, &w));
    ASSERT_OK(w->Append("data"));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }
  bool Exists(const std::string& path) { return base_->FileExists(path).ok(); }

  std::shared_ptr<FileSystem> base_;
  std::shared_ptr<FaultInjectionFileSystem> fs_;
};

TEST_F(FaultDirCreationTest, UnsyncedDirectoryIsLostWithItsContents) {
  fs_->SetModelDirCreation(true);
  ASSERT_OK(fs_->CreateDirIfMissing("/root/a"));
  ASSERT_OK(fs_->CreateDir("/root/a/b"));
  WriteSynced("/root/a/b/f");
  ASSERT_OK(fs_->SyncDir("/root/a/b"));
  ASSERT_OK(fs_->SyncDir("/root/a"));  // b's entry is durable, a's is not
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_FALSE(Exists("/root/a"));
  EXPECT_TRUE(Exists("/root"));
}

TEST_F(FaultDirCreationTest, SyncedParentKeepsTheDirectory) {
  fs_->SetModelDirCreation(true);
  ASSERT_OK(fs_->CreateDirIfMissing("/root/a"));
  WriteSynced("/root/a/f");
  ASSERT_OK(fs_->SyncDir("/root/a"));
  ASSERT_OK(fs_->SyncDir("/root"));
  ASSERT_OK(fs_->CreateDirIfMissing("/root/a"));  // exists: nothing new to undo
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_TRUE(Exists("/root/a/f"));
}

TEST_F(FaultDirCreationTest, OffByDefault) {
  ASSERT_OK(fs_->CreateDir("/root/a"));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_TRUE(Exists("/root/a"));
}

}  // namespace
}  // namespace shale
