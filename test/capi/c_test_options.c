/* The C ABI's conventions (errptr, shale_free, enum values) and the options: every setter is
 * shown to reach the engine by a value that shale_open rejects naming that option (or, for a
 * value RocksDB adjusts instead of refusing, by the adjustment the info LOG reports), then all
 * of them together with valid values open a working DB. (Compaction's effects are checked in
 * c_test_compaction.c.) */
#include "c_test.h"

void TestConventions(void) {
  CHECK(shale_no_compression == 0 && shale_snappy_compression == 1);
  CHECK(shale_zlib_compression == 2);
  CHECK(shale_lz4_compression == 4 && shale_lz4hc_compression == 5);
  CHECK(shale_zstd_compression == 7);
  CHECK(shale_level_compaction == 0 && shale_universal_compaction == 1);
  CHECK(shale_fifo_compaction == 2 && shale_no_compaction == 3);
  CHECK(shale_bottommost_level_compaction_skip == 0);
  CHECK(shale_bottommost_level_compaction_if_have_compaction_filter == 1);
  CHECK(shale_bottommost_level_compaction_force == 2);
  CHECK(shale_bottommost_level_compaction_force_optimized == 3);
  CHECK(shale_block_based_table_index_type_binary_search == 0);
  CHECK(shale_block_based_table_index_type_two_level_index_search == 2);
  CHECK(shale_block_based_table_data_block_index_type_binary_search == 0);
  CHECK(shale_block_based_table_data_block_index_type_binary_search_and_hash == 1);

  shale_options_t* base = shale_options_create();
  shale_options_t* out = shale_options_create();
  char* err = NULL;

  /* A message already in *errptr is freed (ASan would report the leak) and NULL is stored on
   * success... */
  err = Terminated(STR("an earlier message"));
  shale_get_options_from_string(base, "max_open_files=100", out, &err);
  CHECK_OK(err);
  /* ...and replaced on failure. */
  err = Terminated(STR("an earlier message"));
  shale_get_options_from_string(base, "no_such_option=1", out, &err);
  CHECK(strstr(err, "earlier") == NULL);
  CHECK_ERROR(err, "no_such_option");
  /* errptr NULL ignores the error. */
  shale_get_options_from_string(base, "no_such_option=1", out, NULL);

  shale_free(NULL);
  shale_close(NULL);
  shale_options_destroy(out);
  shale_options_destroy(base);
}

void TestOpenErrors(void) {
  shale_options_t* options = shale_options_create();
  char* err = NULL;

  /* A missing DB without create_if_missing. */
  CheckOpenFails(options, "db_open", "db_open");

  shale_options_set_create_if_missing(options, 1);
  shale_t* db = OpenOrFail(options, "db_open");

  /* The LOCK is held: a second open of the same directory fails, and so does destroying it. */
  CheckOpenFails(options, "db_open", "LOCK");
  shale_destroy_db(options, WorkPath("db_open"), &err);
  CHECK(err != NULL);
  shale_free(err);
  err = NULL;

  shale_close(db);
  /* error_if_exists. */
  shale_options_set_error_if_exists(options, 1);
  CheckOpenFails(options, "db_open", "exists");
  shale_options_set_error_if_exists(options, 0);

  /* Closed: it reopens, and once destroyed it is gone again. */
  db = OpenOrFail(options, "db_open");
  shale_close(db);
  DestroyOrFail("db_open");
  shale_options_set_create_if_missing(options, 0);
  CheckOpenFails(options, "db_open", "db_open");
  shale_options_destroy(options);
}

/* Opens "db_rejected" with `options` expecting an error naming `text`, then destroys them. */
static void ExpectRejected(shale_options_t* options, const char* text) {
  CheckOpenFails(options, "db_rejected", text);
  shale_options_destroy(options);
}

/* Opens "db_adjusted" with `options` (it must open), then expects its info LOG to report the
 * adjustment `text` ("<option>: <old> -> <new>"); destroys the options and the DB. */
static void ExpectAdjusted(shale_options_t* options, const char* text) {
  shale_t* db = OpenOrFail(options, "db_adjusted");
  shale_close(db);
  char path[4096];
  snprintf(path, sizeof(path), "%s/LOG", WorkPath("db_adjusted"));
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL);
  static char log[1 << 16];
  size_t n = fread(log, 1, sizeof(log) - 1, f);
  log[n] = '\0';
  fclose(f);
  if (strstr(log, text) == NULL) fprintf(stderr, "LOG lacks \"%s\":\n%s\n", text, log);
  CHECK(strstr(log, text) != NULL);
  DestroyOrFail("db_adjusted");
  shale_options_destroy(options);
}

