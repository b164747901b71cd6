/* Read-only opens through the C ABI: shale_open_for_read_only beside a writer that holds the
 * DB (writes only in its WAL are seen; later ones are not), writes refused with RocksDB's
 * text, a missing DB, error_if_wal_file_exists, and shale_open_for_read_only_column_families
 * with a subset of the families. */
#include "c_test.h"

#define READ_ONLY_ERROR "Not implemented: Not supported operation in read only mode."

void TestReadOnly(void) {
  shale_options_t* options = NewTestOptions();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;

  /* A missing DB is an error (create_if_missing is ignored). */
  CHECK(shale_open_for_read_only(options, WorkPath("ro_missing"), 0, &err) == NULL);
  CHECK_ERROR(err, "does not exist");

  shale_t* writer = OpenOrFail(options, "ro");
  shale_put(writer, wo, STR("flushed"), STR("1"), &err);
  CHECK_OK(err);
  FlushOrFail(writer);
  shale_put(writer, wo, STR("in-wal"), STR("2"), &err);
  CHECK_OK(err);
  shale_column_family_handle_t* b = shale_create_column_family(writer, options, "b", &err);
  CHECK_OK(err);
  shale_put_cf(writer, wo, b, STR("kb"), STR("vb"), &err);
  CHECK_OK(err);
  shale_column_family_handle_destroy(b);

  /* The writer holds the LOCK; a read-only open does not need it. */
  const char* names[] = {"default"};
  const shale_options_t* family_options[] = {options, options};
  shale_column_family_handle_t* handles[2] = {NULL, NULL};
  shale_t* reader = shale_open_for_read_only_column_families(options, WorkPath("ro"), 1, names,
                                                             family_options, handles, 0, &err);
  CHECK_OK(err);
  CHECK(reader != NULL);
  CheckGet(reader, ro, "flushed", "1");
  CheckGet(reader, ro, "in-wal", "2");
  shale_put(writer, wo, STR("later"), STR("3"), &err);
  CHECK_OK(err);
  CheckGet(reader, ro, "later", NULL);
  shale_put(reader, wo, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, READ_ONLY_ERROR);
  shale_delete(reader, wo, STR("flushed"), &err);
  CHECK_ERROR(err, READ_ONLY_ERROR);
  shale_column_family_handle_destroy(handles[0]);
  shale_close(reader);

  reader = shale_open_for_read_only(options, WorkPath("ro"), 0, &err);
  CHECK_OK(err);
  CheckGet(reader, ro, "later", "3");
  shale_close(reader);

  /* A family the DB lacks is an error, never created. */
  const char* unknown[] = {"default", "zz"};
  CHECK(shale_open_for_read_only_column_families(options, WorkPath("ro"), 2, unknown,
                                                 family_options, handles, 0, &err) == NULL);
  CHECK_ERROR(err, "Column family not found: zz");
  shale_close(writer);

  /* The WAL holds writes: error_if_wal_file_exists refuses them. */
  CHECK(shale_open_for_read_only(options, WorkPath("ro"), 1, &err) == NULL);
  CHECK_ERROR(err, "Corruption: ");
  DestroyOrFail("ro");

  shale_writeoptions_destroy(wo);
  shale_readoptions_destroy(ro);
  shale_options_destroy(options);
}
