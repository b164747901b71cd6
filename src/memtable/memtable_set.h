// MemTableSet: the lifecycle of one tree's memtables. It holds the active (mutable) memtable,
// the immutable memtables waiting to be flushed (newest first) and the numbers of their WALs,
// and it does the three things that change them: the switch (the active memtable is retired to
// the immutable list and a new one, with a new WAL, takes its place), the removal of a flushed
// memtable (oldest first), and the accounting that write_buffer_size, db_write_buffer_size and
// max_write_buffer_number stall writers on. The DB holds one; each column family will hold its
// own (the WAL writer itself, shared by all of them, stays with the DB: the set only records
// which WAL number each memtable's writes went to, and does no I/O).
//
// Why here (src/memtable) and not in src/db: the set needs nothing above MemTable. The WALs
// are only numbers to it, so it does not depend on the wal module; opening, syncing and closing
// WAL files, and choosing when to switch, stay with the DB.
//
// WAL numbers: log_number() is the WAL that the active memtable's writes go to. Each immutable
// memtable records next_log_number, the WAL started when it was retired: its own writes are all
// in WALs below that number, so once it is flushed (and the MANIFEST says so) those WALs are
// obsolete. Flushes go oldest first, so the memtables retired before a given WAL was started
// are exactly those with next_log_number <= that number (HasImmutableUpTo). With one set per
// DB, log_number() is also the WAL being written, and DBImpl reads it as such (Flush, Resume,
// ingestion and checkpoints wait for or copy "the current WAL"). With column families several
// sets share one WAL and a set's log_number() is where its active memtable started: the DB's
// current WAL number then moves beside the WAL writer, and those readers take it from there.
//
// Ownership: the set holds one reference to each memtable it lists (given with Init/Switch,
// handed back by RemoveOldest/ReleaseAll, to be dropped with MemTable::Unref outside the DB
// mutex: the last Unref frees the arena).
//
// Thread-safety: not synchronised itself. Its owner guards it with one mutex (DBImpl: the DB
// mutex, mems_ is ABSL_GUARDED_BY(mu_)); every method needs that mutex held, except
// FlushedBytesPinned(), which reads an atomic. The active memtable's *contents* are written by
// the DB's write leader without the mutex (MemTable allows one writer and concurrent readers);
// the set's own fields change only under the mutex, and only the write queue's front switches.
//
// Invariants (kept by every method): mem() is null only before Init and after ReleaseAll;
// immutables() is ordered newest first, so its next_log_numbers decrease from front to back and
// all are <= log_number(); retired_count() - flushed_count() == immutables().size() (until
// ReleaseAll, which empties the set and keeps the counters).
#ifndef SHALE_MEMTABLE_MEMTABLE_SET_H_
#define SHALE_MEMTABLE_MEMTABLE_SET_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "memtable/memtable.h"

namespace shale {

class MemTableSet {
 public:
  // An immutable memtable waiting to be flushed.
  struct Immutable {
    MemTable* mem = nullptr;          // referenced by the set
    uint64_t next_log_number = 0;     // the WAL started when it was retired: once it is
                                      // flushed, WALs below this number are obsolete
    bool has_unlogged_writes = false;  // holds writes that no WAL holds (disableWAL, or a
                                       // WAL that failed): only a flush saves them
  };

  // What a write must wait for or do before it adds to the active memtable (RoomForWrite).
  enum class Room {
    kReady,         // go ahead (for a forced switch: nothing to retire, the memtable is empty)
    kWaitForFlush,  // over the DB's budget with a flush under way: wait for it to free memory
    kSwitch,        // retire the active memtable (once the immutable list has room: CanSwitch)
  };

  MemTableSet() = default;
  // Drops the references still held (ReleaseAll normally took them; this is for an Open that
  // failed half-way).
  ~MemTableSet();
  MemTableSet(const MemTableSet&) = delete;
  MemTableSet& operator=(const MemTableSet&) = delete;

  // ---- Opening. Sets the WAL the first active memtable's writes go to. REQUIRES: before Init.
  void SetLogNumber(uint64_t log_number) { log_number_ = log_number; }
  // Takes `mem` (with the reference its creator took) as the first active memtable.
  // REQUIRES: no active memtable yet (before Init, or after ReleaseAll).
  void Init(MemTable* mem);

  // ---- The active memtable and its WAL.
  MemTable* mem() const { return mem_; }
  uint64_t log_number() const { return log_number_; }
  // Records that the active memtable received (or is about to receive) a write its WAL does
  // not hold (WriteOptions::disableWAL): it is then flushed at Close, and a checkpoint flushes
  // it first.
  void MarkUnloggedWrite() { mem_has_unlogged_writes_ = true; }

