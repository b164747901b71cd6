// NewMemFileSystem(): a file system kept entirely in memory, with POSIX's rules where the engine
// can observe them, so a test that passes here passes on disk:
// - Paths are normalised (duplicate '/' collapsed, trailing '/' stripped) and otherwise taken as
//   text: no "." or "..", no symbolic links. "/" and "" (the current directory) always exist.
// - Directories are tracked explicitly: a file or directory can only be made inside an existing
//   directory (PathNotFound otherwise), GetChildren lists direct children, DeleteDir refuses a
//   directory that is not empty. Directories cannot be renamed or linked (NotSupported).
// - Files are refcounted contents (MemFile): names made by LinkFile share them, NewWritableFile
//   truncates them in place (as O_TRUNC does), and a deleted file stays readable through the
//   handles open on it.
// - LockFile makes the file if missing and is exclusive per normalised path.
// Errors carry the same codes and messages as the POSIX file system's (fs/posix_errors.h).
//
// Thread-safety: every operation holds mu_; file contents have their own lock (mem_files.h).
#include <cerrno>
#include <map>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "util/mutex.h"
#include "fs/mem_files.h"
#include "fs/locked_path_set.h"
#include "fs/path_util.h"
#include "fs/posix_errors.h"
#include "shale/file_system.h"

namespace shale {

namespace {


// Released by UnlockFile or, failing that, when destroyed.
class MemFileLock final : public FileLock {
 public:
  MemFileLock(std::shared_ptr<LockedPathSet> table, std::string path)
      : table_(std::move(table)), path_(std::move(path)) {}
  ~MemFileLock() override { table_->Erase(path_); }
  MemFileLock(const MemFileLock&) = delete;
  MemFileLock& operator=(const MemFileLock&) = delete;

  const LockedPathSet* table() const { return table_.get(); }

 private:
  const std::shared_ptr<LockedPathSet> table_;
  const std::string path_;
};

class MemFileSystem final : public FileSystem {
 public:
  MemFileSystem() : locks_(std::make_shared<LockedPathSet>()) {
    dirs_.insert("/");
    dirs_.insert("");
  }

  const char* Name() const override { return "mem"; }

  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override {
    std::shared_ptr<MemFile> file;
    Status s = OpenForRead(path, &file);
    if (s.ok()) *result = std::make_unique<MemSequentialFile>(std::move(file));
    return s;
  }
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    std::shared_ptr<MemFile> file;
    Status s = OpenForRead(path, &file);
    if (s.ok()) *result = std::make_unique<MemRandomAccessFile>(std::move(file));
    return s;
  }
  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    return OpenForWrite(path, /*truncate=*/true, result);
  }
  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override {
    return OpenForWrite(path, /*truncate=*/false, result);
  }

  Status FileExists(const std::string& path) override;
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override;
  Status DeleteFile(const std::string& path) override;
  Status CreateDir(const std::string& dir) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override;
  Status RenameFile(const std::string& src, const std::string& target) override;
  Status LinkFile(const std::string& src, const std::string& target) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override;

 private:
  Status OpenForRead(const std::string& path, std::shared_ptr<MemFile>* file);
  Status OpenForWrite(const std::string& path, bool truncate,
                      std::unique_ptr<WritableFile>* result);

