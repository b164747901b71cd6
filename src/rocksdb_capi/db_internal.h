// Helpers the db group's files of RocksDB's C API share (open, column families, reads,
// writes, maintenance, metadata): how a rocksdb_options_t becomes the options of an open, how
// open errors take RocksDB's text, and how handles and options arguments are read.
//
// Thread-safety: the functions are stateless (safe from any thread); the handles they read
// follow handles.h's rules.
#ifndef SHALE_ROCKSDB_CAPI_DB_INTERNAL_H_
#define SHALE_ROCKSDB_CAPI_DB_INTERNAL_H_

#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
// The other groups' handle structs and helpers the DB functions use.
#include "rocksdb_capi/batch.h"
#include "rocksdb_capi/options_internal.h"
#include "rocksdb_capi/read_write_options.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::rocksdb_capi {

// The shale::Options the DB `db_name` (or a column family of it: their ColumnFamilyOptions
// part) is opened or created with, from the caller's options handle: the options group's
// ShaleOptionsFor, after its CheckOptionsForOpen, whose refusal of a setting ShaleDB cannot
// honour goes to *status (InvalidArgument, as for a NULL handle). Every open and column-family
// creation of the db group goes through here; LogAcceptedKnobs then records, in the opened
// DB's info LOG, the RocksDB knobs the options were accepted with but without effect.
Options OptionsForOpen(const rocksdb_options_t* options, std::string_view db_name,
                       Status* status);
void LogAcceptedKnobs(DB* db, const rocksdb_options_t* options);

// RocksDB lets each column family have its own block cache and cache flags; ShaleDB's families
// share the DB's (one table cache reads them all). These tuning knobs cannot change what a
// read returns, so a non-default family's are accepted without effect: `family` takes the
// default family's no_block_cache, cache_index_and_filter_blocks and pin flags, and leaves
// block_cache unset (the DB's).
void ShareDbCacheSettings(const ColumnFamilyOptions& default_family, ColumnFamilyOptions* family);

// An error of DB::Open or DestroyDB on `name`, reworded where RocksDB clients parse the text:
// the LOCK error ("IO error: While lock file: <name>/LOCK: Resource temporarily
// unavailable", or the same-process form "IO error: lock hold by current process, ...:
// <name>/LOCK: No locks available") and a missing DB ("Invalid argument: <name>/CURRENT:
// does not exist (create_if_missing is false)"). Other errors are returned as they are.
Status RocksDbOpenError(const std::string& name, const Status& s);

// The family a handle names: NULL stays null (ShaleDB then refuses the call with
// InvalidArgument rather than crashing, where RocksDB would crash).
inline ColumnFamilyHandle* FamilyOf(const rocksdb_column_family_handle_t* handle) {
  return handle == nullptr ? nullptr : handle->rep;
}

// Stores InvalidArgument("<what> is NULL") in *errptr and returns true when `p` is null.
inline bool IsNullArgument(const void* p, const char* what, char** errptr) {
  if (p != nullptr) return false;
  SaveError(errptr, Status::InvalidArgument(std::string(what) + " is NULL"));
  return true;
}

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_DB_INTERNAL_H_
