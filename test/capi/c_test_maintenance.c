/* Flush, manual compaction, properties, statistics, and how read errors and checksum
 * verification reach C callers (a damaged table file). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>

#include "c_test.h"

/* Puts keys "k0000".. (count of them) with values of `value_len` bytes. */
static void PutKeys(shale_t* db, int count, size_t value_len) {
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char key[16];
  char* value = malloc(value_len + 1);
  CHECK(value != NULL);
  memset(value, 'v', value_len);
  value[value_len] = '\0';
  char* err = NULL;
  for (int i = 0; i < count; i++) {
    snprintf(key, sizeof(key), "k%04d", i);
    shale_put(db, wo, STR(key), value, value_len, &err);
    CHECK_OK(err);
  }
  free(value);
  shale_writeoptions_destroy(wo);
}

static uint64_t TableFiles(shale_t* db) {
  uint64_t total = 0;
  char name[64];
  for (int level = 0; level < 7; level++) {
    snprintf(name, sizeof(name), "shale.num-files-at-level%d", level);
    total += IntProperty(db, name);
  }
  return total;
}

void TestMaintenance(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_maint");
  shale_readoptions_t* ro = shale_readoptions_create();

  CHECK(TableFiles(db) == 0);
  PutKeys(db, 300, 10);
  CHECK(IntProperty(db, "shale.cur-size-all-mem-tables") > 0);
  FlushOrFail(db);
  CHECK(TableFiles(db) == 1);
  /* The same keys again: the second table overlaps the first. */
  PutKeys(db, 300, 20);
  FlushOrFail(db);
  CHECK(TableFiles(db) == 2);

  /* Text and numeric forms agree. */
  char* text = shale_property_value(db, "shale.num-files-at-level0");
  CHECK(text != NULL);
  char expected[32];
  snprintf(expected, sizeof(expected), "%" PRIu64, IntProperty(db, "shale.num-files-at-level0"));
  CHECK(strcmp(text, expected) == 0);
  shale_free(text);
  CHECK(IntProperty(db, "shale.estimate-num-keys") > 0);
  const char* texts[] = {"shale.stats", "shale.levelstats", "shale.sstables"};
  for (int i = 0; i < 3; i++) {
    text = shale_property_value(db, texts[i]);
    CHECK(text != NULL && strlen(text) > 0);
    shale_free(text);
  }
  /* This program is not linked with jemalloc: the memtables use the malloc fallback. */
  text = shale_property_value(db, "shale.memtable-allocator");
  CHECK(text != NULL && strstr(text, "malloc") != NULL);
  shale_free(text);
  /* Unknown, or not numeric. */
  uint64_t value = 77;
  CHECK(shale_property_value(db, "shale.no-such-property") == NULL);
  CHECK(shale_property_int(db, "shale.no-such-property", &value) == -1);
  CHECK(shale_property_int(db, "shale.stats", &value) == -1);

  /* A bounded manual compaction, then one over everything, which leaves L0 empty and every
   * key readable. */
  shale_compact_range(db, STR("k0100"), STR("k0200"));
  CheckGet(db, ro, "k0150", "vvvvvvvvvvvvvvvvvvvv");
  shale_compact_range(db, NULL, 0, NULL, 0);
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 0);
  CHECK(TableFiles(db) >= 1);
  CheckGet(db, ro, "k0000", "vvvvvvvvvvvvvvvvvvvv");
  CheckGet(db, ro, "k0299", "vvvvvvvvvvvvvvvvvvvv");
  CheckGet(db, ro, "k0300", NULL);

  shale_readoptions_destroy(ro);
  shale_close(db);
  DestroyOrFail("db_maint");
  shale_options_destroy(options);
}

/* Table files in the directory of DB `name`. */
static int TableFilesOnDisk(const char* name) {
  DIR* d = opendir(WorkPath(name));
  CHECK(d != NULL);
  int n = 0;
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    const size_t len = strlen(entry->d_name);
    n += len > 4 && strcmp(entry->d_name + len - 4, ".sst") == 0;
  }
  closedir(d);
  return n;
}

/* shale_flush_wal; the file-deletion switch: a compaction's inputs stay on disk while
 * deletions are disabled and go when they are enabled again; shale_delete_file_in_range. */
