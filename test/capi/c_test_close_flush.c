/* What shale_close does with the writes in memtables: Options::avoid_flush_during_shutdown
 * (issue 20) through the C ABI. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

#include "c_test.h"

/* Bytes of the WAL files (*.log) in the directory `dir`: what the next open would replay. */
static uint64_t WalBytesIn(const char* dir) {
  uint64_t total = 0;
  DIR* d = opendir(dir);
  CHECK(d != NULL);
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    const size_t len = strlen(entry->d_name);
    if (len < 4 || strcmp(entry->d_name + len - 4, ".log") != 0) continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    total += (uint64_t)st.st_size;
  }
  closedir(d);
  return total;
}

/* avoid_flush_during_shutdown (issue 20): the setter, the getter and the options string reach
 * the field, and shale_close does what it says: by default it leaves no WAL bytes for the next
 * open to replay; with the option set, from the open or by shale_set_db_options on the open
 * DB, the writes stay in the WAL. The writes are there after the reopen either way. */
void TestAvoidFlushDuringShutdown(void) {
  shale_options_t* o = NewTestOptions();
  shale_options_t* parsed = shale_options_create();
  char* err = NULL;
  CHECK(shale_options_get_avoid_flush_during_shutdown(o) == 0);
  shale_options_set_avoid_flush_during_shutdown(o, 2); /* any non-zero value is true */
  CHECK(shale_options_get_avoid_flush_during_shutdown(o) == 1);
  shale_get_options_from_string(o, "avoid_flush_during_shutdown=false", parsed, &err);
  CHECK_OK(err);
  CHECK(shale_options_get_avoid_flush_during_shutdown(parsed) == 0);
  shale_options_destroy(parsed);

  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  /* 0: the option off; 1: on from the open; 2: off at the open, set by shale_set_db_options. */
  for (int mode = 0; mode < 3; mode++) {
    shale_options_set_avoid_flush_during_shutdown(o, mode == 1);
    DestroyOrFail("close_flush");
    shale_t* db = OpenOrFail(o, "close_flush");
    shale_put(db, wo, STR("k"), STR("v"), &err);
    CHECK_OK(err);
    if (mode == 2) {
      const char* keys[] = {"avoid_flush_during_shutdown"};
      const char* values[] = {"true"};
      shale_set_db_options(db, 1, keys, values, &err);
      CHECK_OK(err);
    }
    shale_close(db);
    if (mode == 0) {
      CHECK(WalBytesIn(WorkPath("close_flush")) == 0);
    } else {
      CHECK(WalBytesIn(WorkPath("close_flush")) > 0);
    }
    db = OpenOrFail(o, "close_flush");
    CheckGet(db, ro, "k", "v");
    shale_close(db);
  }
  DestroyOrFail("close_flush");
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_options_destroy(o);
}
