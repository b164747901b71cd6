// The iterator with base of write_batch_with_index.h: a DB iterator overlaid with a batch's
// index (RocksDB's BaseDeltaIterator, written anew).
//
// Invariants, after every move:
// - Both children are positioned for the direction `forward_`: forward, base and delta are at
//   their first keys >= the current key; backward, at their last keys <= it.
// - When valid_ and the current key is the delta's, a base key equal to it is where the base is
//   positioned (the delta's entry shadows it); moving advances both.
// - A delta entry at which the iterator stops is a Put, or a key with merge operands whose
//   merged value is in merged_ (has_merged_); deletes are skipped, hiding the base's equal key.
//   A merge that fails (no merge operator, or the operator fails) stops the iterator with that
//   error, as RocksDB's does.
#include <iterator>
#include <memory>
#include <string>

#include "rocksdb_capi/write_batch_with_index.h"

namespace shale::rocksdb_capi {

namespace {

class BaseDeltaIterator : public Iterator {
 public:
  BaseDeltaIterator(const IndexedKeys* keys, std::unique_ptr<Iterator> base,
                    std::shared_ptr<const MergeOperator> merge_operator)
      : keys_(keys),
        comparator_(keys->key_comp().comparator()),
        base_(std::move(base)),
        merge_operator_(std::move(merge_operator)) {}

  bool Valid() const override { return valid_; }

  void SeekToFirst() override {
    forward_ = true;
    base_->SeekToFirst();
    delta_ = keys_->begin();
    delta_valid_ = delta_ != keys_->end();
    Settle();
  }

  void SeekToLast() override {
    forward_ = false;
    base_->SeekToLast();
    delta_valid_ = !keys_->empty();
    if (delta_valid_) delta_ = std::prev(keys_->end());
    Settle();
  }

  void Seek(std::string_view target) override {
    forward_ = true;
    base_->Seek(target);
    SeekDeltaForward(target);
    Settle();
  }

  void SeekForPrev(std::string_view target) override {
    forward_ = false;
    base_->SeekForPrev(target);
    SeekDeltaBackward(target);
    Settle();
  }

  void Next() override {
    if (!forward_) {
      // Turn around: position both children at the first keys >= the current one (the current
      // key is among them), then step past it.
      std::string current(key());
      forward_ = true;
      base_->Seek(current);
      SeekDeltaForward(current);
      Settle();
      if (!valid_) return;
    }
    Advance();
    Settle();
  }

  void Prev() override {
    if (forward_) {
      std::string current(key());
      forward_ = false;
      base_->SeekForPrev(current);
      SeekDeltaBackward(current);
      Settle();
      if (!valid_) return;
    }
    Advance();
    Settle();
  }

  std::string_view key() const override {
    return at_delta_ ? std::string_view(delta_->first) : base_->key();
  }

  std::string_view value() const override {
    if (!at_delta_) return base_->value();
    return has_merged_ ? std::string_view(merged_) : std::string_view(delta_->second.value);
  }

  Status status() const override {
    if (!status_.ok()) return status_;
    return base_->status();
  }

 private:
  void SeekDeltaForward(std::string_view target) {
    delta_ = keys_->lower_bound(target);
    delta_valid_ = delta_ != keys_->end();
  }

  void SeekDeltaBackward(std::string_view target) {
    delta_ = keys_->upper_bound(target);
    if (delta_ == keys_->begin()) {
      delta_valid_ = false;
    } else {
      --delta_;
      delta_valid_ = true;
    }
  }

  void StepDelta() {
    if (forward_) {
      ++delta_;
      delta_valid_ = delta_ != keys_->end();
    } else if (delta_ == keys_->begin()) {
      delta_valid_ = false;
    } else {
      --delta_;
    }
  }

  void StepBase() {
    if (forward_) {
      base_->Next();
    } else {
      base_->Prev();
    }
  }

  // The order of a and b in the direction of travel (negative: a comes first).
  int Order(std::string_view a, std::string_view b) const {
    int c = comparator_->Compare(a, b);
    return forward_ ? c : -c;
  }

  // Moves off the current key (REQUIRES: valid_).
  void Advance() {
    if (at_delta_) {
      if (base_->Valid() && comparator_->Equal(base_->key(), delta_->first)) StepBase();
      StepDelta();
    } else {
      StepBase();
    }
  }

  // Skips deletes (with the base keys they hide) until the iterator is at a visible key, at
  // the end, or stopped by an error.
  void Settle() {
    status_ = Status::OK();
    valid_ = false;
    at_delta_ = false;
    has_merged_ = false;
    while (true) {
      if (!base_->Valid() && !base_->status().ok()) return;
      bool base_valid = base_->Valid();
      if (!delta_valid_) {
        valid_ = base_valid;
        return;
      }
      int c = base_valid ? Order(delta_->first, base_->key()) : -1;
      if (c > 0) {  // the base's key comes first and the batch does not touch it
        valid_ = true;
        return;
      }
      const IndexedEntry& entry = delta_->second;
      if (!entry.operands.empty()) {
        // The operands go over the batch's Put or Delete, else over the base's equal key.
        std::string below;
        if (c == 0) below.assign(base_->value());
        status_ = ResolveEntry(entry, delta_->first, merge_operator_.get(), true,
                               c == 0 ? &below : nullptr, &merged_);
        if (!status_.ok()) return;
        valid_ = true;
        at_delta_ = true;
        has_merged_ = true;
        return;
      }
      if (entry.base == IndexedEntry::Base::kValue) {
        valid_ = true;
        at_delta_ = true;
        return;
      }
      if (c == 0) StepBase();  // deleted in the batch: the base's key is hidden
      StepDelta();
    }
  }

  const IndexedKeys* keys_;
  const Comparator* comparator_;
  std::unique_ptr<Iterator> base_;
  IndexedKeys::const_iterator delta_;
  bool delta_valid_ = false;
  bool forward_ = true;
  bool valid_ = false;
  bool at_delta_ = false;  // when valid_: the current key is the delta's
  std::shared_ptr<const MergeOperator> merge_operator_;  // null: merges fail
  bool has_merged_ = false;  // when at_delta_: the value is merged_ (the key has operands)
  std::string merged_;
  Status status_;  // an error of the overlay itself (a failed merge)
};

}  // namespace

std::unique_ptr<Iterator> NewIteratorWithBase(
    const IndexedKeys* keys, std::unique_ptr<Iterator> base,
    std::shared_ptr<const MergeOperator> merge_operator) {
  return std::make_unique<BaseDeltaIterator>(keys, std::move(base), std::move(merge_operator));
}

}  // namespace shale::rocksdb_capi
