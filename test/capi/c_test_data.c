/* Writes and reads through the C ABI: point operations, write batches (with their sticky
 * error), snapshots, iterator bounds, and a randomized run against a simple model. */
#include <stdint.h>

#include "c_test.h"

/* Checks that the iterator is at `key` with `value` (value NULL: not checked). */
static void CheckIterAt(const shale_iterator_t* it, const char* key, const char* value) {
  size_t len = 0;
  if (!shale_iter_valid(it)) Fail(__FILE__, __LINE__, "iterator not valid, expected", key);
  const char* k = shale_iter_key(it, &len);
  if (len != strlen(key) || memcmp(k, key, len) != 0) Fail(__FILE__, __LINE__, "at", key);
  if (value != NULL) {
    const char* v = shale_iter_value(it, &len);
    CHECK(len == strlen(value) && memcmp(v, value, len) == 0);
  }
}

static void CheckIterEnd(const shale_iterator_t* it) {
  size_t len = 99;
  CHECK(!shale_iter_valid(it));
  CHECK(shale_iter_key(it, &len) == NULL && len == 0);
  len = 99;
  CHECK(shale_iter_value(it, &len) == NULL && len == 0);
  char* err = Terminated(STR("stale")); /* freed by the call */
  shale_iter_get_error(it, &err);
  CHECK_OK(err);
}

