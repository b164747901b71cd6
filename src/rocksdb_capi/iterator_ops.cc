// rocksdb_iter_*: the moves and reads of an iterator handle (rocksdb_iterator_t, made by
// rocksdb_create_iterator* or rocksdb_writebatch_wi_create_iterator_with_base*), over its
// shale::Iterator `rep`. key/value pointers stay valid until the iterator next moves or is
// destroyed (shale/iterator.h), as RocksDB documents.
//
// As in RocksDB, next/prev/key/value REQUIRE a valid iterator; the shale iterator asserts it in
// debug builds.
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator.h"

extern "C" {

void rocksdb_iter_destroy(rocksdb_iterator_t* iter) { delete iter; }

unsigned char rocksdb_iter_valid(const rocksdb_iterator_t* iter) { return iter->rep->Valid(); }

void rocksdb_iter_seek_to_first(rocksdb_iterator_t* iter) { iter->rep->SeekToFirst(); }

void rocksdb_iter_seek_to_last(rocksdb_iterator_t* iter) { iter->rep->SeekToLast(); }

void rocksdb_iter_seek(rocksdb_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->Seek(shale::rocksdb_capi::View(k, klen));
}

void rocksdb_iter_seek_for_prev(rocksdb_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->SeekForPrev(shale::rocksdb_capi::View(k, klen));
}

void rocksdb_iter_next(rocksdb_iterator_t* iter) { iter->rep->Next(); }

void rocksdb_iter_prev(rocksdb_iterator_t* iter) { iter->rep->Prev(); }

const char* rocksdb_iter_key(const rocksdb_iterator_t* iter, size_t* klen) {
  std::string_view key = iter->rep->key();
  *klen = key.size();
  if (iter->pin_keys) return iter->pinned_keys.emplace_back(key).data();
  return key.data();
}

const char* rocksdb_iter_value(const rocksdb_iterator_t* iter, size_t* vlen) {
  std::string_view value = iter->rep->value();
  *vlen = value.size();
  return value.data();
}

// ShaleDB has no user-defined timestamps: every key's timestamp is empty, which is what
// RocksDB returns for a family without them.
const char* rocksdb_iter_timestamp(const rocksdb_iterator_t*, size_t* tslen) {
  *tslen = 0;
  return "";
}

void rocksdb_iter_get_error(const rocksdb_iterator_t* iter, char** errptr) {
  shale::rocksdb_capi::SaveError(errptr, iter->rep->status());
}

}  // extern "C"
