/* A C program built only from what shale-rocksdb.pc gives (doc/rocksdb_compat.md): the installed
 * include/shale-rocksdb/rocksdb/c.h and lib/shale-rocksdb/librocksdb.so. run_consumer_test.sh
 * checks that it loads the installed librocksdb.so (through the .pc file's rpath). */
#include <stdio.h>

#include "rocksdb/c.h"

#ifndef SHALE_ROCKSDB_C_H_
#error "pkg-config shale-rocksdb did not put ShaleDB's rocksdb/c.h first on the include path"
#endif

int main(void) {
  printf("rocksdb/c.h: lz4 compression is %d\n", (int)rocksdb_lz4_compression);
  return rocksdb_lz4_compression == 4 ? 0 : 1;
}
