// RocksDB's C API, db group: SstFileWriter (shale/sst_file_writer.h), which writes a table file
// outside any DB, and its ingestion into a DB (rocksdb_ingest_external_file*). The writer takes
// the table options, compression, comparator and file system of the options it is created
// with (RocksDB's rule: the comparator argument of ..._create_with_comparator is not used,
// the options' comparator is). User-defined timestamps are not in ShaleDB: the *_with_ts
// functions fail with "Not supported by ShaleDB: <function>".
// Thread-safety: a writer is used by one thread at a time; ingestion as shale::DB.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/comparator.h"
#include "shale/options.h"
#include "shale/sst_file_writer.h"

using shale::Options;
using shale::Status;
using shale::rocksdb_capi::FamilyOf;
using shale::rocksdb_capi::IngestOptionsFor;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::ShaleOptionsFor;
using shale::rocksdb_capi::View;

// Owns the writer; one thread at a time (as shale::SstFileWriter).
//
// RocksDB's writer refuses a point key that does not come after the last one it took with
// InvalidArgument("Keys must be added in strict ascending order.") and goes on; ShaleDB's gives
// the file up. So the order is checked here first (CheckOrder), and ShaleDB's writer only sees
// keys in order. Invariant: has_key iff the writer took a point key; last_key is that key.
struct rocksdb_sstfilewriter_t {
  std::unique_ptr<shale::SstFileWriter> rep;
  const shale::Comparator* comparator = nullptr;  // the options' (never null)
  bool has_key = false;
  std::string last_key;
};

namespace {

// RocksDB's refusal of a point key that is not after the last one; false (error stored) then.
bool CheckOrder(rocksdb_sstfilewriter_t* writer, std::string_view key, char** errptr) {
  if (writer->has_key && writer->comparator->Compare(key, writer->last_key) <= 0) {
    SaveError(errptr, Status::InvalidArgument("Keys must be added in strict ascending order."));
    return false;
  }
  return true;
}

// Stores the status of adding `key` and remembers the key when it was taken.
void AfterAdd(rocksdb_sstfilewriter_t* writer, std::string_view key, const Status& s,
              char** errptr) {
  if (s.ok()) {
    writer->has_key = true;
    writer->last_key.assign(key.data(), key.size());
  }
  SaveError(errptr, s);
}

}  // namespace

extern "C" {

rocksdb_sstfilewriter_t* rocksdb_sstfilewriter_create(const rocksdb_envoptions_t* /*env*/,
                                                      const rocksdb_options_t* io_options) {
  // The options group's mapping (compression_per_level and the like), as a DB would get.
  const Options options = io_options == nullptr ? Options() : ShaleOptionsFor(io_options);
  // The bottommost compression when it is set (an ingested file usually lands at the bottom),
  // else the compression (RocksDB's choice for SstFileWriter).
  const shale::CompressionType compression =
      options.bottommost_compression != shale::kDisableCompressionOption
          ? options.bottommost_compression
          : options.compression;
  auto* writer = new rocksdb_sstfilewriter_t;
  writer->rep = std::make_unique<shale::SstFileWriter>(options.table_options, compression,
                                                       options.comparator, options.file_system);
  writer->comparator =
      options.comparator != nullptr ? options.comparator : shale::BytewiseComparator();
  return writer;
}

rocksdb_sstfilewriter_t* rocksdb_sstfilewriter_create_with_comparator(
    const rocksdb_envoptions_t* env, const rocksdb_options_t* io_options,
    const rocksdb_comparator_t* /*comparator*/) {
  return rocksdb_sstfilewriter_create(env, io_options);
}

void rocksdb_sstfilewriter_open(rocksdb_sstfilewriter_t* writer, const char* name, char** errptr) {
  if (IsNullArgument(writer, "writer", errptr) || IsNullArgument(name, "name", errptr)) return;
  SaveError(errptr, writer->rep->Open(name));
}

void rocksdb_sstfilewriter_add(rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen,
                               const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(writer, "writer", errptr) || !CheckOrder(writer, View(key, keylen), errptr)) {
    return;
  }
  AfterAdd(writer, View(key, keylen), writer->rep->Put(View(key, keylen), View(val, vallen)),
           errptr);
}

void rocksdb_sstfilewriter_put(rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen,
                               const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(writer, "writer", errptr) || !CheckOrder(writer, View(key, keylen), errptr)) {
    return;
  }
  AfterAdd(writer, View(key, keylen), writer->rep->Put(View(key, keylen), View(val, vallen)),
           errptr);
}

void rocksdb_sstfilewriter_put_with_ts(rocksdb_sstfilewriter_t*, const char*, size_t, const char*,
                                       size_t, const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_sstfilewriter_put_with_ts");
}

void rocksdb_sstfilewriter_merge(rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen,
                                 const char* val, size_t vallen, char** errptr) {
  if (IsNullArgument(writer, "writer", errptr) || !CheckOrder(writer, View(key, keylen), errptr)) {
    return;
  }
  AfterAdd(writer, View(key, keylen), writer->rep->Merge(View(key, keylen), View(val, vallen)),
           errptr);
}

void rocksdb_sstfilewriter_delete(rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen,
                                  char** errptr) {
  if (IsNullArgument(writer, "writer", errptr) || !CheckOrder(writer, View(key, keylen), errptr)) {
    return;
  }
  AfterAdd(writer, View(key, keylen), writer->rep->Delete(View(key, keylen)), errptr);
}

void rocksdb_sstfilewriter_delete_with_ts(rocksdb_sstfilewriter_t*, const char*, size_t,
                                          const char*, size_t, char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_sstfilewriter_delete_with_ts");
}

void rocksdb_sstfilewriter_delete_range(rocksdb_sstfilewriter_t* writer, const char* begin_key,
                                        size_t begin_keylen, const char* end_key, size_t end_keylen,
                                        char** errptr) {
  if (IsNullArgument(writer, "writer", errptr)) return;
  SaveError(errptr,
            writer->rep->DeleteRange(View(begin_key, begin_keylen), View(end_key, end_keylen)));
}

void rocksdb_sstfilewriter_finish(rocksdb_sstfilewriter_t* writer, char** errptr) {
  if (IsNullArgument(writer, "writer", errptr)) return;
  SaveError(errptr, writer->rep->Finish(nullptr));
}

void rocksdb_sstfilewriter_file_size(rocksdb_sstfilewriter_t* writer, uint64_t* file_size) {
  *file_size = writer->rep->FileSize();
}

void rocksdb_sstfilewriter_destroy(rocksdb_sstfilewriter_t* writer) { delete writer; }

void rocksdb_ingest_external_file(rocksdb_t* db, const char* const* file_list,
                                  const size_t list_len,
                                  const rocksdb_ingestexternalfileoptions_t* opt, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  std::vector<std::string> files(file_list, file_list + list_len);
  SaveError(errptr, db->rep->IngestExternalFile(db->rep->DefaultColumnFamily(), files,
                                                IngestOptionsFor(opt)));
}

void rocksdb_ingest_external_file_cf(rocksdb_t* db, rocksdb_column_family_handle_t* handle,
                                     const char* const* file_list, const size_t list_len,
                                     const rocksdb_ingestexternalfileoptions_t* opt,
                                     char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  std::vector<std::string> files(file_list, file_list + list_len);
  SaveError(errptr, db->rep->IngestExternalFile(FamilyOf(handle), files, IngestOptionsFor(opt)));
}

}  // extern "C"
