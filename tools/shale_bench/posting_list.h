// The posting-list workload, ShaleDB's addition (issue 11): lists of 64-bit ids under Zipf-
// distributed keys, each operation adding one new id to one list, while a reader times Gets of
// the hottest list as it grows.
//
//   postinglist      Merge(list, SortedSet64AddOperand({id})): needs
//                    --merge_operator=sortedset64[:<index_interval>]
//   postinglist_rmw  the same adds by read-modify-write: Get, SortedSet64Decode, insert the id,
//                    SortedSet64Value, Put, under a lock of the list (the lock an application
//                    needs for it with --threads > 1); the values are sortedset64 values of the
//                    operator's index_interval (128 without one)
//
// The stream: --threads writers; writer w draws its lists from a Zipf distribution over
// --posting_lists lists (--zipf_theta; list k is key number k, list 0 the hottest) with a
// generator seeded from --seed and w alone, so both benchmarks see the same lists and ids for
// the same --seed, whatever else ran before them. Writer w's i-th add is id i * writers + w
// (--posting_ids=sequential: increasing over the run, as document ids are handed out) or that
// number through SplitMix64's finalizer (random: distinct ids spread over the 64-bit space).
// Every id is new, so a list's size is the number of adds made to it.
//
// One more thread, the reader, Gets the hottest list back to back while the writers go on, and
// files each Get's latency under the list's size at that moment (SizeBuckets). The writers stop
// once the hottest list holds --posting_target_ids ids and the reader has timed
// --posting_target_gets Gets at that size or more (or --posting_max_hold_seconds have passed
// since it got there, for Gets too slow to wait for), or at --duration seconds.
//
// Thread-safety: a PostingListRun is shared by the writers and the reader of one run; what each
// method may be called by is written on it. The figures are read once the threads are joined.
#ifndef SHALE_TOOLS_SHALE_BENCH_POSTING_LIST_H_
#define SHALE_TOOLS_SHALE_BENCH_POSTING_LIST_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "generators.h"
#include "shale/merge_operator.h"
#include "shale/status.h"
#include "util/histogram.h"
#include "workload_context.h"

namespace shale::bench {

struct PostingListConfig {
  uint64_t lists = 1000;         // --posting_lists
  double zipf_theta = 0.99;      // --zipf_theta
  uint64_t target_ids = 1000000; // --posting_target_ids
  uint64_t target_gets = 1000;   // --posting_target_gets
  int max_hold_seconds = 10;     // --posting_max_hold_seconds
  bool random_ids = false;       // --posting_ids=random
  int writers = 1;               // --threads
  uint64_t seed = 0;             // the run's --seed (the writers' streams derive from it)
  int index_interval = 128;      // of the values postinglist_rmw writes

  // Every field but seed and index_interval from the flags.
  static PostingListConfig FromFlags();
};

// A range of the hottest list's sizes, [min_ids, max_ids); the last has no end.
struct SizeBucket {
  uint64_t min_ids = 0;
  uint64_t max_ids = 0;  // UINT64_MAX for the last bucket
  std::string label;     // "<1k", "1k-10k", ..., ">=1M"
};

// The buckets for a target: below 1k, then decades while below the target, then the rest up
// to the target, then at least the target. E.g. 1M: <1k 1k-10k 10k-100k 100k-1M >=1M;
// 20000: <1k 1k-10k 10k-20k >=20k; 500: <500 >=500.
std::vector<SizeBucket> SizeBuckets(uint64_t target_ids);

// What was measured while the hottest list's size was in one bucket.
struct BucketFigures {
  SizeBucket bucket;
  Histogram get_micros;       // the reader's Gets of the hottest list
  double adds_per_sec = 0;    // all writers' adds per second; 0 if never reached
};

// The index_interval of a sortedset64 operator (its GetId() "sortedset64:<n>"), else 128.
int SortedSet64IndexInterval(const MergeOperator* op);

class PostingListRun {
 public:
  explicit PostingListRun(const PostingListConfig& config);

  PostingListRun(const PostingListRun&) = delete;
  PostingListRun& operator=(const PostingListRun&) = delete;

