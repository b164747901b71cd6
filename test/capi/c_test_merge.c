/* Merges through the C ABI: an operator made of C callbacks ("join": the value and the
 * operands joined with ',', which shows their order) through merge, write batches, Get,
 * iterators, flush (partial merges, accepted and refused) and compaction; a full merge that
 * reports failure; the built-in operators by name; merging without an operator; the
 * operator's lifetime under both orders of handle destruction and DB close; and
 * max_successive_merges. */
#include "c_test.h"

/* What the join callbacks saw; each operator gets its own. */
typedef struct {
  int full_merges;
  int partial_merges;
  int max_partial_operands;
  int buffers_returned; /* non-NULL results handed to the engine */
  int buffers_deleted;  /* delete_value calls */
  int destroyed;        /* destructor calls */
} JoinState;

static int HasOperand(const char* const* ops, const size_t* lens, int n, const char* text) {
  for (int i = 0; i < n; i++) {
    if (lens[i] == strlen(text) && memcmp(ops[i], text, lens[i]) == 0) return 1;
  }
  return 0;
}

/* first (when has_first), then ops[0..n), separated by ',', in a malloc'd buffer. */
static char* Join(const char* first, size_t first_len, int has_first, const char* const* ops,
                  const size_t* lens, int n, size_t* out_len) {
  size_t total = first_len + 1;
  for (int i = 0; i < n; i++) total += lens[i] + 1;
  char* out = malloc(total);
  CHECK(out != NULL);
  size_t pos = 0;
  if (has_first && first_len > 0) memcpy(out, first, first_len);
  if (has_first) pos = first_len;
  for (int i = 0; i < n; i++) {
    if (has_first || i > 0) out[pos++] = ',';
    if (lens[i] > 0) memcpy(out + pos, ops[i], lens[i]);
    pos += lens[i];
  }
  *out_len = pos;
  return out;
}

/* An operand "FAIL" makes the full merge report failure (with a buffer, which the engine must
 * still release); "FAIL" and "KEEP" make the partial merge decline. */
static char* JoinFullMerge(void* arg, const char* key, size_t key_length,
                           const char* existing_value, size_t existing_value_length,
                           const char* const* ops, const size_t* lens, int n,
                           unsigned char* success, size_t* new_value_length) {
  JoinState* state = arg;
  (void)key;
  (void)key_length;
  state->full_merges++;
  CHECK(n >= 1);
  CHECK(existing_value != NULL || existing_value_length == 0);
  state->buffers_returned++;
  if (HasOperand(ops, lens, n, "FAIL")) {
    *success = 0;
    *new_value_length = 4;
    return Terminated(STR("junk"));
  }
  *success = 1;
  return Join(existing_value, existing_value_length, existing_value != NULL, ops, lens, n,
              new_value_length);
}

static char* JoinPartialMerge(void* arg, const char* key, size_t key_length,
                              const char* const* ops, const size_t* lens, int n,
                              unsigned char* success, size_t* new_value_length) {
  JoinState* state = arg;
  (void)key;
  (void)key_length;
  state->partial_merges++;
  CHECK(n >= 2);
  if (n > state->max_partial_operands) state->max_partial_operands = n;
  if (HasOperand(ops, lens, n, "FAIL") || HasOperand(ops, lens, n, "KEEP")) {
    *success = 0;
    return NULL;
  }
  *success = 1;
  state->buffers_returned++;
  return Join(NULL, 0, 0, ops, lens, n, new_value_length);
}

static void JoinDeleteValue(void* arg, const char* value, size_t value_length) {
  JoinState* state = arg;
  (void)value_length;
  state->buffers_deleted++;
  free((void*)value);
}

static void JoinDestroy(void* arg) { ((JoinState*)arg)->destroyed++; }

static const char* JoinName(void* arg) {
  (void)arg;
  return "test.join";
}

static shale_mergeoperator_t* NewJoinOperator(JoinState* state) {
  memset(state, 0, sizeof(*state));
  shale_mergeoperator_t* op = shale_mergeoperator_create(
      state, JoinDestroy, JoinFullMerge, JoinPartialMerge, JoinDeleteValue, JoinName);
  CHECK(op != NULL);
  return op;
}

static void MergeOrFail(shale_t* db, const char* key, const char* operand) {
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  shale_merge(db, wo, STR(key), STR(operand), &err);
  CHECK_OK(err);
  shale_writeoptions_destroy(wo);
}

