// Options as one RocksDB-style line: GetOptionsFromString / GetStringFromOptions (DB and
// column-family options together), and the scoped forms GetDBOptionsFromString,
// GetColumnFamilyOptionsFromString, GetStringFromDBOptions, GetStringFromColumnFamilyOptions,
// which refuse the other scope's names.
#include "options/option_fields.h"
#include "shale/options.h"

namespace shale {

namespace {

// Parses `text` onto a copy of `base` with the fields of one scope; a name of the other scope
// is refused as such (WrongScopeOption), any other unknown name as unknown. *out is set only
// on success.
template <typename S, typename Other>
Status ParseScoped(std::span<const OptionField<S>> fields,
                   std::span<const OptionField<Other>> other_fields, OptionScope other_scope,
                   const S& base, std::string_view text, S* out) {
  S parsed = base;
  OptionParseContext strict;
  std::vector<OptionPair> pairs;
  Status s = SplitOptionList(text, strict, &pairs);
  for (size_t i = 0; s.ok() && i < pairs.size(); i++) {
    if (FindOptionField(fields, pairs[i].name) == nullptr &&
        FindOptionField(other_fields, pairs[i].name) != nullptr) {
      return WrongScopeOption(pairs[i].name, other_scope);
    }
    s = ParseOneOption(fields, pairs[i].name, pairs[i].value, strict, &parsed);
  }
  if (s.ok()) *out = std::move(parsed);
  return s;
}

}  // namespace

Status GetOptionsFromString(const Options& base, const std::string& opts, Options* out) {
  Options parsed = base;
  OptionParseContext strict;
  Status s = ParseOptionList(OptionsFields(), opts, strict, &parsed);
  if (s.ok()) *out = std::move(parsed);
  return s;
}

std::string GetStringFromOptions(const Options& options) {
  return PrintOptionList(OptionsFields(), options, ";", [](OptionGroup) { return true; });
}

Status GetDBOptionsFromString(const DBOptions& base, const std::string& opts,
                              DBOptions* new_options) {
  return ParseScoped(DBOptionsFields(), ColumnFamilyOptionsFields(), OptionScope::kColumnFamily,
                     base, opts, new_options);
}

Status GetColumnFamilyOptionsFromString(const ColumnFamilyOptions& base, const std::string& opts,
                                        ColumnFamilyOptions* new_options) {
  return ParseScoped(ColumnFamilyOptionsFields(), DBOptionsFields(), OptionScope::kDB, base, opts,
                     new_options);
}

Status GetStringFromDBOptions(std::string* opts_str, const DBOptions& db_options,
                              const std::string& delimiter) {
  *opts_str =
      PrintOptionList(DBOptionsFields(), db_options, delimiter, [](OptionGroup) { return true; });
  return Status::OK();
}

Status GetStringFromColumnFamilyOptions(std::string* opts_str,
                                        const ColumnFamilyOptions& cf_options,
                                        const std::string& delimiter) {
  *opts_str = PrintOptionList(ColumnFamilyOptionsFields(), cf_options, delimiter,
                              [](OptionGroup) { return true; });
  return Status::OK();
}

}  // namespace shale
