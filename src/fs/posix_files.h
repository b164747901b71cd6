// The POSIX file objects behind FileSystem::Default(). Each owns one file descriptor, opened by
// PosixFileSystem with O_CLOEXEC, and closes it when destroyed.
//
// Thread-safety: as the interface says. PosixRandomAccessFile::Read uses pread and no shared
// state, so concurrent reads need no lock; the other classes are used by one thread at a time.
#ifndef SHALE_FS_POSIX_FILES_H_
#define SHALE_FS_POSIX_FILES_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "shale/file_system.h"

namespace shale {

// Writes all of `data` to `path` through `write_fn`, which has write(2)'s contract (the bytes
// it wrote, or -1 with errno set): retries on EINTR and after short writes. A call that writes
// nothing for a non-empty request makes no progress (write(2) does that on a full device or
// quota under some file systems instead of failing with ENOSPC), and retrying it would spin
// forever: it is reported as IOError/NoSpace naming the path. PosixWritableFile's writes go
// through here; a separate function so that a test can give it a fake write.
// Thread-safety: a plain function.
Status WriteAll(std::string_view path, std::string_view data,
                absl::FunctionRef<ssize_t(const char*, size_t)> write_fn);

class PosixSequentialFile final : public SequentialFile {
 public:
  // Takes ownership of fd.
  PosixSequentialFile(std::string path, int fd);
  ~PosixSequentialFile() override;
  PosixSequentialFile(const PosixSequentialFile&) = delete;
  PosixSequentialFile& operator=(const PosixSequentialFile&) = delete;

  Status Read(size_t n, std::string_view* result, char* scratch) override;
  Status Skip(uint64_t n) override;

 private:
  const std::string path_;
  const int fd_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  // Takes ownership of fd.
  PosixRandomAccessFile(std::string path, int fd);
  ~PosixRandomAccessFile() override;
  PosixRandomAccessFile(const PosixRandomAccessFile&) = delete;
  PosixRandomAccessFile& operator=(const PosixRandomAccessFile&) = delete;

  Status Read(uint64_t offset, size_t n, std::string_view* result,
              char* scratch) const override;
  // posix_fadvise(POSIX_FADV_WILLNEED): the kernel starts reading the range in the background.
  Status Prefetch(uint64_t offset, size_t n) override;
  Status GetSize(uint64_t* size) const override;

 private:
  const std::string path_;
  const int fd_;
};

// Appends go to a 64 KiB user-space buffer, handed to the kernel with write(2) when it fills,
// on Flush, Sync and Close; an append that does not fit is written straight after the buffered
// bytes, without copying. GetFileSize counts the bytes the file held when opened plus those
// appended. After a failed call the file's contents past the last successful Flush are unknown.
class PosixWritableFile final : public WritableFile {
 public:
  static constexpr size_t kBufferSize = 64 * 1024;

  // Takes ownership of fd. initial_size: the file's size when opened (0 unless appending).
  PosixWritableFile(std::string path, int fd, uint64_t initial_size);
  // Closes the file if Close was not called; errors are lost.
  ~PosixWritableFile() override;
  PosixWritableFile(const PosixWritableFile&) = delete;
  PosixWritableFile& operator=(const PosixWritableFile&) = delete;

  Status Append(std::string_view data) override;
  Status Flush() override;
  Status Sync() override;
  Status Close() override;
  uint64_t GetFileSize() const override { return file_size_; }

 private:
  Status CheckOpen() const;
  // Writes all of data with write(2) through WriteAll.
  Status WriteFully(std::string_view data);
  Status FlushBuffer();

  const std::string path_;
  int fd_;  // -1 once closed
  std::unique_ptr<char[]> buffer_;
  size_t buffered_ = 0;  // bytes of buffer_ not yet written; invariant: <= kBufferSize
  uint64_t file_size_;
};

}  // namespace shale

#endif  // SHALE_FS_POSIX_FILES_H_
