// "stringappend" (shale/merge_operator.h): the value, then each operand, separated by a
// delimiter; with no value, the operands joined. RocksDB's StringAppendOperator, with the
// delimiter a string rather than one character.
#include <memory>
#include <string>

#include "shale/merge_operator.h"

namespace shale {
namespace {

class StringAppendOperator : public MergeOperator {
 public:
  explicit StringAppendOperator(std::string_view delimiter) : delimiter_(delimiter) {}

  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    const std::string_view* value = merge_in.existing_value;
    const std::vector<std::string_view>& operands = merge_in.operand_list;
    size_t size = value != nullptr ? value->size() + delimiter_.size() : 0;
    for (std::string_view operand : operands) size += operand.size() + delimiter_.size();
    std::string& out = merge_out->new_value;
    out.clear();
    out.reserve(size);
    if (value != nullptr) out.append(*value);
    for (size_t i = 0; i < operands.size(); i++) {
      if (value != nullptr || i > 0) out.append(delimiter_);
      out.append(operands[i]);
    }
    return true;
  }

  bool PartialMerge(std::string_view, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override {
    new_value->clear();
    new_value->reserve(left_operand.size() + delimiter_.size() + right_operand.size());
    new_value->append(left_operand).append(delimiter_).append(right_operand);
    return true;
  }

  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override {
    if (operand_list.size() < 2) return false;
    new_value->clear();
    for (size_t i = 0; i < operand_list.size(); i++) {
      if (i > 0) new_value->append(delimiter_);
      new_value->append(operand_list[i]);
    }
    return true;
  }

  const char* Name() const override { return "stringappend"; }

  std::string GetId() const override {
    return delimiter_ == "," ? std::string(Name()) : std::string(Name()) + ":" + delimiter_;
  }

 private:
  const std::string delimiter_;
};

}  // namespace

std::shared_ptr<MergeOperator> NewStringAppendOperator(std::string_view delimiter) {
  return std::make_shared<StringAppendOperator>(delimiter);
}

}  // namespace shale
