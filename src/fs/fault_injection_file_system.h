// FaultInjectionFileSystem: a FileSystem that wraps another one (POSIX or in-memory) to test
// what the engine does when storage misbehaves. Internal: for tests and the crash/stress tools.
//
// It passes every call through to the wrapped file system and adds:
//
// 1. A power-loss model. It remembers, for each file written through it, the size last made
//    durable by WritableFile::Sync, and each directory entry made since its directory's last
//    SyncDir. DropUnsyncedData() then makes the wrapped file system look as if the machine had
//    lost power:
//    - every file written through this layer is cut back to its last synced size (a file never
//      synced becomes empty); bytes written straight to the wrapped file system are not seen;
//    - entries not yet made durable by a SyncDir of their directory are undone, newest first:
//      a file created by NewWritableFile/NewAppendableFile (when it did not exist) is deleted,
//      a name made by LinkFile is removed, and a rename is reverted (the file goes back to its
//      old name and, if the rename replaced a file, that file's durable contents - its synced
//      prefix, or all of it if it was not written through this layer - come back). A rename is
//      durable once the directory of its *target* is synced.
//    - with SetModelDirCreation(true), a directory made by CreateDir/CreateDirIfMissing whose
//      entry was not made durable by a SyncDir of its parent is removed, with all it holds.
//    Not modelled: deletions (DeleteFile and DeleteDir are durable at once: a deleted file never
//    comes back), directory creation unless SetModelDirCreation(true) (durable at once by
//    default, so that tests that never sync a directory's parent keep it), the LOCK file made
//    by LockFile (durable at once), torn or reordered writes inside the unsynced tail (it is dropped whole), and
//    metadata of files written outside this layer. Paths are compared after NormalizePath(), as
//    text. Contents are cut by rewriting the synced prefix, so hard links keep sharing them.
// 2. Failures. SetFilesystemActive(false) makes every mutating call (OpKind other than kRead)
//    fail with a chosen error while reads keep working; InjectError fails the Nth call of a kind
//    once; SetRandomErrors fails calls of a kind at random, reproducibly from a seed. A failed
//    call does nothing to the wrapped file system. An injected error keeps the given code and
//    subcode (so IsNoSpace() holds for a NoSpace) and its message names the path and the call.
// 3. Counting. Calls per kind; open file objects (made by New*File, until destroyed or, for a
//    WritableFile, closed) with their peak; SetMaxOpenFiles(n) makes New*File fail like EMFILE
//    (IOError "Too many open files") while n file objects are open.
//
// Which calls are of which kind:
//   kRead    SequentialFile::Read, RandomAccessFile::Read (opening a file for reading, Skip,
//            Prefetch and the metadata reads FileExists/GetChildren/GetFileSize are never failed)
//   kWrite   WritableFile::Append and Flush
//   kSync    WritableFile::Sync
//   kCreate  NewWritableFile, NewAppendableFile, CreateDir, CreateDirIfMissing
//   kRename  RenameFile          kLink    LinkFile
//   kDelete  DeleteFile, DeleteDir
//   kSyncDir SyncDir             kLock    LockFile (UnlockFile always goes through)
// WritableFile::Close is no kind: it always closes the wrapped file, and returns the inactive
// error when the file system is inactive.
//
// Thread-safety: thread-safe; one mutex guards all the bookkeeping and is held across the wrapped
// file system's metadata calls (never across file reads and writes). The file objects it returns
// point back to it: it must outlive them. DropUnsyncedData requires that no file written through
// it is still open for writing (close or destroy them first, as a crashed process would).
#ifndef SHALE_FS_FAULT_INJECTION_FILE_SYSTEM_H_
#define SHALE_FS_FAULT_INJECTION_FILE_SYSTEM_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "util/mutex.h"
#include "shale/file_system.h"

namespace shale {

// Statuses to inject: an EIO-like IOError and an ENOSPC-like NoSpace.
Status FaultIOError(std::string_view what = "injected fault");
Status FaultNoSpaceError(std::string_view what = "injected fault");

class FaultInjectionFileSystem final : public FileSystem {
 public:
  enum class OpKind : int {
    kRead, kWrite, kSync, kCreate, kRename, kLink, kDelete, kSyncDir, kLock
  };
  static constexpr int kNumOpKinds = 9;
  static constexpr uint64_t kNoLimit = UINT64_MAX;
  static const char* OpKindName(OpKind kind);

  explicit FaultInjectionFileSystem(std::shared_ptr<FileSystem> base);
  ~FaultInjectionFileSystem() override;
  FaultInjectionFileSystem(const FaultInjectionFileSystem&) = delete;
  FaultInjectionFileSystem& operator=(const FaultInjectionFileSystem&) = delete;

  FileSystem* base() const { return base_.get(); }

