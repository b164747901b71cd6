/* Column families through the C ABI: creating, listing, opening with and dropping families;
 * every _cf read, write, batch and maintenance call kept apart per family; iterators over
 * several families at one sequence number; and the NULL-handle errors of c.h. */
#define _POSIX_C_SOURCE 200809L

#include <unistd.h>

#include "c_test.h"

/* Checks that `key` in `cf` holds `expected` (NULL: absent). */
#define CheckGetCf(db, ro, cf, key, expected) \
  CheckGetCfAt(__LINE__, (db), (ro), (cf), (key), (expected))
static void CheckGetCfAt(int line, shale_t* db, const shale_readoptions_t* ro,
                         shale_column_family_handle_t* cf, const char* key,
                         const char* expected) {
  char* err = NULL;
  size_t len = 12345;
  char* value = shale_get_cf(db, ro, cf, STR(key), &len, &err);
  if (err != NULL) Fail(__FILE__, line, key, err);
  if (expected == NULL) {
    if (value != NULL || len != 0) Fail(__FILE__, line, "absent key has a value", key);
    return;
  }
  if (value == NULL) Fail(__FILE__, line, "key has no value", key);
  if (len != strlen(expected) || memcmp(value, expected, len) != 0) {
    Fail(__FILE__, line, "wrong value for key", key);
  }
  shale_free(value);
}

/* The keys of an iterator from its first to its last, joined with ',' into `out`. */
static void Keys(shale_iterator_t* it, char* out, size_t size) {
  out[0] = '\0';
  for (shale_iter_seek_to_first(it); shale_iter_valid(it); shale_iter_next(it)) {
    size_t len = 0;
    const char* key = shale_iter_key(it, &len);
    if (out[0] != '\0') strncat(out, ",", size - strlen(out) - 1);
    strncat(out, key, len < size - strlen(out) - 1 ? len : size - strlen(out) - 1);
  }
  char* err = NULL;
  shale_iter_get_error(it, &err);
  CHECK_OK(err);
}

/* The names of the DB's families, joined with ','. */
static void ListNames(const shale_options_t* options, const char* name, char* out,
                      size_t size) {
  char* err = NULL;
  size_t count = 99;
  char** names = shale_list_column_families(options, WorkPath(name), &count, &err);
  CHECK_OK(err);
  CHECK(names != NULL);
  out[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    if (i > 0) strncat(out, ",", size - strlen(out) - 1);
    strncat(out, names[i], size - strlen(out) - 1);
  }
  shale_list_column_families_destroy(names, count);
}

/* The table files of every level of `cf`. */
static uint64_t TotalFiles(shale_t* db, shale_column_family_handle_t* cf) {
  uint64_t total = 0;
  for (int level = 0; level < 7; level++) {
    char name[64];
    snprintf(name, sizeof(name), "shale.num-files-at-level%d", level);
    uint64_t files = 0;
    CHECK(shale_property_int_cf(db, cf, name, &files) == 0);
    total += files;
  }
  return total;
}

static uint64_t Level0Files(shale_t* db, shale_column_family_handle_t* cf) {
  uint64_t files = 0;
  CHECK(shale_property_int_cf(db, cf, "shale.num-files-at-level0", &files) == 0);
  return files;
}

static void CheckHandle(shale_column_family_handle_t* cf, const char* name) {
  size_t len = 0;
  char* got = shale_column_family_handle_get_name(cf, &len);
  CHECK(got != NULL && len == strlen(name) && memcmp(got, name, len) == 0);
  CHECK(got[len] == '\0');
  shale_free(got);
}

