// Merge workloads, db_bench's MergeRandom and ReadRandomMergeRandom: the operand of each Merge
// is the next generated value (--value_size bytes, as db_bench's RandomGenerator gives; with
// uint64add and --value_size=8 that is an 8-byte little-endian integer), the keys are random in
// [0, merge_keys). Benchmark::RunOne checks beforehand that the DB has a merge operator whose
// operands these values can be.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "workloads.h"

namespace shale::bench {

namespace {

uint64_t RandomMergeKey(const WorkloadEnv& env, ThreadState* thread) {
  return thread->rand.Uniform(static_cast<uint64_t>(env.merge_keys));
}

}  // namespace

void MergeRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  int64_t merges = 0, bytes = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomMergeKey(env, thread);
    const std::string_view key = keys.Format(k);
    const std::string_view operand = values.Next();
    Status s = env.db->Merge(env.write_options, env.FamilyOf(k), key, operand);
    if (!s.ok()) {
      thread->shared->Fail(s, "merge");
      return;
    }
    merges++;
    bytes += static_cast<int64_t>(key.size() + operand.size());
    thread->stats.FinishedOps(1, OpType::kMerge);
  }
  thread->stats.AddBytes(bytes);
  // db_bench prints its operation budget (--reads, else --num), which a counted run does in
  // full; a run that --duration ends prints the merges done instead.
  char msg[100];
  std::snprintf(msg, sizeof(msg), "( updates:%" PRId64 ")", env.duration > 0 ? merges : env.reads);
  thread->stats.AddMessage(msg);
}

void ReadRandomMergeRandom(const WorkloadEnv& env, ThreadState* thread) {
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  std::string value;
  int64_t gets = 0, merges = 0, hits = 0;
  size_t max_length = 0;
  Duration run(env.duration, env.reads, thread->shared);
  while (!run.Done(1)) {
    const uint64_t k = RandomMergeKey(env, thread);
    const std::string_view key = keys.Format(k);
    ColumnFamilyHandle* const family = env.FamilyOf(k);
    if (static_cast<int>(thread->rand.Uniform(100)) < env.mergereadpercent) {
      Status s = env.db->Merge(env.write_options, family, key, values.Next());
      if (!s.ok()) {
        thread->shared->Fail(s, "merge");
        return;
      }
      merges++;
      thread->stats.FinishedOps(1, OpType::kMerge);
      continue;
    }
    Status s = env.db->Get(env.read_options, family, key, &value);
    if (s.ok()) {
      hits++;
      if (value.size() > max_length) max_length = value.size();
    } else if (!s.IsNotFound()) {
      // db_bench reports a failed Get and goes on; a failed merge is not something to time.
      thread->shared->Fail(s, "get");
      return;
    }
    gets++;
    thread->stats.FinishedOps(1, OpType::kRead);
  }
  char msg[160];
  std::snprintf(msg, sizeof(msg),
                "(reads:%" PRId64 " merges:%" PRId64 " total:%" PRId64 " hits:%" PRId64
                " maxlength:%zu)",
                gets, merges, gets + merges, hits, max_length);
  thread->stats.AddMessage(msg);
}

}  // namespace shale::bench
