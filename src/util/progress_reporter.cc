#include "util/progress_reporter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace shale {

double Progress::fraction() const {
  if (finished) return 1.0;
  double f = 0;
  if (bytes_total > 0) {
    f = static_cast<double>(bytes_done) / static_cast<double>(bytes_total);
  } else if (entries_total > 0) {
    f = static_cast<double>(entries_done) / static_cast<double>(entries_total);
  }
  return std::clamp(f, 0.0, 1.0);
}

namespace {

// Longer intervals (infinity included) mean "only the final report": clamped here, as a
// steady_clock duration holds about 292 years and the conversion of more would overflow.
constexpr double kMaxIntervalSeconds = 1e9;

std::chrono::steady_clock::duration IntervalOf(double seconds) {
  if (!(seconds > 0)) return std::chrono::steady_clock::duration::zero();  // NaN, <= 0
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::min(seconds, kMaxIntervalSeconds)));
}

}  // namespace

ProgressReporter::ProgressReporter(const char* operation, ProgressCallback callback,
                                   double interval_seconds)
    : operation_(operation),
      callback_(std::move(callback)),
      interval_(IntervalOf(interval_seconds)),
      start_(Clock::now()),
      next_report_((start_ + interval_).time_since_epoch().count()) {}

ProgressReporter::~ProgressReporter() { Finish(); }

Status ProgressReporter::ValidateInterval(double interval_seconds, const char* what) {
  if (std::isnan(interval_seconds) || interval_seconds < 0) {
    return Status::InvalidArgument(what, "must be a number of seconds >= 0, not " +
                                             std::to_string(interval_seconds));
  }
  return Status::OK();
}

void ProgressReporter::SetTotals(uint64_t bytes_total, uint64_t entries_total) {
  bytes_total_.store(bytes_total, std::memory_order_relaxed);
  entries_total_.store(entries_total, std::memory_order_relaxed);
}

void ProgressReporter::Restart(uint64_t bytes_total, uint64_t entries_total) {
  bytes_done_.store(0, std::memory_order_relaxed);
  entries_done_.store(0, std::memory_order_relaxed);
  SetTotals(bytes_total, entries_total);
}

void ProgressReporter::SetStage(const char* stage) {
  stage_.store(stage, std::memory_order_relaxed);
}

void ProgressReporter::Add(uint64_t bytes, uint64_t entries) {
  bytes_done_.fetch_add(bytes, std::memory_order_relaxed);
  entries_done_.fetch_add(entries, std::memory_order_relaxed);
  if (!callback_) return;
  const Clock::time_point now = Clock::now();
  if (now.time_since_epoch().count() < next_report_.load(std::memory_order_relaxed)) return;
  if (!report_mu_.TryLock()) return;  // another thread is reporting
  if (!finished_ && now.time_since_epoch().count() >= next_report_.load(std::memory_order_relaxed)) {
    next_report_.store((now + interval_).time_since_epoch().count(), std::memory_order_relaxed);
    ReportLocked(now, /*finished=*/false);
  }
  report_mu_.Unlock();
}

void ProgressReporter::Finish() {
  if (!callback_) return;
  MutexLock lock(&report_mu_);
  if (finished_) return;
  ReportLocked(Clock::now(), /*finished=*/true);
  finished_ = true;
}

void ProgressReporter::ReportLocked(Clock::time_point now, bool finished) {
  Progress p;
  p.operation = operation_;
  p.stage = stage_.load(std::memory_order_relaxed);
  p.bytes_done = bytes_done_.load(std::memory_order_relaxed);
  p.entries_done = entries_done_.load(std::memory_order_relaxed);
  // An estimate the work outgrew is reported as the work done (Progress's promise).
  p.bytes_total = bytes_total_.load(std::memory_order_relaxed);
  if (p.bytes_total > 0) p.bytes_total = std::max(p.bytes_total, p.bytes_done);
  p.entries_total = entries_total_.load(std::memory_order_relaxed);
  if (p.entries_total > 0) p.entries_total = std::max(p.entries_total, p.entries_done);
  p.elapsed_seconds = std::chrono::duration<double>(now - start_).count();
  p.bytes_per_second =
      p.elapsed_seconds > 0 ? static_cast<double>(p.bytes_done) / p.elapsed_seconds : 0;
  p.finished = finished;
  if (finished) {
    p.eta_seconds = 0;
  } else {
    // The fraction done so far, by bytes when both are counted, and the time it took.
    const double f = p.fraction();
    p.eta_seconds = f > 0 && p.elapsed_seconds > 0 ? p.elapsed_seconds * (1 - f) / f : -1;
  }
  if (callback_failed_) return;
  try {
    callback_(p);
  } catch (...) {
    callback_failed_ = true;  // progress.h: not called again, the exception dropped
  }
}

}  // namespace shale