void TestOptionSetters(void) {
  shale_options_t* o;
  /* Adjusted as RocksDB does (issue 19): */
  o = NewTestOptions(); shale_options_set_write_buffer_size(o, 1);
  ExpectAdjusted(o, "write_buffer_size: 1 -> 65536");
  o = NewTestOptions(); shale_options_set_max_write_buffer_number(o, 1);
  ExpectAdjusted(o, "max_write_buffer_number: 1 -> 2");
  o = NewTestOptions(); shale_options_set_max_open_files(o, 5);
  ExpectAdjusted(o, "max_open_files: 5 -> 20");
  o = NewTestOptions(); shale_options_set_compression(o, 6 /* xpress: not built */);
  ExpectRejected(o, "compression");
  o = NewTestOptions(); shale_options_set_level0_file_num_compaction_trigger(o, -1);
  ExpectRejected(o, "level0_file_num_compaction_trigger");
  o = NewTestOptions(); shale_options_set_level0_slowdown_writes_trigger(o, 2);
  ExpectAdjusted(o, "level0_slowdown_writes_trigger: 2 -> 4");
  o = NewTestOptions(); shale_options_set_level0_stop_writes_trigger(o, 10);
  ExpectAdjusted(o, "level0_stop_writes_trigger: 10 -> 20");
  o = NewTestOptions(); shale_options_set_target_file_size_base(o, 0);
  ExpectRejected(o, "target_file_size_base");
  o = NewTestOptions(); shale_options_set_max_bytes_for_level_base(o, 0);
  ExpectRejected(o, "max_bytes_for_level_base");
  o = NewTestOptions(); shale_options_set_max_background_jobs(o, 0);
  ExpectAdjusted(o, "max_background_jobs: 0 -> 1");
  o = NewTestOptions(); shale_options_set_max_subcompactions(o, 0);
  ExpectAdjusted(o, "max_subcompactions: 0 -> 1");
  o = NewTestOptions(); shale_options_increase_parallelism(o, -3);
  ExpectAdjusted(o, "max_background_jobs: -3 -> 1");
  /* An index type RocksDB has but ShaleDB does not (kHashSearch = 1). */
  {
    shale_block_based_table_options_t* t = shale_block_based_options_create();
    shale_block_based_options_set_index_type(t, 1);
    o = NewTestOptions();
    shale_options_set_block_based_table_factory(o, t);
    shale_block_based_options_destroy(t);
    ExpectRejected(o, "index_type");
  }
  o = NewTestOptions(); shale_options_set_target_file_size_multiplier(o, 0);
  ExpectRejected(o, "target_file_size_multiplier");
  o = NewTestOptions(); shale_options_set_max_bytes_for_level_multiplier(o, 0);
  ExpectAdjusted(o, "max_bytes_for_level_multiplier: 0 -> 1");
  o = NewTestOptions(); shale_options_set_bottommost_compression(o, 6 /* xpress */);
  ExpectRejected(o, "bottommost_compression");
  o = NewTestOptions();
  shale_options_set_soft_pending_compaction_bytes_limit(o, 2 << 20);
  shale_options_set_hard_pending_compaction_bytes_limit(o, 1 << 20);
  ExpectAdjusted(o, "soft_pending_compaction_bytes_limit: 2097152 -> 1048576");
  /* ttl only with level and FIFO styles: this also shows that the compaction style reaches
   * the engine (FIFO with a ttl opens in c_test_compaction.c). */
  o = NewTestOptions();
  shale_options_set_compaction_style(o, shale_universal_compaction);
  shale_options_set_ttl(o, 60);
  ExpectRejected(o, "ttl");
  /* A negative stats dump period is refused, naming the option. */
  o = NewTestOptions();
  shale_options_set_stats_dump_period_sec(o, -1);
  ExpectRejected(o, "stats_dump_period_sec");
  /* The universal and FIFO handles reach the options. */
  {
    shale_universal_compaction_options_t* u = shale_universal_compaction_options_create();
    shale_universal_compaction_options_set_min_merge_width(u, 4);
    shale_universal_compaction_options_set_max_merge_width(u, 3);
    o = NewTestOptions();
    shale_options_set_universal_compaction_options(o, u);
    shale_universal_compaction_options_destroy(u);
    ExpectRejected(o, "max_merge_width");
    u = shale_universal_compaction_options_create();
    shale_universal_compaction_options_set_min_merge_width(u, 1);
    o = NewTestOptions();
    shale_options_set_universal_compaction_options(o, u);
    shale_universal_compaction_options_destroy(u);
    ExpectRejected(o, "min_merge_width");
  }
  /* FIFO never merges files: allow_compaction (no C setter; RocksDB's option string) is
   * refused. */
  {
    shale_options_t* base = NewTestOptions();
    char* err = NULL;
    o = shale_options_create();
    shale_get_options_from_string(base,
                                  "compaction_style=kCompactionStyleFIFO;"
                                  "compaction_options_fifo={allow_compaction=true}",
                                  o, &err);
    CHECK_OK(err);
    shale_options_destroy(base);
    ExpectRejected(o, "compaction_options_fifo");
  }

  /* Every setter with a valid value: the DB opens and works. */
  o = NewTestOptions();
  shale_options_set_error_if_exists(o, 1);
  shale_options_set_paranoid_checks(o, 1);
  shale_options_set_write_buffer_size(o, 4 << 20);
  shale_options_set_max_write_buffer_number(o, 3);
  shale_options_set_db_write_buffer_size(o, 16 << 20);
  shale_options_set_max_open_files(o, 100);
  shale_options_set_compression(o, shale_zstd_compression);
  shale_options_set_compaction_style(o, shale_level_compaction);
  shale_options_set_disable_auto_compactions(o, 1);
  shale_options_set_level0_file_num_compaction_trigger(o, 2);
  shale_options_set_level0_slowdown_writes_trigger(o, 8);
  shale_options_set_level0_stop_writes_trigger(o, 12);
  shale_options_set_target_file_size_base(o, 2 << 20);
  shale_options_set_target_file_size_multiplier(o, 2);
  shale_options_set_max_bytes_for_level_base(o, 8 << 20);
  shale_options_set_max_bytes_for_level_multiplier(o, 4.5);
  shale_options_set_level_compaction_dynamic_level_bytes(o, 0);
  shale_options_set_max_background_jobs(o, 3);
  shale_options_set_max_subcompactions(o, 2);
  shale_options_set_soft_pending_compaction_bytes_limit(o, 1 << 30);
  shale_options_set_hard_pending_compaction_bytes_limit(o, 2u << 30);
  shale_options_set_delayed_write_rate(o, 8 << 20);
  shale_options_set_ttl(o, 0);
  shale_options_set_stats_dump_period_sec(o, 1);
  shale_options_set_bottommost_compression(o, shale_lz4hc_compression);
  shale_options_increase_parallelism(o, 3);
  shale_options_optimize_for_point_lookup(o, 0); /* no block cache: accepted */
  shale_t* db = OpenOrFail(o, "db_setters");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  char* err = NULL;
  shale_put(db, wo, STR("key"), STR("value"), &err);
  CHECK_OK(err);
  CheckGet(db, ro, "key", "value");
  {
    /* The compaction debt figures and RocksDB's name of the pending bytes. */
    uint64_t v = 1;
    CHECK(shale_property_int(db, "rocksdb.estimate-pending-compaction-bytes", &v) == 0);
    CHECK(v == 0);
    CHECK(shale_property_int(db, "shale.estimate-compaction-seconds-left", &v) == 0);
    CHECK(v == 0);
    CHECK(shale_property_int(db, "shale.compaction-rate", &v) == 0);
    CHECK(shale_property_int(db, "shale.sustainable-write-rate", &v) == 0);
  }
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_setters");
  shale_options_destroy(o);
}

