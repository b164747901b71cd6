#include "merge/merge_helper.h"

#include <cassert>

namespace shale {

Status FullMerge(const MergeOperator* op, std::string_view key,
                 const std::string_view* existing_value,
                 const std::vector<std::string_view>& operands, std::string* result) {
  assert(op != nullptr);
  assert(!operands.empty());
  std::string new_value;
  std::string_view existing_operand;
  MergeOperator::MergeOperationInput in(key, existing_value, operands);
  MergeOperator::MergeOperationOutput out(new_value, existing_operand);
  if (!op->FullMergeV2(in, &out)) {
    std::string msg = "merge operator " + std::string(op->Name()) + " failed";
    if (!out.error_message.empty()) msg += ": " + out.error_message;
    return Status::Corruption(msg);
  }
  if (existing_operand.data() != nullptr) {
    result->assign(existing_operand);  // may point into an input: copy before returning
  } else {
    result->swap(new_value);
  }
  return Status::OK();
}

bool TryPartialMerge(const MergeOperator* op, std::string_view key,
                     const std::deque<std::string_view>& operands, std::string* result) {
  assert(op != nullptr);
  if (operands.empty()) return false;
  if (operands.size() == 1 && !op->AllowSingleOperand()) return false;
  // Always PartialMergeMulti (as RocksDB does): its default folds PartialMerge, and an operator
  // may implement only it.
  return op->PartialMergeMulti(key, operands, result);
}

}  // namespace shale
