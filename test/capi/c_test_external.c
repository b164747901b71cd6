/* External table files: SstFileWriter's success and error paths, and ingestion through every
 * IngestExternalFileOptions setter (refusals leave the DB and the file as they were). */
#define _POSIX_C_SOURCE 200809L

#include <unistd.h>

#include "c_test.h"

static int FileExists(const char* path) { return access(path, F_OK) == 0; }

/* A writer over `path`, opened; any error fails the test. */
static shale_sstfilewriter_t* OpenWriter(const shale_options_t* options, const char* path) {
  shale_sstfilewriter_t* writer = shale_sstfilewriter_create(options);
  char* err = NULL;
  shale_sstfilewriter_open(writer, path, &err);
  CHECK_OK(err);
  return writer;
}

static void TestWriterErrors(const shale_options_t* options) {
  char* err = NULL;
  char path[4096];
  snprintf(path, sizeof(path), "%s", WorkPath("bad.sst"));

  /* Out of order: an error naming the key, sticky, and the file is deleted. */
  shale_sstfilewriter_t* writer = OpenWriter(options, path);
  shale_sstfilewriter_put(writer, STR("b"), STR("1"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_put(writer, STR("a"), STR("1"), &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_sstfilewriter_delete(writer, STR("z"), &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_sstfilewriter_finish(writer, &err);
  CHECK_ERROR(err, "Invalid argument");
  CHECK(!FileExists(path));
  shale_sstfilewriter_destroy(writer);

  /* A file with no entries cannot be finished. */
  writer = OpenWriter(options, path);
  shale_sstfilewriter_finish(writer, &err);
  CHECK(err != NULL);
  shale_free(err);
  err = NULL;
  CHECK(!FileExists(path));
  shale_sstfilewriter_destroy(writer);

  /* A second open while a file is open; destroying the writer deletes the unfinished file. */
  writer = OpenWriter(options, path);
  shale_sstfilewriter_put(writer, STR("a"), STR("1"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_open(writer, WorkPath("other.sst"), &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_sstfilewriter_destroy(writer);
  CHECK(!FileExists(path));
  CHECK(!FileExists(WorkPath("other.sst")));
}

void TestExternalFiles(void) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_compression(options, shale_zstd_compression);
  char* err = NULL;
  char path[4096];
  snprintf(path, sizeof(path), "%s", WorkPath("ext.sst"));

  TestWriterErrors(options);

  shale_sstfilewriter_t* writer = OpenWriter(options, path);
  shale_sstfilewriter_put(writer, STR("x1"), STR("one"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_put(writer, STR("x2"), STR("two"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_delete(writer, STR("x3"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_delete_range(writer, STR("y1"), STR("y5"), &err);
  CHECK_OK(err);

  shale_sstfilewriter_finish(writer, &err);
  CHECK_OK(err);
  shale_sstfilewriter_destroy(writer);
  CHECK(FileExists(path));

  shale_t* db = OpenOrFail(options, "db_ingest");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_put(db, wo, STR("x3"), STR("old"), &err);
  CHECK_OK(err);
  shale_put(db, wo, STR("y3"), STR("old"), &err);
  CHECK_OK(err);
  shale_ingestexternalfileoptions_t* io = shale_ingestexternalfileoptions_create();
  shale_ingestexternalfileoptions_set_move_files(io, 1);
  shale_ingestexternalfileoptions_set_snapshot_consistency(io, 1);
  shale_ingestexternalfileoptions_set_allow_blocking_flush(io, 1);
  shale_ingestexternalfileoptions_set_ingest_behind(io, 0);
  shale_ingestexternalfileoptions_set_verify_checksums_before_ingest(io, 1);
  const char* files[1] = {path};
  shale_readoptions_t* ro = shale_readoptions_create();
  /* The file overlaps "x3" in the DB: it needs a sequence number, which is refused here. */
  shale_ingestexternalfileoptions_set_allow_global_seqno(io, 0);
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK(err != NULL && strstr(err, "allow_global_seqno") != NULL);
  shale_free(err);
  err = NULL;
  CHECK(FileExists(path));
  CheckGet(db, ro, "x3", "old");
  /* write_global_seqno is rejected, not ignored. */
  shale_ingestexternalfileoptions_set_allow_global_seqno(io, 1);
  shale_ingestexternalfileoptions_set_write_global_seqno(io, 1);
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK(err != NULL && strstr(err, "write_global_seqno") != NULL);
  shale_free(err);
  err = NULL;
  shale_ingestexternalfileoptions_set_write_global_seqno(io, 0);
  ProgressLog log;
  memset(&log, 0, sizeof(log));
  shale_ingestexternalfileoptions_set_progress(io, RecordProgress, &log, -1.0, &err);
  CHECK_ERROR(err, "progress interval");
  shale_ingestexternalfileoptions_set_progress(io, RecordProgress, &log, 0.0, &err);
  CHECK_OK(err);
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK_OK(err);
  CheckProgressLog(&log, "ingest");
  CHECK(!FileExists(path)); /* moved */
  CheckGet(db, ro, "x1", "one");
  CheckGet(db, ro, "x2", "two");
  CheckGet(db, ro, "x3", NULL);
  CheckGet(db, ro, "y3", NULL); /* the file's range deletion */
  /* A missing file fails either way. */
  const char* missing[2] = {path, WorkPath("missing.sst")};
  shale_ingest_external_file(db, missing, 2, io, &err);
  CHECK(err != NULL);
  shale_free(err);
  err = NULL;

  shale_readoptions_destroy(ro);
  shale_ingestexternalfileoptions_destroy(io);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_ingest");
  if (FileExists(path)) CHECK(unlink(path) == 0);

  /* Ingest behind: the file goes below the DB's own data, which wins where both have a key;
   * refused on a DB opened without allow_ingest_behind. */
  writer = OpenWriter(options, path);
  shale_sstfilewriter_put(writer, STR("b1"), STR("behind"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_put(writer, STR("b2"), STR("behind"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_finish(writer, &err);
  CHECK_OK(err);
  shale_sstfilewriter_destroy(writer);
  io = shale_ingestexternalfileoptions_create();
  shale_ingestexternalfileoptions_set_ingest_behind(io, 1);
  db = OpenOrFail(options, "db_behind_refused");
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK_ERROR(err, "allow_ingest_behind");
  shale_close(db);
  DestroyOrFail("db_behind_refused");
  shale_options_set_allow_ingest_behind(options, 1);
  db = OpenOrFail(options, "db_behind");
  wo = shale_writeoptions_create();
  ro = shale_readoptions_create();
  shale_put(db, wo, STR("b1"), STR("newer"), &err);
  CHECK_OK(err);
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK_OK(err);
  CheckGet(db, ro, "b1", "newer");
  CheckGet(db, ro, "b2", "behind");
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_ingestexternalfileoptions_destroy(io);
  shale_close(db);
  DestroyOrFail("db_behind");
  if (FileExists(path)) CHECK(unlink(path) == 0);

  /* Merge operands in a file apply on top of the DB's value (stringappend joins with ','). */
  shale_mergeoperator_t* append = shale_mergeoperator_create_builtin("stringappend");
  CHECK(append != NULL);
  shale_options_set_merge_operator(options, append);
  shale_mergeoperator_destroy(append);
  writer = OpenWriter(options, path);
  shale_sstfilewriter_merge(writer, STR("m1"), STR("two"), &err);
  CHECK_OK(err);
  shale_sstfilewriter_finish(writer, &err);
  CHECK_OK(err);
  shale_sstfilewriter_destroy(writer);
  db = OpenOrFail(options, "db_merge_file");
  wo = shale_writeoptions_create();
  ro = shale_readoptions_create();
  io = shale_ingestexternalfileoptions_create();
  shale_put(db, wo, STR("m1"), STR("one"), &err);
  CHECK_OK(err);
  shale_ingest_external_file(db, files, 1, io, &err);
  CHECK_OK(err);
  CheckGet(db, ro, "m1", "one,two");
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_ingestexternalfileoptions_destroy(io);
  shale_close(db);
  DestroyOrFail("db_merge_file");
  if (FileExists(path)) CHECK(unlink(path) == 0);
  shale_options_destroy(options);
}
