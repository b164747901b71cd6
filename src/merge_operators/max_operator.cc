// "max" (shale/merge_operator.h): the bytewise-largest of the value and the operands. The
// result is always one of the inputs, so full merges point at it instead of copying.
#include <memory>
#include <string>

#include "shale/merge_operator.h"

namespace shale {
namespace {

class MaxOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    // std::string_view compares like memcmp: bytes as unsigned, then the shorter first.
    std::string_view max;
    bool any = false;
    if (merge_in.existing_value != nullptr) {
      max = *merge_in.existing_value;
      any = true;
    }
    for (std::string_view operand : merge_in.operand_list) {
      if (!any || operand > max) max = operand;
      any = true;
    }
    if (max.data() == nullptr) {
      merge_out->new_value.clear();  // an empty input with no storage: nothing to point at
    } else {
      merge_out->existing_operand = max;
    }
    return true;
  }

  bool PartialMerge(std::string_view, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override {
    new_value->assign(left_operand >= right_operand ? left_operand : right_operand);
    return true;
  }

  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override {
    if (operand_list.size() < 2) return false;
    std::string_view max = operand_list.front();
    for (std::string_view operand : operand_list) {
      if (operand > max) max = operand;
    }
    new_value->assign(max);
    return true;
  }

  const char* Name() const override { return "max"; }
};

}  // namespace

std::shared_ptr<MergeOperator> NewMaxOperator() { return std::make_shared<MaxOperator>(); }

}  // namespace shale
