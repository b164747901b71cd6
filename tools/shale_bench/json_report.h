// JsonReport: the machine-readable report of --json=FILE, for bench/compare and bench/plot.
//
// Layout (one object; numbers are JSON numbers, rates per second, latencies in microseconds):
//   {"tool": "shale_bench", "engine": "ShaleDB", "version": "0.1.0", "date": "...",
//    "db": "/tmp/...", "num": 1000000, "threads": 1, "key_size": 16, "value_size": 100,
//    "benchmarks": [
//      {"name": "fillseq", "threads": 1, "ops": 1000000, "seconds": 1.5,
//       "micros_per_op": 1.5, "ops_per_sec": 666666.7, "mb_per_sec": 73.7,
//       "p50_micros": 1.2, "p99_micros": 3.4, "p999_micros": 20.1,
//       "write_amplification": 1.0, "stall_seconds": 0.0, "peak_rss_bytes": 123456789,
//       "message": "", "throughput": [{"seconds": 1.0, "ops_per_sec": 650000.0}, ...],
//       "details": {...}},     (only for benchmarks with figures of their own: postinglist)
//      ...]}
//
// Thread-safety: a plain value; use it from one thread.
#ifndef SHALE_TOOLS_SHALE_BENCH_JSON_REPORT_H_
#define SHALE_TOOLS_SHALE_BENCH_JSON_REPORT_H_

#include <string>
#include <utility>
#include <vector>

#include "report.h"
#include "shale/status.h"

namespace shale::bench {

class JsonReport {
 public:
  // Adds a top-level field (written before "benchmarks"), as a string or a number.
  void SetString(std::string key, std::string value);
  void SetNumber(std::string key, double value);
  void Add(BenchResult result) { results_.push_back(std::move(result)); }

  std::string ToJson() const;
  // Writes ToJson() to `path` (replacing it). IOError naming the path on failure.
  Status WriteTo(const std::string& path) const;

 private:
  // (key, already-encoded JSON value), in insertion order.
  std::vector<std::pair<std::string, std::string>> fields_;
  std::vector<BenchResult> results_;
};

// `s` as a JSON string literal, quotes included.
std::string JsonString(std::string_view s);

// `v` as a JSON number ("0" for infinities and NaN, which JSON cannot express).
std::string JsonNumber(double v);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_JSON_REPORT_H_
