// FileSystem: everything the engine does to files goes through this interface, so a DB can run
// on the POSIX file system, in memory, or (in tests) on a fault-injecting layer that drops
// unsynced data and fails chosen operations.
//
// Paths are plain strings ("/dir/000012.sst"). Every error Status names the path and what
// failed; a missing file is IOError with subcode PathNotFound (Status::IsPathNotFound()), a full
// disk IOError with subcode NoSpace (Status::IsNoSpace()).
//
// Thread-safety: a FileSystem is safe to use from many threads. A file object is used by one
// thread at a time, except RandomAccessFile, whose Read may be called concurrently.
#ifndef SHALE_FILE_SYSTEM_H_
#define SHALE_FILE_SYSTEM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/export.h"
#include "shale/status.h"

namespace shale {

// A file read from start to end (WAL and MANIFEST recovery).
class SHALE_EXPORT SequentialFile {
 public:
  virtual ~SequentialFile();
  // Reads up to n bytes. *result points into scratch (or into the file's own memory) and is
  // valid until the next call; it is shorter than n only at the end of the file.
  // REQUIRES: scratch has room for n bytes.
  virtual Status Read(size_t n, std::string_view* result, char* scratch) = 0;
  // Skips n bytes; skipping past the end stops at the end.
  virtual Status Skip(uint64_t n) = 0;
};

// A file read at random offsets (tables). Read may be called from several threads at once.
class SHALE_EXPORT RandomAccessFile {
 public:
  virtual ~RandomAccessFile();
  // Reads up to n bytes at offset. *result points into scratch (or the file's own memory, valid
  // while the file is open); it is shorter than n only when the read passes the end of the file.
  // REQUIRES: scratch has room for n bytes.
  virtual Status Read(uint64_t offset, size_t n, std::string_view* result,
                      char* scratch) const = 0;
  // A hint that [offset, offset + n) will be read soon. Default: nothing.
  virtual Status Prefetch(uint64_t offset, size_t n) { return Status::OK(); }
  // The file's size in bytes.
  virtual Status GetSize(uint64_t* size) const = 0;
};

// A file written by appending (WAL, MANIFEST, tables). Data reaches the operating system on
// Flush (or when an internal buffer fills) and stable storage on Sync.
class SHALE_EXPORT WritableFile {
 public:
  virtual ~WritableFile();
  virtual Status Append(std::string_view data) = 0;
  // Hands buffered data to the operating system (it survives a process crash, not power loss).
  virtual Status Flush() = 0;
  // Flushes and makes the data durable (fdatasync).
  virtual Status Sync() = 0;
  // Flushes and closes. Further calls other than the destructor are errors. A file destroyed
  // without Close is closed (errors are lost).
  virtual Status Close() = 0;
  // Bytes appended so far.
  virtual uint64_t GetFileSize() const = 0;
};

// A held lock on a file (the DB's LOCK file). Released by FileSystem::UnlockFile.
class SHALE_EXPORT FileLock {
 public:
  virtual ~FileLock();
};

class SHALE_EXPORT FileSystem {
 public:
  virtual ~FileSystem();

  // The process-wide POSIX file system. Never null; lives until the process ends.
  static std::shared_ptr<FileSystem> Default();

  // A short name for logs: "posix", "mem", "fault_injection(posix)".
  virtual const char* Name() const = 0;

  virtual Status NewSequentialFile(const std::string& path,
                                   std::unique_ptr<SequentialFile>* result) = 0;
  virtual Status NewRandomAccessFile(const std::string& path,
                                     std::unique_ptr<RandomAccessFile>* result) = 0;
  // Creates the file, or truncates an existing one.
  virtual Status NewWritableFile(const std::string& path,
                                 std::unique_ptr<WritableFile>* result) = 0;
  // Creates (or truncates) a write-ahead log: a file written in small appends, each of which
  // must survive a process crash once Flush returns, and made durable by Sync. Its size on disk
  // may run ahead of GetFileSize() with zero-filled space until Close (a crash leaves the
  // zeros; the DB's log reader takes them for the end of the log). Default: NewWritableFile.
  // The POSIX file system maps the file (on ext4, xfs and tmpfs), so that an append is a copy
  // into the page cache, not a system call.
  virtual Status NewWalFile(const std::string& path, std::unique_ptr<WritableFile>* result);
  // Opens for appending; creates the file if it does not exist.
  virtual Status NewAppendableFile(const std::string& path,
                                   std::unique_ptr<WritableFile>* result) = 0;

  // OK if the path exists, NotFound if it does not, IOError for anything else.
  virtual Status FileExists(const std::string& path) = 0;
  // The names (not paths) of the entries of a directory, without "." and "..".
  virtual Status GetChildren(const std::string& dir, std::vector<std::string>* names) = 0;
  virtual Status DeleteFile(const std::string& path) = 0;
  // Creates a directory; IOError if it exists already.
  virtual Status CreateDir(const std::string& dir) = 0;
  // Creates a directory unless it exists already (as a directory).
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  // Removes an empty directory.
  virtual Status DeleteDir(const std::string& dir) = 0;
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
  // Replaces target atomically if it exists.
  virtual Status RenameFile(const std::string& src, const std::string& target) = 0;
  // Makes a hard link; NotSupported where the file system has none.
  virtual Status LinkFile(const std::string& src, const std::string& target) = 0;
  // Makes the directory's entries (files created, renamed or deleted in it) durable.
  virtual Status SyncDir(const std::string& dir) = 0;

  // Takes an exclusive lock on the file (creating it if needed), held against this and other
  // processes (and against a second lock of the same path from this process). If it is held
  // already, returns Status::Busy naming the path.
  virtual Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) = 0;
  virtual Status UnlockFile(std::unique_ptr<FileLock> lock) = 0;
};

// A file system that keeps every file in memory (tests, and DBs that need no persistence).
// Files survive as long as the returned object. Hard links share contents.
SHALE_EXPORT std::shared_ptr<FileSystem> NewMemFileSystem();

// Convenience helpers over any FileSystem.
SHALE_EXPORT Status WriteStringToFile(FileSystem* fs, std::string_view data,
                                      const std::string& path, bool sync);
SHALE_EXPORT Status ReadFileToString(FileSystem* fs, const std::string& path, std::string* data);

}  // namespace shale

#endif  // SHALE_FILE_SYSTEM_H_
