// The C ABI of column families (include/shale/c.h): opening with families, listing, creating
// and dropping them, their handles, and the _cf variant of every read, write, batch and
// maintenance call, as RocksDB's c.cc has them. A NULL family handle is an error wherever the
// call can report one (see c.h); it is never dereferenced.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "capi/c_handles.h"

using shale::capi::CopyToMalloc;
using shale::capi::CopyToMallocString;
using shale::capi::SaveError;
using shale::capi::View;

namespace {

// The error of a call given a NULL column family handle.
shale::Status NullHandle() {
  return shale::Status::InvalidArgument("column_family", "NULL handle");
}

// The C++ handle of `handle`, or null for NULL.
shale::ColumnFamilyHandle* Rep(const shale_column_family_handle_t* handle) {
  return handle == nullptr ? nullptr : handle->rep;
}

// A new caller-owned wrapper of a C++ handle the caller owns too (deleted with the wrapper).
shale_column_family_handle_t* Wrap(shale::ColumnFamilyHandle* rep) {
  auto* handle = new shale_column_family_handle_t;
  handle->rep = rep;
  return handle;
}

// Keeps the first error of a batch update (see shale_writebatch_t::error).
void KeepFirstError(shale_writebatch_t* batch, shale::Status s) {
  if (batch->error.ok()) batch->error = std::move(s);
}

// The changes of a set_options call as the map DB::SetOptions/SetDBOptions take.
std::unordered_map<std::string, std::string> Changes(int count, const char* const keys[],
                                                     const char* const values[]) {
  std::unordered_map<std::string, std::string> changes;
  for (int i = 0; i < count; i++) changes[keys[i]] = values[i];
  return changes;
}

// The value of a read as c.h returns it: malloc'd, or NULL without error when absent.
char* ReturnValue(const shale::Status& s, const std::string& value, size_t* vallen,
                  char** errptr) {
  *vallen = 0;
  if (s.IsNotFound()) {
    SaveError(errptr, shale::Status::OK());
    return nullptr;
  }
  if (SaveError(errptr, s)) return nullptr;
  *vallen = value.size();
  return CopyToMalloc(value);
}

}  // namespace

namespace {

// shale_open_column_families and its read-only and secondary (secondary_path not NULL) twins.
shale_t* OpenFamilies(const shale_options_t* options, const char* name, int num_column_families,
                      const char* const* column_family_names,
                      const shale_options_t* const* column_family_options,
                      shale_column_family_handle_t** column_family_handles, bool read_only,
                      bool error_if_wal_file_exists, char** errptr,
                      const char* secondary_path = nullptr) {
  if (num_column_families < 0) {
    SaveError(errptr, shale::Status::InvalidArgument("num_column_families", "negative"));
    return nullptr;
  }
  std::vector<shale::ColumnFamilyDescriptor> families;
  families.reserve(static_cast<size_t>(num_column_families));
  for (int i = 0; i < num_column_families; i++) {
    if (column_family_names[i] == nullptr || column_family_options[i] == nullptr) {
      SaveError(errptr, shale::Status::InvalidArgument(
                            "column_families", "NULL name or options at index " +
                                                   std::to_string(i)));
      return nullptr;
    }
    families.emplace_back(column_family_names[i],
                          static_cast<const shale::ColumnFamilyOptions&>(
                              column_family_options[i]->rep));
  }
  std::vector<shale::ColumnFamilyHandle*> handles;
  std::unique_ptr<shale::DB> db;
  const shale::Status s =
      secondary_path != nullptr
          ? shale::DB::OpenAsSecondary(options->rep, name, secondary_path, families, &handles,
                                       &db)
      : read_only ? shale::DB::OpenForReadOnly(options->rep, name, families, &handles, &db,
                                               error_if_wal_file_exists)
                  : shale::DB::Open(options->rep, name, families, &handles, &db);
  if (SaveError(errptr, s)) return nullptr;
  for (size_t i = 0; i < handles.size(); i++) column_family_handles[i] = Wrap(handles[i]);
  return new shale_t{std::move(db)};
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- Families and handles

shale_t* shale_open_column_families(const shale_options_t* options, const char* name,
                                    int num_column_families,
                                    const char* const* column_family_names,
                                    const shale_options_t* const* column_family_options,
                                    shale_column_family_handle_t** column_family_handles,
                                    char** errptr) {
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, /*read_only=*/false,
                      /*error_if_wal_file_exists=*/false, errptr);
}

shale_t* shale_open_for_read_only_column_families(
    const shale_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const shale_options_t* const* column_family_options,
    shale_column_family_handle_t** column_family_handles, unsigned char error_if_wal_file_exists,
    char** errptr) {
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, /*read_only=*/true,
                      error_if_wal_file_exists != 0, errptr);
}

