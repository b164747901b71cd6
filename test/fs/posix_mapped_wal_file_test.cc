// The POSIX file system's WAL file (FileSystem::NewWalFile, PosixMappedWalFile): appends are
// copies into a shared mapping of space allocated ahead. What it promises:
//  - the bytes read back are the bytes appended, across chunk boundaries, and Close leaves the
//    file exactly that long;
//  - appended bytes survive the death of the process with no Flush, Sync or Close, followed by
//    nothing but zeros (which the log reader takes for the end of the log);
//  - running out of space is an error from the call, never a signal.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "fs/fs_test_util.h"
#include "fs/posix_mapped_wal_file.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class PosixMappedWalFileTest : public testing::Test {
 protected:
  void SetUp() override {
    std::unique_ptr<WritableFile> probe;
    ASSERT_OK(fs_->NewWalFile(P("probe.log"), &probe));
    if (dynamic_cast<PosixMappedWalFile*>(probe.get()) == nullptr) {
      GTEST_SKIP() << dir_.path() << " is not on ext4, xfs or tmpfs: WALs use write(2) there";
    }
  }

  std::string P(const std::string& name) const { return dir_.path() + "/" + name; }
  uint64_t SizeOnDisk(const std::string& path) {
    uint64_t size = 0;
    EXPECT_OK(fs_->GetFileSize(path, &size));
    return size;
  }
  std::string Contents(const std::string& path) {
    std::string data;
    EXPECT_OK(ReadFileToString(fs_.get(), path, &data));
    return data;
  }
  // Bytes of random content in pieces of random length (1 byte to 9 KiB), appended to `file`.
  std::string AppendRandom(WritableFile* file, size_t total, uint32_t seed) {
    std::mt19937 rng(seed);
    std::string all;
    while (all.size() < total) {
      std::string piece(1 + rng() % (9 * 1024), '\0');
      for (char& c : piece) c = static_cast<char>(rng());
      EXPECT_OK(file->Append(piece));
      all += piece;
    }
    return all;
  }

  ScopedTempDir dir_;
  std::shared_ptr<FileSystem> fs_ = FileSystem::Default();
};

TEST_F(PosixMappedWalFileTest, BytesReadBackAcrossChunksAndCloseTrimsTheFile) {
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWalFile(P("000001.log"), &file));
  // Past the first chunks and several of the largest.
  const std::string all =
      AppendRandom(file.get(), 3 * PosixMappedWalFile::kMaxChunkSize + 12345, 1);
  EXPECT_EQ(file->GetFileSize(), all.size());
  ASSERT_OK(file->Flush());
  // While open, the file is allocated ahead: the bytes, then zeros.
  const std::string open_contents = Contents(P("000001.log"));
  ASSERT_GT(open_contents.size(), all.size());
  EXPECT_EQ(open_contents.substr(0, all.size()), all);
  EXPECT_EQ(open_contents.find_first_not_of('\0', all.size()), std::string::npos);
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
  EXPECT_EQ(SizeOnDisk(P("000001.log")), all.size());
  EXPECT_EQ(Contents(P("000001.log")), all);
  EXPECT_FALSE(file->Append("x").ok()) << "appending after Close must fail";
}

// Nothing is allocated before the first Append: a DB whose creation stops after making its
// first WAL leaves an empty file, not 64 KiB of zeros that a later create would take for data.
TEST_F(PosixMappedWalFileTest, NothingIsAllocatedBeforeTheFirstAppend) {
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWalFile(P("000002.log"), &file));
  EXPECT_EQ(SizeOnDisk(P("000002.log")), 0u);
  ASSERT_OK(file->Sync());
  EXPECT_EQ(SizeOnDisk(P("000002.log")), 0u);
  ASSERT_OK(file->Close());
  EXPECT_EQ(SizeOnDisk(P("000002.log")), 0u);
}

TEST_F(PosixMappedWalFileTest, NewWalFileTruncatesAnExistingFile) {
  ASSERT_OK(WriteStringToFile(fs_.get(), std::string(100000, 'o'), P("000003.log"), false));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWalFile(P("000003.log"), &file));
  ASSERT_OK(file->Append("new"));
  ASSERT_OK(file->Close());
  EXPECT_EQ(Contents(P("000003.log")), "new");
}

// The child appends and is killed: no Flush, Sync or Close ran, and the bytes are all there.
TEST_F(PosixMappedWalFileTest, AppendedBytesSurviveTheProcessBeingKilled) {
  const std::string path = P("000004.log");
  const size_t total = PosixMappedWalFile::kMaxChunkSize + 777;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(60);  // a hung child dies rather than hanging the test
    std::unique_ptr<WritableFile> file;
    if (!FileSystem::Default()->NewWalFile(path, &file).ok()) ::_exit(2);
    std::mt19937 rng(7);
    std::string all;
    while (all.size() < total) {
      std::string piece(1 + rng() % 300, '\0');
      for (char& c : piece) c = static_cast<char>(rng());
      if (!file->Append(piece).ok()) ::_exit(3);
      all += piece;
    }
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  std::mt19937 rng(7);
  std::string expected;
  while (expected.size() < total) {
    std::string piece(1 + rng() % 300, '\0');
    for (char& c : piece) c = static_cast<char>(rng());
    expected += piece;
  }
  const std::string contents = Contents(path);
  ASSERT_GE(contents.size(), expected.size());
  EXPECT_EQ(contents.substr(0, expected.size()), expected) << "appended bytes were lost";
  EXPECT_EQ(contents.find_first_not_of('\0', expected.size()), std::string::npos)
      << "the allocated space past the bytes must read as zeros";
}

// No room for the next chunk (a file size limit stands in for a full disk; fallocate fails
// the same way): Append returns an error, the process gets no signal, and the error sticks.
TEST_F(PosixMappedWalFileTest, NoRoomForTheNextChunkIsAnErrorNotASignal) {
  const std::string path = P("000005.log");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(60);
    ::signal(SIGXFSZ, SIG_IGN);  // the limit's signal; fallocate then fails with EFBIG
    struct rlimit limit = {256 * 1024, 256 * 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    std::unique_ptr<WritableFile> file;
    if (!FileSystem::Default()->NewWalFile(path, &file).ok()) ::_exit(3);
    const std::string piece(1000, 'p');
    Status s;
    size_t appended = 0;
    for (int i = 0; i < 2000 && s.ok(); i++) {
      s = file->Append(piece);
      if (s.ok()) appended += piece.size();
    }
    if (s.ok()) ::_exit(4);                        // 2 MB went into a 256 KiB limit
    if (!s.IsIOError()) ::_exit(5);
    if (appended > 256 * 1024) ::_exit(6);         // past the limit, somehow
    if (file->Append("x").ok()) ::_exit(7);        // the error must stick
    if (file->Sync().ok()) ::_exit(8);
    (void)file->Close();
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// What the DB's recovery relies on, from the file's side: a plain WritableFile from a file
// system without NewWalFile of its own (the in-memory one) still makes a WAL.
TEST(WalFileDefaultTest, FileSystemsWithoutTheirOwnMakeAPlainWritableFile) {
  auto mem = NewMemFileSystem();
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(mem->NewWalFile("/w.log", &file));
  ASSERT_OK(file->Append("abc"));
  ASSERT_OK(file->Close());
  std::string data;
  ASSERT_OK(ReadFileToString(mem.get(), "/w.log", &data));
  EXPECT_EQ(data, "abc");
}

}  // namespace
}  // namespace shale
