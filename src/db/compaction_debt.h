// CompactionDebtTracker: turns the compaction debt (the picker's estimate of pending
// compaction bytes) into figures people can act on (issue 25, part 3):
//   - the recent compaction rate: bytes of compaction input per wall-clock second while at
//     least one compaction ran, over the most recent compactions that cover kWindowBusyMicros
//     of such (busy) time (all of them while there is less; at most kMaxWindowCompactions);
//   - the seconds of compaction left: pending bytes / that rate;
//   - the sustainable write rate: the user write rate at which the debt stops growing, the
//     rate divided by the compaction input each user byte causes.
//
// Units: the pending estimate (EstimateLevelPendingBytes) counts the bytes compactions will
// read (a level's excess times its fan-out into the next level, and L0 with the base level),
// so the rate is measured in the same unit: Compaction::InputBytes of each finished job.
// Trivial moves and deletion-only compactions read nothing and are not counted.
//
// Parallel compactions: the time base is the union of the intervals during which at least
// one compaction ran (busy time), not the sum of the jobs' durations, so two jobs running at
// once double the rate, as they double the speed at which the debt is paid.
//
// Before any compaction is measured, the flush throughput (table bytes written per second of
// flushing) stands in for the rate (SetFallbackRate); with neither, the rate is unknown (0).
//
// Thread-safety: none of its own; DBImpl keeps it under its mutex (mu_).
#ifndef SHALE_DB_COMPACTION_DEBT_H_
#define SHALE_DB_COMPACTION_DEBT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace shale {

// A steady clock in microseconds, for CompactionDebtTracker's time stamps. Thread-safe.
inline uint64_t SteadyMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

class CompactionDebtTracker {
 public:
  // The window the rate is measured over: the shortest run of the most recent compactions
  // whose busy time is at least this (a minute: long enough to smooth over many small
  // compactions after a big one, short enough to follow a change of pace)...
  static constexpr uint64_t kWindowBusyMicros = uint64_t{60} * 1000 * 1000;
  // ... and at most this many compactions (bounds the memory; the newest always stays).
  static constexpr size_t kMaxWindowCompactions = 1024;

  // A compaction job starts reading at now_micros (a steady clock). Returns the busy time at
  // its start, which the caller hands back to CompactionFinished.
  uint64_t CompactionStarted(uint64_t now_micros);
  // The job that started earlier (`started_busy`: what its CompactionStarted returned) ends at
  // now_micros. input_bytes: what it read (0 if it failed or was stopped; its time still
  // counts as busy time). REQUIRES: a matching CompactionStarted.
  void CompactionFinished(uint64_t now_micros, uint64_t input_bytes, uint64_t started_busy);

  // The rate used before any compaction is measured (bytes/s; 0: none).
  void SetFallbackRate(double bytes_per_second) { fallback_rate_ = bytes_per_second; }

  // Recent compaction input bytes per busy second; the fallback rate when no compaction that
  // read bytes is in the window; 0 when unknown.
  double Rate() const;
  // True if Rate() is measured from compactions (not the fallback).
  bool measured() const { return window_bytes_ > 0; }
  // Compactions and busy seconds the measured rate is over.
  size_t window_compactions() const { return samples_.size(); }
  double window_busy_seconds() const;
  // Compaction input bytes of all finished compactions since construction.
  uint64_t total_input_bytes() const { return total_input_bytes_; }
  int running() const { return running_; }

  // Seconds to compact `pending` bytes at `rate` bytes/s, rounded up: 0 when pending is 0;
  // false (unknown) when pending > 0 and rate <= 0.
  static bool SecondsLeft(uint64_t pending, double rate, uint64_t* seconds);
  // The user write rate (bytes/s) at which the debt stops growing: rate / amplification,
  // where amplification = (compacted + pending) / user_bytes is the compaction input each
  // user byte written has caused (already compacted, or still owed). 0 (unknown) when rate is
  // 0 or nothing was written; when nothing was compacted or owed, writes cost no compaction
  // and the result is 0 too (no bound is known).
  static double SustainableWriteRate(double rate, uint64_t compacted, uint64_t pending,
                                     uint64_t user_bytes);

 private:
  struct Sample {
    uint64_t started_busy;  // cumulative busy time when the compaction started
    uint64_t busy_micros;   // cumulative busy time when the compaction finished
    uint64_t input_bytes;
  };
  // The busy time at which the window's time base starts: base_busy_, or earlier when a
  // compaction in the window started before it (a long job that overlapped shorter ones
  // counts its whole duration, not only the part after the evicted samples).
  uint64_t WindowStartBusy() const;
  uint64_t BusyMicrosAt(uint64_t now_micros) const;
  void Trim();

  int running_ = 0;            // compactions started and not finished
  uint64_t busy_since_ = 0;    // when running_ went from 0 to 1
  uint64_t busy_closed_ = 0;   // busy time of the intervals that have ended
  // Invariant: samples_ is ordered by busy_micros; window_bytes_ is the sum of their
  // input_bytes; base_busy_ <= samples_.front().busy_micros is the finish of the last evicted
  // sample (or 0); the window's time runs from WindowStartBusy() to the newest finish.
  std::deque<Sample> samples_;
  uint64_t window_bytes_ = 0;
  uint64_t base_busy_ = 0;
  uint64_t total_input_bytes_ = 0;
  double fallback_rate_ = 0;
};

}  // namespace shale

#endif  // SHALE_DB_COMPACTION_DEBT_H_
