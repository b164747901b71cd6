// CompactionDebtTracker (see compaction_debt.h).
#include "db/compaction_debt.h"

#include <cassert>
#include <algorithm>
#include <cmath>

namespace shale {

uint64_t CompactionDebtTracker::BusyMicrosAt(uint64_t now_micros) const {
  if (running_ == 0 || now_micros < busy_since_) return busy_closed_;
  return busy_closed_ + (now_micros - busy_since_);
}

uint64_t CompactionDebtTracker::CompactionStarted(uint64_t now_micros) {
  if (running_++ == 0) busy_since_ = now_micros;
  return BusyMicrosAt(now_micros);
}

void CompactionDebtTracker::CompactionFinished(uint64_t now_micros, uint64_t input_bytes,
                                               uint64_t started_busy) {
  assert(running_ > 0);
  if (running_ <= 0) return;
  const uint64_t busy = BusyMicrosAt(now_micros);
  if (--running_ == 0) {
    busy_closed_ = busy;
  }
  if (input_bytes == 0) return;
  total_input_bytes_ += input_bytes;
  samples_.push_back({std::min(started_busy, busy), busy, input_bytes});
  window_bytes_ += input_bytes;
  Trim();
}

void CompactionDebtTracker::Trim() {
  // Drop the oldest sample while the ones after it still cover the window (their busy time,
  // from the oldest's end to the newest's, is at least kWindowBusyMicros), or while there are
  // too many.
  while (samples_.size() > 1 &&
         (samples_.size() > kMaxWindowCompactions ||
          samples_.back().busy_micros - samples_.front().busy_micros >= kWindowBusyMicros)) {
    base_busy_ = samples_.front().busy_micros;
    window_bytes_ -= samples_.front().input_bytes;
    samples_.pop_front();
  }
}

uint64_t CompactionDebtTracker::WindowStartBusy() const {
  uint64_t start = base_busy_;
  for (const Sample& s : samples_) start = std::min(start, s.started_busy);
  return start;
}

double CompactionDebtTracker::window_busy_seconds() const {
  if (samples_.empty()) return 0;
  return static_cast<double>(samples_.back().busy_micros - WindowStartBusy()) / 1e6;
}

double CompactionDebtTracker::Rate() const {
  if (window_bytes_ == 0) return fallback_rate_ > 0 ? fallback_rate_ : 0;
  // At least a microsecond: a compaction finishing within the clock's resolution.
  const double busy =
      std::max(1.0, static_cast<double>(samples_.back().busy_micros - WindowStartBusy()));
  return static_cast<double>(window_bytes_) * 1e6 / busy;
}

bool CompactionDebtTracker::SecondsLeft(uint64_t pending, double rate, uint64_t* seconds) {
  if (pending == 0) {
    *seconds = 0;
    return true;
  }
  if (!(rate > 0)) return false;
  // Clamped: a double at or past 2^64 does not convert to uint64_t.
  const double left = std::ceil(static_cast<double>(pending) / rate);
  *seconds = left >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(left);
  return true;
}

double CompactionDebtTracker::SustainableWriteRate(double rate, uint64_t compacted,
                                                   uint64_t pending, uint64_t user_bytes) {
  if (!(rate > 0) || user_bytes == 0) return 0;
  const double owed = static_cast<double>(compacted) + static_cast<double>(pending);
  if (owed <= 0) return 0;
  const double amplification = owed / static_cast<double>(user_bytes);
  // At most what a uint64_t property can hold (callers convert it).
  return std::min(rate / amplification, 18446744073709549568.0);
}

}  // namespace shale
