// The phases of a shale_stress run, in order:
//   1. open the expected state (expected_dir/EXPECTED) and the options (expected_dir/OPTIONS;
//      drawn from --seed and saved there the first time, so a DB keeps its options);
//   2. verify the DB as a process crash left it (expected_state.h rules) and reset the expected
//      state to what was found -- this is all --verify_only does;
//   3. run the workload (workload.h) for --duration or --ops;
//   4. crash mode: close the DB and verify again. Power-loss mode: the DB runs on the
//      fault-injecting file system; at a random time the file system is deactivated (every
//      write fails), the threads stop, the DB is dropped without a clean close, unsynced data
//      and directory entries are dropped (FaultInjectionFileSystem::DropUnsyncedData), and the
//      DB is reopened on the real file system and verified with the power-loss rules
//      (durability.h), then the expected state is reset to what was found.
// Killing the process (kill -9) at any point leaves an expected state that the next run's
// phase 2 verifies correctly. With --column_families=N every phase opens the DB with its N
// families (stress_db.h) and works on slots (keyspace.h).
//
// Thread-safety: runs on main's thread; starts and joins the workload threads.
#ifndef SHALE_TOOLS_SHALE_STRESS_RUNNER_H_
#define SHALE_TOOLS_SHALE_STRESS_RUNNER_H_

#include "stress_config.h"

namespace shale::stress {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a verification failure or a DB error
inline constexpr int kExitUsage = 2;

// Runs the phases above and returns the exit status.
int RunStress(const StressConfig& config, bool verify_only, bool randomize_options);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_RUNNER_H_