void TestWalSyncAndFileDeletions(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_deletions");
  char* err = NULL;
  PutKeys(db, 10, 10);
  shale_flush_wal(db, 1, &err);
  CHECK_OK(err);
  shale_flush_wal(db, 0, &err);
  CHECK_OK(err);

  shale_disable_file_deletions(db, &err);
  CHECK_OK(err);
  shale_disable_file_deletions(db, &err);  /* nested */
  CHECK_OK(err);
  PutKeys(db, 300, 10);
  FlushOrFail(db);
  PutKeys(db, 300, 20);
  FlushOrFail(db);
  shale_compact_range(db, NULL, 0, NULL, 0);
  CHECK((uint64_t)TableFilesOnDisk("db_deletions") > TableFiles(db));
  shale_enable_file_deletions(db, 0, &err);  /* one of two: still disabled */
  CHECK_OK(err);
  CHECK((uint64_t)TableFilesOnDisk("db_deletions") > TableFiles(db));
  shale_enable_file_deletions(db, 1, &err);  /* forced: enabled */
  CHECK_OK(err);
  CHECK((uint64_t)TableFilesOnDisk("db_deletions") == TableFiles(db));

  /* Everything is below L0 after the full compaction: dropping all files drops every key. */
  shale_delete_file_in_range(db, STR("k0100"), STR("k0200"), &err);  /* no file wholly inside */
  CHECK_OK(err);
  CHECK(TableFiles(db) >= 1);
  shale_delete_file_in_range(db, NULL, 0, NULL, 0, &err);
  CHECK_OK(err);
  CHECK(TableFiles(db) == 0);
  CHECK(TableFilesOnDisk("db_deletions") == 0);
  shale_readoptions_t* ro = shale_readoptions_create();
  CheckGet(db, ro, "k0150", NULL);
  shale_readoptions_destroy(ro);
  shale_delete_file_in_range_cf(db, NULL, NULL, 0, NULL, 0, &err);
  CHECK_ERROR(err, "Invalid argument");

  shale_close(db);
  DestroyOrFail("db_deletions");
  shale_options_destroy(options);
}

void TestStatistics(void) {
  shale_options_t* options = NewTestOptions();
  CHECK(shale_options_statistics_get_string(options) == NULL);
  shale_options_enable_statistics(options);
  shale_t* db = OpenOrFail(options, "db_stats");
  PutKeys(db, 3, 10);
  char* text = shale_options_statistics_get_string(options);
  CHECK(text != NULL);
  if (strstr(text, "shale.number.keys.written COUNT : 3\n") == NULL) {
    Fail(__FILE__, __LINE__, "three keys written", text);
  }
  shale_free(text);
  shale_close(db);
  DestroyOrFail("db_stats");
  shale_options_destroy(options);
}

/* The path of the one table file in DB `name` (static buffer). */
static const char* OnlyTableFile(const char* name) {
  char dir[4096];
  static char path[sizeof(dir) + 1 + sizeof(((struct dirent*)0)->d_name)];
  snprintf(dir, sizeof(dir), "%s", WorkPath(name));
  DIR* d = opendir(dir);
  CHECK(d != NULL);
  int found = 0;
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    const size_t len = strlen(entry->d_name);
    if (len > 4 && strcmp(entry->d_name + len - 4, ".sst") == 0) {
      snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
      found++;
    }
  }
  closedir(d);
  CHECK(found == 1);
  return path;
}

void TestCorruption(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_corrupt");
  PutKeys(db, 200, 100);
  FlushOrFail(db);
  /* Intact: verification passes, with progress over the one table file. */
  char* err = NULL;
  shale_verify_checksum(db, &err);
  CHECK_OK(err);
  ProgressLog log;
  memset(&log, 0, sizeof(log));
  shale_verify_checksum_with_progress(db, RecordProgress, &log, -1.0, &err);
  CHECK_ERROR(err, "progress interval");
  CHECK(log.reports == 0);
  shale_verify_checksum_with_progress(db, RecordProgress, &log, 0.0, &err);
  CHECK_OK(err);
  CheckProgressLog(&log, "verify");
  CHECK(log.last_entries_done == 1);
  shale_verify_checksum_with_progress(db, NULL, NULL, 1.0, &err);
  CHECK_OK(err);
  shale_close(db);

  /* Damage the first data block (which holds k0000). */
  const char* table = OnlyTableFile("db_corrupt");
  const char* table_name = strrchr(table, '/') + 1;
  char table_name_copy[256];
  snprintf(table_name_copy, sizeof(table_name_copy), "%s", table_name);
  FILE* f = fopen(table, "r+b");
  CHECK(f != NULL);
  CHECK(fseek(f, 100, SEEK_SET) == 0);
  CHECK(fwrite("XXXXXXXX", 1, 8, f) == 8);
  CHECK(fclose(f) == 0);

  /* Tables are opened lazily, so the DB opens and the damage shows when it is read. */
  shale_options_set_paranoid_checks(options, 0);
  db = OpenOrFail(options, "db_corrupt");
  /* Verification finds it, naming the file. */
  shale_verify_checksum(db, &err);
  CHECK(err != NULL && strstr(err, "Corruption") != NULL && strstr(err, table_name_copy) != NULL);
  shale_free(err);
  err = NULL;
  memset(&log, 0, sizeof(log));
  shale_verify_checksum_with_progress(db, RecordProgress, &log, 0.0, &err);
  CHECK_ERROR(err, "Corruption");
  CHECK(log.finished_reports == 1 && log.reports_after_finished == 0);  /* the final report */
  CHECK(strcmp(log.operation, "verify") == 0);
  shale_readoptions_t* ro = shale_readoptions_create();
  size_t len = 5;
  CHECK(shale_get(db, ro, STR("k0000"), &len, &err) == NULL);
  CHECK(len == 0);
  CHECK_ERROR(err, "Corruption");
  shale_iterator_t* it = shale_create_iterator(db, ro);
  shale_iter_seek_to_first(it);
  CHECK(!shale_iter_valid(it));
  shale_iter_get_error(it, &err);
  CHECK_ERROR(err, "Corruption");
  shale_iter_destroy(it);
  shale_readoptions_destroy(ro);
  shale_close(db);
  DestroyOrFail("db_corrupt");
  shale_options_destroy(options);
}
