// "uint64add" (shale/merge_operator.h): 8-byte little-endian unsigned integers, summed modulo
// 2^64. Unlike RocksDB's, a value or operand of another size fails the merge instead of being
// read as 0 and logged: a counter that silently resets is worse than an error.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "shale/merge_operator.h"
#include "util/coding.h"

namespace shale {
namespace {

class UInt64AddOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    uint64_t sum = 0;
    if (merge_in.existing_value != nullptr &&
        !Add(*merge_in.existing_value, &sum, "existing value", &merge_out->error_message)) {
      return false;
    }
    for (std::string_view operand : merge_in.operand_list) {
      if (!Add(operand, &sum, "operand", &merge_out->error_message)) return false;
    }
    PutSum(sum, &merge_out->new_value);
    return true;
  }

  bool PartialMerge(std::string_view, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override {
    uint64_t sum = 0;
    if (!Add(left_operand, &sum, nullptr, nullptr) || !Add(right_operand, &sum, nullptr, nullptr)) {
      return false;
    }
    PutSum(sum, new_value);
    return true;
  }

  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override {
    if (operand_list.size() < 2) return false;
    uint64_t sum = 0;
    for (std::string_view operand : operand_list) {
      if (!Add(operand, &sum, nullptr, nullptr)) return false;
    }
    PutSum(sum, new_value);
    return true;
  }

  const char* Name() const override { return "uint64add"; }

 private:
  // Adds the integer `bytes` encodes to *sum; false (saying why in *error when not null) when
  // it is not 8 bytes long.
  static bool Add(std::string_view bytes, uint64_t* sum, const char* what, std::string* error) {
    if (bytes.size() != sizeof(uint64_t)) {
      if (error != nullptr) {
        *error = absl::StrCat("uint64add: ", what, " of ", bytes.size(), " bytes, expected 8");
      }
      return false;
    }
    *sum += DecodeFixed64(bytes.data());  // wraps modulo 2^64
    return true;
  }

  static void PutSum(uint64_t sum, std::string* out) {
    out->clear();
    PutFixed64(out, sum);
  }
};

}  // namespace

std::shared_ptr<MergeOperator> NewUInt64AddOperator() {
  return std::make_shared<UInt64AddOperator>();
}

}  // namespace shale