  // ---- The switch. Retires the active memtable to the front of the immutable list (with
  // next_log_number = new_log_number) and makes `fresh` (with its creator's reference) the
  // active memtable, writing to WAL new_log_number. REQUIRES: the caller started that WAL and
  // is the only writer of the active memtable (the DB's write queue front); new_log_number >
  // log_number().
  void Switch(MemTable* fresh, uint64_t new_log_number);

  // ---- Flushing, oldest first.
  const std::deque<Immutable>& immutables() const { return imm_; }  // newest first
  size_t NumImmutable() const { return imm_.size(); }
  // The next memtable to flush. REQUIRES: NumImmutable() > 0.
  const Immutable& Oldest() const { return imm_.back(); }
  // Removes the oldest immutable memtable, now flushed, and returns the set's reference to it
  // (for the caller to Unref outside the DB mutex). Until it is deleted its bytes count in
  // FlushedBytesPinned() (readers may still hold it). REQUIRES: `flushed` is Oldest().mem.
  MemTable* RemoveOldest(MemTable* flushed);
  // True while a memtable retired before WAL `log_number` was started (next_log_number <=
  // log_number) is not flushed yet. With log_number() as the argument: while any memtable
  // retired so far is not flushed.
  bool HasImmutableUpTo(uint64_t log_number) const;
  // Memtables retired (Switch) and flushed (RemoveOldest) since the set began. Flushes go
  // oldest first, so the memtable retired as the n-th is flushed once flushed_count() >= n:
  // the active memtable will be flushed when flushed_count() > retired_count() as of now.
  uint64_t retired_count() const { return retired_; }
  uint64_t flushed_count() const { return flushed_; }
  // True when a memtable holds writes that no usable WAL holds (see MarkUnloggedWrite and
  // Immutable::has_unlogged_writes).
  bool HasUnloggedWrites() const;

  // ---- Accounting.
  // Bytes held by the active and the immutable memtables (shale.cur-size-all-mem-tables,
  // checked against db_write_buffer_size).
  size_t MemoryUsage() const;
  // Bytes of flushed memtables that readers (iterators, Gets in flight) still hold. Readable
  // without the mutex.
  uint64_t FlushedBytesPinned() const { return flushed_bytes_->load(std::memory_order_relaxed); }
  // What a write must do before it adds to the active memtable, given the per-memtable limit
  // (Options::write_buffer_size) and whether the DB is over its total budget
  // (db_write_buffer_size, computed by the caller: the budget spans every set of the DB).
  // `force`: a switch is asked for (Flush) unless the active memtable is empty. An empty active
  // memtable is never full, whatever its first arena block costs; over the budget, nothing
  // waits for memory that no flush can free (kReady when the immutable list is empty).
  Room RoomForWrite(size_t write_buffer_size, bool over_db_budget, bool force) const;
  // False while max_write_buffer_number memtables exist (the active one included): a switch
  // must wait for the oldest to be flushed.
  bool CanSwitch(int max_write_buffer_number) const {
    return static_cast<int>(imm_.size()) < max_write_buffer_number - 1;
  }

  // ---- Readers and Close.
  // References the active memtable into *mem and each immutable one, newest first, into *imm
  // (for a SuperVersion; the caller drops them with Unref). REQUIRES: an active memtable.
  void RefAll(MemTable** mem, std::vector<MemTable*>* imm) const;
  // Empties the set (Close): appends the set's references to every memtable it lists to
  // *refs, for the caller to Unref outside the DB mutex. The counters stay.
  void ReleaseAll(std::vector<MemTable*>* refs);

 private:
  MemTable* mem_ = nullptr;
  bool mem_has_unlogged_writes_ = false;
  uint64_t log_number_ = 0;
  std::deque<Immutable> imm_;  // newest first
  uint64_t retired_ = 0;
  uint64_t flushed_ = 0;
  // Bytes of flushed memtables not yet deleted (MemTable::CountUntilDeleted). Shared with the
  // memtables it counts, which may outlive the set (readers and a flush still holding a
  // memtable of a dropped column family whose set is gone).
  const std::shared_ptr<std::atomic<uint64_t>> flushed_bytes_ =
      std::make_shared<std::atomic<uint64_t>>(0);
};

}  // namespace shale

#endif  // SHALE_MEMTABLE_MEMTABLE_SET_H_
