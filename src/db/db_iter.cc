#include "db/db_iter.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "merge/merge_helper.h"

namespace shale {
namespace {

class DBIter final : public Iterator {
 public:
  DBIter(const Comparator* ucmp, std::unique_ptr<InternalIterator> input,
         RangeTombstoneSources tombstones, DBIterOptions options,
         std::function<void()> cleanup)
      : ucmp_(ucmp),
        iter_(std::move(input)),
        tombstones_(std::move(tombstones)),
        options_(std::move(options)),
        cleanup_(std::move(cleanup)) {}

  ~DBIter() override {
    iter_.reset();  // before the sources it reads are released
    if (cleanup_) cleanup_();
  }

  bool Valid() const override { return valid_; }
  std::string_view key() const override {
    assert(valid_);
    return direction_ == kForward && !merged_ ? ExtractUserKey(iter_->key())
                                              : std::string_view(saved_key_);
  }
  std::string_view value() const override {
    assert(valid_);
    return direction_ == kForward && !merged_ ? iter_->value()
                                              : std::string_view(saved_value_);
  }
  Status status() const override {
    if (!status_.ok()) return status_;
    return iter_->status();
  }

  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void Next() override;
  void Prev() override;

 private:
  enum Direction { kForward, kReverse };

  // Parses the internal iterator's key; on failure records Corruption and returns false.
  bool ParseKey(ParsedInternalKey* parsed);
  // Moves forward from the internal position to the first visible entry (skipping the
  // entries of *skip when `skipping`).
  void FindNextUserEntry(bool skipping, std::string* skip);
  // Moves backward to the newest visible entry of the previous user key with one.
  void FindPrevUserEntry();
  // Forward, on a visible merge operand `first`: collects it and the key's older operands up
  // to a value or deletion, merges them into saved_value_ (saved_key_ = the key) and leaves
  // the internal iterator past what it consumed. Sets valid_, or status_ on failure.
  void MergeForward(const ParsedInternalKey& first);
  // Full-merges operands_ (oldest first) onto `base` (nullptr: none) into saved_value_; on
  // failure records the error and returns false.
  bool MergeOperands(const std::string* base);
  // True when a visible point entry is hidden by a range deletion.
  bool Covered(const ParsedInternalKey& k) const {
    for (const auto& t : tombstones_) {
      if (t->MaxCoveringSequence(k.user_key, options_.sequence) > k.sequence) return true;
    }
    return false;
  }
  bool BelowLower(std::string_view user_key) const {
    return options_.lower_bound && ucmp_->Compare(user_key, *options_.lower_bound) < 0;
  }
  bool AtOrAboveUpper(std::string_view user_key) const {
    return options_.upper_bound && ucmp_->Compare(user_key, *options_.upper_bound) >= 0;
  }
  void Count(uint32_t ticker) {
    if (options_.statistics != nullptr) options_.statistics->recordTick(ticker);
  }

  const Comparator* const ucmp_;
  std::unique_ptr<InternalIterator> iter_;
  const RangeTombstoneSources tombstones_;
  const DBIterOptions options_;
  std::function<void()> cleanup_;

