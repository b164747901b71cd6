// shale_bench: ShaleDB's db_bench. The same benchmark names and flags as RocksDB's db_bench,
// so that one command line runs against both engines:
//   shale_bench --benchmarks=fillrandom,readrandom --num=1000000 --db=/tmp/bench --json=out.json
// See flags.cc for the flags and benchmark_list.cc for the benchmarks. Exit status: 0 when
// every benchmark ran (or was skipped as not supported yet), 1 on an error, 1 for a bad flag.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "benchmark.h"
#include "benchmark_list.h"
#include "flags.h"
#include "options_from_flags.h"

namespace {

// --help lists the flags of this tool's files (absl's default looks for a file named after
// the program); --version prints the engine version.
void ConfigureUsage() {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view path) {
    return absl::StrContains(path, "shale_bench/");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.version_string = [] {
    return std::string("shale_bench (ShaleDB ") + SHALE_VERSION_STRING + ")\n";
  };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(
      "ShaleDB's db_bench: runs the --benchmarks list with db_bench's flags.\n"
      "  shale_bench --benchmarks=fillseq,readrandom --num=1000000 [--json=FILE] ...");
}

int Fail(const shale::Status& s) {
  std::fprintf(stderr, "shale_bench: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  ConfigureUsage();
  // Exits with a message on an unknown flag or a malformed value.
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "shale_bench: unexpected argument '%s' (flags start with --)\n", rest[1]);
    return 1;
  }
  shale::Status s = shale::bench::CheckFlags();
  if (!s.ok()) return Fail(s);
  std::vector<std::string> names;
  s = shale::bench::ParseBenchmarkList(absl::GetFlag(FLAGS_benchmarks), &names);
  if (!s.ok()) return Fail(s);
  shale::bench::Benchmark benchmark;
  return benchmark.Run(names);
}
