// The public sortedset64 functions (shale/sorted_set64.h) over the format code.
#include "shale/sorted_set64.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "merge_operators/sorted_set64_format.h"

namespace shale {
namespace {

void SortUnique(std::vector<uint64_t>* ids) {
  if (!std::is_sorted(ids->begin(), ids->end())) std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
}

}  // namespace

std::string SortedSet64AddOperand(std::vector<uint64_t> ids) {
  std::string operand;
  Status s = SortedSet64Operand(std::move(ids), {}, &operand);
  s.PermitUncheckedError();  // cannot fail with no removes
  return operand;
}

std::string SortedSet64RemoveOperand(std::vector<uint64_t> ids) {
  std::string operand;
  Status s = SortedSet64Operand({}, std::move(ids), &operand);
  s.PermitUncheckedError();  // cannot fail with no adds
  return operand;
}

Status SortedSet64Operand(std::vector<uint64_t> adds, std::vector<uint64_t> removes,
                          std::string* operand) {
  SortUnique(&adds);
  SortUnique(&removes);
  SortedSet64Patch patch;
  uint64_t conflict;
  if (!MakeSortedSet64Patch(adds, removes, &patch, &conflict)) {
    return Status::InvalidArgument(
        absl::StrCat("sortedset64: id ", conflict, " both added and removed in one operand"));
  }
  EncodeSortedSet64Operand(patch, operand);
  return Status::OK();
}

Status SortedSet64Value(std::vector<uint64_t> ids, int index_interval, std::string* value) {
  if (!ValidSortedSet64IndexInterval(index_interval)) {
    return Status::InvalidArgument(
        absl::StrCat("sortedset64: index_interval ", index_interval, " outside [",
                     kSortedSet64MinIndexInterval, ", ", kSortedSet64MaxIndexInterval, "]"));
  }
  SortUnique(&ids);
  return EncodeSortedSet64Value(ids, index_interval, value);
}

Status SortedSet64Decode(std::string_view value, std::vector<uint64_t>* ids) {
  Status s = DecodeSortedSet64Value(value, ids);
  if (!s.ok()) ids->clear();
  return s;
}

Status SortedSet64Contains(std::string_view value, uint64_t id, bool* found) {
  return SortedSet64ValueContains(value, id, found);
}

Status SortedSet64Count(std::string_view value, uint64_t* count) {
  return SortedSet64ValueCount(value, count);
}

Status SortedSet64DecodeOperand(std::string_view operand, std::vector<uint64_t>* adds,
                                std::vector<uint64_t>* removes) {
  adds->clear();
  removes->clear();
  SortedSet64Patch patch;
  Status s = DecodeSortedSet64Operand(operand, &patch);
  if (!s.ok()) return s;
  for (const SortedSet64Change& c : patch) (c.add ? adds : removes)->push_back(c.id);
  return Status::OK();
}

}  // namespace shale
