// GetContext: the state of one point lookup (DB::Get, MultiGet) as it walks a key's entries
// from the newest source to the oldest, applying merges (shale/merge_operator.h).
//
// Sources (memtables, then tables newest first) feed it the key's entries visible at the
// read's snapshot, newest first, with Save(). The first value or deletion decides the lookup;
// merge operands before it are collected (newest first) and full-merged onto that value (or
// onto nothing, for a deletion). When every source is exhausted, Finish() merges what is left
// with no existing value. A key with operands but no merge operator configured is an
// InvalidArgument; a failing operator is a Corruption carrying its message.
//
// Range deletions of tables: a table source (Version::Get) reports the newest range deletion
// that covers the key at the read's snapshot with AddCoveringTombstone() before it feeds the
// table's entries. Such a tombstone hides every older entry, in its table and in all older
// ones, so the source feeds no entry below covering_tombstone() and, when the lookup still
// needs older entries after the table, ends it with Save(kTypeRangeDeletion). (Memtables apply
// their own range deletions and report a covering one as kTypeRangeDeletion directly.)
//
// Invariant: once done() is true, Save() must not be called again and status()/value are final.
//
// Thread-safety: none; one lookup on one thread.
#ifndef SHALE_MERGE_GET_CONTEXT_H_
#define SHALE_MERGE_GET_CONTEXT_H_

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/merge_operator.h"
#include "shale/status.h"

namespace shale {

class GetContext {
 public:
  // `merge_operator` may be null (then operands are an error). The result goes to *value,
  // which must outlive the context.
  GetContext(const MergeOperator* merge_operator, std::string_view user_key, std::string* value)
      : merge_operator_(merge_operator), user_key_(user_key), value_(value) {}

  GetContext(const GetContext&) = delete;
  GetContext& operator=(const GetContext&) = delete;

  // Feeds the next older entry of the key: kTypeValue, kTypeDeletion, kTypeSingleDeletion or
  // kTypeMerge, with its value; kTypeRangeDeletion means "a range deletion hides this entry and
  // everything older" (a deletion). Returns true when the lookup needs older entries.
  // REQUIRES: !done().
  bool Save(ValueType type, std::string_view value);

  // Ends the lookup after the last source: merges the operands collected onto nothing, or
  // NotFound when the key has no entry at all. Returns status(). Idempotent.
  Status Finish();

  bool done() const { return done_; }
  // Valid once done(): OK (value in *value), NotFound, InvalidArgument or Corruption.
  const Status& status() const { return status_; }
  // Merge operands collected so far.
  size_t num_operands() const { return operands_.size(); }

  // The sequence of the newest covering range deletion reported so far; 0 when none.
  // Invariant: it only grows.
  SequenceNumber covering_tombstone() const { return covering_tombstone_; }
  // Notes a range deletion at `sequence` that covers the key at the read's snapshot (0: none).
  void AddCoveringTombstone(SequenceNumber sequence) {
    if (sequence > covering_tombstone_) covering_tombstone_ = sequence;
  }
  // Whether an entry at `sequence` is hidden by the covering range deletion.
  bool HiddenByTombstone(SequenceNumber sequence) const { return sequence < covering_tombstone_; }

 private:
  // Full-merges the operands onto `existing` (nullptr: none) and finishes the lookup.
  void MergeAndFinish(const std::string_view* existing);

  const MergeOperator* const merge_operator_;
  const std::string_view user_key_;
  std::string* const value_;
  // Copies of the operands, newest first (a deque: growing it never moves the strings, so the
  // views in operand_views_ stay valid).
  std::deque<std::string> operands_;
  std::vector<std::string_view> operand_views_;  // newest first
  bool done_ = false;
  Status status_;
  SequenceNumber covering_tombstone_ = 0;
};

}  // namespace shale

#endif  // SHALE_MERGE_GET_CONTEXT_H_
