// Write workloads: fills, overwrites and deletes, single or batched.
#include <cstdint>
#include <string>

#include "shale/write_batch.h"
#include "workloads.h"

namespace shale::bench {

namespace {

enum class KeyOrder { kSequential, kRandom };

// Writes (or deletes) env.writes keys per thread in batches of env.entries_per_batch.
// Sequential runs ignore --duration, as in db_bench.
void DoWrite(const WorkloadEnv& env, ThreadState* thread, KeyOrder order, bool is_delete) {
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, thread->rand.Next64());
  WriteBatch batch;
  const int duration = order == KeyOrder::kSequential ? 0 : env.duration;
  Duration run(duration, env.writes, thread->shared);
  uint64_t next_seq = 0;
  for (int64_t n = run.NextBatch(env.entries_per_batch); !run.Done(n);
       n = run.NextBatch(env.entries_per_batch)) {
    batch.Clear();
    int64_t bytes = 0;
    Status s;
    for (int64_t j = 0; j < n && s.ok(); j++) {
      const uint64_t k = order == KeyOrder::kSequential ? next_seq++ : RandomKeyNumber(env, thread);
      const std::string_view key = keys.Format(k);
      // The key's column family (--num_column_families): a batch may span several.
      ColumnFamilyHandle* const family = env.FamilyOf(k);
      if (is_delete) {
        s = batch.Delete(family, key);
      } else {
        const std::string_view value = values.Next();
        s = batch.Put(family, key, value);
        bytes += static_cast<int64_t>(key.size() + value.size());
      }
    }
    if (s.ok()) s = env.db->Write(env.write_options, &batch);
    if (!s.ok()) {
      thread->shared->Fail(s, is_delete ? "delete" : "put");
      return;
    }
    thread->stats.AddBytes(bytes);
    thread->stats.FinishedOps(n, is_delete ? OpType::kDelete : OpType::kWrite);
  }
}

}  // namespace

void WriteSeq(const WorkloadEnv& env, ThreadState* thread) {
  DoWrite(env, thread, KeyOrder::kSequential, /*is_delete=*/false);
}

void WriteRandom(const WorkloadEnv& env, ThreadState* thread) {
  DoWrite(env, thread, KeyOrder::kRandom, /*is_delete=*/false);
}

void DeleteSeq(const WorkloadEnv& env, ThreadState* thread) {
  DoWrite(env, thread, KeyOrder::kSequential, /*is_delete=*/true);
}

void DeleteRandom(const WorkloadEnv& env, ThreadState* thread) {
  DoWrite(env, thread, KeyOrder::kRandom, /*is_delete=*/true);
}

void Compact(const WorkloadEnv& env, ThreadState* thread) {
  // db_bench's compact: the bottom level is rewritten too, but not the files this very
  // compaction wrote there.
  CompactRangeOptions options;
  options.bottommost_level_compaction = BottommostLevelCompaction::kForceOptimized;
  // Every column family, one after the other.
  for (ColumnFamilyHandle* family : env.AllFamilies()) {
    Status s = env.db->CompactRange(options, family, nullptr, nullptr);
    // The DB's message already names CompactRange.
    if (!s.ok()) {
      thread->shared->Fail(s, "");
      return;
    }
  }
}

}  // namespace shale::bench
