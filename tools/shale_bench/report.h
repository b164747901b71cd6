// What a finished benchmark reports: its summary (BenchResult), db_bench's report line,
//   fillrandom   :       3.456 micros/op 289351 ops/sec 69.100 seconds 20000000 operations;   32.0 MB/s
// the per-operation-type histograms (--histogram), and the process's peak RSS.
//
// Thread-safety: plain functions over values; call them from the main thread.
#ifndef SHALE_TOOLS_SHALE_BENCH_REPORT_H_
#define SHALE_TOOLS_SHALE_BENCH_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "thread_stats.h"

namespace shale::bench {

// One throughput sample: ops/s over the interval ending `seconds` after the benchmark start.
struct ThroughputSample {
  double seconds = 0;
  double ops_per_sec = 0;
};

struct BenchResult {
  std::string name;
  int threads = 0;
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double seconds = 0;          // wall time
  double micros_per_op = 0;    // thread time per operation (db_bench's definition)
  double ops_per_sec = 0;
  double mb_per_sec = 0;       // MiB of keys and values per second of wall time; 0 if none
  double p50_micros = 0;       // latency percentiles over every operation type; 0 when
  double p99_micros = 0;       // latencies were not measured
  double p999_micros = 0;
  double write_amplification = 0;  // bytes written to tables / bytes written by the user
  double stall_seconds = 0;        // time writers spent stalled
  uint64_t peak_rss_bytes = 0;     // the process's high-water RSS so far
  std::string message;             // "(950 of 1000 found)" and the like
  std::vector<ThroughputSample> throughput;
  // Figures of the benchmark's own, as an encoded JSON object (postinglist: the hottest list's
  // Gets by its size); written to the JSON report as "details" when not empty.
  std::string details_json;
};

// The numbers of a benchmark from its merged stats (like db_bench, at least one operation is
// counted so that rates are defined). Leaves the DB-side fields (write amplification, stalls,
// RSS, throughput series) at zero.
BenchResult Summarize(std::string_view name, int threads, const ThreadStats& merged);

// db_bench's report line, with its trailing newline.
std::string FormatReportLine(const BenchResult& r);

// "Microseconds per <op>:" and the histogram of each operation type, db_bench's layout.
std::string FormatHistograms(const ThreadStats& merged);

// VmHWM of /proc/self/status in bytes; 0 if it cannot be read.
uint64_t PeakRssBytes();

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_REPORT_H_
