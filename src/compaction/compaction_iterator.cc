#include "compaction/compaction_iterator.h"

#include <algorithm>

namespace shale {

CompactionIterator::CompactionIterator(InternalIterator* input, const Comparator* ucmp,
                                       std::vector<SequenceNumber> snapshots,
                                       const RangeTombstones* range_deletions, bool bottommost)
    : input_(input),
      ucmp_(ucmp),
      snapshots_(std::move(snapshots)),
      range_deletions_(range_deletions != nullptr && !range_deletions->empty() ? range_deletions
                                                                               : nullptr),
      bottommost_(bottommost),
      first_stripe_(snapshots_.empty() ? kMaxSequenceNumber : snapshots_.front()) {}

SequenceNumber CompactionIterator::StripeOf(SequenceNumber sequence) const {
  auto it = std::lower_bound(snapshots_.begin(), snapshots_.end(), sequence);
  return it == snapshots_.end() ? kMaxSequenceNumber : *it;
}

void CompactionIterator::SeekToFirst() { FindNextKept(); }

void CompactionIterator::Next() {
  input_->Next();
  FindNextKept();
}

void CompactionIterator::FindNextKept() {
  valid_ = false;
  for (; input_->Valid(); input_->Next()) {
    ParsedInternalKey parsed;
    Status s = ParseInternalKey(input_->key(), &parsed);
    if (!s.ok()) {
      corruption_ = s;
      return;
    }
    const SequenceNumber stripe = StripeOf(parsed.sequence);
    if (!has_current_key_ || ucmp_->Compare(parsed.user_key, current_user_key_) != 0) {
      // The newest entry of a new user key.
      has_current_key_ = true;
      current_user_key_.assign(parsed.user_key);
    } else if (stripe == last_stripe_) {
      num_dropped_++;  // hidden by a newer entry that every reader of this stripe sees
      continue;
    }
    last_stripe_ = stripe;
    // Deleted by a range deletion that every reader of this entry sees.
    if (range_deletions_ != nullptr &&
        range_deletions_->MaxCoveringSequence(parsed.user_key, stripe) > parsed.sequence) {
      num_dropped_++;
      continue;
    }
    // A deletion nobody older can need: it goes, with what it hides (same stripe).
    if (bottommost_ && stripe == first_stripe_ &&
        (parsed.type == kTypeDeletion || parsed.type == kTypeSingleDeletion)) {
      num_dropped_++;
      continue;
    }
    valid_ = true;
    return;
  }
}

Status CompactionIterator::status() const {
  if (!corruption_.ok()) return corruption_;
  return input_->status();
}

}  // namespace shale
