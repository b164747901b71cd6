#include "interval_sampler.h"

#include <cinttypes>
#include <utility>

#include "absl/time/time.h"
#include "thread_stats.h"

namespace shale::bench {

IntervalSampler::IntervalSampler(int64_t interval_seconds, std::string csv_path)
    : interval_micros_(interval_seconds * 1000000), csv_path_(std::move(csv_path)) {}

IntervalSampler::~IntervalSampler() {
  if (thread_.joinable()) Stop();
}

Status IntervalSampler::Start() {
  if (!csv_path_.empty()) {
    csv_ = std::fopen(csv_path_.c_str(), "w");
    if (csv_ == nullptr) return Status::IOError(csv_path_, "cannot create the report file");
    std::fprintf(csv_, "secs_elapsed,interval_qps\n");
    std::fflush(csv_);
  }
  ops_.store(0, std::memory_order_relaxed);
  {
    absl::MutexLock l(&mu_);
    stop_ = false;
    samples_.clear();
  }
  thread_ = std::thread([this] { Loop(); });
  return Status::OK();
}

std::vector<ThroughputSample> IntervalSampler::Stop() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  thread_.join();
  if (csv_ != nullptr) {
    std::fclose(csv_);
    csv_ = nullptr;
  }
  absl::MutexLock l(&mu_);
  return std::move(samples_);
}

void IntervalSampler::Loop() {
  const uint64_t start = NowMicros();
  uint64_t last_ops = 0;
  uint64_t last_time = start;
  absl::MutexLock l(&mu_);
  while (true) {
    const uint64_t wake = last_time + static_cast<uint64_t>(interval_micros_);
    const uint64_t now0 = NowMicros();
    const absl::Duration wait = absl::Microseconds(wake > now0 ? wake - now0 : 0);
    // Wakes early only when Stop sets stop_.
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), wait)) return;
    const uint64_t now = NowMicros();
    const uint64_t ops = ops_.load(std::memory_order_relaxed);
    const double qps =
        static_cast<double>(ops - last_ops) * 1e6 / static_cast<double>(now - last_time);
    samples_.push_back({static_cast<double>(now - start) * 1e-6, qps});
    if (csv_ != nullptr) {
      // db_bench's rounding of the elapsed seconds, and its count (not rate) per interval.
      std::fprintf(csv_, "%" PRIu64 ",%" PRIu64 "\n", (now - start + 500000) / 1000000,
                   ops - last_ops);
      std::fflush(csv_);
    }
    last_ops = ops;
    last_time = now;
  }
}

}  // namespace shale::bench
