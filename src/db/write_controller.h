// WriteController: decides, from the shape of the tree, whether writers go at full speed, are
// slowed down, or stop until background work catches up (RocksDB's write stalls, its names and
// triggers; DESIGN.md "Write path" step 2).
//
//   stop      immutable memtables >= max_write_buffer_number (handled by the DB's memtable
//             wait), L0 files >= level0_stop_writes_trigger, or pending compaction bytes >=
//             hard_pending_compaction_bytes_limit;
//   delay     L0 files >= level0_slowdown_writes_trigger, pending bytes >=
//             soft_pending_compaction_bytes_limit, or (max_write_buffer_number > 3) one
//             memtable short of the limit;
//   normal    otherwise.
// The L0 and pending-bytes conditions apply only while something will compact: with
// kCompactionStyleNone or disable_auto_compactions they are lifted (unlike RocksDB's None
// style, which stalls writers waiting for a compaction that never comes). Under
// kCompactionStyleFIFO the L0 conditions never apply (as RocksDB, which sets both triggers to
// INT_MAX there): FIFO drops tables by size or age and never reduces the L0 count by merging.
//
// Delays: a delayed writer is paced to a rate in bytes/s. It starts at delayed_write_rate when
// a slowdown begins; every recalculation while slowed lowers it by 20% if the debt (L0 files
// or pending bytes) grew since the last one and raises it by 25% (up to delayed_write_rate) if
// the debt shrank, so the write rate follows what compaction drains. Pacing is a virtual clock:
// each write moves it by bytes/rate, and a writer sleeps only once it is more than 1 ms ahead.
//
// Thread-safety: none of its own; the DB calls it under its mutex (the sleep itself happens
// outside it).
#ifndef SHALE_DB_WRITE_CONTROLLER_H_
#define SHALE_DB_WRITE_CONTROLLER_H_

#include <cstdint>

#include "shale/options.h"

namespace shale {

class WriteController {
 public:
  enum class State { kNormal, kDelayed, kStopped };
  enum class Cause { kNone, kMemtableLimit, kL0Files, kPendingCompactionBytes };

  // What the tree looks like now.
  struct TreeShape {
    int l0_files = 0;
    uint64_t pending_compaction_bytes = 0;
    int immutable_memtables = 0;
  };

  // The slowest a delayed writer is ever paced to, bytes/s.
  static constexpr uint64_t kMinDelayedWriteRate = 16 * 1024;

  // Recomputes the state for `shape` under `options`.
  void Update(const Options& options, const TreeShape& shape);

  State state() const { return state_; }
  Cause cause() const { return cause_; }
  // The current pacing rate (bytes/s) while delayed.
  uint64_t rate() const { return rate_; }

  // Microseconds a writer about to write `bytes` at time `now_micros` must sleep first (0 when
  // not delayed or not ahead of its pace).
  uint64_t DelayMicros(uint64_t bytes, uint64_t now_micros);

  static const char* CauseName(Cause cause);

 private:
  State state_ = State::kNormal;
  Cause cause_ = Cause::kNone;
  uint64_t rate_ = 0;
  // Debt seen at the previous Update while delayed.
  int last_l0_files_ = 0;
  uint64_t last_pending_bytes_ = 0;
  // The virtual clock of paced writes (micros); 0 when not started.
  uint64_t next_write_micros_ = 0;
};

}  // namespace shale

#endif  // SHALE_DB_WRITE_CONTROLLER_H_
