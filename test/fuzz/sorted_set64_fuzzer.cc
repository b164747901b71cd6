// libFuzzer entry point for the "sortedset64" formats (shale/sorted_set64.h). The first input
// byte says where to split the rest into a value and an operand. Neither reader may crash or
// read outside its input, and a bad input must be Corruption; what they accept must be
// well-formed and consistent:
//   - a value: its ids ascend, Count agrees, Contains agrees with the decoded set;
//   - an operand: its adds and removes ascend and are disjoint, and it re-encodes to an
//     operand that decodes to the same;
//   - a full merge of the value with the operand (and with the operand twice, partially
//     merged) must succeed when both decode, giving the set the decoded pieces predict.
// No seed corpus is needed: the readers' first bytes are easy to find.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "merge/merge_helper.h"
#include "shale/merge_operator.h"
#include "shale/sorted_set64.h"
#include "shale/status.h"

namespace {

using shale::Status;
using Ids = std::vector<uint64_t>;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sorted_set64_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

bool Ascending(const Ids& ids) {
  return std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end();
}

// Decodes a value and checks what is accepted. Returns whether it was.
bool CheckValue(std::string_view value, Ids* ids) {
  Status s = shale::SortedSet64Decode(value, ids);
  uint64_t count = 0;
  Status count_status = shale::SortedSet64Count(value, &count);
  // Contains reads little of the value: it may accept what Decode rejects, never crash.
  for (uint64_t probe : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, ~uint64_t{0}}) {
    bool found = false;
    Status cs = shale::SortedSet64Contains(value, probe, &found);
    Check(cs.ok() || cs.IsCorruption(), "Contains fails with Corruption");
    if (s.ok()) Check(cs.ok() && found == std::binary_search(ids->begin(), ids->end(), probe),
                      "Contains agrees with Decode");
  }
  if (!s.ok()) {
    Check(s.IsCorruption(), "a bad value is Corruption");
    return false;
  }
  Check(Ascending(*ids), "decoded ids ascend");
  Check(count_status.ok() && count == ids->size(), "Count agrees with Decode");
  return true;
}

bool CheckOperand(std::string_view operand, Ids* adds, Ids* removes) {
  Status s = shale::SortedSet64DecodeOperand(operand, adds, removes);
  if (!s.ok()) {
    Check(s.IsCorruption(), "a bad operand is Corruption");
    return false;
  }
  Check(Ascending(*adds) && Ascending(*removes), "operand ids ascend");
  Ids both;
  std::set_intersection(adds->begin(), adds->end(), removes->begin(), removes->end(),
                        std::back_inserter(both));
  Check(both.empty(), "adds and removes are disjoint");
  std::string again;
  Check(shale::SortedSet64Operand(*adds, *removes, &again).ok(), "an operand re-encodes");
  Ids adds2, removes2;
  Check(shale::SortedSet64DecodeOperand(again, &adds2, &removes2).ok() && adds2 == *adds &&
            removes2 == *removes,
        "a re-encoded operand decodes the same");
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t split = std::min<size_t>(data[0], input.size());
  const std::string_view value = input.substr(0, split);
  const std::string_view operand = input.substr(split);

  Ids ids, adds, removes;
  const bool value_ok = CheckValue(value, &ids);
  const bool operand_ok = CheckOperand(operand, &adds, &removes);

  static const std::shared_ptr<shale::MergeOperator> op = shale::NewSortedSet64Operator(8);
  std::string merged;
  Status s = shale::FullMerge(op.get(), "k", &value, {operand}, &merged);
  Check(s.ok() || s.IsCorruption(), "a failed merge is Corruption");
  if (!(value_ok && operand_ok)) {
    Check(operand_ok || !s.ok(), "a bad operand fails the merge");
    return 0;
  }
  Check(s.ok(), "a good value and operand merge");
  std::set<uint64_t> model(ids.begin(), ids.end());
  for (uint64_t id : adds) model.insert(id);
  for (uint64_t id : removes) model.erase(id);
  Ids got;
  Check(shale::SortedSet64Decode(merged, &got).ok(), "the merge result decodes");
  Check(got == Ids(model.begin(), model.end()), "the merge result is the model's set");

  // The operand applied twice, via a partial merge, gives the same set.
  std::string combined, twice;
  Check(shale::TryPartialMerge(op.get(), "k", {operand, operand}, &combined),
        "a good operand partially merges");
  Check(shale::FullMerge(op.get(), "k", &value, {combined}, &twice).ok() && twice == merged,
        "the partial merge of the operand with itself changes nothing more");
  return 0;
}
