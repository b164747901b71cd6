/* Checkpoints: a copy made with a flush (log_size_for_flush 0) and one made by copying the WALs
 * (a large log_size_for_flush) each hold exactly what was written before the call, open as
 * independent DBs, and survive the source being destroyed; an existing target and a missing
 * parent directory are errors. */
#include "c_test.h"

static shale_checkpoint_t* NewCheckpointOrFail(shale_t* db) {
  char* err = NULL;
  shale_checkpoint_t* checkpoint = shale_checkpoint_object_create(db, &err);
  CHECK_OK(err);
  CHECK(checkpoint != NULL);
  return checkpoint;
}

static void PutOrFail(shale_t* db, const char* key, const char* value) {
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  shale_put(db, wo, STR(key), STR(value), &err);
  CHECK_OK(err);
  shale_writeoptions_destroy(wo);
}

static void CheckpointOrFail(shale_checkpoint_t* checkpoint, const char* name,
                             uint64_t log_size_for_flush) {
  char* err = NULL;
  shale_checkpoint_create(checkpoint, WorkPath(name), log_size_for_flush, &err);
  CHECK_OK(err);
}

void TestCheckpoint(void) {
  shale_options_t* options = NewTestOptions();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  shale_t* db = OpenOrFail(options, "db_checkpoint");
  PutOrFail(db, "flushed", "1");
  FlushOrFail(db);
  PutOrFail(db, "in_memtable", "2");

  shale_checkpoint_t* checkpoint = NewCheckpointOrFail(db);
  CheckpointOrFail(checkpoint, "cp_flush", 0);
  PutOrFail(db, "after_first", "3");
  CheckpointOrFail(checkpoint, "cp_wal", (uint64_t)1 << 30);
  PutOrFail(db, "after_second", "4");

  ProgressLog log;
  memset(&log, 0, sizeof(log));
  shale_checkpoint_create_with_progress(checkpoint, WorkPath("cp_progress"), 0, RecordProgress,
                                        &log, -1.0, &err);
  CHECK_ERROR(err, "progress interval");
  shale_checkpoint_create_with_progress(checkpoint, WorkPath("cp_progress"), 0, RecordProgress,
                                        &log, 0.0, &err);
  CHECK_OK(err);
  CheckProgressLog(&log, "checkpoint");
  DestroyOrFail("cp_progress");

  shale_checkpoint_create(checkpoint, WorkPath("cp_flush"), 0, &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_checkpoint_create(checkpoint, WorkPath("no_such_dir/cp"), 0, &err);
  CHECK(err != NULL);
  shale_free(err);
  err = NULL;
  shale_checkpoint_object_destroy(checkpoint);
  shale_close(db);
  DestroyOrFail("db_checkpoint");

  /* Each copy holds what was written before its call, and takes writes of its own. */
  db = OpenOrFail(options, "cp_flush");
  CheckGet(db, ro, "flushed", "1");
  CheckGet(db, ro, "in_memtable", "2");
  CheckGet(db, ro, "after_first", NULL);
  PutOrFail(db, "own", "5");
  CheckGet(db, ro, "own", "5");
  shale_close(db);
  db = OpenOrFail(options, "cp_wal");
  CheckGet(db, ro, "in_memtable", "2");
  CheckGet(db, ro, "after_first", "3");
  CheckGet(db, ro, "after_second", NULL);
  CheckGet(db, ro, "own", NULL);
  shale_close(db);

  DestroyOrFail("cp_flush");
  DestroyOrFail("cp_wal");
  shale_readoptions_destroy(ro);
  shale_options_destroy(options);
}