static void PutOrFail(shale_t* db, const char* key, const char* value) {
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  shale_put(db, wo, STR(key), STR(value), &err);
  CHECK_OK(err);
  shale_writeoptions_destroy(wo);
}

/* Checks that reading `key` fails with a message containing `text`. */
static void CheckGetFails(shale_t* db, const shale_readoptions_t* ro, const char* key,
                          const char* text) {
  char* err = NULL;
  size_t len = 99;
  CHECK(shale_get(db, ro, STR(key), &len, &err) == NULL);
  CHECK(len == 0);
  CHECK_ERROR(err, text);
}

/* Checks the whole DB, in order, against keys[i] -> values[i]. */
static void CheckScan(shale_t* db, const shale_readoptions_t* ro, const char* const* keys,
                      const char* const* values, int n) {
  shale_iterator_t* it = shale_create_iterator(db, ro);
  shale_iter_seek_to_first(it);
  for (int i = 0; i < n; i++, shale_iter_next(it)) {
    size_t klen = 0;
    size_t vlen = 0;
    if (!shale_iter_valid(it)) Fail(__FILE__, __LINE__, "scan ended before", keys[i]);
    const char* k = shale_iter_key(it, &klen);
    const char* v = shale_iter_value(it, &vlen);
    if (klen != strlen(keys[i]) || memcmp(k, keys[i], klen) != 0) {
      Fail(__FILE__, __LINE__, "scan: expected key", keys[i]);
    }
    if (vlen != strlen(values[i]) || memcmp(v, values[i], vlen) != 0) {
      Fail(__FILE__, __LINE__, "scan: wrong value at", keys[i]);
    }
  }
  CHECK(!shale_iter_valid(it));
  char* err = NULL;
  shale_iter_get_error(it, &err);
  CHECK_OK(err);
  shale_iter_destroy(it);
}

static void CheckJoinedKeys(shale_t* db, const shale_readoptions_t* ro) {
  static const char* const keys[] = {"a", "b", "c", "e", "f", "g"};
  static const char* const values[] = {"v,1,2", "x,y", "new", "1,2,3", "base,p,q,r",
                                       "base,s,KEEP,t"};
  for (int i = 0; i < 6; i++) CheckGet(db, ro, keys[i], values[i]);
  CheckScan(db, ro, keys, values, 6);
}

/* The callback operator through every path that merges. The handle is destroyed right after
 * it is set (the options keep the operator); the destructor runs when the options go. */
