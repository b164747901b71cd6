// The default behaviour of MergeOperator and AssociativeMergeOperator (shale/merge_operator.h).
#include "shale/merge_operator.h"

namespace shale {

bool MergeOperator::PartialMerge(std::string_view, std::string_view, std::string_view,
                                 std::string*) const {
  return false;
}

bool MergeOperator::PartialMergeMulti(std::string_view key,
                                      const std::deque<std::string_view>& operand_list,
                                      std::string* new_value) const {
  if (operand_list.size() < 2) return false;
  // Fold from the oldest: acc = PartialMerge(acc, next). `next` may point into *new_value's
  // previous contents, so each step writes to a fresh string.
  std::string acc(operand_list[0]);
  for (size_t i = 1; i < operand_list.size(); i++) {
    std::string combined;
    if (!PartialMerge(key, acc, operand_list[i], &combined)) return false;
    acc.swap(combined);
  }
  new_value->swap(acc);
  return true;
}

bool AssociativeMergeOperator::FullMergeV2(const MergeOperationInput& merge_in,
                                           MergeOperationOutput* merge_out) const {
  // acc = Merge(...Merge(Merge(existing, o1), o2)..., on)
  std::string acc;
  bool has_acc = merge_in.existing_value != nullptr;
  if (has_acc) acc.assign(*merge_in.existing_value);
  for (std::string_view operand : merge_in.operand_list) {
    std::string next;
    std::string_view acc_view(acc);
    if (!Merge(merge_in.key, has_acc ? &acc_view : nullptr, operand, &next,
               &merge_out->error_message)) {
      if (merge_out->error_message.empty()) {
        merge_out->error_message = std::string(Name()) + ": merge failed";
      }
      return false;
    }
    acc.swap(next);
    has_acc = true;
  }
  merge_out->new_value.swap(acc);
  return true;
}

bool AssociativeMergeOperator::PartialMerge(std::string_view key, std::string_view left_operand,
                                            std::string_view right_operand,
                                            std::string* new_value) const {
  return Merge(key, &left_operand, right_operand, new_value, nullptr);
}

}  // namespace shale
