#include "util/thread_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "util/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace shale {
namespace {

using Priority = ThreadPool::Priority;

// Counts jobs that are inside Enter()..Leave() at once and remembers the peak; jobs can be held
// inside until Release().
class Gate {
 public:
  void Enter() {
    MutexLock l(&mu_);
    inside_++;
    peak_ = std::max(peak_, inside_);
    while (!open_) open_cv_.Wait(&mu_);
    inside_--;
  }
  // Waits (up to 10 s) until n jobs are inside; returns whether they got there.
  bool AwaitInside(int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (absl::Now() < deadline) {
      {
        MutexLock l(&mu_);
        if (inside_ >= n) return true;
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    return false;
  }
  void Release() {
    MutexLock l(&mu_);
    open_ = true;
    open_cv_.SignalAll();
  }
  int Peak() {
    MutexLock l(&mu_);
    return peak_;
  }

 private:
  Mutex mu_;
  CondVar open_cv_;  // signalled by Release
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int inside_ ABSL_GUARDED_BY(mu_) = 0;
  int peak_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(ThreadPoolTest, EveryJobRunsExactlyOnce) {
  constexpr int kPerProducer = 5000;
  constexpr int kProducers = 3;
  std::vector<std::atomic<int>> runs(kPerProducer * kProducers);
  ThreadPool pool(4, "test");
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; p++) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; i++) {
        const int id = p * kPerProducer + i;
        pool.Schedule([&runs, id] { runs[id]++; }, i % 2 ? Priority::kHigh : Priority::kLow);
      }
    });
  }
  for (std::thread& t : producers) t.join();
  pool.WaitForIdle();
  EXPECT_EQ(pool.NumQueued(), 0u);
  EXPECT_EQ(pool.NumRunning(), 0);
  for (size_t i = 0; i < runs.size(); i++) ASSERT_EQ(runs[i].load(), 1) << "job " << i;
}

TEST(ThreadPoolTest, HighPriorityJobsRunFirstAndEachPriorityIsFifo) {
  ThreadPool pool(1, "prio");
  Gate gate;
  pool.Schedule([&] { gate.Enter(); });
  ASSERT_TRUE(gate.AwaitInside(1));  // the only thread is busy: everything below queues

  Mutex mu;
  std::string order;
  auto record = [&](char c) {
    return [&mu, &order, c] {
      MutexLock l(&mu);
      order.push_back(c);
    };
  };
  pool.Schedule(record('a'), Priority::kLow);
  pool.Schedule(record('B'), Priority::kHigh);
  pool.Schedule(record('b'), Priority::kLow);
  pool.Schedule(record('C'), Priority::kHigh);
  pool.Schedule(record('c'));  // low by default
  EXPECT_EQ(pool.NumQueued(), 5u);
  EXPECT_EQ(pool.NumRunning(), 1);
  gate.Release();
  pool.WaitForIdle();
  MutexLock l(&mu);
  EXPECT_EQ(order, "BCabc");
}

TEST(ThreadPoolTest, GrowingAddsConcurrency) {
  ThreadPool pool(1, "grow");
  Gate gate;
  for (int i = 0; i < 4; i++) pool.Schedule([&] { gate.Enter(); });
  ASSERT_TRUE(gate.AwaitInside(1));
  EXPECT_EQ(pool.NumQueued(), 3u);
  pool.SetNumThreads(4);
  EXPECT_EQ(pool.NumThreads(), 4);
  ASSERT_TRUE(gate.AwaitInside(4)) << "the new threads did not pick up the queued jobs";
  EXPECT_EQ(pool.NumRunning(), 4);
  gate.Release();
  pool.WaitForIdle();
  EXPECT_EQ(gate.Peak(), 4);
}