  const PostingListConfig& config() const { return config_; }
  const ZipfGenerator& zipf() const { return zipf_; }
  // The id writer w adds as its i-th add.
  uint64_t IdOf(int writer, uint64_t i) const;

  // Any thread, as it starts: the first call starts the clock of the size buckets.
  void NoteStart();
  // Writers: one add to `list` is done.
  void CountAdd(uint64_t list);
  // Writers: whether the run is over (the hottest list at its target and the Gets timed, or
  // held there long enough).
  bool Done() const;
  // Writers, once each as they stop. The reader stops when none is running.
  void WriterDone();
  bool writers_running() const { return writers_running_.load(std::memory_order_acquire) > 0; }
  // Writers of postinglist_rmw: the lock of `list` (one of a fixed set, shared by lists).
  absl::Mutex* ListLock(uint64_t list) { return &locks_[list % kLocks]; }

  // The reader: a Get of the hottest list that took `micros` and found `ids` ids.
  void RecordGet(uint64_t ids, double micros);

  // After the threads are joined.
  uint64_t hottest_adds() const { return hottest_adds_.load(); }
  uint64_t total_adds() const { return total_adds_.load(); }
  std::vector<BucketFigures> Figures() const;

 private:
  static constexpr size_t kLocks = 256;

  // When the hottest list entered a bucket: the time and the adds of all lists until then.
  struct Crossing {
    uint64_t micros = 0;
    uint64_t total_adds = 0;
    bool reached = false;
  };

  size_t BucketOf(uint64_t ids) const;

  const PostingListConfig config_;
  const ZipfGenerator zipf_;
  const std::vector<SizeBucket> buckets_;
  std::atomic<uint64_t> hottest_adds_{0};
  std::atomic<uint64_t> total_adds_{0};
  std::atomic<uint64_t> target_gets_done_{0};
  // When the hottest list reached the target (NowMicros); 0 before.
  std::atomic<uint64_t> target_reached_micros_{0};
  std::atomic<int> writers_running_;
  std::atomic<bool> started_{false};
  // crossings_[b] is written once, by the thread that started the run (b = 0) or whose add
  // took the hottest list into bucket b; end_ by the last writer to stop. Read after the join.
  std::vector<Crossing> crossings_;
  Crossing end_;
  // The reader's histograms, one per bucket; read after the join.
  std::vector<Histogram> get_micros_;
  // locks_[i] guards no field: it serializes postinglist_rmw's read-modify-writes of the lists
  // whose number is i modulo kLocks (held across the Get and the Put of one add).
  std::unique_ptr<absl::Mutex[]> locks_;
};

// The reader's table, printed after the benchmark's report line:
//   postinglist  : hottest list: key 0, 13.03% of the adds, 1000131 ids
//   Get of the hottest list while the writers go on, by its size (microseconds; adds/s: all
//   writers' rate meanwhile):
//     ids             gets        P50        P99        max      adds/s
//     <1k              812       8.21      30.12      95.00      310231
//     ...
std::string FormatPostingReport(std::string_view name, const PostingListRun& run,
                                uint64_t hottest_ids);

// The same as a JSON object, the "details" of the benchmark in the --json report:
//   {"lists": 1000, "zipf_theta": 0.99, "posting_ids": "sequential", "hottest_share": 0.13,
//    "target_ids": 1000000, "hottest_ids": 1000131, "adds": 7700000,
//    "hottest_get": [{"bucket": "<1k", "min_ids": 0, "max_ids": 1000, "gets": 812,
//                     "p50_micros": 8.2, "p99_micros": 30.1, "max_micros": 95.0,
//                     "adds_per_sec": 310231}, ...]}   (the last bucket has no max_ids)
std::string PostingDetailsJson(const PostingListRun& run, uint64_t hottest_ids);

// The hottest list's size as the DB holds it now, checked against the adds made to it:
// Corruption naming both when they differ.
Status CheckHottestList(const WorkloadEnv& env, const PostingListRun& run, uint64_t* ids);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_POSTING_LIST_H_
