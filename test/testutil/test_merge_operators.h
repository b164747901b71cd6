// Merge operators for tests, with simple algebra a model can mirror.
//
// JoinOperator: the value is a comma-separated list; each operand appends one item (an
// operand may itself be a list, from a partial merge). FullMerge(v, [a, b]) = "v,a,b", or
// "a,b" with no value. With `partial` it combines operands ("a,b"); without, it refuses, so
// operands stay as they are. Optionally fails on an operand equal to "FAIL" (full and partial
// merges both refuse it), for error-path tests. Counts its calls.
//
// Thread-safety: const calls are safe concurrently (the counters are atomic).
#ifndef SHALE_TEST_TESTUTIL_TEST_MERGE_OPERATORS_H_
#define SHALE_TEST_TESTUTIL_TEST_MERGE_OPERATORS_H_

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/merge_operator.h"

namespace shale::test {

class JoinOperator : public MergeOperator {
 public:
  explicit JoinOperator(bool partial = true) : partial_(partial) {}

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    full_merges.fetch_add(1, std::memory_order_relaxed);
    std::string result;
    bool first = true;
    if (in.existing_value != nullptr) {
      result.assign(*in.existing_value);
      first = false;
    }
    for (std::string_view op : in.operand_list) {
      if (op == "FAIL") {
        out->error_message = "operand FAIL refused";
        return false;
      }
      if (!first) result.push_back(',');
      result.append(op);
      first = false;
    }
    out->new_value = std::move(result);
    return true;
  }

  bool PartialMerge(std::string_view, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    partial_merges.fetch_add(1, std::memory_order_relaxed);
    if (!partial_ || left == "FAIL" || right == "FAIL") return false;
    new_value->assign(left);
    new_value->push_back(',');
    new_value->append(right);
    return true;
  }

  const char* Name() const override { return "test.join"; }

  // The model's side: `existing` (null: none) with `operand` applied.
  static std::string Apply(const std::string* existing, std::string_view operand) {
    if (existing == nullptr) return std::string(operand);
    return *existing + "," + std::string(operand);
  }

  mutable std::atomic<int> full_merges{0};
  mutable std::atomic<int> partial_merges{0};

 private:
  const bool partial_;
};

}  // namespace shale::test

#endif  // SHALE_TEST_TESTUTIL_TEST_MERGE_OPERATORS_H_
