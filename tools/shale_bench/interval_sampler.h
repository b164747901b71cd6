// IntervalSampler: samples the operations all threads of a benchmark have finished every N
// seconds, for the throughput series of the JSON report and for db_bench's
// --report_interval_seconds CSV file ("secs_elapsed,interval_qps", one line per interval,
// seconds counted from the start of the program).
//
// Thread-safety: Start and Stop are called by the benchmark runner; in between, a sampling
// thread of its own reads the counter, which the benchmark threads update atomically.
#ifndef SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_
#define SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "report.h"

namespace shale::bench {

class IntervalSampler {
 public:
  // Samples every `interval_seconds` (> 0). `csv` (may be null, borrowed) receives a line per
  // sample; `program_start_micros` is NowMicros() at program start.
  IntervalSampler(int64_t interval_seconds, std::FILE* csv, uint64_t program_start_micros);
  ~IntervalSampler();
  IntervalSampler(const IntervalSampler&) = delete;
  IntervalSampler& operator=(const IntervalSampler&) = delete;

  // The counter the benchmark threads add their finished operations to.
  std::atomic<uint64_t>* counter() { return &ops_; }

  // Starts sampling a benchmark from a zero count.
  void Start();
  // Stops sampling and returns the benchmark's samples.
  std::vector<ThroughputSample> Stop();

 private:
  void Loop();

  const int64_t interval_micros_;
  std::FILE* const csv_;
  const uint64_t program_start_micros_;
  std::atomic<uint64_t> ops_{0};
  std::thread thread_;

  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<ThroughputSample> samples_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_
