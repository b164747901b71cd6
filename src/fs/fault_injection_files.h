// The file objects of FaultInjectionFileSystem: each wraps a file of the wrapped file system,
// asks the fault layer before each call whether it must fail, and reports appends, syncs and
// its own end (for the open-file count) back to it.
//
// Thread-safety: as the FileSystem interface says; the bookkeeping they touch lives in the
// fault layer under its mutex.
#ifndef SHALE_FS_FAULT_INJECTION_FILES_H_
#define SHALE_FS_FAULT_INJECTION_FILES_H_

#include <memory>
#include <string>
#include <string_view>

#include "fs/fault_injection_file_system.h"

namespace shale {

class FaultSequentialFile final : public SequentialFile {
 public:
  FaultSequentialFile(FaultInjectionFileSystem* fs, std::string path,
                      std::unique_ptr<SequentialFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}
  ~FaultSequentialFile() override { fs_->ReleaseOpenFile(); }
  FaultSequentialFile(const FaultSequentialFile&) = delete;
  FaultSequentialFile& operator=(const FaultSequentialFile&) = delete;

  Status Read(size_t n, std::string_view* result, char* scratch) override;
  Status Skip(uint64_t n) override { return base_->Skip(n); }

 private:
  FaultInjectionFileSystem* const fs_;
  const std::string path_;
  const std::unique_ptr<SequentialFile> base_;
};

class FaultRandomAccessFile final : public RandomAccessFile {
 public:
  FaultRandomAccessFile(FaultInjectionFileSystem* fs, std::string path,
                        std::unique_ptr<RandomAccessFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}
  ~FaultRandomAccessFile() override { fs_->ReleaseOpenFile(); }
  FaultRandomAccessFile(const FaultRandomAccessFile&) = delete;
  FaultRandomAccessFile& operator=(const FaultRandomAccessFile&) = delete;

  Status Read(uint64_t offset, size_t n, std::string_view* result,
              char* scratch) const override;
  Status Prefetch(uint64_t offset, size_t n) override { return base_->Prefetch(offset, n); }
  Status GetSize(uint64_t* size) const override { return base_->GetSize(size); }

 private:
  FaultInjectionFileSystem* const fs_;
  const std::string path_;
  const std::unique_ptr<RandomAccessFile> base_;
};

// Counts as an open file until Close or destruction, whichever comes first.
class FaultWritableFile final : public WritableFile {
 public:
  using FileState = FaultInjectionFileSystem::FileState;

  FaultWritableFile(FaultInjectionFileSystem* fs, std::string path,
                    std::unique_ptr<WritableFile> base, std::shared_ptr<FileState> state)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)), state_(std::move(state)) {}
  ~FaultWritableFile() override;
  FaultWritableFile(const FaultWritableFile&) = delete;
  FaultWritableFile& operator=(const FaultWritableFile&) = delete;

  Status Append(std::string_view data) override;
  Status Flush() override;
  Status Sync() override;
  Status Close() override;
  uint64_t GetFileSize() const override { return base_->GetFileSize(); }

 private:
  FaultInjectionFileSystem* const fs_;
  const std::string path_;
  const std::unique_ptr<WritableFile> base_;
  const std::shared_ptr<FileState> state_;
  bool closed_ = false;
};

}  // namespace shale

#endif  // SHALE_FS_FAULT_INJECTION_FILES_H_
