// Read workloads: point lookups, batched lookups, scans and seeks.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "workloads.h"

namespace shale::bench {

namespace {

std::string FoundMessage(uint64_t found, uint64_t read) {
  char msg[100];
  std::snprintf(msg, sizeof(msg), "(%" PRIu64 " of %" PRIu64 " found)", found, read);
  return msg;
}

// Scans up to env.reads keys forward or backward with one iterator per column family, the
// families one after the other (in order forward, in reverse order backward).
void Scan(const WorkloadEnv& env, ThreadState* thread, bool forward) {
  std::vector<ColumnFamilyHandle*> families = env.AllFamilies();
  if (!forward) std::reverse(families.begin(), families.end());
  Duration run(env.duration, env.reads, thread->shared);
  int64_t bytes = 0;
  bool done = false;
  for (size_t f = 0; f < families.size() && !done; f++) {
    std::unique_ptr<Iterator> it = env.db->NewIterator(env.read_options, families[f]);
    if (forward) {
      it->SeekToFirst();
    } else {
      it->SeekToLast();
    }
    while (it->Valid()) {
      if (run.Done(1)) {
        done = true;
        break;
      }
      bytes += static_cast<int64_t>(it->key().size() + it->value().size());
      thread->stats.FinishedOps(1, OpType::kRead);
      if (forward) {
        it->Next();
      } else {
        it->Prev();
      }
    }
    if (!it->status().ok()) {
      thread->shared->Fail(it->status(), forward ? "readseq" : "readreverse");
      break;
    }
  }
  thread->stats.AddBytes(bytes);
}

}  // namespace

void ReadRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  std::string value;
  uint64_t read = 0;
  uint64_t found = 0;
  int64_t bytes = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomKeyNumber(env, thread);
    const std::string_view key = keys.Format(k);
    read++;
    Status s = env.db->Get(env.read_options, env.FamilyOf(k), key, &value);
    if (s.ok()) {
      found++;
      bytes += static_cast<int64_t>(key.size() + value.size());
    } else if (!s.IsNotFound()) {
      thread->shared->Fail(s, "get");
      return;
    }
    thread->stats.FinishedOps(1, OpType::kRead);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddMessage(FoundMessage(found, read));
}

void ReadMissing(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  std::string value;
  uint64_t read = 0;
  uint64_t found = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomKeyNumber(env, thread);
    std::string_view key = keys.Format(k);
    // db_bench's readmissing: a stored key without its last byte, which no fill writes (every
    // key a fill writes has key_size bytes).
    if (!key.empty()) key.remove_suffix(1);
    read++;
    Status s = env.db->Get(env.read_options, env.FamilyOf(k), key, &value);
    if (s.ok()) {
      found++;
    } else if (!s.IsNotFound()) {
      thread->shared->Fail(s, "get");
      return;
    }
    thread->stats.FinishedOps(1, OpType::kRead);
  }
  thread->stats.AddMessage(FoundMessage(found, read));
}

void MultiReadRandom(const WorkloadEnv& env, ThreadState* thread) {
  const size_t batch = static_cast<size_t>(env.entries_per_batch);
  std::vector<std::string> key_bufs(batch);
  std::vector<std::string_view> keys(batch);
  std::vector<ColumnFamilyHandle*> families(batch);
  std::vector<std::string> values;
  KeyFormatter formatter(env.key_size);
  uint64_t read = 0;
  uint64_t found = 0;
  int64_t bytes = 0;
  Duration run(env.duration, env.reads, thread->shared);
  for (int64_t n = run.NextBatch(env.entries_per_batch); !run.Done(n);
       n = run.NextBatch(env.entries_per_batch)) {
    keys.resize(static_cast<size_t>(n));
    families.resize(static_cast<size_t>(n));
    for (size_t i = 0; i < keys.size(); i++) {
      const uint64_t k = RandomKeyNumber(env, thread);
      key_bufs[i].assign(formatter.Format(k));
      keys[i] = key_bufs[i];
      families[i] = env.FamilyOf(k);
    }
    const std::vector<Status> statuses =
        env.db->MultiGet(env.read_options, families, keys, &values);
    for (size_t i = 0; i < keys.size(); i++) {
      if (statuses[i].ok()) {
        found++;
        bytes += static_cast<int64_t>(keys[i].size() + values[i].size());
      } else if (!statuses[i].IsNotFound()) {
        thread->shared->Fail(statuses[i], "multiget");
        return;
      }
    }
    read += keys.size();
    thread->stats.FinishedOps(n, OpType::kRead);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddMessage(FoundMessage(found, read));
}

void ReadSequential(const WorkloadEnv& env, ThreadState* thread) { Scan(env, thread, true); }

void ReadReverse(const WorkloadEnv& env, ThreadState* thread) { Scan(env, thread, false); }

void SeekRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  // One iterator per column family, made when a key of that family is first sought.
  std::vector<std::unique_ptr<Iterator>> iterators(env.AllFamilies().size());
  uint64_t read = 0;
  uint64_t found = 0;
  int64_t bytes = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomKeyNumber(env, thread);
    const std::string_view key = keys.Format(k);
    std::unique_ptr<Iterator>& it = iterators[k % iterators.size()];
    if (it == nullptr) it = env.db->NewIterator(env.read_options, env.FamilyOf(k));
    it->Seek(key);
    read++;
    if (it->Valid() && it->key() == key) found++;
    for (int j = 0; j < env.seek_nexts && it->Valid(); j++) {
      bytes += static_cast<int64_t>(it->key().size() + it->value().size());
      it->Next();
    }
    if (!it->status().ok()) {
      thread->shared->Fail(it->status(), "seek");
      return;
    }
    thread->stats.FinishedOps(1, OpType::kSeek);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddMessage(FoundMessage(found, read));
}

}  // namespace shale::bench
