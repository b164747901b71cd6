// RocksDB's C API, db group: the reads of a DB (get, multi-get, pinned gets, key_may_exist),
// iterators and snapshots. Values are returned as RocksDB documents: malloc'd copies the
// caller frees with rocksdb_free (NULL and no error when the key is absent), or pinnable
// slices (pinnable_slice.h). User-defined timestamps are not in ShaleDB: the *_with_ts reads
// fail with "Not supported by ShaleDB: <function>".
// Thread-safety: reads, snapshots and iterator creation from any thread (as shale::DB); an
// iterator or a pinnable slice is used by one thread at a time.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator.h"
#include "rocksdb_capi/pinnable_slice.h"
#include "rocksdb_capi/prefix_iterator.h"
#include "shale/db.h"

using shale::ColumnFamilyHandle;
using shale::ReadOptions;
using shale::Status;
using shale::rocksdb_capi::ApplyPrefixSameAsStart;
using shale::rocksdb_capi::CopyToMalloc;
using shale::rocksdb_capi::CopyToMallocString;
using shale::rocksdb_capi::FamilyOf;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::ReadBounds;
using shale::rocksdb_capi::ReadOptionsFor;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::View;

namespace {

// Get, RocksDB's way: the value as a malloc'd copy, or NULL with *vallen 0 when the key is
// absent (not an error) or on an error (in *errptr).
char* GetValue(rocksdb_t* db, const rocksdb_readoptions_t* options, ColumnFamilyHandle* family,
               const char* key, size_t keylen, size_t* vallen, char** errptr) {
  *vallen = 0;
  ReadOptions read_options;
  Status s = ReadOptionsFor(options, nullptr, &read_options);
  if (SaveError(errptr, s)) return nullptr;
  std::string value;
  s = db->rep->Get(read_options, family, View(key, keylen), &value);
  if (s.IsNotFound()) return nullptr;
  if (SaveError(errptr, s)) return nullptr;
  *vallen = value.size();
  return CopyToMalloc(value);
}

// MultiGet over parallel arrays, results as rocksdb_multi_get documents them: values[i] a
// malloc'd copy (NULL when absent or on error), errs[i] NULL or a malloc'd error text.
void MultiGetValues(rocksdb_t* db, const rocksdb_readoptions_t* options,
                    std::vector<ColumnFamilyHandle*> families, size_t num_keys,
                    const char* const* keys_list, const size_t* keys_list_sizes,
                    char** values_list, size_t* values_list_sizes, char** errs) {
  std::vector<std::string_view> keys;
  keys.reserve(num_keys);
  for (size_t i = 0; i < num_keys; i++) keys.push_back(View(keys_list[i], keys_list_sizes[i]));
  std::vector<std::string> values;
  ReadOptions read_options;
  const Status refused = ReadOptionsFor(options, nullptr, &read_options);
  const std::vector<Status> statuses =
      refused.ok() ? db->rep->MultiGet(read_options, families, keys, &values)
                   : std::vector<Status>(num_keys, refused);
  for (size_t i = 0; i < num_keys; i++) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    if (statuses[i].ok()) {
      values_list[i] = CopyToMalloc(values[i]);
      values_list_sizes[i] = values[i].size();
    } else if (!statuses[i].IsNotFound()) {
      errs[i] = CopyToMallocString(statuses[i].ToString());
    }
  }
}

// Get into a pinnable slice: NULL when absent (not an error) or on an error.
rocksdb_pinnableslice_t* GetPinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                   ColumnFamilyHandle* family, const char* key, size_t keylen,
                                   char** errptr) {
  ReadOptions read_options;
  Status s = ReadOptionsFor(options, nullptr, &read_options);
  if (SaveError(errptr, s)) return nullptr;
  auto slice = std::make_unique<rocksdb_pinnableslice_t>();
  s = db->rep->Get(read_options, family, View(key, keylen), &slice->rep);
  if (s.IsNotFound()) return nullptr;
  if (SaveError(errptr, s)) return nullptr;
  return slice.release();
}

