// MergePlan: how BulkLoader::Finish merges its sorted runs within the loader's budgets of file
// descriptors and memory (issue 19, finding 15: merging every run at once ran out of both).
//
// A merge reads at most `fan_in` run files at once, each through a read buffer of
// `buffer_size` bytes, and writes one file (a merged run through a write buffer of the same
// size, or a table file). With more run files than the fan-in, Finish first merges groups of
// consecutive runs into longer runs (intermediate passes: consecutive, so that the run ages,
// and with them "the last Add wins", are kept), until at most `fan_in` are left; the final
// pass merges those (and the sorted buffers still in memory) into table files, one key range
// per thread. So at any time, over all `threads` merge threads:
//   descriptors <= threads * (fan_in + 1) <= the descriptor budget
//   buffer bytes <= threads * (fan_in + 1) * buffer_size <= the memory budget
// (a read buffer grows past buffer_size only for a record larger than it).
//
// Thread-safety: plain functions; FreeDescriptors reads process-wide state.
#ifndef SHALE_BULK_MERGE_PLAN_H_
#define SHALE_BULK_MERGE_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shale::bulk {

// The largest read buffer a run file gets (more does not make sequential reads faster).
inline constexpr size_t kMaxRunBuffer = 1 << 20;
// The smallest read buffer the plan gives a run file before it lowers the fan-in instead.
inline constexpr size_t kMinRunBuffer = 16 << 10;

struct MergePlan {
  int threads = 1;          // merge threads
  int fan_in = 2;           // run files one merge reads at once, >= 2
  size_t buffer_size = 0;   // bytes of each read buffer and of a merged run's write buffer
};

// The plan for merging `runs` run files on up to `threads` threads, holding at most
// `descriptors` files open at once and `memory` bytes of buffers. The fan-in is no larger
// than the runs need; within the budgets the buffers are as large as possible (up to
// kMaxRunBuffer), then the fan-in and then the threads shrink to keep each buffer at least
// kMinRunBuffer. Budgets too small for one merge of two runs give threads = 1, fan_in = 2.
MergePlan PlanMerge(uint64_t descriptors, uint64_t memory, int threads, size_t runs);

// Consecutive runs [begin, end) that an intermediate pass merges into one run.
struct RunGroup {
  size_t begin = 0;
  size_t end = 0;
};

// The groups of the next intermediate pass over `runs` run files (oldest first), at most
// `fan_in` runs each: from the oldest, just enough groups for the count to drop to `fan_in`
// (or as far as one pass can take it). Empty when runs <= fan_in. REQUIRES: fan_in >= 2.
std::vector<RunGroup> PlanPass(size_t runs, int fan_in);

// File descriptors this process may still open: the RLIMIT_NOFILE soft limit minus the
// descriptors open now (counted in /proc/self/fd where there is one) minus `reserve`; 0 when
// nothing is left. An unlimited limit counts as 1 << 20.
uint64_t FreeDescriptors(uint64_t reserve);

}  // namespace shale::bulk

#endif  // SHALE_BULK_MERGE_PLAN_H_
