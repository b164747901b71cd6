/* Compiles include/shale-rocksdb/rocksdb/c.h as strict C99 (-std=c99 -pedantic-errors
 * -Wstrict-prototypes -Werror, CMakeLists.txt): the header is C as well as C++.
 * header_signature_test.cc calls the function below so that this file is part of the test. */
#include "rocksdb/c.h"

#ifndef SHALE_ROCKSDB_C_H_
#error "expected include/shale-rocksdb/rocksdb/c.h"
#endif

int shale_rocksdb_header_compiles_as_c(void);

int shale_rocksdb_header_compiles_as_c(void) { return (int)rocksdb_total_metric_count; }