  // The file at normalised path p, or null.
  std::shared_ptr<MemFile> FindLocked(const std::string& p) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  bool IsDirLocked(const std::string& p) const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return dirs_.count(p) != 0;
  }
  // OK if the directory that would hold normalised path p exists; `path` and `what` make the
  // error message.
  Status CheckParentLocked(const std::string& p, const std::string& path,
                           std::string_view what) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Why normalised path p is not an existing directory (ENOTDIR or ENOENT).
  Status NotADirLocked(const std::string& p, const std::string& path,
                       std::string_view what) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The names of the direct children (files and directories) of directory p.
  std::vector<std::string> ChildrenLocked(const std::string& p) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Makes an empty file at normalised path p. REQUIRES: p is neither a file nor a directory.
  std::shared_ptr<MemFile> CreateLocked(const std::string& p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<LockedPathSet> locks_;

  mutable Mutex mu_;
  // Invariant: no path is both in files_ and in dirs_, and the parent of every key of either
  // is in dirs_ ("/" and "" are their own parents' stand-ins and always present).
  std::map<std::string, std::shared_ptr<MemFile>> files_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<MemFile> MemFileSystem::FindLocked(const std::string& p) const {
  auto it = files_.find(p);
  return it == files_.end() ? nullptr : it->second;
}

Status MemFileSystem::CheckParentLocked(const std::string& p, const std::string& path,
                                        std::string_view what) const {
  std::string parent = ParentDir(p);
  if (IsDirLocked(parent)) return Status::OK();
  return PosixError(path, what, files_.count(parent) != 0 ? ENOTDIR : ENOENT);
}

Status MemFileSystem::NotADirLocked(const std::string& p, const std::string& path,
                                    std::string_view what) const {
  return PosixError(path, what, files_.count(p) != 0 ? ENOTDIR : ENOENT);
}

std::vector<std::string> MemFileSystem::ChildrenLocked(const std::string& p) const {
  std::vector<std::string> names;
  auto collect = [&](const std::string& key) {
    if (key != p && ParentDir(key) == p) names.emplace_back(BaseName(key));
  };
  // Children of "/a" sort among the keys starting with "/a/"; those of "" (relative names
  // without a '/') can be anywhere.
  std::string prefix = p.empty() ? "" : (p == "/" ? p : p + "/");
  for (auto it = files_.lower_bound(prefix); it != files_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    collect(it->first);
  }
  for (auto it = dirs_.lower_bound(prefix); it != dirs_.end(); ++it) {
    if (it->compare(0, prefix.size(), prefix) != 0) break;
    collect(*it);
  }
  return names;
}

std::shared_ptr<MemFile> MemFileSystem::CreateLocked(const std::string& p) {
  auto file = std::make_shared<MemFile>();
  files_[p] = file;
  return file;
}

Status MemFileSystem::OpenForRead(const std::string& path, std::shared_ptr<MemFile>* file) {
  std::string p = NormalizePath(path);
  ReaderMutexLock l(&mu_);
  *file = FindLocked(p);
  if (*file != nullptr) return Status::OK();
  return PosixError(path, "open", IsDirLocked(p) ? EISDIR : ENOENT);
}

Status MemFileSystem::OpenForWrite(const std::string& path, bool truncate,
                                   std::unique_ptr<WritableFile>* result) {
  std::string p = NormalizePath(path);
  MutexLock l(&mu_);
  if (IsDirLocked(p)) return PosixError(path, "open", EISDIR);
  std::shared_ptr<MemFile> file = FindLocked(p);
  if (file == nullptr) {
    Status s = CheckParentLocked(p, path, "open");
    if (!s.ok()) return s;
    file = CreateLocked(p);
  } else if (truncate) {
    file->Truncate();  // in place: every link sees it, as with O_TRUNC
  }
  *result = std::make_unique<MemWritableFile>(path, std::move(file));
  return Status::OK();
}

Status MemFileSystem::FileExists(const std::string& path) {
  std::string p = NormalizePath(path);
  ReaderMutexLock l(&mu_);
  if (files_.count(p) != 0 || IsDirLocked(p)) return Status::OK();
  return Status::NotFound(path, "does not exist");
}

Status MemFileSystem::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  std::string p = NormalizePath(dir);
  ReaderMutexLock l(&mu_);
  names->clear();
  if (!IsDirLocked(p)) return NotADirLocked(p, dir, "opendir");
  *names = ChildrenLocked(p);
  return Status::OK();
}

Status MemFileSystem::DeleteFile(const std::string& path) {
  std::string p = NormalizePath(path);
  MutexLock l(&mu_);
  if (files_.erase(p) != 0) return Status::OK();
  return PosixError(path, "unlink", IsDirLocked(p) ? EISDIR : ENOENT);
}

Status MemFileSystem::CreateDir(const std::string& dir) {
  std::string p = NormalizePath(dir);
  MutexLock l(&mu_);
  if (IsDirLocked(p) || files_.count(p) != 0) return PosixError(dir, "mkdir", EEXIST);
  Status s = CheckParentLocked(p, dir, "mkdir");
  if (s.ok()) dirs_.insert(p);
  return s;
}

