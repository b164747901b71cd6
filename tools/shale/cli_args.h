// CliArgs: the arguments of one `shale <command>` call: positional arguments, and options
// written --name=value or --name value (--name alone for a switch). Each command names the
// options it accepts; anything else is an error, as is a missing or malformed value.
//
// Thread-safety: a plain value.
#ifndef SHALE_TOOLS_SHALE_CLI_ARGS_H_
#define SHALE_TOOLS_SHALE_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shale/status.h"

namespace shale::cli {

// What a command accepts.
struct ArgSpec {
  std::vector<std::string_view> value_options;   // --from=K, --limit=N ...
  std::vector<std::string_view> switch_options;  // --blocks, --hex ...
};

class CliArgs {
 public:
  // Parses args (the words after the command name). "--help" or "-h" anywhere sets help().
  // InvalidArgument naming the option for an unknown option or a value option without value.
  static Status Parse(const std::vector<std::string>& args, const ArgSpec& spec, CliArgs* out);

  const std::vector<std::string>& positional() const { return positional_; }
  bool help() const { return help_; }
  bool Has(std::string_view option) const { return options_.count(std::string(option)) > 0; }
  // The option's value, or `fallback` when it was not given.
  std::string Get(std::string_view option, std::string fallback = "") const;
  // The option's value as a non-negative integer (`fallback` when absent); InvalidArgument
  // naming the option when it is not one.
  Status GetUint(std::string_view option, uint64_t fallback, uint64_t* value) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> options_;
  bool help_ = false;
};

}  // namespace shale::cli

#endif  // SHALE_TOOLS_SHALE_CLI_ARGS_H_