static void TestCallbackOperator(void) {
  JoinState state;
  shale_mergeoperator_t* op = NewJoinOperator(&state);
  shale_options_t* options = NewTestOptions();
  shale_options_set_disable_auto_compactions(options, 1);
  shale_options_set_merge_operator(options, op);
  shale_mergeoperator_destroy(op);
  CHECK(state.destroyed == 0);
  shale_t* db = OpenOrFail(options, "db_merge");
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;

  PutOrFail(db, "a", "v");
  MergeOrFail(db, "a", "1");
  MergeOrFail(db, "a", "2");
  MergeOrFail(db, "b", "x"); /* no existing value */
  MergeOrFail(db, "b", "y");
  PutOrFail(db, "c", "old");
  shale_delete(db, wo, STR("c"), &err);
  CHECK_OK(err);
  MergeOrFail(db, "c", "new"); /* a deletion ends the history */
  CHECK(state.full_merges == 0); /* merges are lazy: nothing merged before a read */
  CheckGet(db, ro, "a", "v,1,2");
  CHECK(state.full_merges == 1);

  /* Operands are bytes: NUL included. */
  const char op1[1] = {'\0'};
  const char op2[2] = {'z', '\0'};
  const char joined[4] = {'\0', ',', 'z', '\0'};
  shale_merge(db, wo, STR("bin"), op1, 1, &err);
  CHECK_OK(err);
  shale_merge(db, wo, STR("bin"), op2, 2, &err);
  CHECK_OK(err);
  size_t len = 0;
  char* value = shale_get(db, ro, STR("bin"), &len, &err);
  CHECK_OK(err);
  CHECK(value != NULL && len == 4 && memcmp(value, joined, 4) == 0);
  shale_free(value);
  shale_delete(db, wo, STR("bin"), &err);
  CHECK_OK(err);

  /* A batch mixes puts and merges, applied in order. */
  shale_writebatch_t* batch = shale_writebatch_create();
  shale_writebatch_put(batch, STR("e"), STR("1"));
  shale_writebatch_merge(batch, STR("e"), STR("2"));
  shale_writebatch_merge(batch, STR("e"), STR("3"));
  CHECK(shale_writebatch_count(batch) == 3);
  CheckGet(db, ro, "e", NULL);
  shale_write(db, wo, batch, &err);
  CHECK_OK(err);
  shale_writebatch_destroy(batch);

  /* f and g have their base in a table: the flush sees only operands, and combines f's
   * (a partial merge of three) but keeps g's, which the callback declines to combine. */
  PutOrFail(db, "f", "base");
  PutOrFail(db, "g", "base");
  FlushOrFail(db);
  MergeOrFail(db, "f", "p");
  MergeOrFail(db, "f", "q");
  MergeOrFail(db, "f", "r");
  MergeOrFail(db, "g", "s");
  MergeOrFail(db, "g", "KEEP");
  MergeOrFail(db, "g", "t");
  CheckJoinedKeys(db, ro);
  const int partial_before = state.partial_merges; /* the first flush combined b's */
  FlushOrFail(db);
  CHECK(state.partial_merges == partial_before + 2);
  CHECK(state.max_partial_operands == 3);
  CheckJoinedKeys(db, ro);
  shale_compact_range(db, NULL, 0, NULL, 0);
  CheckJoinedKeys(db, ro);
  CHECK(IntProperty(db, "shale.num-files-at-level0") == 0);
  shale_close(db);
  db = OpenOrFail(options, "db_merge");
  CheckJoinedKeys(db, ro);

  shale_writeoptions_destroy(wo);
  shale_readoptions_destroy(ro);
  shale_close(db);
  CHECK(state.destroyed == 0); /* the options still hold the operator */
  shale_options_destroy(options);
  CHECK(state.destroyed == 1);
  CHECK(state.buffers_returned > 0 && state.buffers_returned == state.buffers_deleted);
  DestroyOrFail("db_merge");
}

/* A full merge that reports failure is an error, never a silent drop: Get and iterators
 * report it, and a compaction that needs the merge fails and keeps the operands. */
static void TestMergeFailure(void) {
  JoinState state;
  shale_mergeoperator_t* op = NewJoinOperator(&state);
  shale_options_t* options = NewTestOptions();
  shale_options_set_disable_auto_compactions(options, 1);
  shale_options_set_merge_operator(options, op);
  shale_t* db = OpenOrFail(options, "db_merge_fail");
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;

  PutOrFail(db, "ok", "1");
  MergeOrFail(db, "zz", "a");
  MergeOrFail(db, "zz", "FAIL");
  CheckGetFails(db, ro, "zz", "Corruption");
  CheckGetFails(db, ro, "zz", "full_merge callback reported failure");
  CheckGet(db, ro, "ok", "1");
  shale_iterator_t* it = shale_create_iterator(db, ro);
  shale_iter_seek(it, STR("zz"));
  CHECK(!shale_iter_valid(it));
  shale_iter_get_error(it, &err);
  CHECK_ERROR(err, "full_merge callback reported failure");
  shale_iter_destroy(it);

  FlushOrFail(db); /* the partial merge declines: the operands are kept */
  CheckGetFails(db, ro, "zz", "full_merge callback reported failure");
  shale_compact_range(db, NULL, 0, NULL, 0); /* fails (reported by later writes) */
  CheckGetFails(db, ro, "zz", "full_merge callback reported failure");
  CheckGet(db, ro, "ok", "1");

  shale_readoptions_destroy(ro);
  shale_close(db);
  shale_options_destroy(options);
  CHECK(state.destroyed == 0); /* the handle still holds it */
  shale_mergeoperator_destroy(op);
  CHECK(state.destroyed == 1);
  CHECK(state.buffers_returned == state.buffers_deleted);
  DestroyOrFail("db_merge_fail");
}

/* The operator outlives the DBs and options it was given to: the caller's handle keeps it
 * (and its state) until shale_mergeoperator_destroy. No partial_merge and no delete_value:
 * results are released with free(). */
