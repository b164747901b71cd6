// Mixed workloads: reads with a background writer, a read/write mix, read-modify-write.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <thread>

#include "workloads.h"

namespace shale::bench {

namespace {

// Puts random keys until every reader thread is done (or a thread failed). Its operations
// are load, not results: the thread is left out of the report.
void BackgroundWriter(const WorkloadEnv& env, ThreadState* thread) {
  thread->stats.SetExcludeFromMerge();
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  const auto start = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  while (thread->shared->readers_running.load(std::memory_order_acquire) > 0 &&
         !thread->shared->failed()) {
    const uint64_t k = RandomKeyNumber(env, thread);
    const std::string_view key = keys.Format(k);
    const std::string_view value = values.Next();
    Status s = env.db->Put(env.write_options, env.FamilyOf(k), key, value);
    if (!s.ok()) {
      thread->shared->Fail(s, "put");
      return;
    }
    thread->stats.FinishedOps(1, OpType::kWrite);
    bytes += key.size() + value.size();
    if (env.write_rate_limit > 0) {
      // --benchmark_write_rate_limit: sleep while ahead of the rate (the schedule is kept from
      // the start, so a slow Put is made up for by the next ones).
      const auto due =
          start + std::chrono::microseconds(bytes * 1'000'000 / env.write_rate_limit);
      if (due > std::chrono::steady_clock::now()) std::this_thread::sleep_until(due);
    }
  }
}

}  // namespace

void ReadWhileWriting(const WorkloadEnv& env, ThreadState* thread) {
  if (thread->tid == 0) {
    BackgroundWriter(env, thread);
    return;
  }
  ReadRandom(env, thread);
  thread->shared->readers_running.fetch_sub(1, std::memory_order_release);
}

void ReadRandomWriteRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  std::string value;
  int64_t reads_done = 0, writes_done = 0, found = 0;
  int get_weight = 0, put_weight = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomKeyNumber(env, thread);
    const std::string_view key = keys.Format(k);
    ColumnFamilyHandle* const family = env.FamilyOf(k);
    if (get_weight == 0 && put_weight == 0) {
      get_weight = env.readwritepercent;
      put_weight = 100 - get_weight;
    }
    if (get_weight > 0) {
      Status s = env.db->Get(env.read_options, family, key, &value);
      if (s.ok()) {
        found++;
      } else if (!s.IsNotFound()) {
        thread->shared->Fail(s, "get");
        return;
      }
      get_weight--;
      reads_done++;
      thread->stats.FinishedOps(1, OpType::kRead);
    } else {
      Status s = env.db->Put(env.write_options, family, key, values.Next());
      if (!s.ok()) {
        thread->shared->Fail(s, "put");
        return;
      }
      put_weight--;
      writes_done++;
      thread->stats.FinishedOps(1, OpType::kWrite);
    }
  }
  char msg[160];
  std::snprintf(msg, sizeof(msg), "( reads:%" PRId64 " writes:%" PRId64 " total:%" PRId64
                " found:%" PRId64 ")", reads_done, writes_done, reads_done + writes_done, found);
  thread->stats.AddMessage(msg);
}

void UpdateRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  std::string value;
  int64_t updates = 0, found = 0, bytes = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomKeyNumber(env, thread);
    const std::string_view key = keys.Format(k);
    ColumnFamilyHandle* const family = env.FamilyOf(k);
    Status s = env.db->Get(env.read_options, family, key, &value);
    if (s.ok()) {
      found++;
      bytes += static_cast<int64_t>(key.size() + value.size());
    } else if (!s.IsNotFound()) {
      thread->shared->Fail(s, "get");
      return;
    }
    const std::string_view new_value = values.Next();
    s = env.db->Put(env.write_options, family, key, new_value);
    if (!s.ok()) {
      thread->shared->Fail(s, "put");
      return;
    }
    updates++;
    bytes += static_cast<int64_t>(key.size() + new_value.size());
    thread->stats.FinishedOps(1, OpType::kUpdate);
  }
  thread->stats.AddBytes(bytes);
  char msg[160];
  std::snprintf(msg, sizeof(msg), "( updates:%" PRId64 " found:%" PRId64 ")", updates, found);
  thread->stats.AddMessage(msg);
}

}  // namespace shale::bench
