// TEMPORARY (issue 24, db group): minimal definitions of the few functions of OTHER groups
// (options, table, batch) that the db group's code and tests call -- the C functions the tests
// use and the helpers declared in db_assumed_shapes_TEMP.h -- so that the db group can be
// tested before the groups are merged. Not the real implementations: each does the least the
// tests need (no refusals of unsupported settings). THE MERGE DELETES THIS FILE (and its line
// in CMakeLists.txt); the owners' files define every one of these names.

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/iterator.h"
#include <string>

#include "shale/options.h"
#include "shale/status.h"

using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::View;

struct rocksdb_envoptions_t {};

namespace shale::rocksdb_capi {

Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                      ReadOptions* out) {
  *out = ReadOptions();
  if (options == nullptr) return Status::OK();
  out->snapshot = options->rep.snapshot;
  out->verify_checksums = options->rep.verify_checksums;
  out->fill_cache = options->rep.fill_cache;
  if (bounds != nullptr && options->has_lower_bound) {
    bounds->lower_ = options->lower_bound;
    bounds->lower_view_ = bounds->lower_;
    out->iterate_lower_bound = &bounds->lower_view_;
  }
  if (bounds != nullptr && options->has_upper_bound) {
    bounds->upper_ = options->upper_bound;
    bounds->upper_view_ = bounds->upper_;
    out->iterate_upper_bound = &bounds->upper_view_;
  }
  return Status::OK();
}
WriteOptions WriteOptionsFor(const rocksdb_writeoptions_t* options) {
  return options == nullptr ? WriteOptions() : options->rep;
}
FlushOptions FlushOptionsFor(const rocksdb_flushoptions_t* options) {
  return options == nullptr ? FlushOptions() : options->rep;
}
Status CompactRangeOptionsFor(const rocksdb_compactoptions_t* options, CompactRangeOptions* out) {
  *out = options == nullptr ? RocksDefaultCompactRangeOptions() : options->rep;
  return Status::OK();
}
IngestExternalFileOptions IngestOptionsFor(const rocksdb_ingestexternalfileoptions_t* options) {
  return options == nullptr ? IngestExternalFileOptions() : options->rep;
}
Status CheckOptionsForOpen(const rocksdb_options_t*, std::string_view) { return Status::OK(); }
shale::Options ShaleOptionsFor(const rocksdb_options_t* options) { return options->rep; }
std::string AcceptedKnobsLogText(const rocksdb_options_t* options) {
  std::string text;
  for (const auto& [name, value] : options->accepted_knobs) {
    text += "RocksDB option " + name + "=" + value + " accepted without effect\n";
  }
  return text;
}

}  // namespace shale::rocksdb_capi