static void TestOperatorLifetime(void) {
  JoinState state;
  memset(&state, 0, sizeof(state));
  shale_mergeoperator_t* op =
      shale_mergeoperator_create(&state, JoinDestroy, JoinFullMerge, NULL, NULL, NULL);
  CHECK(op != NULL);
  CHECK(shale_mergeoperator_create(&state, JoinDestroy, NULL, NULL, NULL, NULL) == NULL);
  shale_readoptions_t* ro = shale_readoptions_create();

  shale_options_t* options = NewTestOptions();
  shale_options_set_merge_operator(options, op);
  shale_t* db = OpenOrFail(options, "db_merge_life");
  PutOrFail(db, "k", "v");
  FlushOrFail(db);
  MergeOrFail(db, "k", "1");
  MergeOrFail(db, "k", "2");
  FlushOrFail(db); /* no partial_merge callback: both operands are kept */
  CHECK(state.partial_merges == 0);
  CheckGet(db, ro, "k", "v,1,2");
  shale_close(db);
  shale_options_destroy(options);
  CHECK(state.destroyed == 0);

  /* The same handle serves a second options object and a reopen. Setting NULL removes the
   * operator from a third one without touching the handle. */
  shale_options_t* unused = shale_options_create();
  shale_options_set_merge_operator(unused, op);
  shale_options_set_merge_operator(unused, NULL);
  shale_options_destroy(unused);
  options = NewTestOptions();
  shale_options_set_merge_operator(options, op);
  db = OpenOrFail(options, "db_merge_life");
  MergeOrFail(db, "k", "3");
  shale_compact_range(db, NULL, 0, NULL, 0);
  CheckGet(db, ro, "k", "v,1,2,3");
  shale_close(db);
  shale_options_destroy(options);
  CHECK(state.destroyed == 0);
  shale_mergeoperator_destroy(op);
  CHECK(state.destroyed == 1);
  CHECK(state.full_merges > 0);
  shale_mergeoperator_destroy(NULL);

  shale_readoptions_destroy(ro);
  DestroyOrFail("db_merge_life");
}

/* 8-byte little-endian, as uint64add encodes. */
static void EncodeU64(uint64_t v, char* out) {
  for (int i = 0; i < 8; i++) out[i] = (char)((v >> (8 * i)) & 0xff);
}

static void CheckU64(shale_t* db, const shale_readoptions_t* ro, const char* key,
                     uint64_t expected) {
  char* err = NULL;
  size_t len = 0;
  char* value = shale_get(db, ro, STR(key), &len, &err);
  CHECK_OK(err);
  char want[8];
  EncodeU64(expected, want);
  if (value == NULL || len != 8 || memcmp(value, want, 8) != 0) {
    Fail(__FILE__, __LINE__, "wrong uint64 for", key);
  }
  shale_free(value);
}

static void MergeU64(shale_t* db, const char* key, uint64_t v) {
  char operand[8];
  EncodeU64(v, operand);
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;
  shale_merge(db, wo, STR(key), operand, 8, &err);
  CHECK_OK(err);
  shale_writeoptions_destroy(wo);
}

static void TestUInt64Add(void) {
  shale_mergeoperator_t* op = shale_mergeoperator_create_builtin("uint64add");
  CHECK(op != NULL);
  shale_options_t* options = NewTestOptions();
  shale_options_set_merge_operator(options, op);
  shale_mergeoperator_destroy(op);
  shale_t* db = OpenOrFail(options, "db_merge_u64");
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  char* err = NULL;

  char five[8];
  EncodeU64(5, five);
  shale_put(db, wo, STR("n"), five, 8, &err);
  CHECK_OK(err);
  MergeU64(db, "n", 1);
  MergeU64(db, "n", 2);
  FlushOrFail(db);
  MergeU64(db, "n", 40);
  CheckU64(db, ro, "n", 48);
  MergeU64(db, "fresh", 7); /* no value counts as 0 */
  CheckU64(db, ro, "fresh", 7);
  MergeU64(db, "wrap", UINT64_MAX);
  MergeU64(db, "wrap", 2);
  CheckU64(db, ro, "wrap", 1);
  shale_compact_range(db, NULL, 0, NULL, 0);
  CheckU64(db, ro, "n", 48);
  CheckU64(db, ro, "wrap", 1);
  /* An operand of another size fails the merge. */
  shale_merge(db, wo, STR("n"), STR("abc"), &err);
  CHECK_OK(err);
  CheckGetFails(db, ro, "n", "Corruption");

  shale_writeoptions_destroy(wo);
  shale_readoptions_destroy(ro);
  shale_close(db);
  shale_options_destroy(options);
  DestroyOrFail("db_merge_u64");
}

