// Workload: the random operations of shale_stress, run by config.threads threads against one
// open DB while the expected state records every write (expected_state.h).
//
// A write of keys K (a put, delete, merge, range deletion, write batch of puts, deletes and
// merges, or ingested file of puts and deletes):
//   1. lock K (KeyLocks, so the expected state of a key has at most one write in flight);
//   2. give each key its next generation and store it as pending in the expected state;
//   3. issue the DB write, with WriteOptions::sync per config;
//   4. if it returns OK, commit (acked := Apply(acked, pending): a merge extends the key's
//      chain) -- in power-loss mode also take a ticket and record it in the DurabilityTracker --
//      and unlock.
// Checked reads lock their keys too, so what they read must be exactly what the expected state
// allows (for a merged value: exactly the acknowledged operands, see key_state.h): get (one
// key with Get, or a few with MultiGet), snapshot (a few keys read twice through a snapshot
// taken under their locks, the second time by Get, MultiGet or iterator seeks, sometimes after
// a flush or a compaction of their range: both reads allowed at that time, and equal), iterate
// (a small range, forward or backward, within iterator bounds: every key seen allowed, every
// key missed allowed absent). Flush and CompactRange take no key locks.
//
// Column families (keyspace.h): every "key" above is a slot, written in its family with the
// DB key of its key index. A put, delete, merge or range deletion writes one family; a write
// batch writes random slots (so it usually spans families), or, half of the time with several
// families, the same few keys into two or more families at once (a batch across families,
// whose all-or-nothing property the verifier checks); an ingestion goes into one family; a
// flush flushes one random family (so families flush independently and an unflushed family
// keeps old WALs alive), or now and then all of them with one call; a range compaction
// compacts one family. The last family is cold: single-key writes pick it 8 times less often
// than the others and a one-family flush never picks it, so its writes stay in old WALs
// while the other families flush past them. Seeks read through DB::NewIterators (one
// consistent iterator per family), MultiGet mixes families.
//
// A failed operation or check (a read that does not match: Corruption) is recorded
// (failures()) and stops every thread, except after PowerCut(): then errors are what the power
// loss causes and a thread just stops.
//
// Thread-safety: Start, Stop, PowerCut and Join may be called from one controlling thread;
// the accessors after Join.
#ifndef SHALE_TOOLS_SHALE_STRESS_WORKLOAD_H_
#define SHALE_TOOLS_SHALE_STRESS_WORKLOAD_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "durability.h"
#include "expected_state.h"
#include "key_locks.h"
#include "shale/db.h"
#include "stress_config.h"
#include "util/mutex.h"
#include "util/random.h"
#include "verifier.h"

namespace shale::stress {

class Workload {
 public:
  // Borrows everything; `tracker` is null unless in power-loss mode. `families` holds the
  // handle of each family in order (config.column_families of them); empty means the
  // default family only (with config.column_families == 1).
  Workload(const StressConfig& config, DB* db, ExpectedState* state,
           DurabilityTracker* tracker, std::vector<ColumnFamilyHandle*> families = {});
  ~Workload();
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // Starts the threads; they run until the duration passes, each has done ops_per_thread
  // operations, Stop() is called, or a failure.
  void Start();
  void Stop() { stop_.store(true); }
  // From now on errors are expected (the file system is gone): threads stop at the first.
  void PowerCut() { power_cut_.store(true); }
  void Join();
  bool Running() const;

  std::vector<std::string> failures() const;
  uint64_t ops_done() const { return ops_done_.load(); }
  // Completed operations per OpType.
  std::array<uint64_t, kNumOpTypes> op_counts() const;
  // Merge operands acknowledged (by merge operations and inside batches).
  uint64_t merges_done() const { return merges_done_.load(); }

 private:
  // One key of a write: filled by WriteKeys with the word it gets.
  struct KeyWrite {
    uint32_t key;
    WriteKind kind;
    GenWord word = 0;
  };
  using WriteFn = std::function<Status(const std::vector<KeyWrite>&, const WriteOptions&)>;