  Status status_;
  Direction direction_ = kForward;
  bool valid_ = false;
  // Forward only: the current entry is a merge result held in saved_key_ / saved_value_.
  bool merged_ = false;
  std::vector<std::string> operands_;  // scratch for merges (see MergeForward, FindPrev...)
  std::string saved_key_;    // reverse: the current key; forward: scratch for skipping
  std::string saved_value_;  // reverse: the current value
};

bool DBIter::ParseKey(ParsedInternalKey* parsed) {
  Status s = ParseInternalKey(iter_->key(), parsed);
  if (!s.ok()) {
    status_ = Status::Corruption("DB iterator: " + s.ToString());
    return false;
  }
  return true;
}

void DBIter::FindNextUserEntry(bool skipping, std::string* skip) {
  assert(direction_ == kForward);
  valid_ = false;
  merged_ = false;
  for (; iter_->Valid(); iter_->Next()) {
    ParsedInternalKey k;
    if (!ParseKey(&k)) return;
    if (AtOrAboveUpper(k.user_key)) return;
    if (k.sequence > options_.sequence) continue;  // newer than the read
    if (skipping && ucmp_->Compare(k.user_key, *skip) <= 0) continue;  // an older version
    switch (k.type) {
      case kTypeDeletion:
      case kTypeSingleDeletion:
        skip->assign(k.user_key);  // hides the older versions of this key
        skipping = true;
        break;
      case kTypeValue:
        if (Covered(k)) {
          skip->assign(k.user_key);
          skipping = true;
          break;
        }
        valid_ = true;
        return;
      case kTypeMerge:
        if (Covered(k)) {
          skip->assign(k.user_key);
          skipping = true;
          break;
        }
        MergeForward(k);
        return;
      default:
        status_ = Status::Corruption("DB iterator: unexpected entry type " +
                                     std::to_string(static_cast<int>(k.type)));
        return;
    }
  }
}

bool DBIter::MergeOperands(const std::string* base) {
  if (options_.merge_operator == nullptr) {
    status_ = Status::InvalidArgument(
        "DB iterator: a key has merge operands but no merge operator is configured "
        "(Options::merge_operator)");
    return false;
  }
  std::vector<std::string_view> views(operands_.begin(), operands_.end());
  std::string_view base_view;
  if (base != nullptr) base_view = *base;
  std::string result;
  Status s = FullMerge(options_.merge_operator, saved_key_, base != nullptr ? &base_view : nullptr,
                       views, &result);
  if (!s.ok()) {
    status_ = s;
    return false;
  }
  saved_value_.swap(result);
  return true;
}

void DBIter::MergeForward(const ParsedInternalKey& first) {
  saved_key_.assign(first.user_key);
  operands_.clear();
  operands_.emplace_back(iter_->value());  // newest first while collecting
  std::string base;
  bool has_base = false;
  for (iter_->Next(); iter_->Valid(); iter_->Next()) {
    ParsedInternalKey k;
    if (!ParseKey(&k)) return;
    if (ucmp_->Compare(k.user_key, saved_key_) != 0) break;
    // Older than `first`, so visible to the read.
    if (Covered(k)) break;  // a deletion
    if (k.type == kTypeMerge) {
      operands_.emplace_back(iter_->value());
      continue;
    }
    if (k.type == kTypeValue) {
      base.assign(iter_->value());
      has_base = true;
    } else if (k.type != kTypeDeletion && k.type != kTypeSingleDeletion) {
      status_ = Status::Corruption("DB iterator: unexpected entry type " +
                                   std::to_string(static_cast<int>(k.type)));
      return;
    }
    break;  // Next() skips what is left of the key
  }
  if (!iter_->status().ok()) return;
  std::reverse(operands_.begin(), operands_.end());  // oldest first
  if (!MergeOperands(has_base ? &base : nullptr)) return;
  merged_ = true;
  valid_ = true;
}

void DBIter::FindPrevUserEntry() {
  assert(direction_ == kReverse);
  merged_ = false;
  // The type of the newest visible entry of saved_key_ seen so far; kTypeDeletion: none yet
  // (or a deletion, which hides what came before). Entries of a key arrive oldest first:
  // saved_value_ holds the last value seen and operands_ the operands seen since (oldest
  // first); has_base says whether that value exists (no deletion since).
  ValueType value_type = kTypeDeletion;
  bool has_base = false;
  auto forget = [&] {
    value_type = kTypeDeletion;
    has_base = false;
    saved_key_.clear();
    saved_value_.clear();
    operands_.clear();
  };
  for (; iter_->Valid(); iter_->Prev()) {
    ParsedInternalKey k;
    if (!ParseKey(&k)) {
      valid_ = false;
      return;
    }
    if (k.sequence > options_.sequence) continue;
    if (value_type != kTypeDeletion && ucmp_->Compare(k.user_key, saved_key_) < 0) {
      break;  // moved past the entries of the key found
    }
    if (BelowLower(k.user_key)) break;
    switch (k.type) {
      case kTypeDeletion:
      case kTypeSingleDeletion:
        forget();
        break;
      case kTypeValue:
        if (Covered(k)) {
          forget();
          break;
        }
        value_type = kTypeValue;
        has_base = true;
        operands_.clear();
        saved_key_.assign(k.user_key);
        saved_value_.assign(iter_->value());
        break;
      case kTypeMerge:
        if (Covered(k)) {
          forget();
          break;
        }
        if (value_type == kTypeDeletion) forget();  // a new key, or after a deletion
        value_type = kTypeMerge;
        saved_key_.assign(k.user_key);
        operands_.emplace_back(iter_->value());
        break;
      default:
        status_ = Status::Corruption("DB iterator: unexpected entry type " +
                                     std::to_string(static_cast<int>(k.type)));
        valid_ = false;
        return;
    }
  }
  // The loop ends on an entry of an earlier key (the current key's entries are complete), or
  // with the internal iterator !Valid(): at the start of the data, or on an error. After an
  // error the newest entries of the key (from a source the merge did not reach) may be
  // missing, so what was collected must not be returned.
  if (!iter_->Valid() && !iter_->status().ok()) value_type = kTypeDeletion;
  if (value_type == kTypeMerge && !MergeOperands(has_base ? &saved_value_ : nullptr)) {
    value_type = kTypeDeletion;
  }
  valid_ = value_type != kTypeDeletion;
  if (!valid_) {
    saved_key_.clear();
    saved_value_.clear();
  }
}

void DBIter::Seek(std::string_view target) {
  Count(NUMBER_DB_SEEK);
  merged_ = false;
  status_ = Status::OK();
  direction_ = kForward;
  if (BelowLower(target)) target = *options_.lower_bound;
  iter_->Seek(MakeInternalKey(target, options_.sequence, kValueTypeForSeek));
  FindNextUserEntry(false, &saved_key_);
}

void DBIter::SeekToFirst() {
  Count(NUMBER_DB_SEEK);
  merged_ = false;
  status_ = Status::OK();
  direction_ = kForward;
  if (options_.lower_bound) {
    iter_->Seek(MakeInternalKey(*options_.lower_bound, options_.sequence, kValueTypeForSeek));
  } else {
    iter_->SeekToFirst();
  }
  FindNextUserEntry(false, &saved_key_);
}

void DBIter::SeekForPrev(std::string_view target) {
  Count(NUMBER_DB_SEEK);
  merged_ = false;
  status_ = Status::OK();
  direction_ = kReverse;
  if (AtOrAboveUpper(target)) {
    // The first internal key of the upper bound sorts after every key below it.
    iter_->SeekForPrev(
        MakeInternalKey(*options_.upper_bound, kMaxSequenceNumber, kValueTypeForSeek));
  } else {
    // The last internal key of `target`: (target, sequence 0, smallest type).
    iter_->SeekForPrev(MakeInternalKey(target, 0, static_cast<ValueType>(0)));
  }
  FindPrevUserEntry();
}

void DBIter::SeekToLast() {
  Count(NUMBER_DB_SEEK);
  merged_ = false;
  status_ = Status::OK();
  direction_ = kReverse;
  if (options_.upper_bound) {
    iter_->SeekForPrev(
        MakeInternalKey(*options_.upper_bound, kMaxSequenceNumber, kValueTypeForSeek));
  } else {
    iter_->SeekToLast();
  }
  FindPrevUserEntry();
}

void DBIter::Next() {
  assert(valid_);
  // Not positioned (the end, or an error, which status() keeps reporting): nothing to move.
  if (!valid_) return;
  Count(NUMBER_DB_NEXT);
  if (direction_ == kReverse) {
    // The internal iterator is before the entries of saved_key_: step onto them, then skip.
    // It is !Valid() only when the reverse search ran off the start of the data (an error
    // there left this iterator !Valid()), so the entries of saved_key_ come first.
    direction_ = kForward;
    if (!iter_->Valid()) {
      iter_->SeekToFirst();
    } else {
      iter_->Next();
    }
  } else if (!merged_) {
    saved_key_.assign(ExtractUserKey(iter_->key()));
    iter_->Next();
  }  // after a merge the internal iterator is already past the operands
  FindNextUserEntry(true, &saved_key_);
}

void DBIter::Prev() {
  assert(valid_);
  if (!valid_) return;  // as in Next()
  Count(NUMBER_DB_PREV);
  if (direction_ == kForward) {
    // Step back over every entry of the current key. After a merge the internal iterator is
    // past some of them (or at the end).
    if (!merged_) saved_key_.assign(ExtractUserKey(iter_->key()));
    merged_ = false;
    if (!iter_->Valid()) {
      if (!iter_->status().ok()) {
        valid_ = false;
        return;
      }
      iter_->SeekToLast();
    }
    while (iter_->Valid() && ucmp_->Compare(ExtractUserKey(iter_->key()), saved_key_) >= 0) {
      iter_->Prev();
    }
    if (!iter_->Valid()) {
      valid_ = false;
      saved_key_.clear();
      saved_value_.clear();
      return;
    }
    direction_ = kReverse;
  }
  FindPrevUserEntry();
}

}  // namespace

std::unique_ptr<Iterator> NewDBIterator(const Comparator* ucmp,
                                        std::unique_ptr<InternalIterator> input,
                                        RangeTombstoneSources tombstones, DBIterOptions options,
                                        std::function<void()> cleanup) {
  return std::make_unique<DBIter>(ucmp, std::move(input), std::move(tombstones),
                                  std::move(options), std::move(cleanup));
}

}  // namespace shale
