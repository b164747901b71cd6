#include "compaction/compaction_iterator.h"

#include <algorithm>
#include <deque>

#include "merge/merge_helper.h"

namespace shale {

CompactionIterator::CompactionIterator(InternalIterator* input, const Comparator* ucmp,
                                       std::vector<SequenceNumber> snapshots,
                                       const RangeTombstones* range_deletions, bool bottommost,
                                       const MergeOperator* merge_operator,
                                       size_t max_merged_value_size,
                                       const CompactionFilter* filter, int filter_level)
    : input_(input),
      ucmp_(ucmp),
      snapshots_(std::move(snapshots)),
      range_deletions_(range_deletions != nullptr && !range_deletions->empty() ? range_deletions
                                                                               : nullptr),
      bottommost_(bottommost),
      merge_operator_(merge_operator),
      max_merged_value_size_(max_merged_value_size),
      filter_(filter),
      filter_level_(filter_level),
      first_stripe_(snapshots_.empty() ? kMaxSequenceNumber : snapshots_.front()) {}

SequenceNumber CompactionIterator::StripeOf(SequenceNumber sequence) const {
  auto it = std::lower_bound(snapshots_.begin(), snapshots_.end(), sequence);
  return it == snapshots_.end() ? kMaxSequenceNumber : *it;
}

void CompactionIterator::SeekToFirst() { FindNextKept(); }

void CompactionIterator::Next() {
  if (filtered_) {
    filtered_ = false;
    input_->Next();
  } else if (!merge_out_.empty()) {
    if (++merge_pos_ < merge_out_.size()) return;
    merge_out_.clear();  // the input is already past the merged entries
    merge_pos_ = 0;
  } else {
    input_->Next();
  }
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
    bool newest = false;
    if (!has_current_key_ || ucmp_->Compare(parsed.user_key, current_user_key_) != 0) {
      // The newest entry of a new user key.
      has_current_key_ = true;
      current_user_key_.assign(parsed.user_key);
      newest = true;
    } else if (stripe == last_stripe_ && !keep_next_) {
      num_dropped_++;  // hidden by a newer entry that every reader of this stripe sees
      continue;
    }
    keep_next_ = false;
    last_stripe_ = stripe;
    // Deleted by a range deletion that every reader of this entry sees.
    if (range_deletions_ != nullptr &&
        range_deletions_->MaxCoveringSequence(parsed.user_key, stripe) > parsed.sequence) {
      num_dropped_++;
      continue;
    }
    // The compaction filter sees the newest version of the key when it is a kept value (the
    // header's invariant: once per user key, right here).
    if (newest && filter_ != nullptr && parsed.type == kTypeValue) {
      std::string new_value;
      bool value_changed = false;
      if (filter_->Filter(filter_level_, parsed.user_key, input_->value(), &new_value,
                          &value_changed)) {
        // Removed: a deletion at the same sequence, which hides the key's older versions and
        // follows the deletion rules below.
        num_filter_removed_++;
        parsed.type = kTypeDeletion;
        filtered_key_ = MakeInternalKey(parsed.user_key, parsed.sequence, kTypeDeletion);
        filtered_value_.clear();
        filtered_ = true;
      } else if (value_changed) {
        num_filter_changed_++;
        filtered_key_.assign(input_->key());
        filtered_value_ = std::move(new_value);
        filtered_ = true;
      }
    }
    // A deletion nobody older can need: it goes, with what it hides (same stripe).
    if (bottommost_ && stripe == first_stripe_ &&
        (parsed.type == kTypeDeletion || parsed.type == kTypeSingleDeletion)) {
      num_dropped_++;
      filtered_ = false;
      continue;
    }
    if (parsed.type == kTypeMerge) {
      valid_ = MergeOperands(parsed, stripe);
      return;
    }
    valid_ = true;
    return;
  }
}

bool CompactionIterator::MergeOperands(const ParsedInternalKey& first, SequenceNumber stripe) {
  if (merge_operator_ == nullptr) {
    corruption_ = Status::InvalidArgument(
        "writing a table (flush, compaction or WAL recovery): the data holds merge operands "
        "but no merge operator is configured (Options::merge_operator)");
    return false;
  }
  const std::string newest_key(input_->key());
  const std::string user_key(first.user_key);
  // Copies of the operands' keys and values, newest first.
  std::vector<std::pair<std::string, std::string>> operands;
  operands.emplace_back(newest_key, input_->value());
  // What ends the collection: kTypeValue (base in `base`), kTypeDeletion, or kTypeMerge (none).
  ValueType end = kTypeMerge;
  bool key_ended = false;
  std::string base;
  for (input_->Next(); ; input_->Next()) {
    if (!input_->Valid()) {
      if (!input_->status().ok()) return false;
      key_ended = true;
      break;
    }
    ParsedInternalKey k;
    Status s = ParseInternalKey(input_->key(), &k);
    if (!s.ok()) {
      corruption_ = s;
      return false;
    }
    if (ucmp_->Compare(k.user_key, user_key) != 0) {
      key_ended = true;
      break;
    }
    if (StripeOf(k.sequence) != stripe) break;  // a snapshot sees the operands so far alone
    // The entry that ends the merge is not consumed: the stripe rule drops it next.
    if (CoveredInStripe(k, stripe)) {
      end = kTypeDeletion;
      break;
    }
    if (k.type == kTypeMerge) {
      operands.emplace_back(input_->key(), input_->value());
      continue;
    }
    if (k.type == kTypeValue) {
      base.assign(input_->value());
      end = kTypeValue;
    } else if (k.type == kTypeDeletion || k.type == kTypeSingleDeletion) {
      end = kTypeDeletion;
    } else {
      corruption_ = Status::Corruption("writing a table: unexpected entry type " +
                                       std::to_string(static_cast<int>(k.type)) +
                                       " under a merge operand");
      return false;
    }
    break;
  }

  merge_out_.clear();
  merge_pos_ = 0;
  if (end == kTypeMerge && key_ended && bottommost_) end = kTypeDeletion;  // nothing older
  if (end != kTypeMerge) {
    std::vector<std::string_view> oldest_first;
    oldest_first.reserve(operands.size());
    for (auto it = operands.rbegin(); it != operands.rend(); ++it) oldest_first.push_back(it->second);
    std::string_view base_view(base);
    std::string result;
    Status s = FullMerge(merge_operator_, user_key, end == kTypeValue ? &base_view : nullptr,
                         oldest_first, &result);
    if (!s.ok()) {
      corruption_ = s;
      return false;
    }
    if (result.size() > max_merged_value_size_) {
      // Too large for a table: keep the operands, and the value or deletion under them (the
      // input is still on it unless the key ended), for reads to merge.
      merge_out_ = std::move(operands);
      keep_next_ = !key_ended;
      return true;
    }
    merge_out_.emplace_back(MakeInternalKey(user_key, first.sequence, kTypeValue),
                            std::move(result));
    num_dropped_ += operands.size() - 1;
    return true;
  }
  std::deque<std::string_view> oldest_first;
  for (auto it = operands.rbegin(); it != operands.rend(); ++it) oldest_first.push_back(it->second);
  std::string combined;
  if (TryPartialMerge(merge_operator_, user_key, oldest_first, &combined) &&
      combined.size() <= max_merged_value_size_) {
    merge_out_.emplace_back(newest_key, std::move(combined));
    num_dropped_ += operands.size() - 1;
  } else {
    merge_out_ = std::move(operands);
  }
  return true;
}

Status CompactionIterator::status() const {
  if (!corruption_.ok()) return corruption_;
  return input_->status();
}

}  // namespace shale
