// See runner.h.
#include "runner.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "durability.h"
#include "expected_state.h"
#include "fs/fault_injection_file_system.h"
#include "shale/db.h"
#include "stress_db.h"
#include "stress_options.h"
#include "util/random.h"
#include "verifier.h"
#include "workload.h"

namespace shale::stress {
namespace {

constexpr size_t kMaxPrintedFailures = 20;

int Fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  std::printf("shale_stress: result=FAIL\n");
  std::fflush(stdout);
  return kExitFailure;
}

// Opens the DB, checks every key against `allowed`, and on success resets the expected state
// to what was found. Returns the exit status. Without options.create_if_missing, a DB that
// does not exist yet is verified as empty.
int VerifyDB(const Options& options, const StressConfig& config, ExpectedState* state,
             const AllowedFn& allowed, const char* rules) {
  const Keyspace keyspace = config.keyspace();
  std::vector<Found> found(keyspace.slots());
  std::vector<std::string> read_failures;
  Status s;
  const bool db_exists =
      options.file_system->FileExists(config.db + "/CURRENT").ok() || options.create_if_missing;
  if (db_exists) {
    std::unique_ptr<StressDB> db;
    s = StressDB::Open(options, config.db, keyspace, &db);
    if (!s.ok()) return Fail(std::string("open for verification: ") + s.ToString());
    s = ReadState(db->db(), db->handles(), keyspace, &found, &read_failures);
    if (!s.ok()) return Fail(std::string("reading the DB: ") + s.ToString());
    s = db->Close();
    if (!s.ok()) read_failures.push_back("close after verification: " + s.ToString());
  } else {
    // A run killed before it created the DB acknowledged nothing: verify against no keys.
    std::printf("verify: no DB yet (no CURRENT file): every key must be allowed absent\n");
  }
  VerifyResult r = CheckState(found, allowed, keyspace);
  r.failures.insert(r.failures.begin(), read_failures.begin(), read_failures.end());
  std::printf("verify (%s rules): keys=%llu present=%llu failures=%zu merged=%llu\n", rules,
              static_cast<unsigned long long>(r.keys_checked),
              static_cast<unsigned long long>(r.keys_present), r.failures.size(),
              static_cast<unsigned long long>(r.keys_merged));
  if (!r.failures.empty()) {
    for (size_t i = 0; i < r.failures.size() && i < kMaxPrintedFailures; ++i) {
      std::printf("FAIL: %s\n", r.failures[i].c_str());
    }
    std::printf("shale_stress: result=FAIL verified_keys=%llu\n",
                static_cast<unsigned long long>(r.keys_checked));
    std::fflush(stdout);
    return kExitFailure;
  }
  for (uint32_t k = 0; k < keyspace.slots(); ++k) state->Reset(k, r.resolved[k]);
  std::fflush(stdout);
  return kExitOk;
}

// Loads the saved options of the DB, or makes new ones (and saves them, unless verify_only:
// a verification must not fix the options of a DB that does not exist yet).
Status PrepareOptions(const StressConfig& config, bool randomize, bool verify_only,
                      Options* options) {
  const std::string path = config.expected_dir + "/OPTIONS";
  Status s = LoadStressOptions(path, options);
  if (s.IsNotFound()) {
    *options = MakeStressOptions(config.seed, randomize);
    options->atomic_flush = config.atomic_flush;
    s = verify_only ? Status::OK() : SaveStressOptions(path, *options);
    std::printf("options: new (seed %llu)\n", static_cast<unsigned long long>(config.seed));
  } else if (s.ok()) {
    std::printf("options: saved in %s\n", path.c_str());
  }
  if (!s.ok()) return s;
  options->create_if_missing = true;
  std::printf("options: %s column_families=%u\n", SummarizeOptions(*options).c_str(),
              config.column_families);
  return Status::OK();
}

void PrintOps(const Workload& w, double seconds) {
  const auto counts = w.op_counts();
  std::printf("workload: %llu ops in %.1f s:", static_cast<unsigned long long>(w.ops_done()),
              seconds);
  for (int i = 0; i < kNumOpTypes; ++i) {
    std::printf(" %s=%llu", OpName(static_cast<OpType>(i)),
                static_cast<unsigned long long>(counts[i]));
  }
  std::printf(" merge_operands=%llu\n", static_cast<unsigned long long>(w.merges_done()));
  std::fflush(stdout);
}

// Runs the workload on `db` until it ends, or until `cut_after` seconds pass (then calls
// on_cut first and stops the threads). Returns the workload's failures.
std::vector<std::string> RunWorkload(const StressConfig& config, const StressDB& db,
                                     ExpectedState* state, DurabilityTracker* tracker,
                                     double cut_after, const std::function<void()>& on_cut) {
  Workload w(config, db.db(), state, tracker, db.handles());
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  w.Start();
  double next_progress = 1;
  while (w.Running() && elapsed() < cut_after) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (elapsed() >= next_progress) {
      // A run killed by the crash driver never prints its summary: this is what it did.
      std::printf("progress: %.0f s ops=%llu merge_operands=%llu\n", next_progress,
                  static_cast<unsigned long long>(w.ops_done()),
                  static_cast<unsigned long long>(w.merges_done()));
      next_progress += 1;
    }
  }
  if (on_cut) {
    std::printf("power cut after %.2f s\n", elapsed());
    w.PowerCut();  // first: the errors on_cut causes are expected from now on
    on_cut();
  }
  w.Stop();
  w.Join();
  PrintOps(w, elapsed());
  return w.failures();
}

