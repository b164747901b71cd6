/* Compaction filters through the C ABI: a filter made of C callbacks removes keys starting
 * with "del" and rewrites values of keys starting with "chg" during a compaction, never during
 * a flush; the options borrow the handle, whose destructor runs once when it is destroyed. */
#include "c_test.h"

typedef struct {
  int calls;
  int destroyed;
} FilterState;

static const char kChanged[] = "changed";

static unsigned char TestFilter(void* arg, int level, const char* key, size_t key_length,
                                const char* value, size_t value_length, char** new_value,
                                size_t* new_value_length, unsigned char* value_changed) {
  FilterState* state = arg;
  (void)level;
  (void)value;
  (void)value_length;
  state->calls++;
  if (key_length >= 3 && memcmp(key, "del", 3) == 0) return 1;
  if (key_length >= 3 && memcmp(key, "chg", 3) == 0) {
    *new_value = (char*)kChanged;
    *new_value_length = strlen(kChanged);
    *value_changed = 1;
  }
  return 0;
}

static void DestroyFilterState(void* arg) { ((FilterState*)arg)->destroyed++; }
static const char* FilterName(void* arg) {
  (void)arg;
  return "test.filter";
}

void TestCompactionFilter(void) {
  FilterState state = {0, 0};
  CHECK(shale_compactionfilter_create(&state, DestroyFilterState, NULL, FilterName) == NULL);
  shale_compactionfilter_t* filter =
      shale_compactionfilter_create(&state, DestroyFilterState, TestFilter, FilterName);
  CHECK(filter != NULL);
  shale_options_t* options = NewTestOptions();
  shale_options_set_compaction_filter(options, filter);
  shale_t* db = OpenOrFail(options, "db_cfilter");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  shale_put(db, wo, STR("del1"), STR("a"), &err);
  CHECK_OK(err);
  shale_put(db, wo, STR("chg1"), STR("b"), &err);
  CHECK_OK(err);
  shale_put(db, wo, STR("keep1"), STR("c"), &err);
  CHECK_OK(err);
  FlushOrFail(db);
  CHECK(state.calls == 0); /* flushes do not filter */
  CheckGet(db, ro, "del1", "a");
  shale_compact_range(db, NULL, 0, NULL, 0);
  CHECK(state.calls == 3);
  CheckGet(db, ro, "del1", NULL);
  CheckGet(db, ro, "chg1", "changed");
  CheckGet(db, ro, "keep1", "c");
  shale_close(db);
  shale_options_set_compaction_filter(options, NULL);
  shale_options_destroy(options);
  CHECK(state.destroyed == 0); /* borrowed */
  shale_compactionfilter_destroy(filter);
  CHECK(state.destroyed == 1);
  shale_compactionfilter_destroy(NULL);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  DestroyOrFail("db_cfilter");
}