shale_t* shale_open_as_secondary_column_families(
    const shale_options_t* options, const char* name, const char* secondary_path,
    int num_column_families, const char* const* column_family_names,
    const shale_options_t* const* column_family_options,
    shale_column_family_handle_t** column_family_handles, char** errptr) {
  if (secondary_path == nullptr) {
    SaveError(errptr, shale::Status::InvalidArgument("secondary_path", "NULL"));
    return nullptr;
  }
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, /*read_only=*/true,
                      /*error_if_wal_file_exists=*/false, errptr, secondary_path);
}

char** shale_list_column_families(const shale_options_t* options, const char* name,
                                  size_t* lencf, char** errptr) {
  *lencf = 0;
  std::vector<std::string> names;
  if (SaveError(errptr, shale::DB::ListColumnFamilies(options->rep, name, &names))) {
    return nullptr;
  }
  char** list =
      static_cast<char**>(std::malloc(sizeof(char*) * (names.empty() ? 1 : names.size())));
  for (size_t i = 0; i < names.size(); i++) list[i] = CopyToMallocString(names[i]);
  *lencf = names.size();
  return list;
}

void shale_list_column_families_destroy(char** list, size_t len) {
  if (list == nullptr) return;
  for (size_t i = 0; i < len; i++) std::free(list[i]);
  std::free(list);
}

shale_column_family_handle_t* shale_create_column_family(
    shale_t* db, const shale_options_t* column_family_options, const char* column_family_name,
    char** errptr) {
  shale::ColumnFamilyHandle* handle = nullptr;
  if (SaveError(errptr, db->rep->CreateColumnFamily(
                            static_cast<const shale::ColumnFamilyOptions&>(
                                column_family_options->rep),
                            column_family_name, &handle))) {
    return nullptr;
  }
  return Wrap(handle);
}

shale_column_family_handle_t** shale_create_column_families(
    shale_t* db, const shale_options_t* column_family_options, int num_column_families,
    const char* const* column_family_names, size_t* lencfs, char** errptr) {
  std::vector<std::string> names;
  for (int i = 0; i < num_column_families; i++) names.emplace_back(column_family_names[i]);
  std::vector<shale::ColumnFamilyHandle*> handles;
  SaveError(errptr, db->rep->CreateColumnFamilies(
                        static_cast<const shale::ColumnFamilyOptions&>(
                            column_family_options->rep),
                        names, &handles));
  auto** list = static_cast<shale_column_family_handle_t**>(
      std::malloc(sizeof(shale_column_family_handle_t*) * (handles.empty() ? 1 : handles.size())));
  for (size_t i = 0; i < handles.size(); i++) list[i] = Wrap(handles[i]);
  *lencfs = handles.size();
  return list;
}

void shale_create_column_families_destroy(shale_column_family_handle_t** list) {
  std::free(list);
}

void shale_drop_column_family(shale_t* db, shale_column_family_handle_t* handle,
                              char** errptr) {
  if (handle == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->DropColumnFamily(handle->rep));
}

shale_column_family_handle_t* shale_get_default_column_family_handle(shale_t* db) {
  auto* handle = new shale_column_family_handle_t;
  handle->rep = db->rep->DefaultColumnFamily();
  handle->immortal = true;
  return handle;
}

void shale_column_family_handle_destroy(shale_column_family_handle_t* handle) {
  if (handle == nullptr) return;
  if (!handle->immortal) delete handle->rep;
  delete handle;
}

uint32_t shale_column_family_handle_get_id(shale_column_family_handle_t* handle) {
  return handle->rep->GetID();
}

