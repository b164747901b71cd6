// CompactionIterator: walks sorted internal entries (a memtable being flushed, or the merged
// inputs of a compaction) and yields the ones that must be kept, dropping versions no reader
// can ever see.
//
// Visibility rule: readers read at the latest sequence or at a live snapshot. Split the
// versions of one user key into "stripes" by the snapshots: entries with sequence in
// (s_{i-1}, s_i] share stripe i, entries newer than every snapshot share the last stripe.
// Within a stripe only the newest entry is visible to anyone, so the older entries of the same
// stripe are dropped. An entry covered by a range deletion of its own stripe (a newer tombstone
// that every reader of the entry also sees) is dropped too.
//
// Deletions are kept (they may hide older entries in lower levels), except at the bottommost
// level (nothing older exists outside the input): a deletion in the oldest stripe (no snapshot
// is older than it) is dropped together with everything it hides.
//
// Range deletions themselves are not output here: the caller writes them (see
// compaction_job.cc).
//
// Thread-safety: none; one thread uses an iterator. It borrows `input`.
#ifndef SHALE_COMPACTION_COMPACTION_ITERATOR_H_
#define SHALE_COMPACTION_COMPACTION_ITERATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "shale/comparator.h"
#include "shale/status.h"

namespace shale {

class CompactionIterator {
 public:
  // `snapshots`: the live snapshot sequences, ascending. The input must be positioned by the
  // caller (SeekToFirst) and is advanced forward only.
  // `range_deletions` (may be null) are the input's tombstones, finished. `bottommost`: see
  // the header comment.
  CompactionIterator(InternalIterator* input, const Comparator* ucmp,
                     std::vector<SequenceNumber> snapshots,
                     const RangeTombstones* range_deletions = nullptr, bool bottommost = false);

  // Moves to the first kept entry at or after the input's position.
  void SeekToFirst();
  bool Valid() const { return valid_; }
  void Next();
  std::string_view key() const { return input_->key(); }
  std::string_view value() const { return input_->value(); }
  // The input's status, or Corruption for an entry whose key does not parse.
  Status status() const;

  // Entries dropped so far.
  uint64_t num_dropped() const { return num_dropped_; }

 private:
  // The stripe of `sequence`: the smallest snapshot >= sequence, or kMaxSequenceNumber.
  SequenceNumber StripeOf(SequenceNumber sequence) const;
  // Skips dropped entries until a kept one (or the end).
  void FindNextKept();

  InternalIterator* const input_;
  const Comparator* const ucmp_;
  const std::vector<SequenceNumber> snapshots_;
  const RangeTombstones* const range_deletions_;
  const bool bottommost_;
  // The stripe of the oldest snapshot (kMaxSequenceNumber without snapshots).
  const SequenceNumber first_stripe_;

  bool valid_ = false;
  Status corruption_;
  bool has_current_key_ = false;
  std::string current_user_key_;
  // The stripe of the last kept entry of current_user_key_.
  SequenceNumber last_stripe_ = 0;
  uint64_t num_dropped_ = 0;
};

}  // namespace shale

#endif  // SHALE_COMPACTION_COMPACTION_ITERATOR_H_
