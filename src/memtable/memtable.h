// MemTable: the in-memory, sorted buffer that takes every write before it is flushed to an SST.
//
// Entries are internal keys (user key + sequence + type, src/base/internal_key.h) with their
// values, ordered by an InternalKeyComparator: user key ascending, newest first. Each entry is
// one arena allocation laid out as
//   varint32 internal_key_size | internal key | varint32 value_size | value
// Point entries (value, deletion, single deletion, merge) live in one skiplist; range deletions
// (key = start user key, value = end user key, deleting [start, end) for older sequences) live in
// a second one, read through NewRangeTombstoneIterator(). Nothing is ever removed: an
// overwrite or a deletion is a new, newer entry.
//
// Lifetime: a MemTable is reference-counted because the DB, its iterators and background
// flushes share it.
//  - It starts with no reference; its creator calls Ref() before handing it out.
//  - Each holder calls Ref() when it starts to hold it and Unref() exactly once when done.
//  - The last Unref() deletes it, which frees its arena and purges the allocator (a few
//    milliseconds for a large memtable): avoid doing that while holding the DB mutex.
//  - Iterators and views returned by Get() or iterators borrow from the memtable: hold a
//    reference for as long as they are used.
//
// Thread-safety: Add() needs external synchronisation (one writer at a time). Get(), the
// iterators and every const accessor may run on any thread concurrently with the writer and
// with each other (readers take no lock; see skiplist.h). Ref()/Unref() may be called from any
// thread.
#ifndef SHALE_MEMTABLE_MEMTABLE_H_
#define SHALE_MEMTABLE_MEMTABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "memtable/arena.h"
#include "memtable/skiplist.h"
#include "merge/get_context.h"

namespace shale {

class MemTable {
 public:
  struct Options {
    // Size of the arena blocks the entries are packed into. Default: 1 MiB.
    size_t arena_block_size = Arena::kDefaultBlockSize;
    // Where the blocks come from. Default: MemtableAllocator::Get().
    MemtableAllocator* allocator = nullptr;
    // A lower bound on the sequence numbers this memtable will hold, known when it is created
    // (the DB's last sequence then); kMaxSequenceNumber when unknown, and then the first Add()
    // sets it.
    SequenceNumber earliest_sequence = kMaxSequenceNumber;
    // Keep, per key, the number of merge operands on top of its history, so that
    // CountSuccessiveMerges is O(1) (for max_successive_merges). Costs a hash-map entry per
    // merged key, counted in ApproximateMemoryUsage(). Default: false.
    bool track_successive_merges = false;
  };

  // `comparator` must outlive the memtable.
  explicit MemTable(const InternalKeyComparator& comparator, const Options& options);
  explicit MemTable(const InternalKeyComparator& comparator)
      : MemTable(comparator, Options()) {}

  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops a reference; deletes the memtable when it was the last one.
  void Unref();

  // Counts this memtable's bytes in *counter from now until it is deleted: the DB calls it
  // when it stops listing the memtable (flushed) while readers may still pin it. The
  // memtable shares the counter, so it may outlive its owner (a dropped column family's set).
  // REQUIRES: no more Add() (the memtable is immutable, so its size is final); called once.
  void CountUntilDeleted(std::shared_ptr<std::atomic<uint64_t>> counter) {
    counter->fetch_add(ApproximateMemoryUsage(), std::memory_order_relaxed);
    retired_counter_ = std::move(counter);
  }

  // Adds an entry. For kTypeRangeDeletion, `user_key` is the start and `value` the (exclusive)
  // end of the deleted range. REQUIRES: external synchronisation with other Add() calls; no
  // entry with the same user key, sequence and type was added before; sequence <=
  // kMaxSequenceNumber; key and value sizes below 4 GiB.
  void Add(SequenceNumber sequence, ValueType type, std::string_view user_key,
           std::string_view value);

  // Looks up the newest entry of key.user_key() with sequence <= the key's sequence (the
  // snapshot), taking range deletions into account. Returns false when the memtable knows
  // nothing about the key at that snapshot (the search goes on in older data). Returns true
  // when it decides the outcome, with *seq set to the deciding entry's sequence and:
  //  - a value: *value = the value, *s = OK;
  //  - a deletion or single deletion, or a range deletion newer than the newest entry:
  //    *s = NotFound;
  //  - a merge operand: *value = the operand, *s = MergeInProgress (the operand alone; reads
  //    that apply merges use the GetContext overload).
  // *value is left untouched unless a value or operand is returned.
  bool Get(const LookupKey& key, std::string* value, Status* s, SequenceNumber* seq) const;

