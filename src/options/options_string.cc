// GetOptionsFromString and GetStringFromOptions: Options as one RocksDB-style line.
#include "options/option_fields.h"
#include "shale/options.h"

namespace shale {

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

}  // namespace shale