void TestWritesAndReads(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_rw");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;

  shale_put(db, wo, STR("a"), STR("1"), &err);
  CHECK_OK(err);
  shale_put(db, wo, STR("a"), STR("2"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "a", "2");
  /* Absent: NULL, length 0, and no error (a stale message is freed). */
  err = Terminated(STR("stale"));
  size_t len = 7;
  CHECK(shale_get(db, ro, STR("nope"), &len, &err) == NULL);
  CHECK(len == 0);
  CHECK_OK(err);
  /* An empty value is not NULL. */
  shale_put(db, wo, STR("empty"), "", 0, &err);
  CHECK_OK(err);
  char* value = shale_get(db, ro, STR("empty"), &len, &err);
  CHECK_OK(err);
  CHECK(value != NULL && len == 0);
  shale_free(value);
  /* Keys and values are bytes: NUL included. */
  const char bin_key[3] = {'b', '\0', 'k'};
  const char bin_val[4] = {'\0', 'v', '\0', 'x'};
  shale_put(db, wo, bin_key, 3, bin_val, 4, &err);
  CHECK_OK(err);
  value = shale_get(db, ro, bin_key, 3, &len, &err);
  CHECK_OK(err);
  CHECK(value != NULL && len == 4 && memcmp(value, bin_val, 4) == 0);
  shale_free(value);
  CheckGet(db, ro, "b", NULL);

  shale_delete(db, wo, STR("a"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "a", NULL);
  shale_delete(db, wo, STR("never-there"), &err);
  CHECK_OK(err);

  /* Range deletion: [c2, c4). An end before the start is an error. */
  const char* ckeys[] = {"c1", "c2", "c3", "c4"};
  for (int i = 0; i < 4; i++) {
    shale_put(db, wo, STR(ckeys[i]), STR("v"), &err);
    CHECK_OK(err);
  }
  shale_delete_range(db, wo, STR("c2"), STR("c4"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "c1", "v");
  CheckGet(db, ro, "c2", NULL);
  CheckGet(db, ro, "c3", NULL);
  CheckGet(db, ro, "c4", "v");
  shale_delete_range(db, wo, STR("c9"), STR("c1"), &err);
  CHECK_ERROR(err, "Invalid argument");
  CheckGet(db, ro, "c1", "v");

  /* SingleDelete, MultiGet (one value, one absent key), SetOptions, Resume, sizes. */
  shale_put(db, wo, STR("single"), STR("once"), &err);
  CHECK_OK(err);
  shale_singledelete(db, wo, STR("single"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "single", NULL);
  {
    const char* keys[2] = {"c1", "c2"};
    size_t key_sizes[2] = {2, 2};
    char* values[2];
    size_t value_sizes[2];
    char* errs[2];
    shale_multi_get(db, ro, 2, keys, key_sizes, values, value_sizes, errs);
    CHECK(errs[0] == NULL && errs[1] == NULL);
    CHECK(values[0] != NULL && value_sizes[0] == 1 && memcmp(values[0], "v", 1) == 0);
    CHECK(values[1] == NULL && value_sizes[1] == 0);
    shale_free(values[0]);
  }
  {
    const char* names[1] = {"write_buffer_size"};
    const char* good[1] = {"8M"};
    const char* bad[1] = {"not-a-size"};
    const char* fixed[1] = {"num_levels"};
    shale_set_options(db, 1, names, good, &err);
    CHECK_OK(err);
    shale_set_options(db, 1, names, bad, &err);
    CHECK_ERROR(err, "write_buffer_size");
    shale_set_options(db, 1, fixed, good, &err);
    CHECK_ERROR(err, "num_levels");
  }
  shale_resume(db, &err);
  CHECK_OK(err);
  {
    const char* start[1] = {"a"};
    const char* limit[1] = {"z"};
    size_t start_len[1] = {1};
    size_t limit_len[1] = {1};
    uint64_t sizes[1] = {12345};
    shale_approximate_sizes(db, 1, start, start_len, limit, limit_len, sizes, &err);
    CHECK_OK(err);
    CHECK(sizes[0] == 0); /* everything is still in the memtable */
  }

  /* A synced write and a write without the WAL both survive a clean close. */
  shale_writeoptions_set_sync(wo, 1);
  shale_put(db, wo, STR("synced"), STR("s"), &err);
  CHECK_OK(err);
  shale_writeoptions_set_sync(wo, 0);
  shale_writeoptions_disable_WAL(wo, 1);
  shale_put(db, wo, STR("no-wal"), STR("w"), &err);
  CHECK_OK(err);
  shale_writeoptions_disable_WAL(wo, 0);
  shale_close(db);
  db = OpenOrFail(options, "db_rw");
  CheckGet(db, ro, "synced", "s");
  CheckGet(db, ro, "no-wal", "w");
  CheckGet(db, ro, "c4", "v");
  CheckGet(db, ro, "c3", NULL);

  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_rw");
  shale_options_destroy(options);
}

void TestWriteBatch(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_batch");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writebatch_t* batch = shale_writebatch_create();
  char* err = NULL;

  shale_put(db, wo, STR("old"), STR("x"), &err);
  CHECK_OK(err);
  for (int i = 0; i < 3; i++) {
    shale_put(db, wo, STR(i == 0 ? "r1" : i == 1 ? "r2" : "r3"), STR("x"), &err);
    CHECK_OK(err);
  }
  CHECK(shale_writebatch_count(batch) == 0);
  shale_writebatch_put(batch, STR("k1"), STR("v1"));
  shale_writebatch_put(batch, STR("k2"), STR("v2"));
  shale_writebatch_put(batch, STR("k1"), STR("v1b")); /* later records win */
  shale_writebatch_delete(batch, STR("old"));
  shale_writebatch_delete_range(batch, STR("r1"), STR("r3"));
  CHECK(shale_writebatch_count(batch) == 5);
  CheckGet(db, ro, "k1", NULL); /* nothing is written before shale_write */
  shale_write(db, wo, batch, &err);
  CHECK_OK(err);
  CheckGet(db, ro, "k1", "v1b");
  CheckGet(db, ro, "k2", "v2");
  CheckGet(db, ro, "old", NULL);
  CheckGet(db, ro, "r1", NULL);
  CheckGet(db, ro, "r2", NULL);
  CheckGet(db, ro, "r3", "x");

  shale_writebatch_clear(batch);
  CHECK(shale_writebatch_count(batch) == 0);
  shale_write(db, wo, batch, &err); /* an empty batch is fine */
  CHECK_OK(err);

  {
    /* A key one byte over SHALE_MAX_KEY_SIZE is refused without being read (the batch checks
     * sizes first): the batch keeps the error and shale_write fails with it, writing nothing
     * of the batch. */
    const size_t huge = SHALE_MAX_KEY_SIZE + 1;
    shale_writebatch_put(batch, STR("before"), STR("b"));
    shale_writebatch_put(batch, "k", huge, STR("v"));
    shale_writebatch_delete(batch, "k", huge);
    shale_writebatch_delete_range(batch, "k", huge, STR("z"));
    CHECK(shale_writebatch_count(batch) == 1);
    shale_write(db, wo, batch, &err);
    CHECK_ERROR(err, "is too large");
    CheckGet(db, ro, "before", NULL);
    shale_put(db, wo, "k", huge, STR("v"), &err); /* the same for a single Put */
    CHECK_ERROR(err, "is too large");
    shale_writebatch_clear(batch);
    shale_writebatch_put(batch, STR("after"), STR("a"));
    shale_write(db, wo, batch, &err);
    CHECK_OK(err);
    CheckGet(db, ro, "after", "a");
  }

  shale_writebatch_destroy(batch);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_batch");
  shale_options_destroy(options);
}

/* ---------------------------------------------------------------- Randomized model */

enum { kModelKeys = 48 };

/* The model: the value of key i, or NULL. */
static char* g_model[kModelKeys];
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint32_t Rand(uint32_t n) {
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g_rng >> 33) % n;
}

static void ModelKey(int i, char* buf) { snprintf(buf, 8, "key%02d", i); }

static void ModelSet(int i, const char* value) {
  free(g_model[i]);
  g_model[i] = value == NULL ? NULL : Terminated(STR(value));
}

/* Scans the whole DB forwards and backwards and seeks at random, comparing with the model. */
static void CheckAgainstModel(shale_t* db) {
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_iterator_t* it = shale_create_iterator(db, ro);
  shale_readoptions_destroy(ro);
  char key[8];
  shale_iter_seek_to_first(it);
  for (int i = 0; i < kModelKeys; i++) {
    if (g_model[i] == NULL) continue;
    ModelKey(i, key);
    CheckIterAt(it, key, g_model[i]);
    shale_iter_next(it);
  }
  CheckIterEnd(it);
  shale_iter_seek_to_last(it);
  for (int i = kModelKeys - 1; i >= 0; i--) {
    if (g_model[i] == NULL) continue;
    ModelKey(i, key);
    CheckIterAt(it, key, g_model[i]);
    shale_iter_prev(it);
  }
  CheckIterEnd(it);
  for (int n = 0; n < 20; n++) {
    const int target = (int)Rand(kModelKeys);
    ModelKey(target, key);
    int at = target;
    while (at < kModelKeys && g_model[at] == NULL) at++;
    shale_iter_seek(it, STR(key));
    if (at == kModelKeys) {
      CheckIterEnd(it);
    } else {
      char expected[8];
      ModelKey(at, expected);
      CheckIterAt(it, expected, g_model[at]);
    }
    at = target;
    while (at >= 0 && g_model[at] == NULL) at--;
    shale_iter_seek_for_prev(it, STR(key));
    if (at < 0) {
      CheckIterEnd(it);
    } else {
      char expected[8];
      ModelKey(at, expected);
      CheckIterAt(it, expected, g_model[at]);
    }
  }
  shale_iter_destroy(it);
}

/* One random update, applied to the DB (directly or through `batch`) and to the model. */
static void RandomUpdate(shale_t* db, const shale_writeoptions_t* wo, shale_writebatch_t* batch,
                         int step) {
  char key[8], end[8], value[32];
  const int i = (int)Rand(kModelKeys);
  ModelKey(i, key);
  char* err = NULL;
  const uint32_t kind = Rand(10);
  if (kind < 6) {
    snprintf(value, sizeof(value), "v%d-%u", step, Rand(1000));
    if (batch) shale_writebatch_put(batch, STR(key), STR(value));
    else shale_put(db, wo, STR(key), STR(value), &err);
    ModelSet(i, value);
  } else if (kind < 9) {
    if (batch) shale_writebatch_delete(batch, STR(key));
    else shale_delete(db, wo, STR(key), &err);
    ModelSet(i, NULL);
  } else {
    const int j = i + (int)Rand(6);
    ModelKey(j, end); /* may be "key48".."key52": past every key, still a valid bound */
    if (batch) shale_writebatch_delete_range(batch, STR(key), STR(end));
    else shale_delete_range(db, wo, STR(key), STR(end), &err);
    for (int k = i; k < j && k < kModelKeys; k++) ModelSet(k, NULL);
  }
  CHECK_OK(err);
}

void TestModel(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_model");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_flushoptions_t* fo = shale_flushoptions_create();
  shale_writebatch_t* batch = shale_writebatch_create();
  char* err = NULL;
  char key[8];
  for (int step = 0; step < 3000; step++) {
    const uint32_t op = Rand(100);
    if (op < 60) {
      RandomUpdate(db, wo, NULL, step);
    } else if (op < 75) {
      shale_writebatch_clear(batch);
      for (int n = (int)Rand(4); n >= 0; n--) RandomUpdate(db, wo, batch, step);
      shale_write(db, wo, batch, &err);
      CHECK_OK(err);
    } else if (op < 97) {
      const int i = (int)Rand(kModelKeys);
      ModelKey(i, key);
      CheckGet(db, ro, key, g_model[i]);
    } else if (op < 99) {
      shale_flushoptions_set_wait(fo, (unsigned char)Rand(2));
      shale_flush(db, fo, &err);
      CHECK_OK(err);
    } else {
      shale_close(db); /* recovery from the WAL and the tables */
      db = OpenOrFail(options, "db_model");
    }
    if (step % 250 == 0) CheckAgainstModel(db);
  }
  CheckAgainstModel(db);
  for (int i = 0; i < kModelKeys; i++) ModelSet(i, NULL);
  shale_writebatch_destroy(batch);
  shale_flushoptions_destroy(fo);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_model");
  shale_options_destroy(options);
}

/* ---------------------------------------------------------------- Snapshots and bounds */

void TestSnapshotsAndBounds(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_snap");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  const char* keys[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; i++) {
    shale_put(db, wo, STR(keys[i]), STR("1"), &err);
    CHECK_OK(err);
  }
  const shale_snapshot_t* snap = shale_create_snapshot(db);
  shale_put(db, wo, STR("a"), STR("2"), &err);
  CHECK_OK(err);
  shale_delete(db, wo, STR("b"), &err);
  CHECK_OK(err);
  shale_put(db, wo, STR("e"), STR("1"), &err);
  CHECK_OK(err);

  /* As of the snapshot. */
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_readoptions_set_snapshot(ro, snap);
  shale_readoptions_set_verify_checksums(ro, 1);
  shale_readoptions_set_fill_cache(ro, 0);
  CheckGet(db, ro, "a", "1");
  CheckGet(db, ro, "b", "1");
  CheckGet(db, ro, "e", NULL);
  shale_iterator_t* it = shale_create_iterator(db, ro);
  CHECK(!shale_iter_valid(it)); /* not positioned yet */
  shale_iter_next(it);          /* no-ops when not valid */
  shale_iter_prev(it);
  shale_iter_seek_to_first(it);
  for (int i = 0; i < 4; i++) {
    CheckIterAt(it, keys[i], "1");
    shale_iter_next(it);
  }
  CheckIterEnd(it);
  shale_iter_destroy(it);

  /* Now (snapshot NULL). */
  shale_readoptions_set_snapshot(ro, NULL);
  CheckGet(db, ro, "a", "2");
  CheckGet(db, ro, "b", NULL);
  CheckGet(db, ro, "e", "1");
  shale_release_snapshot(db, snap);

  /* Bounds [b, d): the iterator keeps its own copy, so the read options may go first. */
  char lower[2] = "b", upper[2] = "d";
  shale_readoptions_set_iterate_lower_bound(ro, lower, 1);
  shale_readoptions_set_iterate_upper_bound(ro, upper, 1);
  lower[0] = upper[0] = 'z'; /* the options copied the bytes too */
  it = shale_create_iterator(db, ro);
  shale_readoptions_destroy(ro);
  shale_iter_seek_to_first(it);
  CheckIterAt(it, "c", "1");
  shale_iter_next(it);
  CheckIterEnd(it);
  shale_iter_seek_to_last(it);
  CheckIterAt(it, "c", "1");
  shale_iter_prev(it);
  CheckIterEnd(it);
  shale_iter_seek(it, STR("a"));
  CheckIterAt(it, "c", NULL);
  shale_iter_seek_for_prev(it, STR("z"));
  CheckIterAt(it, "c", NULL);
  shale_iter_destroy(it);

  /* A NULL key removes a bound. */
  ro = shale_readoptions_create();
  shale_readoptions_set_iterate_lower_bound(ro, STR("b"));
  shale_readoptions_set_iterate_upper_bound(ro, STR("d"));
  shale_readoptions_set_iterate_lower_bound(ro, NULL, 0);
  it = shale_create_iterator(db, ro);
  shale_iter_seek_to_first(it);
  CheckIterAt(it, "a", "2");
  shale_iter_seek_to_last(it);
  CheckIterAt(it, "c", "1");
  shale_iter_destroy(it);
  shale_readoptions_set_iterate_upper_bound(ro, NULL, 0);
  it = shale_create_iterator(db, ro);
  shale_iter_seek_to_last(it);
  CheckIterAt(it, "e", "1");
  shale_iter_destroy(it);

  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_snap");
  shale_options_destroy(options);
}
