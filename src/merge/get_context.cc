#include "merge/get_context.h"

#include <cassert>

#include "merge/merge_helper.h"

namespace shale {

bool GetContext::Save(ValueType type, std::string_view value) {
  assert(!done_);
  switch (type) {
    case kTypeValue:
      if (operands_.empty()) {
        value_->assign(value);
        status_ = Status::OK();
        done_ = true;
      } else {
        MergeAndFinish(&value);
      }
      return false;
    case kTypeDeletion:
    case kTypeSingleDeletion:
    case kTypeRangeDeletion:
      if (operands_.empty()) {
        status_ = Status::NotFound();
        done_ = true;
      } else {
        MergeAndFinish(nullptr);
      }
      return false;
    case kTypeMerge: {
      if (merge_operator_ == nullptr) {
        status_ = Status::InvalidArgument(
            "Get: the key has merge operands but no merge operator is configured "
            "(Options::merge_operator)");
        done_ = true;
        return false;
      }
      operand_views_.push_back(operands_.emplace_back(value));
      if (merge_operator_->ShouldMerge(operand_views_)) {
        MergeAndFinish(nullptr);
        return false;
      }
      return true;
    }
    default:
      status_ = Status::Corruption("Get: unexpected entry type " +
                                   std::to_string(static_cast<int>(type)));
      done_ = true;
      return false;
  }
}

Status GetContext::Finish() {
  if (!done_) {
    if (operands_.empty()) {
      status_ = Status::NotFound();
      done_ = true;
    } else {
      MergeAndFinish(nullptr);
    }
  }
  return status_;
}

void GetContext::MergeAndFinish(const std::string_view* existing) {
  std::vector<std::string_view> oldest_first(operand_views_.rbegin(), operand_views_.rend());
  std::string result;
  status_ = FullMerge(merge_operator_, user_key_, existing, oldest_first, &result);
  if (status_.ok()) value_->swap(result);
  done_ = true;
}

}  // namespace shale
