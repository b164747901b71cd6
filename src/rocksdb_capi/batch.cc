// rocksdb_writebatch_*: RocksDB's WriteBatch over shale::WriteBatch (batch.h).
//
// The update functions return nothing, as RocksDB's do: an update the batch refuses (a key or
// value over ShaleDB's limits, shale/limits.h) is not recorded, like RocksDB's refused updates.
// The *_with_ts variants add no record: RocksDB refuses a timestamp for a family without a
// timestamp comparator, and ShaleDB has no such families. rocksdb_writebatch_put_log_data adds
// nothing either: a log-data blob is not an update (it changes no read, count or iterate
// callback); ShaleDB's WAL has no place for it (doc/rocksdb_compat.md).
#include <string>

#include "rocksdb_capi/batch.h"
#include "rocksdb_capi/handles.h"

using shale::ColumnFamilyHandle;
using shale::Status;
using shale::rocksdb_capi::Concat;
using shale::rocksdb_capi::View;

namespace {

ColumnFamilyHandle* Family(rocksdb_column_family_handle_t* column_family) {
  return column_family == nullptr ? nullptr : column_family->rep;
}

// Drops the status of a refused update (see the file comment).
void Ignore(const Status& s) { s.PermitUncheckedError(); }

}  // namespace

extern "C" {

rocksdb_writebatch_t* rocksdb_writebatch_create(void) { return new rocksdb_writebatch_t; }

rocksdb_writebatch_t* rocksdb_writebatch_create_from(const char* rep, size_t size) {
  auto* b = new rocksdb_writebatch_t;
  // As RocksDB: the bytes are taken as they are; damaged contents fail rocksdb_write
  // (Corruption) and end rocksdb_writebatch_iterate early.
  b->rep = shale::WriteBatch(std::string(View(rep, size)));
  return b;
}

void rocksdb_writebatch_destroy(rocksdb_writebatch_t* b) { delete b; }

void rocksdb_writebatch_clear(rocksdb_writebatch_t* b) {
  b->rep.Clear();
  b->save_points.clear();
}

int rocksdb_writebatch_count(rocksdb_writebatch_t* b) { return static_cast<int>(b->rep.Count()); }

void rocksdb_writebatch_put(rocksdb_writebatch_t* b, const char* key, size_t klen,
                            const char* val, size_t vlen) {
  Ignore(b->rep.Put(View(key, klen), View(val, vlen)));
}

void rocksdb_writebatch_put_cf(rocksdb_writebatch_t* b,
                               rocksdb_column_family_handle_t* column_family, const char* key,
                               size_t klen, const char* val, size_t vlen) {
  Ignore(b->rep.Put(Family(column_family), View(key, klen), View(val, vlen)));
}

void rocksdb_writebatch_put_cf_with_ts(rocksdb_writebatch_t*, rocksdb_column_family_handle_t*,
                                       const char*, size_t, const char*, size_t, const char*,
                                       size_t) {}

void rocksdb_writebatch_putv(rocksdb_writebatch_t* b, int num_keys,
                             const char* const* keys_list, const size_t* keys_list_sizes,
                             int num_values, const char* const* values_list,
                             const size_t* values_list_sizes) {
  Ignore(b->rep.Put(Concat(num_keys, keys_list, keys_list_sizes),
                    Concat(num_values, values_list, values_list_sizes)));
}

void rocksdb_writebatch_putv_cf(rocksdb_writebatch_t* b,
                                rocksdb_column_family_handle_t* column_family, int num_keys,
                                const char* const* keys_list, const size_t* keys_list_sizes,
                                int num_values, const char* const* values_list,
                                const size_t* values_list_sizes) {
  Ignore(b->rep.Put(Family(column_family), Concat(num_keys, keys_list, keys_list_sizes),
                    Concat(num_values, values_list, values_list_sizes)));
}

void rocksdb_writebatch_merge(rocksdb_writebatch_t* b, const char* key, size_t klen,
                              const char* val, size_t vlen) {
  Ignore(b->rep.Merge(View(key, klen), View(val, vlen)));
}

void rocksdb_writebatch_merge_cf(rocksdb_writebatch_t* b,
                                 rocksdb_column_family_handle_t* column_family, const char* key,
                                 size_t klen, const char* val, size_t vlen) {
  Ignore(b->rep.Merge(Family(column_family), View(key, klen), View(val, vlen)));
}

void rocksdb_writebatch_mergev(rocksdb_writebatch_t* b, int num_keys,
                               const char* const* keys_list, const size_t* keys_list_sizes,
                               int num_values, const char* const* values_list,
                               const size_t* values_list_sizes) {
  Ignore(b->rep.Merge(Concat(num_keys, keys_list, keys_list_sizes),
                      Concat(num_values, values_list, values_list_sizes)));
}

void rocksdb_writebatch_mergev_cf(rocksdb_writebatch_t* b,
                                  rocksdb_column_family_handle_t* column_family, int num_keys,
                                  const char* const* keys_list, const size_t* keys_list_sizes,
                                  int num_values, const char* const* values_list,
                                  const size_t* values_list_sizes) {
  Ignore(b->rep.Merge(Family(column_family), Concat(num_keys, keys_list, keys_list_sizes),
                      Concat(num_values, values_list, values_list_sizes)));
}

void rocksdb_writebatch_delete(rocksdb_writebatch_t* b, const char* key, size_t klen) {
  Ignore(b->rep.Delete(View(key, klen)));
}

void rocksdb_writebatch_singledelete(rocksdb_writebatch_t* b, const char* key, size_t klen) {
  Ignore(b->rep.SingleDelete(View(key, klen)));
}

void rocksdb_writebatch_delete_cf(rocksdb_writebatch_t* b,
                                  rocksdb_column_family_handle_t* column_family, const char* key,
                                  size_t klen) {
  Ignore(b->rep.Delete(Family(column_family), View(key, klen)));
}

void rocksdb_writebatch_delete_cf_with_ts(rocksdb_writebatch_t*,
                                          rocksdb_column_family_handle_t*, const char*, size_t,
                                          const char*, size_t) {}

void rocksdb_writebatch_singledelete_cf(rocksdb_writebatch_t* b,
                                        rocksdb_column_family_handle_t* column_family,
                                        const char* key, size_t klen) {
  Ignore(b->rep.SingleDelete(Family(column_family), View(key, klen)));
}

void rocksdb_writebatch_singledelete_cf_with_ts(rocksdb_writebatch_t*,
                                                rocksdb_column_family_handle_t*, const char*,
                                                size_t, const char*, size_t) {}

void rocksdb_writebatch_deletev(rocksdb_writebatch_t* b, int num_keys,
                                const char* const* keys_list, const size_t* keys_list_sizes) {
  Ignore(b->rep.Delete(Concat(num_keys, keys_list, keys_list_sizes)));
}

void rocksdb_writebatch_deletev_cf(rocksdb_writebatch_t* b,
                                   rocksdb_column_family_handle_t* column_family, int num_keys,
                                   const char* const* keys_list, const size_t* keys_list_sizes) {
  Ignore(b->rep.Delete(Family(column_family), Concat(num_keys, keys_list, keys_list_sizes)));
}

void rocksdb_writebatch_delete_range(rocksdb_writebatch_t* b, const char* start_key,
                                     size_t start_key_len, const char* end_key,
                                     size_t end_key_len) {
  Ignore(b->rep.DeleteRange(View(start_key, start_key_len), View(end_key, end_key_len)));
}

void rocksdb_writebatch_delete_range_cf(rocksdb_writebatch_t* b,
                                        rocksdb_column_family_handle_t* column_family,
                                        const char* start_key, size_t start_key_len,
                                        const char* end_key, size_t end_key_len) {
  Ignore(b->rep.DeleteRange(Family(column_family), View(start_key, start_key_len),
                            View(end_key, end_key_len)));
}

void rocksdb_writebatch_delete_rangev(rocksdb_writebatch_t* b, int num_keys,
                                      const char* const* start_keys_list,
                                      const size_t* start_keys_list_sizes,
                                      const char* const* end_keys_list,
                                      const size_t* end_keys_list_sizes) {
  Ignore(b->rep.DeleteRange(Concat(num_keys, start_keys_list, start_keys_list_sizes),
                            Concat(num_keys, end_keys_list, end_keys_list_sizes)));
}

void rocksdb_writebatch_delete_rangev_cf(rocksdb_writebatch_t* b,
                                         rocksdb_column_family_handle_t* column_family,
                                         int num_keys, const char* const* start_keys_list,
                                         const size_t* start_keys_list_sizes,
                                         const char* const* end_keys_list,
                                         const size_t* end_keys_list_sizes) {
  Ignore(b->rep.DeleteRange(Family(column_family),
                            Concat(num_keys, start_keys_list, start_keys_list_sizes),
                            Concat(num_keys, end_keys_list, end_keys_list_sizes)));
}

void rocksdb_writebatch_put_log_data(rocksdb_writebatch_t*, const char*, size_t) {}

void rocksdb_writebatch_iterate(rocksdb_writebatch_t* b, void* state,
                                void (*put)(void*, const char* k, size_t klen, const char* v,
                                            size_t vlen),
                                void (*deleted)(void*, const char* k, size_t klen)) {
  shale::rocksdb_capi::IterateWithCallbacks(b->rep, state, put, deleted);
}

const char* rocksdb_writebatch_data(rocksdb_writebatch_t* b, size_t* size) {
  *size = b->rep.GetDataSize();
  return b->rep.Data().data();
}

void rocksdb_writebatch_set_save_point(rocksdb_writebatch_t* b) {
  b->save_points.push_back(shale::rocksdb_capi::MakeSavePoint(b->rep));
}

void rocksdb_writebatch_rollback_to_save_point(rocksdb_writebatch_t* b, char** errptr) {
  if (b->save_points.empty()) {
    shale::rocksdb_capi::SaveError(errptr, Status::NotFound());
    return;
  }
  shale::rocksdb_capi::TruncateBatch(&b->rep, b->save_points.back());
  b->save_points.pop_back();
}

void rocksdb_writebatch_pop_save_point(rocksdb_writebatch_t* b, char** errptr) {
  if (b->save_points.empty()) {
    shale::rocksdb_capi::SaveError(errptr, Status::NotFound());
    return;
  }
  b->save_points.pop_back();
}

}  // extern "C"
