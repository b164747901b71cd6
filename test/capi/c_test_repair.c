/* shale_repair_db: a DB whose CURRENT is lost comes back with its flushed and WAL-only writes;
 * repair is refused while the DB is open (LOCK), for a missing directory (not created) and for
 * NULL arguments. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_test.h"

/* Removes "<db>/lost", where the repair put the WALs it replayed (DestroyDB leaves it, as
 * RocksDB's does); returns how many files it held. */
static int RemoveLost(const char* db) {
  char lost[4096];
  snprintf(lost, sizeof(lost), "%s/lost", db);
  DIR* dir = opendir(lost);
  CHECK(dir != NULL);
  int files = 0;
  struct dirent* entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", lost, entry->d_name);
    CHECK(unlink(path) == 0);
    files++;
  }
  closedir(dir);
  CHECK(rmdir(lost) == 0);
  return files;
}

void TestRepair(void) {
  shale_options_t* options = NewTestOptions();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;

  shale_t* db = OpenOrFail(options, "repair");
  shale_put(db, wo, STR("flushed"), STR("1"), &err);
  CHECK_OK(err);
  FlushOrFail(db);
  shale_put(db, wo, STR("in-wal"), STR("2"), &err);
  CHECK_OK(err);
  /* Refused while open: the LOCK is held. */
  shale_repair_db(options, WorkPath("repair"), &err);
  CHECK_ERROR(err, "LOCK");
  shale_close(db);

  char current[4096];
  snprintf(current, sizeof(current), "%s/CURRENT", WorkPath("repair"));
  CHECK(remove(current) == 0);
  CheckOpenFails(options, "repair", "CURRENT");
  shale_repair_db(options, WorkPath("repair"), &err);
  CHECK_OK(err);
  db = OpenOrFail(options, "repair");
  CheckGet(db, ro, "flushed", "1");
  CheckGet(db, ro, "in-wal", "2");
  shale_close(db);

  /* A missing directory is an error and stays missing. */
  shale_repair_db(options, WorkPath("repair_missing"), &err);
  CHECK_ERROR(err, "repair_missing");
  struct stat st;
  CHECK(stat(WorkPath("repair_missing"), &st) != 0);
  shale_repair_db(options, NULL, &err);
  CHECK_ERROR(err, "name is NULL");
  shale_repair_db(NULL, WorkPath("repair"), &err);
  CHECK_ERROR(err, "options is NULL");

  CHECK(RemoveLost(WorkPath("repair")) >= 1);
  DestroyOrFail("repair");
  shale_writeoptions_destroy(wo);
  shale_readoptions_destroy(ro);
  shale_options_destroy(options);
}
