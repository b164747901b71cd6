// The C ABI of external table files: SstFileWriter and DB::IngestExternalFile
// (include/shale/c.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capi/c_handles.h"

using shale::capi::SaveError;
using shale::capi::View;

extern "C" {

shale_sstfilewriter_t* shale_sstfilewriter_create(const shale_options_t* io_options) {
  const shale::Options& options = io_options->rep;
  const shale::CompressionType compression =
      options.bottommost_compression == shale::kDisableCompressionOption
          ? options.compression
          : options.bottommost_compression;
  return new shale_sstfilewriter_t{std::make_unique<shale::SstFileWriter>(
      options.table_options, compression, options.comparator, options.file_system)};
}

void shale_sstfilewriter_open(shale_sstfilewriter_t* writer, const char* name, char** errptr) {
  SaveError(errptr, writer->rep->Open(name));
}

void shale_sstfilewriter_put(shale_sstfilewriter_t* writer, const char* key, size_t keylen,
                             const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, writer->rep->Put(View(key, keylen), View(val, vallen)));
}

void shale_sstfilewriter_delete(shale_sstfilewriter_t* writer, const char* key, size_t keylen,
                                char** errptr) {
  SaveError(errptr, writer->rep->Delete(View(key, keylen)));
}

void shale_sstfilewriter_merge(shale_sstfilewriter_t* writer, const char* key, size_t keylen,
                               const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, writer->rep->Merge(View(key, keylen), View(val, vallen)));
}

void shale_sstfilewriter_delete_range(shale_sstfilewriter_t* writer, const char* begin_key,
                                      size_t begin_keylen, const char* end_key,
                                      size_t end_keylen, char** errptr) {
  SaveError(errptr,
            writer->rep->DeleteRange(View(begin_key, begin_keylen), View(end_key, end_keylen)));
}

void shale_sstfilewriter_finish(shale_sstfilewriter_t* writer, char** errptr) {
  SaveError(errptr, writer->rep->Finish());
}

void shale_sstfilewriter_destroy(shale_sstfilewriter_t* writer) { delete writer; }

// ---------------------------------------------------------------- Ingestion

shale_ingestexternalfileoptions_t* shale_ingestexternalfileoptions_create(void) {
  return new shale_ingestexternalfileoptions_t;
}

void shale_ingestexternalfileoptions_destroy(shale_ingestexternalfileoptions_t* options) {
  delete options;
}

void shale_ingestexternalfileoptions_set_move_files(shale_ingestexternalfileoptions_t* options,
                                                    unsigned char move_files) {
  options->rep.move_files = move_files != 0;
}

void shale_ingestexternalfileoptions_set_snapshot_consistency(shale_ingestexternalfileoptions_t* options,
    unsigned char snapshot_consistency) {
  options->rep.snapshot_consistency = snapshot_consistency != 0;
}

void shale_ingestexternalfileoptions_set_allow_global_seqno(shale_ingestexternalfileoptions_t* options,
    unsigned char allow_global_seqno) {
  options->rep.allow_global_seqno = allow_global_seqno != 0;
}

void shale_ingestexternalfileoptions_set_allow_blocking_flush(shale_ingestexternalfileoptions_t* options,
    unsigned char allow_blocking_flush) {
  options->rep.allow_blocking_flush = allow_blocking_flush != 0;
}

void shale_ingestexternalfileoptions_set_ingest_behind(shale_ingestexternalfileoptions_t* options,
    unsigned char ingest_behind) {
  options->rep.ingest_behind = ingest_behind != 0;
}

void shale_ingestexternalfileoptions_set_verify_checksums_before_ingest(shale_ingestexternalfileoptions_t* options,
    unsigned char verify_checksums_before_ingest) {
  options->rep.verify_checksums_before_ingest = verify_checksums_before_ingest != 0;
}

void shale_ingestexternalfileoptions_set_write_global_seqno(shale_ingestexternalfileoptions_t* options,
    unsigned char write_global_seqno) {
  options->rep.write_global_seqno = write_global_seqno != 0;
}

void shale_ingestexternalfileoptions_set_progress(shale_ingestexternalfileoptions_t* options,
                                                  shale_progress_callback callback, void* arg,
                                                  double interval_seconds, char** errptr) {
  shale::ProgressCallback progress;
  if (SaveError(errptr, shale::capi::MakeProgressCallback(
                            callback, arg, interval_seconds,
                            "shale_ingestexternalfileoptions_set_progress", &progress))) {
    return;
  }
  options->rep.progress = std::move(progress);
  options->rep.progress_interval_seconds = interval_seconds;
}

void shale_ingest_external_file(shale_t* db, const char* const* file_list, size_t list_len,
                                const shale_ingestexternalfileoptions_t* options,
                                char** errptr) {
  std::vector<std::string> files(file_list, file_list + list_len);
  SaveError(errptr, db->rep->IngestExternalFile(files, options->rep));
}

}  // extern "C"
