// FileSystem::Default(): the POSIX file system. Every descriptor is opened with O_CLOEXEC, so
// none leaks into a child process.
//
// Locks: LockFile takes an fcntl(F_SETLK) write lock, which excludes other processes. fcntl locks
// never conflict within one process (and any close of a descriptor of the file drops them), so
// the paths this process holds are also kept in a process-wide set, keyed by the normalised path
// text: a second LockFile of the same spelling from this process is refused before the file is
// even opened. Two spellings of one file ("/db/LOCK", "/db/./LOCK") are not recognised as the
// same by the set.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "fs/locked_path_set.h"
#include "fs/path_util.h"
#include "fs/posix_errors.h"
#include "fs/posix_files.h"
#include "fs/posix_mapped_wal_file.h"
#include "shale/file_system.h"

namespace shale {

namespace {

LockedPathSet& ProcessLockedPaths() {
  // Never destroyed, so a lock released during static destruction still finds it.
  static LockedPathSet* const paths = new LockedPathSet;
  return *paths;
}

// Holds the fcntl lock through its descriptor and the entry in ProcessLockedPaths(); a lock
// destroyed without UnlockFile still releases both.
class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(std::string key, std::string path, int fd)
      : key_(std::move(key)), path_(std::move(path)), fd_(fd) {}
  ~PosixFileLock() override {
    ::close(fd_);  // drops the fcntl lock if UnlockFile did not
    ProcessLockedPaths().Erase(key_);
  }
  PosixFileLock(const PosixFileLock&) = delete;
  PosixFileLock& operator=(const PosixFileLock&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  const std::string key_;   // the entry in ProcessLockedPaths()
  const std::string path_;  // as the caller spelled it, for messages
  const int fd_;            // holds the fcntl lock
};

Status BusyLock(const std::string& path, std::string_view detail = {}) {
  return Status::Busy(absl::StrCat(path, ": lock held by another process or DB instance"),
                      detail);
}

// open(2) with O_CLOEXEC, retrying on EINTR.
Status OpenFd(const std::string& path, int flags, int* fd) {
  do {
    *fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  } while (*fd < 0 && errno == EINTR);
  if (*fd < 0) return PosixError(path, "open", errno);
  return Status::OK();
}

// Sets (F_WRLCK) or releases (F_UNLCK) an fcntl lock over the whole file.
int SetFcntlLock(int fd, short type) {
  struct flock f = {};
  f.l_type = type;
  f.l_whence = SEEK_SET;
  f.l_start = 0;
  f.l_len = 0;  // to the end of the file, however long
  return ::fcntl(fd, F_SETLK, &f);
}

class PosixFileSystem final : public FileSystem {
 public:
  const char* Name() const override { return "posix"; }

  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override {
    int fd;
    Status s = OpenFd(path, O_RDONLY, &fd);
    if (s.ok()) *result = std::make_unique<PosixSequentialFile>(path, fd);
    return s;
  }

  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    int fd;
    Status s = OpenFd(path, O_RDONLY, &fd);
    if (s.ok()) *result = std::make_unique<PosixRandomAccessFile>(path, fd);
    return s;
  }

  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    int fd;
    Status s = OpenFd(path, O_WRONLY | O_CREAT | O_TRUNC, &fd);
    if (s.ok()) *result = std::make_unique<PosixWritableFile>(path, fd, 0);
    return s;
  }

