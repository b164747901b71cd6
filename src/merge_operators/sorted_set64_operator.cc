// "sortedset64" (shale/merge_operator.h, formats in shale/sorted_set64.h): the value is a set
// of 64-bit ids, operands are patches that add and remove ids.
//
// A full merge first combines all operands into one net patch (the newest change of an id
// wins), then applies it to the value once, so a key with many small operands pays for one
// pass over its value. Combining is a balanced tree of pairwise merges: O(total changes *
// log(operands)). Partial merges combine operands the same way into one operand.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "merge_operators/sorted_set64_format.h"
#include "shale/merge_operator.h"
#include "util/absl_compat.h"

namespace shale {
namespace {

// Combines patches (oldest first) into one, pairwise in a balanced tree. Consumes *patches.
SortedSet64Patch CombineAll(std::vector<SortedSet64Patch>* patches) {
  std::vector<SortedSet64Patch>& level = *patches;
  while (level.size() > 1) {
    size_t out = 0;
    for (size_t i = 0; i < level.size(); i += 2) {
      if (i + 1 == level.size()) {
        level[out++] = std::move(level[i]);
      } else {
        SortedSet64Patch combined;
        CombineSortedSet64Patches(level[i], level[i + 1], &combined);
        level[out++] = std::move(combined);
      }
    }
    level.resize(out);
  }
  return level.empty() ? SortedSet64Patch() : std::move(level[0]);
}

// Decodes operands into patches; on failure says which operand and why in *error (when not
// null).
template <typename Operands>
bool DecodeAll(const Operands& operands, std::vector<SortedSet64Patch>* patches,
               std::string* error) {
  patches->resize(operands.size());
  for (size_t i = 0; i < operands.size(); i++) {
    Status s = DecodeSortedSet64Operand(operands[i], &(*patches)[i]);
    if (!s.ok()) {
      if (error != nullptr) {
        *error = absl::StrCat("operand ", i + 1, " of ", operands.size(), ": ",
                              ToAbsl(s.message()));
      }
      return false;
    }
  }
  return true;
}

class SortedSet64Operator : public MergeOperator {
 public:
  explicit SortedSet64Operator(int index_interval) : index_interval_(index_interval) {}

  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    std::vector<SortedSet64Patch> patches;
    if (!DecodeAll(merge_in.operand_list, &patches, &merge_out->error_message)) return false;
    const SortedSet64Patch patch = CombineAll(&patches);
    Status s;
    if (merge_in.existing_value == nullptr) {
      std::vector<uint64_t> ids;
      for (const SortedSet64Change& c : patch) {
        if (c.add) ids.push_back(c.id);
      }
      s = EncodeSortedSet64Value(ids, index_interval_, &merge_out->new_value);
    } else {
      bool changed = false;
      s = ApplySortedSet64Patch(*merge_in.existing_value, patch, &merge_out->new_value, &changed);
      if (s.ok() && !changed) merge_out->existing_operand = *merge_in.existing_value;
      if (!s.ok()) s = Status::Corruption("existing value", s.message());
    }
    if (!s.ok()) merge_out->error_message = std::string(s.message());
    return s.ok();
  }

  bool PartialMerge(std::string_view, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override {
    SortedSet64Patch left, right, combined;
    if (!DecodeSortedSet64Operand(left_operand, &left).ok() ||
        !DecodeSortedSet64Operand(right_operand, &right).ok()) {
      return false;
    }
    CombineSortedSet64Patches(left, right, &combined);
    EncodeSortedSet64Operand(combined, new_value);
    return true;
  }

  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override {
    if (operand_list.size() < 2) return false;
    std::vector<SortedSet64Patch> patches;
    if (!DecodeAll(operand_list, &patches, nullptr)) return false;
    EncodeSortedSet64Operand(CombineAll(&patches), new_value);
    return true;
  }

  const char* Name() const override { return "sortedset64"; }

  std::string GetId() const override {
    if (index_interval_ == kSortedSet64DefaultIndexInterval) return Name();
    return absl::StrCat(Name(), ":", index_interval_);
  }

 private:
  const int index_interval_;
};

}  // namespace

std::shared_ptr<MergeOperator> NewSortedSet64Operator(int index_interval) {
  // The factory cannot fail: an out-of-range interval is clamped (GetId() shows the one used).
  // CreateMergeOperatorFromString rejects it instead.
  return std::make_shared<SortedSet64Operator>(
      std::clamp(index_interval, kSortedSet64MinIndexInterval, kSortedSet64MaxIndexInterval));
}

}  // namespace shale
