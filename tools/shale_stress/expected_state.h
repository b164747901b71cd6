// ExpectedState: what shale_stress knows each key of the DB may hold, kept in a file that
// survives the process being killed (kill -9), so that the next process can verify the DB.
//
// The file (expected_dir/EXPECTED) is a 64-byte header (magic, format version, max_key, column
// families: 0 in files from before families, read as 1) and one 16-byte slot per key and
// family (keyspace.h: slot = family * max_key + key; the code below calls a slot "key k"),
// memory-mapped MAP_SHARED: a store into a slot is in the kernel's page cache at once and
// outlives the process (not a power loss: the file is never synced, and the in-process
// power-loss mode keeps its own history, see durability.h). A slot holds
//   acked    the KeyState (key_state.h: newest write and chain hash) that the writes of the key
//            acknowledged by the DB left it in ({0, 0}: never written). One aligned 64-bit
//            atomic store changes both halves at once.
//   pending  the word of a write issued and not yet acknowledged (0: none). It is stored
//            BEFORE the DB write is issued and cleared after it returns OK.
//   max_gen  the highest generation ever given to the key (so one is never reused).
// Each field is changed with one atomic store, so a process killed between two stores leaves
// a slot in a state the rules below accept:
//   MarkPending  max_gen, then pending;
//   Commit       acked := Apply(acked, pending), then pending := 0. Killed in between, the
//                slot has acked.word == pending: generations are never reused, so that pending
//                write is the one acked already holds and counts as none (Pending() says 0) --
//                a merge is never applied twice by the model;
//   Reset        acked, then pending := 0 (the same reasoning).
// After a process crash the DB may hold acked, or Apply(acked, pending) (the write may or may
// not have landed; for a merge, the operand applied once on top of acked), nothing else:
// AllowedAfterCrash. This holds whatever WriteOptions::sync was: a process crash loses nothing
// the OS already has, and a write returns only after its WAL record was handed to the OS.
// (Only a power loss may lose acknowledged unsynced writes; that is the in-process --power_loss
// mode, with its own rules in durability.h.)
//
// Format versions: 1 (before merge operands: three words per slot, words gen << 1 | deleted)
// is refused with InvalidArgument telling to wipe the DB and the expected state together: its
// words cannot name merges and the DB's values are in the old format too. 2 is this one.
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
#include "key_state.h"

namespace shale::stress {

class ExpectedState {
 public:
  // Opens the file at `path` for max_key keys in each of `column_families` families, creating
  // it (all keys never written) if missing. InvalidArgument if it exists for another max_key
  // or number of families, or is not an expected-state file.
  [[nodiscard]] static Status Open(const std::string& path, uint32_t max_key,
                                   uint32_t column_families,
                                   std::unique_ptr<ExpectedState>* result);
  [[nodiscard]] static Status Open(const std::string& path, uint32_t max_key,
                                   std::unique_ptr<ExpectedState>* result) {
    return Open(path, max_key, 1, result);
  }
  ~ExpectedState();
  ExpectedState(const ExpectedState&) = delete;
  ExpectedState& operator=(const ExpectedState&) = delete;

  // Slots: max_key times the number of families.
  uint32_t slots() const { return max_key_; }

  KeyState Acked(uint32_t k) const;
  // The write in flight, or 0 (none, or one that acked already holds: see Commit above).
  GenWord Pending(uint32_t k) const;
  uint32_t MaxGen(uint32_t k) const;

  // The word of the next write of k: a new generation. REQUIRES: k's lock.
  GenWord NextWord(uint32_t k, WriteKind kind) const;
  // Records `word` as in flight (and its generation as used). REQUIRES: k's lock.
  void MarkPending(uint32_t k, GenWord word);
  // The pending write was acknowledged: acked := Apply(acked, pending), pending := 0.
  // REQUIRES: k's lock and a pending write.
  void Commit(uint32_t k);
  // Verification found `state`: acked := state, pending := 0 (max_gen kept). REQUIRES: k's
  // lock or no other thread.
  void Reset(uint32_t k, const KeyState& state);

  // {acked} plus Apply(acked, pending) when a write is pending: what k may hold after a
  // process crash.
  std::vector<KeyState> AllowedAfterCrash(uint32_t k) const;
  // Keys with a write pending; with a merge pending, when `kind` is given.
  uint32_t CountPending() const;
  uint32_t CountPending(WriteKind kind) const;

 private:
  ExpectedState(int fd, void* map, size_t map_size, uint32_t max_key);
  uint32_t* Slot(uint32_t k) const;

  const int fd_;
  void* const map_;       // the whole file, MAP_SHARED
  const size_t map_size_;
  const uint32_t max_key_;  // slots (keys times families)
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_EXPECTED_STATE_H_
