#include "thread_stats.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace shale::bench {

namespace {

// With --stats_interval_seconds, the clock is looked at every this many operations.
constexpr uint64_t kIntervalCheckOps = 1000;

// db_bench's progress schedule: report more rarely as the count grows.
uint64_t NextProgressStep(uint64_t next) {
  if (next < 1000) return 100;
  if (next < 5000) return 500;
  if (next < 10000) return 1000;
  if (next < 50000) return 5000;
  if (next < 100000) return 10000;
  if (next < 500000) return 50000;
  return 100000;
}

// "2024/01/02-03:04:05", local time (db_bench's TimeToString).
std::string WallClockString() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d/%02d/%02d-%02d:%02d:%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace

uint64_t NowMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::string_view OpTypeName(OpType type) {
  switch (type) {
    case OpType::kRead: return "read";
    case OpType::kWrite: return "write";
    case OpType::kDelete: return "delete";
    case OpType::kSeek: return "seek";
    case OpType::kMerge: return "merge";
    case OpType::kUpdate: return "update";
  }
  return "op";
}

void ThreadStats::Start() {
  start_ = NowMicros();
  last_op_finish_ = start_;
  last_report_finish_ = start_;
  next_report_ = config_.interval_seconds > 0 ? kIntervalCheckOps : 100;
}

void ThreadStats::Stop() {
  finish_ = NowMicros();
  thread_seconds_ = static_cast<double>(finish_ - start_) * 1e-6;
}

void ThreadStats::FinishedOps(int64_t n, OpType type) {
  if (config_.measure_latency) {
    const uint64_t now = NowMicros();
    hist_[type].Add(static_cast<double>(now - last_op_finish_));
    last_op_finish_ = now;
  }
  done_ += static_cast<uint64_t>(n);
  if (config_.ops_counter != nullptr) {
    config_.ops_counter->fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  }
  if (done_ >= next_report_) MaybeReport();
}

void ThreadStats::MaybeReport() {
  if (config_.interval_seconds <= 0) {
    next_report_ += NextProgressStep(next_report_);
    if (config_.progress) {
      std::fprintf(stderr, "... finished %" PRIu64 " ops%30s\r", done_, "");
      std::fflush(stderr);
    }
    return;
  }
  next_report_ += kIntervalCheckOps;
  const uint64_t now = NowMicros();
  if (now - last_report_finish_ >= static_cast<uint64_t>(config_.interval_seconds) * 1000000) {
    ReportInterval(now);
  }
}

void ThreadStats::ReportInterval(uint64_t now) {
  const double interval = static_cast<double>(now - last_report_finish_) * 1e-6;
  const double total = static_cast<double>(now - start_) * 1e-6;
  const uint64_t interval_ops = done_ - last_report_done_;
  std::fprintf(stderr,
               "%s  ... thread %d: (%" PRIu64 ",%" PRIu64 ") ops and (%.1f,%.1f) ops/second in "
               "(%.6f,%.6f) seconds\n",
               WallClockString().c_str(), id_, interval_ops, done_,
               static_cast<double>(interval_ops) / interval, static_cast<double>(done_) / total,
               interval, total);
  std::fflush(stderr);
  last_report_finish_ = now;
  last_report_done_ = done_;
}

void ThreadStats::AddMessage(std::string_view msg) {
  if (message_.empty()) message_.assign(msg);
}

void ThreadStats::Merge(const ThreadStats& other) {
  start_ = std::min(start_, other.start_);
  finish_ = std::max(finish_, other.finish_);
  thread_seconds_ += other.thread_seconds_;
  done_ += other.done_;
  bytes_ += other.bytes_;
  if (message_.empty()) message_ = other.message_;
  for (const auto& [type, h] : other.hist_) hist_[type].Merge(h);
}

Histogram ThreadStats::AllLatencies() const {
  Histogram all;
  for (const auto& [type, h] : hist_) all.Merge(h);
  return all;
}

}  // namespace shale::bench