int RunCrashMode(const StressConfig& config, const Options& options, ExpectedState* state) {
  std::unique_ptr<StressDB> db;
  Status s = StressDB::Open(options, config.db, config.keyspace(), &db);
  if (!s.ok()) return Fail(std::string("open: ") + s.ToString());
  std::vector<std::string> failures = RunWorkload(config, *db, state, nullptr, 1e300, {});
  if (!failures.empty()) return Fail(failures.front());
  s = db->Close();
  if (!s.ok()) return Fail(std::string("close: ") + s.ToString());
  db.reset();
  return VerifyDB(options, config, state,
                  [state](uint32_t k) { return state->AllowedAfterCrash(k); }, "crash");
}

int RunPowerLossMode(const StressConfig& config, const Options& options,
                     ExpectedState* state) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(options.file_system);
  Options fault_options = options;
  fault_options.file_system = fs;
  std::unique_ptr<StressDB> db;
  Status s = StressDB::Open(fault_options, config.db, config.keyspace(), &db);
  if (!s.ok()) return Fail(std::string("open: ") + s.ToString());
  std::vector<KeyState> initial(state->slots());
  for (uint32_t k = 0; k < state->slots(); ++k) initial[k] = state->Acked(k);
  DurabilityTracker tracker(initial);
  Random rnd(config.seed ^ 0x5eed);
  const double cut_after =
      config.ops_per_thread > 0 ? 1e300 : config.duration_seconds * (0.3 + 0.7 * rnd.NextDouble());
  std::vector<std::string> failures = RunWorkload(
      config, *db, state, &tracker, cut_after,
      [&fs] { fs->SetFilesystemActive(false, FaultIOError("power cut")); });
  if (!failures.empty()) return Fail(failures.front());
  db.reset();  // the dead process: its Close fails on the inactive file system
  s = fs->DropUnsyncedData();
  if (!s.ok()) return Fail(std::string("dropping unsynced data: ") + s.ToString());
  return VerifyDB(options, config, state,
                  [&tracker](uint32_t k) { return tracker.AllowedAfterPowerLoss(k); },
                  "power-loss");
}

}  // namespace

int RunStress(const StressConfig& config, bool verify_only, bool randomize_options) {
  Status s = FileSystem::Default()->CreateDirIfMissing(config.expected_dir);
  std::unique_ptr<ExpectedState> state;
  if (s.ok()) {
    s = ExpectedState::Open(config.expected_dir + "/EXPECTED", config.max_key,
                            config.column_families, &state);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "shale_stress: %s\n", s.ToString().c_str());
    return s.IsInvalidArgument() ? kExitUsage : kExitFailure;
  }
  Options options;
  s = PrepareOptions(config, randomize_options, verify_only, &options);
  if (!s.ok()) return Fail(s.ToString());
  if (verify_only) options.create_if_missing = false;
  std::printf("expected state: %u keys, %u pending (%u merges)\n", state->slots(),
              state->CountPending(), state->CountPending(WriteKind::kMerge));
  int rc = VerifyDB(options, config, state.get(),
                    [&state](uint32_t k) { return state->AllowedAfterCrash(k); }, "crash");
  if (rc != kExitOk || verify_only) {
    if (rc == kExitOk) std::printf("shale_stress: result=OK verified_keys=%u\n", state->slots());
    return rc;
  }
  rc = config.power_loss ? RunPowerLossMode(config, options, state.get())
                         : RunCrashMode(config, options, state.get());
  if (rc == kExitOk) std::printf("shale_stress: result=OK verified_keys=%u\n", state->slots());
  std::fflush(stdout);
  return rc;
}

}  // namespace shale::stress
