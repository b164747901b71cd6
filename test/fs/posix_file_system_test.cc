// What only the POSIX file system promises: the lock holds against other processes, the
// user-space write buffer, close-on-exec descriptors and the errno mapping.
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "fs/fs_test_util.h"
#include "fs/posix_errors.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class PosixFileSystemTest : public testing::Test {
 protected:
  std::string P(const std::string& name) const { return dir_.path() + "/" + name; }
  uint64_t SizeOnDisk(const std::string& path) {
    uint64_t size = 0;
    EXPECT_OK(fs_->GetFileSize(path, &size));
    return size;
  }

  ScopedTempDir dir_;
  std::shared_ptr<FileSystem> fs_ = FileSystem::Default();
};

TEST_F(PosixFileSystemTest, DefaultIsOneSharedInstance) {
  EXPECT_EQ(FileSystem::Default().get(), FileSystem::Default().get());
  EXPECT_STREQ(fs_->Name(), "posix");
}

// Tries to take an fcntl write lock on path with plain system calls. Returns the errno of the
// failure, or 0 if the lock was taken.
int TryRawLock(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return errno;
  struct flock f = {};
  f.l_type = F_WRLCK;
  f.l_whence = SEEK_SET;
  int err = ::fcntl(fd, F_SETLK, &f) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

// Runs child() in a forked process and returns its exit status (child() returns the code).
template <typename Fn>
int RunInChild(Fn child) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(child());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST_F(PosixFileSystemTest, AnotherProcessCannotTakeTheLockWhileItIsHeld) {
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(fs_->LockFile(P("LOCK"), &lock));
  int code = RunInChild([&] {
    int e = TryRawLock(P("LOCK"));
    return (e == EACCES || e == EAGAIN) ? 0 : 1;
  });
  EXPECT_EQ(code, 0) << "the child could take the lock held by the parent";
  ASSERT_OK(fs_->UnlockFile(std::move(lock)));
  code = RunInChild([&] { return TryRawLock(P("LOCK")); });
  EXPECT_EQ(code, 0) << "the lock was not released: " << ErrnoText(code);
}

TEST_F(PosixFileSystemTest, LockHeldByAnotherProcessIsBusy) {
  // The child takes the lock through LockFile, so this process's own set of locked paths is
  // empty and only the fcntl lock can refuse the parent.
  int to_parent[2], to_child[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  ASSERT_EQ(::pipe(to_child), 0);
  const std::string path = P("LOCK");
  pid_t pid = ::fork();
  if (pid == 0) {
    std::unique_ptr<FileLock> lock;
    char c = FileSystem::Default()->LockFile(path, &lock).ok() ? 'L' : 'E';
    if (::write(to_parent[1], &c, 1) != 1) ::_exit(2);
    if (::read(to_child[0], &c, 1) != 1) ::_exit(3);  // wait until the parent has tried
    ::_exit(FileSystem::Default()->UnlockFile(std::move(lock)).ok() ? 0 : 4);
  }
  char c = 0;
  ASSERT_EQ(::read(to_parent[0], &c, 1), 1);
  ASSERT_EQ(c, 'L') << "the child could not lock";
  std::unique_ptr<FileLock> lock;
  Status s = fs_->LockFile(path, &lock);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("lock held by another process or DB instance"), std::string::npos);
  ASSERT_EQ(::write(to_child[1], &c, 1), 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) ::close(fd);

  ASSERT_OK(fs_->LockFile(path, &lock));  // free again once the child let go
  ASSERT_OK(fs_->UnlockFile(std::move(lock)));
}

TEST_F(PosixFileSystemTest, SmallAppendsStayBufferedUntilFlush) {
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append("abc"));
  EXPECT_EQ(SizeOnDisk(P("f")), 0u);  // still in the user-space buffer
  ASSERT_OK(w->Flush());
  EXPECT_EQ(SizeOnDisk(P("f")), 3u);
  ASSERT_OK(w->Close());
}