extern "C" {

// ---- options group
rocksdb_options_t* rocksdb_options_create(void) { return new rocksdb_options_t; }
void rocksdb_options_destroy(rocksdb_options_t* o) { delete o; }
void rocksdb_options_set_create_if_missing(rocksdb_options_t* o, unsigned char v) {
  o->rep.create_if_missing = v;
}
void rocksdb_options_set_create_missing_column_families(rocksdb_options_t* o, unsigned char v) {
  o->rep.create_missing_column_families = v;
}
void rocksdb_options_set_error_if_exists(rocksdb_options_t* o, unsigned char v) {
  o->rep.error_if_exists = v;
}
void rocksdb_options_set_write_buffer_size(rocksdb_options_t* o, size_t v) {
  o->rep.write_buffer_size = v;
}
void rocksdb_options_set_table_cache_numshardbits(rocksdb_options_t* o, int v) {
  o->accepted_knobs["table_cache_numshardbits"] = std::to_string(v);  // a knob without effect
}
void rocksdb_options_set_disable_auto_compactions(rocksdb_options_t* o, int v) {
  o->rep.disable_auto_compactions = v != 0;
}
rocksdb_envoptions_t* rocksdb_envoptions_create(void) { return new rocksdb_envoptions_t; }
void rocksdb_envoptions_destroy(rocksdb_envoptions_t* e) { delete e; }

// ---- table group
rocksdb_readoptions_t* rocksdb_readoptions_create(void) { return new rocksdb_readoptions_t; }
void rocksdb_readoptions_destroy(rocksdb_readoptions_t* o) { delete o; }
void rocksdb_readoptions_set_snapshot(rocksdb_readoptions_t* o, const rocksdb_snapshot_t* s) {
  o->rep.snapshot = s == nullptr ? nullptr : s->rep;
}
void rocksdb_readoptions_set_iterate_upper_bound(rocksdb_readoptions_t* o, const char* key,
                                                 size_t keylen) {
  o->has_upper_bound = key != nullptr;
  o->upper_bound.assign(key == nullptr ? "" : key, key == nullptr ? 0 : keylen);
}
void rocksdb_readoptions_set_iterate_lower_bound(rocksdb_readoptions_t* o, const char* key,
                                                 size_t keylen) {
  o->has_lower_bound = key != nullptr;
  o->lower_bound.assign(key == nullptr ? "" : key, key == nullptr ? 0 : keylen);
}
rocksdb_writeoptions_t* rocksdb_writeoptions_create(void) { return new rocksdb_writeoptions_t; }
void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t* o) { delete o; }
rocksdb_flushoptions_t* rocksdb_flushoptions_create(void) { return new rocksdb_flushoptions_t; }
void rocksdb_flushoptions_destroy(rocksdb_flushoptions_t* o) { delete o; }
rocksdb_compactoptions_t* rocksdb_compactoptions_create(void) {
  return new rocksdb_compactoptions_t;
}
void rocksdb_compactoptions_destroy(rocksdb_compactoptions_t* o) { delete o; }
void rocksdb_compactoptions_set_bottommost_level_compaction(rocksdb_compactoptions_t* o,
                                                            unsigned char v) {
  o->bottommost_level_compaction = v;
  o->rep.bottommost_level_compaction =
      v == 0 ? shale::BottommostLevelCompaction::kSkip
             : (v == 1 ? shale::BottommostLevelCompaction::kIfHaveCompactionFilter
                       : (v == 2 ? shale::BottommostLevelCompaction::kForce
                                 : shale::BottommostLevelCompaction::kForceOptimized));
}
rocksdb_ingestexternalfileoptions_t* rocksdb_ingestexternalfileoptions_create(void) {
  return new rocksdb_ingestexternalfileoptions_t;
}
void rocksdb_ingestexternalfileoptions_destroy(rocksdb_ingestexternalfileoptions_t* o) {
  delete o;
}

// ---- batch group
rocksdb_writebatch_t* rocksdb_writebatch_create(void) { return new rocksdb_writebatch_t; }
void rocksdb_writebatch_destroy(rocksdb_writebatch_t* b) { delete b; }
void rocksdb_writebatch_put(rocksdb_writebatch_t* b, const char* key, size_t klen,
                            const char* val, size_t vlen) {
  b->rep.Put(View(key, klen), View(val, vlen)).PermitUncheckedError();
}
void rocksdb_writebatch_put_cf(rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* cf,
                               const char* key, size_t klen, const char* val, size_t vlen) {
  b->rep.Put(cf->rep, View(key, klen), View(val, vlen)).PermitUncheckedError();
}
void rocksdb_writebatch_delete(rocksdb_writebatch_t* b, const char* key, size_t klen) {
  b->rep.Delete(View(key, klen)).PermitUncheckedError();
}
void rocksdb_iter_destroy(rocksdb_iterator_t* it) { delete it; }
unsigned char rocksdb_iter_valid(const rocksdb_iterator_t* it) { return it->rep->Valid(); }
void rocksdb_iter_seek_to_first(rocksdb_iterator_t* it) { it->rep->SeekToFirst(); }
void rocksdb_iter_seek_to_last(rocksdb_iterator_t* it) { it->rep->SeekToLast(); }
void rocksdb_iter_seek(rocksdb_iterator_t* it, const char* k, size_t klen) {
  it->rep->Seek(View(k, klen));
}
void rocksdb_iter_next(rocksdb_iterator_t* it) { it->rep->Next(); }
void rocksdb_iter_prev(rocksdb_iterator_t* it) { it->rep->Prev(); }
const char* rocksdb_iter_key(const rocksdb_iterator_t* it, size_t* klen) {
  *klen = it->rep->key().size();
  return it->rep->key().data();
}
const char* rocksdb_iter_value(const rocksdb_iterator_t* it, size_t* vlen) {
  *vlen = it->rep->value().size();
  return it->rep->value().data();
}
void rocksdb_iter_get_error(const rocksdb_iterator_t* it, char** errptr) {
  SaveError(errptr, it->rep->status());
}

}  // extern "C"
