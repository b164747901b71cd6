// IntervalSampler: samples the operations all threads of a benchmark have finished every N
// seconds, for the throughput series of the JSON report and for db_bench's
// --report_interval_seconds CSV file.
//
// The CSV is RocksDB 7.8 db_bench's (its ReporterAgent), so that one analysis reads both tools'
// files: each timed benchmark rewrites the file from scratch with the header
// "secs_elapsed,interval_qps", then one line per full interval: the seconds since the benchmark
// started (rounded to the nearest second) and the operations finished in that interval (a rate
// per second only when the interval is 1 s). The last, partial interval is not written.
//
// Thread-safety: Start and Stop are called by the benchmark runner; in between, a sampling
// thread of its own reads the counter, which the benchmark threads update atomically.
#ifndef SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_
#define SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "report.h"
#include "shale/status.h"

namespace shale::bench {

class IntervalSampler {
 public:
  // Samples every `interval_seconds` (> 0). If `csv_path` is not empty, each Start rewrites
  // that file (see above).
  IntervalSampler(int64_t interval_seconds, std::string csv_path);
  ~IntervalSampler();
  IntervalSampler(const IntervalSampler&) = delete;
  IntervalSampler& operator=(const IntervalSampler&) = delete;

  // The counter the benchmark threads add their finished operations to.
  std::atomic<uint64_t>* counter() { return &ops_; }

  // Starts sampling a benchmark from a zero count. IOError naming the CSV file if it cannot be
  // created (then nothing is sampled).
  Status Start();
  // Stops sampling, closes the CSV file and returns the benchmark's samples (ops/s per
  // interval). REQUIRES: Start returned OK.
  std::vector<ThroughputSample> Stop();

 private:
  void Loop();

  const int64_t interval_micros_;
  const std::string csv_path_;
  std::FILE* csv_ = nullptr;  // owned; open between Start and Stop, written by the thread only
  std::atomic<uint64_t> ops_{0};
  std::thread thread_;

  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<ThroughputSample> samples_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_INTERVAL_SAMPLER_H_
