// One conformance suite for every FileSystem: POSIX (in a fresh temporary directory), in-memory,
// and the fault-injecting layer over each. Whatever the engine relies on is asserted here, so
// a test of a higher layer that passes in memory passes on disk.
#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fs/fault_injection_file_system.h"
#include "fs/fs_test_util.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// A file system under test and an empty directory in it to work in.
struct FsUnderTest {
  std::shared_ptr<FileSystem> fs;
  std::string root;
  std::unique_ptr<ScopedTempDir> temp_dir;  // set for disk-backed kinds
};

struct FsKind {
  const char* name;
  std::function<FsUnderTest()> make;
};

FsUnderTest OnDisk(std::shared_ptr<FileSystem> fs) {
  FsUnderTest t;
  t.temp_dir = std::make_unique<ScopedTempDir>();
  t.root = t.temp_dir->path();
  t.fs = std::move(fs);
  return t;
}

FsUnderTest InMemory(std::shared_ptr<FileSystem> fs) {
  FsUnderTest t;
  t.root = "/root";
  t.fs = std::move(fs);
  EXPECT_OK(t.fs->CreateDir(t.root));
  return t;
}

const FsKind kKinds[] = {
    {"posix", [] { return OnDisk(FileSystem::Default()); }},
    {"mem", [] { return InMemory(NewMemFileSystem()); }},
    {"fault_over_posix",
     [] { return OnDisk(std::make_shared<FaultInjectionFileSystem>(FileSystem::Default())); }},
    {"fault_over_mem",
     [] { return InMemory(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())); }},
};

class FileSystemConformanceTest : public testing::TestWithParam<FsKind> {
 protected:
  void SetUp() override { t_ = GetParam().make(); }

  FileSystem* fs() { return t_.fs.get(); }
  std::string P(const std::string& name) const { return t_.root + "/" + name; }
  std::vector<std::string> Children(const std::string& dir) {
    std::vector<std::string> names;
    EXPECT_OK(fs()->GetChildren(dir, &names));
    std::sort(names.begin(), names.end());
    return names;
  }

  FsUnderTest t_;
};

TEST_P(FileSystemConformanceTest, HasAName) { EXPECT_STRNE(fs()->Name(), ""); }

TEST_P(FileSystemConformanceTest, WritesAppendsAndReadsBack) {
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs()->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append("hello "));
  ASSERT_OK(w->Append(""));
  ASSERT_OK(w->Append("world"));
  EXPECT_EQ(w->GetFileSize(), 11u);
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs(), P("f")), "hello world");

  ASSERT_OK(fs()->NewAppendableFile(P("f"), &w));
  EXPECT_EQ(w->GetFileSize(), 11u);  // counts what the file held when opened
  ASSERT_OK(w->Append("!"));
  EXPECT_EQ(w->GetFileSize(), 12u);
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs(), P("f")), "hello world!");
  uint64_t size = 0;
  ASSERT_OK(fs()->GetFileSize(P("f"), &size));
  EXPECT_EQ(size, 12u);

  // NewWritableFile truncates an existing file.
  ASSERT_OK(fs()->NewWritableFile(P("f"), &w));
  EXPECT_EQ(w->GetFileSize(), 0u);
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs(), P("f")), "");
}

TEST_P(FileSystemConformanceTest, AppendableFileIsCreatedWhenMissing) {
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs()->NewAppendableFile(P("new"), &w));
  EXPECT_EQ(w->GetFileSize(), 0u);
  ASSERT_OK(w->Append("x"));
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs(), P("new")), "x");
}

TEST_P(FileSystemConformanceTest, ClosedFileRefusesFurtherCalls) {
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs()->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append("abc"));
  ASSERT_OK(w->Close());
  EXPECT_FALSE(w->Append("more").ok());
  EXPECT_FALSE(w->Flush().ok());
  EXPECT_FALSE(w->Sync().ok());
  EXPECT_FALSE(w->Close().ok());
  EXPECT_EQ(Contents(fs(), P("f")), "abc");
}

TEST_P(FileSystemConformanceTest, FileDestroyedWithoutCloseKeepsItsData) {
  {
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(fs()->NewWritableFile(P("f"), &w));
    ASSERT_OK(w->Append("buffered"));
  }
  EXPECT_EQ(Contents(fs(), P("f")), "buffered");
}

