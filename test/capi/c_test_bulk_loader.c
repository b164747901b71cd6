/* The bulk loader: keys added out of order with duplicates (the last value wins), under a
 * budget small enough that runs are spilled, end up in the DB exactly, and the temporary
 * directory is gone afterwards; a second finish and an add after finish are errors; bad options
 * and a temporary directory that cannot be made fail create; a destroyed, unfinished loader
 * leaves no files behind. */
#define _POSIX_C_SOURCE 200809L

#include <unistd.h>

#include "c_test.h"

enum { kKeys = 3000, kRounds = 3 };

static int PathExists(const char* path) { return access(path, F_OK) == 0; }

/* A permutation of key numbers: i * 7 mod kKeys (7 and 3000 are coprime). */
static int KeyNumber(int i) { return (int)(((long)i * 7) % kKeys); }

static shale_bulkloader_t* CreateOrFail(shale_t* db, const shale_bulkloader_options_t* options) {
  char* err = NULL;
  shale_bulkloader_t* loader = shale_bulkloader_create(db, options, &err);
  CHECK_OK(err);
  CHECK(loader != NULL);
  return loader;
}

/* Adds every key kRounds times, in a scrambled order; round r's value is "v<key>-<r>". */
static void AddAll(shale_bulkloader_t* loader) {
  char key[32], value[32];
  char* err = NULL;
  for (int r = 0; r < kRounds; r++) {
    for (int i = 0; i < kKeys; i++) {
      const int k = KeyNumber(i);
      snprintf(key, sizeof(key), "k%05d", k);
      snprintf(value, sizeof(value), "v%05d-%d", k, r);
      shale_bulkloader_add(loader, STR(key), STR(value), &err);
      CHECK_OK(err);
    }
  }
}

/* Every key holds its last round's value, and nothing else is in the DB. */
static void CheckLoaded(shale_t* db) {
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_iterator_t* it = shale_create_iterator(db, ro);
  char expected_key[32], expected_value[32];
  int n = 0;
  for (shale_iter_seek_to_first(it); shale_iter_valid(it); shale_iter_next(it), n++) {
    CHECK(n < kKeys);
    snprintf(expected_key, sizeof(expected_key), "k%05d", n);
    snprintf(expected_value, sizeof(expected_value), "v%05d-%d", n, kRounds - 1);
    size_t klen = 0, vlen = 0;
    const char* k = shale_iter_key(it, &klen);
    const char* v = shale_iter_value(it, &vlen);
    CHECK(klen == strlen(expected_key) && memcmp(k, expected_key, klen) == 0);
    CHECK(vlen == strlen(expected_value) && memcmp(v, expected_value, vlen) == 0);
  }
  CHECK(n == kKeys);
  char* err = NULL;
  shale_iter_get_error(it, &err);
  CHECK_OK(err);
  shale_iter_destroy(it);
  shale_readoptions_destroy(ro);
}

static void TestBadOptions(shale_t* db) {
  char* err = NULL;
  shale_bulkloader_options_t* options = shale_bulkloader_options_create();
  shale_bulkloader_options_set_memory_budget(options, 1000);
  CHECK(shale_bulkloader_create(db, options, &err) == NULL);
  CHECK_ERROR(err, "memory_budget");
  shale_bulkloader_options_set_memory_budget(options, 1 << 20);
  shale_bulkloader_options_set_compression(options, 3); /* bzip2: not built */
  CHECK(shale_bulkloader_create(db, options, &err) == NULL);
  CHECK_ERROR(err, "compression");
  shale_bulkloader_options_set_compression(options, 0xff);
  shale_bulkloader_options_set_max_open_files(options, 2);
  CHECK(shale_bulkloader_create(db, options, &err) == NULL);
  CHECK_ERROR(err, "max_open_files");
  shale_bulkloader_options_set_max_open_files(options, 0);
  /* A temporary directory under a regular file cannot be made. */
  char file[4096];
  snprintf(file, sizeof(file), "%s", WorkPath("plain_file"));
  FILE* f = fopen(file, "w");
  CHECK(f != NULL);
  fclose(f);
  char dir[4096 + 8];
  snprintf(dir, sizeof(dir), "%s/tmp", file);
  shale_bulkloader_options_set_temp_dir(options, dir);
  CHECK(shale_bulkloader_create(db, options, &err) == NULL);
  CHECK(err != NULL);
  shale_free(err);
  CHECK(unlink(file) == 0);
  shale_bulkloader_options_destroy(options);
}

void TestBulkLoader(void) {
  shale_options_t* db_options = NewTestOptions();
  shale_t* db = OpenOrFail(db_options, "db_bulk");
  char* err = NULL;
  char temp_dir[4096];
  snprintf(temp_dir, sizeof(temp_dir), "%s", WorkPath("bulk_tmp"));

  shale_bulkloader_options_t* options = shale_bulkloader_options_create();
  shale_bulkloader_options_set_memory_budget(options, 64 << 10); /* spills several runs */
  shale_bulkloader_options_set_threads(options, 2);
  shale_bulkloader_options_set_temp_dir(options, temp_dir);
  shale_bulkloader_options_set_target_file_size(options, 32 << 10);
  shale_bulkloader_options_set_compression(options, shale_zstd_compression);
  shale_bulkloader_options_set_max_open_files(options, 4); /* merges the runs in passes */

  ProgressLog log;
  memset(&log, 0, sizeof(log));
  shale_bulkloader_options_set_progress(options, RecordProgress, &log, 0.0, &err);
  CHECK_OK(err);
  shale_bulkloader_t* loader = CreateOrFail(db, options);
  CHECK(PathExists(temp_dir));
  AddAll(loader);
  shale_bulkloader_finish(loader, &err);
  CHECK_OK(err);
  CheckProgressLog(&log, "bulk_load");
  shale_bulkloader_options_set_progress(options, NULL, NULL, 0.0, &err); /* no reports */
  CHECK_OK(err);
  CHECK(!PathExists(temp_dir));
  shale_bulkloader_finish(loader, &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_bulkloader_add(loader, STR("late"), STR("x"), &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_bulkloader_destroy(loader);
  CheckLoaded(db);

  /* An abandoned load leaves nothing behind, spilled runs included. */
  loader = CreateOrFail(db, options);
  AddAll(loader);
  shale_bulkloader_destroy(loader);
  CHECK(!PathExists(temp_dir));
  CheckLoaded(db);

  TestBadOptions(db);
  shale_bulkloader_options_destroy(options);
  shale_close(db);
  DestroyOrFail("db_bulk");
  shale_options_destroy(db_options);
}
