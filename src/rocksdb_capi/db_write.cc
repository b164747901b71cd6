// RocksDB's C API, db group: the writes of a DB (put, delete, single delete, delete range,
// merge, write batch). User-defined timestamps (the *_with_ts functions and the full-history
// timestamp bound) are not in ShaleDB: they fail with "Not supported by ShaleDB: <function>".
// Thread-safety: any number of threads may write at once (as shale::DB).
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/db.h"

using shale::ColumnFamilyHandle;
using shale::Status;
using shale::rocksdb_capi::FamilyOf;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::View;
using shale::rocksdb_capi::WriteOptionsFor;

namespace {

// The family of a call without a handle: the DB's default family.
ColumnFamilyHandle* Default(rocksdb_t* db) { return db->rep->DefaultColumnFamily(); }

}  // namespace

extern "C" {

void rocksdb_put(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key,
                 size_t keylen, const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Put(WriteOptionsFor(options), Default(db), View(key, keylen),
                                 View(val, vallen)));
}

void rocksdb_put_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                    rocksdb_column_family_handle_t* column_family, const char* key,
                    size_t keylen, const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Put(WriteOptionsFor(options), FamilyOf(column_family),
                                 View(key, keylen), View(val, vallen)));
}

void rocksdb_delete(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key,
                    size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Delete(WriteOptionsFor(options), Default(db), View(key, keylen)));
}

void rocksdb_delete_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                       rocksdb_column_family_handle_t* column_family, const char* key,
                       size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Delete(WriteOptionsFor(options), FamilyOf(column_family),
                                    View(key, keylen)));
}

void rocksdb_singledelete(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key,
                          size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr,
            db->rep->SingleDelete(WriteOptionsFor(options), Default(db), View(key, keylen)));
}

void rocksdb_singledelete_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                             rocksdb_column_family_handle_t* column_family, const char* key,
                             size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->SingleDelete(WriteOptionsFor(options), FamilyOf(column_family),
                                          View(key, keylen)));
}

void rocksdb_delete_range_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                             rocksdb_column_family_handle_t* column_family,
                             const char* start_key, size_t start_key_len, const char* end_key,
                             size_t end_key_len, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->DeleteRange(WriteOptionsFor(options), FamilyOf(column_family),
                                         View(start_key, start_key_len),
                                         View(end_key, end_key_len)));
}

void rocksdb_merge(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key,
                   size_t keylen, const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Merge(WriteOptionsFor(options), Default(db), View(key, keylen),
                                   View(val, vallen)));
}

void rocksdb_merge_cf(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                      rocksdb_column_family_handle_t* column_family, const char* key,
                      size_t keylen, const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Merge(WriteOptionsFor(options), FamilyOf(column_family),
                                   View(key, keylen), View(val, vallen)));
}

void rocksdb_write(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                   rocksdb_writebatch_t* batch, char** errptr) {
  if (IsNullArgument(db, "db", errptr) || IsNullArgument(batch, "batch", errptr)) return;
  SaveError(errptr, db->rep->Write(WriteOptionsFor(options), &batch->rep));
}

void rocksdb_put_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*, const char*, size_t,
                         const char*, size_t, const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_put_with_ts");
}

void rocksdb_put_cf_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*,
                            rocksdb_column_family_handle_t*, const char*, size_t, const char*,
                            size_t, const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_put_cf_with_ts");
}

void rocksdb_delete_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*, const char*, size_t,
                            const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_delete_with_ts");
}

void rocksdb_delete_cf_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*,
                               rocksdb_column_family_handle_t*, const char*, size_t, const char*,
                               size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_delete_cf_with_ts");
}

void rocksdb_singledelete_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*, const char*, size_t,
                                  const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_singledelete_with_ts");
}

void rocksdb_singledelete_cf_with_ts(rocksdb_t*, const rocksdb_writeoptions_t*,
                                     rocksdb_column_family_handle_t*, const char*, size_t,
                                     const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_singledelete_cf_with_ts");
}

void rocksdb_increase_full_history_ts_low(rocksdb_t*, rocksdb_column_family_handle_t*,
                                          const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_increase_full_history_ts_low");
}

char* rocksdb_get_full_history_ts_low(rocksdb_t*, rocksdb_column_family_handle_t*,
                                      size_t* ts_lowlen, char** errptr) {
  // not supported: user-defined timestamps
  if (ts_lowlen != nullptr) *ts_lowlen = 0;
  NotSupported(errptr, "rocksdb_get_full_history_ts_low");
  return nullptr;
}

}  // extern "C"
