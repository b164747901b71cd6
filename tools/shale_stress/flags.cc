// See flags.h. Each flag documents itself; the verification rules are in expected_state.h
// (process crash) and durability.h (power loss).
#include "flags.h"

#include <cstdint>
#include <string_view>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "util/absl_compat.h"

ABSL_FLAG(std::string, db, "", "DB directory (required).");
ABSL_FLAG(std::string, expected_dir, "",
          "Directory of the expected state and the saved options (default: <db>.expected). "
          "Must outlive the DB across runs; wipe both together.");
ABSL_FLAG(uint32_t, threads, 4, "Worker threads.");
ABSL_FLAG(uint32_t, max_key, 10000, "Keys are 0..max_key-1 (fixed to the expected state).");
ABSL_FLAG(double, duration, 10, "Seconds to run the workload (unless --ops is set).");
ABSL_FLAG(uint64_t, ops, 0, "Operations per thread; 0: run for --duration.");
ABSL_FLAG(bool, sync, false, "WriteOptions::sync on every write.");
ABSL_FLAG(uint32_t, sync_one_in, 0,
          "Sync one write in this many (0: none; --power_loss makes 0 mean 10).");
ABSL_FLAG(uint32_t, max_filler, 100, "Values carry 0..max_filler filler bytes.");
ABSL_FLAG(uint64_t, seed, 1,
          "Seed of the workload, the power-cut time, and the options when the DB has none "
          "saved yet.");
ABSL_FLAG(bool, randomize_options, true,
          "Draw the DB options from --seed (for a new DB); else fixed small-buffer defaults.");
ABSL_FLAG(bool, verify_only, false,
          "Reopen the DB, verify every key against the expected state, update it, exit.");
ABSL_FLAG(bool, power_loss, false,
          "Run on the fault-injecting file system, cut the power at a random time, drop "
          "unsynced data, reopen and verify with the power-loss rules.");
ABSL_FLAG(uint32_t, column_families, 1,
          "Column families: \"default\" and cf1..cf<N-1> (created if missing), every key in "
          "each with its own expected state; batches may span families, flushes pick one. "
          "Fixed to the expected state, like --max_key. 1: the default family only.");
ABSL_FLAG(bool, atomic_flush, false,
          "Options::atomic_flush for a new DB (then saved with its other options).");
ABSL_FLAG(std::string, ops_mix, std::string(shale::stress::kDefaultOpMix),
          "Operation weights: name=weight,... (put, delete, merge, delete_range, batch, ingest, "
          "get, snapshot, iterate, flush, compact_range). Batches hold merges too.");

namespace shale::stress {
namespace {

constexpr const char* kFlagNames[] = {
    "db", "expected_dir", "threads", "max_key", "duration", "ops", "sync", "sync_one_in",
    "max_filler", "seed", "randomize_options", "verify_only", "power_loss", "column_families",
    "atomic_flush", "ops_mix"};

bool IsOurFlag(std::string_view name) {
  for (const char* n : kFlagNames) {
    if (name == n) return true;
  }
  return false;
}

// Sets one flag from "--name=value", "--name" or "--noname".
Status SetFlag(std::string_view arg) {
  if (arg.substr(0, 2) != "--") {
    return Status::InvalidArgument("unexpected argument '" + std::string(arg) +
                                   "' (flags start with --)");
  }
  arg.remove_prefix(2);
  const size_t eq = arg.find('=');
  std::string name(arg.substr(0, eq));
  std::string value = eq == std::string_view::npos ? "" : std::string(arg.substr(eq + 1));
  if (eq == std::string_view::npos) {
    value = "true";
    if (!IsOurFlag(name) && name.rfind("no", 0) == 0 && IsOurFlag(name.substr(2))) {
      name = name.substr(2);
      value = "false";
    }
  }
  absl::CommandLineFlag* flag = IsOurFlag(name) ? absl::FindCommandLineFlag(name) : nullptr;
  if (flag == nullptr) return Status::InvalidArgument("unknown flag --" + name);
  if (eq == std::string_view::npos && !flag->IsOfType<bool>()) {
    return Status::InvalidArgument("flag --" + name + " needs a value");
  }
  std::string error;
  if (!flag->ParseFrom(ToAbsl(value), &error)) {
    return Status::InvalidArgument("--" + name + ": " + error);
  }
  return Status::OK();
}

Status CheckConfig(const StressConfig& c) {
  if (c.db.empty()) return Status::InvalidArgument("--db is required");
  if (c.threads == 0 || c.threads > 256) return Status::InvalidArgument("--threads: 1..256");
  if (c.max_key < 16 || c.max_key > 100000000) {
    return Status::InvalidArgument("--max_key: 16..100000000");
  }
  if (c.column_families == 0 || c.column_families > kMaxColumnFamilies) {
    return Status::InvalidArgument("--column_families: 1.." + std::to_string(kMaxColumnFamilies));
  }
  if (uint64_t{c.max_key} * c.column_families > 100000000) {
    return Status::InvalidArgument("--max_key times --column_families: at most 100000000");
  }
  if (!(c.duration_seconds >= 0)) return Status::InvalidArgument("--duration: must be >= 0");
  return Status::OK();
}

}  // namespace

Status ParseFlags(int argc, char** argv, StressConfig* config, RunMode* mode) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      mode->help = true;
      return Status::OK();
    }
    Status s = SetFlag(arg);
    if (!s.ok()) return s;
  }
  StressConfig c;
  c.db = absl::GetFlag(FLAGS_db);
  c.expected_dir = absl::GetFlag(FLAGS_expected_dir);
  if (c.expected_dir.empty()) c.expected_dir = c.db + ".expected";
  c.threads = absl::GetFlag(FLAGS_threads);
  c.max_key = absl::GetFlag(FLAGS_max_key);
  c.duration_seconds = absl::GetFlag(FLAGS_duration);
  c.ops_per_thread = absl::GetFlag(FLAGS_ops);
  c.sync = absl::GetFlag(FLAGS_sync);
  c.sync_one_in = absl::GetFlag(FLAGS_sync_one_in);
  c.max_filler = absl::GetFlag(FLAGS_max_filler);
  c.seed = absl::GetFlag(FLAGS_seed);
  c.power_loss = absl::GetFlag(FLAGS_power_loss);
  c.column_families = absl::GetFlag(FLAGS_column_families);
  c.atomic_flush = absl::GetFlag(FLAGS_atomic_flush);
  if (c.power_loss && c.sync_one_in == 0 && !c.sync) c.sync_one_in = 10;
  Status s = ParseOpMix(absl::GetFlag(FLAGS_ops_mix), &c.weights);
  if (s.ok()) s = CheckConfig(c);
  if (!s.ok()) return s;
  mode->verify_only = absl::GetFlag(FLAGS_verify_only);
  mode->randomize_options = absl::GetFlag(FLAGS_randomize_options);
  *config = c;
  return Status::OK();
}

std::string UsageText() {
  std::string out =
      "shale_stress: a multi-threaded random workload that keeps an expected state which\n"
      "survives kill -9, and verifies the DB against it.\n"
      "  shale_stress --db=DIR [--expected_dir=DIR] [--duration=S] [--threads=N] ...\n"
      "  shale_stress --db=DIR --verify_only\n"
      "Exit status: 0 verified OK, 1 a verification failure or DB error, 2 usage error.\n"
      "Flags:\n";
  for (const char* n : kFlagNames) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(n);
    out += "  --" + std::string(n) + " (default " + std::string(flag->DefaultValue()) +
           ")\n      " + flag->Help() + "\n";
  }
  return out;
}

}  // namespace shale::stress
