// The "sortedset64" operand format (shale/sorted_set64.h) and patch arithmetic
// (merge/sorted_set64_format.h).
#include <algorithm>
#include <cassert>
#include <limits>

#include "absl/strings/str_cat.h"
#include "merge_operators/sorted_set64_format.h"
#include "util/coding.h"

namespace shale {
namespace {

constexpr uint64_t kMaxId = std::numeric_limits<uint64_t>::max();

Status OperandCorrupt(std::string_view what) {
  return Status::Corruption("sortedset64 operand", what);
}

// Decodes `n` ascending ids (the first absolute, then differences) from [*p, limit).
Status DecodeIdList(const char** p, const char* limit, uint64_t n, const char* list,
                    std::vector<uint64_t>* ids) {
  ids->resize(n);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t v;
    *p = GetVarint64Ptr(*p, limit, &v);
    if (*p == nullptr) return OperandCorrupt(absl::StrCat(list, " truncated at id ", i));
    if (i > 0 && v == 0) return OperandCorrupt(absl::StrCat(list, " out of order at id ", i));
    if (i > 0 && v > kMaxId - prev) {
      return OperandCorrupt(absl::StrCat(list, " overflow 64 bits at id ", i));
    }
    prev = i == 0 ? v : prev + v;
    (*ids)[i] = prev;
  }
  return Status::OK();
}

void PutIdList(const SortedSet64Patch& patch, bool add, std::string* out) {
  uint64_t prev = 0;
  bool first = true;
  for (const SortedSet64Change& c : patch) {
    if (c.add != add) continue;
    PutVarint64(out, first ? c.id : c.id - prev);
    prev = c.id;
    first = false;
  }
}

}  // namespace

void EncodeSortedSet64Operand(const SortedSet64Patch& patch, std::string* operand) {
  const auto adds = static_cast<uint64_t>(
      std::count_if(patch.begin(), patch.end(), [](const SortedSet64Change& c) { return c.add; }));
  operand->clear();
  operand->push_back(kSortedSet64OperandTag);
  PutVarint64(operand, adds);
  PutVarint64(operand, patch.size() - adds);
  PutIdList(patch, true, operand);
  PutIdList(patch, false, operand);
}

Status DecodeSortedSet64Operand(std::string_view operand, SortedSet64Patch* patch) {
  if (operand.empty()) return OperandCorrupt("empty");
  if (operand[0] != kSortedSet64OperandTag) {
    return OperandCorrupt(operand[0] == kSortedSet64ValueTag
                              ? "format byte 0x01 is a value's, not an operand's"
                              : absl::StrCat("unknown format byte ",
                                             static_cast<unsigned char>(operand[0])));
  }
  operand.remove_prefix(1);
  uint64_t num_adds, num_removes;
  if (!GetVarint64(&operand, &num_adds) || !GetVarint64(&operand, &num_removes)) {
    return OperandCorrupt("truncated header");
  }
  // Every id takes at least one byte: this bounds the allocations below.
  if (num_adds > operand.size() || num_removes > operand.size() - num_adds) {
    return OperandCorrupt(absl::StrCat(num_adds, " adds and ", num_removes,
                                       " removes cannot fit in ", operand.size(), " bytes"));
  }
  const char* p = operand.data();
  const char* limit = p + operand.size();
  std::vector<uint64_t> adds, removes;
  Status s = DecodeIdList(&p, limit, num_adds, "adds", &adds);
  if (s.ok()) s = DecodeIdList(&p, limit, num_removes, "removes", &removes);
  if (!s.ok()) return s;
  if (p != limit) return OperandCorrupt(absl::StrCat(limit - p, " bytes after the removes"));
  uint64_t conflict;
  if (!MakeSortedSet64Patch(adds, removes, patch, &conflict)) {
    return OperandCorrupt(absl::StrCat("id ", conflict, " both added and removed"));
  }
  return Status::OK();
}

bool MakeSortedSet64Patch(std::span<const uint64_t> adds, std::span<const uint64_t> removes,
                          SortedSet64Patch* patch, uint64_t* conflict) {
  patch->clear();
  patch->reserve(adds.size() + removes.size());
  size_t i = 0, j = 0;
  while (i < adds.size() || j < removes.size()) {
    if (j == removes.size() || (i < adds.size() && adds[i] < removes[j])) {
      patch->push_back({adds[i++], true});
    } else if (i == adds.size() || removes[j] < adds[i]) {
      patch->push_back({removes[j++], false});
    } else {
      *conflict = adds[i];
      return false;
    }
  }
  return true;
}

void CombineSortedSet64Patches(const SortedSet64Patch& older, const SortedSet64Patch& newer,
                               SortedSet64Patch* out) {
  assert(out != &older && out != &newer);
  out->clear();
  out->reserve(older.size() + newer.size());
  size_t i = 0, j = 0;
  while (i < older.size() && j < newer.size()) {
    if (older[i].id < newer[j].id) {
      out->push_back(older[i++]);
    } else {
      if (older[i].id == newer[j].id) i++;  // the newer change wins
      out->push_back(newer[j++]);
    }
  }
  out->insert(out->end(), older.begin() + static_cast<ptrdiff_t>(i), older.end());
  out->insert(out->end(), newer.begin() + static_cast<ptrdiff_t>(j), newer.end());
}

}  // namespace shale
