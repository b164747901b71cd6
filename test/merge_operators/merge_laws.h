// Checks the laws every merge operator must keep (shale/merge_operator.h), through the
// engine's merge_helper.h functions:
//   - split: FullMerge(v, ops) == FullMerge(FullMerge(v, ops[0, k)), ops[k, n)) for every k;
//   - partial merges are invisible: FullMerge(v, ops) == FullMerge(v, ops with a consecutive
//     run replaced by its partial merge), whenever the partial merge succeeds.
// Used by the operator tests with random histories.
#ifndef SHALE_TEST_MERGE_OPERATORS_MERGE_LAWS_H_
#define SHALE_TEST_MERGE_OPERATORS_MERGE_LAWS_H_

#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merge/merge_helper.h"
#include "shale/merge_operator.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {

// FullMerge over owned strings. REQUIRES: !operands.empty().
inline Status FullMergeStrings(const MergeOperator& op, const std::optional<std::string>& value,
                               const std::vector<std::string>& operands, std::string* result) {
  std::vector<std::string_view> views(operands.begin(), operands.end());
  std::string_view v = value.has_value() ? std::string_view(*value) : std::string_view();
  return FullMerge(&op, "key", value.has_value() ? &v : nullptr, views, result);
}

// Checks both laws for the history (value, operands); `partial_tries` random runs are partially
// merged. Returns how many partial merges succeeded.
inline int CheckMergeLaws(const MergeOperator& op, const std::optional<std::string>& value,
                          const std::vector<std::string>& operands, int partial_tries,
                          Random* rnd) {
  std::string expected;
  EXPECT_OK(FullMergeStrings(op, value, operands, &expected));
  const size_t n = operands.size();
  for (size_t k = 1; k < n; k++) {
    std::string first, second;
    EXPECT_OK(FullMergeStrings(op, value, {operands.begin(), operands.begin() + k}, &first));
    EXPECT_OK(FullMergeStrings(op, first, {operands.begin() + k, operands.end()}, &second));
    EXPECT_EQ(second, expected) << "split at " << k << " of " << n;
  }
  int merged = 0;
  for (int t = 0; t < partial_tries; t++) {
    const size_t begin = rnd->Uniform(n);
    const size_t end = begin + 1 + rnd->Uniform(n - begin);
    std::deque<std::string_view> run(operands.begin() + begin, operands.begin() + end);
    std::string combined;
    if (!TryPartialMerge(&op, "key", run, &combined)) continue;
    merged++;
    std::vector<std::string> replaced(operands.begin(), operands.begin() + begin);
    replaced.push_back(combined);
    replaced.insert(replaced.end(), operands.begin() + end, operands.end());
    std::string got;
    EXPECT_OK(FullMergeStrings(op, value, replaced, &got));
    EXPECT_EQ(got, expected) << "partial merge of [" << begin << ", " << end << ") of " << n;
  }
  return merged;
}

}  // namespace shale

#endif  // SHALE_TEST_MERGE_OPERATORS_MERGE_LAWS_H_