// RocksDB's KeyMayExist: 0 only when the key is certainly absent. ShaleDB answers with a full
// read, so a present key's value is always found (returned when value_found is not NULL); an
// error answers "may exist" without a value. For an absent key RocksDB 7.8 returns 0 but still
// reports value_found = 1 with an empty value (its KeyMayExist presets value_found and only a
// read that stops short of I/O clears it), and clients rely on it (grocksdb's KeyMayExistsCF
// hands that value back, and its tests free it): so does this one.
unsigned char KeyMayExist(rocksdb_t* db, const rocksdb_readoptions_t* options,
                          ColumnFamilyHandle* family, const char* key, size_t key_len,
                          char** value, size_t* val_len, unsigned char* value_found) {
  if (value_found != nullptr) *value_found = 0;
  ReadOptions read_options;
  if (!ReadOptionsFor(options, nullptr, &read_options).ok()) return 1;  // unknown: may exist
  std::string found;
  const Status s = db->rep->Get(read_options, family, View(key, key_len), &found);
  if (s.IsNotFound()) {
    if (value_found != nullptr) {
      *value_found = 1;
      *value = CopyToMalloc({});
      *val_len = 0;
    }
    return 0;
  }
  if (!s.ok()) return 1;
  if (value_found != nullptr) {
    *value_found = 1;
    *value = CopyToMalloc(found);
    *val_len = found.size();
  }
  return 1;
}

// An iterator that is never valid and reports `status`: what rocksdb_create_iterator* return
// when the read options ask for what ShaleDB cannot do (the functions have no errptr;
// rocksdb_iter_get_error reports it). Thread-safety: as any iterator.
class ErrorIterator final : public shale::Iterator {
 public:
  explicit ErrorIterator(Status status) : status_(std::move(status)) {}
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Seek(std::string_view) override {}
  void SeekForPrev(std::string_view) override {}
  void Next() override {}
  void Prev() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  const Status status_;
};

// `extractor`: the family's prefix extractor (null: none), for prefix_same_as_start.
rocksdb_iterator_t* NewIterator(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                ColumnFamilyHandle* family,
                                std::shared_ptr<rocksdb_slicetransform_t> extractor) {
  auto* it = new rocksdb_iterator_t;
  auto bounds = std::make_shared<ReadBounds>();
  ReadOptions read_options;
  const Status s = ReadOptionsFor(options, bounds.get(), &read_options);
  if (!s.ok()) {
    it->rep = std::make_unique<ErrorIterator>(s);
    return it;
  }
  it->bounds = std::move(bounds);
  it->rep = db->rep->NewIterator(read_options, family);
  it->pin_keys = options != nullptr && options->pin_data;
  ApplyPrefixSameAsStart(options, std::move(extractor), it);
  return it;
}

// The prefix extractor of the family a handle names (null: none, or no handle).
std::shared_ptr<rocksdb_slicetransform_t> ExtractorOf(
    const rocksdb_column_family_handle_t* handle) {
  return handle == nullptr ? nullptr : handle->prefix_extractor;
}

}  // namespace

extern "C" {

char* rocksdb_get(rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key,
                  size_t keylen, size_t* vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  return GetValue(db, options, db->rep->DefaultColumnFamily(), key, keylen, vallen, errptr);
}

char* rocksdb_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                     rocksdb_column_family_handle_t* column_family, const char* key,
                     size_t keylen, size_t* vallen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  return GetValue(db, options, FamilyOf(column_family), key, keylen, vallen, errptr);
}

char* rocksdb_get_with_ts(rocksdb_t*, const rocksdb_readoptions_t*, const char*, size_t,
                          size_t* vallen, char** ts, size_t* tslen, char** errptr) {
  // not supported: user-defined timestamps
  if (vallen != nullptr) *vallen = 0;
  if (ts != nullptr) *ts = nullptr;
  if (tslen != nullptr) *tslen = 0;
  NotSupported(errptr, "rocksdb_get_with_ts");
  return nullptr;
}

