/* Compaction through the C ABI: the bulk-load preset with a manual compaction that empties L0
 * (shale_compact_range_opt), the compaction properties, change_level, the universal and FIFO
 * styles with their option handles (FIFO's size budget deleting the oldest tables), and
 * disable_auto_compactions switched off at run time. */
#include "c_test.h"

enum { kKeys = 2000, kValueSize = 100 };

static void KeyOf(int i, char* key, size_t size) { snprintf(key, size, "key%05d", i); }

/* The value of key i in write round `round`: "r<round>-<i>" padded with 'x' to kValueSize. */
static void ValueOf(int round, int i, char* value) {
  int n = snprintf(value, kValueSize + 1, "r%d-%d", round, i);
  memset(value + n, 'x', (size_t)(kValueSize - n));
  value[kValueSize] = '\0';
}

/* Puts every key once, in an order (stride 7919, coprime to kKeys) that spreads each memtable
 * over the whole key range, so that each flush overlaps the earlier ones. */
static void PutRound(shale_t* db, int round) {
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char key[16], value[kValueSize + 1];
  char* err = NULL;
  for (int n = 0; n < kKeys; n++) {
    const int i = (int)(((long)n * 7919) % kKeys);
    KeyOf(i, key, sizeof(key));
    ValueOf(round, i, value);
    shale_put(db, wo, STR(key), STR(value), &err);
    CHECK_OK(err);
  }
  shale_writeoptions_destroy(wo);
}

/* Every key holds its value of `round`. */
static void CheckRound(shale_t* db, int round) {
  shale_readoptions_t* ro = shale_readoptions_create();
  char key[16], value[kValueSize + 1];
  for (int i = 0; i < kKeys; i++) {
    KeyOf(i, key, sizeof(key));
    ValueOf(round, i, value);
    CheckGet(db, ro, key, value);
  }
  CheckGet(db, ro, "key", NULL);
  CheckGet(db, ro, "kez", NULL);
  shale_readoptions_destroy(ro);
}

/* Options with 64 KiB memtables, so that one round fills several of them. */
static shale_options_t* SmallBufferOptions(void) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_write_buffer_size(options, 64 << 10);
  return options;
}

/* The bulk-load preset (2 levels, no automatic compaction) with small memtables: every flush
 * after the first overlaps L1 and stays in L0 until a manual compaction over everything. */
static void TestBulkLoadThenCompactRange(void) {
  shale_options_t* options = SmallBufferOptions();
  shale_options_prepare_for_bulk_load(options);
  shale_options_set_write_buffer_size(options, 64 << 10); /* the preset raised it */
  shale_t* db = OpenOrFail(options, "db_bulk");
  PutRound(db, 0);
  FlushOrFail(db);
  PutRound(db, 1);
  FlushOrFail(db);
  CHECK(IntProperty(db, "shale.num-files-at-level0") >= 3);
  /* The compaction properties are numeric; nothing runs and writes are not held back. */
  (void)IntProperty(db, "shale.compaction-pending");
  (void)IntProperty(db, "shale.estimate-pending-compaction-bytes");
  CHECK(IntProperty(db, "shale.num-running-compactions") == 0);
  CHECK(IntProperty(db, "shale.is-write-stopped") == 0);
  CHECK(IntProperty(db, "shale.actual-delayed-write-rate") == 0);
  CheckRound(db, 1);

  shale_compactoptions_t* co = shale_compactoptions_create();
  shale_compactoptions_set_exclusive_manual_compaction(co, 1);
  ProgressLog log;
  memset(&log, 0, sizeof(log));
  char* progress_err = NULL;
  shale_compactoptions_set_progress(co, RecordProgress, &log, -1.0, &progress_err);
  CHECK_ERROR(progress_err, "progress interval");
  shale_compactoptions_set_progress(co, RecordProgress, &log, 0.0, &progress_err);
  CHECK_OK(progress_err);
  shale_compact_range_opt(db, co, NULL, 0, NULL, 0);
  shale_compactoptions_destroy(co);
  CheckProgressLog(&log, "compact_range");
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 0);
  CHECK(IntProperty(db, "shale.num-files-at-level1") >= 1);
  char* text = shale_property_value(db, "shale.num-files-at-level0");
  CHECK(text != NULL && strcmp(text, "0") == 0);
  shale_free(text);
  CHECK(IntProperty(db, "shale.num-running-compactions") == 0);
  CheckRound(db, 1);

  /* Automatic compactions back on, at run time. */
  const char* names[] = {"disable_auto_compactions"};
  const char* values[] = {"false"};
  char* err = NULL;
  shale_set_options(db, 1, names, values, &err);
  CHECK_OK(err);
  shale_close(db);
  db = OpenOrFail(options, "db_bulk");
  CheckRound(db, 1);
  shale_close(db);
  DestroyOrFail("db_bulk");
  shale_options_destroy(options);
}

