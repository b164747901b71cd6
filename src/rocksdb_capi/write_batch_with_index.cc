// rocksdb_writebatch_wi_* and rocksdb_write_writebatch_wi: RocksDB's WriteBatchWithIndex over
// a rocksdb_writebatch_t and a BatchIndex (write_batch_with_index.h). Every update goes to the
// batch first; only a record the batch accepted is indexed.
#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator.h"
#include "rocksdb_capi/prefix_iterator.h"
#include "rocksdb_capi/read_write_options.h"
#include "rocksdb_capi/write_batch_with_index.h"

using shale::Comparator;
using shale::Status;
using shale::rocksdb_capi::Concat;
using shale::rocksdb_capi::FamilyId;
using shale::rocksdb_capi::IndexedEntry;
using shale::rocksdb_capi::View;

namespace {

shale::ColumnFamilyHandle* Family(rocksdb_column_family_handle_t* column_family) {
  return column_family == nullptr ? nullptr : column_family->rep;
}

const Comparator* ComparatorOf(rocksdb_column_family_handle_t* column_family) {
  return column_family == nullptr || column_family->rep == nullptr
             ? nullptr
             : column_family->rep->GetComparator();
}

void WiPut(rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* cf, std::string_view key,
           std::string_view value) {
  if (b->batch.rep.Put(Family(cf), key, value).ok()) {
    b->index.Put(FamilyId(cf), ComparatorOf(cf), key, value);
  }
}

void WiDelete(rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* cf,
              std::string_view key, bool single) {
  Status s = single ? b->batch.rep.SingleDelete(Family(cf), key)
                    : b->batch.rep.Delete(Family(cf), key);
  if (s.ok()) b->index.Delete(FamilyId(cf), ComparatorOf(cf), key);
}

void WiMerge(rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* cf,
             std::string_view key, std::string_view value) {
  if (b->batch.rep.Merge(Family(cf), key, value).ok()) {
    b->index.Merge(FamilyId(cf), ComparatorOf(cf), key, value);
  }
}

// The value of a resolved read as a malloc'd buffer, or NULL (NotFound: no error; another
// error: through errptr), as rocksdb_get returns them.
char* ReturnValue(const Status& s, const std::string& value, size_t* vallen, char** errptr) {
  if (s.ok()) {
    *vallen = value.size();
    return shale::rocksdb_capi::CopyToMalloc(value);
  }
  *vallen = 0;
  if (!s.IsNotFound()) shale::rocksdb_capi::SaveError(errptr, s);
  return nullptr;
}

// The merge operator of a family, from the handle's current options (null: none or unknown).
std::shared_ptr<shale::MergeOperator> MergeOperatorOf(rocksdb_column_family_handle_t* cf) {
  if (cf == nullptr || cf->rep == nullptr) return nullptr;
  shale::ColumnFamilyDescriptor descriptor;
  if (!cf->rep->GetDescriptor(&descriptor).ok()) return nullptr;
  return descriptor.options.merge_operator;
}

char* GetFromBatch(rocksdb_writebatch_wi_t* wbwi, const rocksdb_options_t* options,
                   rocksdb_column_family_handle_t* cf, const char* key, size_t keylen,
                   size_t* vallen, char** errptr) {
  std::string_view k = View(key, keylen);
  const IndexedEntry* entry = wbwi->index.Find(FamilyId(cf), k);
  std::string value;
  Status s = Status::NotFound();
  if (entry != nullptr) {
    std::shared_ptr<shale::MergeOperator> op = MergeOperatorOf(cf);
    if (op == nullptr && options != nullptr) op = options->rep.merge_operator;
    s = shale::rocksdb_capi::ResolveEntry(*entry, k, op.get(), false, nullptr, &value);
  }
  return ReturnValue(s, value, vallen, errptr);
}

char* GetFromBatchAndDb(rocksdb_writebatch_wi_t* wbwi, rocksdb_t* db,
                        const rocksdb_readoptions_t* options, rocksdb_column_family_handle_t* cf,
                        const char* key, size_t keylen, size_t* vallen, char** errptr) {
  std::string_view k = View(key, keylen);
  shale::ColumnFamilyHandle* family = cf != nullptr ? cf->rep : db->rep->DefaultColumnFamily();
  // As rocksdb_get: NULL options are RocksDB's defaults, and a refused setting fails the read
  // even when the batch alone would answer it.
  shale::ReadOptions read_options;
  std::string value;
  Status s = shale::rocksdb_capi::ReadOptionsFor(options, nullptr, &read_options);
  if (!s.ok()) return ReturnValue(s, value, vallen, errptr);
  const IndexedEntry* entry = wbwi->index.Find(FamilyId(cf), k);
  if (entry == nullptr) {
    s = db->rep->Get(read_options, family, k, &value);
    return ReturnValue(s, value, vallen, errptr);
  }
  std::string below;
  bool has_below = false;
  if (entry->base == IndexedEntry::Base::kNone) {
    s = db->rep->Get(read_options, family, k, &below);
    if (!s.ok() && !s.IsNotFound()) return ReturnValue(s, value, vallen, errptr);
    has_below = s.ok();
  }
  std::shared_ptr<shale::MergeOperator> op;
  if (!entry->operands.empty()) op = db->rep->GetOptions(family).merge_operator;
  s = shale::rocksdb_capi::ResolveEntry(*entry, k, op.get(), true, has_below ? &below : nullptr,
                                        &value);
  return ReturnValue(s, value, vallen, errptr);
}

rocksdb_iterator_t* IteratorWithBase(rocksdb_writebatch_wi_t* wbwi, rocksdb_iterator_t* base,
                                     rocksdb_column_family_handle_t* cf) {
  auto* result = new rocksdb_iterator_t;
  result->pin_keys = base->pin_keys;
  const shale::rocksdb_capi::IndexedKeys& keys = wbwi->index.Family(FamilyId(cf), ComparatorOf(cf));
  // A base made with prefix_same_as_start: the bound goes around the combined iterator (the
  // batch's keys beyond the prefix end the iteration too), over the base's unbounded iterator.
  const shale::rocksdb_capi::PrefixBound prefix_bound = shale::rocksdb_capi::TakePrefixBound(base);
  // The family's merge operator; without a handle none is known (RocksDB's iterator without a
  // family cannot merge either).
  result->rep =
      shale::rocksdb_capi::NewIteratorWithBase(&keys, std::move(base->rep), MergeOperatorOf(cf));
  if (prefix_bound) {
    result->rep = prefix_bound(std::move(result->rep));
    result->prefix_bounded = true;
  }
  result->bounds = std::move(base->bounds);
  // As RocksDB: the new iterator takes over the base iterator, whose handle is freed.
  delete base;
  return result;
}

void RebuildIndex(rocksdb_writebatch_wi_t* b) {
  // The batch was valid when its records were added, so its prefix is valid too.
  b->index.Rebuild(b->batch.rep).PermitUncheckedError();
}

}  // namespace

