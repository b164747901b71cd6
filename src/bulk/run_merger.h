// RunMerger: the k-way merge of sorted runs into one sorted stream with one entry per key.
//
// The runs are given oldest first. When several runs hold a key, the entry of the newest run
// wins (it was added last) and the others are counted as dropped duplicates. The merge is a
// binary heap of cursors ordered by (key, newest run first); under the bytewise comparator it
// compares the cursors' 8-byte key prefixes before the keys. Merging stops at an optional
// upper bound (exclusive), so that each of the loader's threads merges its own key range.
//
// Views returned by key() and value() are valid until the next Next().
//
// Thread-safety: one thread at a time.
#ifndef SHALE_BULK_RUN_MERGER_H_
#define SHALE_BULK_RUN_MERGER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bulk/run_cursor.h"
#include "shale/comparator.h"
#include "shale/status.h"

namespace shale::bulk {

class RunMerger {
 public:
  // Merges `runs` (oldest first) up to, not including, *upper (no bound if upper is null).
  // `bytewise` says that `comparator` is the bytewise order. The comparator and *upper must
  // outlive the merger.
  RunMerger(std::vector<std::unique_ptr<RunCursor>> runs, const Comparator* comparator,
            bool bytewise, const std::string* upper);

  RunMerger(const RunMerger&) = delete;
  RunMerger& operator=(const RunMerger&) = delete;

  bool Valid() const { return valid_; }
  std::string_view key() const { return heap_[0].cursor->key(); }
  std::string_view value() const { return heap_[0].cursor->value(); }
  // REQUIRES: Valid().
  void Next();
  // The first error of any run; the merge ends early when there is one.
  Status status() const { return status_; }
  // Older entries of keys that a newer run also held, dropped so far.
  uint64_t duplicates() const { return duplicates_; }

 private:
  struct Node {
    RunCursor* cursor;
    int age;  // the run's position: higher is newer
  };

  // Whether a orders before b: smaller key, or the same key in a newer run.
  bool Before(const Node& a, const Node& b) const;
  bool SameKey(const Node& a, const Node& b) const;
  // Advances the cursor at heap_[i] and restores the heap below i (removing it when done).
  void AdvanceAt(size_t i);
  void SiftDown(size_t i);
  void RemoveAt(size_t i);
  // Sets valid_ from the heap top and the upper bound.
  void Settle();
  void NoteError(const RunCursor& cursor);

  const Comparator* const comparator_;
  const bool bytewise_;
  const std::string* const upper_;
  std::vector<std::unique_ptr<RunCursor>> runs_;
  std::vector<Node> heap_;
  bool valid_ = false;
  uint64_t duplicates_ = 0;
  Status status_;
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_RUN_MERGER_H_