char* rocksdb_get_cf_with_ts(rocksdb_t*, const rocksdb_readoptions_t*,
                             rocksdb_column_family_handle_t*, const char*, size_t,
                             size_t* vallen, char** ts, size_t* tslen, char** errptr) {
  // not supported: user-defined timestamps
  if (vallen != nullptr) *vallen = 0;
  if (ts != nullptr) *ts = nullptr;
  if (tslen != nullptr) *tslen = 0;
  NotSupported(errptr, "rocksdb_get_cf_with_ts");
  return nullptr;
}

void rocksdb_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* options, size_t num_keys,
                       const char* const* keys_list, const size_t* keys_list_sizes,
                       char** values_list, size_t* values_list_sizes, char** errs) {
  MultiGetValues(db, options,
                 std::vector<ColumnFamilyHandle*>(num_keys, db->rep->DefaultColumnFamily()),
                 num_keys, keys_list, keys_list_sizes, values_list, values_list_sizes, errs);
}

void rocksdb_multi_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                          const rocksdb_column_family_handle_t* const* column_families,
                          size_t num_keys, const char* const* keys_list,
                          const size_t* keys_list_sizes, char** values_list,
                          size_t* values_list_sizes, char** errs) {
  std::vector<ColumnFamilyHandle*> families;
  families.reserve(num_keys);
  for (size_t i = 0; i < num_keys; i++) families.push_back(FamilyOf(column_families[i]));
  MultiGetValues(db, options, std::move(families), num_keys, keys_list, keys_list_sizes,
                 values_list, values_list_sizes, errs);
}

// The timestamped multi-gets: every key's error is NotSupported.
void rocksdb_multi_get_with_ts(rocksdb_t*, const rocksdb_readoptions_t*, size_t num_keys,
                               const char* const*, const size_t*, char** values_list,
                               size_t* values_list_sizes, char** timestamp_list,
                               size_t* timestamp_list_sizes, char** errs) {
  // not supported: user-defined timestamps
  for (size_t i = 0; i < num_keys; i++) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    timestamp_list[i] = nullptr;
    timestamp_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_multi_get_with_ts");
  }
}

void rocksdb_multi_get_cf_with_ts(rocksdb_t*, const rocksdb_readoptions_t*,
                                  const rocksdb_column_family_handle_t* const*, size_t num_keys,
                                  const char* const*, const size_t*, char** values_list,
                                  size_t* values_list_sizes, char** timestamps_list,
                                  size_t* timestamps_list_sizes, char** errs) {
  // not supported: user-defined timestamps
  for (size_t i = 0; i < num_keys; i++) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    timestamps_list[i] = nullptr;
    timestamps_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_multi_get_cf_with_ts");
  }
}

void rocksdb_batched_multi_get_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                  rocksdb_column_family_handle_t* column_family, size_t num_keys,
                                  const char* const* keys_list, const size_t* keys_list_sizes,
                                  rocksdb_pinnableslice_t** values, char** errs,
                                  const bool /*sorted_input*/) {
  std::vector<std::string_view> keys;
  keys.reserve(num_keys);
  for (size_t i = 0; i < num_keys; i++) keys.push_back(View(keys_list[i], keys_list_sizes[i]));
  std::vector<std::string> found;
  ReadOptions read_options;
  const Status refused = ReadOptionsFor(options, nullptr, &read_options);
  const std::vector<Status> statuses =
      refused.ok()
          ? db->rep->MultiGet(read_options,
                              std::vector<ColumnFamilyHandle*>(num_keys, FamilyOf(column_family)),
                              keys, &found)
          : std::vector<Status>(num_keys, refused);
  for (size_t i = 0; i < num_keys; i++) {
    values[i] = nullptr;
    errs[i] = nullptr;
    if (statuses[i].ok()) {
      values[i] = new rocksdb_pinnableslice_t;
      values[i]->rep = std::move(found[i]);
    } else if (!statuses[i].IsNotFound()) {
      errs[i] = CopyToMallocString(statuses[i].ToString());
    }
  }
}

