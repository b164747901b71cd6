// The commands of the `shale` admin CLI. Each takes its parsed arguments and returns the
// process exit status: 0 on success, 1 when the operation failed (the error is printed to
// stderr as "shale: <command>: <error>"), 2 for a usage error.
#ifndef SHALE_TOOLS_SHALE_COMMANDS_H_
#define SHALE_TOOLS_SHALE_COMMANDS_H_

#include <cstddef>
#include <string_view>

#include "cli_args.h"
#include "shale/status.h"

namespace shale::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

using CommandFn = int (*)(const CliArgs& args);

struct Command {
  std::string_view name;
  std::string_view usage;    // "get DIR KEY [--hex]"
  std::string_view summary;  // one line
  std::string_view details;  // the rest of --help
  ArgSpec spec;
  size_t min_positional;
  size_t max_positional;     // SIZE_MAX: any number
  CommandFn run;
};

// Prints "shale: <command>: <status>" to stderr and returns kExitFailed.
int ReportError(std::string_view command, const Status& s);

// Commands over the public API (db_commands.cc, db_admin_commands.cc).
int GetCommand(const CliArgs& args);
int PutCommand(const CliArgs& args);
int DeleteCommand(const CliArgs& args);
int ScanCommand(const CliArgs& args);
int ListColumnFamiliesCommand(const CliArgs& args);
int CreateColumnFamilyCommand(const CliArgs& args);
int DropColumnFamilyCommand(const CliArgs& args);
int VerifyCommand(const CliArgs& args);
int CompactCommand(const CliArgs& args);
int RepairCommand(const CliArgs& args);
int StatsCommand(const CliArgs& args);
int OptionsCommand(const CliArgs& args);
// Moving data in, out and between databases (transfer_commands.cc).
int IngestCommand(const CliArgs& args);
int WriteSstCommand(const CliArgs& args);
int CheckpointCommand(const CliArgs& args);
// Commands that read the files directly (dump_sst.cc, dump_manifest.cc).
int DumpSstCommand(const CliArgs& args);
int DumpManifestCommand(const CliArgs& args);

}  // namespace shale::cli

#endif  // SHALE_TOOLS_SHALE_COMMANDS_H_
