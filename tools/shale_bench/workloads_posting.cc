// The threads of postinglist and postinglist_rmw (posting_list.h): writers 0 .. writers - 1
// add ids, thread `writers` is the reader of the hottest list.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "posting_list.h"
#include "shale/sorted_set64.h"
#include "workloads.h"

namespace shale::bench {

namespace {

// Writers count no operations of their own for the end of a run: PostingListRun::Done does.
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 2;

enum class AddMode { kMerge, kReadModifyWrite };

// What a read-modify-write reuses from one add to the next.
struct RmwBuffers {
  std::string value;
  std::vector<uint64_t> ids;
};

Status AddByMerge(const WorkloadEnv& env, uint64_t list, std::string_view key, uint64_t id,
                  int64_t* bytes) {
  const std::string operand = SortedSet64AddOperand({id});
  *bytes += static_cast<int64_t>(key.size() + operand.size());
  return env.db->Merge(env.write_options, env.FamilyOf(list), key, operand);
}

Status AddByReadModifyWrite(const WorkloadEnv& env, uint64_t list, std::string_view key,
                            uint64_t id, RmwBuffers* buf, int64_t* bytes) {
  absl::MutexLock lock(env.posting->ListLock(list));
  Status s = env.db->Get(env.read_options, env.FamilyOf(list), key, &buf->value);
  buf->ids.clear();
  if (s.ok()) {
    s = SortedSet64Decode(buf->value, &buf->ids);
  } else if (s.IsNotFound()) {
    s = Status::OK();
  }
  if (!s.ok()) return s;
  buf->ids.insert(std::upper_bound(buf->ids.begin(), buf->ids.end(), id), id);
  s = SortedSet64Value(std::move(buf->ids), env.posting->config().index_interval, &buf->value);
  if (!s.ok()) return s;
  *bytes += static_cast<int64_t>(key.size() + buf->value.size());
  return env.db->Put(env.write_options, env.FamilyOf(list), key, buf->value);
}

void Writer(const WorkloadEnv& env, ThreadState* thread, AddMode mode) {
  PostingListRun& run = *env.posting;
  const int w = thread->tid;
  // The stream depends on --seed and the writer alone (not on the benchmarks run before).
  Random rand(run.config().seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(w) + 1);
  KeyFormatter keys(env.key_size);
  RmwBuffers buf;
  int64_t bytes = 0;
  uint64_t adds = 0;
  Duration duration(env.duration, kUnbounded, thread->shared);
  run.NoteStart();
  while (!run.Done() && !duration.Done(1)) {
    const uint64_t list = run.zipf().Next(&rand);
    const uint64_t id = run.IdOf(w, adds);
    const std::string_view key = keys.Format(list);
    Status s = mode == AddMode::kMerge ? AddByMerge(env, list, key, id, &bytes)
                                       : AddByReadModifyWrite(env, list, key, id, &buf, &bytes);
    if (!s.ok()) {
      thread->shared->Fail(s, mode == AddMode::kMerge ? "merge" : "read-modify-write");
      break;
    }
    adds++;
    run.CountAdd(list);
    thread->stats.FinishedOps(1, mode == AddMode::kMerge ? OpType::kMerge : OpType::kUpdate);
  }
  run.WriterDone();
  thread->stats.AddBytes(bytes);
}

// Gets the hottest list back to back until the writers stop, timing each Get.
void Reader(const WorkloadEnv& env, ThreadState* thread) {
  PostingListRun& run = *env.posting;
  thread->stats.SetExcludeFromMerge();
  KeyFormatter keys(env.key_size);
  const std::string key(keys.Format(0));
  std::string value;
  run.NoteStart();
  while (run.writers_running() && !thread->shared->failed()) {
    const auto start = std::chrono::steady_clock::now();
    Status s = env.db->Get(env.read_options, env.FamilyOf(0), key, &value);
    const std::chrono::duration<double, std::micro> took =
        std::chrono::steady_clock::now() - start;
    uint64_t ids = 0;
    if (s.ok()) {
      s = SortedSet64Count(value, &ids);
    } else if (s.IsNotFound()) {
      s = Status::OK();
    }
    if (!s.ok()) {
      thread->shared->Fail(s, "get of the hottest list");
      return;
    }
    run.RecordGet(ids, took.count());
  }
}

void PostingListThread(const WorkloadEnv& env, ThreadState* thread, AddMode mode) {
  if (thread->tid == env.posting->config().writers) {
    Reader(env, thread);
  } else {
    Writer(env, thread, mode);
  }
}

}  // namespace

void PostingList(const WorkloadEnv& env, ThreadState* thread) {
  PostingListThread(env, thread, AddMode::kMerge);
}

void PostingListRmw(const WorkloadEnv& env, ThreadState* thread) {
  PostingListThread(env, thread, AddMode::kReadModifyWrite);
}

}  // namespace shale::bench
