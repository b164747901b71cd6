// RangeTombstones: a set of range deletions ([start, end) at a sequence number), fragmented
// so that "which is the newest range deletion visible at snapshot S that covers user key K"
// is one binary search.
//
// Fragmenting: the start and end keys of all tombstones cut the key space into consecutive,
// non-overlapping fragments; each fragment keeps the sequence numbers of every tombstone that
// covers it, newest first. A point entry (K, seq) read at snapshot S is deleted when
// MaxCoveringSequence(K, S) > seq.
//
// Build it with Add() for every tombstone, then Finish(); after Finish it is immutable.
// Thread-safety: Add/Finish from one thread; after Finish any number of threads may read.
#ifndef SHALE_BASE_RANGE_TOMBSTONES_H_
#define SHALE_BASE_RANGE_TOMBSTONES_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "shale/comparator.h"
#include "shale/status.h"

namespace shale {

class RangeTombstones {
 public:
  // `ucmp` (the user comparator) must outlive this object.
  explicit RangeTombstones(const Comparator* ucmp) : ucmp_(ucmp) {}

  // Adds the deletion of [start, end) at `sequence`. An empty range (end <= start) is
  // ignored. REQUIRES: not finished.
  void Add(std::string_view start, std::string_view end, SequenceNumber sequence);
  // Adds every tombstone of `iter`, whose key() is the internal key (start user key, sequence,
  // kTypeRangeDeletion) and value() the end user key (memtables and tables use this layout).
  // Returns the iterator's status, or Corruption for a key that does not parse.
  [[nodiscard]] Status AddAll(InternalIterator* iter);
  // Fragments what was added. REQUIRES: called once.
  void Finish();

  // The largest sequence <= snapshot among the tombstones covering `user_key`; 0 when none
  // does (sequence 0 cannot hide anything). REQUIRES: finished.
  SequenceNumber MaxCoveringSequence(std::string_view user_key, SequenceNumber snapshot) const;

  // Calls fn(start, end, sequences) for each fragment overlapping [lo, hi) (a missing bound is
  // open), in key order, clipped to [lo, hi); `sequences` are newest first. REQUIRES: finished.
  void ForEachFragment(
      std::optional<std::string_view> lo, std::optional<std::string_view> hi,
      const std::function<void(std::string_view, std::string_view,
                               const std::vector<SequenceNumber>&)>& fn) const;

  bool empty() const { return fragments_.empty(); }
  size_t num_tombstones() const { return tombstones_.size(); }

 private:
  struct Tombstone {
    std::string start;
    std::string end;
    SequenceNumber sequence;
  };
  // [start, end) is covered by tombstones with these sequences (descending).
  struct Fragment {
    std::string start;
    std::string end;
    std::vector<SequenceNumber> sequences;
  };

  const Comparator* const ucmp_;
  std::vector<Tombstone> tombstones_;  // cleared by Finish
  std::vector<Fragment> fragments_;    // sorted by start; non-overlapping
  bool finished_ = false;
};

}  // namespace shale

#endif  // SHALE_BASE_RANGE_TOMBSTONES_H_
