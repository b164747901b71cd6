// ForwardingFileSystem and ForwardingWritableFile (tests only): a FileSystem (and a
// WritableFile) that passes every call unchanged to a wrapped one. They exist so that a test's
// hooking file system -- one that counts, holds, fails or damages one or two kinds of call --
// overrides only the calls it hooks instead of writing out every method of the interface:
//
//   class CountingFileSystem final : public test::ForwardingFileSystem {
//    public:
//     using ForwardingFileSystem::ForwardingFileSystem;
//     const char* Name() const override { return "counting"; }
//     Status DeleteFile(const std::string& path) override {
//       deletes_++;
//       return base()->DeleteFile(path);
//     }
//     std::atomic<int> deletes_{0};
//   };
//
// Every method is virtual (as in FileSystem / WritableFile); an override calls base() for the
// wrapped object. Name() returns "forwarding" unless overridden.
//
// Thread-safety: the forwarding adds no state of its own beyond the wrapped object, which is
// set at construction and never changes, so a ForwardingFileSystem is exactly as thread-safe as
// the FileSystem it wraps (FileSystem's contract: safe from many threads), and a
// ForwardingWritableFile is used by one thread at a time like any WritableFile. A subclass that
// adds state must guard it itself.
#ifndef SHALE_TEST_TESTUTIL_FORWARDING_FILE_SYSTEM_H_
#define SHALE_TEST_TESTUTIL_FORWARDING_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shale/file_system.h"
#include "shale/status.h"

namespace shale::test {

// Passes every FileSystem call to `base` (never null; shared, so it outlives this object).
class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(std::shared_ptr<FileSystem> base) : base_(std::move(base)) {}

  const char* Name() const override { return "forwarding"; }
  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override {
    return base_->NewSequentialFile(path, result);
  }
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    return base_->NewRandomAccessFile(path, result);
  }
  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    return base_->NewWritableFile(path, result);
  }
  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override {
    return base_->NewAppendableFile(path, result);
  }
  Status FileExists(const std::string& path) override { return base_->FileExists(path); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return base_->GetChildren(dir, names);
  }
  Status DeleteFile(const std::string& path) override { return base_->DeleteFile(path); }
  Status CreateDir(const std::string& dir) override { return base_->CreateDir(dir); }
  Status CreateDirIfMissing(const std::string& dir) override {
    return base_->CreateDirIfMissing(dir);
  }
  Status DeleteDir(const std::string& dir) override { return base_->DeleteDir(dir); }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    return base_->GetFileSize(path, size);
  }
  Status RenameFile(const std::string& src, const std::string& target) override {
    return base_->RenameFile(src, target);
  }
  Status LinkFile(const std::string& src, const std::string& target) override {
    return base_->LinkFile(src, target);
  }
  Status SyncDir(const std::string& dir) override { return base_->SyncDir(dir); }
  Status LockFile(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    return base_->LockFile(path, lock);
  }
  Status UnlockFile(std::unique_ptr<FileLock> lock) override {
    return base_->UnlockFile(std::move(lock));
  }

 protected:
  // The wrapped file system.
  FileSystem* base() const { return base_.get(); }

 private:
  const std::shared_ptr<FileSystem> base_;
};

// Passes every WritableFile call to `base` (never null), which it owns.
class ForwardingWritableFile : public WritableFile {
 public:
  explicit ForwardingWritableFile(std::unique_ptr<WritableFile> base) : base_(std::move(base)) {}

  Status Append(std::string_view data) override { return base_->Append(data); }
  Status Flush() override { return base_->Flush(); }
  Status Sync() override { return base_->Sync(); }
  Status Close() override { return base_->Close(); }
  uint64_t GetFileSize() const override { return base_->GetFileSize(); }

 protected:
  // The wrapped file.
  WritableFile* base() const { return base_.get(); }

 private:
  const std::unique_ptr<WritableFile> base_;
};

}  // namespace shale::test

#endif  // SHALE_TEST_TESTUTIL_FORWARDING_FILE_SYSTEM_H_
