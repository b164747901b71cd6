// A fixed-purpose pool of worker threads that runs queued jobs, used for flushes and compactions.
//
// Jobs run in priority order: every queued kHigh job starts before any queued kLow job (flushes
// and L0 compactions are scheduled high so a backlog of big compactions never delays them);
// within a priority, jobs start in the order they were scheduled. A job may Schedule() more jobs.
//
// The pool can be resized while it runs. Growing starts threads at once; shrinking lets the
// surplus threads finish the job they are running (it never interrupts a job) and then exit.
// With zero threads, jobs stay queued until threads are added or the pool is destroyed.
//
// Destruction runs every queued job (on the pool's threads, or on the destroying thread if the
// pool has none), including jobs those jobs schedule, then joins every thread. Running queued
// work rather than dropping it keeps the contract simple: a scheduled job always runs once.
//
// Thread names: each worker is named "<name>:<index>" with pthread_setname_np, the name cut so
// the whole fits Linux's 15-character limit.
//
// Thread-safety: every method is thread-safe, and may be called from inside a job, except the
// destructor and SetNumThreads(), which must not race with the destructor.
#ifndef SHALE_UTIL_THREAD_POOL_H_
#define SHALE_UTIL_THREAD_POOL_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "util/mutex.h"

namespace shale {

class ThreadPool {
 public:
  enum class Priority { kLow, kHigh };

  // Starts num_threads (>= 0) workers named after `name`.
  ThreadPool(int num_threads, std::string name);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  // Runs every queued job, then joins all threads. REQUIRES: no job still holds on to a pointer
  // to the pool after it returns.
  ~ThreadPool();

  // Queues `job` to run once on a worker thread.
  void Schedule(std::function<void()> job, Priority priority = Priority::kLow);

  // Grows or shrinks the pool to n (>= 0) threads; see the header comment. Does not wait for
  // shrinking threads to finish their current job.
  void SetNumThreads(int n);
  // The size last asked for (the surplus of a shrink may still be finishing a job).
  int NumThreads() const;

  // Blocks until no job is queued or running. With zero threads and jobs queued it waits until
  // threads are added. REQUIRES: not called from inside a job of this pool (it would wait for
  // itself).
  void WaitForIdle();

  size_t NumQueued() const;
  // Jobs running right now.
  int NumRunning() const;

 private:
  void WorkerLoop(int index);
  // Starts one worker; `index` only names it.
  void StartWorkerLocked(int index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes the next job, high priority first. REQUIRES: a queue is not empty.
  std::function<void()> PopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the next job and runs it with mu_ released; signals idle_cv_ when that leaves the pool
  // idle. REQUIRES: a queue is not empty.
  void RunOneJobLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Joins the threads of workers that have exited (they are done or about to return).
  void ReapExitedWorkers() ABSL_LOCKS_EXCLUDED(mu_);
  // Runs whatever is queued on the calling thread (destruction with no workers left).
  void DrainOnCallingThread() ABSL_LOCKS_EXCLUDED(mu_);

  const std::string name_;

  mutable Mutex mu_;
  // Signalled (one waiter) when a job is queued; signalled to all when the pool shrinks or
  // shuts down, so surplus workers wake up and exit.
  CondVar work_cv_;
  // Signalled to all when the pool becomes idle (nothing queued or running).
  CondVar idle_cv_;

  // Guarded by mu_.
  // Invariants:
  //  1. live_workers_ counts the workers that have not decided to exit; each of them has its
  //     std::thread in threads_.
  //  2. A worker exits only when live_workers_ > target_workers_ or (shutting_down_ and both
  //     queues are empty); before exiting it decrements live_workers_ and adds its id to
  //     exited_.
  //  3. running_ is the number of jobs between PopLocked() and their return.
  std::deque<std::function<void()>> high_ ABSL_GUARDED_BY(mu_);
  std::deque<std::function<void()>> low_ ABSL_GUARDED_BY(mu_);
  int target_workers_ ABSL_GUARDED_BY(mu_) = 0;
  int live_workers_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int next_index_ ABSL_GUARDED_BY(mu_) = 0;  // names the next worker started
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread::id> exited_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale

#endif  // SHALE_UTIL_THREAD_POOL_H_
