#include "options/dynamic_options.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "options/option_fields.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// Applies `changes` onto a copy of `base` with the fields of one scope (S); `other_fields` are
// the other scope's, refused with a pointer to `other_call`. Names are handled in sorted order,
// so the error reported for several bad changes does not depend on the map's order.
template <typename S, typename Other>
Status ApplyChanges(std::span<const OptionField<S>> fields,
                    std::span<const OptionField<Other>> other_fields, OptionScope other_scope,
                    std::string_view other_call, const S& base,
                    const std::unordered_map<std::string, std::string>& changes, S* result) {
  std::vector<const std::pair<const std::string, std::string>*> sorted;
  sorted.reserve(changes.size());
  for (const auto& change : changes) sorted.push_back(&change);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->first < b->first;
  });
  S updated = base;
  const OptionParseContext strict;
  for (const auto* change : sorted) {
    const std::string& name = change->first;
    const OptionField<S>* field = FindOptionField(fields, name);
    if (field == nullptr) {
      if (FindOptionField(other_fields, name) != nullptr) {
        return Status::InvalidArgument(absl::StrCat(
            name, " is a ", ToAbsl(OptionScopeName(other_scope)), " option: use ",
            ToAbsl(other_call)));
      }
      return Status::InvalidArgument(absl::StrCat("unknown option '", name, "'"));
    }
    if (!field->dynamic) {
      return Status::InvalidArgument(
          absl::StrCat(name, " cannot be changed while the DB is open"));
    }
    Status s = field->parse(name, TrimOptionText(change->second), strict, &updated);
    if (!s.ok()) return s;
  }
  *result = std::move(updated);
  return Status::OK();
}

}  // namespace

Status ApplyColumnFamilyOptionChanges(const ColumnFamilyOptions& base,
                                      const std::unordered_map<std::string, std::string>& changes,
                                      ColumnFamilyOptions* result) {
  return ApplyChanges(ColumnFamilyOptionsFields(), DBOptionsFields(), OptionScope::kDB,
                      "SetDBOptions", base, changes, result);
}

Status ApplyDBOptionChanges(const DBOptions& base,
                            const std::unordered_map<std::string, std::string>& changes,
                            DBOptions* result) {
  return ApplyChanges(DBOptionsFields(), ColumnFamilyOptionsFields(), OptionScope::kColumnFamily,
                      "SetOptions", base, changes, result);
}

}  // namespace shale
