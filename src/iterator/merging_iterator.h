// MergingIterator: one sorted view over several sorted child iterators, as the DB iterator
// needs over the memtables and the per-level iterators (DESIGN.md section 3, "Read path").
//
// Order: the merged sequence is every child entry, sorted by (key under `cmp`, child index).
// Equal keys from different children are all returned, the lower child index first when moving
// forward (give children newest-first); moving backward visits the same sequence in reverse,
// so Next() after Prev() (and Prev() after Next()) returns exactly the neighbour in that order.
// The merge does not deduplicate: internal keys are unique, and the DB iterator above picks
// the visible version of each user key.
//
// Errors: an operation that leaves any child !Valid() with a non-OK status makes the merge
// !Valid() at once, so no entry of the failed child is skipped silently; status() is then the
// first non-OK child status (by child index). A later Seek*/SeekTo* repositions every child
// and starts afresh.
//
// Cost: a binary heap of children (min-heap forward, max-heap backward); Next/Prev in one
// direction move one child and sift it, O(log n) comparisons. A direction change repositions
// every other child (one seek each), as LevelDB and RocksDB do.
//
// Ownership: the merge owns its children and borrows `cmp`, which must outlive it.
// key()/value() views are the current child's, valid until the merge moves.
// Thread-safety: one thread at a time (InternalIterator's rule).
#ifndef SHALE_ITERATOR_MERGING_ITERATOR_H_
#define SHALE_ITERATOR_MERGING_ITERATOR_H_

#include <memory>
#include <vector>

#include "base/internal_iterator.h"
#include "shale/comparator.h"

namespace shale {

// Zero children give an empty iterator and one child is returned as is (no merge layer).
std::unique_ptr<InternalIterator> NewMergingIterator(
    const Comparator* cmp, std::vector<std::unique_ptr<InternalIterator>> children);

}  // namespace shale

#endif  // SHALE_ITERATOR_MERGING_ITERATOR_H_