Status MemFileSystem::CreateDirIfMissing(const std::string& dir) {
  std::string p = NormalizePath(dir);
  MutexLock l(&mu_);
  if (IsDirLocked(p)) return Status::OK();
  if (files_.count(p) != 0) return Status::IOError(dir, "exists but is not a directory");
  Status s = CheckParentLocked(p, dir, "mkdir");
  if (s.ok()) dirs_.insert(p);
  return s;
}

Status MemFileSystem::DeleteDir(const std::string& dir) {
  std::string p = NormalizePath(dir);
  MutexLock l(&mu_);
  if (!IsDirLocked(p)) return NotADirLocked(p, dir, "rmdir");
  if (p == "/" || p.empty()) return PosixError(dir, "rmdir", EBUSY);
  if (!ChildrenLocked(p).empty()) return PosixError(dir, "rmdir", ENOTEMPTY);
  dirs_.erase(p);
  return Status::OK();
}

Status MemFileSystem::GetFileSize(const std::string& path, uint64_t* size) {
  std::string p = NormalizePath(path);
  ReaderMutexLock l(&mu_);
  std::shared_ptr<MemFile> file = FindLocked(p);
  if (file != nullptr) {
    *size = file->Size();
    return Status::OK();
  }
  if (IsDirLocked(p)) {
    *size = 0;
    return Status::OK();
  }
  return PosixError(path, "stat", ENOENT);
}

Status MemFileSystem::RenameFile(const std::string& src, const std::string& target) {
  std::string from = NormalizePath(src);
  std::string to = NormalizePath(target);
  std::string what = absl::StrCat("rename to ", target);
  MutexLock l(&mu_);
  std::shared_ptr<MemFile> file = FindLocked(from);
  if (file == nullptr) {
    if (IsDirLocked(from)) return Status::NotSupported(src, "mem: cannot rename a directory");
    return PosixError(src, what, ENOENT);
  }
  if (IsDirLocked(to)) return PosixError(src, what, EISDIR);
  Status s = CheckParentLocked(to, src, what);
  if (!s.ok() || from == to) return s;
  files_[to] = std::move(file);  // replaces an existing target atomically
  files_.erase(from);
  return Status::OK();
}

Status MemFileSystem::LinkFile(const std::string& src, const std::string& target) {
  std::string from = NormalizePath(src);
  std::string to = NormalizePath(target);
  std::string what = absl::StrCat("link to ", target);
  MutexLock l(&mu_);
  std::shared_ptr<MemFile> file = FindLocked(from);
  if (file == nullptr) {
    if (IsDirLocked(from)) return Status::NotSupported(src, "mem: cannot link a directory");
    return PosixError(src, what, ENOENT);
  }
  if (files_.count(to) != 0 || IsDirLocked(to)) return PosixError(src, what, EEXIST);
  Status s = CheckParentLocked(to, src, what);
  if (s.ok()) files_[to] = std::move(file);
  return s;
}

Status MemFileSystem::SyncDir(const std::string& dir) {
  std::string p = NormalizePath(dir);
  ReaderMutexLock l(&mu_);
  if (!IsDirLocked(p)) return NotADirLocked(p, dir, "open");
  return Status::OK();
}

Status MemFileSystem::LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) {
  std::string p = NormalizePath(path);
  {
    MutexLock l(&mu_);
    if (IsDirLocked(p)) return PosixError(path, "open", EISDIR);
    if (files_.count(p) == 0) {
      Status s = CheckParentLocked(p, path, "open");
      if (!s.ok()) return s;
      CreateLocked(p);
    }
  }
  if (!locks_->Insert(p)) {
    return Status::Busy(absl::StrCat(path, ": lock held by another process or DB instance"));
  }
  *lock = std::make_unique<MemFileLock>(locks_, std::move(p));
  return Status::OK();
}

Status MemFileSystem::UnlockFile(std::unique_ptr<FileLock> lock) {
  auto* mem_lock = dynamic_cast<MemFileLock*>(lock.get());
  if (mem_lock == nullptr || mem_lock->table() != locks_.get()) {
    // The lock is still released as it is destroyed, by whichever table it belongs to.
    return Status::InvalidArgument("UnlockFile: not a lock of this mem file system");
  }
  lock.reset();  // leaves the lock table
  return Status::OK();
}

}  // namespace

std::shared_ptr<FileSystem> NewMemFileSystem() { return std::make_shared<MemFileSystem>(); }

}  // namespace shale
