// RocksDB's C API, db group: checkpoints (shale/checkpoint.h): an openable copy of a live DB in
// another directory, table files hard-linked where possible.
// Thread-safety: as shale::Checkpoint (CreateCheckpoint from any thread; one directory per
// call).
#include <memory>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/checkpoint.h"

using shale::Status;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::SaveError;

// Owns the checkpoint object, which borrows the DB (the DB must outlive it).
struct rocksdb_checkpoint_t {
  std::unique_ptr<shale::Checkpoint> rep;
};

extern "C" {

rocksdb_checkpoint_t* rocksdb_checkpoint_object_create(rocksdb_t* db, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  std::unique_ptr<shale::Checkpoint> checkpoint;
  if (SaveError(errptr, shale::Checkpoint::Create(db->rep.get(), &checkpoint))) return nullptr;
  auto* out = new rocksdb_checkpoint_t;
  out->rep = std::move(checkpoint);
  return out;
}

void rocksdb_checkpoint_create(rocksdb_checkpoint_t* checkpoint, const char* checkpoint_dir,
                               uint64_t log_size_for_flush, char** errptr) {
  if (IsNullArgument(checkpoint, "checkpoint", errptr) ||
      IsNullArgument(checkpoint_dir, "checkpoint_dir", errptr)) {
    return;
  }
  SaveError(errptr, checkpoint->rep->CreateCheckpoint(checkpoint_dir, log_size_for_flush));
}

void rocksdb_checkpoint_object_destroy(rocksdb_checkpoint_t* checkpoint) { delete checkpoint; }

}  // extern "C"
