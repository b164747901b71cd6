// StressConfig: what one shale_stress run does, filled from the flags (flags.cc) and read by
// the workload and main(). Plus the operation mix: which operations the worker threads draw and
// with which weights.
//
// Thread-safety: a plain value, written once before the threads start.
#ifndef SHALE_TOOLS_SHALE_STRESS_STRESS_CONFIG_H_
#define SHALE_TOOLS_SHALE_STRESS_STRESS_CONFIG_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "keyspace.h"
#include "shale/status.h"

namespace shale::stress {

enum class OpType : int {
  kPut, kDelete, kMerge, kDeleteRange, kBatch, kIngest,   // writes
  kGet, kSnapshot, kIterate,                              // checked reads
  kFlush, kCompactRange,                                  // maintenance
};
inline constexpr int kNumOpTypes = 11;
using OpWeights = std::array<uint32_t, kNumOpTypes>;

// The flag name of each operation ("put", "delete_range", ...).
const char* OpName(OpType op);
// "put=400,delete=80,...": every operation named, weights in per-mille-ish units.
inline constexpr std::string_view kDefaultOpMix =
    "put=400,delete=60,merge=80,delete_range=15,batch=100,ingest=3,get=250,snapshot=40,"
    "iterate=40,flush=2,compact_range=1";
// Parses "name=weight,..." (names from OpName; unnamed operations get 0). InvalidArgument
// naming the bad part, or when every weight is 0.
[[nodiscard]] Status ParseOpMix(std::string_view text, OpWeights* weights);

struct StressConfig {
  std::string db;
  std::string expected_dir;
  uint32_t threads = 4;
  uint32_t max_key = 10000;
  double duration_seconds = 10;
  uint64_t ops_per_thread = 0;    // > 0: a thread stops after that many operations
  bool sync = false;              // WriteOptions::sync for every write
  uint32_t sync_one_in = 0;       // > 0: also sync one write in this many
  uint32_t max_filler = 100;      // filler bytes per value: 0..max_filler
  uint64_t seed = 1;
  bool power_loss = false;
  // Column families (keyspace.h): 1 is the default family only, as a DB without families.
  uint32_t column_families = 1;
  // Options::atomic_flush for a new DB (saved with its options like the others).
  bool atomic_flush = false;
  OpWeights weights{};

  Keyspace keyspace() const { return {max_key, column_families}; }
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_STRESS_CONFIG_H_