char* shale_column_family_handle_get_name(shale_column_family_handle_t* handle,
                                          size_t* name_len) {
  const std::string& name = handle->rep->GetName();
  *name_len = name.size();
  return CopyToMallocString(name);
}

// ---------------------------------------------------------------- Writes

void shale_put_cf(shale_t* db, const shale_writeoptions_t* options,
                  shale_column_family_handle_t* column_family, const char* key, size_t keylen,
                  const char* val, size_t vallen, char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->Put(options->rep, column_family->rep, View(key, keylen),
                                 View(val, vallen)));
}

void shale_delete_cf(shale_t* db, const shale_writeoptions_t* options,
                     shale_column_family_handle_t* column_family, const char* key,
                     size_t keylen, char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->Delete(options->rep, column_family->rep, View(key, keylen)));
}

void shale_singledelete_cf(shale_t* db, const shale_writeoptions_t* options,
                           shale_column_family_handle_t* column_family, const char* key,
                           size_t keylen, char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr,
            db->rep->SingleDelete(options->rep, column_family->rep, View(key, keylen)));
}

void shale_delete_range_cf(shale_t* db, const shale_writeoptions_t* options,
                           shale_column_family_handle_t* column_family, const char* start_key,
                           size_t start_key_len, const char* end_key, size_t end_key_len,
                           char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->DeleteRange(options->rep, column_family->rep,
                                         View(start_key, start_key_len),
                                         View(end_key, end_key_len)));
}

void shale_merge_cf(shale_t* db, const shale_writeoptions_t* options,
                    shale_column_family_handle_t* column_family, const char* key, size_t keylen,
                    const char* val, size_t vallen, char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->Merge(options->rep, column_family->rep, View(key, keylen),
                                   View(val, vallen)));
}

// ---------------------------------------------------------------- Write batch

void shale_writebatch_put_cf(shale_writebatch_t* batch,
                             shale_column_family_handle_t* column_family, const char* key,
                             size_t klen, const char* val, size_t vlen) {
  if (column_family == nullptr) return KeepFirstError(batch, NullHandle());
  KeepFirstError(batch, batch->rep.Put(column_family->rep, View(key, klen), View(val, vlen)));
}

void shale_writebatch_delete_cf(shale_writebatch_t* batch,
                                shale_column_family_handle_t* column_family, const char* key,
                                size_t klen) {
  if (column_family == nullptr) return KeepFirstError(batch, NullHandle());
  KeepFirstError(batch, batch->rep.Delete(column_family->rep, View(key, klen)));
}

void shale_writebatch_singledelete(shale_writebatch_t* batch, const char* key, size_t klen) {
  KeepFirstError(batch, batch->rep.SingleDelete(View(key, klen)));
}

void shale_writebatch_singledelete_cf(shale_writebatch_t* batch,
                                      shale_column_family_handle_t* column_family,
                                      const char* key, size_t klen) {
  if (column_family == nullptr) return KeepFirstError(batch, NullHandle());
  KeepFirstError(batch, batch->rep.SingleDelete(column_family->rep, View(key, klen)));
}

void shale_writebatch_delete_range_cf(shale_writebatch_t* batch,
                                      shale_column_family_handle_t* column_family,
                                      const char* start_key, size_t start_key_len,
                                      const char* end_key, size_t end_key_len) {
  if (column_family == nullptr) return KeepFirstError(batch, NullHandle());
  KeepFirstError(batch,
                 batch->rep.DeleteRange(column_family->rep, View(start_key, start_key_len),
                                        View(end_key, end_key_len)));
}

void shale_writebatch_merge_cf(shale_writebatch_t* batch,
                               shale_column_family_handle_t* column_family, const char* key,
                               size_t klen, const char* val, size_t vlen) {
  if (column_family == nullptr) return KeepFirstError(batch, NullHandle());
  KeepFirstError(batch,
                 batch->rep.Merge(column_family->rep, View(key, klen), View(val, vlen)));
}

// ---------------------------------------------------------------- Reads