TEST_F(PosixFileSystemTest, LargeAppendsBypassTheBuffer) {
  std::mt19937_64 rng(6);
  std::string model;
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append("head"));
  model = "head";
  std::string big = RandomBytes(&rng, 200 * 1024);
  ASSERT_OK(w->Append(big));
  model += big;
  // The buffered head and the big append reached the kernel without a Flush.
  EXPECT_EQ(SizeOnDisk(P("f")), model.size());

  // Random mixes of small and large appends, with and without flushes.
  for (int i = 0; i < 60; ++i) {
    size_t n = rng() % 4 == 0 ? 64 * 1024 + rng() % (100 * 1024) : rng() % 5000;
    std::string piece = RandomBytes(&rng, n);
    ASSERT_OK(w->Append(piece));
    model += piece;
    EXPECT_EQ(w->GetFileSize(), model.size());
    uint64_t on_disk = SizeOnDisk(P("f"));
    EXPECT_LE(on_disk, model.size());
    EXPECT_GE(on_disk + 64 * 1024, model.size());  // never more than the buffer behind
    if (rng() % 5 == 0) {
      ASSERT_OK(w->Flush());
      EXPECT_EQ(SizeOnDisk(P("f")), model.size());
    }
  }
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  EXPECT_EQ(Contents(fs_.get(), P("f")), model);
}

// The descriptors of this process that point into dir, with their FD_CLOEXEC flag.
std::vector<std::pair<std::string, bool>> DescriptorsInto(const std::string& dir) {
  std::vector<std::pair<std::string, bool>> found;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return found;
  while (struct dirent* e = ::readdir(d)) {
    int fd = std::atoi(e->d_name);
    if (e->d_name[0] == '.' || fd == ::dirfd(d)) continue;
    char target[4096];
    std::string link = std::string("/proc/self/fd/") + e->d_name;
    ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    std::string path(target, static_cast<size_t>(n));
    if (path.rfind(dir, 0) != 0) continue;
    found.emplace_back(path, (::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  }
  ::closedir(d);
  return found;
}

TEST_F(PosixFileSystemTest, EveryDescriptorIsCloseOnExec) {
  ASSERT_OK(WriteStringToFile(fs_.get(), "x", P("r"), false));
  std::unique_ptr<SequentialFile> seq;
  std::unique_ptr<RandomAccessFile> ra;
  std::unique_ptr<WritableFile> w, a;
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(fs_->NewSequentialFile(P("r"), &seq));
  ASSERT_OK(fs_->NewRandomAccessFile(P("r"), &ra));
  ASSERT_OK(fs_->NewWritableFile(P("w"), &w));
  ASSERT_OK(fs_->NewAppendableFile(P("a"), &a));
  ASSERT_OK(fs_->LockFile(P("LOCK"), &lock));
  auto fds = DescriptorsInto(dir_.path());
  EXPECT_EQ(fds.size(), 5u);
  for (const auto& [path, cloexec] : fds) EXPECT_TRUE(cloexec) << path;
  ASSERT_OK(fs_->UnlockFile(std::move(lock)));
}

TEST_F(PosixFileSystemTest, ErrorsNameThePathTheCallAndTheCause) {
  std::unique_ptr<SequentialFile> seq;
  Status s = fs_->NewSequentialFile(P("missing"), &seq);
  EXPECT_TRUE(s.IsPathNotFound());
  EXPECT_EQ(s.message(), P("missing") + ": open: No such file or directory");
  s = fs_->DeleteDir(P("missing"));
  EXPECT_EQ(s.message(), P("missing") + ": rmdir: No such file or directory");
}

TEST(PosixErrorsTest, MapsErrnoToCodes) {
  Status s = PosixError("/db/x", "write", ENOSPC);
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_EQ(s.message(), "/db/x: write: No space left on device");
  EXPECT_TRUE(PosixError("/db/x", "write", EDQUOT).IsNoSpace());
  s = PosixError("/db/x", "open", ENOENT);
  EXPECT_TRUE(s.IsPathNotFound());
  EXPECT_TRUE(s.IsIOError());
  s = PosixError("/db/x", "open", EACCES);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_FALSE(s.IsNoSpace());
  EXPECT_FALSE(s.IsPathNotFound());
  EXPECT_EQ(s.message(), "/db/x: open: Permission denied");
}

}  // namespace
}  // namespace shale