  void ThreadMain(uint32_t index);
  OpType PickOp(Random* rnd) const;
  // Runs one operation; an error status or a check failure stops the thread.
  Status RunOp(OpType op, uint32_t thread, Random* rnd);
  void Fail(const std::string& what);

  // ---- writes (write_ops.cc)
  // Steps 1-4 above. `can_sync`: the write honours WriteOptions::sync (ingestion does not).
  Status WriteKeys(std::vector<KeyWrite> writes, bool can_sync, Random* rnd, const WriteFn& fn);
  // A put, delete or merge of one key.
  Status DoWrite(Random* rnd, WriteKind kind);
  Status DoDeleteRange(Random* rnd);
  Status DoBatch(Random* rnd);
  Status DoIngest(uint32_t thread, Random* rnd);
  // A flush of one random family, or now and then of all of them.
  Status DoFlush(Random* rnd);
  Status DoCompactRange(Random* rnd);
  // `n` distinct random slots of [begin, end), sorted; clustered near one another half of
  // the time. Without bounds: every slot of every family.
  std::vector<uint32_t> PickKeys(Random* rnd, uint32_t n) const;
  std::vector<uint32_t> PickKeys(Random* rnd, uint32_t n, uint32_t begin, uint32_t end) const;
  // The slots of a batch across families: a few keys, each in two or more families.
  std::vector<uint32_t> PickCrossFamilyKeys(Random* rnd) const;
  // The family handle and the DB key of a slot.
  ColumnFamilyHandle* Family(uint32_t slot) const { return families_[keyspace_.Family(slot)]; }
  static std::string DbKey(const Keyspace& ks, uint32_t slot) { return KeyString(ks.Key(slot)); }
  std::string DbKey(uint32_t slot) const { return DbKey(keyspace_, slot); }
  // The value of a put, or the operand of a merge, named by word.
  std::string MakeValue(uint32_t key, GenWord word, const std::vector<Member>& members,
                        Random* rnd) const;
  // Adds write x to the batch (a Put, Delete or Merge by its kind).
  Status AddToBatch(const KeyWrite& x, const std::vector<Member>& members, Random* rnd,
                    WriteBatch* batch) const;

  // ---- checked reads (read_ops.cc)
  Status DoGet(Random* rnd);
  Status DoSnapshot(Random* rnd);
  // Reads `keys` at `ro` (a snapshot) by Get, MultiGet or iterator seeks (chosen by `how`).
  Status ReadKeys(const ReadOptions& ro, const std::vector<uint32_t>& keys, int how,
                  std::vector<Found>* found);
  // Between the two rounds of a snapshot: now and then a flush, or a compaction of the keys.
  Status MaybeMaintainDuringSnapshot(const std::vector<uint32_t>& keys, Random* rnd);
  Status DoIterate(Random* rnd);
  // What key k may hold now. REQUIRES: k's lock.
  std::vector<KeyState> AllowedNow(uint32_t k) const;
  // What a read of key k returned (status s, value) as a Found; Corruption (naming the key
  // and the operation) when the value is damaged or the read failed.
  Status DecodeRead(uint32_t k, const Status& s, std::string_view value, const char* op,
                    Found* found) const;
  // Corruption naming the key, what was found and what was allowed, unless found is allowed.
  Status CheckAllowed(uint32_t k, const Found& found, const std::vector<KeyState>& allowed,
                      const char* op) const;

  const StressConfig config_;
  const Keyspace keyspace_;
  DB* const db_;
  const std::vector<ColumnFamilyHandle*> families_;  // per family, in order
  ExpectedState* const state_;
  DurabilityTracker* const tracker_;
  KeyLocks locks_;
  uint64_t total_weight_ = 0;

  std::atomic<bool> stop_{false};
  std::atomic<bool> power_cut_{false};
  std::atomic<uint64_t> ops_done_{0};
  std::atomic<uint32_t> running_{0};
  std::array<std::atomic<uint64_t>, kNumOpTypes> op_counts_{};
  std::atomic<uint64_t> merges_done_{0};
  std::vector<std::thread> threads_;

  mutable Mutex mu_;
  std::vector<std::string> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_WORKLOAD_H_
