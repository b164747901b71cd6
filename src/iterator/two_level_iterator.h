// The generic two-level iterator: the concatenation of the iterators an index iterator points
// to. Each index entry's value names a block, file or partition (a "handle"); the
// IndexValueOpener turns it into the iterator over that part. The table module has its own
// block-specialised TwoLevelIterator (table/two_level_iterator.h); this one knows nothing about
// the handle format and serves levels and anything else that is an index of sorted parts.
//
// Index contract (as in LevelDB): the index is sorted, and index key K of part P satisfies
//   every key of P <= K < every key of the part after P.
// So Seek(t) opens the part of the first K >= t, and SeekForPrev(t) starts there and walks back
// when that part has nothing <= t. Parts that yield no entries are skipped in both directions.
//
// Errors: an index error, an opener error (or a null iterator) or an error of an opened part
// stops the iteration: the iterator becomes !Valid() and status() returns the error, so no
// part is skipped silently. Every Seek*/SeekTo* clears a previous opener error and retries.
//
// Ownership: owns the index iterator, the opener and the open part's iterator (at most one
// part is open at a time; it is kept while the index stays on the same value). key()/value()
// views are the open part's, valid until the iterator moves.
// Thread-safety: one thread at a time (InternalIterator's rule).
#ifndef SHALE_ITERATOR_TWO_LEVEL_ITERATOR_H_
#define SHALE_ITERATOR_TWO_LEVEL_ITERATOR_H_

#include <functional>
#include <memory>
#include <string_view>

#include "base/internal_iterator.h"
#include "shale/status.h"

namespace shale {

// Opens the part an index value names. On failure sets *status (naming what failed) and may
// return null; a null return with an OK *status is treated as Corruption.
using IndexValueOpener =
    std::function<std::unique_ptr<InternalIterator>(std::string_view index_value, Status* status)>;

// REQUIRES: index != nullptr, open callable.
std::unique_ptr<InternalIterator> NewTwoLevelIterator(std::unique_ptr<InternalIterator> index,
                                                      IndexValueOpener open);

}  // namespace shale

#endif  // SHALE_ITERATOR_TWO_LEVEL_ITERATOR_H_