static void TestNullHandles(shale_t* db, shale_writeoptions_t* wo, shale_readoptions_t* ro) {
  char* err = NULL;
  size_t len = 7;
  shale_put_cf(db, wo, NULL, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_delete_cf(db, wo, NULL, STR("k"), &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_singledelete_cf(db, wo, NULL, STR("k"), &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_delete_range_cf(db, wo, NULL, STR("a"), STR("b"), &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_merge_cf(db, wo, NULL, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  CHECK(shale_get_cf(db, ro, NULL, STR("k"), &len, &err) == NULL);
  CHECK(len == 0);
  CHECK_ERROR(err, "Invalid argument: column_family: NULL handle");
  shale_flushoptions_t* fo = shale_flushoptions_create();
  shale_flush_cf(db, fo, NULL, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_flushoptions_destroy(fo);
  shale_drop_column_family(db, NULL, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  CHECK(shale_property_value_cf(db, NULL, "shale.num-files-at-level0") == NULL);
  uint64_t value = 42;
  CHECK(shale_property_int_cf(db, NULL, "shale.num-files-at-level0", &value) == -1);
  shale_compact_range_cf(db, NULL, NULL, 0, NULL, 0); /* does nothing */
  const char* start = "a";
  const size_t start_len = 1;
  const char* limit = "z";
  const size_t limit_len = 1;
  uint64_t size = 0;
  shale_approximate_sizes_cf(db, NULL, 1, &start, &start_len, &limit, &limit_len, &size, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  const char* names[] = {"write_buffer_size"};
  const char* values[] = {"8M"};
  shale_set_options_cf(db, NULL, 1, names, values, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_ingestexternalfileoptions_t* io = shale_ingestexternalfileoptions_create();
  const char* files[] = {"/nonexistent.sst"};
  shale_ingest_external_file_cf(db, NULL, files, 1, io, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_ingestexternalfileoptions_destroy(io);

  /* An iterator on NULL reports the error through its status. */
  shale_iterator_t* it = shale_create_iterator_cf(db, ro, NULL);
  CHECK(it != NULL);
  shale_iter_seek_to_first(it);
  CHECK(!shale_iter_valid(it));
  shale_iter_get_error(it, &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_iter_destroy(it);

  /* A batch with an update on NULL fails as a whole, writing nothing. */
  shale_column_family_handle_t* def = shale_get_default_column_family_handle(db);
  shale_writebatch_t* batch = shale_writebatch_create();
  shale_writebatch_put_cf(batch, def, STR("null-batch"), STR("v"));
  shale_writebatch_put_cf(batch, NULL, STR("k"), STR("v"));
  shale_writebatch_delete_cf(batch, NULL, STR("k"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  CheckGetCf(db, ro, def, "null-batch", NULL);
  shale_writebatch_clear(batch);
  shale_writebatch_singledelete_cf(batch, NULL, STR("k"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_writebatch_clear(batch);
  shale_writebatch_delete_range_cf(batch, NULL, STR("a"), STR("b"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_writebatch_clear(batch);
  shale_writebatch_merge_cf(batch, NULL, STR("k"), STR("v"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "column_family: NULL handle");
  shale_writebatch_destroy(batch);

  /* create_iterators with a NULL family: an error, and no iterator handed out. */
  shale_column_family_handle_t* families[2] = {def, NULL};
  shale_iterator_t* iterators[2] = {NULL, NULL};
  shale_create_iterators(db, ro, families, iterators, 2, &err);
  CHECK_ERROR(err, "NULL handle at index 1");
  CHECK(iterators[0] == NULL && iterators[1] == NULL);
  shale_column_family_handle_destroy(def);
  shale_column_family_handle_destroy(NULL); /* ignored */
}

void TestColumnFamilies(void) {
  shale_options_t* options = NewTestOptions();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  char text[256];

  /* No DB yet: listing is an error. */
  size_t count = 99;
  CHECK(shale_list_column_families(options, WorkPath("db_cf"), &count, &err) == NULL);
  CHECK(count == 0);
  CHECK(err != NULL);
  shale_free(err);
  err = NULL;

  shale_t* db = OpenOrFail(options, "db_cf");
  ListNames(options, "db_cf", text, sizeof(text));
  CHECK(strcmp(text, "default") == 0);

  /* The default family: id 0, "default", and it cannot be dropped. */
  shale_column_family_handle_t* def = shale_get_default_column_family_handle(db);
  CHECK(shale_column_family_handle_get_id(def) == 0);
  CheckHandle(def, "default");
  shale_drop_column_family(db, def, &err);
  CHECK_ERROR(err, "Invalid argument");

  /* Families: one alone, two together, one with a merge operator. */
  shale_column_family_handle_t* cf1 = shale_create_column_family(db, options, "cf1", &err);
  CHECK_OK(err);
  CHECK(cf1 != NULL);
  CheckHandle(cf1, "cf1");
  CHECK(shale_column_family_handle_get_id(cf1) != 0);
  CHECK(shale_create_column_family(db, options, "cf1", &err) == NULL); /* in use */
  CHECK_ERROR(err, "Invalid argument");
  CHECK(shale_create_column_family(db, options, "", &err) == NULL);
  CHECK_ERROR(err, "Invalid argument");
  const char* pair[] = {"cf2", "cf3"};
  size_t created = 0;
  shale_column_family_handle_t** two =
      shale_create_column_families(db, options, 2, pair, &created, &err);
  CHECK_OK(err);
  CHECK(created == 2);
  shale_column_family_handle_t* cf2 = two[0];
  shale_column_family_handle_t* cf3 = two[1];
  shale_create_column_families_destroy(two);
  CheckHandle(cf2, "cf2");
  CheckHandle(cf3, "cf3");
  CHECK(shale_column_family_handle_get_id(cf2) != shale_column_family_handle_get_id(cf1));
  CHECK(shale_column_family_handle_get_id(cf3) != shale_column_family_handle_get_id(cf2));
  shale_options_t* merge_options = NewTestOptions();
  shale_mergeoperator_t* append = shale_mergeoperator_create_builtin("stringappend");
  shale_options_set_merge_operator(merge_options, append);
  shale_mergeoperator_destroy(append);
  shale_column_family_handle_t* cfm = shale_create_column_family(db, merge_options, "merge", &err);
  CHECK_OK(err);
  ListNames(options, "db_cf", text, sizeof(text));
  CHECK(strcmp(text, "default,cf1,cf2,cf3,merge") == 0);

  /* One key, a value per family. */
  shale_put(db, wo, STR("k"), STR("default"), &err);
  CHECK_OK(err);
  shale_put_cf(db, wo, cf1, STR("k"), STR("one"), &err);
  CHECK_OK(err);
  shale_put_cf(db, wo, cf2, STR("k"), STR("two"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "k", "default");
  CheckGetCf(db, ro, def, "k", "default");
  CheckGetCf(db, ro, cf1, "k", "one");
  CheckGetCf(db, ro, cf2, "k", "two");
  CheckGetCf(db, ro, cf3, "k", NULL);
  shale_delete_cf(db, wo, cf1, STR("k"), &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, cf1, "k", NULL);
  CheckGetCf(db, ro, cf2, "k", "two");
  shale_singledelete_cf(db, wo, cf2, STR("k"), &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, cf2, "k", NULL);
  CheckGet(db, ro, "k", "default");
  const char* rkeys[] = {"r1", "r2", "r3"};
  for (int i = 0; i < 3; i++) {
    shale_put_cf(db, wo, cf3, STR(rkeys[i]), STR("v"), &err);
    CHECK_OK(err);
    shale_put(db, wo, STR(rkeys[i]), STR("v"), &err);
    CHECK_OK(err);
  }
  shale_delete_range_cf(db, wo, cf3, STR("r1"), STR("r3"), &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, cf3, "r1", NULL);
  CheckGetCf(db, ro, cf3, "r2", NULL);
  CheckGetCf(db, ro, cf3, "r3", "v");
  CheckGet(db, ro, "r1", "v"); /* the default family keeps its keys */
  shale_delete_range_cf(db, wo, cf3, STR("z"), STR("a"), &err);
  CHECK_ERROR(err, "Invalid argument");
  /* Merge: only the family with an operator takes operands. */
  shale_merge_cf(db, wo, cfm, STR("m"), STR("a"), &err);
  CHECK_OK(err);
  shale_merge_cf(db, wo, cfm, STR("m"), STR("b"), &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, cfm, "m", "a,b");
  shale_merge_cf(db, wo, cf1, STR("m"), STR("a"), &err);
  CHECK_ERROR(err, "Invalid argument");

  /* A batch across families is applied as a whole. */
  shale_writebatch_t* batch = shale_writebatch_create();
  shale_writebatch_put_cf(batch, cf1, STR("b1"), STR("x"));
  shale_writebatch_put_cf(batch, cf2, STR("b2"), STR("y"));
  shale_writebatch_put(batch, STR("b0"), STR("z"));
  shale_writebatch_delete_cf(batch, cf3, STR("r3"));
  shale_writebatch_merge_cf(batch, cfm, STR("m"), STR("c"));
  shale_writebatch_put_cf(batch, cf2, STR("s"), STR("1"));
  shale_writebatch_singledelete_cf(batch, cf2, STR("s"));
  shale_writebatch_put_cf(batch, cf1, STR("d1"), STR("1"));
  shale_writebatch_put_cf(batch, cf1, STR("d2"), STR("1"));
  shale_writebatch_delete_range_cf(batch, cf1, STR("d1"), STR("d3"));
  shale_writebatch_put(batch, STR("sd"), STR("1"));
  shale_writebatch_singledelete(batch, STR("sd"));
  CHECK(shale_writebatch_count(batch) == 12);
  shale_write(db, wo, batch, &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, cf1, "b1", "x");
  CheckGetCf(db, ro, cf2, "b2", "y");
  CheckGetCf(db, ro, cf1, "b2", NULL);
  CheckGet(db, ro, "b0", "z");
  CheckGet(db, ro, "sd", NULL);
  CheckGetCf(db, ro, cf3, "r3", NULL);
  CheckGetCf(db, ro, cfm, "m", "a,b,c");
  CheckGetCf(db, ro, cf2, "s", NULL);
  CheckGetCf(db, ro, cf1, "d1", NULL);
  CheckGetCf(db, ro, cf1, "d2", NULL);
  /* A merge on a family without an operator fails the batch, writing none of it. */
  shale_writebatch_clear(batch);
  shale_writebatch_put_cf(batch, cf2, STR("never"), STR("1"));
  shale_writebatch_merge_cf(batch, cf1, STR("m"), STR("x"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "Invalid argument");
  CheckGetCf(db, ro, cf2, "never", NULL);
  shale_writebatch_destroy(batch);

  /* MultiGet across families, a NULL handle failing its key only. */
  {
    const shale_column_family_handle_t* families[4] = {cf1, cf2, def, NULL};
    const char* keys[4] = {"b1", "b1", "b0", "b0"};
    const size_t sizes[4] = {2, 2, 2, 2};
    char* values[4];
    size_t value_sizes[4];
    char* errs[4];
    shale_multi_get_cf(db, ro, families, 4, keys, sizes, values, value_sizes, errs);
    CHECK(errs[0] == NULL && values[0] != NULL && value_sizes[0] == 1 && values[0][0] == 'x');
    CHECK(errs[1] == NULL && values[1] == NULL && value_sizes[1] == 0);
    CHECK(errs[2] == NULL && values[2] != NULL && value_sizes[2] == 1 && values[2][0] == 'z');
    CHECK(values[3] == NULL);
    CHECK_ERROR(errs[3], "column_family: NULL handle");
    shale_free(values[0]);
    shale_free(values[2]);
  }

  /* Iterators: one per family, and several at one sequence number. */
  shale_iterator_t* it = shale_create_iterator_cf(db, ro, cf1);
  Keys(it, text, sizeof(text));
  CHECK(strcmp(text, "b1") == 0);
  shale_iter_destroy(it);
  {
    shale_column_family_handle_t* families[3] = {cf1, cf2, def};
    shale_iterator_t* iterators[3] = {NULL, NULL, NULL};
    shale_readoptions_t* bounded = shale_readoptions_create();
    shale_readoptions_set_iterate_upper_bound(bounded, STR("c"));
    shale_create_iterators(db, bounded, families, iterators, 3, &err);
    CHECK_OK(err);
    shale_readoptions_destroy(bounded); /* the iterators keep their own bounds */
    /* Written after the iterators were made: none of them sees it. */
    shale_put_cf(db, wo, cf1, STR("a-late"), STR("1"), &err);
    CHECK_OK(err);
    shale_put_cf(db, wo, cf2, STR("a-late"), STR("1"), &err);
    CHECK_OK(err);
    Keys(iterators[1], text, sizeof(text));
    CHECK(strcmp(text, "b2") == 0);
    shale_iter_destroy(iterators[0]); /* the others still read their bounds */
    Keys(iterators[2], text, sizeof(text));
    CHECK(strcmp(text, "b0") == 0); /* "k", "r*" and "sd" are past the bound */
    shale_iter_destroy(iterators[1]);
    shale_iter_destroy(iterators[2]);
    shale_create_iterators(db, ro, families, iterators, 0, &err); /* none asked */
    CHECK_OK(err);
  }

  /* Flush, properties and compaction per family: two overlapping tables in cf1 and cf2 each,
   * none in cf3. */
  shale_flushoptions_t* fo = shale_flushoptions_create();
  shale_flush_cf(db, fo, cf1, &err);
  CHECK_OK(err);
  CHECK(TotalFiles(db, cf1) == 1);
  CHECK(TotalFiles(db, cf2) == 0);
  CHECK(TotalFiles(db, def) == 0);
  shale_put_cf(db, wo, cf1, STR("b1"), STR("x"), &err);
  CHECK_OK(err);
  shale_flush_cf(db, fo, cf1, &err);
  CHECK_OK(err);
  CHECK(TotalFiles(db, cf1) == 2);
  CHECK(Level0Files(db, cf1) == 1); /* the second overlaps the first */
  for (int i = 0; i < 2; i++) {
    shale_put_cf(db, wo, cf2, STR("b2"), STR("y"), &err);
    CHECK_OK(err);
    shale_flush_cf(db, fo, cf2, &err);
    CHECK_OK(err);
  }
  CHECK(TotalFiles(db, cf2) == 2);
  CHECK(Level0Files(db, cf2) == 1);
  uint64_t files = 99;
  CHECK(shale_property_value_cf(db, cf1, "shale.no-such-property") == NULL);
  CHECK(shale_property_int_cf(db, cf1, "shale.no-such-property", &files) == -1);
  {
    char* level6 = shale_property_value_cf(db, cf1, "shale.sstables");
    CHECK(level6 != NULL && strstr(level6, "level") != NULL);
    shale_free(level6);
    char* none = shale_property_value_cf(db, cf3, "shale.sstables");
    CHECK(none != NULL && strstr(none, "level") == NULL); /* no table file */
    shale_free(none);
  }
  /* Several families at once: cf3 (memtable only so far) gets its first table. */
  {
    shale_column_family_handle_t* both[2] = {cf3, def};
    shale_flush_cfs(db, fo, both, 2, &err);
    CHECK_OK(err);
    CHECK(TotalFiles(db, cf3) == 1);
    shale_column_family_handle_t* with_null[2] = {cf3, NULL};
    shale_flush_cfs(db, fo, with_null, 2, &err);
    CHECK_ERROR(err, "NULL handle at index 1");
  }
  shale_flushoptions_destroy(fo);
  {
    const char* start = "a";
    const size_t start_len = 1;
    const char* limit = "z";
    const size_t limit_len = 1;
    uint64_t size = 0;
    shale_approximate_sizes_cf(db, cf1, 1, &start, &start_len, &limit, &limit_len, &size,
                               &err);
    CHECK_OK(err);
    CHECK(size > 0);
    shale_approximate_sizes_cf(db, cfm, 1, &start, &start_len, &limit, &limit_len, &size,
                               &err);
    CHECK_OK(err);
    CHECK(size == 0); /* "merge" has no table file */
  }
  shale_compactoptions_t* co = shale_compactoptions_create();
  shale_compactoptions_set_bottommost_level_compaction(co,
                                                       shale_bottommost_level_compaction_force);
  shale_compact_range_cf_opt(db, cf1, co, NULL, 0, NULL, 0);
  shale_compactoptions_destroy(co);
  CHECK(Level0Files(db, cf1) == 0);
  CHECK(TotalFiles(db, cf1) >= 1);
  CHECK(Level0Files(db, cf2) == 1); /* untouched */
  CHECK(TotalFiles(db, cf2) == 2);
  shale_compact_range_cf(db, cf2, STR("a"), STR("z"));
  CHECK(Level0Files(db, cf2) == 0);
  CHECK(TotalFiles(db, cf2) >= 1);
  CheckGetCf(db, ro, cf1, "b1", "x");
  CheckGetCf(db, ro, cf2, "b2", "y");

  /* Options: a family's (only its own names), the DB's (only its own). */
  {
    const char* cf_names[] = {"write_buffer_size"};
    const char* cf_values[] = {"8M"};
    const char* db_names[] = {"max_background_jobs"};
    const char* db_values[] = {"3"};
    shale_set_options_cf(db, cf1, 1, cf_names, cf_values, &err);
    CHECK_OK(err);
    shale_set_options_cf(db, cf1, 1, db_names, db_values, &err);
    CHECK_ERROR(err, "max_background_jobs");
    shale_set_db_options(db, 1, db_names, db_values, &err);
    CHECK_OK(err);
    shale_set_db_options(db, 1, cf_names, cf_values, &err);
    CHECK_ERROR(err, "write_buffer_size");
  }

  /* Ingestion into a family. */
  {
    char path[4096];
    snprintf(path, sizeof(path), "%s", WorkPath("cf3.sst"));
    shale_sstfilewriter_t* writer = shale_sstfilewriter_create(options);
    shale_sstfilewriter_open(writer, path, &err);
    CHECK_OK(err);
    shale_sstfilewriter_put(writer, STR("i1"), STR("ingested"), &err);
    CHECK_OK(err);
    shale_sstfilewriter_finish(writer, &err);
    CHECK_OK(err);
    shale_sstfilewriter_destroy(writer);
    shale_ingestexternalfileoptions_t* io = shale_ingestexternalfileoptions_create();
    shale_ingestexternalfileoptions_set_move_files(io, 1);
    const char* list[] = {path};
    shale_ingest_external_file_cf(db, cf3, list, 1, io, &err);
    CHECK_OK(err);
    shale_ingestexternalfileoptions_destroy(io);
    unlink(path); /* moved: normally gone already */
    CheckGetCf(db, ro, cf3, "i1", "ingested");
    CheckGet(db, ro, "i1", NULL);
  }

  /* A bulk load into a family. */
  {
    shale_bulkloader_options_t* lo = shale_bulkloader_options_create();
    shale_bulkloader_options_set_column_family(lo, cfm);
    shale_bulkloader_t* loader = shale_bulkloader_create(db, lo, &err);
    CHECK_OK(err);
    shale_bulkloader_options_destroy(lo);
    shale_bulkloader_add(loader, STR("bulk2"), STR("b"), &err);
    CHECK_OK(err);
    shale_bulkloader_add(loader, STR("bulk1"), STR("a"), &err);
    CHECK_OK(err);
    shale_bulkloader_finish(loader, &err);
    CHECK_OK(err);
    shale_bulkloader_destroy(loader);
    CheckGetCf(db, ro, cfm, "bulk1", "a");
    CheckGetCf(db, ro, cfm, "bulk2", "b");
    CheckGetCf(db, ro, cfm, "m", "a,b,c");
    CheckGet(db, ro, "bulk1", NULL);
    CheckGetCf(db, ro, cf1, "bulk1", NULL);
  }

  TestNullHandles(db, wo, ro);

  /* Drop: the family is gone from the list and refuses writes; its handle still works for
   * reads until destroyed. */
  shale_drop_column_family(db, cf2, &err);
  CHECK_OK(err);
  shale_drop_column_family(db, cf2, &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_put_cf(db, wo, cf2, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, "Invalid argument");
  batch = shale_writebatch_create();
  shale_writebatch_put_cf(batch, cf2, STR("k"), STR("v"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "Invalid argument");
  shale_writebatch_destroy(batch);
  CheckGetCf(db, ro, cf2, "b2", "y");
  ListNames(options, "db_cf", text, sizeof(text));
  CHECK(strcmp(text, "default,cf1,cf3,merge") == 0);
  shale_column_family_handle_destroy(cf2);

  shale_column_family_handle_destroy(def);
  shale_column_family_handle_destroy(cf1);
  shale_column_family_handle_destroy(cf3);
  shale_column_family_handle_destroy(cfm);
  shale_close(db);

  /* Opening without naming every family names the missing ones. */
  CheckOpenFails(options, "db_cf", "cf1");
  {
    const char* names[] = {"default", "cf1"};
    const shale_options_t* cf_options[] = {options, options};
    shale_column_family_handle_t* handles[2] = {NULL, NULL};
    CHECK(shale_open_column_families(options, WorkPath("db_cf"), 2, names, cf_options, handles,
                                     &err) == NULL);
    CHECK(err != NULL && strstr(err, "cf3") != NULL && strstr(err, "merge") != NULL);
    shale_free(err);
    err = NULL;
    CHECK(handles[0] == NULL && handles[1] == NULL);
  }
  /* A family the DB lacks, without create_missing_column_families: an error naming it. */
  const char* all[] = {"default", "cf1", "cf3", "merge", "new"};
  const shale_options_t* all_options[] = {options, options, options, merge_options, options};
  shale_column_family_handle_t* handles[5] = {NULL, NULL, NULL, NULL, NULL};
  CHECK(shale_open_column_families(options, WorkPath("db_cf"), 5, all, all_options, handles,
                                   &err) == NULL);
  CHECK_ERROR(err, "new");
  /* With it, "new" is created. */
  shale_options_t* create_missing = shale_options_create();
  shale_get_options_from_string(options, "create_missing_column_families=true", create_missing,
                                &err);
  CHECK_OK(err);
  db = shale_open_column_families(create_missing, WorkPath("db_cf"), 5, all, all_options,
                                  handles, &err);
  CHECK_OK(err);
  CHECK(db != NULL);
  for (int i = 0; i < 5; i++) CheckHandle(handles[i], all[i]);
  CHECK(shale_column_family_handle_get_id(handles[0]) == 0);
  CheckGetCf(db, ro, handles[0], "b0", "z");
  CheckGetCf(db, ro, handles[1], "b1", "x");
  CheckGetCf(db, ro, handles[2], "i1", "ingested");
  CheckGetCf(db, ro, handles[2], "b1", NULL);
  CheckGetCf(db, ro, handles[3], "m", "a,b,c");
  CheckGetCf(db, ro, handles[4], "b1", NULL);
  shale_put_cf(db, wo, handles[4], STR("n"), STR("new"), &err);
  CHECK_OK(err);
  CheckGetCf(db, ro, handles[4], "n", "new");
  for (int i = 0; i < 5; i++) shale_column_family_handle_destroy(handles[i]);
  shale_close(db);
  ListNames(options, "db_cf", text, sizeof(text));
  CHECK(strcmp(text, "default,cf1,cf3,merge,new") == 0);

  shale_options_destroy(create_missing);
  shale_options_destroy(merge_options);
  DestroyOrFail("db_cf");
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_options_destroy(options);
}
