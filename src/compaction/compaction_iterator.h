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
// Merges: a kept merge operand starts a merge of the key's operands in its stripe (operands
// never cross a snapshot, so each snapshot still reads its own result). Collecting stops at
//  - a value or a deletion (or an entry covered by a range deletion) of the same stripe: the
//    operands are full-merged onto it (onto nothing for a deletion) and one value, at the
//    newest operand's sequence, replaces them all;
//  - the end of the key at the bottommost level (nothing older exists): full merge onto
//    nothing;
//  - otherwise (the stripe ends, or older entries may exist below): the operands are
//    partial-merged into one operand if the operator can, else kept as they are.
// A merge whose result would be larger than max_merged_value_size (a table cannot hold it) is
// not done: the operands are kept as they are, with the value or deletion under them.
// A failing full merge, or an operand met without a merge operator, stops the iterator with
// that error (the caller abandons its output; nothing is lost).
//
// Compaction filter (compactions only; flushes pass none): the newest entry of each user key,
// when it is a value (kTypeValue) that the rules above keep, is given to the filter once.
// Invariant: the filter sees at most one entry per user key, the first one FindNextKept keeps
// for that key, and never a deletion, a merge operand or a merge result (RocksDB's rule). A
// removal replaces the entry with a deletion at the same sequence number, which then follows
// the deletion rules (the stripe rule drops the older versions of its stripe; at the
// bottommost level, in the oldest stripe, the deletion goes too); a changed value replaces the
// value at the same sequence. Snapshots do not stop the filter (RocksDB since 6.0).
//
// Range deletions themselves are not output here: the caller writes them (see
// compaction_job.cc).
//
// Thread-safety: none; one thread uses an iterator. It borrows `input`.
#ifndef SHALE_COMPACTION_COMPACTION_ITERATOR_H_
#define SHALE_COMPACTION_COMPACTION_ITERATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "shale/comparator.h"
#include "shale/compaction_filter.h"
#include "shale/limits.h"
#include "shale/merge_operator.h"
#include "shale/status.h"

namespace shale {

class CompactionIterator {
 public:
  // `snapshots`: the live snapshot sequences, ascending. The input must be positioned by the
  // caller (SeekToFirst) and is advanced forward only.
  // `range_deletions` (may be null) are the input's tombstones, finished. `bottommost`: see
  // the header comment.
  // `merge_operator` (may be null) combines merge operands. `max_merged_value_size`: the
  // largest value a merge may produce (see "Merges" above; the engine's kMaxValueSize, smaller
  // in tests).
  // `filter` (may be null) is the compaction filter, called with `filter_level`; it must
  // outlive the iterator.
  CompactionIterator(InternalIterator* input, const Comparator* ucmp,
                     std::vector<SequenceNumber> snapshots,
                     const RangeTombstones* range_deletions = nullptr, bool bottommost = false,
                     const MergeOperator* merge_operator = nullptr,
                     size_t max_merged_value_size = kMaxValueSize,
                     const CompactionFilter* filter = nullptr, int filter_level = 0);

  // Moves to the first kept entry at or after the input's position.
  void SeekToFirst();
  bool Valid() const { return valid_; }
  void Next();
  std::string_view key() const {
    if (filtered_) return filtered_key_;
    return merge_pos_ < merge_out_.size() ? std::string_view(merge_out_[merge_pos_].first)
                                          : input_->key();
  }
  std::string_view value() const {
    if (filtered_) return filtered_value_;
    return merge_pos_ < merge_out_.size() ? std::string_view(merge_out_[merge_pos_].second)
                                          : input_->value();
  }
  // The input's status, Corruption for an entry whose key does not parse, or the error of a
  // merge.
  Status status() const;

  // Entries dropped so far.
  uint64_t num_dropped() const { return num_dropped_; }
  // Values the compaction filter removed (turned into deletions) and changed so far.
  uint64_t num_filter_removed() const { return num_filter_removed_; }
  uint64_t num_filter_changed() const { return num_filter_changed_; }

 private:
  // The stripe of `sequence`: the smallest snapshot >= sequence, or kMaxSequenceNumber.
  SequenceNumber StripeOf(SequenceNumber sequence) const;
  // Skips dropped entries until a kept one (or the end).
  void FindNextKept();
  // On a kept merge operand `first` of `stripe`: consumes the key's operands of that stripe
  // and fills merge_out_ with what replaces them (see the header comment). Leaves the input at
  // the first entry not consumed. False (with corruption_ set) on error.
  bool MergeOperands(const ParsedInternalKey& first, SequenceNumber stripe);
  // True when a range deletion of `stripe` hides `k`.
  bool CoveredInStripe(const ParsedInternalKey& k, SequenceNumber stripe) const {
    return range_deletions_ != nullptr &&
           range_deletions_->MaxCoveringSequence(k.user_key, stripe) > k.sequence;
  }

  InternalIterator* const input_;
  const Comparator* const ucmp_;
  const std::vector<SequenceNumber> snapshots_;
  const RangeTombstones* const range_deletions_;
  const bool bottommost_;
  const MergeOperator* const merge_operator_;
  const size_t max_merged_value_size_;
  const CompactionFilter* const filter_;
  const int filter_level_;
  // The stripe of the oldest snapshot (kMaxSequenceNumber without snapshots).
  const SequenceNumber first_stripe_;

  bool valid_ = false;
  Status corruption_;
  bool has_current_key_ = false;
  std::string current_user_key_;
  // The stripe of the last kept entry of current_user_key_.
  SequenceNumber last_stripe_ = 0;
  // Set when a merge was not done (its result would be over max_merged_value_size_): the next
  // entry, the value or deletion under the kept operands, is not hidden by them.
  bool keep_next_ = false;
  uint64_t num_dropped_ = 0;
  // The output of the last merge (internal key, value), served from merge_pos_; when
  // merge_pos_ reaches the end, the input is already at the next unconsumed entry.
  std::vector<std::pair<std::string, std::string>> merge_out_;
  size_t merge_pos_ = 0;
  // Set while the current entry is the input's entry as the compaction filter rewrote it
  // (filtered_key_, filtered_value_); the input is still on the original entry.
  bool filtered_ = false;
  std::string filtered_key_;
  std::string filtered_value_;
  uint64_t num_filter_removed_ = 0;
  uint64_t num_filter_changed_ = 0;
};

}  // namespace shale

#endif  // SHALE_COMPACTION_COMPACTION_ITERATOR_H_
