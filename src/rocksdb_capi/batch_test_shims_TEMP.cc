// TEMPORARY, DELETED AT THE MERGE: minimal definitions of the db, options and table groups'
// functions that the batch group's tests (test/rocksdb_capi/batch_test.cc) call, so that those
// tests run on this branch before the groups are merged. Each does the least the tests need;
// the real definitions (src/rocksdb_capi/ of the other groups) replace them all.
#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb_capi/batch.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator_provisional_TEMP.h"
#include "shale/merge_operator.h"

using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::View;

extern "C" {

rocksdb_options_t* rocksdb_options_create(void) { return new rocksdb_options_t; }
void rocksdb_options_destroy(rocksdb_options_t* options) { delete options; }
void rocksdb_options_set_create_if_missing(rocksdb_options_t* options, unsigned char v) {
  options->rep.create_if_missing = v != 0;
}
void rocksdb_options_set_uint64add_merge_operator(rocksdb_options_t* options) {
  options->rep.merge_operator = shale::NewUInt64AddOperator();
}

rocksdb_readoptions_t* rocksdb_readoptions_create(void) { return new rocksdb_readoptions_t; }
void rocksdb_readoptions_destroy(rocksdb_readoptions_t* options) { delete options; }
rocksdb_writeoptions_t* rocksdb_writeoptions_create(void) { return new rocksdb_writeoptions_t; }
void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t* options) { delete options; }

rocksdb_t* rocksdb_open(const rocksdb_options_t* options, const char* name, char** errptr) {
  std::unique_ptr<shale::DB> db;
  if (SaveError(errptr, shale::DB::Open(options->rep, name, &db))) return nullptr;
  return new rocksdb_t{std::move(db)};
}
void rocksdb_close(rocksdb_t* db) { delete db; }
void rocksdb_destroy_db(const rocksdb_options_t* options, const char* name, char** errptr) {
  SaveError(errptr, shale::DestroyDB(name, options->rep));
}
void rocksdb_free(void* ptr) { std::free(ptr); }

rocksdb_column_family_handle_t* rocksdb_create_column_family(
    rocksdb_t* db, const rocksdb_options_t* column_family_options,
    const char* column_family_name, char** errptr) {
  shale::ColumnFamilyHandle* handle = nullptr;
  if (SaveError(errptr, db->rep->CreateColumnFamily(column_family_options->rep,
                                                    column_family_name, &handle))) {
    return nullptr;
  }
  return new rocksdb_column_family_handle_t{handle, false};
}
void rocksdb_column_family_handle_destroy(rocksdb_column_family_handle_t* handle) {
  delete handle->rep;
  delete handle;
}

void rocksdb_put(rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key,
                 size_t keylen, const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, db->rep->Put(options->rep, db->rep->DefaultColumnFamily(),
                                 View(key, keylen), View(val, vallen)));
}
void rocksdb_write(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                   rocksdb_writebatch_t* batch, char** errptr) {
  SaveError(errptr, db->rep->Write(options->rep, &batch->rep));
}
char* rocksdb_get(rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key,
                  size_t keylen, size_t* vallen, char** errptr) {
  return rocksdb_get_cf(db, options, nullptr, key, keylen, vallen, errptr);
}
char* rocksdb_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                     rocksdb_column_family_handle_t* column_family, const char* key,
                     size_t keylen, size_t* vallen, char** errptr) {
  std::string value;
  shale::ColumnFamilyHandle* cf =
      column_family != nullptr ? column_family->rep : db->rep->DefaultColumnFamily();
  shale::Status s = db->rep->Get(options->rep, cf, View(key, keylen), &value);
  *vallen = 0;
  if (s.IsNotFound()) return nullptr;
  if (SaveError(errptr, s)) return nullptr;
  *vallen = value.size();
  return shale::rocksdb_capi::CopyToMalloc(value);
}
rocksdb_iterator_t* rocksdb_create_iterator_cf(rocksdb_t* db,
                                               const rocksdb_readoptions_t* options,
                                               rocksdb_column_family_handle_t* column_family) {
  auto* it = new rocksdb_iterator_t;
  shale::ColumnFamilyHandle* cf =
      column_family != nullptr ? column_family->rep : db->rep->DefaultColumnFamily();
  it->rep = db->rep->NewIterator(options->rep, cf);
  return it;
}
rocksdb_iterator_t* rocksdb_create_iterator(rocksdb_t* db, const rocksdb_readoptions_t* options) {
  return rocksdb_create_iterator_cf(db, options, nullptr);
}

}  // extern "C"
