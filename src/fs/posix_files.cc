#include "fs/posix_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fs/posix_errors.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// Reads until n bytes or the end of the file, retrying on EINTR. offset < 0: read(2) from the
// current position; otherwise pread(2) at offset.
Status ReadFully(const std::string& path, int fd, int64_t offset, size_t n, char* scratch,
                 size_t* done) {
  *done = 0;
  while (*done < n) {
    ssize_t r = offset < 0 ? ::read(fd, scratch + *done, n - *done)
                           : ::pread(fd, scratch + *done, n - *done,
                                     static_cast<off_t>(offset + *done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return PosixError(path, offset < 0 ? "read" : "pread", errno);
    }
    if (r == 0) break;  // end of file
    *done += static_cast<size_t>(r);
  }
  return Status::OK();
}

Status FileSizeOf(const std::string& path, int fd, uint64_t* size) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return PosixError(path, "fstat", errno);
  *size = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

}  // namespace

// ---- PosixSequentialFile ----

PosixSequentialFile::PosixSequentialFile(std::string path, int fd)
    : path_(std::move(path)), fd_(fd) {}

PosixSequentialFile::~PosixSequentialFile() { ::close(fd_); }

Status PosixSequentialFile::Read(size_t n, std::string_view* result, char* scratch) {
  size_t done = 0;
  Status s = ReadFully(path_, fd_, -1, n, scratch, &done);
  *result = std::string_view(scratch, s.ok() ? done : 0);
  return s;
}

Status PosixSequentialFile::Skip(uint64_t n) {
  off_t pos = ::lseek(fd_, 0, SEEK_CUR);
  if (pos < 0) return PosixError(path_, "lseek", errno);
  uint64_t size = 0;
  Status s = FileSizeOf(path_, fd_, &size);
  if (!s.ok()) return s;
  // Skipping past the end stops at the end (never moves backwards if already past it).
  uint64_t current = static_cast<uint64_t>(pos);
  uint64_t remaining = size > current ? size - current : 0;
  uint64_t target = current + std::min(n, remaining);
  if (::lseek(fd_, static_cast<off_t>(target), SEEK_SET) < 0) {
    return PosixError(path_, "lseek", errno);
  }
  return Status::OK();
}

// ---- PosixRandomAccessFile ----

PosixRandomAccessFile::PosixRandomAccessFile(std::string path, int fd)
    : path_(std::move(path)), fd_(fd) {}

PosixRandomAccessFile::~PosixRandomAccessFile() { ::close(fd_); }

Status PosixRandomAccessFile::Read(uint64_t offset, size_t n, std::string_view* result,
                                   char* scratch) const {
  size_t done = 0;
  Status s = ReadFully(path_, fd_, static_cast<int64_t>(offset), n, scratch, &done);
  *result = std::string_view(scratch, s.ok() ? done : 0);
  return s;
}

Status PosixRandomAccessFile::Prefetch(uint64_t offset, size_t n) {
  int err = ::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(n),
                            POSIX_FADV_WILLNEED);
  if (err != 0) return PosixError(path_, "posix_fadvise", err);
  return Status::OK();
}

Status PosixRandomAccessFile::GetSize(uint64_t* size) const {
  return FileSizeOf(path_, fd_, size);
}

// ---- PosixWritableFile ----

PosixWritableFile::PosixWritableFile(std::string path, int fd, uint64_t initial_size)
    : path_(std::move(path)),
      fd_(fd),
      buffer_(new char[kBufferSize]),
      file_size_(initial_size) {}

PosixWritableFile::~PosixWritableFile() {
  if (fd_ >= 0) Close().PermitUncheckedError();  // documented: errors are lost
}

Status PosixWritableFile::CheckOpen() const {
  if (fd_ < 0) return Status::IOError(path_, "file is already closed");
  return Status::OK();
}

Status PosixWritableFile::Append(std::string_view data) {
  Status s = CheckOpen();
  if (!s.ok()) return s;
  const size_t total = data.size();
  size_t copy = std::min(data.size(), kBufferSize - buffered_);
  std::memcpy(buffer_.get() + buffered_, data.data(), copy);
  buffered_ += copy;
  data.remove_prefix(copy);
  if (!data.empty()) {
    // The buffer is full: write it, then keep a small rest or write a large one directly.
    s = FlushBuffer();
    if (!s.ok()) return s;
    if (data.size() < kBufferSize) {
      std::memcpy(buffer_.get(), data.data(), data.size());
      buffered_ = data.size();
    } else {
      s = WriteFully(data);
      if (!s.ok()) return s;
    }
  }
  file_size_ += total;
  return Status::OK();
}

Status WriteAll(std::string_view path, std::string_view data,
                absl::FunctionRef<ssize_t(const char*, size_t)> write_fn) {
  while (!data.empty()) {
    ssize_t w = write_fn(data.data(), data.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      return PosixError(path, "write", errno);
    }
    if (w == 0) {
      // No progress and no errno: retrying would spin forever.
      return Status::NoSpace(
          absl::StrCat(ToAbsl(path), ": write"),
          absl::StrCat("wrote 0 of ", data.size(), " bytes (device or quota full?)"));
    }
    data.remove_prefix(static_cast<size_t>(w));
  }
  return Status::OK();
}

Status PosixWritableFile::WriteFully(std::string_view data) {
  const int fd = fd_;
  return WriteAll(path_, data,
                  [fd](const char* p, size_t n) { return ::write(fd, p, n); });
}

Status PosixWritableFile::FlushBuffer() {
  Status s = WriteFully(std::string_view(buffer_.get(), buffered_));
  buffered_ = 0;  // on error the bytes' fate is unknown either way; never write them twice
  return s;
}

Status PosixWritableFile::Flush() {
  Status s = CheckOpen();
  if (!s.ok()) return s;
  return FlushBuffer();
}

Status PosixWritableFile::Sync() {
  Status s = Flush();
  if (!s.ok()) return s;
  if (::fdatasync(fd_) != 0) return PosixError(path_, "fdatasync", errno);
  return Status::OK();
}

Status PosixWritableFile::Close() {
  Status s = CheckOpen();
  if (!s.ok()) return s;
  s = FlushBuffer();
  if (::close(fd_) != 0 && s.ok()) s = PosixError(path_, "close", errno);
  fd_ = -1;
  return s;
}

}  // namespace shale
