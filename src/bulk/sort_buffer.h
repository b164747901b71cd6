// SortBuffer: one run's worth of key-value pairs, appended in any order into one block of
// memory and then sorted by key, the bulk loader's unit of sorting and spilling.
//
// Layout of the block (capacity bytes, mapped once; the OS commits pages as they are touched,
// as transparent huge pages where it can: sorting and spilling touch the records in key order,
// that is at random, and with 4 KiB pages nearly every record would cost a TLB miss):
//
//   [ records, appended front to back ... | free ... | ... index entries, back to front ]
//
// A record is record.h's encoding; an index entry (SortEntry) is the key's 8-byte prefix and a
// pointer to its record. Add refuses an entry unless the free gap stays at least as large as
// the index, because Sort uses the gap as the scratch array of its radix sort: the block is
// all the memory a buffer ever takes.
//
// Order: Sort orders the entries by key and, among equal keys, by insertion (a stable sort):
// the last entry added for a key comes last in its group, and that one wins (SortedCursor
// returns it alone). Under the bytewise comparator the sort is an LSD radix sort on the prefix
// (skipping the bytes every prefix shares), then a stable comparison sort of each group of
// equal prefixes whose keys differ; under any other comparator, std::stable_sort.
//
// Invariants:
//  1. record_end_ <= index_begin(); entries_ * sizeof(SortEntry) == capacity_ - index offset.
//  2. Free gap >= entries_ * sizeof(SortEntry) + alignment (Add's admission rule).
//  3. sorted_ is null until Sort(); after it, sorted_[0..entries_) is the ordered index.
//
// Thread-safety: none; one thread at a time (the loader hands a full buffer to its spill
// thread and does not touch it until that thread is done).
#ifndef SHALE_BULK_SORT_BUFFER_H_
#define SHALE_BULK_SORT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "bulk/record.h"
#include "shale/comparator.h"

namespace shale::bulk {

// Whether `comparator` is the bytewise order (by identity or by name).
bool IsBytewiseComparator(const Comparator* comparator);

// An anonymous memory mapping of at least `size` bytes, aligned to 2 MiB and advised to be
// backed by transparent huge pages. Falls back to operator new where mmap fails.
class BufferBlock {
 public:
  explicit BufferBlock(size_t size);
  ~BufferBlock();
  BufferBlock(const BufferBlock&) = delete;
  BufferBlock& operator=(const BufferBlock&) = delete;

  char* get() const { return data_; }

 private:
  void* mapping_ = nullptr;  // null when data_ came from operator new
  size_t mapped_ = 0;
  char* data_ = nullptr;
};

struct SortEntry {
  uint64_t prefix;     // KeyPrefix of the key
  const char* record;  // the record in the buffer's block
};

class SortBuffer {
 public:
  // `capacity`: the bytes of the block (rounded down to a multiple of 16). `comparator`
  // orders the keys; it must outlive the buffer.
  SortBuffer(size_t capacity, const Comparator* comparator);

  SortBuffer(const SortBuffer&) = delete;
  SortBuffer& operator=(const SortBuffer&) = delete;

  // The bytes an entry takes from the capacity: its record and two index slots.
  static size_t Charge(size_t key_size, size_t value_size) {
    return RecordSize(key_size, value_size) + 2 * sizeof(SortEntry);
  }

  // Appends a copy of the pair; false (and nothing appended) when it does not fit.
  // REQUIRES: not sorted; key and value sizes < 2^32.
  bool Add(std::string_view key, std::string_view value) {
    const size_t need = RecordSize(key.size(), value.size());
    // Room for the record, one more index slot and the whole scratch array (invariant 2).
    const size_t after = entries_ + 1;
    if (record_end_ + need + 2 * after * sizeof(SortEntry) + kAlign > capacity_) return false;
    char* record = block_.get() + record_end_;
    EncodeRecord(record, key, value);
    record_end_ += need;
    SortEntry* slot = IndexBegin() - 1;
    slot->prefix = KeyPrefix(key);
    slot->record = record;
    entries_ = after;
    return true;
  }

  // Orders the index (see the header comment). Idempotent.
  void Sort();

  // Empties the buffer for reuse; keeps the block.
  void Clear();

  size_t num_entries() const { return entries_; }
  bool empty() const { return entries_ == 0; }
  // Bytes of records held (what spilling every entry would write).
  size_t record_bytes() const { return record_end_; }
  size_t capacity() const { return capacity_; }
  bool sorted() const { return sorted_ != nullptr; }
  const Comparator* comparator() const { return comparator_; }
  // Whether the comparator is the bytewise one (prefixes then decide most comparisons).
  bool bytewise() const { return bytewise_; }

  // The ordered index. REQUIRES: sorted().
  const SortEntry* begin() const { return sorted_; }
  const SortEntry* end() const { return sorted_ + entries_; }

 private:
  static constexpr size_t kAlign = alignof(SortEntry);

  // The index as appended: newest entry first.
  SortEntry* IndexBegin() {
    return reinterpret_cast<SortEntry*>(block_.get() + capacity_) - entries_;
  }
  SortEntry* Scratch();
  void RadixSort();
  void FixPrefixTies();
  void ComparatorSort();

  const Comparator* const comparator_;
  const bool bytewise_;
  const size_t capacity_;
  BufferBlock block_;
  size_t record_end_ = 0;  // bytes of records at the front
  size_t entries_ = 0;
  SortEntry* sorted_ = nullptr;
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_SORT_BUFFER_H_
