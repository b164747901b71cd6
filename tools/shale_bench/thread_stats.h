// ThreadStats: what one benchmark thread measured (operations, bytes, wall time, latency
// histograms by operation type), and its live reporting: db_bench's progress counter on a
// terminal, and with --stats_interval_seconds a throughput line on stderr every N seconds:
//   2024/01/02-03:04:05  ... thread 0: (1000,5000) ops and (998.2,1003.4) ops/second in (1.001803,4.983058) seconds
// (ops and ops/s in the last interval, then since the start).
//
// The threads' stats are merged (Merge) into one for the benchmark's report line.
//
// Thread-safety: a ThreadStats is owned and updated by one thread; Merge happens after that
// thread has finished. The optional shared operation counter is atomic.
#ifndef SHALE_TOOLS_SHALE_BENCH_THREAD_STATS_H_
#define SHALE_TOOLS_SHALE_BENCH_THREAD_STATS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "util/histogram.h"

namespace shale::bench {

// Microseconds on a monotonic clock.
uint64_t NowMicros();

// The operation a latency belongs to; printed as "Microseconds per <name>:".
enum class OpType { kRead, kWrite, kDelete, kSeek, kMerge, kUpdate };
std::string_view OpTypeName(OpType type);

struct StatsConfig {
  bool measure_latency = false;       // keep histograms (--histogram or --json)
  int64_t interval_seconds = 0;       // --stats_interval_seconds
  bool progress = false;              // print "... finished N ops" (stderr is a terminal)
  std::atomic<uint64_t>* ops_counter = nullptr;  // if set, every finished op is added here
};

class ThreadStats {
 public:
  ThreadStats(int id, const StatsConfig& config) : id_(id), config_(config) {}

  // Starts and stops the clock of the thread's measured work.
  void Start();
  void Stop();

  // Counts n finished operations of one type; with latency measuring on, the time since the
  // previous call (or Start) is one sample of `type`.
  void FinishedOps(int64_t n, OpType type);
  void AddBytes(int64_t n) { bytes_ += static_cast<uint64_t>(n); }
  // A note for the report line ("(950 of 1000 found)"); the first one set is kept.
  void AddMessage(std::string_view msg);
  // Leaves this thread out of Merge (a background writer that only provides load).
  void SetExcludeFromMerge() { exclude_from_merge_ = true; }
  bool exclude_from_merge() const { return exclude_from_merge_; }

  // Adds other's counts: the earliest start, the latest finish, the sum of thread times.
  void Merge(const ThreadStats& other);

  uint64_t done() const { return done_; }
  uint64_t bytes() const { return bytes_; }
  // Wall time from the earliest Start to the latest Stop.
  double ElapsedSeconds() const { return static_cast<double>(finish_ - start_) * 1e-6; }
  // The sum of every merged thread's own Start-to-Stop time.
  double ThreadSeconds() const { return thread_seconds_; }
  const std::string& message() const { return message_; }
  const std::map<OpType, Histogram>& histograms() const { return hist_; }
  // Every operation type's samples in one histogram.
  Histogram AllLatencies() const;

 private:
  void MaybeReport();
  void ReportInterval(uint64_t now);

  const int id_;
  const StatsConfig config_;
  uint64_t start_ = 0;
  uint64_t finish_ = 0;
  double thread_seconds_ = 0;
  uint64_t done_ = 0;
  uint64_t bytes_ = 0;
  uint64_t last_op_finish_ = 0;
  uint64_t next_report_ = 100;
  uint64_t last_report_done_ = 0;
  uint64_t last_report_finish_ = 0;
  bool exclude_from_merge_ = false;
  std::string message_;
  std::map<OpType, Histogram> hist_;
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_THREAD_STATS_H_
