// DurabilityTracker: what each key may hold after a power loss, for the in-process power-loss
// mode (--power_loss). Unlike a process crash, a power loss may drop acknowledged writes that
// were never synced; what survives must be a prefix of the WAL. The tracker keeps, per key,
// the history of its writes in this run, and two clocks:
//   ack clock      a counter; a write that returns OK takes the next value as its ticket.
//   durable clock  every write whose ticket is <= it is durable. A write W acknowledged before
//                  a write S is issued has a smaller sequence number than S, so when S is
//                  acknowledged with sync=true, W is synced too (the WAL is written in order):
//                  S raises the durable clock to the ack clock read just before S was issued.
//                  A Flush(wait) that returns OK does the same (flushed memtables are durable).
// The history of a key is the KeyState (key_state.h) each write left it in, assuming every
// earlier write of the key landed: a merge's entry is the state before it with the operand
// applied once. After the power loss key k may hold any state of its history from the last
// durable one (the initial state, a write with ticket <= durable clock, or a write
// acknowledged with sync=true) to the newest, including writes issued but never acknowledged
// (they may have landed or not). The WAL is a prefix of the writes, so a write that survives
// brings every earlier write of its key along: no other state (an operand missing under a
// later one, or applied twice) is allowed. Older states, or a hole in one multi-key write
// (checked by the verifier from the member lists), are failures. This is a per-key prefix rule
// plus all-or-nothing writes; it does not check the order of writes to different keys beyond
// that.
//
// Thread-safety: the history of key k is read and changed only under k's lock (KeyLocks); the
// clocks are atomics.
#ifndef SHALE_TOOLS_SHALE_STRESS_DURABILITY_H_
#define SHALE_TOOLS_SHALE_STRESS_DURABILITY_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "key_state.h"

namespace shale::stress {

class DurabilityTracker {
 public:
  // `initial[k]` is the durable state of key k when the run starts.
  explicit DurabilityTracker(const std::vector<KeyState>& initial);
  DurabilityTracker(const DurabilityTracker&) = delete;
  DurabilityTracker& operator=(const DurabilityTracker&) = delete;

  // Read before issuing a write; pass to MarkDurable if it is acknowledged with sync.
  uint64_t Clock() const { return ack_clock_.load(); }
  // Records a write of k about to be issued. REQUIRES: k's lock.
  void Issue(uint32_t k, GenWord word);
  // Takes the ticket of a write that just returned OK.
  uint64_t NextTicket() { return ack_clock_.fetch_add(1) + 1; }
  // The write of k last issued was acknowledged with `ticket`. REQUIRES: k's lock.
  void Acknowledge(uint32_t k, uint64_t ticket, bool synced);
  // Every write with a ticket <= clock is durable.
  void MarkDurable(uint64_t clock);

  // The states k may hold after a power loss. REQUIRES: k's lock or no writer running.
  std::vector<KeyState> AllowedAfterPowerLoss(uint32_t k) const;

 private:
  static constexpr uint64_t kNotAcknowledged = UINT64_MAX;
  struct Entry {
    KeyState state;   // after this write
    uint64_t ticket;  // kNotAcknowledged until acknowledged; 0 for the initial state
    bool synced;      // acknowledged by a write with sync=true
  };

  std::vector<std::vector<Entry>> history_;  // per key, oldest first; never empty
  std::atomic<uint64_t> ack_clock_{0};
  std::atomic<uint64_t> durable_clock_{0};
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_DURABILITY_H_
