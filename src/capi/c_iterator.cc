// The C ABI of read options and iterators (include/shale/c.h).
#include <memory>
#include <string>

#include "capi/c_handles.h"

using shale::capi::SaveError;
using shale::capi::View;

namespace {

// Stores a copy of [key, key + keylen) as a bound, or clears it when key is NULL.
void SetBound(const char* key, size_t keylen, bool* has_bound, std::string* bound) {
  *has_bound = key != nullptr;
  if (key == nullptr) {
    bound->clear();
  } else {
    bound->assign(key, keylen);
  }
}

}  // namespace

namespace shale::capi {

std::shared_ptr<const shale_iterator_bounds_t> CopyBounds(const shale_readoptions_t* options) {
  auto bounds = std::make_shared<shale_iterator_bounds_t>();
  bounds->has_lower_bound = options->has_lower_bound;
  bounds->has_upper_bound = options->has_upper_bound;
  bounds->lower_bound = options->lower_bound;
  bounds->upper_bound = options->upper_bound;
  bounds->lower_view = bounds->lower_bound;
  bounds->upper_view = bounds->upper_bound;
  return bounds;
}

ReadOptions WithBounds(const shale_readoptions_t* options,
                       const shale_iterator_bounds_t& bounds) {
  ReadOptions read_options = options->rep;
  read_options.iterate_lower_bound = bounds.has_lower_bound ? &bounds.lower_view : nullptr;
  read_options.iterate_upper_bound = bounds.has_upper_bound ? &bounds.upper_view : nullptr;
  return read_options;
}

}  // namespace shale::capi

extern "C" {

shale_readoptions_t* shale_readoptions_create(void) { return new shale_readoptions_t; }

void shale_readoptions_destroy(shale_readoptions_t* options) { delete options; }

void shale_readoptions_set_snapshot(shale_readoptions_t* options,
                                    const shale_snapshot_t* snapshot) {
  options->rep.snapshot = snapshot == nullptr ? nullptr : snapshot->rep;
}

void shale_readoptions_set_verify_checksums(shale_readoptions_t* options, unsigned char v) {
  options->rep.verify_checksums = v != 0;
}

void shale_readoptions_set_fill_cache(shale_readoptions_t* options, unsigned char v) {
  options->rep.fill_cache = v != 0;
}

void shale_readoptions_set_iterate_lower_bound(shale_readoptions_t* options, const char* key,
                                               size_t keylen) {
  SetBound(key, keylen, &options->has_lower_bound, &options->lower_bound);
}

void shale_readoptions_set_iterate_upper_bound(shale_readoptions_t* options, const char* key,
                                               size_t keylen) {
  SetBound(key, keylen, &options->has_upper_bound, &options->upper_bound);
}

// ---------------------------------------------------------------- Iterator

shale_iterator_t* shale_create_iterator(shale_t* db, const shale_readoptions_t* options) {
  auto iter = std::make_unique<shale_iterator_t>();
  iter->bounds = shale::capi::CopyBounds(options);
  iter->rep = db->rep->NewIterator(shale::capi::WithBounds(options, *iter->bounds));
  return iter.release();
}

void shale_iter_destroy(shale_iterator_t* iter) { delete iter; }

unsigned char shale_iter_valid(const shale_iterator_t* iter) {
  return iter->rep->Valid() ? 1 : 0;
}

void shale_iter_seek_to_first(shale_iterator_t* iter) { iter->rep->SeekToFirst(); }

void shale_iter_seek_to_last(shale_iterator_t* iter) { iter->rep->SeekToLast(); }

void shale_iter_seek(shale_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->Seek(View(k, klen));
}

void shale_iter_seek_for_prev(shale_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->SeekForPrev(View(k, klen));
}

void shale_iter_next(shale_iterator_t* iter) {
  if (iter->rep->Valid()) iter->rep->Next();
}

void shale_iter_prev(shale_iterator_t* iter) {
  if (iter->rep->Valid()) iter->rep->Prev();
}

const char* shale_iter_key(const shale_iterator_t* iter, size_t* klen) {
  if (!iter->rep->Valid()) {
    *klen = 0;
    return nullptr;
  }
  const std::string_view key = iter->rep->key();
  *klen = key.size();
  return key.data();
}

const char* shale_iter_value(const shale_iterator_t* iter, size_t* vlen) {
  if (!iter->rep->Valid()) {
    *vlen = 0;
    return nullptr;
  }
  const std::string_view value = iter->rep->value();
  *vlen = value.size();
  return value.data();
}

void shale_iter_get_error(const shale_iterator_t* iter, char** errptr) {
  SaveError(errptr, iter->rep->status());
}

}  // extern "C"
