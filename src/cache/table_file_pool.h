// TableFilePool: the file descriptors of a DB's table files, apart from the tables' parsed
// state (issue 19, finding 11).
//
// A table reader does not own an open file. It reads through a pooled file (NewFile), a
// RandomAccessFile that holds no descriptor between reads: each Read (and GetSize, Prefetch)
// takes the table's descriptor from the pool, opening it if the pool has none, does one pread,
// and hands it back. So a reader, or an iterator positioned on a table, holds blocks and
// parsed metadata, never a descriptor, and a scan over any number of tables needs only as many
// descriptors as reads run at once.
//
// Reuse: a descriptor handed back stays open (idle) while the pool is within its capacity, so
// when every table fits, a block read costs the pread and two short critical sections, no
// open or close. Concurrent reads of one table share its descriptor (pread needs no lock).
// Opening a descriptor when the pool is full first closes the least recently used idle one;
// when every descriptor is in a read, it waits for one to be handed back (a read holds its
// descriptor only for the pread, and a thread never asks for a second while holding one, so
// the wait ends). Invariant: the descriptors open or being opened never exceed capacity().
//
// Running out of descriptors anyway (the process or the system limit, EMFILE/ENFILE, hit
// because of files outside the pool): the pool
//   1. lowers its capacity to what evidently fits: one less than the descriptors it held when
//      the limit was hit, less 1/16 of them, as room for the DB's other files (WAL, MANIFEST,
//      flush and compaction outputs); never below 1, and never raised again;
//   2. closes idle descriptors down to that capacity (at least one) and retries at once;
//   3. when it holds no idle descriptor (all in reads, or none at all: the process's
//      descriptors are held elsewhere), sleeps a little (1 ms, doubling up to 50 ms) and
//      retries, until max_descriptor_wait() (3 s by default) has passed since the first
//      attempt; then the read fails with an IOError (not matched by IsTooManyOpenFiles)
//      saying the pool could not get a file descriptor.
//
// Result data: a pooled Read always returns its bytes in the caller's scratch (a file system
// that returns its own memory has it copied), since the descriptor may be closed as soon as
// the read ends.
//
// Ownership: pooled files keep the pool alive (shared_ptr); the FileSystem must outlive the
// pool. Thread-safety: every method may be called from any thread; a pooled file's methods may
// be called concurrently. Files are opened and closed without the pool's lock held.
#ifndef SHALE_CACHE_TABLE_FILE_POOL_H_
#define SHALE_CACHE_TABLE_FILE_POOL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "util/mutex.h"

namespace shale {

class TableFilePool {
 public:
  // At most `capacity` descriptors open at once (0 is taken as 1).
  TableFilePool(FileSystem* fs, size_t capacity);
  ~TableFilePool();

  TableFilePool(const TableFilePool&) = delete;
  TableFilePool& operator=(const TableFilePool&) = delete;

  // A file reading `path` through `pool`. `id` names the file in the pool (a DB's file
  // number): files with one id share a descriptor, so an id must always name the same path.
  // Opens nothing: a missing file shows up as the error of the first read.
  static std::unique_ptr<RandomAccessFile> NewFile(std::shared_ptr<TableFilePool> pool,
                                                   uint64_t id, std::string path);

  // The file `id` is being deleted: closes its descriptor now, or, while a read uses it, when
  // that read ends. A later read opens it again (if the file still exists).
  void Close(uint64_t id);

  // Descriptors open now (idle or in a read), and being opened.
  size_t NumOpen() const;
  // The most descriptors the pool keeps open now: the configured capacity, or less once the
  // descriptor limit has been hit.
  size_t capacity() const;
  size_t configured_capacity() const { return configured_capacity_; }
  // Opens that failed with "Too many open files" (each retried or given up on).
  uint64_t TooManyOpenFilesHits() const;
  // The most descriptors open at once so far.
  size_t PeakOpen() const;

  // How long a read waits for a descriptor after hitting the process limit with nothing idle
  // to close. Default: 3 s.
  std::chrono::milliseconds max_descriptor_wait() const;
  void set_max_descriptor_wait(std::chrono::milliseconds wait);

 private:
  class PooledFile;

  // One table's descriptor.
  struct Slot {
    uint64_t id = 0;
    std::unique_ptr<RandomAccessFile> file;  // null while being opened
    int users = 0;                           // reads using the descriptor now
    bool doomed = false;                     // Close(id) was called: close when users == 0
    std::list<Slot*>::iterator lru_pos;      // where it sits in lru_
  };

  // The descriptor of file `id` at `path`, for one read: *slot is in use (users counted) until
  // Release(*slot). Opens it (closing idle ones, waiting, as above) if needed.
  Status Acquire(uint64_t id, const std::string& path, Slot** slot) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the read that Acquire began.
  void Release(Slot* slot) ABSL_LOCKS_EXCLUDED(mu_);
  // Takes the slot out of the pool; returns its file, to be closed after mu_ is released.
  std::unique_ptr<RandomAccessFile> EraseLocked(Slot* slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The least recently used idle slot, or null when every descriptor is in a read.
  Slot* IdleVictimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Closes `files` (taken out of the pool by EraseLocked) with mu_ released, counting them in
  // closing_ meanwhile so that no new descriptor takes their place before they are closed.
  // Returns with mu_ held again; wakes waiters.
  void CloseUnlocked(std::vector<std::unique_ptr<RandomAccessFile>>* files)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  FileSystem* const fs_;
  const size_t configured_capacity_;

  // Guards the fields below. Never held while a file is opened, read or closed.
  mutable Mutex mu_;
  // Signalled when a descriptor is handed back or an open ends, while waiters_ > 0.
  CondVar cv_;
  int waiters_ ABSL_GUARDED_BY(mu_) = 0;
  // Every slot (open or being opened) by id. Invariant: slots_.size() + closing_ <= capacity_
  // whenever mu_ is released, except right after capacity_ was lowered, until the in-use
  // slots over it are handed back (Release then closes them).
  absl::flat_hash_map<uint64_t, std::unique_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
  // The slots, most recently used first; slots in use are skipped when choosing a victim.
  std::list<Slot*> lru_ ABSL_GUARDED_BY(mu_);
  // Invariant: 1 <= capacity_ <= configured_capacity_.
  size_t capacity_ ABSL_GUARDED_BY(mu_);
  // Descriptors taken out of slots_ and being closed (outside the lock): still open.
  size_t closing_ ABSL_GUARDED_BY(mu_) = 0;
  size_t peak_open_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t too_many_open_files_hits_ ABSL_GUARDED_BY(mu_) = 0;
  std::chrono::milliseconds max_descriptor_wait_ ABSL_GUARDED_BY(mu_){3000};
};

}  // namespace shale

#endif  // SHALE_CACHE_TABLE_FILE_POOL_H_