unsigned char rocksdb_key_may_exist(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                    const char* key, size_t key_len, char** value,
                                    size_t* val_len, const char* /*timestamp*/,
                                    size_t /*timestamp_len*/, unsigned char* value_found) {
  return KeyMayExist(db, options, db->rep->DefaultColumnFamily(), key, key_len, value, val_len,
                     value_found);
}

unsigned char rocksdb_key_may_exist_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                       rocksdb_column_family_handle_t* column_family,
                                       const char* key, size_t key_len, char** value,
                                       size_t* val_len, const char* /*timestamp*/,
                                       size_t /*timestamp_len*/, unsigned char* value_found) {
  return KeyMayExist(db, options, FamilyOf(column_family), key, key_len, value, val_len,
                     value_found);
}

rocksdb_pinnableslice_t* rocksdb_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                            const char* key, size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  return GetPinned(db, options, db->rep->DefaultColumnFamily(), key, keylen, errptr);
}

rocksdb_pinnableslice_t* rocksdb_get_pinned_cf(rocksdb_t* db,
                                               const rocksdb_readoptions_t* options,
                                               rocksdb_column_family_handle_t* column_family,
                                               const char* key, size_t keylen, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  return GetPinned(db, options, FamilyOf(column_family), key, keylen, errptr);
}

void rocksdb_pinnableslice_destroy(rocksdb_pinnableslice_t* v) { delete v; }

const char* rocksdb_pinnableslice_value(const rocksdb_pinnableslice_t* t, size_t* vlen) {
  if (t == nullptr) {
    *vlen = 0;
    return nullptr;
  }
  *vlen = t->rep.size();
  return t->rep.data();
}

rocksdb_iterator_t* rocksdb_create_iterator(rocksdb_t* db, const rocksdb_readoptions_t* options) {
  return NewIterator(db, options, db->rep->DefaultColumnFamily(), db->default_prefix_extractor);
}

rocksdb_iterator_t* rocksdb_create_iterator_cf(rocksdb_t* db,
                                               const rocksdb_readoptions_t* options,
                                               rocksdb_column_family_handle_t* column_family) {
  return NewIterator(db, options, FamilyOf(column_family), ExtractorOf(column_family));
}

void rocksdb_create_iterators(rocksdb_t* db, rocksdb_readoptions_t* opts,
                              rocksdb_column_family_handle_t** column_families,
                              rocksdb_iterator_t** iterators, size_t size, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  std::vector<ColumnFamilyHandle*> families;
  families.reserve(size);
  for (size_t i = 0; i < size; i++) families.push_back(FamilyOf(column_families[i]));
  // The iterators share one copy of the bounds, kept alive by each of them.
  auto bounds = std::make_shared<ReadBounds>();
  ReadOptions read_options;
  Status s = ReadOptionsFor(opts, bounds.get(), &read_options);
  if (SaveError(errptr, s)) return;
  std::vector<std::unique_ptr<shale::Iterator>> its;
  s = db->rep->NewIterators(read_options, families, &its);
  if (SaveError(errptr, s)) return;
  for (size_t i = 0; i < size; i++) {
    iterators[i] = new rocksdb_iterator_t;
    iterators[i]->bounds = bounds;
    iterators[i]->rep = std::move(its[i]);
    iterators[i]->pin_keys = opts != nullptr && opts->pin_data;
    ApplyPrefixSameAsStart(opts, ExtractorOf(column_families[i]), iterators[i]);
  }
}

const rocksdb_snapshot_t* rocksdb_create_snapshot(rocksdb_t* db) {
  auto* snapshot = new rocksdb_snapshot_t;
  snapshot->rep = db->rep->GetSnapshot();
  return snapshot;
}

void rocksdb_release_snapshot(rocksdb_t* db, const rocksdb_snapshot_t* snapshot) {
  if (snapshot == nullptr) return;
  db->rep->ReleaseSnapshot(snapshot->rep);
  delete snapshot;
}

uint64_t rocksdb_get_latest_sequence_number(rocksdb_t* db) {
  return db->rep->GetLatestSequenceNumber();
}

}  // extern "C"
