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
// Waiting for room is first come, first served: a read that needs a new descriptor while the
// pool is full queues behind the reads already waiting for one (a read sharing a descriptor
// that is open needs no room and does not queue), and a descriptor handed back while reads
// wait for room is closed for the first of them, so a thread reading in a loop cannot take the
// room again and again ahead of a waiting one (issue 19, pool review finding 3).
// A descriptor is handed back only when its last read ends, and reads sharing it overlap: a
// table read by several threads in a loop could keep its descriptor in use for ever, and the
// first waiting read would wait for ever. So when the first waiting read finds every descriptor
// in a read, it marks the least recently used one as draining: a read of that table that
// arrives while a read waits for room ahead of it does not share it but queues for room like
// the others; the reads under way end, the descriptor is handed back and closed for the first
// waiting read (issue 19, pool review 2, finding 3). No descriptor is closed under a read.
//
// Descriptor lifetime: a descriptor belongs to one incarnation of a file id (a Slot), shared by
// every pooled file made for that id until Retire(id) (the file is being deleted: later pooled
// files of the id, e.g. of a new file that reused the number, get a new slot); the descriptor
// is closed when the pool needs room (least recently used idle first), or when the last pooled
// file of its slot is destroyed, never under a read. So a reader holding a table whose file is
// deleted keeps reading it through the open descriptor, if it has one.
//
// Shutdown (DB Close, issue 19, pool review finding 1): every descriptor is pinned for the
// pooled files that still exist (tables held by an iterator or a read in progress), opened now
// if it is not open (while the LOCK is still held), up to the configured capacity; so such a
// reader keeps reading its tables after another process opened the DB and deleted them. A
// pinned descriptor is closed when the last pooled file of its table is destroyed. After
// Shutdown nothing waits for room: a read of a table not pinned opens its descriptor directly.
//
// Cancelling waits (the DB starts closing, issue 19, pool review 2, finding 2): from
// CancelWaits on, a read short of descriptors held outside the pool (step 3 below) fails at
// once instead of polling, and one polling then fails at its next retry (within 50 ms), so
// Close does not wait max_descriptor_wait() for each input of a compaction it waits for.
// Waits for room (for a descriptor in a read to be handed back) and for an open under way are
// not cancelled: they end as reads end. Reads of tables whose descriptor is open, or that get
// one, are unaffected (a reader that goes on after Close keeps its pinned descriptors).
//
// Running out of descriptors anyway (the process or the system limit, EMFILE/ENFILE, hit
// because of files outside the pool): the pool
//   1. lowers its capacity to what evidently fits: one less than the descriptors it had open
//      when the limit was hit (opens still under way do not count: they may fail too), less
//      1/16 of them, as room for the DB's other files (WAL, MANIFEST, flush and compaction
//      outputs); never below 1. One cut per spike: an open that began before the last cut
//      does not cut again when it fails (so N reads failing at once cut once, not N times);
//   2. closes idle descriptors down to that capacity (at least one) and retries at once;
//   3. when it holds no idle descriptor (all in reads, or none at all: the process's
//      descriptors are held elsewhere), sleeps a little (1 ms, doubling up to 50 ms) and
//      retries, until max_descriptor_wait() (3 s by default) has passed since the first
//      attempt; then the read fails with an IOError (not matched by IsTooManyOpenFiles, matched
//      by IsDescriptorShortage) saying the pool could not get a file descriptor.
// The capacity grows back while it is below the configured one: after every kGrowthOpens
// successful opens since the last cut or growth, by 1/16 (at least 1). Opens happen only while
// the tables read do not all fit, so the pool grows exactly when it is short. (Before, capacity
// only ever shrank, and each of N reads failing at once cut it again, counting the others'
// opens in flight as fitting: one short spike could leave it at 1 for good; issue 19, pool
// review finding 2.) The growth stops at the ceiling: the level of the last cut, which leaves
// the DB's other files their room below the level where the limit was hit; the ceiling is
// raised (a step at a time, toward the configured capacity) only once the limit has not been
// hit for headroom_hold() (5 minutes by default) and a probe then finds the step plus the
// reserve a cut keeps free in the process: the quiet period alone proves nothing, as at the
// ceiling the pool cannot hit the limit however long the outside use lasts. (Before, the growth
// went on to the configured capacity within a few hundred opens, took back the room the cut
// had left, and the DB's next WAL, MANIFEST or flush output failed with EMFILE, a background
// error; issue 19, pool review 2, finding 1; and a first fix lifting the ceiling after the
// quiet period alone did the same 5 minutes later, review 3.) The probe holds its descriptors
// for the instant of the probe, once per hold at most.
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

