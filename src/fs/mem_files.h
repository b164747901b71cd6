// The file objects of the in-memory file system (NewMemFileSystem()).
//
// A MemFile is the contents of one file: shared (std::shared_ptr) by every name linked to it and
// by every open handle, so hard links share contents and a deleted file stays readable through
// the handles open on it.
//
// Thread-safety: MemFile is thread-safe (its own mutex guards the bytes). Lock order: the file
// system's mutex may be held while taking a MemFile's, never the reverse. The handle classes
// are used as the FileSystem interface says; MemRandomAccessFile::Read may run concurrently.
#ifndef SHALE_FS_MEM_FILES_H_
#define SHALE_FS_MEM_FILES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "util/mutex.h"
#include "shale/file_system.h"

namespace shale {

class MemFile {
 public:
  uint64_t Size() const;
  void Append(std::string_view data);
  void Truncate();
  // Copies up to n bytes at offset into scratch; returns how many (0 past the end).
  size_t Read(uint64_t offset, size_t n, char* scratch) const;

 private:
  mutable Mutex mu_;
  std::string data_ ABSL_GUARDED_BY(mu_);
};

class MemSequentialFile final : public SequentialFile {
 public:
  explicit MemSequentialFile(std::shared_ptr<MemFile> file) : file_(std::move(file)) {}
  Status Read(size_t n, std::string_view* result, char* scratch) override;
  Status Skip(uint64_t n) override;

 private:
  const std::shared_ptr<MemFile> file_;
  uint64_t pos_ = 0;
};

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(std::shared_ptr<MemFile> file) : file_(std::move(file)) {}
  Status Read(uint64_t offset, size_t n, std::string_view* result,
              char* scratch) const override;
  Status GetSize(uint64_t* size) const override;

 private:
  const std::shared_ptr<MemFile> file_;
};

// Appends straight into the MemFile: there is no buffer, so Flush and Sync only check that the
// file is open. GetFileSize counts the bytes the file held when opened plus those appended.
class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string path, std::shared_ptr<MemFile> file);
  Status Append(std::string_view data) override;
  Status Flush() override { return CheckOpen(); }
  Status Sync() override { return CheckOpen(); }
  Status Close() override;
  uint64_t GetFileSize() const override { return size_; }

 private:
  Status CheckOpen() const;

  const std::string path_;
  std::shared_ptr<MemFile> file_;  // null once closed
  uint64_t size_;
};

}  // namespace shale

#endif  // SHALE_FS_MEM_FILES_H_
