// ProgressReporter: counts the work of one long operation (a bulk load's Finish, a manual
// compaction, an ingestion's copy, a checkpoint) and reports it to the caller's
// ProgressCallback (shale/progress.h): at most once per interval while the work goes on, and
// once at the end, from Finish or the destructor.
//
// Cost: with no callback, Add is two relaxed atomic adds; with one, also a clock read. Callers
// count in batches (some thousands of entries, or a file), not per entry.
//
// Thread-safety: every method may be called from any thread, concurrently. The callback runs
// under report_mu_, so two reports of one operation never overlap; a thread that finds a
// report in progress skips its own instead of waiting (the next interval brings it).
#ifndef SHALE_UTIL_PROGRESS_REPORTER_H_
#define SHALE_UTIL_PROGRESS_REPORTER_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "shale/progress.h"
#include "shale/status.h"
#include "util/mutex.h"

namespace shale {

class ProgressReporter {
 public:
  // `operation` is a static string (Progress::operation). An empty callback reports nothing.
  ProgressReporter(const char* operation, ProgressCallback callback, double interval_seconds);
  // Sends the final report if Finish was not called.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // InvalidArgument naming `what` (e.g. "CompactRangeOptions::progress_interval_seconds") when
  // the interval is negative or not a number.
  static Status ValidateInterval(double interval_seconds, const char* what);

  bool enabled() const { return static_cast<bool>(callback_); }

  // The expected totals (0: unknown); may be called again when an estimate improves.
  void SetTotals(uint64_t bytes_total, uint64_t entries_total);
  // Starts counting again from zero (an operation that retries its work), with new totals.
  void Restart(uint64_t bytes_total, uint64_t entries_total);
  // The current step (a static string; Progress::stage).
  void SetStage(const char* stage);
  // Counts work done, and reports if the interval has passed since the last report.
  void Add(uint64_t bytes, uint64_t entries);
  // Sends the final report (finished = true). Later calls, and Add after it, report nothing.
  void Finish();

  uint64_t bytes_done() const { return bytes_done_.load(std::memory_order_relaxed); }
  uint64_t entries_done() const { return entries_done_.load(std::memory_order_relaxed); }

 private:
  using Clock = std::chrono::steady_clock;
  void ReportLocked(Clock::time_point now, bool finished) ABSL_EXCLUSIVE_LOCKS_REQUIRED(report_mu_);

  const char* const operation_;
  const ProgressCallback callback_;
  const Clock::duration interval_;
  const Clock::time_point start_;
  std::atomic<uint64_t> bytes_done_{0};
  std::atomic<uint64_t> entries_done_{0};
  std::atomic<uint64_t> bytes_total_{0};
  std::atomic<uint64_t> entries_total_{0};
  std::atomic<const char*> stage_{""};
  // When the next periodic report is due (Clock ticks since the epoch); read without the lock
  // to skip it cheaply, written under it.
  std::atomic<int64_t> next_report_;
  Mutex report_mu_;
  // Set by the final report; no report follows it.
  bool finished_ ABSL_GUARDED_BY(report_mu_) = false;
  // Set when the callback threw: it is not called again.
  bool callback_failed_ ABSL_GUARDED_BY(report_mu_) = false;
};

// ProgressBatch: counts one loop's entries locally and hands them to a ProgressReporter every
// kEntries entries and when destroyed (or flushed), so a loop over entries pays one atomic add
// per batch. A null reporter makes it count for nothing.
// Thread-safety: none; one per thread.
class ProgressBatch {
 public:
  static constexpr uint64_t kEntries = 4096;

  explicit ProgressBatch(ProgressReporter* reporter) : reporter_(reporter) {}
  ~ProgressBatch() { Flush(); }
  ProgressBatch(const ProgressBatch&) = delete;
  ProgressBatch& operator=(const ProgressBatch&) = delete;

  // One entry of `bytes` bytes.
  void Add(uint64_t bytes) {
    bytes_ += bytes;
    if (++entries_ == kEntries) Flush();
  }
  void Flush() {
    if (reporter_ != nullptr && entries_ > 0) reporter_->Add(bytes_, entries_);
    bytes_ = 0;
    entries_ = 0;
  }

 private:
  ProgressReporter* const reporter_;
  uint64_t bytes_ = 0;
  uint64_t entries_ = 0;
};

}  // namespace shale

#endif  // SHALE_UTIL_PROGRESS_REPORTER_H_
