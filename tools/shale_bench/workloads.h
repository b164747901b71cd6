// The benchmark workloads, db_bench's methods of the same names. Each is run by every thread of
// a benchmark at once (see workload_context.h); each thread does the full operation count.
//
//   WriteSeq        keys 0, 1, 2, ... in batches of entries_per_batch      (fillseq, fillbatch)
//   WriteRandom     random keys in batches                  (fillrandom, overwrite, fillsync)
//   ReadRandom      Get of random keys                           (readrandom)
//   ReadMissing     Get of absent keys: random keys minus their last byte (readmissing)
//   MultiReadRandom MultiGet of entries_per_batch random keys    (multireadrandom)
//   ReadSequential  a forward scan of up to `reads` keys         (readseq)
//   ReadReverse     a backward scan of up to `reads` keys        (readreverse)
//   SeekRandom      Seek to random keys, then seek_nexts Next()  (seekrandom)
//   ReadWhileWriting thread 0 writes random keys until the other threads, which ReadRandom,
//                   are done; its operations are not counted      (readwhilewriting)
//   ReadRandomWriteRandom  readwritepercent% Get, the rest Put   (readrandomwriterandom)
//   UpdateRandom    Get then Put of random keys                  (updaterandom)
//   MergeRandom     Merge of a generated value into random keys of [0, merge_keys)
//                                                                 (mergerandom)
//   ReadRandomMergeRandom  mergereadpercent% Merge, the rest Get, keys of [0, merge_keys)
//                                                                 (readrandommergerandom)
//   PostingList / PostingListRmw  see posting_list.h          (postinglist, postinglist_rmw)
//   DeleteSeq / DeleteRandom  Delete keys in order / at random    (deleteseq, deleterandom)
//   Compact         one CompactRange over every key, the bottom level included (compact)
#ifndef SHALE_TOOLS_SHALE_BENCH_WORKLOADS_H_
#define SHALE_TOOLS_SHALE_BENCH_WORKLOADS_H_

#include "workload_context.h"

namespace shale::bench {

using WorkloadFn = void (*)(const WorkloadEnv& env, ThreadState* thread);

void WriteSeq(const WorkloadEnv& env, ThreadState* thread);
void WriteRandom(const WorkloadEnv& env, ThreadState* thread);
void DeleteSeq(const WorkloadEnv& env, ThreadState* thread);
void DeleteRandom(const WorkloadEnv& env, ThreadState* thread);

void ReadMissing(const WorkloadEnv& env, ThreadState* thread);
void ReadRandom(const WorkloadEnv& env, ThreadState* thread);
void MultiReadRandom(const WorkloadEnv& env, ThreadState* thread);
void ReadSequential(const WorkloadEnv& env, ThreadState* thread);
void ReadReverse(const WorkloadEnv& env, ThreadState* thread);
void SeekRandom(const WorkloadEnv& env, ThreadState* thread);

void ReadWhileWriting(const WorkloadEnv& env, ThreadState* thread);
void ReadRandomWriteRandom(const WorkloadEnv& env, ThreadState* thread);
void UpdateRandom(const WorkloadEnv& env, ThreadState* thread);

void MergeRandom(const WorkloadEnv& env, ThreadState* thread);
void ReadRandomMergeRandom(const WorkloadEnv& env, ThreadState* thread);
void PostingList(const WorkloadEnv& env, ThreadState* thread);
void PostingListRmw(const WorkloadEnv& env, ThreadState* thread);

void Compact(const WorkloadEnv& env, ThreadState* thread);

// A random key number in [0, env.num).
inline uint64_t RandomKeyNumber(const WorkloadEnv& env, ThreadState* thread) {
  return thread->rand.Uniform(static_cast<uint64_t>(env.num));
}

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_WORKLOADS_H_
