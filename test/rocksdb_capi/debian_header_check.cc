// Compiled into every program of rocksdb_capi_test() (CMakeLists.txt): fails the build when
// "rocksdb/c.h" resolves to our include/shale-rocksdb/rocksdb/c.h instead of Debian's. The
// tests call the C API through Debian's header, as a RocksDB client does, which proves our
// library usable by code written against RocksDB's declarations.
#include "rocksdb/c.h"

#ifdef SHALE_ROCKSDB_C_H_
#error "test/rocksdb_capi programs must compile against Debian's rocksdb/c.h, not include/shale-rocksdb"
#endif