extern "C" {

rocksdb_writebatch_wi_t* rocksdb_writebatch_wi_create(size_t reserved_bytes,
                                                      unsigned char overwrite_keys) {
  auto* b = new rocksdb_writebatch_wi_t;
  b->batch.rep = shale::WriteBatch(reserved_bytes);
  b->overwrite_keys = overwrite_keys != 0;
  return b;
}

rocksdb_writebatch_wi_t* rocksdb_writebatch_wi_create_from(const char* rep, size_t size) {
  auto* b = new rocksdb_writebatch_wi_t;
  b->overwrite_keys = true;
  b->batch.rep = shale::WriteBatch(std::string(View(rep, size)));
  // Damaged contents: the readable records are indexed; writing the batch fails (Corruption).
  b->index.Rebuild(b->batch.rep).PermitUncheckedError();
  return b;
}

void rocksdb_writebatch_wi_destroy(rocksdb_writebatch_wi_t* b) { delete b; }

void rocksdb_writebatch_wi_clear(rocksdb_writebatch_wi_t* b) {
  b->batch.rep.Clear();
  b->batch.save_points.clear();
  RebuildIndex(b);
}

int rocksdb_writebatch_wi_count(rocksdb_writebatch_wi_t* b) {
  return static_cast<int>(b->batch.rep.Count());
}

void rocksdb_writebatch_wi_put(rocksdb_writebatch_wi_t* b, const char* key, size_t klen,
                               const char* val, size_t vlen) {
  WiPut(b, nullptr, View(key, klen), View(val, vlen));
}

void rocksdb_writebatch_wi_put_cf(rocksdb_writebatch_wi_t* b,
                                  rocksdb_column_family_handle_t* column_family, const char* key,
                                  size_t klen, const char* val, size_t vlen) {
  WiPut(b, column_family, View(key, klen), View(val, vlen));
}

void rocksdb_writebatch_wi_putv(rocksdb_writebatch_wi_t* b, int num_keys,
                                const char* const* keys_list, const size_t* keys_list_sizes,
                                int num_values, const char* const* values_list,
                                const size_t* values_list_sizes) {
  WiPut(b, nullptr, Concat(num_keys, keys_list, keys_list_sizes),
        Concat(num_values, values_list, values_list_sizes));
}

void rocksdb_writebatch_wi_putv_cf(rocksdb_writebatch_wi_t* b,
                                   rocksdb_column_family_handle_t* column_family, int num_keys,
                                   const char* const* keys_list, const size_t* keys_list_sizes,
                                   int num_values, const char* const* values_list,
                                   const size_t* values_list_sizes) {
  WiPut(b, column_family, Concat(num_keys, keys_list, keys_list_sizes),
        Concat(num_values, values_list, values_list_sizes));
}

void rocksdb_writebatch_wi_merge(rocksdb_writebatch_wi_t* b, const char* key, size_t klen,
                                 const char* val, size_t vlen) {
  WiMerge(b, nullptr, View(key, klen), View(val, vlen));
}

void rocksdb_writebatch_wi_merge_cf(rocksdb_writebatch_wi_t* b,
                                    rocksdb_column_family_handle_t* column_family,
                                    const char* key, size_t klen, const char* val, size_t vlen) {
  WiMerge(b, column_family, View(key, klen), View(val, vlen));
}

void rocksdb_writebatch_wi_mergev(rocksdb_writebatch_wi_t* b, int num_keys,
                                  const char* const* keys_list, const size_t* keys_list_sizes,
                                  int num_values, const char* const* values_list,
                                  const size_t* values_list_sizes) {
  WiMerge(b, nullptr, Concat(num_keys, keys_list, keys_list_sizes),
          Concat(num_values, values_list, values_list_sizes));
}

void rocksdb_writebatch_wi_mergev_cf(rocksdb_writebatch_wi_t* b,
                                     rocksdb_column_family_handle_t* column_family, int num_keys,
                                     const char* const* keys_list, const size_t* keys_list_sizes,
                                     int num_values, const char* const* values_list,
                                     const size_t* values_list_sizes) {
  WiMerge(b, column_family, Concat(num_keys, keys_list, keys_list_sizes),
          Concat(num_values, values_list, values_list_sizes));
}

void rocksdb_writebatch_wi_delete(rocksdb_writebatch_wi_t* b, const char* key, size_t klen) {
  WiDelete(b, nullptr, View(key, klen), false);
}

void rocksdb_writebatch_wi_singledelete(rocksdb_writebatch_wi_t* b, const char* key,
                                        size_t klen) {
  WiDelete(b, nullptr, View(key, klen), true);
}

void rocksdb_writebatch_wi_delete_cf(rocksdb_writebatch_wi_t* b,
                                     rocksdb_column_family_handle_t* column_family,
                                     const char* key, size_t klen) {
  WiDelete(b, column_family, View(key, klen), false);
}

void rocksdb_writebatch_wi_singledelete_cf(rocksdb_writebatch_wi_t* b,
                                           rocksdb_column_family_handle_t* column_family,
                                           const char* key, size_t klen) {
  WiDelete(b, column_family, View(key, klen), true);
}

void rocksdb_writebatch_wi_deletev(rocksdb_writebatch_wi_t* b, int num_keys,
                                   const char* const* keys_list, const size_t* keys_list_sizes) {
  WiDelete(b, nullptr, Concat(num_keys, keys_list, keys_list_sizes), false);
}

void rocksdb_writebatch_wi_deletev_cf(rocksdb_writebatch_wi_t* b,
                                      rocksdb_column_family_handle_t* column_family,
                                      int num_keys, const char* const* keys_list,
                                      const size_t* keys_list_sizes) {
  WiDelete(b, column_family, Concat(num_keys, keys_list, keys_list_sizes), false);
}

// RocksDB's WriteBatchWithIndex refuses range deletions (NotSupported, which its C API drops):
// nothing is recorded.
void rocksdb_writebatch_wi_delete_range(rocksdb_writebatch_wi_t*, const char*, size_t,
                                        const char*, size_t) {}

void rocksdb_writebatch_wi_delete_range_cf(rocksdb_writebatch_wi_t*,
                                           rocksdb_column_family_handle_t*, const char*, size_t,
                                           const char*, size_t) {}

void rocksdb_writebatch_wi_delete_rangev(rocksdb_writebatch_wi_t*, int, const char* const*,
                                         const size_t*, const char* const*, const size_t*) {}

void rocksdb_writebatch_wi_delete_rangev_cf(rocksdb_writebatch_wi_t*,
                                            rocksdb_column_family_handle_t*, int,
                                            const char* const*, const size_t*,
                                            const char* const*, const size_t*) {}

// As rocksdb_writebatch_put_log_data (batch.cc): a blob changes no read; nothing is recorded.
void rocksdb_writebatch_wi_put_log_data(rocksdb_writebatch_wi_t*, const char*, size_t) {}

void rocksdb_writebatch_wi_iterate(rocksdb_writebatch_wi_t* b, void* state,
                                   void (*put)(void*, const char* k, size_t klen, const char* v,
                                               size_t vlen),
                                   void (*deleted)(void*, const char* k, size_t klen)) {
  shale::rocksdb_capi::IterateWithCallbacks(b->batch.rep, state, put, deleted);
}

const char* rocksdb_writebatch_wi_data(rocksdb_writebatch_wi_t* b, size_t* size) {
  *size = b->batch.rep.GetDataSize();
  return b->batch.rep.Data().data();
}

void rocksdb_writebatch_wi_set_save_point(rocksdb_writebatch_wi_t* b) {
  b->batch.save_points.push_back(shale::rocksdb_capi::MakeSavePoint(b->batch.rep));
}

void rocksdb_writebatch_wi_rollback_to_save_point(rocksdb_writebatch_wi_t* b, char** errptr) {
  if (b->batch.save_points.empty()) {
    shale::rocksdb_capi::SaveError(errptr, Status::NotFound());
    return;
  }
  shale::rocksdb_capi::TruncateBatch(&b->batch.rep, b->batch.save_points.back());
  b->batch.save_points.pop_back();
  RebuildIndex(b);
}

char* rocksdb_writebatch_wi_get_from_batch(rocksdb_writebatch_wi_t* wbwi,
                                           const rocksdb_options_t* options, const char* key,
                                           size_t keylen, size_t* vallen, char** errptr) {
  return GetFromBatch(wbwi, options, nullptr, key, keylen, vallen, errptr);
}

char* rocksdb_writebatch_wi_get_from_batch_cf(rocksdb_writebatch_wi_t* wbwi,
                                              const rocksdb_options_t* options,
                                              rocksdb_column_family_handle_t* column_family,
                                              const char* key, size_t keylen, size_t* vallen,
                                              char** errptr) {
  return GetFromBatch(wbwi, options, column_family, key, keylen, vallen, errptr);
}

char* rocksdb_writebatch_wi_get_from_batch_and_db(rocksdb_writebatch_wi_t* wbwi, rocksdb_t* db,
                                                  const rocksdb_readoptions_t* options,
                                                  const char* key, size_t keylen, size_t* vallen,
                                                  char** errptr) {
  return GetFromBatchAndDb(wbwi, db, options, nullptr, key, keylen, vallen, errptr);
}

char* rocksdb_writebatch_wi_get_from_batch_and_db_cf(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen,
    size_t* vallen, char** errptr) {
  return GetFromBatchAndDb(wbwi, db, options, column_family, key, keylen, vallen, errptr);
}

void rocksdb_write_writebatch_wi(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                                 rocksdb_writebatch_wi_t* wbwi, char** errptr) {
  // As rocksdb_write: NULL options are RocksDB's defaults.
  shale::rocksdb_capi::SaveError(
      errptr, db->rep->Write(shale::rocksdb_capi::WriteOptionsFor(options), &wbwi->batch.rep));
}

rocksdb_iterator_t* rocksdb_writebatch_wi_create_iterator_with_base(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_iterator_t* base_iterator) {
  return IteratorWithBase(wbwi, base_iterator, nullptr);
}

rocksdb_iterator_t* rocksdb_writebatch_wi_create_iterator_with_base_cf(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_iterator_t* base_iterator,
    rocksdb_column_family_handle_t* cf) {
  return IteratorWithBase(wbwi, base_iterator, cf);
}

}  // extern "C"