char* shale_get_cf(shale_t* db, const shale_readoptions_t* options,
                   shale_column_family_handle_t* column_family, const char* key, size_t keylen,
                   size_t* vallen, char** errptr) {
  *vallen = 0;
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return nullptr;
  }
  std::string value;
  const shale::Status s =
      db->rep->Get(options->rep, column_family->rep, View(key, keylen), &value);
  return ReturnValue(s, value, vallen, errptr);
}

void shale_multi_get_cf(shale_t* db, const shale_readoptions_t* options,
                        const shale_column_family_handle_t* const* column_families,
                        size_t num_keys, const char* const* keys_list,
                        const size_t* keys_list_sizes, char** values_list,
                        size_t* values_list_sizes, char** errs) {
  // Keys whose handle is NULL get the error and are left out of the engine's MultiGet, so
  // that it never sees a null handle from here.
  std::vector<size_t> asked;
  std::vector<shale::ColumnFamilyHandle*> families;
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < num_keys; i++) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    if (column_families[i] == nullptr) {
      errs[i] = CopyToMallocString(NullHandle().ToString());
      continue;
    }
    asked.push_back(i);
    families.push_back(Rep(column_families[i]));
    keys.push_back(View(keys_list[i], keys_list_sizes[i]));
  }
  if (asked.empty()) return;
  std::vector<std::string> values;
  const std::vector<shale::Status> statuses =
      db->rep->MultiGet(options->rep, families, keys, &values);
  for (size_t j = 0; j < asked.size(); j++) {
    const size_t i = asked[j];
    if (statuses[j].ok()) {
      values_list[i] = CopyToMalloc(values[j]);
      values_list_sizes[i] = values[j].size();
    } else if (!statuses[j].IsNotFound()) {
      errs[i] = CopyToMallocString(statuses[j].ToString());
    }
  }
}

shale_iterator_t* shale_create_iterator_cf(shale_t* db, const shale_readoptions_t* options,
                                           shale_column_family_handle_t* column_family) {
  auto iter = std::make_unique<shale_iterator_t>();
  iter->bounds = shale::capi::CopyBounds(options);
  // A null handle: the engine's iterator reports InvalidArgument through its status.
  iter->rep =
      db->rep->NewIterator(shale::capi::WithBounds(options, *iter->bounds), Rep(column_family));
  return iter.release();
}

void shale_create_iterators(shale_t* db, shale_readoptions_t* opts,
                            shale_column_family_handle_t** column_families,
                            shale_iterator_t** iterators, size_t size, char** errptr) {
  std::vector<shale::ColumnFamilyHandle*> families;
  families.reserve(size);
  for (size_t i = 0; i < size; i++) {
    if (column_families[i] == nullptr) {
      SaveError(errptr, shale::Status::InvalidArgument(
                            "column_family", "NULL handle at index " + std::to_string(i)));
      return;
    }
    families.push_back(column_families[i]->rep);
  }
  // One copy of the bounds, shared by every iterator (each keeps it alive).
  const std::shared_ptr<const shale_iterator_bounds_t> bounds = shale::capi::CopyBounds(opts);
  std::vector<std::unique_ptr<shale::Iterator>> result;
  if (SaveError(errptr, db->rep->NewIterators(shale::capi::WithBounds(opts, *bounds), families,
                                              &result))) {
    return;
  }
  for (size_t i = 0; i < size; i++) {
    iterators[i] = new shale_iterator_t{bounds, std::move(result[i])};
  }
}

// ---------------------------------------------------------------- Maintenance

void shale_flush_cf(shale_t* db, const shale_flushoptions_t* options,
                    shale_column_family_handle_t* column_family, char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->Flush(options->rep, column_family->rep));
}

void shale_flush_cfs(shale_t* db, const shale_flushoptions_t* options,
                     shale_column_family_handle_t** column_families, int num_column_families,
                     char** errptr) {
  std::vector<shale::ColumnFamilyHandle*> families;
  for (int i = 0; i < num_column_families; i++) {
    if (column_families[i] == nullptr) {
      SaveError(errptr, shale::Status::InvalidArgument(
                            "column_family", "NULL handle at index " + std::to_string(i)));
      return;
    }
    families.push_back(column_families[i]->rep);
  }
  SaveError(errptr, db->rep->Flush(options->rep, families));
}