  // ---- FileSystem ----
  const char* Name() const override { return name_.c_str(); }
  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override;
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override;
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* result) override;
  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override;
  Status FileExists(const std::string& path) override { return base_->FileExists(path); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return base_->GetChildren(dir, names);
  }
  Status DeleteFile(const std::string& path) override;
  Status CreateDir(const std::string& dir) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status DeleteDir(const std::string& dir) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    return base_->GetFileSize(path, size);
  }
  Status RenameFile(const std::string& src, const std::string& target) override;
  Status LinkFile(const std::string& src, const std::string& target) override;
  Status SyncDir(const std::string& dir) override;
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status UnlockFile(std::unique_ptr<FileLock> lock) override {
    return base_->UnlockFile(std::move(lock));
  }

  // ---- Power loss ----
  // Simulates power loss as described above. Returns the first error of the wrapped file system
  // (and goes on undoing the rest). Works whether or not the file system is active.
  Status DropUnsyncedData();
  // Whether directories created from now on are undone by DropUnsyncedData until their parent
  // is synced (see 1. above). Default: false.
  void SetModelDirCreation(bool model);

  // ---- Failures ----
  // While inactive, every call of a kind other than kRead fails with `error`.
  void SetFilesystemActive(bool active, Status error = FaultIOError("filesystem inactive"));
  bool IsFilesystemActive() const;
  // The nth call of `kind` from now (1 = the next one) fails with `error`, once. nth = 0 cancels.
  void InjectError(OpKind kind, uint64_t nth, Status error);
  // Each call of `kind` fails with probability 1/one_in, drawn from a generator seeded with
  // `seed` (the same seed and calls give the same failures). one_in = 0 turns it off.
  void SetRandomErrors(OpKind kind, uint32_t one_in, uint64_t seed, Status error);
  // Cancels every InjectError and SetRandomErrors (not SetFilesystemActive).
  void ClearInjectedErrors();

  // ---- Counting ----
  // Calls of `kind` since construction or ResetOpCounts, failed ones included.
  uint64_t OpCount(OpKind kind) const;
  void ResetOpCounts();
  uint64_t OpenFiles() const;
  uint64_t PeakOpenFiles() const;
  // New*File fails with IOError "Too many open files" while n file objects are open.
  // kNoLimit (the default) turns the limit off.
  void SetMaxOpenFiles(uint64_t n);

 private:
  friend class FaultSequentialFile;
  friend class FaultRandomAccessFile;
  friend class FaultWritableFile;

  // What this layer knows about a file's contents. Shared by every name linked to the file and
  // by the WritableFile writing it. Fields are guarded by the file system's mu_.
  struct FileState {
    uint64_t size = 0;    // bytes appended through this layer (plus any initial size)
    uint64_t synced = 0;  // the prefix made durable by Sync; invariant: synced <= size
  };
  // A directory entry made since the last SyncDir of `dir`.
  struct DirOp {
    enum class Type { kCreate, kLink, kRename, kCreateDir };
    Type type;
    std::string dir;   // the directory whose SyncDir makes it durable (the target's)
    std::string path;  // the entry made (normalised)
    std::string from;  // kRename: the old name
    bool replaced = false;      // kRename: the rename replaced an existing file...
    std::string replaced_data;  // ...whose durable contents these are
  };
  struct KindState {
    uint64_t count = 0;          // calls so far
    uint64_t countdown = 0;      // > 0: the call that brings it to 0 fails with nth_error
    Status nth_error;
    uint32_t one_in = 0;         // > 0: random failures with probability 1/one_in
    std::mt19937_64 rng;
    Status random_error;
  };

  // Counts a call of `kind` on path and returns the error it must fail with, if any.
  Status MaybeFailLocked(OpKind kind, std::string_view path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status MaybeFail(OpKind kind, std::string_view path) ABSL_LOCKS_EXCLUDED(mu_);
  // Counts a new open file object, or fails if the limit is reached.
  Status ReserveOpenFileLocked(const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseOpenFile() ABSL_LOCKS_EXCLUDED(mu_);
  // The error Close returns while inactive (OK while active).
  Status InactiveErrorOnClose(std::string_view path) ABSL_LOCKS_EXCLUDED(mu_);
  void RecordAppend(FileState* state, uint64_t n) ABSL_LOCKS_EXCLUDED(mu_);
  void RecordSync(FileState* state) ABSL_LOCKS_EXCLUDED(mu_);

  Status OpenForWrite(const std::string& path, bool truncate,
                      std::unique_ptr<WritableFile>* result) ABSL_LOCKS_EXCLUDED(mu_);
  // Starts or resumes tracking the file at normalised path p, opened for writing.
  std::shared_ptr<FileState> TrackLocked(const std::string& p, bool existed, bool truncate,
                                         uint64_t initial_size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status UndoLocked(const DirOp& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes directory p (normalised) and everything under it, forgetting their files.
  Status RemoveTreeLocked(const std::string& p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Creates a directory through `create`, recording its entry when SetModelDirCreation is on
  // and the directory did not exist.
  template <typename CreateFn>
  Status CreateDirLocked(const std::string& dir, CreateFn create)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status TruncateToSyncedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The contents of normalised path p that would survive power loss now.
  Status DurableContentsLocked(const std::string& p, std::string* data)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<FileSystem> base_;
  const std::string name_;

  mutable Mutex mu_;
  bool active_ ABSL_GUARDED_BY(mu_) = true;
  bool model_dir_creation_ ABSL_GUARDED_BY(mu_) = false;
  Status inactive_error_ ABSL_GUARDED_BY(mu_);
  std::array<KindState, kNumOpKinds> kinds_ ABSL_GUARDED_BY(mu_);
  // Files written through this layer, by normalised path.
  std::map<std::string, std::shared_ptr<FileState>> files_ ABSL_GUARDED_BY(mu_);
  // Directory entries not yet made durable, oldest first.
  std::vector<DirOp> pending_dir_ops_ ABSL_GUARDED_BY(mu_);
  uint64_t open_files_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t peak_open_files_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t max_open_files_ ABSL_GUARDED_BY(mu_) = kNoLimit;
};

}  // namespace shale

#endif  // SHALE_FS_FAULT_INJECTION_FILE_SYSTEM_H_
