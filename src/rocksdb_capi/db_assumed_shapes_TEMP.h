// TEMPORARY (issue 24, db group): the handle structs of other groups that the db group's
// functions use, in the shapes RCAPI.md agreed, so that this branch builds before the merge.
// The merge deletes this file and points db_internal.h at the owners' headers instead:
//   rocksdb_writebatch_t                -> src/rocksdb_capi/batch.h (batch group)
//   rocksdb_flushoptions_t, rocksdb_compactoptions_t, rocksdb_ingestexternalfileoptions_t
//                                       -> the table group's read/write options header
// Only the members the db group reads are listed (`rep`); the owners' structs may have more.
#ifndef SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_
#define SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_

#include "rocksdb/c.h"
#include "shale/options.h"
#include "shale/write_batch.h"

struct rocksdb_writebatch_t {
  shale::WriteBatch rep;
};

struct rocksdb_flushoptions_t {
  shale::FlushOptions rep;
};

struct rocksdb_compactoptions_t {
  shale::CompactRangeOptions rep;
};

struct rocksdb_ingestexternalfileoptions_t {
  shale::IngestExternalFileOptions rep;
};

#endif  // SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_