/* Opens a DB with `table`, writes and flushes keys "k0000".."k1999", reads them back (and a
 * few absent keys), then destroys the DB. Each call takes the next of the built codecs. */
static void CheckTableOptionsWork(shale_block_based_table_options_t* table) {
  static const int kCodecs[] = {shale_zstd_compression, shale_snappy_compression,
                                shale_lz4_compression, shale_lz4hc_compression,
                                shale_zlib_compression};
  static int calls = 0;
  shale_options_t* options = NewTestOptions();
  shale_options_set_compression(options, kCodecs[calls++ % 5]);
  shale_options_set_block_based_table_factory(options, table);
  shale_t* db = OpenOrFail(options, "db_table");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_flushoptions_t* fo = shale_flushoptions_create();
  char* err = NULL;
  char key[16];
  for (int i = 0; i < 2000; i++) {
    snprintf(key, sizeof(key), "k%04d", i);
    shale_put(db, wo, STR(key), STR(key), &err);
    CHECK_OK(err);
  }
  shale_flush(db, fo, &err);
  CHECK_OK(err);
  for (int i = 0; i < 2000; i += 7) {
    snprintf(key, sizeof(key), "k%04d", i);
    CheckGet(db, ro, key, key);
  }
  CheckGet(db, ro, "k", NULL);
  CheckGet(db, ro, "k00005", NULL);
  CheckGet(db, ro, "z", NULL);
  shale_flushoptions_destroy(fo);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_close(db);
  DestroyOrFail("db_table");
  shale_options_destroy(options);
}

