// WriteQueue::Front's protocol (db/write_queue.h), on its own: requests reach the front in
// order of arrival, one at a time; a leader's group takes the writers behind it up to a
// barrier, a sync write after a non-sync leader, or a WAL/no-WAL change; the group's writers
// get the leader's outcome without reaching the front; a leader that gives up its group
// unreleased fails it. Each test queues its threads one by one (waiting until each is in the
// queue), so the order is fixed and the outcome deterministic.
#include "db/write_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "db/write_batch_internal.h"

namespace shale {
namespace {

class WriteQueueTest : public ::testing::Test {
 protected:
  ~WriteQueueTest() override {
    for (std::thread& t : threads_) t.join();
  }

  size_t QueueSize() {
    MutexLock lock(&mu_);
    return queue_.size();
  }
  // Runs `body` on a new thread and waits until the queue holds `queued` requests (the new
  // one is in it, at its place).
  void StartAndWaitQueued(std::function<void()> body, size_t queued) {
    threads_.emplace_back(std::move(body));
    while (QueueSize() < queued) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void JoinAll() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  // What one writer thread saw.
  struct Outcome {
    bool led = false;
    uint32_t group_count = 0;  // records in the group it wrote, when it led
    Status status;             // its outcome, when a leader wrote it
  };
  // A writer: joins the queue with `batch`; as the leader, builds its group and releases it
  // with `leader_status`.
  void RunWriter(WriteBatch* batch, WriteOptions options, Status leader_status, Outcome* out) {
    MutexLock lock(&mu_);
    WriteQueue::Front front(&queue_, &mu_, batch, options);
    out->led = front.held();
    if (!front.held()) {
      out->status = front.status();
      return;
    }
    WriteBatch* group = front.BuildGroup();
    out->group_count = WriteBatchInternal::Count(*group);
    front.Release(leader_status);
  }
  // Takes the front with a barrier on the test's thread, to line the others up behind it.
  WriteQueue::Front* HoldFront() {
    mu_.Lock();
    auto* front = new WriteQueue::Front(&queue_, &mu_);
    mu_.Unlock();
    return front;
  }
  void ReleaseHeldFront(WriteQueue::Front* front) {
    mu_.Lock();
    delete front;
    mu_.Unlock();
  }
  static std::unique_ptr<WriteBatch> Batch(int records) {
    auto batch = std::make_unique<WriteBatch>();
    for (int i = 0; i < records; i++) {
      const std::string key(1, static_cast<char>('a' + i));
      EXPECT_TRUE(batch->Put(key, "v").ok());
    }
    return batch;
  }

  Mutex mu_;
  WriteQueue queue_;
  std::vector<std::thread> threads_;
};

TEST_F(WriteQueueTest, BarrierOnAnEmptyQueueHoldsTheFrontAtOnce) {
  MutexLock lock(&mu_);
  {
    WriteQueue::Front front(&queue_, &mu_);
    EXPECT_TRUE(front.held());
    EXPECT_EQ(queue_.size(), 1u);
    front.Release();
    EXPECT_FALSE(front.held());
    EXPECT_TRUE(queue_.empty());
  }
  {
    WriteQueue::Front front(&queue_, &mu_);
    EXPECT_TRUE(front.held());
  }  // released by the destructor
  EXPECT_TRUE(queue_.empty());
}

TEST_F(WriteQueueTest, FrontsFollowTheOrderOfArrival) {
  std::vector<int> order;  // guarded by mu_
  auto barrier = [&](int id) {
    MutexLock lock(&mu_);
    WriteQueue::Front front(&queue_, &mu_);
    EXPECT_TRUE(front.held());
    order.push_back(id);
  };
  WriteQueue::Front* holder = HoldFront();
  for (int id = 1; id <= 4; id++) StartAndWaitQueued([&barrier, id] { barrier(id); }, id + 1);
  {
    MutexLock lock(&mu_);
    EXPECT_TRUE(order.empty());  // nobody passed the held front
  }
  ReleaseHeldFront(holder);
  JoinAll();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(QueueSize(), 0u);
}

TEST_F(WriteQueueTest, LeaderGroupsFollowersAndHandsThemItsOutcome) {
  auto b1 = Batch(1), b2 = Batch(2), b3 = Batch(3), b4 = Batch(4);
  WriteOptions no_wal;
  no_wal.disableWAL = true;
  Outcome o1, o2, o3, o4;
  {
    WriteQueue::Front* holder = HoldFront();
    // Behind the holder: w1 and w2 (WAL), w3 (no WAL: a group of its own), then w4 (WAL).
    StartAndWaitQueued([&] { RunWriter(b1.get(), WriteOptions(), Status::Busy("g1"), &o1); }, 2);
    StartAndWaitQueued([&] { RunWriter(b2.get(), WriteOptions(), Status::OK(), &o2); }, 3);
    StartAndWaitQueued([&] { RunWriter(b3.get(), no_wal, Status::OK(), &o3); }, 4);
    StartAndWaitQueued([&] { RunWriter(b4.get(), WriteOptions(), Status::OK(), &o4); }, 5);
    ReleaseHeldFront(holder);
  }
  JoinAll();
  EXPECT_TRUE(o1.led);
  EXPECT_EQ(o1.group_count, 3u);  // its own record and w2's two
  EXPECT_FALSE(o2.led);
  EXPECT_TRUE(o2.status.IsBusy()) << o2.status.ToString();  // the leader's outcome
  EXPECT_TRUE(o3.led);
  EXPECT_EQ(o3.group_count, 3u);
  EXPECT_TRUE(o4.led);
  EXPECT_EQ(o4.group_count, 4u);
  EXPECT_EQ(QueueSize(), 0u);
}

TEST_F(WriteQueueTest, GroupStopsAtABarrierAndAtASyncWrite) {
  auto b1 = Batch(1), b2 = Batch(2), b3 = Batch(3);
  WriteOptions sync;
  sync.sync = true;
  Outcome o1, o2, o3;
  bool barrier_held = false;
  {
    WriteQueue::Front* holder = HoldFront();
    // w1 (not synced), then a barrier, then w2 (synced) and w3 (not synced).
    StartAndWaitQueued([&] { RunWriter(b1.get(), WriteOptions(), Status::OK(), &o1); }, 2);
    StartAndWaitQueued(
        [&] {
          MutexLock l(&mu_);
          WriteQueue::Front front(&queue_, &mu_);
          barrier_held = front.held();
        },
        3);
    StartAndWaitQueued([&] { RunWriter(b2.get(), sync, Status::OK(), &o2); }, 4);
    StartAndWaitQueued([&] { RunWriter(b3.get(), WriteOptions(), Status::OK(), &o3); }, 5);
    ReleaseHeldFront(holder);
  }
  JoinAll();
  EXPECT_TRUE(o1.led);
  EXPECT_EQ(o1.group_count, 1u);  // the barrier ends its group
  EXPECT_TRUE(barrier_held);
  // A synced leader takes a non-synced follower (the follower only gains).
  EXPECT_TRUE(o2.led);
  EXPECT_EQ(o2.group_count, 5u);
  EXPECT_FALSE(o3.led);
  EXPECT_TRUE(o3.status.ok());

  // The other way round: a sync write does not join a non-synced leader.
  Outcome p1, p2;
  {
    WriteQueue::Front* holder = HoldFront();
    StartAndWaitQueued([&] { RunWriter(b1.get(), WriteOptions(), Status::OK(), &p1); }, 2);
    StartAndWaitQueued([&] { RunWriter(b2.get(), sync, Status::OK(), &p2); }, 3);
    ReleaseHeldFront(holder);
  }
  JoinAll();
  EXPECT_TRUE(p1.led);
  EXPECT_EQ(p1.group_count, 1u);
  EXPECT_TRUE(p2.led);
}

TEST_F(WriteQueueTest, GroupIsBoundedInBytes) {
  // A small leader takes at most about 128 KiB more: a 200 KiB follower waits for its turn.
  WriteBatch small, big;
  ASSERT_TRUE(small.Put("a", "b").ok());
  ASSERT_TRUE(big.Put("big", std::string(200 << 10, 'x')).ok());
  Outcome o1, o2;
  {
    WriteQueue::Front* holder = HoldFront();
    StartAndWaitQueued([&] { RunWriter(&small, WriteOptions(), Status::OK(), &o1); }, 2);
    StartAndWaitQueued([&] { RunWriter(&big, WriteOptions(), Status::OK(), &o2); }, 3);
    ReleaseHeldFront(holder);
  }
  JoinAll();
  EXPECT_TRUE(o1.led);
  EXPECT_EQ(o1.group_count, 1u);
  EXPECT_TRUE(o2.led);
}

TEST_F(WriteQueueTest, LeaderDestroyedWithoutReleaseFailsItsGroup) {
  auto b1 = Batch(1), b2 = Batch(1);
  Outcome o2;
  bool led = false;
  {
    WriteQueue::Front* holder = HoldFront();
    StartAndWaitQueued(
        [&] {
          MutexLock l(&mu_);
          WriteQueue::Front front(&queue_, &mu_, b1.get(), WriteOptions());
          led = front.held();
          if (led) front.BuildGroup();
        },  // destroyed holding its group
        2);
    StartAndWaitQueued([&] { RunWriter(b2.get(), WriteOptions(), Status::OK(), &o2); }, 3);
    ReleaseHeldFront(holder);
  }
  JoinAll();
  EXPECT_TRUE(led);
  EXPECT_FALSE(o2.led);
  EXPECT_TRUE(o2.status.IsAborted()) << o2.status.ToString();
  EXPECT_EQ(QueueSize(), 0u);
}

}  // namespace
}  // namespace shale