  Status NewWalFile(const std::string& path, std::unique_ptr<WritableFile>* result) override {
    int fd;
    Status s = OpenFd(path, O_RDWR | O_CREAT | O_TRUNC, &fd);  // mmap needs read access
    if (!s.ok()) return s;
    if (UseMappedWal(fd)) {
      *result = std::make_unique<PosixMappedWalFile>(path, fd);
    } else {
      *result = std::make_unique<PosixWritableFile>(path, fd, 0);
    }
    return Status::OK();
  }

  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override {
    int fd;
    Status s = OpenFd(path, O_WRONLY | O_CREAT | O_APPEND, &fd);
    if (!s.ok()) return s;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      s = PosixError(path, "fstat", errno);
      ::close(fd);
      return s;
    }
    *result = std::make_unique<PosixWritableFile>(path, fd, static_cast<uint64_t>(st.st_size));
    return Status::OK();
  }

  Status FileExists(const std::string& path) override {
    if (::access(path.c_str(), F_OK) == 0) return Status::OK();
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Status::NotFound(path, "does not exist");
    return PosixError(path, "access", err);
  }

  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override;

  Status DeleteFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError(path, "unlink", errno);
    return Status::OK();
  }

  Status CreateDir(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) != 0) return PosixError(dir, "mkdir", errno);
    return Status::OK();
  }

  Status CreateDirIfMissing(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return Status::OK();
    int err = errno;
    if (err != EEXIST) return PosixError(dir, "mkdir", err);
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return PosixError(dir, "stat", errno);
    if (!S_ISDIR(st.st_mode)) return Status::IOError(dir, "exists but is not a directory");
    return Status::OK();
  }

  Status DeleteDir(const std::string& dir) override {
    if (::rmdir(dir.c_str()) != 0) return PosixError(dir, "rmdir", errno);
    return Status::OK();
  }

  Status GetFileSize(const std::string& path, uint64_t* size) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError(path, "stat", errno);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }

  Status RenameFile(const std::string& src, const std::string& target) override {
    if (::rename(src.c_str(), target.c_str()) != 0) {
      return PosixError(src, absl::StrCat("rename to ", target), errno);
    }
    return Status::OK();
  }

  Status LinkFile(const std::string& src, const std::string& target) override {
    if (::link(src.c_str(), target.c_str()) != 0) {
      return PosixError(src, absl::StrCat("link to ", target), errno);
    }
    return Status::OK();
  }

  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;
};

Status PosixFileSystem::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  names->clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return PosixError(dir, "opendir", errno);
  while (true) {
    errno = 0;
    struct dirent* entry = ::readdir(d);
    if (entry == nullptr) break;
    std::string_view name(entry->d_name);
    if (name == "." || name == "..") continue;
    names->emplace_back(name);
  }
  Status s = errno != 0 ? PosixError(dir, "readdir", errno) : Status::OK();
  ::closedir(d);
  return s;
}

Status PosixFileSystem::SyncDir(const std::string& dir) {
  int fd;
  Status s = OpenFd(dir, O_RDONLY | O_DIRECTORY, &fd);
  if (!s.ok()) return s;
  if (::fsync(fd) != 0) s = PosixError(dir, "fsync", errno);
  ::close(fd);
  return s;
}

Status PosixFileSystem::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  // The set is checked before the file is opened: opening and closing the file here while this
  // process holds its fcntl lock would silently drop that lock.
  std::string key = NormalizePath(path);
  if (!ProcessLockedPaths().Insert(key)) return BusyLock(path, "already locked by this process");
  int fd;
  Status s = OpenFd(path, O_RDWR | O_CREAT, &fd);
  if (!s.ok()) {
    ProcessLockedPaths().Erase(key);
    return s;
  }
  if (SetFcntlLock(fd, F_WRLCK) != 0) {
    int err = errno;
    s = (err == EACCES || err == EAGAIN) ? BusyLock(path, ErrnoText(err))
                                         : PosixError(path, "fcntl(F_SETLK)", err);
    ::close(fd);
    ProcessLockedPaths().Erase(key);
    return s;
  }
  *lock = std::make_unique<PosixFileLock>(std::move(key), path, fd);
  return Status::OK();
}

Status PosixFileSystem::UnlockFile(std::unique_ptr<FileLock> lock) {
  auto* posix_lock = dynamic_cast<PosixFileLock*>(lock.get());
  if (posix_lock == nullptr) return Status::InvalidArgument("UnlockFile: not a posix lock");
  Status s;
  if (SetFcntlLock(posix_lock->fd(), F_UNLCK) != 0) {
    s = PosixError(posix_lock->path(), "fcntl(F_UNLCK)", errno);
  }
  lock.reset();  // closes the descriptor and leaves the process-wide set
  return s;
}

}  // namespace

std::shared_ptr<FileSystem> FileSystem::Default() {
  // Never destroyed: files and locks may be released during static destruction.
  static const std::shared_ptr<FileSystem>* const fs =
      new std::shared_ptr<FileSystem>(std::make_shared<PosixFileSystem>());
  return *fs;
}

}  // namespace shale