/* charge_table_reader_memory: an open table's index and filter show as the block cache's
 * pinned usage while the DB is open (the default), and not at all when switched off. */
static void CheckReaderCharge(unsigned char charge) {
  shale_cache_t* cache = shale_cache_create_lru(4 << 20);
  shale_block_based_table_options_t* t = shale_block_based_options_create();
  shale_block_based_options_set_block_cache(t, cache);
  shale_block_based_options_set_filter_policy(t, shale_filterpolicy_create_bloom(10));
  if (charge != 1) shale_block_based_options_set_charge_table_reader_memory(t, charge);
  shale_options_t* options = NewTestOptions();
  shale_options_set_block_based_table_factory(options, t);
  shale_t* db = OpenOrFail(options, "db_charge");
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_readoptions_t* ro = shale_readoptions_create();
  shale_flushoptions_t* fo = shale_flushoptions_create();
  char* err = NULL;
  char key[16];
  for (int i = 0; i < 2000; i++) {
    snprintf(key, sizeof(key), "k%04d", i);
    shale_put(db, wo, STR(key), STR(key), &err);
    CHECK_OK(err);
  }
  shale_flush(db, fo, &err);
  CHECK_OK(err);
  CheckGet(db, ro, "k0042", "k0042");
  if (charge) {
    CHECK(shale_cache_get_pinned_usage(cache) > 2000 * 10 / 8); /* the filter at least */
  } else {
    CHECK(shale_cache_get_pinned_usage(cache) == 0);
  }
  shale_close(db);
  CHECK(shale_cache_get_pinned_usage(cache) == 0); /* closed: the charge is given back */
  DestroyOrFail("db_charge");
  shale_flushoptions_destroy(fo);
  shale_readoptions_destroy(ro);
  shale_writeoptions_destroy(wo);
  shale_options_destroy(options);
  shale_block_based_options_destroy(t);
  shale_cache_destroy(cache);
}

/* Opens "db_rejected" with `table` expecting an error naming `text`, then destroys `table`. */
static void ExpectTableRejected(shale_block_based_table_options_t* table, const char* text) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_block_based_table_factory(options, table);
  ExpectRejected(options, text);
  shale_block_based_options_destroy(table);
}

/* The same for an adjustment of the table options. */
static void ExpectTableAdjusted(shale_block_based_table_options_t* table, const char* text) {
  shale_options_t* options = NewTestOptions();
  shale_options_set_block_based_table_factory(options, table);
  ExpectAdjusted(options, text);
  shale_block_based_options_destroy(table);
}

