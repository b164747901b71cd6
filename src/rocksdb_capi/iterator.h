// rocksdb_iterator_t: the handle of an iterator over a DB (rocksdb_create_iterator*, db group)
// that the rocksdb_iter_* functions (batch group) move and read.
//
// RocksDB's C API lets the caller destroy or change the read options right after creating the
// iterator, but shale::ReadOptions borrows its bounds for the iterator's life: the handle
// therefore owns copies of the bounds (`bounds`), and `rep` reads through views of them.
// Members are destroyed in reverse order, so `rep` goes before the bounds it borrows.
//
// Thread-safety: as shale::Iterator (one thread at a time).
#ifndef SHALE_ROCKSDB_CAPI_ITERATOR_H_
#define SHALE_ROCKSDB_CAPI_ITERATOR_H_

#include <memory>
#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "shale/iterator.h"
#include "shale/options.h"

namespace shale::rocksdb_capi {

// The iterate bounds an iterator reads through: owned copies and the views ReadOptions points
// at. Invariant: lower_view/upper_view view lower/upper (the object never moves: it lives
// behind a shared_ptr).
struct IteratorBounds {
  std::string lower;
  std::string upper;
  std::string_view lower_view;
  std::string_view upper_view;
  bool has_lower = false;
  bool has_upper = false;

  IteratorBounds() = default;
  IteratorBounds(const IteratorBounds&) = delete;
  IteratorBounds& operator=(const IteratorBounds&) = delete;

  // Points `options`' bounds at this object's copies (or at nothing).
  void Apply(ReadOptions* options) const {
    options->iterate_lower_bound = has_lower ? &lower_view : nullptr;
    options->iterate_upper_bound = has_upper ? &upper_view : nullptr;
  }
};

}  // namespace shale::rocksdb_capi

struct rocksdb_iterator_t {
  // Shared: the iterators of one rocksdb_create_iterators call read the same copies.
  std::shared_ptr<const shale::rocksdb_capi::IteratorBounds> bounds;  // null: no bounds
  std::unique_ptr<shale::Iterator> rep;
};

#endif  // SHALE_ROCKSDB_CAPI_ITERATOR_H_
