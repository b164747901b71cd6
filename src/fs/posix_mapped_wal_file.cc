#include "fs/posix_mapped_wal_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fs/posix_errors.h"
#include "fs/posix_files.h"

namespace shale {

namespace {

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

// fallocate(2) mode 0 over [offset, offset + size): allocates the blocks and extends the
// file's size, retrying on EINTR. Returns 0 or an errno.
int AllocateRange(int fd, uint64_t offset, size_t size) {
  int r;
  do {
    r = ::fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(size));
  } while (r != 0 && errno == EINTR);
  return r == 0 ? 0 : errno;
}

// Copies n bytes to dst in address order: single bytes up to an 8-byte boundary of dst, then
// aligned 8-byte words, then single bytes. The volatile stores keep the compiler from merging,
// vectorising or reordering them; a process killed in the middle has stored a prefix (a CPU
// does not discard a store that retired, and stores retire in program order).
void CopyForward(char* dst, const char* src, size_t n) {
  volatile char* d = dst;
  while (n > 0 && (reinterpret_cast<uintptr_t>(d) & 7) != 0) {
    *d++ = *src++;
    n--;
  }
  volatile uint64_t* words = reinterpret_cast<volatile uint64_t*>(d);
  for (; n >= 8; n -= 8, src += 8) {
    uint64_t w;
    std::memcpy(&w, src, 8);
    *words++ = w;
  }
  d = reinterpret_cast<volatile char*>(words);
  while (n > 0) {
    *d++ = *src++;
    n--;
  }
}

}  // namespace

bool UseMappedWal(int fd) {
  struct statfs st;
  int r;
  do {
    r = ::fstatfs(fd, &st);
  } while (r != 0 && errno == EINTR);
  if (r != 0) return false;
  // (ext2 and ext3 share ext4's magic: where fallocate is not supported there, the file
  // falls back to write(2) at its first Append.)
  switch (static_cast<unsigned long>(st.f_type)) {
    case EXT4_SUPER_MAGIC:
    case XFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
      return true;
    default:
      return false;
  }
}

PosixMappedWalFile::PosixMappedWalFile(std::string path, int fd)
    : path_(std::move(path)), fd_(fd) {}

PosixMappedWalFile::~PosixMappedWalFile() {
  if (plain_ == nullptr && fd_ >= 0) Close().PermitUncheckedError();  // errors are lost
}

Status PosixMappedWalFile::CheckUsable() const {
  if (fd_ < 0) return Status::IOError(path_, "file is already closed");
  return error_;
}

Status PosixMappedWalFile::Fail(Status s) {
  if (error_.ok()) error_ = s;
  return error_;
}

void PosixMappedWalFile::Unmap() {
  if (map_ != nullptr) ::munmap(map_, map_size_);  // dirty pages stay in the page cache
  map_ = nullptr;
}

Status PosixMappedWalFile::MapNextChunk() {
  const size_t size = next_chunk_size_;
  const uint64_t offset = allocated_;
  // Allocated before it is mapped: a store into the mapping needs no new block (a full disk
  // is this error, not a SIGBUS at a store).
  size_changed_ = true;
  const int err = AllocateRange(fd_, offset, size);
  if (err == EOPNOTSUPP && offset == 0) {
    // Not on this file (ext3's block-mapped files): nothing was allocated, the file is still
    // empty, and write(2) takes over for good (PosixWritableFile owns fd_ from now on).
    plain_ = std::make_unique<PosixWritableFile>(path_, fd_, 0);
    fd_ = -1;
    size_changed_ = false;
    return Status::OK();
  }
  if (err != 0) return Fail(PosixError(path_, "fallocate", err));
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                   static_cast<off_t>(offset));
  if (p == MAP_FAILED) return Fail(PosixError(path_, "mmap", errno));
  Unmap();
  map_ = static_cast<char*>(p);
  map_offset_ = offset;
  map_size_ = size;
  allocated_ = offset + size;
  next_chunk_size_ = std::min(next_chunk_size_ * 2, kMaxChunkSize);
  return Status::OK();
}

Status PosixMappedWalFile::Append(std::string_view data) {
  if (plain_ != nullptr) return plain_->Append(data);
  Status s = CheckUsable();
  if (!s.ok()) return s;
  while (!data.empty()) {
    if (appended_ == allocated_) {
      s = MapNextChunk();
      if (!s.ok()) return s;
      if (plain_ != nullptr) return plain_->Append(data);
    }
    const size_t used = static_cast<size_t>(appended_ - map_offset_);
    const size_t n = std::min(data.size(), map_size_ - used);
    CopyForward(map_ + used, data.data(), n);
    appended_ += n;
    data.remove_prefix(n);
  }
  return Status::OK();
}

Status PosixMappedWalFile::Flush() {
  if (plain_ != nullptr) return plain_->Flush();
  return CheckUsable();
}

Status PosixMappedWalFile::Sync() {
  if (plain_ != nullptr) return plain_->Sync();
  Status s = CheckUsable();
  if (!s.ok()) return s;
  // A failed fdatasync may have dropped dirty pages (the kernel marks them clean): what it
  // covered is unknown, and it stays failed.
  if (::fdatasync(fd_) != 0) return Fail(PosixError(path_, "fdatasync", errno));
  return Status::OK();
}

Status PosixMappedWalFile::Close() {
  if (plain_ != nullptr) return plain_->Close();
  if (fd_ < 0) return Status::IOError(path_, "file is already closed");
  Status s = error_;
  Unmap();
  if (size_changed_) {
    // The zero-filled space past the records goes. Should this fail, the file keeps it, which
    // every reader takes for the end of the log: not an error of the log.
    int r;
    do {
      r = ::ftruncate(fd_, static_cast<off_t>(appended_));
    } while (r != 0 && errno == EINTR);
  }
  if (::close(fd_) != 0 && s.ok()) s = PosixError(path_, "close", errno);
  fd_ = -1;
  return s;
}

}  // namespace shale
