// PeriodicTask: runs a function on its own thread every `period`, until stopped. The DB's
// stats dump (Options::stats_dump_period_sec) uses it.
//
// Stop() wakes the thread at once (it does not wait out the period), waits for a run in
// progress to end, and joins the thread; the function never runs after Stop returns. The
// destructor stops the task.
//
// Thread-safety: Stop may be called from any thread other than the task's own, any number of
// times (and concurrently). The function runs on the task's thread only; it must not call
// Stop, and the caller must not hold, while calling Stop, any lock the function takes.
#ifndef SHALE_DB_PERIODIC_TASK_H_
#define SHALE_DB_PERIODIC_TASK_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shale {

class PeriodicTask {
 public:
  // Starts the thread; the first run is one period after the start. REQUIRES: period > 0.
  PeriodicTask(std::chrono::milliseconds period, std::function<void()> fn);
  ~PeriodicTask() { Stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  void Stop();

 private:
  void Loop();

  const std::chrono::milliseconds period_;
  const std::function<void()> fn_;
  // Guards stop_; cv_ is signalled when it is set. A timed wait needs std's primitives (the
  // project's CondVar has none).
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::once_flag joined_;
  std::thread thread_;  // last: starts once the fields above are ready
};

}  // namespace shale

#endif  // SHALE_DB_PERIODIC_TASK_H_
