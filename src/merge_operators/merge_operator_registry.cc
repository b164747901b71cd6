// CreateMergeOperatorFromString (shale/merge_operator.h): the built-in operators by their
// options-string form, "<name>" or "<name>:<parameter>". Each built-in's GetId() parses back
// to an equal operator.
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "shale/merge_operator.h"
#include "shale/sorted_set64.h"
#include "util/absl_compat.h"

namespace shale {
namespace {

constexpr const char* kKnownOperators =
    "uint64add, max, stringappend, stringappend:<delimiter>, sortedset64, "
    "sortedset64:<index_interval>";

Status BadId(std::string_view id, std::string_view why) {
  return Status::InvalidArgument(
      absl::StrCat("merge operator \"", ToAbsl(id), "\": ", ToAbsl(why)));
}

// Parses a decimal index_interval in the accepted range: digits only, no sign or spaces.
bool ParseIndexInterval(std::string_view text, int* interval) {
  if (text.empty() || text.size() > 6) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value < kSortedSet64MinIndexInterval || value > kSortedSet64MaxIndexInterval) return false;
  *interval = value;
  return true;
}

}  // namespace

Status CreateMergeOperatorFromString(std::string_view id, std::shared_ptr<MergeOperator>* result) {
  result->reset();
  if (id.empty() || id == "nullptr") return Status::OK();
  const size_t colon = id.find(':');
  const std::string_view name = id.substr(0, colon);
  const bool has_param = colon != std::string_view::npos;
  const std::string_view param = has_param ? id.substr(colon + 1) : std::string_view();
  if (name == "stringappend") {
    *result = NewStringAppendOperator(has_param ? param : ",");
    return Status::OK();
  }
  if (name == "sortedset64") {
    int interval = kSortedSet64DefaultIndexInterval;
    if (has_param && !ParseIndexInterval(param, &interval)) {
      return BadId(id, absl::StrCat("index_interval must be an integer in [",
                                    kSortedSet64MinIndexInterval, ", ",
                                    kSortedSet64MaxIndexInterval, "]"));
    }
    *result = NewSortedSet64Operator(interval);
    return Status::OK();
  }
  if (name == "uint64add" || name == "max") {
    if (has_param) return BadId(id, absl::StrCat(ToAbsl(name), " takes no parameter"));
    *result = name == "max" ? NewMaxOperator() : NewUInt64AddOperator();
    return Status::OK();
  }
  return BadId(id, absl::StrCat("unknown; known operators: ", kKnownOperators));
}

}  // namespace shale