TEST_P(FileSystemConformanceTest, SequentialReadsAreShortOnlyAtTheEnd) {
  std::mt19937_64 rng(1);
  std::string data = RandomBytes(&rng, 100);
  ASSERT_OK(WriteStringToFile(fs(), data, P("f"), false));
  std::unique_ptr<SequentialFile> r;
  ASSERT_OK(fs()->NewSequentialFile(P("f"), &r));
  char scratch[200];
  std::string_view got;
  ASSERT_OK(r->Read(40, &got, scratch));
  EXPECT_EQ(got, data.substr(0, 40));
  ASSERT_OK(r->Read(100, &got, scratch));
  EXPECT_EQ(got, data.substr(40));
  ASSERT_OK(r->Read(10, &got, scratch));
  EXPECT_TRUE(got.empty());
  ASSERT_OK(r->Read(10, &got, scratch));  // still OK and empty at the end
  EXPECT_TRUE(got.empty());

  ASSERT_OK(fs()->NewSequentialFile(P("f"), &r));
  ASSERT_OK(r->Skip(10));
  ASSERT_OK(r->Read(5, &got, scratch));
  EXPECT_EQ(got, data.substr(10, 5));
  ASSERT_OK(r->Skip(1000));  // past the end: stops there
  ASSERT_OK(r->Read(5, &got, scratch));
  EXPECT_TRUE(got.empty());
  ASSERT_OK(r->Skip(UINT64_MAX));
  ASSERT_OK(r->Read(5, &got, scratch));
  EXPECT_TRUE(got.empty());
}

TEST_P(FileSystemConformanceTest, RandomReadsPastTheEndAreShort) {
  std::mt19937_64 rng(2);
  std::string data = RandomBytes(&rng, 100);
  ASSERT_OK(WriteStringToFile(fs(), data, P("f"), false));
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs()->NewRandomAccessFile(P("f"), &r));
  uint64_t size = 0;
  ASSERT_OK(r->GetSize(&size));
  EXPECT_EQ(size, 100u);
  ASSERT_OK(r->Prefetch(0, 100));
  char scratch[200];
  std::string_view got;
  ASSERT_OK(r->Read(0, 100, &got, scratch));
  EXPECT_EQ(got, data);
  ASSERT_OK(r->Read(30, 20, &got, scratch));
  EXPECT_EQ(got, data.substr(30, 20));
  ASSERT_OK(r->Read(90, 20, &got, scratch));
  EXPECT_EQ(got, data.substr(90));
  ASSERT_OK(r->Read(100, 5, &got, scratch));
  EXPECT_TRUE(got.empty());
  ASSERT_OK(r->Read(5000, 5, &got, scratch));
  EXPECT_TRUE(got.empty());
}

