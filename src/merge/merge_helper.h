// The engine's side of merging (shale/merge_operator.h): calling a MergeOperator and turning
// its failures into Status. Every place that merges (point lookups, the DB iterator, flush and
// compaction) goes through these functions, so they all treat results and errors alike.
//
// Thread-safety: stateless functions; safe from any thread (operators must allow concurrent
// calls).
#ifndef SHALE_MERGE_MERGE_HELPER_H_
#define SHALE_MERGE_MERGE_HELPER_H_

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "shale/merge_operator.h"
#include "shale/status.h"

namespace shale {

// Full-merges `operands` (oldest first, at least one) onto `existing_value` (nullptr: none) into
// *result. Corruption carrying the operator's name and message when the operator fails.
// REQUIRES: op != nullptr.
[[nodiscard]] Status FullMerge(const MergeOperator* op, std::string_view key,
                               const std::string_view* existing_value,
                               const std::vector<std::string_view>& operands,
                               std::string* result);

// Combines `operands` (oldest first) into one operand in *result with PartialMergeMulti when the
// operator can:
// returns false (and leaves *result unspecified) when it cannot, which is not an error. A
// single operand is only re-encoded when op->AllowSingleOperand(). REQUIRES: op != nullptr.
bool TryPartialMerge(const MergeOperator* op, std::string_view key,
                     const std::deque<std::string_view>& operands, std::string* result);

}  // namespace shale

#endif  // SHALE_MERGE_MERGE_HELPER_H_
