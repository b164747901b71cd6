#include "db/write_controller.h"

#include <algorithm>

namespace shale {

const char* WriteController::CauseName(Cause cause) {
  switch (cause) {
    case Cause::kNone: return "none";
    case Cause::kMemtableLimit: return "memtable-limit";
    case Cause::kL0Files: return "level0-files";
    case Cause::kPendingCompactionBytes: return "pending-compaction-bytes";
  }
  return "unknown";
}

void WriteController::Update(const Options& o, const TreeShape& shape) {
  const bool compaction_runs =
      o.compaction_style != kCompactionStyleNone && !o.disable_auto_compactions;
  // FIFO compaction deletes whole tables by size or age and never lowers the L0 count by
  // merging, so waiting on L0 files would stop writes for good (issue 19, finding 8); RocksDB
  // disables the two triggers under FIFO as well.
  const bool l0_triggers_apply = compaction_runs && o.compaction_style != kCompactionStyleFIFO;
  State state = State::kNormal;
  Cause cause = Cause::kNone;
  if (shape.immutable_memtables >= o.max_write_buffer_number) {
    state = State::kStopped;
    cause = Cause::kMemtableLimit;
  } else if (l0_triggers_apply && shape.l0_files >= o.level0_stop_writes_trigger) {
    state = State::kStopped;
    cause = Cause::kL0Files;
  } else if (compaction_runs && o.hard_pending_compaction_bytes_limit > 0 &&
             shape.pending_compaction_bytes >= o.hard_pending_compaction_bytes_limit) {
    state = State::kStopped;
    cause = Cause::kPendingCompactionBytes;
  } else if (o.max_write_buffer_number > 3 &&
             shape.immutable_memtables >= o.max_write_buffer_number - 1) {
    state = State::kDelayed;
    cause = Cause::kMemtableLimit;
  } else if (l0_triggers_apply && shape.l0_files >= o.level0_slowdown_writes_trigger) {
    state = State::kDelayed;
    cause = Cause::kL0Files;
  } else if (compaction_runs && o.soft_pending_compaction_bytes_limit > 0 &&
             shape.pending_compaction_bytes >= o.soft_pending_compaction_bytes_limit) {
    state = State::kDelayed;
    cause = Cause::kPendingCompactionBytes;
  }
  const uint64_t max_rate = std::max<uint64_t>(o.delayed_write_rate, kMinDelayedWriteRate);
  if (state == State::kDelayed) {
    if (state_ != State::kDelayed) {
      rate_ = max_rate;
    } else if (shape.l0_files > last_l0_files_ ||
               shape.pending_compaction_bytes > last_pending_bytes_) {
      rate_ = std::max<uint64_t>(kMinDelayedWriteRate, rate_ * 4 / 5);
    } else if (shape.l0_files < last_l0_files_ ||
               shape.pending_compaction_bytes < last_pending_bytes_) {
      rate_ = std::min<uint64_t>(max_rate, rate_ * 5 / 4);
    }
    rate_ = std::min(rate_, max_rate);
  } else {
    next_write_micros_ = 0;
  }
  last_l0_files_ = shape.l0_files;
  last_pending_bytes_ = shape.pending_compaction_bytes;
  state_ = state;
  cause_ = cause;
}

uint64_t WriteController::DelayMicros(uint64_t bytes, uint64_t now_micros) {
  if (state_ != State::kDelayed || rate_ == 0) return 0;
  if (next_write_micros_ < now_micros) next_write_micros_ = now_micros;
  const uint64_t ahead = next_write_micros_ - now_micros;
  next_write_micros_ += bytes * 1000000 / rate_;
  return ahead > 1000 ? ahead : 0;
}

}  // namespace shale