void shale_compact_range_cf_opt(shale_t* db, shale_column_family_handle_t* column_family,
                                shale_compactoptions_t* opt, const char* start_key,
                                size_t start_key_len, const char* limit_key,
                                size_t limit_key_len) {
  if (column_family == nullptr) return;
  // A NULL key is an open end, whatever its length says.
  const std::string_view start =
      start_key == nullptr ? std::string_view() : View(start_key, start_key_len);
  const std::string_view limit =
      limit_key == nullptr ? std::string_view() : View(limit_key, limit_key_len);
  db->rep
      ->CompactRange(opt->rep, column_family->rep, start_key == nullptr ? nullptr : &start,
                     limit_key == nullptr ? nullptr : &limit)
      .PermitUncheckedError();
}

void shale_compact_range_cf(shale_t* db, shale_column_family_handle_t* column_family,
                            const char* start_key, size_t start_key_len, const char* limit_key,
                            size_t limit_key_len) {
  shale_compactoptions_t defaults;
  shale_compact_range_cf_opt(db, column_family, &defaults, start_key, start_key_len, limit_key,
                             limit_key_len);
}

void shale_delete_file_in_range_cf(shale_t* db, shale_column_family_handle_t* column_family,
                                   const char* start_key, size_t start_key_len,
                                   const char* limit_key, size_t limit_key_len, char** errptr) {
  const std::string_view start =
      start_key == nullptr ? std::string_view() : View(start_key, start_key_len);
  const std::string_view limit =
      limit_key == nullptr ? std::string_view() : View(limit_key, limit_key_len);
  SaveError(errptr, db->rep->DeleteFilesInRange(column_family == nullptr ? nullptr
                                                                         : column_family->rep,
                                                start_key == nullptr ? nullptr : &start,
                                                limit_key == nullptr ? nullptr : &limit));
}

char* shale_property_value_cf(shale_t* db, shale_column_family_handle_t* column_family,
                              const char* propname) {
  if (column_family == nullptr) return nullptr;
  std::string value;
  if (!db->rep->GetProperty(column_family->rep, propname, &value)) return nullptr;
  return CopyToMallocString(value);
}

int shale_property_int_cf(shale_t* db, shale_column_family_handle_t* column_family,
                          const char* propname, uint64_t* out_val) {
  if (column_family == nullptr) return -1;
  return db->rep->GetIntProperty(column_family->rep, propname, out_val) ? 0 : -1;
}

void shale_approximate_sizes_cf(shale_t* db, shale_column_family_handle_t* column_family,
                                int num_ranges, const char* const* range_start_key,
                                const size_t* range_start_key_len,
                                const char* const* range_limit_key,
                                const size_t* range_limit_key_len, uint64_t* sizes,
                                char** errptr) {
  if (column_family == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  std::vector<shale::Range> ranges;
  for (int i = 0; i < num_ranges; i++) {
    ranges.emplace_back(View(range_start_key[i], range_start_key_len[i]),
                        View(range_limit_key[i], range_limit_key_len[i]));
  }
  SaveError(errptr, db->rep->GetApproximateSizes(column_family->rep, ranges.data(), num_ranges,
                                                 sizes));
}

void shale_ingest_external_file_cf(shale_t* db, shale_column_family_handle_t* handle,
                                   const char* const* file_list, size_t list_len,
                                   const shale_ingestexternalfileoptions_t* options,
                                   char** errptr) {
  if (handle == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  std::vector<std::string> files(file_list, file_list + list_len);
  SaveError(errptr, db->rep->IngestExternalFile(handle->rep, files, options->rep));
}

void shale_set_options_cf(shale_t* db, shale_column_family_handle_t* handle, int count,
                          const char* const keys[], const char* const values[],
                          char** errptr) {
  if (handle == nullptr) {
    SaveError(errptr, NullHandle());
    return;
  }
  SaveError(errptr, db->rep->SetOptions(handle->rep, Changes(count, keys, values)));
}

void shale_set_db_options(shale_t* db, int count, const char* const keys[],
                          const char* const values[], char** errptr) {
  SaveError(errptr, db->rep->SetDBOptions(Changes(count, keys, values)));
}

}  // extern "C"
