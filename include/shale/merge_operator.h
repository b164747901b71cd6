// MergeOperator: read-modify-write without the read. DB::Merge(key, operand) records an operand;
// the engine combines a key's operands with its existing value lazily, when the key is read
// (Get, MultiGet, iterators), flushed or compacted. The shape is RocksDB's.
//
// Order: operands are always given oldest first. A key's history "value v, then operands
// o1, o2, o3" reads as FullMergeV2(existing_value = v, operand_list = [o1, o2, o3]); with no
// value (never written, or deleted before o1) existing_value is nullptr.
//
// Partial merges: a flush or a compaction that holds some operands of a key but not the base
// value may combine consecutive operands into one with PartialMerge/PartialMergeMulti. The
// operator must make that invisible: for any split, FullMerge(v, [a, b, c]) ==
// FullMerge(v, [a, PartialMerge(b, c)]). An operator that cannot combine operands returns false
// and the operands are kept as they are.
//
// Failure: FullMergeV2 returning false is an error, never a silent drop. A read of the key
// returns Corruption carrying `error_message`; a flush or compaction that meets it fails with
// that Corruption and keeps its inputs (nothing is lost; the DB stops background writes, as on
// any background error).
//
// Built-in operators, also selectable by name in options strings ("merge_operator=uint64add"):
// see CreateMergeOperatorFromString below.
//
// Thread-safety: the engine calls a MergeOperator from many threads at once (readers, flush and
// compaction threads): implementations must be safe for concurrent const calls.
#ifndef SHALE_MERGE_OPERATOR_H_
#define SHALE_MERGE_OPERATOR_H_

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/export.h"
#include "shale/status.h"

namespace shale {

class SHALE_EXPORT MergeOperator {
 public:
  virtual ~MergeOperator() = default;

  // What a full merge gets: the key, its existing value (nullptr when it has none) and the
  // operands, oldest first. The views are valid during the call only.
  struct MergeOperationInput {
    MergeOperationInput(std::string_view k, const std::string_view* existing,
                        const std::vector<std::string_view>& operands)
        : key(k), existing_value(existing), operand_list(operands) {}
    std::string_view key;
    const std::string_view* existing_value;
    const std::vector<std::string_view>& operand_list;
  };

  // Where a full merge puts its result: either write it into `new_value`, or, when the result
  // is one of the inputs unchanged (the existing value or an operand), point
  // `existing_operand` at it and leave new_value alone (saves a copy). On failure, say why in
  // `error_message` (it becomes the Corruption message).
  struct MergeOperationOutput {
    MergeOperationOutput(std::string& value, std::string_view& operand)
        : new_value(value), existing_operand(operand) {}
    std::string& new_value;
    std::string_view& existing_operand;
    std::string error_message;
  };

  // Combines the existing value (if any) and the operands into the key's new value. Returns
  // false when the operands or the value are malformed (see "Failure" above). Must be
  // deterministic: the same inputs always give the same result.
  virtual bool FullMergeV2(const MergeOperationInput& merge_in,
                           MergeOperationOutput* merge_out) const = 0;

  // Combines two consecutive operands (left older than right) into one operand with the same
  // effect, in *new_value. Returns false when they cannot be combined (the default): both are
  // kept. A false return is not an error.
  virtual bool PartialMerge(std::string_view key, std::string_view left_operand,
                            std::string_view right_operand, std::string* new_value) const;

  // Combines two or more consecutive operands (oldest first; one operand when
  // AllowSingleOperand()) into one. The default folds PartialMerge from the oldest; returns false
  // when any step fails, and the operands are kept.
  virtual bool PartialMergeMulti(std::string_view key,
                                 const std::deque<std::string_view>& operand_list,
                                 std::string* new_value) const;

  // The operator's name. It is recorded in the OPTIONS file; the built-ins' names are what
  // options strings accept.
  virtual const char* Name() const = 0;

  // The options-string form of this operator (what GetStringFromOptions prints and the OPTIONS
  // file records): for a built-in, what CreateMergeOperatorFromString turns back into an equal
  // operator, e.g. "stringappend:|". Default: Name().
  virtual std::string GetId() const { return Name(); }

  // Whether PartialMergeMulti may be called with a single operand (to re-encode it, e.g. to
  // compact it). Default: false.
  virtual bool AllowSingleOperand() const { return false; }

  // Called by point lookups with the operands collected so far, newest first: returning true
  // stops the lookup there and full-merges them with no existing value (for operators whose
  // operands can make older history irrelevant). Default: false.
  virtual bool ShouldMerge(const std::vector<std::string_view>& /*operands*/) const {
    return false;
  }
};

// For operators where an operand and a value are the same kind of thing and merging is one
// associative binary function: implement Merge, and FullMergeV2 and PartialMerge follow.
class SHALE_EXPORT AssociativeMergeOperator : public MergeOperator {
 public:
  // Combines `existing_value` (nullptr when none) with `value` into *new_value. Returns false
  // when either is malformed; set *error_message (may be null) to say why.
  virtual bool Merge(std::string_view key, const std::string_view* existing_value,
                     std::string_view value, std::string* new_value,
                     std::string* error_message) const = 0;

  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override;
  bool PartialMerge(std::string_view key, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override;
};

// ---------------------------------------------------------------- Built-in operators

// "uint64add": values and operands are 8-byte little-endian unsigned integers (RocksDB's
// encoding); the merge is their sum modulo 2^64. A missing value counts as 0. An operand or
// value of another size fails the merge.
SHALE_EXPORT std::shared_ptr<MergeOperator> NewUInt64AddOperator();

// "stringappend": appends each operand to the value, separated by `delimiter` (default ",";
// may be empty). A missing value is the empty start: the result is the operands joined.
SHALE_EXPORT std::shared_ptr<MergeOperator> NewStringAppendOperator(
    std::string_view delimiter = ",");

// "max": keeps the bytewise-largest of the value and the operands.
SHALE_EXPORT std::shared_ptr<MergeOperator> NewMaxOperator();

// "sortedset64": the value is a sorted set of 64-bit ids; operands add or remove ids (see
// shale/sorted_set64.h for the formats and for building operands). Every `index_interval` ids
// the value keeps an index entry, so a patch decodes only the stretches it touches.
SHALE_EXPORT std::shared_ptr<MergeOperator> NewSortedSet64Operator(int index_interval = 128);

// Makes a built-in operator from its options-string form: "uint64add", "max", "stringappend"
// (delimiter ","), "stringappend:<delimiter>" (everything after the first ':' is the delimiter),
// "sortedset64", "sortedset64:<index_interval>". An empty string or "nullptr" gives nullptr
// (no operator). InvalidArgument for an unknown name or a bad parameter.
SHALE_EXPORT Status CreateMergeOperatorFromString(std::string_view id,
                                                  std::shared_ptr<MergeOperator>* result);

}  // namespace shale

#endif  // SHALE_MERGE_OPERATOR_H_