/* A table alone in the bottom level (L6), rewritten (bottommost: force) and moved to L1 by
 * change_level; an impossible target level leaves the DB as it was. Auto compactions are off
 * so that only these manual ones move files. */
static void TestChangeLevel(void) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_disable_auto_compactions(options, 1);
  shale_t* db = OpenOrFail(options, "db_change_level");
  PutRound(db, 0);
  FlushOrFail(db);
  CHECK(IntProperty(db, "shale.num-files-at-level6") == 1);

  shale_compactoptions_t* co = shale_compactoptions_create();
  shale_compactoptions_set_bottommost_level_compaction(co,
                                                       shale_bottommost_level_compaction_force);
  shale_compactoptions_set_change_level(co, 1);
  shale_compactoptions_set_target_level(co, 1);
  shale_compact_range_opt(db, co, STR("key"), STR("kez"));
  CHECK(IntProperty(db, "shale.num-files-at-level6") == 0);
  /* (Possibly more than one file: a manual compaction is split into subcompactions.) */
  const uint64_t l1_files = IntProperty(db, "shale.num-files-at-level1");
  CHECK(l1_files >= 1);
  CheckRound(db, 0);

  shale_compactoptions_set_target_level(co, 7); /* num_levels is 7: refused, nothing moves */
  shale_compactoptions_set_exclusive_manual_compaction(co, 0);
  shale_compact_range_opt(db, co, NULL, 0, NULL, 0);
  CHECK(IntProperty(db, "shale.num-files-at-level1") == l1_files);
  CHECK(IntProperty(db, "shale.num-files-at-level6") == 0);
  CheckRound(db, 0);
  shale_compactoptions_destroy(co);
  shale_close(db);
  DestroyOrFail("db_change_level");
  shale_options_destroy(options);
}

/* Universal compaction with every knob set: writes, reads, manual compaction and reopen. */
static void TestUniversal(void) {
  shale_options_t* options = SmallBufferOptions();
  shale_options_set_compaction_style(options, shale_universal_compaction);
  shale_options_set_level0_file_num_compaction_trigger(options, 2);
  shale_universal_compaction_options_t* u = shale_universal_compaction_options_create();
  shale_universal_compaction_options_set_size_ratio(u, 10);
  shale_universal_compaction_options_set_min_merge_width(u, 2);
  shale_universal_compaction_options_set_max_merge_width(u, 4);
  shale_universal_compaction_options_set_max_size_amplification_percent(u, 100);
  shale_options_set_universal_compaction_options(options, u);
  shale_universal_compaction_options_destroy(u); /* the options keep a copy */
  shale_t* db = OpenOrFail(options, "db_universal");
  for (int round = 0; round < 3; round++) PutRound(db, round);
  FlushOrFail(db);
  CheckRound(db, 2);
  shale_compact_range(db, NULL, 0, NULL, 0);
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 0);
  CheckRound(db, 2);
  shale_close(db);
  db = OpenOrFail(options, "db_universal");
  CheckRound(db, 2);
  shale_close(db);
  DestroyOrFail("db_universal");
  shale_options_destroy(options);
}

/* FIFO with a ttl and a size budget: the tables beyond the budget are deleted oldest first (by a
 * manual compaction here, automatic compactions being off so that the test is deterministic).
 * Each round's table is about 2000 * 110 bytes = 215 KiB: a 300 KiB budget keeps one. */
static void TestFifo(void) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_compaction_style(options, shale_fifo_compaction);
  shale_options_set_ttl(options, 3600);
  shale_options_set_disable_auto_compactions(options, 1);
  shale_fifo_compaction_options_t* fifo = shale_fifo_compaction_options_create();
  shale_fifo_compaction_options_set_max_table_files_size(fifo, 300 << 10);
  shale_options_set_fifo_compaction_options(options, fifo);
  shale_fifo_compaction_options_destroy(fifo);
  shale_t* db = OpenOrFail(options, "db_fifo");
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_put(db, wo, STR("old"), STR("1"), &err);
  CHECK_OK(err);
  shale_writeoptions_destroy(wo);
  for (int round = 0; round < 3; round++) {
    PutRound(db, round);
    FlushOrFail(db);
  }
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 3);
  CheckGet(db, ro, "old", "1");
  CheckRound(db, 2);

  shale_compact_range(db, NULL, 0, NULL, 0);
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 1);
  CheckGet(db, ro, "old", NULL); /* it was in the oldest table */
  CheckRound(db, 2);
  shale_readoptions_destroy(ro);
  shale_close(db);
  DestroyOrFail("db_fifo");
  shale_options_destroy(options);
}

void TestCompaction(void) {
  TestBulkLoadThenCompactRange();
  TestChangeLevel();
  TestUniversal();
  TestFifo();
}
