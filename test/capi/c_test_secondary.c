/* Secondary instances through the C ABI: shale_open_as_secondary beside a primary that holds
 * the DB (the state at its open; later writes, a flush and a compaction seen only after
 * shale_try_catch_up_with_primary), writes refused with RocksDB's text, a primary cannot catch
 * up, shale_open_as_secondary_column_families with a subset of the families, bad arguments. */
#include <string.h>

#include "c_test.h"

#define SECONDARY_ERROR "Not implemented: Not supported operation in secondary mode."

void TestSecondary(void) {
  shale_options_t* options = NewTestOptions();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  char db_path[4096];
  char secondary_path[4096];
  snprintf(db_path, sizeof(db_path), "%s", WorkPath("sec"));
  snprintf(secondary_path, sizeof(secondary_path), "%s", WorkPath("sec_secondary"));

  shale_t* primary = OpenOrFail(options, "sec");
  shale_put(primary, wo, STR("a"), STR("1"), &err);
  CHECK_OK(err);
  shale_column_family_handle_t* b = shale_create_column_family(primary, options, "b", &err);
  CHECK_OK(err);
  shale_put_cf(primary, wo, b, STR("kb"), STR("vb"), &err);
  CHECK_OK(err);

  shale_t* secondary = shale_open_as_secondary(options, db_path, secondary_path, &err);
  CHECK_OK(err);
  CHECK(secondary != NULL);
  CheckGet(secondary, ro, "a", "1");
  shale_put(primary, wo, STR("a"), STR("2"), &err);
  CHECK_OK(err);
  shale_put(primary, wo, STR("c"), STR("3"), &err);
  CHECK_OK(err);
  CheckGet(secondary, ro, "a", "1");
  CheckGet(secondary, ro, "c", NULL);
  shale_try_catch_up_with_primary(secondary, &err);
  CHECK_OK(err);
  CheckGet(secondary, ro, "a", "2");
  CheckGet(secondary, ro, "c", "3");
  FlushOrFail(primary);
  shale_compact_range(primary, NULL, 0, NULL, 0);
  shale_delete(primary, wo, STR("a"), &err);
  CHECK_OK(err);
  shale_try_catch_up_with_primary(secondary, &err);
  CHECK_OK(err);
  CheckGet(secondary, ro, "a", NULL);
  CheckGet(secondary, ro, "c", "3");
  shale_put(secondary, wo, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, SECONDARY_ERROR);
  shale_try_catch_up_with_primary(primary, &err);
  CHECK_ERROR(err, "Supported only by secondary instance");
  shale_close(secondary);

  /* A subset of the families, "b" first. */
  const char* names[] = {"b", "default"};
  const shale_options_t* family_options[] = {options, options};
  shale_column_family_handle_t* handles[2] = {NULL, NULL};
  secondary = shale_open_as_secondary_column_families(options, db_path, secondary_path, 2,
                                                      names, family_options, handles, &err);
  CHECK_OK(err);
  CHECK(secondary != NULL);
  size_t len = 0;
  char* value = shale_get_cf(secondary, ro, handles[0], STR("kb"), &len, &err);
  CHECK_OK(err);
  CHECK(value != NULL && len == 2 && memcmp(value, "vb", 2) == 0);
  shale_free(value);
  shale_put_cf(primary, wo, b, STR("kb"), STR("vb2"), &err);
  CHECK_OK(err);
  shale_try_catch_up_with_primary(secondary, &err);
  CHECK_OK(err);
  value = shale_get_cf(secondary, ro, handles[0], STR("kb"), &len, &err);
  CHECK_OK(err);
  CHECK(value != NULL && len == 3 && memcmp(value, "vb2", 3) == 0);
  shale_free(value);
  shale_column_family_handle_destroy(handles[0]);
  shale_column_family_handle_destroy(handles[1]);
  shale_close(secondary);

  /* Bad arguments: no secondary path, the DB's own directory, a family the DB lacks. */
  CHECK(shale_open_as_secondary(options, db_path, NULL, &err) == NULL);
  CHECK_ERROR(err, "secondary_path");
  CHECK(shale_open_as_secondary(options, db_path, db_path, &err) == NULL);
  CHECK_ERROR(err, "secondary_path");
  const char* unknown[] = {"default", "zz"};
  CHECK(shale_open_as_secondary_column_families(options, db_path, secondary_path, 2, unknown,
                                                family_options, handles, &err) == NULL);
  CHECK_ERROR(err, "Column family not found: zz");

  shale_column_family_handle_destroy(b);
  shale_close(primary);
  DestroyOrFail("sec");
  DestroyOrFail("sec_secondary");
  shale_writeoptions_destroy(wo);
  shale_readoptions_destroy(ro);
  shale_options_destroy(options);
}
