// rocksdb_iterator_t: the handle of an iterator over a DB (rocksdb_create_iterator*, db group)
// that the rocksdb_iter_* functions (batch group) move and read.
//
// RocksDB's C API lets the caller destroy or change the read options right after creating the
// iterator, but shale::ReadOptions borrows its bounds for the iterator's life: `bounds` owns
// the copies `rep` reads through (a shale::rocksdb_capi::ReadBounds, read_write_options.h,
// type-erased so that other kinds of iterator may keep what they need; shared by the iterators
// of one rocksdb_create_iterators call). Members are destroyed in reverse order, so `rep` goes
// before the bounds it borrows.
//
// Thread-safety: as shale::Iterator (one thread at a time).
#ifndef SHALE_ROCKSDB_CAPI_ITERATOR_H_
#define SHALE_ROCKSDB_CAPI_ITERATOR_H_

#include <deque>
#include <memory>
#include <string>

#include "rocksdb/c.h"
#include "shale/iterator.h"

struct rocksdb_iterator_t {
  std::shared_ptr<const void> bounds;  // null: no bounds
  std::unique_ptr<shale::Iterator> rep;
  // True when rep is a prefix_same_as_start iterator (prefix_iterator.h) over a DB iterator, so
  // that an iterator built over this one (WriteBatchWithIndex's with base) can bound the
  // combination instead (TakePrefixBound).
  bool prefix_bounded = false;
  // ReadOptions::pin_data: every key rocksdb_iter_key returns stays valid until the iterator is
  // destroyed (RocksDB pins the blocks; this keeps a copy of each key handed out, so memory
  // grows with the keys read). Mutable: rocksdb_iter_key takes a const iterator.
  bool pin_keys = false;
  mutable std::deque<std::string> pinned_keys;
};

#endif  // SHALE_ROCKSDB_CAPI_ITERATOR_H_
