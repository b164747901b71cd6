// What only the in-memory file system promises: its root, relative paths, independence of
// instances, and thread-safety under concurrent writers.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fs/fs_test_util.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::vector<std::string> SortedChildren(FileSystem* fs, const std::string& dir) {
  std::vector<std::string> names;
  EXPECT_OK(fs->GetChildren(dir, &names));
  std::sort(names.begin(), names.end());
  return names;
}

TEST(MemFileSystemTest, RootAndCurrentDirectoryExist) {
  auto fs = NewMemFileSystem();
  EXPECT_STREQ(fs->Name(), "mem");
  EXPECT_OK(fs->FileExists("/"));
  EXPECT_TRUE(SortedChildren(fs.get(), "/").empty());
  ASSERT_OK(fs->CreateDir("/db"));
  ASSERT_OK(WriteStringToFile(fs.get(), "x", "/top", false));
  ASSERT_OK(WriteStringToFile(fs.get(), "y", "relative", false));
  EXPECT_EQ(SortedChildren(fs.get(), "/"), (std::vector<std::string>{"db", "top"}));
  EXPECT_EQ(SortedChildren(fs.get(), ""), (std::vector<std::string>{"relative"}));
  EXPECT_FALSE(fs->DeleteDir("/").ok());
}

TEST(MemFileSystemTest, ChildrenOfSiblingsWithCommonPrefixesStaySeparate) {
  auto fs = NewMemFileSystem();
  ASSERT_OK(fs->CreateDir("/a"));
  ASSERT_OK(fs->CreateDir("/ab"));
  ASSERT_OK(fs->CreateDir("/a/b"));
  ASSERT_OK(WriteStringToFile(fs.get(), "1", "/a/f", false));
  ASSERT_OK(WriteStringToFile(fs.get(), "2", "/ab/g", false));
  ASSERT_OK(WriteStringToFile(fs.get(), "3", "/a/b/h", false));
  EXPECT_EQ(SortedChildren(fs.get(), "/a"), (std::vector<std::string>{"b", "f"}));
  EXPECT_EQ(SortedChildren(fs.get(), "/ab"), (std::vector<std::string>{"g"}));
  EXPECT_EQ(SortedChildren(fs.get(), "/"), (std::vector<std::string>{"a", "ab"}));
  ASSERT_OK(fs->DeleteFile("/a/b/h"));
  ASSERT_OK(fs->DeleteDir("/a/b"));
  EXPECT_EQ(SortedChildren(fs.get(), "/a"), (std::vector<std::string>{"f"}));
}

TEST(MemFileSystemTest, FileIsNotADirectory) {
  auto fs = NewMemFileSystem();
  ASSERT_OK(WriteStringToFile(fs.get(), "x", "/f", false));
  std::vector<std::string> names;
  EXPECT_FALSE(fs->GetChildren("/f", &names).ok());
  EXPECT_FALSE(WriteStringToFile(fs.get(), "y", "/f/g", false).ok());
  EXPECT_FALSE(fs->DeleteDir("/f").ok());
  ASSERT_OK(fs->CreateDir("/d"));
  EXPECT_FALSE(fs->DeleteFile("/d").ok());
  std::unique_ptr<SequentialFile> seq;
  EXPECT_FALSE(fs->NewSequentialFile("/d", &seq).ok());
  EXPECT_TRUE(fs->RenameFile("/d", "/e").IsNotSupported());
}

TEST(MemFileSystemTest, InstancesAreIndependent) {
  auto a = NewMemFileSystem();
  auto b = NewMemFileSystem();
  ASSERT_OK(WriteStringToFile(a.get(), "x", "/f", false));
  EXPECT_TRUE(b->FileExists("/f").IsNotFound());
  std::unique_ptr<FileLock> la, lb;
  ASSERT_OK(a->LockFile("/LOCK", &la));
  ASSERT_OK(b->LockFile("/LOCK", &lb));
  EXPECT_FALSE(b->UnlockFile(std::move(la)).ok()) << "a lock of another instance";
  ASSERT_OK(b->UnlockFile(std::move(lb)));
}

TEST(MemFileSystemTest, OpenHandlesOutliveTheFileSystem) {
  std::unique_ptr<RandomAccessFile> r;
  std::unique_ptr<FileLock> lock;
  {
    auto fs = NewMemFileSystem();
    ASSERT_OK(WriteStringToFile(fs.get(), "kept", "/f", false));
    ASSERT_OK(fs->NewRandomAccessFile("/f", &r));
    ASSERT_OK(fs->LockFile("/LOCK", &lock));
  }
  char scratch[8];
  std::string_view got;
  ASSERT_OK(r->Read(0, 8, &got, scratch));
  EXPECT_EQ(got, "kept");
  lock.reset();  // must not touch the destroyed file system
}

TEST(MemFileSystemTest, ConcurrentWritersAndListers) {
  auto fs = NewMemFileSystem();
  ASSERT_OK(fs->CreateDir("/d"));
  constexpr int kThreads = 4;
  constexpr int kFiles = 50;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads + 1, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFiles; ++i) {
        std::string path = "/d/t" + std::to_string(t) + "_" + std::to_string(i);
        std::string data(100 + i, static_cast<char>('a' + t));
        if (!WriteStringToFile(fs.get(), data, path, false).ok()) ++failures[t];
        if (Contents(fs.get(), path) != data) ++failures[t];
        if (i % 2 == 0 && !fs->DeleteFile(path).ok()) ++failures[t];
      }
    });
  }
  threads.emplace_back([&] {
    std::vector<std::string> names;
    for (int i = 0; i < 200; ++i) {
      if (!fs->GetChildren("/d", &names).ok()) ++failures[kThreads];
    }
  });
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  EXPECT_EQ(SortedChildren(fs.get(), "/d").size(), static_cast<size_t>(kThreads * kFiles / 2));
}

}  // namespace
}  // namespace shale
