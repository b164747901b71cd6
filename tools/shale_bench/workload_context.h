// What a benchmark workload runs with: the read-only parameters of the run (WorkloadEnv), the
// state its threads share (SharedState), and each thread's own state (ThreadState).
//
// A workload is a function run by every thread of a benchmark at once (db_bench's method). It
// loops until its operation count or --duration is reached, or until another thread failed
// (SharedState::failed), and reports a failure with SharedState::Fail.
#ifndef SHALE_TOOLS_SHALE_BENCH_WORKLOAD_CONTEXT_H_
#define SHALE_TOOLS_SHALE_BENCH_WORKLOAD_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "generators.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/status.h"
#include "thread_stats.h"
#include "util/random.h"

namespace shale::bench {

class PostingListRun;  // posting_list.h

// db_bench's name of column family i (--num_column_families): "default" for 0, then
// "column_family_name_000001", "column_family_name_000002", ...
std::string ColumnFamilyName(int i);

// Parameters of one benchmark run. Set before the threads start, then only read.
struct WorkloadEnv {
  DB* db = nullptr;
  int64_t num = 0;               // the key space: keys are numbered [0, num)
  int64_t writes = 0;            // operations of a write workload, per thread
  int64_t reads = 0;             // operations of a read or mixed workload, per thread
  int64_t entries_per_batch = 1; // keys per WriteBatch / MultiGet
  int duration = 0;              // seconds; 0: the operation counts decide
  int key_size = 16;
  int readwritepercent = 90;
  int seek_nexts = 0;
  uint64_t write_rate_limit = 0;  // readwhilewriting's writer: bytes/s (0: unlimited)
  int64_t merge_keys = 0;        // mergerandom, readrandommergerandom: keys [0, merge_keys)
  int mergereadpercent = 70;     // readrandommergerandom: the percentage of merges
  PostingListRun* posting = nullptr;  // postinglist, postinglist_rmw: the run's shared state
  ValueShape value_shape;
  WriteOptions write_options;
  ReadOptions read_options;
  // The column families keys are spread over (--num_column_families), owned by the Benchmark:
  // key number k lives in families[k % families.size()], as db_bench's GetCfh. Empty: the
  // default family only.
  std::vector<ColumnFamilyHandle*> families;

  // The family of key number k.
  ColumnFamilyHandle* FamilyOf(uint64_t k) const {
    return families.empty() ? db->DefaultColumnFamily() : families[k % families.size()];
  }
  // Every family the run writes (the default one alone when `families` is empty).
  std::vector<ColumnFamilyHandle*> AllFamilies() const {
    return families.empty() ? std::vector<ColumnFamilyHandle*>{db->DefaultColumnFamily()}
                            : families;
  }
};

// Shared by the threads of one run. Thread-safe.
class SharedState {
 public:
  explicit SharedState(int total) : total_(total) {}

  // Start barrier: each thread calls Arrive and then WaitForStart; the runner calls
  // WaitAllArrived, then Go.
  void Arrive();
  void WaitForStart();
  void WaitAllArrived();
  void Go();
  // Completion: each thread calls Done; the runner calls WaitAllDone.
  void Done();
  void WaitAllDone();

  // Records the first failure ("<what>: <status>") and tells every thread to stop.
  void Fail(const Status& s, std::string_view what);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // The first failure; OK if none. Call after WaitAllDone.
  Status error() const;
  std::string error_context() const;

  // Reader threads still running (readwhilewriting's writer stops when it reaches 0).
  std::atomic<int> readers_running{0};

 private:
  mutable absl::Mutex mu_;
  // Signalled when any counter below changes or start_ is set.
  absl::CondVar cv_;
  const int total_;
  int arrived_ ABSL_GUARDED_BY(mu_) = 0;
  int done_ ABSL_GUARDED_BY(mu_) = 0;
  bool start_ ABSL_GUARDED_BY(mu_) = false;
  Status error_ ABSL_GUARDED_BY(mu_);
  std::string error_context_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> failed_{false};
};

// One thread's state. Owned by the runner, used by its thread only.
struct ThreadState {
  ThreadState(int id, uint64_t seed, const StatsConfig& config, SharedState* s)
      : tid(id), rand(seed), stats(id, config), shared(s) {}

  const int tid;  // 0..n-1
  Random rand;
  ThreadStats stats;
  SharedState* const shared;
};

// db_bench's Duration: counts operations and says when a run is over: after `max_ops`
// operations, or with `max_seconds` > 0 once that much time has passed (looked at about every
// 1000 operations), or as soon as any thread has failed.
class Duration {
 public:
  Duration(int max_seconds, int64_t max_ops, const SharedState* shared);

  // Counts `n` more operations; true when the run is over and they must not be done.
  bool Done(int64_t n);
  // The size of the next batch of up to `batch` operations: smaller at the end of a counted
  // run, so that exactly max_ops are done.
  int64_t NextBatch(int64_t batch) const {
    if (max_seconds_ > 0 || max_ops_ - ops_ >= batch) return batch;
    return max_ops_ - ops_ > 0 ? max_ops_ - ops_ : 1;
  }

 private:
  const int max_seconds_;
  const int64_t max_ops_;
  const SharedState* const shared_;
  const uint64_t start_micros_;
  int64_t ops_ = 0;
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_WORKLOAD_CONTEXT_H_
