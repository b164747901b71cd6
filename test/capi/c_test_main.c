/* The C ABI test: runs every part in a fresh temporary directory, which must be empty (every
 * DB destroyed, every file removed) at the end. Usage: c_test [parent directory]. */
#define _POSIX_C_SOURCE 200809L

#include <unistd.h>

#include "c_test.h"

const char* g_work_dir = NULL;

void Fail(const char* file, int line, const char* what, const char* detail) {
  fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, what, detail ? ": " : "",
          detail ? detail : "");
  exit(1);
}

const char* WorkPath(const char* name) {
  static char path[4096];
  snprintf(path, sizeof(path), "%s/%s", g_work_dir, name);
  return path;
}

char* Terminated(const char* data, size_t len) {
  char* copy = malloc(len + 1);
  CHECK(copy != NULL);
  if (len > 0) memcpy(copy, data, len);
  copy[len] = '\0';
  return copy;
}

void RecordProgress(void* arg, const shale_progress_t* progress) {
  ProgressLog* log = (ProgressLog*)arg;
  if (log->finished_reports > 0) log->reports_after_finished++;
  log->reports++;
  if (shale_progress_finished(progress)) log->finished_reports++;
  const uint64_t done = shale_progress_entries_done(progress);
  if (done < log->last_entries_done) log->shrank = 1;
  log->last_entries_done = done;
  const double fraction = shale_progress_fraction(progress);
  if (!(fraction >= 0.0 && fraction <= 1.0)) log->bad_fraction = 1;
  (void)shale_progress_stage(progress);
  (void)shale_progress_bytes_done(progress);
  (void)shale_progress_bytes_total(progress);
  (void)shale_progress_entries_total(progress);
  (void)shale_progress_elapsed_seconds(progress);
  (void)shale_progress_bytes_per_second(progress);
  (void)shale_progress_eta_seconds(progress);
  snprintf(log->operation, sizeof(log->operation), "%s", shale_progress_operation(progress));
}

void CheckProgressLog(const ProgressLog* log, const char* operation) {
  CHECK(log->reports >= 2);
  CHECK(log->finished_reports == 1);
  CHECK(log->reports_after_finished == 0);
  CHECK(!log->shrank);
  CHECK(!log->bad_fraction);
  CHECK(log->last_entries_done > 0);
  CHECK(strcmp(log->operation, operation) == 0);
}

shale_options_t* NewTestOptions(void) {
  shale_options_t* options = shale_options_create();
  shale_options_set_create_if_missing(options, 1);
  shale_options_set_write_buffer_size(options, 4 << 20);
  return options;
}

shale_t* OpenOrFail(const shale_options_t* options, const char* name) {
  char* err = NULL;
  shale_t* db = shale_open(options, WorkPath(name), &err);
  CHECK_OK(err);
  CHECK(db != NULL);
  return db;
}

void CheckOpenFailsAt(const char* file, int line, const shale_options_t* options,
                      const char* name, const char* text) {
  char* err = NULL;
  shale_t* db = shale_open(options, WorkPath(name), &err);
  if (db != NULL) Fail(file, line, "open should have failed with", text);
  if (err == NULL || strstr(err, text) == NULL) Fail(file, line, text, err);
  shale_free(err);
}

void CheckGetAt(const char* file, int line, shale_t* db, const shale_readoptions_t* ro,
                const char* key, const char* expected) {
  char* err = NULL;
  size_t len = 12345;
  char* value = shale_get(db, ro, STR(key), &len, &err);
  if (err != NULL) Fail(file, line, key, err);
  if (expected == NULL) {
    if (value != NULL || len != 0) Fail(file, line, "absent key has a value", key);
    return;
  }
  if (value == NULL) Fail(file, line, "key has no value", key);
  if (len != strlen(expected) || memcmp(value, expected, len) != 0) {
    Fail(file, line, "wrong value for key", key);
  }
  shale_free(value);
}

void DestroyOrFail(const char* name) {
  shale_options_t* options = shale_options_create();
  char* err = NULL;
  shale_destroy_db(options, WorkPath(name), &err);
  CHECK_OK(err);
  shale_options_destroy(options);
}

void FlushOrFail(shale_t* db) {
  shale_flushoptions_t* fo = shale_flushoptions_create();
  shale_flushoptions_set_wait(fo, 1);
  char* err = NULL;
  shale_flush(db, fo, &err);
  CHECK_OK(err);
  shale_flushoptions_destroy(fo);
}

uint64_t IntPropertyAt(const char* file, int line, shale_t* db, const char* name) {
  uint64_t value = 0;
  if (shale_property_int(db, name, &value) != 0) Fail(file, line, "numeric property", name);
  return value;
}

int main(int argc, char** argv) {
  const char* parent = argc > 1 ? argv[1] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/shale_c_test_XXXXXX", parent);
  CHECK(mkdtemp(dir) != NULL);
  g_work_dir = dir;

  TestConventions();
  TestOpenErrors();
  TestOptionSetters();
  TestTableOptions();
  TestOptionsFromString();
  TestColumnFamilyDBOptions();
  TestAvoidFlushDuringShutdown();
  TestWritesAndReads();
  TestWriteBatch();
  TestModel();
  TestSnapshotsAndBounds();
  TestMaintenance();
  TestWalSyncAndFileDeletions();
  TestCompaction();
  TestStatistics();
  TestCorruption();
  TestExternalFiles();
  TestCheckpoint();
  TestBulkLoader();
  TestMerge();
  TestColumnFamilies();
  TestReadOnly();
  TestWalIterator();
  TestCompactionFilter();
  TestSecondary();
  TestRepair();

  if (rmdir(dir) != 0) Fail(__FILE__, __LINE__, "work directory not empty at the end", dir);
  printf("c_test: all checks passed\n");
  return 0;
}
