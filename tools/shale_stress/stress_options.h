// The DB options of a stress run: drawn at random from a seed over the options surface, or
// defaults sized to exercise flush and compaction; saved next to the expected state so that
// every later run and every --verify_only of the same DB uses the same ones.
//
// Randomised (--randomize_options=1): compaction style (level, universal, FIFO -- FIFO with a
// max_table_files_size far above what the workload writes, so it never drops data, 1-4 MiB
// write buffers and L0 triggers that never stall, since all its files stay in L0; None is
// left out because nothing would ever bound L0), level and universal knobs, L0 triggers, write
// buffers (64-256 KiB, 2-4 of them), target file sizes (64 KiB-1 MiB), filters (none, full or
// partitioned bloom), index type (binary or two-level), data-block hash index, block and
// metadata block sizes, compression (none or zstd, and the bottommost one), block cache size
// or none, caching of index and filter blocks, background jobs and subcompactions, and
// max_successive_merges (0 two times in three, else 1-8).
// Every stress DB has the stress merge operator (stress_merge_operator.h), randomised or not;
// it is saved by name and put back on load.
//
// Thread-safety: free functions.
#ifndef SHALE_TOOLS_SHALE_STRESS_STRESS_OPTIONS_H_
#define SHALE_TOOLS_SHALE_STRESS_STRESS_OPTIONS_H_

#include <cstdint>
#include <string>

#include "shale/options.h"

namespace shale::stress {

// Options drawn from `seed` (randomize) or the fixed small-buffer defaults.
Options MakeStressOptions(uint64_t seed, bool randomize);

// A one-line summary of the options that matter to the run, for the log.
std::string SummarizeOptions(const Options& options);

// Saves options (as an option string) to `path`, replacing it atomically; loads them back.
[[nodiscard]] Status SaveStressOptions(const std::string& path, const Options& options);
[[nodiscard]] Status LoadStressOptions(const std::string& path, Options* options);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_STRESS_OPTIONS_H_
