// The command-line flags of shale_stress and their parsing into a StressConfig.
//
// Flags are parsed here rather than by absl::ParseCommandLine so that a usage error exits with
// status 2 (absl exits with 1, which the crash driver reads as a verification failure).
// Syntax: --name=value, and for booleans also --name / --noname.
//
// Thread-safety: ParseFlags runs once in main() before any thread starts.
#ifndef SHALE_TOOLS_SHALE_STRESS_FLAGS_H_
#define SHALE_TOOLS_SHALE_STRESS_FLAGS_H_

#include <string>

#include "shale/status.h"
#include "stress_config.h"

namespace shale::stress {

// What main() does besides the config.
struct RunMode {
  bool verify_only = false;
  bool randomize_options = true;
  bool help = false;
};

// Parses argv into *config and *mode. InvalidArgument with the reason on a usage error.
[[nodiscard]] Status ParseFlags(int argc, char** argv, StressConfig* config, RunMode* mode);

// The --help text.
std::string UsageText();

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_FLAGS_H_
