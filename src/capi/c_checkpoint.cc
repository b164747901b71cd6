// The C ABI of checkpoints (include/shale/c.h, "Checkpoints"): shale/checkpoint.h's
// Checkpoint behind an opaque handle that borrows its DB.
#include <memory>

#include "capi/c_handles.h"
#include "shale/checkpoint.h"

using shale::capi::SaveError;

struct shale_checkpoint_t {
  std::unique_ptr<shale::Checkpoint> rep;
};

extern "C" {

shale_checkpoint_t* shale_checkpoint_object_create(shale_t* db, char** errptr) {
  std::unique_ptr<shale::Checkpoint> checkpoint;
  if (SaveError(errptr, shale::Checkpoint::Create(db->rep.get(), &checkpoint))) return nullptr;
  return new shale_checkpoint_t{std::move(checkpoint)};
}

void shale_checkpoint_create(shale_checkpoint_t* checkpoint, const char* checkpoint_dir,
                             uint64_t log_size_for_flush, char** errptr) {
  SaveError(errptr, checkpoint->rep->CreateCheckpoint(checkpoint_dir, log_size_for_flush));
}

void shale_checkpoint_create_with_progress(shale_checkpoint_t* checkpoint,
                                           const char* checkpoint_dir,
                                           uint64_t log_size_for_flush,
                                           shale_progress_callback callback, void* arg,
                                           double interval_seconds, char** errptr) {
  shale::CheckpointOptions options;
  options.log_size_for_flush = log_size_for_flush;
  options.progress_interval_seconds = interval_seconds;
  if (SaveError(errptr, shale::capi::MakeProgressCallback(
                            callback, arg, interval_seconds,
                            "shale_checkpoint_create_with_progress", &options.progress))) {
    return;
  }
  SaveError(errptr, checkpoint->rep->CreateCheckpoint(checkpoint_dir, options));
}

void shale_checkpoint_object_destroy(shale_checkpoint_t* checkpoint) { delete checkpoint; }

}  // extern "C"
