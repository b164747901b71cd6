// LevelTargets: the size each level of a level-style LSM tree should have, and how urgently
// each level needs compaction (its score), computed from a Version and the options.
//
// Static sizes (level_compaction_dynamic_level_bytes = false): L1 may hold
// max_bytes_for_level_base bytes and each deeper level max_bytes_for_level_multiplier times
// more; L0 compacts into L1 (the base level).
//
// Dynamic sizes (true, the default): the bottom level holds whatever it holds and each level
// above it targets 1/multiplier of the level below. Levels whose target would fall below
// max_bytes_for_level_base / multiplier stay empty, and L0 compacts into the first level that
// does have a target (the base level). So a small DB has two levels in use (L0 and the bottom)
// and gains levels upward as it grows; about 90% of the data always sits in the bottom level,
// and space amplification stays near 1.11.
//
// With Options::allow_ingest_behind the last level is reserved (compaction/reserved_level.h):
// "the bottom level" above is then num_levels - 2, and the reserved level has no target and
// scores 0.
//
// Scores: L0 scores its file count over level0_file_num_compaction_trigger (and its bytes over
// max_bytes_for_level_base, so a few huge L0 files also compact); the levels from L1 to the
// one above the bottom level score their bytes over their target. A level above the base level
// that holds files (a flush can place files there) scores at least 1, so its files move down.
// A score >= 1 means "compaction due".
// Files already being compacted do not count.
//
// Thread-safety: a plain function of its arguments; call with the Version referenced and the
// DB mutex held (being_compacted flags are read).
#ifndef SHALE_COMPACTION_LEVEL_TARGETS_H_
#define SHALE_COMPACTION_LEVEL_TARGETS_H_

#include <cstdint>
#include <vector>

#include "shale/options.h"
#include "version/version.h"

namespace shale {

struct LevelTargets {
  int base_level = 1;                 // where L0 compacts to
  std::vector<uint64_t> max_bytes;    // per level; 0 for L0, levels above base_level and a
                                      // reserved last level
  std::vector<double> scores;         // per level; the bottom (and a reserved) level always 0
};

LevelTargets ComputeLevelTargets(const Version& v, const Options& options);

// The bytes compaction would have to rewrite to bring every level within its target (an
// estimate, RocksDB's "pending compaction bytes"): L0 and the base level when L0 is due, then
// for each level over its target the excess plus its share of the next level it merges with.
uint64_t EstimateLevelPendingBytes(const Version& v, const Options& options,
                                   const LevelTargets& targets);

// The size at which compaction cuts output files of `level`:
// target_file_size_base * target_file_size_multiplier^(level - base_level) (base for L0 and
// levels above base).
uint64_t TargetFileSizeForLevel(const Options& options, int level, int base_level);

}  // namespace shale

#endif  // SHALE_COMPACTION_LEVEL_TARGETS_H_
