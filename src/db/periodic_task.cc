// PeriodicTask (see periodic_task.h).
#include "db/periodic_task.h"

#include <utility>

namespace shale {

PeriodicTask::PeriodicTask(std::chrono::milliseconds period, std::function<void()> fn)
    : period_(period), fn_(std::move(fn)), thread_([this] { Loop(); }) {}

void PeriodicTask::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto next = std::chrono::steady_clock::now() + period_;
  while (!stop_) {
    if (cv_.wait_until(lock, next, [this] { return stop_; })) break;
    lock.unlock();
    fn_();
    lock.lock();
    next += period_;
    // A run that took longer than the period: the next one is a period from now, not a burst.
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now + period_;
  }
}

void PeriodicTask::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  std::call_once(joined_, [this] {
    if (thread_.joinable()) thread_.join();
  });
}

}  // namespace shale
