#include "util/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cassert>
#include <utility>

#include "absl/strings/str_cat.h"

namespace shale {

namespace {

// Linux limits thread names to 15 characters (16 with the NUL).
constexpr size_t kMaxThreadName = 15;

// "<name>:<index>", with `name` cut so the index always survives.
std::string WorkerName(const std::string& name, int index) {
  const std::string suffix = absl::StrCat(":", index);
  const size_t keep = suffix.size() >= kMaxThreadName ? 0 : kMaxThreadName - suffix.size();
  return absl::StrCat(name.substr(0, keep), suffix).substr(0, kMaxThreadName);
}

}  // namespace

ThreadPool::ThreadPool(int num_threads, std::string name) : name_(std::move(name)) {
  SetNumThreads(num_threads);
}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> threads;
  {
    MutexLock l(&mu_);
    shutting_down_ = true;
    work_cv_.SignalAll();
    threads.swap(threads_);
  }
  // Each worker exits once the queues are empty (or, if surplus, after its current job).
  for (std::thread& t : threads) t.join();
  // Jobs are left only if the pool had no thread to run them.
  DrainOnCallingThread();
}

void ThreadPool::Schedule(std::function<void()> job, Priority priority) {
  MutexLock l(&mu_);
  (priority == Priority::kHigh ? high_ : low_).push_back(std::move(job));
  work_cv_.Signal();
}

void ThreadPool::SetNumThreads(int n) {
  assert(n >= 0);
  {
    MutexLock l(&mu_);
    target_workers_ = std::max(n, 0);
    while (live_workers_ < target_workers_) StartWorkerLocked(next_index_++);
    // Wake idle workers so the surplus, if any, sees it and exits.
    work_cv_.SignalAll();
  }
  ReapExitedWorkers();
}

int ThreadPool::NumThreads() const {
  MutexLock l(&mu_);
  return target_workers_;
}

void ThreadPool::WaitForIdle() {
  MutexLock l(&mu_);
  while (running_ > 0 || !high_.empty() || !low_.empty()) idle_cv_.Wait(&mu_);
}

size_t ThreadPool::NumQueued() const {
  MutexLock l(&mu_);
  return high_.size() + low_.size();
}

int ThreadPool::NumRunning() const {
  MutexLock l(&mu_);
  return running_;
}

void ThreadPool::StartWorkerLocked(int index) {
  threads_.emplace_back([this, index] { WorkerLoop(index); });
  live_workers_++;
}

std::function<void()> ThreadPool::PopLocked() {
  std::deque<std::function<void()>>& queue = high_.empty() ? low_ : high_;
  assert(!queue.empty());
  std::function<void()> job = std::move(queue.front());
  queue.pop_front();
  return job;
}

void ThreadPool::RunOneJobLocked() {
  std::function<void()> job = PopLocked();
  running_++;
  mu_.Unlock();
  job();
  job = nullptr;  // destroy what the job captured outside the lock as well
  mu_.Lock();
  running_--;
  if (running_ == 0 && high_.empty() && low_.empty()) idle_cv_.SignalAll();
}

void ThreadPool::WorkerLoop(int index) {
  pthread_setname_np(pthread_self(), WorkerName(name_, index).c_str());
  mu_.Lock();
  while (true) {
    while (high_.empty() && low_.empty() && !shutting_down_ &&
           live_workers_ <= target_workers_) {
      work_cv_.Wait(&mu_);
    }
    const bool surplus = live_workers_ > target_workers_;
    const bool has_work = !high_.empty() || !low_.empty();
    if (surplus || !has_work) break;  // !has_work here means shutting down
    RunOneJobLocked();
  }
  live_workers_--;
  exited_.push_back(std::this_thread::get_id());
  // A surplus worker may have been the one woken for a queued job: pass the wake-up on.
  if (!high_.empty() || !low_.empty()) work_cv_.Signal();
  mu_.Unlock();
}

void ThreadPool::ReapExitedWorkers() {
  std::vector<std::thread> done;
  {
    MutexLock l(&mu_);
    for (std::thread::id id : exited_) {
      auto it = std::find_if(threads_.begin(), threads_.end(),
                             [id](const std::thread& t) { return t.get_id() == id; });
      assert(it != threads_.end());
      done.push_back(std::move(*it));
      threads_.erase(it);
    }
    exited_.clear();
  }
  for (std::thread& t : done) t.join();
}

void ThreadPool::DrainOnCallingThread() {
  MutexLock l(&mu_);
  while (!high_.empty() || !low_.empty()) RunOneJobLocked();
}

}  // namespace shale