void TestTableOptions(void) {
  shale_block_based_table_options_t* t;
  t = shale_block_based_options_create(); shale_block_based_options_set_block_size(t, 0);
  ExpectTableRejected(t, "block_size");
  t = shale_block_based_options_create();
  shale_block_based_options_set_block_restart_interval(t, 0);
  ExpectTableAdjusted(t, "block_based_table_factory.block_restart_interval: 0 -> 1");
  t = shale_block_based_options_create();
  shale_block_based_options_set_index_block_restart_interval(t, -3);
  ExpectTableAdjusted(t, "block_based_table_factory.index_block_restart_interval: -3 -> 1");
  t = shale_block_based_options_create(); shale_block_based_options_set_partition_filters(t, 1);
  ExpectTableAdjusted(t, "block_based_table_factory.partition_filters: true -> false");
  t = shale_block_based_options_create();
  shale_block_based_options_set_metadata_block_size(t, 0);
  ExpectTableRejected(t, "metadata_block_size");

  /* A block cache: the table options share it, so the handle may go at once; a second handle
   * to watch it shows the DB's blocks charged to it. Index and filter in the cache too. */
  shale_cache_t* cache = shale_cache_create_lru(1 << 20);
  CHECK(shale_cache_get_usage(cache) == 0);
  CHECK(shale_cache_get_capacity(cache) == (1 << 20));
  shale_lru_cache_options_t* lru = shale_lru_cache_options_create();
  shale_lru_cache_options_set_capacity(lru, 4 << 20);
  shale_lru_cache_options_set_num_shard_bits(lru, 2);
  shale_lru_cache_options_set_strict_capacity_limit(lru, 1);
  shale_lru_cache_options_set_high_pri_pool_ratio(lru, 0.25);
  shale_cache_t* watched = shale_cache_create_lru_opts(lru);
  CHECK(watched != NULL);
  shale_lru_cache_options_set_num_shard_bits(lru, 20); /* out of range */
  CHECK(shale_cache_create_lru_opts(lru) == NULL);
  shale_lru_cache_options_destroy(lru);
  t = shale_block_based_options_create();
  shale_block_based_options_set_block_cache(t, cache);
  shale_cache_destroy(cache);
  shale_block_based_options_set_block_cache(t, watched);
  shale_block_based_options_set_cache_index_and_filter_blocks(t, 1);
  shale_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(t, 1);
  shale_block_based_options_set_filter_policy(t, shale_filterpolicy_create_bloom(10));
  CheckTableOptionsWork(t);
  CHECK(shale_cache_get_usage(watched) > 0); /* blocks read after the DB closed stay cached */
  CHECK(shale_cache_get_usage(watched) <= (4 << 20));
  CHECK(shale_cache_get_pinned_usage(watched) == 0); /* the DB is closed: nothing pinned */
  CHECK(shale_cache_get_occupancy_count(watched) > 0);
  shale_cache_set_capacity(watched, 0);
  CHECK(shale_cache_get_usage(watched) == 0);
  shale_block_based_options_destroy(t);
  shale_cache_destroy(watched);
  CheckReaderCharge(1);
  CheckReaderCharge(0);
  /* No block cache at all; contradicting it with a cache is rejected. */
  t = shale_block_based_options_create();
  shale_block_based_options_set_no_block_cache(t, 1);
  CheckTableOptionsWork(t);
  shale_block_based_options_destroy(t);
  t = shale_block_based_options_create();
  shale_block_based_options_set_no_block_cache(t, 1);
  cache = shale_cache_create_lru_with_strict_capacity_limit(1 << 20);
  shale_block_based_options_set_block_cache(t, cache);
  shale_cache_destroy(cache);
  ExpectTableRejected(t, "no_block_cache");
  DestroyOrFail("db_rejected");

  /* A policy not given away is destroyed by its owner. */
  shale_filterpolicy_destroy(shale_filterpolicy_create_bloom(10));

  /* Partitioned index and filters, with every other knob; the table options own the policy
   * given to them, also when it is replaced. */
  t = shale_block_based_options_create();
  shale_block_based_options_set_block_size(t, 1024);
  shale_block_based_options_set_block_restart_interval(t, 2);
  shale_block_based_options_set_index_block_restart_interval(t, 3);
  shale_block_based_options_set_filter_policy(t, shale_filterpolicy_create_bloom(5));
  shale_block_based_options_set_filter_policy(t, shale_filterpolicy_create_bloom(10));
  shale_block_based_options_set_index_type(
      t, shale_block_based_table_index_type_two_level_index_search);
  shale_block_based_options_set_partition_filters(t, 1);
  shale_block_based_options_set_metadata_block_size(t, 256);
  shale_block_based_options_set_cache_index_and_filter_blocks(t, 1);
  shale_block_based_options_set_pin_top_level_index_and_filter(t, 1);
  shale_block_based_options_set_enable_index_compression(t, 0);
  CheckTableOptionsWork(t);
  shale_block_based_options_destroy(t);

  /* The hash index in data blocks, a filter removed again, binary-search index. */
  t = shale_block_based_options_create();
  shale_block_based_options_set_filter_policy(t, shale_filterpolicy_create_bloom(10));
  shale_block_based_options_set_filter_policy(t, NULL);
  shale_block_based_options_set_index_type(t, shale_block_based_table_index_type_binary_search);
  shale_block_based_options_set_data_block_index_type(
      t, shale_block_based_table_data_block_index_type_binary_search_and_hash);
  shale_block_based_options_set_enable_index_compression(t, 1);
  CheckTableOptionsWork(t);
  shale_block_based_options_set_data_block_index_type(
      t, shale_block_based_table_data_block_index_type_binary_search);
  CheckTableOptionsWork(t);
  shale_block_based_options_destroy(t);
}

