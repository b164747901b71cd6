// RunCursor: reads one sorted run forward, one entry per distinct key, for the merge; and
// MemoryRunCursor, the cursor over a sorted SortBuffer. (The cursor over a spilled run file is
// RunFileCursor in run_file.h.)
//
// A run holds at most one entry per key once read through its cursor: MemoryRunCursor returns
// only the last entry added for a key (the buffer's stable sort puts it last in its group) and
// counts the others as dropped duplicates; a run file was written through a MemoryRunCursor.
//
// Views returned by key() and value() are valid until the next call to Next() (or the
// cursor's destruction); for a MemoryRunCursor, as long as the buffer is unchanged.
//
// Thread-safety: one thread per cursor; several MemoryRunCursors may read one sorted buffer
// at once (they only read it).
#ifndef SHALE_BULK_RUN_CURSOR_H_
#define SHALE_BULK_RUN_CURSOR_H_

#include <cstdint>
#include <string_view>

#include "bulk/sort_buffer.h"
#include "shale/comparator.h"
#include "shale/status.h"

namespace shale::bulk {

class RunCursor {
 public:
  virtual ~RunCursor() = default;

  bool Valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  // KeyPrefix(key()), for the merge's fast comparison.
  uint64_t prefix() const { return prefix_; }

  // Moves to the next key. REQUIRES: Valid().
  virtual void Next() = 0;
  // OK, or the error that ended the run early (Valid() is false then).
  virtual Status status() const { return Status::OK(); }

 protected:
  bool valid_ = false;
  std::string_view key_;
  std::string_view value_;
  uint64_t prefix_ = 0;
};

class MemoryRunCursor final : public RunCursor {
 public:
  // Reads `buffer` from its first key >= `lower` (all keys if lower is null), counting the
  // entries it skips as older duplicates in *duplicates (if not null).
  // REQUIRES: buffer.sorted(); buffer and *lower outlive the constructor call only,
  // the buffer outlives the cursor.
  MemoryRunCursor(const SortBuffer& buffer, const std::string_view* lower,
                  uint64_t* duplicates);

  void Next() override { Load(); }

  // The whole record of the current entry (record.h's encoding). REQUIRES: Valid().
  std::string_view record() const { return record_; }

 private:
  // Positions at the group of entries starting at next_: its last entry is the current one.
  void Load();
  bool SameKey(const SortEntry& e, uint64_t prefix, std::string_view key) const;

  const Comparator* const comparator_;
  const bool bytewise_;
  const SortEntry* next_;  // the first entry of the next group
  const SortEntry* const end_;
  uint64_t* const duplicates_;
  std::string_view record_;
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_RUN_CURSOR_H_
