#include "cli_args.h"

#include <algorithm>
#include <charconv>

namespace shale::cli {

namespace {

bool Contains(const std::vector<std::string_view>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

Status CliArgs::Parse(const std::vector<std::string>& args, const ArgSpec& spec, CliArgs* out) {
  *out = CliArgs();
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out->help_ = true;
      continue;
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      out->positional_.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (Contains(spec.switch_options, name) && eq == std::string::npos) {
      out->options_[name] = "true";
    } else if (Contains(spec.value_options, name)) {
      if (eq != std::string::npos) {
        out->options_[name] = arg.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        out->options_[name] = args[++i];
      } else {
        return Status::InvalidArgument("--" + name, "needs a value");
      }
    } else {
      return Status::InvalidArgument(arg, "unknown option");
    }
  }
  return Status::OK();
}

std::string CliArgs::Get(std::string_view option, std::string fallback) const {
  auto it = options_.find(std::string(option));
  return it == options_.end() ? fallback : it->second;
}

Status CliArgs::GetUint(std::string_view option, uint64_t fallback, uint64_t* value) const {
  auto it = options_.find(std::string(option));
  if (it == options_.end()) {
    *value = fallback;
    return Status::OK();
  }
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument("--" + std::string(option),
                                   "expects a non-negative integer; got '" + s + "'");
  }
  return Status::OK();
}

}  // namespace shale::cli
