// rocksdb_pinnableslice_t: a value returned by rocksdb_get_pinned(_cf) and
// rocksdb_batched_multi_get_cf (db group), and by the transaction get_pinned functions (batch
// group), read with rocksdb_pinnableslice_value and freed with rocksdb_pinnableslice_destroy.
// ShaleDB's Get copies the value out, so the handle owns that copy; RocksDB's contract (the
// bytes stay valid until the handle is destroyed) holds.
//
// Thread-safety: a plain value.
#ifndef SHALE_ROCKSDB_CAPI_PINNABLE_SLICE_H_
#define SHALE_ROCKSDB_CAPI_PINNABLE_SLICE_H_

#include <string>

#include "rocksdb/c.h"

struct rocksdb_pinnableslice_t {
  std::string rep;
};

#endif  // SHALE_ROCKSDB_CAPI_PINNABLE_SLICE_H_