  // Feeds *context the entries of key.user_key() visible at the key's sequence (the snapshot),
  // newest first, until it needs no more; a range deletion that hides the rest is fed as one
  // kTypeRangeDeletion entry. Returns context->done(): true when this memtable decided the
  // lookup, false when older sources must be searched (nothing found, or merge operands only).
  bool Get(const LookupKey& key, GetContext* context) const;

  // The number of merge operands at the top of user_key's history (newest entries first, up to
  // the first entry of another type), counted up to `limit`: what max_successive_merges
  // bounds. O(1) with Options::track_successive_merges (a range deletion then restarts every
  // count at 0, which only delays the bound), else a walk of at most `limit` entries.
  // REQUIRES: the caller is the memtable's writer (external synchronisation with Add()).
  size_t CountSuccessiveMerges(std::string_view user_key, size_t limit) const;

  // Iterates over the point entries (no range deletions): key() is the internal key, value()
  // the value. Supports every InternalIterator operation; status() is always OK.
  std::unique_ptr<InternalIterator> NewIterator() const;
  // Iterates over the range deletions: key() is the internal key of the start user key,
  // value() the end user key. Empty (never nullptr) when there are none.
  std::unique_ptr<InternalIterator> NewRangeTombstoneIterator() const;

  // Bytes of arena blocks held, plus the successive-merge counts when tracked: what this
  // memtable costs. Readable from any thread.
  size_t ApproximateMemoryUsage() const {
    return arena_.MemoryUsage() + tracking_bytes_.load(std::memory_order_relaxed);
  }
  // Entries added, range deletions included.
  uint64_t num_entries() const { return num_entries_.load(std::memory_order_relaxed); }
  // Deletions and single deletions added.
  uint64_t num_deletes() const { return num_deletes_.load(std::memory_order_relaxed); }
  // Range deletions added.
  uint64_t num_range_deletes() const {
    return num_range_deletes_.load(std::memory_order_relaxed);
  }
  // Sequence of the first entry added, 0 while empty.
  SequenceNumber first_sequence() const {
    return first_sequence_.load(std::memory_order_relaxed);
  }
  // See Options::earliest_sequence.
  SequenceNumber earliest_sequence() const {
    return earliest_sequence_.load(std::memory_order_relaxed);
  }
  // True while every point entry arrived in ascending internal-key order (so the memtable is
  // one sorted run appended in order; true when empty). Range deletions do not affect it: a
  // flush that places such a memtable must still check range deletions for overlaps.
  bool IsSortedInsertOnly() const { return table_.AppendOnly(); }

  const InternalKeyComparator& comparator() const { return comparator_.comparator; }

 private:
  // Orders entries (pointers to the encoded layout above) by their internal keys.
  struct KeyComparator {
    const InternalKeyComparator& comparator;
    // The user comparator is BytewiseComparator(): compare inline, without virtual calls
    // (the skiplist compares ~20 times per insert).
    bool bytewise = false;
    int operator()(const char* a, const char* b) const;
  };
  using Table = SkipList<const char*, KeyComparator>;
  class Iterator;

  ~MemTable();  // only through Unref()

  // Calls visit(type, sequence, value) on the entries of key.user_key() visible at the key's
  // sequence, newest first, while it returns true; entries hidden by a range deletion are
  // replaced by one call (kTypeRangeDeletion, the deletion's sequence, "").
  template <typename Visit>
  void VisitEntries(const LookupKey& key, Visit&& visit) const;

  // Updates successive_merges_ for an entry added.
  void TrackSuccessiveMerges(ValueType type, std::string_view user_key);

  // The newest range deletion that covers `user_key` with sequence <= snapshot, or 0.
  SequenceNumber MaxCoveringTombstone(std::string_view user_key, SequenceNumber snapshot) const;

  KeyComparator comparator_;
  std::atomic<int> refs_{0};
  std::shared_ptr<std::atomic<uint64_t>> retired_counter_;  // see CountUntilDeleted
  // Declared before the tables: it must outlive them (members are destroyed in reverse order).
  Arena arena_;
  Table table_;             // point entries
  Table range_del_table_;   // range deletions

  std::atomic<uint64_t> num_entries_{0};
  std::atomic<uint64_t> num_deletes_{0};
  std::atomic<uint64_t> num_range_deletes_{0};
  std::atomic<SequenceNumber> first_sequence_{0};
  std::atomic<SequenceNumber> earliest_sequence_;

  // Options::track_successive_merges: key -> merge operands on top of its history. Touched
  // only by the writer (Add, CountSuccessiveMerges); its estimated size in tracking_bytes_.
  const bool track_successive_merges_;
  absl::flat_hash_map<std::string, uint32_t> successive_merges_;
  std::atomic<size_t> tracking_bytes_{0};
};

}  // namespace shale

#endif  // SHALE_MEMTABLE_MEMTABLE_H_