TEST(ThreadPoolTest, ShrinkingLetsRunningJobsFinishThenLimitsConcurrency) {
  ThreadPool pool(3, "shrink");
  Gate busy;
  for (int i = 0; i < 3; i++) pool.Schedule([&] { busy.Enter(); });
  ASSERT_TRUE(busy.AwaitInside(3));
  pool.SetNumThreads(1);  // does not wait for, or interrupt, the three running jobs
  EXPECT_EQ(pool.NumThreads(), 1);
  EXPECT_EQ(pool.NumRunning(), 3);
  busy.Release();
  pool.WaitForIdle();

  // Now only one thread may run jobs: they never overlap, and all run on one thread.
  std::atomic<int> inside{0}, peak{0};
  Mutex mu;
  std::set<std::thread::id> threads;
  for (int i = 0; i < 50; i++) {
    pool.Schedule([&] {
      const int now = ++inside;
      int p = peak.load();
      while (now > p && !peak.compare_exchange_weak(p, now)) {
      }
      absl::SleepFor(absl::Microseconds(200));
      {
        MutexLock l(&mu);
        threads.insert(std::this_thread::get_id());
      }
      --inside;
    });
  }
  pool.WaitForIdle();
  EXPECT_EQ(peak.load(), 1);
  MutexLock l(&mu);
  EXPECT_EQ(threads.size(), 1u);
}

TEST(ThreadPoolTest, ZeroThreadsQueuesUntilThreadsAreAdded) {
  ThreadPool pool(0, "zero");
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; i++) pool.Schedule([&] { ran++; });
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(ran.load(), 0);
  EXPECT_EQ(pool.NumQueued(), 10u);
  pool.SetNumThreads(2);
  pool.WaitForIdle();
  EXPECT_EQ(ran.load(), 10);
  pool.SetNumThreads(0);
  pool.Schedule([&] { ran++; });
  pool.SetNumThreads(1);
  pool.WaitForIdle();
  EXPECT_EQ(ran.load(), 11);
}

TEST(ThreadPoolTest, WaitForIdleWaitsForJobsScheduledByJobs) {
  ThreadPool pool(2, "chain");
  std::atomic<int> ran{0};
  // Each job schedules the next one before it returns, so the pool is never idle in between.
  std::function<void(int)> chain = [&](int left) {
    absl::SleepFor(absl::Microseconds(100));
    ran++;
    if (left > 0) pool.Schedule([&chain, left] { chain(left - 1); });
  };
  pool.Schedule([&] { chain(49); });
  pool.WaitForIdle();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(pool.NumQueued(), 0u);
  EXPECT_EQ(pool.NumRunning(), 0);
}

TEST(ThreadPoolTest, DestructorRunsQueuedJobsAndJoins) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(2, "dtor");
    for (int i = 0; i < 1000; i++) {
      pool.Schedule([&pool, &ran, i] {
        ran++;
        if (i % 100 == 0) pool.Schedule([&ran] { ran++; });  // possibly while closing
      });
    }
  }
  // Every job ran by the time the destructor returned, including those scheduled while it ran.
  EXPECT_EQ(ran.load(), 1000 + 10);
}

TEST(ThreadPoolTest, DestructorRunsJobsOfAThreadlessPool) {
  std::atomic<int> ran{0};
  std::thread::id runner;
  {
    ThreadPool pool(0, "none");
    for (int i = 0; i < 5; i++) pool.Schedule([&] { ran++; });
    pool.Schedule([&] { runner = std::this_thread::get_id(); });
  }
  EXPECT_EQ(ran.load(), 5);
  EXPECT_EQ(runner, std::this_thread::get_id());
}

TEST(ThreadPoolTest, ThreadsAreNamedWithinFifteenCharacters) {
  auto name_of_worker = [](const std::string& pool_name) {
    ThreadPool pool(1, pool_name);
    char buf[64] = {};
    pool.Schedule([&buf] { pthread_getname_np(pthread_self(), buf, sizeof(buf)); });
    pool.WaitForIdle();
    return std::string(buf);
  };
  EXPECT_EQ(name_of_worker("flush"), "flush:0");
  const std::string long_name = name_of_worker("a-very-long-pool-name");
  EXPECT_EQ(long_name, "a-very-long-p:0");
  EXPECT_EQ(long_name.size(), 15u);
}

}  // namespace
}  // namespace shale