TEST_P(FileSystemConformanceTest, RandomReadsRunConcurrently) {
  std::mt19937_64 rng(3);
  std::string data = RandomBytes(&rng, 256 * 1024);
  ASSERT_OK(WriteStringToFile(fs(), data, P("f"), false));
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs()->NewRandomAccessFile(P("f"), &r));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 local(100 + t);
      std::vector<char> scratch(4096);
      for (int i = 0; i < 300; ++i) {
        uint64_t offset = local() % data.size();
        size_t n = 1 + local() % scratch.size();
        std::string_view got;
        if (!r->Read(offset, n, &got, scratch.data()).ok() ||
            got != std::string_view(data).substr(offset, n)) {
          ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST_P(FileSystemConformanceTest, GetChildrenListsDirectChildren) {
  EXPECT_TRUE(Children(t_.root).empty());
  ASSERT_OK(WriteStringToFile(fs(), "a", P("a"), false));
  ASSERT_OK(WriteStringToFile(fs(), "b", P("b"), false));
  ASSERT_OK(fs()->CreateDir(P("sub")));
  ASSERT_OK(WriteStringToFile(fs(), "c", P("sub/c"), false));
  EXPECT_EQ(Children(t_.root), (std::vector<std::string>{"a", "b", "sub"}));
  EXPECT_EQ(Children(P("sub")), (std::vector<std::string>{"c"}));
  EXPECT_EQ(Children(P("sub/")), (std::vector<std::string>{"c"}));

  std::vector<std::string> names;
  Status s = fs()->GetChildren(P("missing"), &names);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, DuplicateAndTrailingSlashesNameTheSamePath) {
  ASSERT_OK(fs()->CreateDir(P("x/")));
  ASSERT_OK(WriteStringToFile(fs(), "data", t_.root + "//x//f", false));
  EXPECT_EQ(Contents(fs(), P("x/f")), "data");
  EXPECT_EQ(Children(P("x//")), (std::vector<std::string>{"f"}));
  EXPECT_OK(fs()->FileExists(t_.root + "///x"));
}

TEST_P(FileSystemConformanceTest, RenameReplacesTheTarget) {
  ASSERT_OK(WriteStringToFile(fs(), "A", P("a"), false));
  ASSERT_OK(WriteStringToFile(fs(), "B", P("b"), false));
  ASSERT_OK(fs()->RenameFile(P("a"), P("b")));
  EXPECT_EQ(Contents(fs(), P("b")), "A");
  EXPECT_TRUE(fs()->FileExists(P("a")).IsNotFound());
  EXPECT_EQ(Children(t_.root), (std::vector<std::string>{"b"}));

  ASSERT_OK(fs()->RenameFile(P("b"), P("c")));  // to a new name
  EXPECT_EQ(Contents(fs(), P("c")), "A");

  Status s = fs()->RenameFile(P("missing"), P("d"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  s = fs()->RenameFile(P("c"), P("nodir/c"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  EXPECT_EQ(Contents(fs(), P("c")), "A");
}

TEST_P(FileSystemConformanceTest, LinkSharesContents) {
  ASSERT_OK(WriteStringToFile(fs(), "one", P("a"), false));
  ASSERT_OK(fs()->LinkFile(P("a"), P("b")));
  EXPECT_EQ(Contents(fs(), P("b")), "one");

  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs()->NewAppendableFile(P("a"), &w));
  ASSERT_OK(w->Append("+two"));
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs(), P("b")), "one+two");

  ASSERT_OK(fs()->DeleteFile(P("a")));
  EXPECT_EQ(Contents(fs(), P("b")), "one+two");

  ASSERT_OK(WriteStringToFile(fs(), "other", P("c"), false));
  EXPECT_FALSE(fs()->LinkFile(P("b"), P("c")).ok());  // the target exists
  EXPECT_EQ(Contents(fs(), P("c")), "other");
  Status s = fs()->LinkFile(P("missing"), P("d"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, DeleteRemovesTheFile) {
  ASSERT_OK(WriteStringToFile(fs(), "x", P("f"), false));
  EXPECT_OK(fs()->FileExists(P("f")));
  ASSERT_OK(fs()->DeleteFile(P("f")));
  EXPECT_TRUE(fs()->FileExists(P("f")).IsNotFound());
  EXPECT_TRUE(Children(t_.root).empty());
  Status s = fs()->DeleteFile(P("f"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, DeletedFileStaysReadableThroughOpenHandles) {
  ASSERT_OK(WriteStringToFile(fs(), "still here", P("f"), false));
  std::unique_ptr<RandomAccessFile> r;
  std::unique_ptr<SequentialFile> seq;
  ASSERT_OK(fs()->NewRandomAccessFile(P("f"), &r));
  ASSERT_OK(fs()->NewSequentialFile(P("f"), &seq));
  ASSERT_OK(fs()->DeleteFile(P("f")));
  char scratch[32];
  std::string_view got;
  ASSERT_OK(r->Read(0, 32, &got, scratch));
  EXPECT_EQ(got, "still here");
  ASSERT_OK(seq->Read(32, &got, scratch));
  EXPECT_EQ(got, "still here");
}

TEST_P(FileSystemConformanceTest, SizesAgree) {
  std::mt19937_64 rng(4);
  std::string data = RandomBytes(&rng, 12345);
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs()->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append(data));
  EXPECT_EQ(w->GetFileSize(), data.size());
  ASSERT_OK(w->Flush());
  uint64_t size = 0;
  ASSERT_OK(fs()->GetFileSize(P("f"), &size));
  EXPECT_EQ(size, data.size());
  ASSERT_OK(w->Close());
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs()->NewRandomAccessFile(P("f"), &r));
  ASSERT_OK(r->GetSize(&size));
  EXPECT_EQ(size, data.size());
}

TEST_P(FileSystemConformanceTest, MissingFileIsPathNotFound) {
  const std::string missing = P("missing");
  std::unique_ptr<SequentialFile> seq;
  std::unique_ptr<RandomAccessFile> r;
  uint64_t size;
  std::vector<Status> results;
  results.push_back(fs()->NewSequentialFile(missing, &seq));
  results.push_back(fs()->NewRandomAccessFile(missing, &r));
  results.push_back(fs()->GetFileSize(missing, &size));
  results.push_back(fs()->DeleteFile(missing));
  for (const Status& s : results) {
    EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
    EXPECT_NE(s.ToString().find(missing), std::string::npos) << s.ToString();
  }
  Status s = fs()->FileExists(missing);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, CreatingInAMissingDirectoryFails) {
  std::unique_ptr<WritableFile> w;
  std::unique_ptr<FileLock> lock;
  Status results[] = {
      fs()->NewWritableFile(P("nodir/f"), &w),
      fs()->NewAppendableFile(P("nodir/f"), &w),
      fs()->CreateDir(P("nodir/sub")),
      fs()->CreateDirIfMissing(P("nodir/sub")),
      fs()->LockFile(P("nodir/LOCK"), &lock),
  };
  for (const Status& s : results) EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  EXPECT_TRUE(fs()->FileExists(P("nodir")).IsNotFound());
}

TEST_P(FileSystemConformanceTest, CreateDirTwiceFailsButCreateDirIfMissingDoesNot) {
  ASSERT_OK(fs()->CreateDir(P("d")));
  Status s = fs()->CreateDir(P("d"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_OK(fs()->CreateDirIfMissing(P("d")));
  EXPECT_OK(fs()->CreateDirIfMissing(P("e")));
  EXPECT_OK(fs()->CreateDirIfMissing(P("e")));
  EXPECT_OK(fs()->FileExists(P("e")));

  ASSERT_OK(WriteStringToFile(fs(), "x", P("file"), false));
  EXPECT_FALSE(fs()->CreateDirIfMissing(P("file")).ok());
  EXPECT_FALSE(fs()->CreateDir(P("file")).ok());
}

TEST_P(FileSystemConformanceTest, DeleteDirRefusesANonEmptyDirectory) {
  ASSERT_OK(fs()->CreateDir(P("d")));
  ASSERT_OK(WriteStringToFile(fs(), "x", P("d/f"), false));
  Status s = fs()->DeleteDir(P("d"));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(Contents(fs(), P("d/f")), "x");
  ASSERT_OK(fs()->DeleteFile(P("d/f")));
  ASSERT_OK(fs()->DeleteDir(P("d")));
  EXPECT_TRUE(fs()->FileExists(P("d")).IsNotFound());
  s = fs()->DeleteDir(P("d"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, SyncDirNeedsAnExistingDirectory) {
  EXPECT_OK(fs()->SyncDir(t_.root));
  Status s = fs()->SyncDir(P("missing"));
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

TEST_P(FileSystemConformanceTest, LockIsExclusiveUntilUnlocked) {
  const std::string path = P("LOCK");
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(fs()->LockFile(path, &lock));
  EXPECT_OK(fs()->FileExists(path));  // created

  std::unique_ptr<FileLock> second;
  Status s = fs()->LockFile(path, &second);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
  EXPECT_EQ(second, nullptr);
  s = fs()->LockFile(t_.root + "//LOCK", &second);  // another spelling of the same path
  EXPECT_TRUE(s.IsBusy()) << s.ToString();

  ASSERT_OK(fs()->UnlockFile(std::move(lock)));
  ASSERT_OK(fs()->LockFile(path, &lock));
  ASSERT_OK(fs()->UnlockFile(std::move(lock)));
}

TEST_P(FileSystemConformanceTest, LockDestroyedWithoutUnlockIsReleased) {
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(fs()->LockFile(P("LOCK"), &lock));
  lock.reset();
  ASSERT_OK(fs()->LockFile(P("LOCK"), &lock));
  ASSERT_OK(fs()->UnlockFile(std::move(lock)));
}

TEST_P(FileSystemConformanceTest, WriteStringToFileAndReadFileToString) {
  std::mt19937_64 rng(5);
  for (size_t n : {size_t{0}, size_t{1}, size_t{65536}, size_t{200000}}) {
    std::string data = RandomBytes(&rng, n);
    ASSERT_OK(WriteStringToFile(fs(), data, P("f"), /*sync=*/n % 2 == 0));
    std::string got = "junk";
    ASSERT_OK(ReadFileToString(fs(), P("f"), &got));
    EXPECT_EQ(got, data) << "size " << n;
  }
  std::string got = "junk";
  Status s = ReadFileToString(fs(), P("missing"), &got);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  EXPECT_TRUE(got.empty());
  s = WriteStringToFile(fs(), "x", P("nodir/f"), false);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(AllFileSystems, FileSystemConformanceTest, testing::ValuesIn(kKinds),
                         [](const testing::TestParamInfo<FsKind>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace shale