// True for the error of a pooled read that gave up waiting for a file descriptor (the process
// limit was held by files outside the pool for max_descriptor_wait()), also when wrapped with
// more text. A shortage, not damage: the same read can succeed later.
bool IsDescriptorShortage(const Status& s);

class TableFilePool {
 public:
  // Successful opens after which a lowered capacity grows again (see above).
  static constexpr uint64_t kGrowthOpens = 64;
  // How long without hitting the descriptor limit lifts the growth's ceiling (see above).
  static constexpr std::chrono::milliseconds kDefaultHeadroomHold{5 * 60 * 1000};

  // At most `capacity` descriptors open at once (0 is taken as 1).
  TableFilePool(FileSystem* fs, size_t capacity);
  ~TableFilePool();

  TableFilePool(const TableFilePool&) = delete;
  TableFilePool& operator=(const TableFilePool&) = delete;

  // A file reading `path` through `pool`. `id` names the file in the pool (a DB's file
  // number): files with one id share a descriptor until Retire(id), so an id must name the
  // same path. Opens nothing: a missing file shows up as the error of the first read.
  static std::unique_ptr<RandomAccessFile> NewFile(std::shared_ptr<TableFilePool> pool,
                                                   uint64_t id, std::string path);

  // The file `id` is being deleted (its number may be reused): pooled files made from now on
  // for `id` get a descriptor of their own; those made before keep theirs (open or not) until
  // they are destroyed.
  void Retire(uint64_t id);

  // The DB starts closing (see above): from now on a read short of descriptors held outside
  // the pool does not wait for them; it fails at once with the shortage error
  // (IsDescriptorShortage). Called before the DB waits for its background work, so that a
  // compaction polling for descriptors ends promptly. Later calls do nothing more.
  void CancelWaits();

  // The DB is closing (see above): pins the descriptors of the pooled files that still exist,
  // opening them if needed (up to the configured capacity), and stops waiting for room.
  // Called once; later calls do nothing.
  void Shutdown();

  // Descriptors open now (idle or in a read, pinned included), being opened, and being closed.
  size_t NumOpen() const;
  // The most descriptors the pool keeps open now: the configured capacity, or less while it
  // is lowered after the descriptor limit was hit.
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

  // How long the growth back after a cut stays below the cut's level (the room left for the
  // DB's other files) since the limit was last hit. Default: kDefaultHeadroomHold.
  std::chrono::milliseconds headroom_hold() const;
  void set_headroom_hold(std::chrono::milliseconds hold);

 private:
  class PooledFile;

  // One incarnation of a file id and its descriptor. Exists while pooled files refer to it
  // (holders > 0) or its descriptor is still being opened or closed by the pool.
  struct Slot {
    uint64_t id = 0;
    std::string path;
    int holders = 0;                         // pooled files made for this slot, alive
    std::unique_ptr<RandomAccessFile> file;  // the open descriptor, or null
    bool opening = false;                    // an open is under way (outside the lock)
    int users = 0;                           // reads using the descriptor now
    bool pinned = false;                     // after Shutdown: kept open while holders > 0
    std::list<Slot*>::iterator lru_pos;      // in lru_ while `file` is open
  };

  // A read waiting for room for a new descriptor, in arrival order in room_queue_.
  struct RoomWaiter {};

