// shale_stress: ShaleDB's db_stress. A multi-threaded random workload over a bounded key
// space that keeps an expected state surviving kill -9, and verifies the DB against it after a
// process crash or a simulated power loss. test/crash/crash_test.py drives it in crash loops.
//   shale_stress --db=/tmp/s --duration=30            run, then verify
//   shale_stress --db=/tmp/s --verify_only            verify what a killed run left
//   shale_stress --db=/tmp/s --power_loss --duration=10
// See runner.h for the phases, expected_state.h and durability.h for the rules.
#include <cstdio>

#include "flags.h"
#include "runner.h"
#include "util/mutex.h"

int main(int argc, char** argv) {
  shale::ConfigureMutexDebugging();
  shale::stress::StressConfig config;
  shale::stress::RunMode mode;
  const shale::Status s = shale::stress::ParseFlags(argc, argv, &config, &mode);
  if (mode.help) {
    std::printf("%s", shale::stress::UsageText().c_str());
    return shale::stress::kExitOk;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "shale_stress: %s (see --help)\n", s.ToString().c_str());
    return shale::stress::kExitUsage;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return shale::stress::RunStress(config, mode.verify_only, mode.randomize_options);
}
