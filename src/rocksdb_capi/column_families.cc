// RocksDB's C API, db group: creating, dropping and describing column families of an open DB.
// A handle from rocksdb_create_column_family or an open owns its shale::ColumnFamilyHandle and
// deletes it in rocksdb_column_family_handle_destroy (RocksDB's rule: before rocksdb_close).
// Thread-safety: as the DB's column-family calls; a handle must not be destroyed while
// another thread uses it.
#include <string>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/db.h"

using shale::ColumnFamilyHandle;
using shale::ColumnFamilyOptions;
using shale::Options;
using shale::Status;
using shale::rocksdb_capi::CopyToMallocString;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::LogAcceptedKnobs;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::OptionsForOpen;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::ShareDbCacheSettings;

extern "C" {

rocksdb_column_family_handle_t* rocksdb_create_column_family(
    rocksdb_t* db, const rocksdb_options_t* column_family_options,
    const char* column_family_name, char** errptr) {
  if (IsNullArgument(db, "db", errptr) ||
      IsNullArgument(column_family_name, "column_family_name", errptr)) {
    return nullptr;
  }
  Status s;
  Options options = OptionsForOpen(column_family_options, db->rep->GetName(), &s);
  if (SaveError(errptr, s)) return nullptr;
  ShareDbCacheSettings(db->rep->GetOptions(), &options);
  ColumnFamilyHandle* handle = nullptr;
  s = db->rep->CreateColumnFamily(static_cast<const ColumnFamilyOptions&>(options),
                                  column_family_name, &handle);
  if (SaveError(errptr, s)) return nullptr;
  LogAcceptedKnobs(db->rep.get(), column_family_options);
  auto* out = new rocksdb_column_family_handle_t;
  out->rep = handle;
  out->prefix_extractor = column_family_options->prefix_extractor;
  return out;
}

rocksdb_column_family_handle_t* rocksdb_create_column_family_with_ttl(
    rocksdb_t* db, const rocksdb_options_t* column_family_options,
    const char* column_family_name, int ttl, char** errptr) {
  // not supported: TTL (a ttl of 0 or less creates normally)
  // A positive TTL would expire values from reads (see rocksdb_open_with_ttl).
  if (ttl > 0) {
    NotSupported(errptr, "rocksdb_create_column_family_with_ttl");
    return nullptr;
  }
  return rocksdb_create_column_family(db, column_family_options, column_family_name, errptr);
}

void rocksdb_drop_column_family(rocksdb_t* db, rocksdb_column_family_handle_t* handle,
                                char** errptr) {
  if (IsNullArgument(db, "db", errptr) || IsNullArgument(handle, "column family handle", errptr)) {
    return;
  }
  SaveError(errptr, db->rep->DropColumnFamily(handle->rep));
}

void rocksdb_column_family_handle_destroy(rocksdb_column_family_handle_t* handle) {
  if (handle == nullptr) return;
  if (!handle->immortal) delete handle->rep;
  delete handle;
}

uint32_t rocksdb_column_family_handle_get_id(rocksdb_column_family_handle_t* handle) {
  return handle->rep->GetID();
}

char* rocksdb_column_family_handle_get_name(rocksdb_column_family_handle_t* handle,
                                            size_t* name_len) {
  const std::string& name = handle->rep->GetName();
  *name_len = name.size();
  return CopyToMallocString(name);  // NUL-terminated too, for callers that expect it
}

}  // extern "C"
