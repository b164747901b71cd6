// prefix_same_as_start for the iterators of RocksDB's C API. ShaleDB's engine has no prefix
// extractor: its iterators are always in total order, which RocksDB documents as a correct
// answer for a prefix seek without prefix_same_as_start (results beyond the seek key's prefix
// are undefined there; prefix bloom filters only save I/O). What a client can see of a prefix
// extractor is prefix_same_as_start, which this file gives: an iterator that becomes invalid as
// soon as it would move to a key whose prefix differs from the start's.
//
// RocksDB 7.8's rules (db/db_iter.cc), followed here:
//   - Seek(target) / SeekForPrev(target): the start prefix is the target's; the key found is
//     checked against it too. SeekToFirst with an iterate_lower_bound is Seek(lower bound), and
//     SeekToLast with an iterate_upper_bound is SeekForPrev(upper bound).
//   - SeekToFirst / SeekToLast without that bound: the key found is returned unchecked and its
//     prefix becomes the start prefix for the moves after it.
//   - Next / Prev: the iterator is invalid once the key reached has another prefix.
//   - Only for a family with a prefix extractor; total_order_seek turns it off (RocksDB's
//     documented contract: prefix_same_as_start acts on prefix seeks only; 7.8's DBIter applies
//     it regardless of total_order_seek, which the documentation does not say).
//   - Difference kept: RocksDB's SeekToLast with an upper bound steps back over a key equal to
//     the bound without the prefix check; the base iterator here never lands on the bound, so
//     the key before it is always checked.
// Keys outside the transform's domain: RocksDB calls Transform on any key, which its contract
// only defines for keys InDomain (its fixed-prefix transform reads past a short key, and
// clients' transforms may assume the domain). Here a key outside the domain has no prefix, so it
// never has the start's: a Next/Prev reaching one ends the iteration, a Seek/SeekForPrev target
// outside the domain finds nothing, and after a SeekToFirst/SeekToLast that lands on one the
// next move ends the iteration. Transform is called only for keys InDomain.
//
// Thread-safety: as shale::Iterator (one thread at a time). The slice transform is shared and
// only read (its callbacks must be thread-safe, RocksDB's rule).
#ifndef SHALE_ROCKSDB_CAPI_PREFIX_ITERATOR_H_
#define SHALE_ROCKSDB_CAPI_PREFIX_ITERATOR_H_

#include <functional>
#include <memory>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator.h"
#include "shale/iterator.h"

namespace shale::rocksdb_capi {

// Gives `it`, an iterator made with `options` (NULL: RocksDB's defaults) over a family whose
// prefix extractor is `extractor` (null: none), RocksDB's prefix_same_as_start: replaces it->rep
// with a bounded iterator over it when options->prefix_same_as_start is set, total_order_seek
// is not, and the family has an extractor; does nothing otherwise. The bounded iterator keeps
// the extractor alive and its own copies of the options' iterate bounds.
void ApplyPrefixSameAsStart(const rocksdb_readoptions_t* options,
                            std::shared_ptr<rocksdb_slicetransform_t> extractor,
                            rocksdb_iterator_t* it);

// For an iterator built over `it` (WriteBatchWithIndex's with base): when it->rep is bounded by
// ApplyPrefixSameAsStart, takes the iterator beneath into it->rep (it->prefix_bounded becomes
// false) and returns a function that bounds another iterator the same way; returns an empty
// function otherwise.
using PrefixBound = std::function<std::unique_ptr<Iterator>(std::unique_ptr<Iterator>)>;
PrefixBound TakePrefixBound(rocksdb_iterator_t* it);

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_PREFIX_ITERATOR_H_