void TestOptionsFromString(void) {
  shale_options_t* base = NewTestOptions();
  shale_options_t* out = shale_options_create();
  char* err = NULL;

  /* The result is base (create_if_missing) plus the string: the bad target_file_size_base
   * shows that both arrived. */
  shale_get_options_from_string(base, "target_file_size_base=0; write_buffer_size=1M", out,
                                &err);
  CHECK_OK(err);
  CheckOpenFails(out, "db_string", "target_file_size_base");

  /* Errors name the option; `out` is left as it was. */
  shale_get_options_from_string(base, "no_such_option=1", out, &err);
  CHECK_ERROR(err, "no_such_option");
  shale_get_options_from_string(base, "write_buffer_size=lots", out, &err);
  CHECK_ERROR(err, "write_buffer_size");
  CheckOpenFails(out, "db_string", "target_file_size_base");

  /* Nested table options. */
  shale_get_options_from_string(base, "block_based_table_factory={block_size=0}", out, &err);
  CHECK_OK(err);
  CheckOpenFails(out, "db_string", "block_size");

  shale_get_options_from_string(base, "max_open_files=-1;compression=kZSTD", out, &err);
  CHECK_OK(err);
  shale_close(OpenOrFail(out, "db_string"));
  DestroyOrFail("db_string");
  shale_options_destroy(out);
  shale_options_destroy(base);
}

/* The DB options of column families: the getters read what the setters and the options string
 * stored (the defaults first), and each setter reaches its own field. */
void TestColumnFamilyDBOptions(void) {
  shale_options_t* o = shale_options_create();
  shale_options_t* parsed = shale_options_create();
  char* err = NULL;
  CHECK(shale_options_get_create_missing_column_families(o) == 0);
  CHECK(shale_options_get_max_total_wal_size(o) == 0);
  CHECK(shale_options_get_atomic_flush(o) == 0);

  shale_options_set_create_missing_column_families(o, 1);
  CHECK(shale_options_get_create_missing_column_families(o) == 1);
  CHECK(shale_options_get_max_total_wal_size(o) == 0);
  CHECK(shale_options_get_atomic_flush(o) == 0);
  shale_options_set_max_total_wal_size(o, (uint64_t)5 << 30);
  CHECK(shale_options_get_max_total_wal_size(o) == (uint64_t)5 << 30);
  CHECK(shale_options_get_atomic_flush(o) == 0);
  shale_options_set_atomic_flush(o, 2); /* any non-zero value is true */
  CHECK(shale_options_get_atomic_flush(o) == 1);
  shale_options_set_create_missing_column_families(o, 0);
  CHECK(shale_options_get_create_missing_column_families(o) == 0);
  CHECK(shale_options_get_atomic_flush(o) == 1);

  /* The options string reaches the same fields, RocksDB's names. */
  shale_get_options_from_string(o,
                                "create_missing_column_families=true;max_total_wal_size=1M;"
                                "atomic_flush=false",
                                parsed, &err);
  CHECK_OK(err);
  CHECK(shale_options_get_create_missing_column_families(parsed) == 1);
  CHECK(shale_options_get_max_total_wal_size(parsed) == 1 << 20);
  CHECK(shale_options_get_atomic_flush(parsed) == 0);
  shale_get_options_from_string(o, "max_total_wal_size=lots", parsed, &err);
  CHECK_ERROR(err, "max_total_wal_size");
  CHECK(shale_options_get_max_total_wal_size(parsed) == 1 << 20); /* unchanged */
  shale_options_destroy(parsed);
  shale_options_destroy(o);
}
