// ExpectedState: what shale_stress knows each key of the DB may hold, kept in a file that
// survives the process being killed (kill -9), so that the next process can verify the DB.
//
// The file (expected_dir/EXPECTED) is a 64-byte header (magic, format version, max_key) and one
// 16-byte slot per key, memory-mapped MAP_SHARED: a store into a slot is in the kernel's page
// cache at once and outlives the process (not a power loss: the file is never synced, and the
// in-process power-loss mode keeps its own history, see durability.h). A slot holds three
// 32-bit GenWords (value_codec.h), each changed with one aligned atomic store, so a process
// killed between two stores leaves a slot in a state the rules below accept:
//   acked    the last write of the key acknowledged by the DB (0: never written)
//   pending  a write issued and not yet acknowledged (0: none). It is stored BEFORE the DB
//            write is issued and cleared after it returns OK (acked := pending first).
//   max_gen  the highest generation ever given to the key (so one is never reused).
// After a process crash the DB may hold `acked` or `pending` (the write may or may not have
// landed), nothing else: AllowedAfterCrash. This holds whatever WriteOptions::sync was: a
// process crash loses nothing the OS already has, and a write returns only after its WAL
// record was handed to the OS. (Only a power loss may lose acknowledged unsynced writes; that
// is the in-process --power_loss mode, with its own rules in durability.h.)
//
// Thread-safety: the slot of key k may be changed only by a thread holding k's lock in
// KeyLocks (at most one write of a key in flight); reads of other slots are always safe.
#ifndef SHALE_TOOLS_SHALE_STRESS_EXPECTED_STATE_H_
#define SHALE_TOOLS_SHALE_STRESS_EXPECTED_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shale/status.h"
#include "value_codec.h"

namespace shale::stress {

class ExpectedState {
 public:
  // Opens the file at `path`, creating it (all keys never written) if missing.
  // InvalidArgument if it exists for another max_key or is not an expected-state file.
  [[nodiscard]] static Status Open(const std::string& path, uint32_t max_key,
                                   std::unique_ptr<ExpectedState>* result);
  ~ExpectedState();
  ExpectedState(const ExpectedState&) = delete;
  ExpectedState& operator=(const ExpectedState&) = delete;

  uint32_t max_key() const { return max_key_; }

  GenWord Acked(uint32_t k) const;
  GenWord Pending(uint32_t k) const;
  uint32_t MaxGen(uint32_t k) const;

  // The word of the next write of k: a new generation. REQUIRES: k's lock.
  GenWord NextWord(uint32_t k, bool deleted) const;
  // Records `word` as in flight (and its generation as used). REQUIRES: k's lock.
  void MarkPending(uint32_t k, GenWord word);
  // The pending write was acknowledged: acked := pending, pending := 0. REQUIRES: k's lock.
  void Commit(uint32_t k);
  // Verification found `word`: acked := word, pending := 0 (max_gen kept). REQUIRES: k's lock
  // or no other thread.
  void Reset(uint32_t k, GenWord word);

  // {acked} plus pending when one is set: what k may hold after a process crash.
  std::vector<GenWord> AllowedAfterCrash(uint32_t k) const;
  // Keys with a write pending.
  uint32_t CountPending() const;

 private:
  ExpectedState(int fd, void* map, size_t map_size, uint32_t max_key);
  uint32_t* Slot(uint32_t k) const;

  const int fd_;
  void* const map_;       // the whole file, MAP_SHARED
  const size_t map_size_;
  const uint32_t max_key_;
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_EXPECTED_STATE_H_
