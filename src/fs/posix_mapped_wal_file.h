// PosixMappedWalFile: the write-ahead log file of FileSystem::Default() (FileSystem::NewWalFile).
//
// A WAL is written in small appends, each of which must survive a process crash as soon as the
// write returns; with write(2) that is a system call per Put (DESIGN.md section 5: ~970 ns, most
// of a sequential Put's cost). Here the file is extended ahead of the writes with fallocate(2)
// and mapped shared, so an append is a memcpy into the kernel's page cache: the pages are the
// kernel's, so the data survives a crash of this process without any call, and Sync makes it
// durable with fdatasync(2) (the page cache tracks pages written through a shared mapping as
// dirty, and fdatasync writes them back like any other).
//
// Invariants and what a crash leaves:
//  - The file's size on disk runs ahead of the bytes appended (by less than one chunk, up to
//    kMaxChunkSize); the space past them is zero-filled. Close truncates the file to the bytes
//    appended. After a crash the file ends in zeros, which the log reader takes for the end of
//    the log (log::Reader: zero-filled space with nothing but zeros after it). Nothing is
//    allocated before the first Append, so a DB whose creation was interrupted leaves an empty
//    WAL, not one of zeros.
//  - Appends copy forward, in address order, never with memcpy (which may store the end of a
//    range before its start): a process killed during a copy leaves a prefix of the bytes,
//    followed by zeros -- a torn last record, never zeros followed by data.
//  - Every page the mapping covers is allocated by fallocate before it is mapped, so on the
//    file systems this is used on (ext4, xfs, tmpfs: UseMappedWal) a store needs no new block:
//    a full disk is an error from fallocate, not a SIGBUS at a store. A store can still raise
//    SIGBUS when the file system has failed (an I/O error reading a page back, a shut-down
//    file system) or the file was truncated behind the DB's back.
//  - GetFileSize is the number of bytes appended, not the file's size on disk.
//
// Thread-safety: one thread at a time, as for every WritableFile. Errors are sticky: after a
// failed call, every later Append, Flush and Sync returns that error.
#ifndef SHALE_FS_POSIX_MAPPED_WAL_FILE_H_
#define SHALE_FS_POSIX_MAPPED_WAL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/file_system.h"
#include "shale/status.h"

namespace shale {

// True when the file system holding the file open on `fd` allocates nothing when a page of
// space allocated by fallocate is first written through a mapping (ext4, xfs, tmpfs).
bool UseMappedWal(int fd);

class PosixMappedWalFile final : public WritableFile {
 public:
  // The first chunk; each next one doubles, up to kMaxChunkSize. Multiples of the page size.
  static constexpr size_t kFirstChunkSize = 64 * 1024;
  static constexpr size_t kMaxChunkSize = 1024 * 1024;

  // Takes ownership of `fd`: an empty file, open read-write (a shared mapping needs read
  // access), on a file system for which UseMappedWal holds.
  PosixMappedWalFile(std::string path, int fd);
  // Closes the file if Close was not called; errors are lost.
  ~PosixMappedWalFile() override;
  PosixMappedWalFile(const PosixMappedWalFile&) = delete;
  PosixMappedWalFile& operator=(const PosixMappedWalFile&) = delete;

  Status Append(std::string_view data) override;
  // Nothing to hand over: appended bytes are in the kernel's page cache already.
  Status Flush() override;
  // fdatasync(2): the pages written through the mapping and the allocated size.
  Status Sync() override;
  // Unmaps, truncates the file to the bytes appended and closes it.
  Status Close() override;
  uint64_t GetFileSize() const override { return appended_; }

 private:
  Status CheckUsable() const;
  // Allocates and maps the next chunk, from allocated_ on; unmaps the full one first.
  Status MapNextChunk();
  void Unmap();
  Status Fail(Status s);

  const std::string path_;
  int fd_;  // -1 once closed
  // The mapped chunk: file bytes [map_offset_, map_offset_ + map_size_); null before the first.
  char* map_ = nullptr;
  uint64_t map_offset_ = 0;
  size_t map_size_ = 0;
  // The file's size on disk as far as known (what fallocate extended it to).
  // Invariant: map_offset_ + map_size_ == allocated_, and appended_ <= allocated_.
  uint64_t allocated_ = 0;
  // Whether an fallocate was tried (one that failed may still have extended the file).
  bool size_changed_ = false;
  // Bytes appended; appended_ - map_offset_ of the current chunk are used.
  uint64_t appended_ = 0;
  size_t next_chunk_size_ = kFirstChunkSize;
  Status error_;  // the first failure (sticky)
  // Set when the file system turned out not to allocate ahead for this file (the first
  // fallocate said EOPNOTSUPP): every call goes to it, and it owns the descriptor.
  std::unique_ptr<WritableFile> plain_;
};

}  // namespace shale

#endif  // SHALE_FS_POSIX_MAPPED_WAL_FILE_H_