/* A DB with the built-in operator `name`, merging `operands` into `key`, reads `expected`. */
static void CheckBuiltin(const char* name, const char* const* operands, int n,
                         const char* expected) {
  shale_mergeoperator_t* op = shale_mergeoperator_create_builtin(name);
  if (op == NULL) Fail(__FILE__, __LINE__, "no built-in operator", name);
  shale_options_t* options = NewTestOptions();
  shale_options_set_merge_operator(options, op);
  shale_t* db = OpenOrFail(options, "db_merge_builtin");
  for (int i = 0; i < n; i++) MergeOrFail(db, "k", operands[i]);
  shale_readoptions_t* ro = shale_readoptions_create();
  CheckGet(db, ro, "k", expected);
  shale_readoptions_destroy(ro);
  shale_close(db);
  shale_options_destroy(options);
  shale_mergeoperator_destroy(op);
  DestroyOrFail("db_merge_builtin");
}

static void TestBuiltins(void) {
  static const char* const unknown[] = {"", "nullptr", "nope", "uint64add2",
                                        "sortedset64:not-a-number"};
  CHECK(shale_mergeoperator_create_builtin(NULL) == NULL);
  for (int i = 0; i < 5; i++) {
    if (shale_mergeoperator_create_builtin(unknown[i]) != NULL) {
      Fail(__FILE__, __LINE__, "accepted as a built-in", unknown[i]);
    }
  }
  shale_mergeoperator_t* sorted = shale_mergeoperator_create_builtin("sortedset64");
  CHECK(sorted != NULL);
  shale_mergeoperator_destroy(sorted);

  static const char* const words[] = {"b", "a", "c"};
  CheckBuiltin("stringappend:|", words, 3, "b|a|c");
  CheckBuiltin("stringappend", words, 3, "b,a,c");
  CheckBuiltin("max", words, 3, "c");
  TestUInt64Add();
}

/* Without an operator, merges are refused, alone or in a batch (which then writes nothing). */
static void TestWithoutOperator(void) {
  shale_options_t* options = NewTestOptions();
  shale_t* db = OpenOrFail(options, "db_merge_none");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  shale_merge(db, wo, STR("k"), STR("v"), &err);
  CHECK_ERROR(err, "no merge operator");
  shale_writebatch_t* batch = shale_writebatch_create();
  shale_writebatch_put(batch, STR("p"), STR("1"));
  shale_writebatch_merge(batch, STR("k"), STR("v"));
  shale_write(db, wo, batch, &err);
  CHECK_ERROR(err, "Invalid argument");
  CheckGet(db, ro, "p", NULL);
  CheckGet(db, ro, "k", NULL);
  shale_writebatch_destroy(batch);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  shale_options_destroy(options);
  DestroyOrFail("db_merge_none");
}

/* With max_successive_merges 2, the third operand in a row is merged at write time and the
 * result written as a value. */
static void TestMaxSuccessiveMerges(void) {
  JoinState state;
  shale_mergeoperator_t* op = NewJoinOperator(&state);
  shale_options_t* options = NewTestOptions();
  shale_options_set_merge_operator(options, op);
  shale_options_set_max_successive_merges(options, 2);
  shale_mergeoperator_destroy(op);
  shale_t* db = OpenOrFail(options, "db_merge_successive");
  MergeOrFail(db, "k", "1");
  MergeOrFail(db, "k", "2");
  CHECK(state.full_merges == 0);
  MergeOrFail(db, "k", "3"); /* reads "1,2" (a merge) and merges "3" onto it */
  CHECK(state.full_merges == 2);
  shale_readoptions_t* ro = shale_readoptions_create();
  CheckGet(db, ro, "k", "1,2,3");
  CHECK(state.full_merges == 2); /* the key now holds a value: the read merges nothing */
  shale_readoptions_destroy(ro);
  shale_close(db);
  shale_options_destroy(options);
  CHECK(state.destroyed == 1);
  DestroyOrFail("db_merge_successive");
}

void TestMerge(void) {
  TestCallbackOperator();
  TestMergeFailure();
  TestOperatorLifetime();
  TestBuiltins();
  TestWithoutOperator();
  TestMaxSuccessiveMerges();
}