  // Registers / unregisters a pooled file of `id` at `path`; returns its slot.
  Slot* Hold(uint64_t id, const std::string& path) ABSL_LOCKS_EXCLUDED(mu_);
  void Unhold(Slot* slot) ABSL_LOCKS_EXCLUDED(mu_);
  // The descriptor of `slot`, for one read: in use (users counted) until Release(slot). Opens
  // it (closing idle ones, waiting, as above) if needed.
  Status Acquire(Slot* slot) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the read that Acquire began.
  void Release(Slot* slot) ABSL_LOCKS_EXCLUDED(mu_);
  // Opens `slot`'s descriptor with mu_ released (slot->opening set meanwhile, counted in
  // opening_); on success the descriptor is open and in lru_. Returns with mu_ held again.
  Status OpenUnlocked(Slot* slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the process can open `n` more descriptors now: opens `path` n times with mu_
  // released and closes them at once (probing_ set meanwhile). A failure counts as a limit
  // hit (last_limit_hit_). Returns with mu_ held again.
  bool ProbeRoomLocked(const std::string& path, size_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes the slot's descriptor out of lru_; returns it, to be closed after mu_ is released.
  std::unique_ptr<RandomAccessFile> TakeFileLocked(Slot* slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Frees the slot if nothing refers to it any more (no holders, no open, no descriptor).
  void MaybeFreeLocked(Slot* slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The least recently used idle, unpinned slot, or null.
  Slot* IdleVictimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The least recently used unpinned slot whose descriptor is in a read, or null.
  Slot* BusyVictimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Descriptors counted against capacity_: open, being opened, being closed.
  size_t OccupancyLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return open_ + opening_ + closing_;
  }
  // Closes `files` (taken out by TakeFileLocked) with mu_ released, counting them in closing_
  // meanwhile so that no new descriptor takes their place before they are closed. Returns
  // with mu_ held again; wakes waiters.
  void CloseUnlocked(std::vector<std::unique_ptr<RandomAccessFile>>* files)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  FileSystem* const fs_;
  const size_t configured_capacity_;

  // Guards the fields below. Never held while a file is opened, read or closed.
  mutable Mutex mu_;
  // Signalled when a descriptor is handed back, closed, or an open ends, while waiters_ > 0.
  CondVar cv_;
  int waiters_ ABSL_GUARDED_BY(mu_) = 0;
  // Every live slot (owned here). A slot is freed once it has no holders and no descriptor.
  absl::flat_hash_map<Slot*, std::unique_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
  // The current slot of each id (not retired). Invariant: by_id_[id]->id == id.
  absl::flat_hash_map<uint64_t, Slot*> by_id_ ABSL_GUARDED_BY(mu_);
  // Slots with an open descriptor, most recently used first.
  std::list<Slot*> lru_ ABSL_GUARDED_BY(mu_);
  // Reads waiting for room, first come first; only the front may take room while it is
  // non-empty (newcomers queue behind).
  std::list<RoomWaiter*> room_queue_ ABSL_GUARDED_BY(mu_);
  // The slot whose descriptor is drained for the first read waiting for room (see above), or
  // null. Invariant: when set, its descriptor is open, in a read and not pinned; cleared when
  // its last read ends (Release), when it is closed, and at Shutdown.
  Slot* draining_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Invariant: 1 <= capacity_ <= ceiling_ <= configured_capacity_; and OccupancyLocked() <=
  // capacity_ whenever mu_ is released, except right after capacity_ was lowered, until the
  // in-use descriptors over it are handed back (Release then closes them), and after Shutdown.
  size_t capacity_ ABSL_GUARDED_BY(mu_);
  // The most the capacity grows back to: the level of the last cut, raised one step at a time
  // (up to the configured capacity) once the limit has not been hit for headroom_hold_ and a
  // probe finds the step and the reserve free (OpenUnlocked).
  size_t ceiling_ ABSL_GUARDED_BY(mu_);
  bool probing_ ABSL_GUARDED_BY(mu_) = false;  // a ProbeRoomLocked is under way
  // When an open last failed with "Too many open files".
  std::chrono::steady_clock::time_point last_limit_hit_ ABSL_GUARDED_BY(mu_){};
  std::chrono::milliseconds headroom_hold_ ABSL_GUARDED_BY(mu_){kDefaultHeadroomHold};
  size_t open_ ABSL_GUARDED_BY(mu_) = 0;     // slots with `file` open (== lru_.size())
  size_t opening_ ABSL_GUARDED_BY(mu_) = 0;  // opens under way
  size_t closing_ ABSL_GUARDED_BY(mu_) = 0;  // descriptors being closed (still open)
  // Capacity cuts so far: an open that fails cuts only if none was made since it began.
  uint64_t cuts_ ABSL_GUARDED_BY(mu_) = 0;
  // Successful opens since the last cut or growth (counts only while capacity_ is lowered).
  uint64_t opens_since_change_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  bool waits_cancelled_ ABSL_GUARDED_BY(mu_) = false;  // CancelWaits() was called
  size_t peak_open_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t too_many_open_files_hits_ ABSL_GUARDED_BY(mu_) = 0;
  std::chrono::milliseconds max_descriptor_wait_ ABSL_GUARDED_BY(mu_){3000};
};

}  // namespace shale

#endif  // SHALE_CACHE_TABLE_FILE_POOL_H_
