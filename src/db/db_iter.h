// DBIter: the user-facing iterator. It turns a merged stream of internal entries (every
// version of every key from memtables and tables, newest version first within a key) into
// the user's view at one sequence number: for each user key, the newest entry with sequence
// <= the read sequence, skipped when that entry is a deletion or is covered by a newer range
// deletion; keys outside [lower bound, upper bound) are never returned. When that newest entry
// is a merge operand, the key's value is the full merge of its operands (newest back to the
// first value, deletion or covering range deletion) onto that value, or onto nothing.
//
// Direction: moving forward, the internal iterator sits on the entry returned (key() and
// value() point into it), except after a merge: then it sits past the operands and base
// merged, and the key and merged value are copies (saved_key_, saved_value_). Moving backward, the internal iterator sits before all entries of
// the current key, and the current key and value are copies (saved_key_, saved_value_).
//
// Errors: an error of the internal iterator (a read that failed in any source), a key that
// does not parse, or a merge that fails ends the iteration: the iterator is !Valid() and
// status() returns the error, in either direction, so no entry collected before the error
// (possibly an older version or a deleted key whose newer entry sat in the source that
// failed) is ever returned. It stays so until the next Seek*/SeekTo* call, which starts afresh
// and succeeds if the error is gone. Next() and Prev() REQUIRE Valid() (a debug build
// asserts); called anyway in a release build, they change nothing.
//
// Ownership: owns the internal iterator and shares the range deletions; runs `cleanup` (which
// releases what the sources pin) when destroyed. Thread-safety: none (one thread at a time).
#ifndef SHALE_DB_DB_ITER_H_
#define SHALE_DB_DB_ITER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "base/range_tombstones.h"
#include "shale/iterator.h"
#include "shale/merge_operator.h"
#include "shale/statistics.h"

namespace shale {

struct DBIterOptions {
  SequenceNumber sequence = kMaxSequenceNumber;  // the read sequence
  std::optional<std::string> lower_bound;        // inclusive
  std::optional<std::string> upper_bound;        // exclusive
  Statistics* statistics = nullptr;              // may be null
  const MergeOperator* merge_operator = nullptr;  // may be null (operands are then an error)
};

// The range deletions of the sources, one fragmented set per source that has any (a memtable's
// built for the iterator, a table's shared with the table cache).
using RangeTombstoneSources = std::vector<std::shared_ptr<const RangeTombstones>>;

std::unique_ptr<Iterator> NewDBIterator(const Comparator* ucmp,
                                        std::unique_ptr<InternalIterator> input,
                                        RangeTombstoneSources tombstones, DBIterOptions options,
                                        std::function<void()> cleanup);

}  // namespace shale

#endif  // SHALE_DB_DB_ITER_H_
