#include "interval_sampler.h"

#include <cinttypes>

#include "absl/time/time.h"
#include "thread_stats.h"

namespace shale::bench {

IntervalSampler::IntervalSampler(int64_t interval_seconds, std::FILE* csv,
                                 uint64_t program_start_micros)
    : interval_micros_(interval_seconds * 1000000),
      csv_(csv),
      program_start_micros_(program_start_micros) {}

IntervalSampler::~IntervalSampler() {
  if (thread_.joinable()) Stop();
}

void IntervalSampler::Start() {
  ops_.store(0, std::memory_order_relaxed);
  {
    absl::MutexLock l(&mu_);
    stop_ = false;
    samples_.clear();
  }
  thread_ = std::thread([this] { Loop(); });
}

std::vector<ThroughputSample> IntervalSampler::Stop() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  thread_.join();
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
      std::fprintf(csv_, "%" PRIu64 ",%.0f\n", (now - program_start_micros_) / 1000000, qps);
      std::fflush(csv_);
    }
    last_ops = ops;
    last_time = now;
  }
}

}  // namespace shale::bench
