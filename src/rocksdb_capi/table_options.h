// Table-format objects of RocksDB's C API that the options group reads: the cuckoo table's
// options (ShaleDB has no cuckoo table; the handle keeps what was set, with RocksDB's defaults,
// so that rocksdb_options_set_cuckoo_table_factory can refuse it visibly). The block-based
// table options and filter policies are in handles.h.
//
// Thread-safety: a handle is changed by one thread at a time (handles.h).
#ifndef SHALE_ROCKSDB_CAPI_TABLE_OPTIONS_H_
#define SHALE_ROCKSDB_CAPI_TABLE_OPTIONS_H_

#include <cstdint>

#include "rocksdb/c.h"

// RocksDB's CuckooTableOptions, with its defaults.
struct rocksdb_cuckoo_table_options_t {
  double hash_table_ratio = 0.9;
  uint32_t max_search_depth = 100;
  uint32_t cuckoo_block_size = 5;
  bool identity_as_first_hash = false;
  bool use_module_hash = true;
};

#endif  // SHALE_ROCKSDB_CAPI_TABLE_OPTIONS_H_
