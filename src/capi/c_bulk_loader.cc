// The C ABI of the bulk loader (shale_bulkloader_*, include/shale/c.h) over
// shale/bulk_loader.h.
#include <memory>
#include <utility>

#include "capi/c_handles.h"
#include "shale/bulk_loader.h"

struct shale_bulkloader_options_t {
  shale::BulkLoaderOptions rep;
};

struct shale_bulkloader_t {
  std::unique_ptr<shale::BulkLoader> rep;
};

using shale::capi::SaveError;
using shale::capi::View;

extern "C" {

shale_bulkloader_options_t* shale_bulkloader_options_create(void) {
  return new shale_bulkloader_options_t;
}

void shale_bulkloader_options_destroy(shale_bulkloader_options_t* options) { delete options; }

void shale_bulkloader_options_set_memory_budget(shale_bulkloader_options_t* options,
                                                uint64_t bytes) {
  options->rep.memory_budget = bytes;
}

void shale_bulkloader_options_set_column_family(shale_bulkloader_options_t* options,
                                                shale_column_family_handle_t* column_family) {
  options->rep.column_family = column_family == nullptr ? nullptr : column_family->rep;
}

void shale_bulkloader_options_set_threads(shale_bulkloader_options_t* options, int threads) {
  options->rep.threads = threads;
}

void shale_bulkloader_options_set_temp_dir(shale_bulkloader_options_t* options,
                                           const char* dir) {
  options->rep.temp_dir = dir != nullptr ? dir : "";
}

void shale_bulkloader_options_set_target_file_size(shale_bulkloader_options_t* options,
                                                   uint64_t bytes) {
  options->rep.target_file_size = bytes;
}

void shale_bulkloader_options_set_compression(shale_bulkloader_options_t* options,
                                              int compression) {
  options->rep.compression = static_cast<shale::CompressionType>(compression);
}

void shale_bulkloader_options_set_max_open_files(shale_bulkloader_options_t* options,
                                                 int max_open_files) {
  options->rep.max_open_files = max_open_files;
}

void shale_bulkloader_options_set_progress(shale_bulkloader_options_t* options,
                                           shale_progress_callback callback, void* arg,
                                           double interval_seconds, char** errptr) {
  shale::ProgressCallback progress;
  if (SaveError(errptr, shale::capi::MakeProgressCallback(
                            callback, arg, interval_seconds,
                            "shale_bulkloader_options_set_progress", &progress))) {
    return;
  }
  options->rep.progress = std::move(progress);
  options->rep.progress_interval_seconds = interval_seconds;
}

shale_bulkloader_t* shale_bulkloader_create(shale_t* db,
                                            const shale_bulkloader_options_t* options,
                                            char** errptr) {
  std::unique_ptr<shale::BulkLoader> loader;
  if (SaveError(errptr, shale::BulkLoader::Open(db->rep.get(), options->rep, &loader))) {
    return nullptr;
  }
  return new shale_bulkloader_t{std::move(loader)};
}

void shale_bulkloader_add(shale_bulkloader_t* loader, const char* key, size_t keylen,
                          const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, loader->rep->Add(View(key, keylen), View(val, vallen)));
}

void shale_bulkloader_finish(shale_bulkloader_t* loader, char** errptr) {
  SaveError(errptr, loader->rep->Finish());
}

void shale_bulkloader_destroy(shale_bulkloader_t* loader) { delete loader; }

}  // extern "C"
