/* The C ABI of ShaleDB, for bindings from other languages (Python ctypes, cgo, JNI, Rust FFI).
 * It follows RocksDB's c.h so that anyone who has bound RocksDB can bind ShaleDB: the names are
 * RocksDB's with the prefix "shale_" instead of "rocksdb_", and so are the conventions.
 *
 * This header is plain C: it compiles as C99 and as C++.
 *
 * Conventions:
 * - Every object is an opaque handle (shale_t, shale_options_t, ...). A handle made by
 *   shale_<noun>_create (or shale_open, shale_create_iterator, ...) is owned by the caller and
 *   freed by the matching shale_<noun>_destroy (shale_close, shale_iter_destroy, ...).
 * - Errors come back through a trailing `char** errptr`. Such a function first frees a message
 *   already in *errptr (with free) and sets *errptr to NULL; on failure it then stores a new
 *   malloc'd, NUL-terminated message ("IO error: /db/LOCK: ..."), which the caller frees with
 *   shale_free. So *errptr is NULL after the call exactly when the call succeeded. errptr itself
 *   may be NULL to ignore errors.
 * - Data returned to the caller (values, properties, statistics) is a malloc'd buffer that the
 *   caller frees with shale_free. A returned value carries its length; it is not NUL-terminated.
 * - Keys and values are byte arrays with an explicit length: they may hold NUL bytes. They are
 *   read during the call only (the engine copies what it keeps).
 * - Booleans are unsigned char (0 false, anything else true); enums are int constants with
 *   RocksDB's numeric values.
 * - Setters never fail: a value out of range is stored as given and shale_open rejects it with
 *   "Invalid argument: <option>: ...". Knobs that the engine does not support yet are stored
 *   too, and shale_open rejects them with "Invalid argument: <option>: not supported yet; ...".
 *
 * Lifetimes: iterators and snapshots borrow their DB: destroy every iterator and release every
 * snapshot before shale_close. Option handles are copied when used (shale_open,
 * shale_create_iterator, shale_put, ...), so they may be destroyed right after the call; an
 * iterator keeps its own copy of the read options' bounds, but not of their snapshot, which
 * must stay unreleased while the iterator is alive.
 *
 * Thread-safety: a shale_t may be used from any number of threads at once, except
 * shale_close. Every other handle (options, batches, iterators, writers) is used by one thread
 * at a time; distinct handles are independent.
 */
#ifndef SHALE_C_H_
#define SHALE_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SHALE_LIBRARY_API
#else
#define SHALE_LIBRARY_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- Handles */

typedef struct shale_t shale_t;
typedef struct shale_options_t shale_options_t;
typedef struct shale_block_based_table_options_t shale_block_based_table_options_t;
typedef struct shale_filterpolicy_t shale_filterpolicy_t;
typedef struct shale_cache_t shale_cache_t;
typedef struct shale_lru_cache_options_t shale_lru_cache_options_t;
typedef struct shale_readoptions_t shale_readoptions_t;
typedef struct shale_writeoptions_t shale_writeoptions_t;
typedef struct shale_flushoptions_t shale_flushoptions_t;
typedef struct shale_writebatch_t shale_writebatch_t;
typedef struct shale_snapshot_t shale_snapshot_t;
typedef struct shale_iterator_t shale_iterator_t;
typedef struct shale_sstfilewriter_t shale_sstfilewriter_t;
typedef struct shale_ingestexternalfileoptions_t shale_ingestexternalfileoptions_t;
typedef struct shale_universal_compaction_options_t shale_universal_compaction_options_t;
typedef struct shale_fifo_compaction_options_t shale_fifo_compaction_options_t;
typedef struct shale_compactoptions_t shale_compactoptions_t;
typedef struct shale_column_family_handle_t shale_column_family_handle_t;

/* ---------------------------------------------------------------- Enums (RocksDB's values) */

/* shale_options_set_compression, shale_options_set_bottommost_compression and
 * shale_bulkloader_options_set_compression. ShaleDB builds none, Snappy, zlib, LZ4, LZ4HC (LZ4's
 * high-compression mode) and zstd (zlib's, LZ4HC's and zstd's level is the compression_level
 * option, see shale/options.h); RocksDB's bzip2 (3) and xpress (6) are refused with
 * InvalidArgument. */
enum {
  shale_no_compression = 0,
  shale_snappy_compression = 1,
  shale_zlib_compression = 2,
  shale_lz4_compression = 4,
  shale_lz4hc_compression = 5,
  shale_zstd_compression = 7
};

/* shale_options_set_compaction_style: leveled; universal (tiered); FIFO (the oldest tables are
 * deleted, for data that ages out); none (only manual compaction). See shale/options.h. */
enum {
  shale_level_compaction = 0,
  shale_universal_compaction = 1,
  shale_fifo_compaction = 2,
  shale_no_compaction = 3
};

/* shale_compactoptions_set_bottommost_level_compaction. */
enum {
  shale_bottommost_level_compaction_skip = 0,
  shale_bottommost_level_compaction_if_have_compaction_filter = 1,
  shale_bottommost_level_compaction_force = 2,
  shale_bottommost_level_compaction_force_optimized = 3
};

/* shale_block_based_options_set_index_type. */
enum {
  shale_block_based_table_index_type_binary_search = 0,
  shale_block_based_table_index_type_two_level_index_search = 2
};

/* shale_block_based_options_set_data_block_index_type. */
enum {
  shale_block_based_table_data_block_index_type_binary_search = 0,
  shale_block_based_table_data_block_index_type_binary_search_and_hash = 1
};

/* ---------------------------------------------------------------- DB */

/* Opens (or, with create_if_missing, creates) the DB in directory `name`. Returns NULL and
 * sets *errptr on failure: invalid options, a missing DB without create_if_missing, an existing
 * one with error_if_exists, a LOCK held by another open DB, corruption. */
extern SHALE_LIBRARY_API shale_t* shale_open(const shale_options_t* options, const char* name,
                                             char** errptr);
/* Opens the existing DB in directory `name` for reading only (RocksDB's
 * rocksdb_open_for_read_only): it takes no LOCK (a writer may hold the DB open), sees the DB as
 * of this call (its WALs replayed in memory), and changes no file of the DB. create_if_missing
 * is ignored: a missing DB is an error. With error_if_wal_file_exists non-zero, a live WAL is
 * an error ("Corruption: ...") instead of being replayed. Writes, flushes, compactions and
 * family changes on it fail with "Not implemented: Not supported operation in read only
 * mode.". Returns NULL and sets *errptr on failure. */
extern SHALE_LIBRARY_API shale_t* shale_open_for_read_only(const shale_options_t* options,
                                                           const char* name,
                                                           unsigned char error_if_wal_file_exists,
                                                           char** errptr);
/* Opens the existing DB in directory `name` as a secondary instance (RocksDB's
 * rocksdb_open_as_secondary): as shale_open_for_read_only (no LOCK, no file of the DB changed;
 * writes, flushes, compactions and family changes fail with "Not implemented: Not supported
 * operation in secondary mode."), but shale_try_catch_up_with_primary brings it up to the
 * primary's current state. `secondary_path` is the secondary's own directory (created if
 * missing, distinct from `name`), where its info LOG goes. Only the default family is opened.
 * Returns NULL and sets *errptr on failure. */
extern SHALE_LIBRARY_API shale_t* shale_open_as_secondary(const shale_options_t* options,
                                                          const char* name,
                                                          const char* secondary_path,
                                                          char** errptr);
/* A secondary instance (shale_open_as_secondary) reads what the primary wrote since its open or
 * last catch-up (new and deleted tables, new WAL writes): reads started afterwards see the
 * primary's state as of this call; iterators and snapshots taken before keep their view. On
 * failure *errptr is set and the previous state is kept. Any other DB: "Not implemented:
 * Supported only by secondary instance". */
extern SHALE_LIBRARY_API void shale_try_catch_up_with_primary(shale_t* db, char** errptr);
/* Closes the DB and frees the handle. Errors met while closing are dropped, as in RocksDB
 * (acknowledged writes are in the WAL and recovered by the next open). NULL is ignored. */
extern SHALE_LIBRARY_API void shale_close(shale_t* db);
/* Deletes the DB in `name` (fails while it is open). */
extern SHALE_LIBRARY_API void shale_destroy_db(const shale_options_t* options, const char* name,
                                               char** errptr);
/* Rebuilds the MANIFEST and CURRENT of the DB in `name` from its tables and WALs (RepairDB in
 * shale/db.h says what comes back and what cannot); `options` apply to every column family
 * found. Fails while the DB is open (its LOCK is held), for a missing directory (nothing is
 * created), and for a NULL `options` or `name` (InvalidArgument). */
extern SHALE_LIBRARY_API void shale_repair_db(const shale_options_t* options, const char* name,
                                              char** errptr);
/* Frees a buffer returned by this API (values, properties, error messages). */
extern SHALE_LIBRARY_API void shale_free(void* ptr);

/* ---------------------------------------------------------------- Options */

extern SHALE_LIBRARY_API shale_options_t* shale_options_create(void);
extern SHALE_LIBRARY_API void shale_options_destroy(shale_options_t* options);
extern SHALE_LIBRARY_API void shale_options_set_create_if_missing(shale_options_t* options,
                                                                  unsigned char v);
extern SHALE_LIBRARY_API void shale_options_set_error_if_exists(shale_options_t* options,
                                                                unsigned char v);
extern SHALE_LIBRARY_API void shale_options_set_paranoid_checks(shale_options_t* options,
                                                                unsigned char v);
extern SHALE_LIBRARY_API void shale_options_set_write_buffer_size(shale_options_t* options,
                                                                  size_t v);
extern SHALE_LIBRARY_API void shale_options_set_max_write_buffer_number(shale_options_t* options,
                                                                        int v);
extern SHALE_LIBRARY_API void shale_options_set_db_write_buffer_size(shale_options_t* options,
                                                                     size_t v);
extern SHALE_LIBRARY_API void shale_options_set_max_open_files(shale_options_t* options, int v);
/* One of the shale_*_compression values above. */
extern SHALE_LIBRARY_API void shale_options_set_compression(shale_options_t* options, int v);
/* The DB options of column families (Options::create_missing_column_families,
 * max_total_wal_size, atomic_flush; shale/options.h), RocksDB's names. Each getter returns what
 * the setter (or shale_get_options_from_string) stored. create_missing_column_families: opening
 * with column families creates the named ones the DB lacks. max_total_wal_size: bytes of live
 * WALs past which the families pinning the oldest WAL are flushed; 0 derives it from the
 * families' write buffers. atomic_flush: flush all families together. */
extern SHALE_LIBRARY_API void shale_options_set_create_missing_column_families(
    shale_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API unsigned char shale_options_get_create_missing_column_families(
    const shale_options_t* options);
extern SHALE_LIBRARY_API void shale_options_set_max_total_wal_size(shale_options_t* options,
                                                                   uint64_t n);
extern SHALE_LIBRARY_API uint64_t shale_options_get_max_total_wal_size(
    const shale_options_t* options);
extern SHALE_LIBRARY_API void shale_options_set_atomic_flush(shale_options_t* options,
                                                             unsigned char v);
extern SHALE_LIBRARY_API unsigned char shale_options_get_atomic_flush(
    const shale_options_t* options);
/* Options::avoid_flush_during_shutdown (shale/options.h), RocksDB's name. 0 (the default):
 * shale_close flushes the memtables (while they hold at most 256 MiB) so that the next open
 * replays no WAL; non-zero: shale_close leaves logged writes in the WAL. Writes made without
 * the WAL are flushed either way. The getter returns what the setter (or
 * shale_get_options_from_string) stored. Changeable on an open DB with shale_set_db_options. */
extern SHALE_LIBRARY_API void shale_options_set_avoid_flush_during_shutdown(
    shale_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API unsigned char shale_options_get_avoid_flush_during_shutdown(
    const shale_options_t* options);
/* The compaction knobs are in the Compaction section below. */

/* The presets of Options (shale/options.h). prepare_for_bulk_load turns automatic compaction
 * off and uses 2 levels: call shale_compact_range (or _opt) over everything when the load is
 * done. optimize_for_point_lookup with a non-zero size gives the options a new LRU block
 * cache of that many MiB (bloom filter and data-block hash index too). */
extern SHALE_LIBRARY_API void shale_options_prepare_for_bulk_load(shale_options_t* options);
extern SHALE_LIBRARY_API void shale_options_optimize_for_point_lookup(
    shale_options_t* options, uint64_t block_cache_size_mb);
extern SHALE_LIBRARY_API void shale_options_increase_parallelism(shale_options_t* options,
                                                                 int total_threads);
/* Gives the options a new statistics object; DBs opened with them count into it. */
extern SHALE_LIBRARY_API void shale_options_enable_statistics(shale_options_t* options);
/* The statistics as text (every ticker, then every histogram), malloc'd; NULL when
 * shale_options_enable_statistics was not called. */
extern SHALE_LIBRARY_API char* shale_options_statistics_get_string(shale_options_t* options);
/* Options::stats_dump_period_sec: every this many seconds the DB writes its statistics and
 * compaction debt to the info LOG; 0 disables. Default 600. A negative value makes open fail
 * ("Invalid argument: stats_dump_period_sec: ..."). */
extern SHALE_LIBRARY_API void shale_options_set_stats_dump_period_sec(shale_options_t* options,
                                                                      int seconds);
/* Parses a RocksDB-style options string ("write_buffer_size=64M;max_open_files=-1;
 * block_based_table_factory={block_size=8K}") onto a copy of `base` and stores the result in
 * `out`. On error `out` is unchanged and *errptr names the option. */
extern SHALE_LIBRARY_API void shale_get_options_from_string(const shale_options_t* base,
                                                            const char* opts_str,
                                                            shale_options_t* out, char** errptr);

/* ---------------------------------------------------------------- Progress */

/* How far a long operation has got (shale/progress.h): passed to a shale_progress_callback
 * given in a compaction's, a bulk load's or an ingestion's options, or to
 * shale_checkpoint_create_with_progress. Valid only during the call. The callback's `arg`
 * must stay valid as long as the operation may call it: for a bulk load until the loader is
 * finished or destroyed (the loader copies the callback when it is created), otherwise until
 * the call that runs the operation returns. */
typedef struct shale_progress_t shale_progress_t;
/* Called at most once per interval while the work goes on, and once at the end (finished =
 * 1), on one of the operation's threads, never twice at once for one operation; it must
 * return quickly and must not call into the DB or loader doing the work. */
typedef void (*shale_progress_callback)(void* arg, const shale_progress_t* progress);
/* "bulk_load", "compact_range", ...; and the step ("" when there is one). Static strings. */
extern SHALE_LIBRARY_API const char* shale_progress_operation(const shale_progress_t* p);
extern SHALE_LIBRARY_API const char* shale_progress_stage(const shale_progress_t* p);
/* Work done and the estimated totals (0: not known). */
extern SHALE_LIBRARY_API uint64_t shale_progress_bytes_done(const shale_progress_t* p);
extern SHALE_LIBRARY_API uint64_t shale_progress_bytes_total(const shale_progress_t* p);
extern SHALE_LIBRARY_API uint64_t shale_progress_entries_done(const shale_progress_t* p);
extern SHALE_LIBRARY_API uint64_t shale_progress_entries_total(const shale_progress_t* p);
extern SHALE_LIBRARY_API double shale_progress_elapsed_seconds(const shale_progress_t* p);
extern SHALE_LIBRARY_API double shale_progress_bytes_per_second(const shale_progress_t* p);
/* Estimated seconds left; -1 when not known yet. */
extern SHALE_LIBRARY_API double shale_progress_eta_seconds(const shale_progress_t* p);
/* Done over total in [0, 1] (1 once finished). */
extern SHALE_LIBRARY_API double shale_progress_fraction(const shale_progress_t* p);
extern SHALE_LIBRARY_API unsigned char shale_progress_finished(const shale_progress_t* p);

/* ---------------------------------------------------------------- Compaction */

/* One of the shale_*_compaction constants. */
extern SHALE_LIBRARY_API void shale_options_set_compaction_style(shale_options_t* options, int v);
/* No automatic compactions (manual ones still run); changeable on an open DB with
 * shale_set_options("disable_auto_compactions", "false"), which schedules what is due. */
extern SHALE_LIBRARY_API void shale_options_set_disable_auto_compactions(shale_options_t* options,
                                                                         int v);
extern SHALE_LIBRARY_API void shale_options_set_level0_file_num_compaction_trigger(
    shale_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_options_set_level0_slowdown_writes_trigger(
    shale_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_options_set_level0_stop_writes_trigger(
    shale_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_options_set_target_file_size_base(shale_options_t* options,
                                                                      uint64_t v);
extern SHALE_LIBRARY_API void shale_options_set_target_file_size_multiplier(
    shale_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_options_set_max_bytes_for_level_base(shale_options_t* options,
                                                                         uint64_t v);
extern SHALE_LIBRARY_API void shale_options_set_max_bytes_for_level_multiplier(
    shale_options_t* options, double v);
extern SHALE_LIBRARY_API void shale_options_set_level_compaction_dynamic_level_bytes(
    shale_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API void shale_options_set_max_background_jobs(shale_options_t* options,
                                                                    int v);
extern SHALE_LIBRARY_API void shale_options_set_max_subcompactions(shale_options_t* options,
                                                                   uint32_t v);
/* Writes slow down to delayed_write_rate (bytes/s) past the soft limit of bytes compaction
 * owes and stop past the hard one; 0 disables a limit. */
extern SHALE_LIBRARY_API void shale_options_set_soft_pending_compaction_bytes_limit(
    shale_options_t* options, size_t v);
extern SHALE_LIBRARY_API void shale_options_set_hard_pending_compaction_bytes_limit(
    shale_options_t* options, size_t v);
extern SHALE_LIBRARY_API void shale_options_set_delayed_write_rate(shale_options_t* options,
                                                                   uint64_t v);
/* Seconds after which FIFO deletes a table; 0 disables. shale_open rejects a non-zero value
 * with any other compaction style ("Invalid argument: ttl: ..."). */
extern SHALE_LIBRARY_API void shale_options_set_ttl(shale_options_t* options, uint64_t seconds);
/* Reserves the last level for shale_ingestexternalfileoptions_set_ingest_behind: no flush or
 * compaction writes there (RocksDB's allow_ingest_behind). Needs num_levels >= 3. */
extern SHALE_LIBRARY_API void shale_options_set_allow_ingest_behind(shale_options_t* options,
                                                                   unsigned char v);
/* The compression of the bottommost level: one of the shale_*_compression values, or 0xff
 * (RocksDB's kDisableCompressionOption, the default: the same as `compression`). */
extern SHALE_LIBRARY_API void shale_options_set_bottommost_compression(shale_options_t* options,
                                                                       int v);

/* The knobs of shale_universal_compaction, copied into the options by
 * shale_options_set_universal_compaction_options (destroy the handle when you like). Values
 * are unsigned in the engine: a negative one is stored as a huge number. */
extern SHALE_LIBRARY_API shale_universal_compaction_options_t*
shale_universal_compaction_options_create(void);
extern SHALE_LIBRARY_API void shale_universal_compaction_options_set_size_ratio(
    shale_universal_compaction_options_t* uco, int v);
extern SHALE_LIBRARY_API void shale_universal_compaction_options_set_min_merge_width(
    shale_universal_compaction_options_t* uco, int v);
extern SHALE_LIBRARY_API void shale_universal_compaction_options_set_max_merge_width(
    shale_universal_compaction_options_t* uco, int v);
extern SHALE_LIBRARY_API void shale_universal_compaction_options_set_max_size_amplification_percent(
    shale_universal_compaction_options_t* uco, int v);
extern SHALE_LIBRARY_API void shale_universal_compaction_options_destroy(
    shale_universal_compaction_options_t* uco);
extern SHALE_LIBRARY_API void shale_options_set_universal_compaction_options(
    shale_options_t* options, shale_universal_compaction_options_t* uco);

/* The knobs of shale_fifo_compaction, copied into the options by
 * shale_options_set_fifo_compaction_options: once the tables exceed max_table_files_size bytes
 * in all, the oldest are deleted. */
extern SHALE_LIBRARY_API shale_fifo_compaction_options_t* shale_fifo_compaction_options_create(
    void);
extern SHALE_LIBRARY_API void shale_fifo_compaction_options_set_max_table_files_size(
    shale_fifo_compaction_options_t* fifo_opts, uint64_t size);
extern SHALE_LIBRARY_API void shale_fifo_compaction_options_destroy(
    shale_fifo_compaction_options_t* fifo_opts);
extern SHALE_LIBRARY_API void shale_options_set_fifo_compaction_options(
    shale_options_t* options, shale_fifo_compaction_options_t* fifo);

/* Options of a manual compaction (CompactRangeOptions in shale/options.h). Defaults: exclusive
 * (waits for the automatic compactions to finish), no level change, target level -1 (the
 * bottom level, with change_level), bottommost level compacted only with a compaction
 * filter. */
extern SHALE_LIBRARY_API shale_compactoptions_t* shale_compactoptions_create(void);
extern SHALE_LIBRARY_API void shale_compactoptions_destroy(shale_compactoptions_t* opt);
extern SHALE_LIBRARY_API void shale_compactoptions_set_exclusive_manual_compaction(
    shale_compactoptions_t* opt, unsigned char v);
/* One of the shale_bottommost_level_compaction_* constants. */
extern SHALE_LIBRARY_API void shale_compactoptions_set_bottommost_level_compaction(
    shale_compactoptions_t* opt, unsigned char v);
/* Move the compaction's output to target_level. */
extern SHALE_LIBRARY_API void shale_compactoptions_set_change_level(shale_compactoptions_t* opt,
                                                                   unsigned char v);
extern SHALE_LIBRARY_API void shale_compactoptions_set_target_level(shale_compactoptions_t* opt,
                                                                   int n);
/* Reports the compaction's progress to callback(arg, ...) at most every interval_seconds
 * (0: every few thousand entries); callback NULL: no reports. An error (in *errptr) when
 * interval_seconds is negative or not a number; the options are then unchanged. */
extern SHALE_LIBRARY_API void shale_compactoptions_set_progress(
    shale_compactoptions_t* opt, shale_progress_callback callback, void* arg,
    double interval_seconds, char** errptr);

/* Flushes the memtables, then compacts the keys in [start_key, limit_key]; a NULL start or
 * limit is an open end. Returns when the compaction is done. As in RocksDB, an error is not
 * reported here (a failed compaction shows in later writes as the background error; a
 * target_level at or past num_levels makes the call do nothing). */
extern SHALE_LIBRARY_API void shale_compact_range(shale_t* db, const char* start_key,
                                                  size_t start_key_len, const char* limit_key,
                                                  size_t limit_key_len);
/* shale_compact_range with options. */
extern SHALE_LIBRARY_API void shale_compact_range_opt(shale_t* db, shale_compactoptions_t* opt,
                                                      const char* start_key,
                                                      size_t start_key_len,
                                                      const char* limit_key,
                                                      size_t limit_key_len);

/* ---------------------------------------------------------------- Table options */

extern SHALE_LIBRARY_API shale_block_based_table_options_t* shale_block_based_options_create(
    void);
/* Also destroys the filter policy given to it. */
extern SHALE_LIBRARY_API void shale_block_based_options_destroy(
    shale_block_based_table_options_t* options);
extern SHALE_LIBRARY_API void shale_block_based_options_set_block_size(
    shale_block_based_table_options_t* options, size_t block_size);
/* Keys between restart points in data and index blocks (TableOptions::block_restart_interval,
 * index_block_restart_interval); values below 1 are taken as 1. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_block_restart_interval(
    shale_block_based_table_options_t* options, int block_restart_interval);
extern SHALE_LIBRARY_API void shale_block_based_options_set_index_block_restart_interval(
    shale_block_based_table_options_t* options, int index_block_restart_interval);
/* Takes ownership of `policy` (as RocksDB does): do not destroy it afterwards; it is destroyed
 * with the table options or when another policy is set. NULL removes the filter. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_filter_policy(
    shale_block_based_table_options_t* options, shale_filterpolicy_t* policy);
extern SHALE_LIBRARY_API void shale_block_based_options_set_partition_filters(
    shale_block_based_table_options_t* options, unsigned char v);
/* One of the shale_block_based_table_index_type_* constants. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_index_type(
    shale_block_based_table_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_block_based_options_set_metadata_block_size(
    shale_block_based_table_options_t* options, uint64_t v);
/* TableOptions::cache_index_and_filter_blocks, pin_top_level_index_and_filter,
 * pin_l0_filter_and_index_blocks_in_cache and no_block_cache (shale/table_options.h): keep the
 * tables' index and filter in the block cache (pinned or not) instead of in table readers;
 * no block cache at all. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_cache_index_and_filter_blocks(
    shale_block_based_table_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API void shale_block_based_options_set_pin_top_level_index_and_filter(
    shale_block_based_table_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API void
shale_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
    shale_block_based_table_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API void shale_block_based_options_set_no_block_cache(
    shale_block_based_table_options_t* options, unsigned char v);
/* TableOptions::charge_table_reader_memory (shale/table_options.h): charge the memory of open
 * tables' readers (index and filter) to the block cache's capacity. Default: 1. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_charge_table_reader_memory(
    shale_block_based_table_options_t* options, unsigned char v);
/* One of the shale_block_based_table_data_block_index_type_* constants. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_data_block_index_type(
    shale_block_based_table_options_t* options, int v);
extern SHALE_LIBRARY_API void shale_block_based_options_set_enable_index_compression(
    shale_block_based_table_options_t* options, unsigned char v);
/* The table options share the cache (the handle may be destroyed right after; the cache
 * lives while options or DBs use it). NULL: the DB makes its own 8 MiB cache, unless
 * no_block_cache is set. */
extern SHALE_LIBRARY_API void shale_block_based_options_set_block_cache(
    shale_block_based_table_options_t* options, shale_cache_t* cache);
/* Copies the table options (sharing their block cache) into `opt`. */
extern SHALE_LIBRARY_API void shale_options_set_block_based_table_factory(
    shale_options_t* opt, shale_block_based_table_options_t* table_options);

/* A cache-line-local bloom filter with `bits_per_key` bits per key (10: about 1% false
 * positives). */
extern SHALE_LIBRARY_API shale_filterpolicy_t* shale_filterpolicy_create_bloom(
    double bits_per_key);
/* Only for a policy that was not given to shale_block_based_options_set_filter_policy. */
extern SHALE_LIBRARY_API void shale_filterpolicy_destroy(shale_filterpolicy_t* policy);

/* The block cache (shale/cache.h): an LRU cache with a byte capacity, sharded, with a
 * high-priority pool for index and filter blocks; one cache may serve several DBs (give it to
 * each DB's table options). shale_cache_create_lru uses the defaults (shard count from the
 * capacity, no strict limit, high-priority ratio 0.5); _opts returns NULL when an option is out
 * of range (num_shard_bits >= 20, ratio outside [0, 1]). Usage counts every entry held,
 * pinned usage the entries in use right now. */
extern SHALE_LIBRARY_API shale_cache_t* shale_cache_create_lru(size_t capacity);
extern SHALE_LIBRARY_API shale_cache_t* shale_cache_create_lru_with_strict_capacity_limit(
    size_t capacity);
extern SHALE_LIBRARY_API shale_cache_t* shale_cache_create_lru_opts(
    const shale_lru_cache_options_t* options);
extern SHALE_LIBRARY_API void shale_cache_destroy(shale_cache_t* cache);
extern SHALE_LIBRARY_API void shale_cache_set_capacity(shale_cache_t* cache, size_t capacity);
extern SHALE_LIBRARY_API size_t shale_cache_get_capacity(const shale_cache_t* cache);
extern SHALE_LIBRARY_API size_t shale_cache_get_usage(const shale_cache_t* cache);
extern SHALE_LIBRARY_API size_t shale_cache_get_pinned_usage(const shale_cache_t* cache);
extern SHALE_LIBRARY_API size_t shale_cache_get_occupancy_count(const shale_cache_t* cache);

extern SHALE_LIBRARY_API shale_lru_cache_options_t* shale_lru_cache_options_create(void);
extern SHALE_LIBRARY_API void shale_lru_cache_options_destroy(shale_lru_cache_options_t* options);
extern SHALE_LIBRARY_API void shale_lru_cache_options_set_capacity(
    shale_lru_cache_options_t* options, size_t capacity);
/* -1 (the default): a count so that each shard holds at least 512 KiB, at most 64 shards. */
extern SHALE_LIBRARY_API void shale_lru_cache_options_set_num_shard_bits(
    shale_lru_cache_options_t* options, int bits);
extern SHALE_LIBRARY_API void shale_lru_cache_options_set_strict_capacity_limit(
    shale_lru_cache_options_t* options, unsigned char v);
extern SHALE_LIBRARY_API void shale_lru_cache_options_set_high_pri_pool_ratio(
    shale_lru_cache_options_t* options, double ratio);

/* ---------------------------------------------------------------- Writes */

extern SHALE_LIBRARY_API shale_writeoptions_t* shale_writeoptions_create(void);
extern SHALE_LIBRARY_API void shale_writeoptions_destroy(shale_writeoptions_t* options);
extern SHALE_LIBRARY_API void shale_writeoptions_set_sync(shale_writeoptions_t* options,
                                                          unsigned char v);
extern SHALE_LIBRARY_API void shale_writeoptions_disable_WAL(shale_writeoptions_t* options,
                                                             int disable);

extern SHALE_LIBRARY_API void shale_put(shale_t* db, const shale_writeoptions_t* options,
                                        const char* key, size_t keylen, const char* val,
                                        size_t vallen, char** errptr);
extern SHALE_LIBRARY_API void shale_delete(shale_t* db, const shale_writeoptions_t* options,
                                           const char* key, size_t keylen, char** errptr);
/* Removes a key that was Put at most once since its last deletion (see DB::SingleDelete). */
extern SHALE_LIBRARY_API void shale_singledelete(shale_t* db, const shale_writeoptions_t* options,
                                                 const char* key, size_t keylen, char** errptr);
/* Deletes the keys in [start_key, end_key); an error if end_key < start_key. */
extern SHALE_LIBRARY_API void shale_delete_range(shale_t* db, const shale_writeoptions_t* options,
                                                 const char* start_key, size_t start_key_len,
                                                 const char* end_key, size_t end_key_len,
                                                 char** errptr);
/* Applies the batch atomically. Fails, writing nothing, when an update of the batch failed
 * (see the write batch functions). */
extern SHALE_LIBRARY_API void shale_write(shale_t* db, const shale_writeoptions_t* options,
                                          shale_writebatch_t* batch, char** errptr);

/* Reads num_keys keys at one snapshot, as RocksDB's rocksdb_multi_get: for each i,
 * values_list[i] is a malloc'd value (length in values_list_sizes[i]) or NULL when the key is
 * absent or on error; errs[i] is NULL or a malloc'd message. Free each with shale_free. */
extern SHALE_LIBRARY_API void shale_multi_get(shale_t* db, const shale_readoptions_t* options,
                                              size_t num_keys, const char* const* keys_list,
                                              const size_t* keys_list_sizes, char** values_list,
                                              size_t* values_list_sizes, char** errs);
/* Changes dynamic options of the default column family, all or none (DB::SetOptions):
 * keys[i]=values[i], RocksDB's names. DB-wide options (max_background_jobs, ...) go through
 * shale_set_db_options; shale_set_options_cf changes another family's. */
extern SHALE_LIBRARY_API void shale_set_options(shale_t* db, int count, const char* const keys[],
                                                const char* const values[], char** errptr);
/* Clears the background error once its cause is gone (DB::Resume). */
extern SHALE_LIBRARY_API void shale_resume(shale_t* db, char** errptr);
/* Approximate table bytes of each range [start, limit) (DB::GetApproximateSizes). */
extern SHALE_LIBRARY_API void shale_approximate_sizes(
    shale_t* db, int num_ranges, const char* const* range_start_key,
    const size_t* range_start_key_len, const char* const* range_limit_key,
    const size_t* range_limit_key_len, uint64_t* sizes, char** errptr);

/* The size limits of shale/limits.h (doc/size_limits.md): the longest key (each end of a range
 * deletion included), the longest value or merge operand, the largest write batch (serialized
 * bytes), and the largest block_size / metadata_block_size. A larger key or value is refused
 * with an InvalidArgument error by every write function, SstFileWriter and BulkLoader, and
 * nothing is written. */
#define SHALE_MAX_KEY_SIZE ((size_t)8 << 20)                               /* 8 MiB */
#define SHALE_MAX_VALUE_SIZE (((size_t)1 << 30) - ((size_t)16 << 20))      /* 1008 MiB */
#define SHALE_MAX_WRITE_BATCH_SIZE ((size_t)1 << 31)                       /* 2 GiB */
#define SHALE_MAX_TABLE_BLOCK_SIZE ((uint64_t)256 << 20)                  /* 256 MiB */

/* A write batch's updates return nothing, as RocksDB's do. An update the batch cannot hold (a
 * key or value over the size limits above, or one that would take the batch past
 * SHALE_MAX_WRITE_BATCH_SIZE) is not added; the batch remembers the first such error and
 * shale_write then fails with it. shale_writebatch_clear forgets it. */
extern SHALE_LIBRARY_API shale_writebatch_t* shale_writebatch_create(void);
extern SHALE_LIBRARY_API void shale_writebatch_destroy(shale_writebatch_t* batch);
extern SHALE_LIBRARY_API void shale_writebatch_clear(shale_writebatch_t* batch);
/* The number of updates in the batch. */
extern SHALE_LIBRARY_API int shale_writebatch_count(shale_writebatch_t* batch);
extern SHALE_LIBRARY_API void shale_writebatch_put(shale_writebatch_t* batch, const char* key,
                                                   size_t klen, const char* val, size_t vlen);
extern SHALE_LIBRARY_API void shale_writebatch_delete(shale_writebatch_t* batch, const char* key,
                                                      size_t klen);
extern SHALE_LIBRARY_API void shale_writebatch_delete_range(shale_writebatch_t* batch,
                                                            const char* start_key,
                                                            size_t start_key_len,
                                                            const char* end_key,
                                                            size_t end_key_len);

/* ---------------------------------------------------------------- Reads */

extern SHALE_LIBRARY_API shale_readoptions_t* shale_readoptions_create(void);
extern SHALE_LIBRARY_API void shale_readoptions_destroy(shale_readoptions_t* options);
/* Reads as of `snapshot`; NULL reads the latest state. The snapshot is borrowed. */
extern SHALE_LIBRARY_API void shale_readoptions_set_snapshot(shale_readoptions_t* options,
                                                             const shale_snapshot_t* snapshot);
extern SHALE_LIBRARY_API void shale_readoptions_set_verify_checksums(
    shale_readoptions_t* options, unsigned char v);
extern SHALE_LIBRARY_API void shale_readoptions_set_fill_cache(shale_readoptions_t* options,
                                                               unsigned char v);
/* Iterators see only keys >= the lower bound and < the upper bound. The bytes are copied;
 * key NULL removes the bound. */
extern SHALE_LIBRARY_API void shale_readoptions_set_iterate_lower_bound(
    shale_readoptions_t* options, const char* key, size_t keylen);
extern SHALE_LIBRARY_API void shale_readoptions_set_iterate_upper_bound(
    shale_readoptions_t* options, const char* key, size_t keylen);

/* The value of `key`, malloc'd (free it with shale_free), its length in *vallen. Returns NULL
 * with *vallen = 0 and no error when the key is absent, NULL with *errptr set on error. An
 * empty value is a non-NULL pointer with *vallen = 0. */
extern SHALE_LIBRARY_API char* shale_get(shale_t* db, const shale_readoptions_t* options,
                                         const char* key, size_t keylen, size_t* vallen,
                                         char** errptr);

/* A snapshot of the DB's current state; release it with shale_release_snapshot, which also
 * frees the handle. */
extern SHALE_LIBRARY_API const shale_snapshot_t* shale_create_snapshot(shale_t* db);
extern SHALE_LIBRARY_API void shale_release_snapshot(shale_t* db,
                                                     const shale_snapshot_t* snapshot);

/* A new, unpositioned iterator over the DB as of the options' snapshot (or now). */
extern SHALE_LIBRARY_API shale_iterator_t* shale_create_iterator(
    shale_t* db, const shale_readoptions_t* options);
extern SHALE_LIBRARY_API void shale_iter_destroy(shale_iterator_t* iter);
extern SHALE_LIBRARY_API unsigned char shale_iter_valid(const shale_iterator_t* iter);
extern SHALE_LIBRARY_API void shale_iter_seek_to_first(shale_iterator_t* iter);
extern SHALE_LIBRARY_API void shale_iter_seek_to_last(shale_iterator_t* iter);
/* Positions at the first key >= k. */
extern SHALE_LIBRARY_API void shale_iter_seek(shale_iterator_t* iter, const char* k, size_t klen);
/* Positions at the last key <= k. */
extern SHALE_LIBRARY_API void shale_iter_seek_for_prev(shale_iterator_t* iter, const char* k,
                                                       size_t klen);
/* next and prev do nothing when the iterator is not valid. */
extern SHALE_LIBRARY_API void shale_iter_next(shale_iterator_t* iter);
extern SHALE_LIBRARY_API void shale_iter_prev(shale_iterator_t* iter);
/* The current key and value, owned by the iterator and valid until it moves or is destroyed
 * (not NUL-terminated). NULL with length 0 when the iterator is not valid. */
extern SHALE_LIBRARY_API const char* shale_iter_key(const shale_iterator_t* iter, size_t* klen);
extern SHALE_LIBRARY_API const char* shale_iter_value(const shale_iterator_t* iter,
                                                      size_t* vlen);
/* Sets *errptr when an error stopped the iterator (running off the end is not an error). */
extern SHALE_LIBRARY_API void shale_iter_get_error(const shale_iterator_t* iter, char** errptr);

/* ---------------------------------------------------------------- Maintenance */

extern SHALE_LIBRARY_API shale_flushoptions_t* shale_flushoptions_create(void);
extern SHALE_LIBRARY_API void shale_flushoptions_destroy(shale_flushoptions_t* options);
/* Wait for the flush to finish (default: 1). */
extern SHALE_LIBRARY_API void shale_flushoptions_set_wait(shale_flushoptions_t* options,
                                                          unsigned char v);
extern SHALE_LIBRARY_API void shale_flush(shale_t* db, const shale_flushoptions_t* options,
                                          char** errptr);
/* Syncs the WAL when `sync` is set, so that every write acknowledged before the call survives
 * a machine crash (DB::FlushWAL; RocksDB's rocksdb_flush_wal). Without `sync` there is nothing
 * to do: each write reaches the WAL file before it is acknowledged. */
extern SHALE_LIBRARY_API void shale_flush_wal(shale_t* db, unsigned char sync, char** errptr);
/* While disabled, no file the DB no longer needs is deleted (for copying the DB's files from
 * outside). Calls nest: each disable is undone by one enable with force 0; force 1 enables at
 * once; enabling deletes what was kept (DB::DisableFileDeletions / EnableFileDeletions;
 * RocksDB's rocksdb_disable_file_deletions / rocksdb_enable_file_deletions). */
extern SHALE_LIBRARY_API void shale_disable_file_deletions(shale_t* db, char** errptr);
extern SHALE_LIBRARY_API void shale_enable_file_deletions(shale_t* db, unsigned char force,
                                                          char** errptr);
/* Drops the table files of levels 1 and below whose keys all lie in [start, limit] (a NULL key:
 * unbounded), for every reader at once, snapshots included; L0 files, files being compacted,
 * files partly overlapping the range and the memtables keep theirs (DB::DeleteFilesInRange;
 * RocksDB's rocksdb_delete_file_in_range). A fast way to reclaim space, not a deletion of the
 * range: as in RocksDB, older versions of dropped keys (and keys a dropped tombstone deleted)
 * that a kept file holds become visible again. */
extern SHALE_LIBRARY_API void shale_delete_file_in_range(shale_t* db, const char* start_key,
                                                         size_t start_key_len,
                                                         const char* limit_key,
                                                         size_t limit_key_len, char** errptr);
/* Manual compaction (shale_compact_range, shale_compact_range_opt) is in the Compaction
 * section. */
/* A property as malloc'd, NUL-terminated text ("shale.stats", "shale.num-files-at-level0",
 * "shale.compaction-pending", "shale.memtable-allocator", ... see shale/db.h; RocksDB's
 * "rocksdb.<name>" for the properties RocksDB shares, e.g.
 * "rocksdb.estimate-pending-compaction-bytes"); NULL for an unknown property. */
extern SHALE_LIBRARY_API char* shale_property_value(shale_t* db, const char* propname);
/* A numeric property in *out_val: 0 on success, -1 when unknown or not numeric. */
extern SHALE_LIBRARY_API int shale_property_int(shale_t* db, const char* propname,
                                                uint64_t* out_val);
/* The sequence number of the most recent write (DB::GetLatestSequenceNumber). */
extern SHALE_LIBRARY_API uint64_t shale_get_latest_sequence_number(shale_t* db);
/* Reads every block of every live table file and checks its checksum (DB::VerifyChecksum;
 * RocksDB's rocksdb_verify_checksum): an error ("Corruption: ...") naming the file on the first
 * bad block. Blocks are read from the files, never through the block cache. */
extern SHALE_LIBRARY_API void shale_verify_checksum(shale_t* db, char** errptr);
/* shale_verify_checksum, reporting its progress (operation "verify"; bytes of the live table
 * files verified of their total, entries = files) to callback(arg, ...) at most every
 * interval_seconds (0: after every file); an error for a negative interval. A NULL callback
 * reports nothing. */
extern SHALE_LIBRARY_API void shale_verify_checksum_with_progress(
    shale_t* db, shale_progress_callback callback, void* arg, double interval_seconds,
    char** errptr);

/* ---------------------------------------------------------------- External table files */

/* A writer of table files for shale_ingest_external_file, with the options' table options,
 * compression (the bottommost compression when one is set) and comparator. */
extern SHALE_LIBRARY_API shale_sstfilewriter_t* shale_sstfilewriter_create(
    const shale_options_t* io_options);
/* Creates the file. An error if the writer already has a file open. */
extern SHALE_LIBRARY_API void shale_sstfilewriter_open(shale_sstfilewriter_t* writer,
                                                       const char* name, char** errptr);
/* Keys must come in strictly increasing order; errors are sticky (see shale/sst_file_writer.h). */
extern SHALE_LIBRARY_API void shale_sstfilewriter_put(shale_sstfilewriter_t* writer,
                                                      const char* key, size_t keylen,
                                                      const char* val, size_t vallen,
                                                      char** errptr);
extern SHALE_LIBRARY_API void shale_sstfilewriter_delete(shale_sstfilewriter_t* writer,
                                                         const char* key, size_t keylen,
                                                         char** errptr);
/* A merge operand for key (the file then needs a DB with a merge operator to be ingested). */
extern SHALE_LIBRARY_API void shale_sstfilewriter_merge(shale_sstfilewriter_t* writer,
                                                        const char* key, size_t keylen,
                                                        const char* val, size_t vallen,
                                                        char** errptr);
/* Deletes the keys in [begin_key, end_key); may come in any order relative to the point keys. */
extern SHALE_LIBRARY_API void shale_sstfilewriter_delete_range(
    shale_sstfilewriter_t* writer, const char* begin_key, size_t begin_keylen,
    const char* end_key, size_t end_keylen, char** errptr);
/* Completes and syncs the file. A file with no entries cannot be finished. */
extern SHALE_LIBRARY_API void shale_sstfilewriter_finish(shale_sstfilewriter_t* writer,
                                                         char** errptr);
/* Abandons (and deletes) an unfinished file. */
extern SHALE_LIBRARY_API void shale_sstfilewriter_destroy(shale_sstfilewriter_t* writer);

extern SHALE_LIBRARY_API shale_ingestexternalfileoptions_t*
shale_ingestexternalfileoptions_create(void);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_destroy(
    shale_ingestexternalfileoptions_t* options);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_move_files(
    shale_ingestexternalfileoptions_t* options, unsigned char move_files);
/* The other fields of IngestExternalFileOptions (shale/options.h), with RocksDB's names. */
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_snapshot_consistency(
    shale_ingestexternalfileoptions_t* options, unsigned char snapshot_consistency);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_allow_global_seqno(
    shale_ingestexternalfileoptions_t* options, unsigned char allow_global_seqno);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_allow_blocking_flush(
    shale_ingestexternalfileoptions_t* options, unsigned char allow_blocking_flush);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_ingest_behind(
    shale_ingestexternalfileoptions_t* options, unsigned char ingest_behind);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_verify_checksums_before_ingest(
    shale_ingestexternalfileoptions_t* options, unsigned char verify_checksums_before_ingest);
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_write_global_seqno(
    shale_ingestexternalfileoptions_t* options, unsigned char write_global_seqno);
/* Reports the progress of bringing the files in (copies, links) to callback(arg, ...) at most
 * every interval_seconds (0: every file and chunk copied); callback NULL: no reports. An error
 * (in *errptr) when interval_seconds is negative or not a number; the options are then
 * unchanged. */
extern SHALE_LIBRARY_API void shale_ingestexternalfileoptions_set_progress(
    shale_ingestexternalfileoptions_t* options, shale_progress_callback callback, void* arg,
    double interval_seconds, char** errptr);
/* Links (move_files) or copies the `list_len` files written by a shale_sstfilewriter_t into the
 * DB, all or none, each at the lowest level where it overlaps nothing. */
extern SHALE_LIBRARY_API void shale_ingest_external_file(
    shale_t* db, const char* const* file_list, size_t list_len,
    const shale_ingestexternalfileoptions_t* options, char** errptr);

/* ---------------------------------------------------------------- Checkpoints */

/* An openable copy of a live DB in another directory: hard links to its table files (copies
 * across file systems) plus a fresh MANIFEST, CURRENT and OPTIONS file (shale/checkpoint.h). */
typedef struct shale_checkpoint_t shale_checkpoint_t;

/* A checkpoint maker for `db`, which must outlive it. */
extern SHALE_LIBRARY_API shale_checkpoint_t* shale_checkpoint_object_create(shale_t* db,
                                                                            char** errptr);
/* Builds the copy in `checkpoint_dir`, which must not exist (its parent must). With
 * log_size_for_flush 0 the memtables are flushed first; with more, the live WALs are copied
 * instead when they are smaller than that many bytes. */
extern SHALE_LIBRARY_API void shale_checkpoint_create(shale_checkpoint_t* checkpoint,
                                                      const char* checkpoint_dir,
                                                      uint64_t log_size_for_flush,
                                                      char** errptr);
/* shale_checkpoint_create, reporting its progress to callback(arg, ...) at most every
 * interval_seconds (0: every file and chunk copied); an error for a negative interval. */
extern SHALE_LIBRARY_API void shale_checkpoint_create_with_progress(
    shale_checkpoint_t* checkpoint, const char* checkpoint_dir, uint64_t log_size_for_flush,
    shale_progress_callback callback, void* arg, double interval_seconds, char** errptr);
extern SHALE_LIBRARY_API void shale_checkpoint_object_destroy(shale_checkpoint_t* checkpoint);

/* ---------------------------------------------------------------- Bulk loader */

/* Loads key-value pairs given in any order into a DB (shale/bulk_loader.h): sorts them in runs
 * bounded by a memory budget (spilling sorted runs to a temporary directory), merges them into
 * table files with several threads and ingests those at shale_bulkloader_finish. When a key is
 * added more than once, the last value wins. Nothing is visible in the DB before finish. */
typedef struct shale_bulkloader_t shale_bulkloader_t;
typedef struct shale_bulkloader_options_t shale_bulkloader_options_t;

/* Options with the defaults: a 512 MiB budget, the DB's max_background_jobs threads (at least
 * 2), "<db>/bulkload.tmp", the DB's target_file_size_base and compression. */
extern SHALE_LIBRARY_API shale_bulkloader_options_t* shale_bulkloader_options_create(void);
extern SHALE_LIBRARY_API void shale_bulkloader_options_destroy(
    shale_bulkloader_options_t* options);
/* Bytes of memory for sorting (two buffers of half each); at least 64 KiB. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_memory_budget(
    shale_bulkloader_options_t* options, uint64_t bytes);
/* Merge threads in finish; 0: the DB's max_background_jobs, at least 2. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_threads(
    shale_bulkloader_options_t* options, int threads);
/* Directory for spilled runs and table files before ingestion (NUL-terminated; copied). */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_temp_dir(
    shale_bulkloader_options_t* options, const char* dir);
/* Table files are cut at this size in bytes; 0: the DB's target_file_size_base. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_target_file_size(
    shale_bulkloader_options_t* options, uint64_t bytes);
/* One of the shale_*_compression values, or 0xff (the default: the DB's). */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_compression(
    shale_bulkloader_options_t* options, int compression);
/* File descriptors finish's merge may hold open at once (more spilled runs are merged in
 * passes); 0 (the default): automatic, from RLIMIT_NOFILE, the descriptors open and the DB's
 * max_open_files; otherwise at least 3. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_max_open_files(
    shale_bulkloader_options_t* options, int max_open_files);
/* The column family the pairs are loaded into, whose options shape the table files (the
 * handle is borrowed: it must outlive the loaders created with these options); NULL (the
 * default): the default family. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_column_family(
    shale_bulkloader_options_t* options, shale_column_family_handle_t* column_family);
/* Reports finish's progress to callback(arg, ...) at most every interval_seconds (0: at every
 * counted step); callback NULL: no reports. An error (in *errptr) when interval_seconds is
 * negative or not a number; the options are then unchanged. */
extern SHALE_LIBRARY_API void shale_bulkloader_options_set_progress(
    shale_bulkloader_options_t* options, shale_progress_callback callback, void* arg,
    double interval_seconds, char** errptr);

/* A loader into `db`, which must stay open until the loader is finished or destroyed. NULL
 * with an error when an option is invalid, the DB is closed or the temporary directory cannot
 * be made. */
extern SHALE_LIBRARY_API shale_bulkloader_t* shale_bulkloader_create(
    shale_t* db, const shale_bulkloader_options_t* options, char** errptr);
/* Adds key -> val (copied). Errors are sticky. */
extern SHALE_LIBRARY_API void shale_bulkloader_add(shale_bulkloader_t* loader, const char* key,
                                                   size_t keylen, const char* val,
                                                   size_t vallen, char** errptr);
/* Sorts, merges, writes and ingests everything added, all or nothing, and removes the
 * temporary files. An error when called twice. */
extern SHALE_LIBRARY_API void shale_bulkloader_finish(shale_bulkloader_t* loader,
                                                      char** errptr);
/* Abandons an unfinished load (removing its temporary files) and frees the loader. */
extern SHALE_LIBRARY_API void shale_bulkloader_destroy(shale_bulkloader_t* loader);

/* ---------------------------------------------------------------- Column families */

/* A DB holds one or more column families (shale/db.h): keyspaces with their own memtables,
 * tables and options, sharing the WAL (a batch spanning families is atomic), snapshots and
 * sequence numbers. "default" (id 0) always exists and cannot be dropped. Each function with
 * the suffix _cf is the function without it, on the family `column_family`.
 *
 * Handles: shale_open_column_families, shale_create_column_family(ies) and
 * shale_get_default_column_family_handle return handles the caller owns and frees with
 * shale_column_family_handle_destroy, before shale_close, as in RocksDB (destroying the default
 * family's handle frees only the wrapper; the DB keeps the family). A dropped family's handle
 * stays valid (reads still see its data) until it is destroyed.
 *
 * NULL: a NULL column_family is an error ("Invalid argument: column_family: NULL handle"): in
 * *errptr where the function has one; a write batch remembers it as the first failed update
 * (shale_write then fails with it, writing nothing); shale_create_iterator_cf returns an
 * iterator whose shale_iter_get_error reports it; shale_property_value_cf returns NULL,
 * shale_property_int_cf -1, and shale_compact_range_cf(_opt) does nothing. A handle of another
 * DB, or one destroyed, is undefined behaviour (as in RocksDB). */

/* Opens the DB with its column families: column_family_names[i] opened with
 * column_family_options[i] (their column-family options; the DB options come from `options`),
 * for i < num_column_families. Every family the DB has must be named, "default" included
 * (else an "Invalid argument" error naming the missing ones); a name it does not have is
 * created with create_missing_column_families, an error otherwise. On success,
 * column_family_handles[i] receives the handle of family i (the caller provides the array and
 * owns the handles); on failure NULL is returned and the array is left untouched. */
extern SHALE_LIBRARY_API shale_t* shale_open_column_families(
    const shale_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const shale_options_t* const* column_family_options,
    shale_column_family_handle_t** column_family_handles, char** errptr);
/* shale_open_column_families read-only (as shale_open_for_read_only): the names may be a
 * subset of the DB's families ("default" included); a name the DB does not have is an error
 * (never created). */
extern SHALE_LIBRARY_API shale_t* shale_open_for_read_only_column_families(
    const shale_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const shale_options_t* const* column_family_options,
    shale_column_family_handle_t** column_family_handles, unsigned char error_if_wal_file_exists,
    char** errptr);
/* shale_open_column_families as a secondary instance (as shale_open_as_secondary): the names
 * may be a subset of the DB's families ("default" included); a name the DB does not have is an
 * error. */
extern SHALE_LIBRARY_API shale_t* shale_open_as_secondary_column_families(
    const shale_options_t* options, const char* name, const char* secondary_path,
    int num_column_families, const char* const* column_family_names,
    const shale_options_t* const* column_family_options,
    shale_column_family_handle_t** column_family_handles, char** errptr);
/* The names of the families of the DB in `name`, read without opening it ("default" first):
 * a malloc'd array of *lencf malloc'd, NUL-terminated names, freed with
 * shale_list_column_families_destroy. NULL (and *lencf = 0) on error. */
extern SHALE_LIBRARY_API char** shale_list_column_families(const shale_options_t* options,
                                                           const char* name, size_t* lencf,
                                                           char** errptr);
/* Frees the array of shale_list_column_families and its `len` names. NULL is ignored. */
extern SHALE_LIBRARY_API void shale_list_column_families_destroy(char** list, size_t len);
/* Creates a family with the column-family options of `column_family_options`, durably, and
 * returns its handle; NULL with an error when the name is empty or in use, or the options are
 * invalid. */
extern SHALE_LIBRARY_API shale_column_family_handle_t* shale_create_column_family(
    shale_t* db, const shale_options_t* column_family_options, const char* column_family_name,
    char** errptr);
/* Creates num_column_families families with the same options, one after the other: returns a
 * malloc'd array of *lencfs handles (those created, all of them on success; on an error, those
 * created before it, with the error in *errptr). Free the array with
 * shale_create_column_families_destroy and each handle with
 * shale_column_family_handle_destroy. */
extern SHALE_LIBRARY_API shale_column_family_handle_t** shale_create_column_families(
    shale_t* db, const shale_options_t* column_family_options, int num_column_families,
    const char* const* column_family_names, size_t* lencfs, char** errptr);
/* Frees the array of shale_create_column_families (not the handles in it). */
extern SHALE_LIBRARY_API void shale_create_column_families_destroy(
    shale_column_family_handle_t** list);
/* Drops the family, durably; its handle must still be destroyed. An error for "default" or a
 * family already dropped. */
extern SHALE_LIBRARY_API void shale_drop_column_family(shale_t* db,
                                                       shale_column_family_handle_t* handle,
                                                       char** errptr);
/* A handle of the default family (a new wrapper, to free with
 * shale_column_family_handle_destroy; the family itself belongs to the DB). */
extern SHALE_LIBRARY_API shale_column_family_handle_t* shale_get_default_column_family_handle(
    shale_t* db);
/* Frees a handle. NULL is ignored. */
extern SHALE_LIBRARY_API void shale_column_family_handle_destroy(
    shale_column_family_handle_t* handle);
/* The family's id (0 for "default"; never reused within a DB). */
extern SHALE_LIBRARY_API uint32_t shale_column_family_handle_get_id(
    shale_column_family_handle_t* handle);
/* The family's name, malloc'd (free it with shale_free), its length in *name_len; NUL-terminated
 * as well. */
extern SHALE_LIBRARY_API char* shale_column_family_handle_get_name(
    shale_column_family_handle_t* handle, size_t* name_len);

/* Writes to a family. */
extern SHALE_LIBRARY_API void shale_put_cf(shale_t* db, const shale_writeoptions_t* options,
                                           shale_column_family_handle_t* column_family,
                                           const char* key, size_t keylen, const char* val,
                                           size_t vallen, char** errptr);
extern SHALE_LIBRARY_API void shale_delete_cf(shale_t* db, const shale_writeoptions_t* options,
                                              shale_column_family_handle_t* column_family,
                                              const char* key, size_t keylen, char** errptr);
extern SHALE_LIBRARY_API void shale_singledelete_cf(shale_t* db,
                                                    const shale_writeoptions_t* options,
                                                    shale_column_family_handle_t* column_family,
                                                    const char* key, size_t keylen,
                                                    char** errptr);
extern SHALE_LIBRARY_API void shale_delete_range_cf(shale_t* db,
                                                    const shale_writeoptions_t* options,
                                                    shale_column_family_handle_t* column_family,
                                                    const char* start_key, size_t start_key_len,
                                                    const char* end_key, size_t end_key_len,
                                                    char** errptr);
/* An error when the family's options have no merge operator. */
extern SHALE_LIBRARY_API void shale_merge_cf(shale_t* db, const shale_writeoptions_t* options,
                                             shale_column_family_handle_t* column_family,
                                             const char* key, size_t keylen, const char* val,
                                             size_t vallen, char** errptr);

/* Updates of a write batch on a family (the batch records the family's id; shale_write fails,
 * writing nothing, when the DB does not have that family any more). */
extern SHALE_LIBRARY_API void shale_writebatch_put_cf(shale_writebatch_t* batch,
                                                      shale_column_family_handle_t* column_family,
                                                      const char* key, size_t klen,
                                                      const char* val, size_t vlen);
extern SHALE_LIBRARY_API void shale_writebatch_delete_cf(
    shale_writebatch_t* batch, shale_column_family_handle_t* column_family, const char* key,
    size_t klen);
extern SHALE_LIBRARY_API void shale_writebatch_singledelete(shale_writebatch_t* batch,
                                                            const char* key, size_t klen);
extern SHALE_LIBRARY_API void shale_writebatch_singledelete_cf(
    shale_writebatch_t* batch, shale_column_family_handle_t* column_family, const char* key,
    size_t klen);
extern SHALE_LIBRARY_API void shale_writebatch_delete_range_cf(
    shale_writebatch_t* batch, shale_column_family_handle_t* column_family,
    const char* start_key, size_t start_key_len, const char* end_key, size_t end_key_len);
extern SHALE_LIBRARY_API void shale_writebatch_merge_cf(
    shale_writebatch_t* batch, shale_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen);

/* Reads from a family: as shale_get. */
extern SHALE_LIBRARY_API char* shale_get_cf(shale_t* db, const shale_readoptions_t* options,
                                            shale_column_family_handle_t* column_family,
                                            const char* key, size_t keylen, size_t* vallen,
                                            char** errptr);
/* As shale_multi_get, keys_list[i] read in column_families[i], all at one snapshot across the
 * families. A NULL column_families[i] gives key i the error. */
extern SHALE_LIBRARY_API void shale_multi_get_cf(
    shale_t* db, const shale_readoptions_t* options,
    const shale_column_family_handle_t* const* column_families, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
/* An iterator over a family (see the NULL rule above). */
extern SHALE_LIBRARY_API shale_iterator_t* shale_create_iterator_cf(
    shale_t* db, const shale_readoptions_t* options, shale_column_family_handle_t* column_family);
/* One iterator per family, iterators[i] over column_families[i] for i < size, all at one
 * sequence number (the options' snapshot, or one taken for them all): together they show one
 * state of the DB. The caller provides the array and destroys each iterator with
 * shale_iter_destroy. On error (a NULL or dropped family) no iterator is returned: the array is
 * left untouched. */
extern SHALE_LIBRARY_API void shale_create_iterators(shale_t* db, shale_readoptions_t* opts,
                                                     shale_column_family_handle_t** column_families,
                                                     shale_iterator_t** iterators, size_t size,
                                                     char** errptr);

/* Maintenance of a family. */
extern SHALE_LIBRARY_API void shale_flush_cf(shale_t* db, const shale_flushoptions_t* options,
                                             shale_column_family_handle_t* column_family,
                                             char** errptr);
/* Flushes each of the num_column_families families (with atomic_flush: all of them in one
 * MANIFEST write, as RocksDB's rocksdb_flush_cfs). An error for a NULL entry, before anything
 * is flushed. */
extern SHALE_LIBRARY_API void shale_flush_cfs(shale_t* db, const shale_flushoptions_t* options,
                                              shale_column_family_handle_t** column_families,
                                              int num_column_families, char** errptr);
extern SHALE_LIBRARY_API void shale_compact_range_cf(shale_t* db,
                                                     shale_column_family_handle_t* column_family,
                                                     const char* start_key, size_t start_key_len,
                                                     const char* limit_key, size_t limit_key_len);
extern SHALE_LIBRARY_API void shale_compact_range_cf_opt(
    shale_t* db, shale_column_family_handle_t* column_family, shale_compactoptions_t* opt,
    const char* start_key, size_t start_key_len, const char* limit_key, size_t limit_key_len);
/* shale_delete_file_in_range in the family (an error for a NULL handle). */
extern SHALE_LIBRARY_API void shale_delete_file_in_range_cf(
    shale_t* db, shale_column_family_handle_t* column_family, const char* start_key,
    size_t start_key_len, const char* limit_key, size_t limit_key_len, char** errptr);
/* The family's figures for the per-family properties (levels, memtables, keys, compaction
 * debt, the stats/levelstats/sstables reports; see shale/db.h), the DB's for the others. */
extern SHALE_LIBRARY_API char* shale_property_value_cf(
    shale_t* db, shale_column_family_handle_t* column_family, const char* propname);
extern SHALE_LIBRARY_API int shale_property_int_cf(shale_t* db,
                                                   shale_column_family_handle_t* column_family,
                                                   const char* propname, uint64_t* out_val);
extern SHALE_LIBRARY_API void shale_approximate_sizes_cf(
    shale_t* db, shale_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len, uint64_t* sizes,
    char** errptr);
/* Ingests the files into the family (see shale_ingest_external_file). */
extern SHALE_LIBRARY_API void shale_ingest_external_file_cf(
    shale_t* db, shale_column_family_handle_t* handle, const char* const* file_list,
    size_t list_len, const shale_ingestexternalfileoptions_t* options, char** errptr);
/* Changes the family's dynamic options (those of a column family: write_buffer_size,
 * disable_auto_compactions, ...), all or none. */
extern SHALE_LIBRARY_API void shale_set_options_cf(shale_t* db,
                                                   shale_column_family_handle_t* handle,
                                                   int count, const char* const keys[],
                                                   const char* const values[], char** errptr);
/* Changes the DB's dynamic options (DB::SetDBOptions: max_background_jobs,
 * max_total_wal_size, ...), all or none; shale_set_options(_cf) refuses these names. */
extern SHALE_LIBRARY_API void shale_set_db_options(shale_t* db, int count,
                                                   const char* const keys[],
                                                   const char* const values[], char** errptr);

/* ---------------------------------------------------------------- Compaction filter */

/* Drops or rewrites values while compactions rewrite them (shale/compaction_filter.h says
 * when: compactions only, never flushes; the newest value of each key; whatever snapshots
 * exist). Made of C callbacks, as rocksdb_compactionfilter_create:
 * - filter(state, level, key, value, &new_value, &new_value_length, &value_changed) returns
 *   non-zero to remove the entry (it becomes a deletion marker, so older versions below stay
 *   hidden); to keep it with another value, set *new_value / *new_value_length to bytes that
 *   stay the callback's (the engine copies them when the callback returns; they are never
 *   freed by the engine), set *value_changed to non-zero and return 0. Must not be NULL
 *   (create returns NULL then).
 * - name(state): the filter's name, for logs. NULL: "shale.CCompactionFilter".
 * - destructor(state), unless NULL, runs once, when the handle is destroyed.
 * Several compactions call the filter at once: the callbacks must be safe for concurrent
 * calls. The views they get are valid during the call only.
 * Ownership is RocksDB's: shale_options_set_compaction_filter borrows the handle; the caller
 * destroys it with shale_compactionfilter_destroy after closing every DB opened with it. */
typedef struct shale_compactionfilter_t shale_compactionfilter_t;
extern SHALE_LIBRARY_API shale_compactionfilter_t* shale_compactionfilter_create(
    void* state, void (*destructor)(void*),
    unsigned char (*filter)(void*, int level, const char* key, size_t key_length,
                            const char* existing_value, size_t value_length, char** new_value,
                            size_t* new_value_length, unsigned char* value_changed),
    const char* (*name)(void*));
/* NULL is ignored. */
extern SHALE_LIBRARY_API void shale_compactionfilter_destroy(shale_compactionfilter_t* filter);
/* ColumnFamilyOptions::compaction_filter: borrows `filter` (see above); NULL removes it. */
extern SHALE_LIBRARY_API void shale_options_set_compaction_filter(
    shale_options_t* options, shale_compactionfilter_t* filter);

/* ---------------------------------------------------------------- Merge */

/* Read-modify-write without the read (shale/merge_operator.h): shale_merge records an operand
 * for a key, and the DB's merge operator combines a key's operands with its existing value
 * when the key is read, flushed or compacted. The shape and the callbacks are RocksDB's. */
typedef struct shale_mergeoperator_t shale_mergeoperator_t;

/* A merge operator made of C callbacks, as rocksdb_mergeoperator_create:
 * - full_merge combines the key's existing value (existing_value NULL, length 0, when it has
 *   none) with its num_operands operands, oldest first, into a new value: it returns a buffer
 *   with the value, its length in *new_value_length, and sets *success to non-zero. Setting
 *   *success to 0 is a failure, never a silent drop: a read of the key fails with "Corruption:
 *   ... full_merge callback reported failure", and so does a flush or compaction that needs
 *   the merge (it keeps its inputs and stops background writes, see shale_resume). Must not be
 *   NULL (create returns NULL then).
 * - partial_merge combines num_operands (two or more) consecutive operands, oldest first, into
 *   one with the same effect; *success = 0 means "cannot combine", not an error, and the
 *   operands are kept. NULL: operands are never combined.
 * - A buffer returned by either is released with delete_value(state, value, length) when
 *   delete_value is not NULL, else with free(); it may be NULL (an empty value).
 * - name(state) is asked whenever the operator's name is needed; the name is recorded in the
 *   OPTIONS file. NULL: "shale.CMergeOperator".
 * - destructor(state), unless NULL, runs once, when the operator is last used: after the
 *   handle is destroyed AND every options object and DB it was given to is gone.
 * The engine calls the callbacks from many threads at once (readers, flush, compaction):
 * they must be safe for concurrent calls. The views they get are valid during the call only.
 *
 * Ownership differs from RocksDB's, where the options take over the handle: here
 * shale_options_set_merge_operator shares the operator (options and DBs hold their own
 * reference) and the caller still owns its handle, to free with shale_mergeoperator_destroy
 * whenever it likes, before or after shale_open and shale_close. Code ported from RocksDB,
 * which never destroys a handle it gave to options, stays correct but leaks the handle and
 * its operator (the destructor then never runs). */
extern SHALE_LIBRARY_API shale_mergeoperator_t* shale_mergeoperator_create(
    void* state, void (*destructor)(void*),
    char* (*full_merge)(void*, const char* key, size_t key_length, const char* existing_value,
                        size_t existing_value_length, const char* const* operands_list,
                        const size_t* operands_list_length, int num_operands,
                        unsigned char* success, size_t* new_value_length),
    char* (*partial_merge)(void*, const char* key, size_t key_length,
                           const char* const* operands_list, const size_t* operands_list_length,
                           int num_operands, unsigned char* success, size_t* new_value_length),
    void (*delete_value)(void*, const char* value, size_t value_length),
    const char* (*name)(void*));
/* A built-in operator by its options-string name (CreateMergeOperatorFromString):
 * "uint64add" (8-byte little-endian unsigned integers, summed), "max", "stringappend",
 * "stringappend:<delimiter>", "sortedset64", "sortedset64:<index_interval>". NULL for NULL,
 * "", "nullptr", an unknown name or a bad parameter. */
extern SHALE_LIBRARY_API shale_mergeoperator_t* shale_mergeoperator_create_builtin(
    const char* name);
/* Frees the caller's handle; options and DBs that share the operator keep it. NULL is
 * ignored. */
extern SHALE_LIBRARY_API void shale_mergeoperator_destroy(shale_mergeoperator_t* merge_operator);
/* The options share the handle's operator (see above; the handle stays the caller's). NULL
 * removes the operator. */
extern SHALE_LIBRARY_API void shale_options_set_merge_operator(
    shale_options_t* options, shale_mergeoperator_t* merge_operator);
/* Options::max_successive_merges: when a merge finds this many operands on top of its key in
 * the memtable, it merges them at write time and writes the value instead. 0 (the default):
 * never. Dynamic (shale_set_options). */
extern SHALE_LIBRARY_API void shale_options_set_max_successive_merges(shale_options_t* options,
                                                                      size_t v);

/* Adds a merge operand for `key`. Invalid argument when the DB has no merge operator. */
extern SHALE_LIBRARY_API void shale_merge(shale_t* db, const shale_writeoptions_t* options,
                                          const char* key, size_t keylen, const char* val,
                                          size_t vallen, char** errptr);
/* A merge operand in a batch (shale_write fails, writing nothing, when the DB has no merge
 * operator). */
extern SHALE_LIBRARY_API void shale_writebatch_merge(shale_writebatch_t* batch, const char* key,
                                                     size_t klen, const char* val, size_t vlen);

/* ---------------------------------------------------------------- WAL iterator (replication) */

/* DB::GetUpdatesSince (shale/transaction_log.h; RocksDB's rocksdb_get_updates_since): the
 * writes from sequence number `seq_number` on, read back from the WAL files, one write batch
 * at a time, starting with the batch that holds `seq_number` (0: from the first write). Errors
 * ("NotFound: Requested sequence not yet written in the db", "NotFound: Requested sequence is
 * older than the oldest WAL: ...", "Corruption: Gap in sequence numbers: ...") come through
 * errptr with NULL returned. ShaleDB keeps no WAL archive: a WAL is deleted once its memtables
 * are flushed, and writes made with disableWAL are in no WAL (reading across them is a gap).
 * The iterator borrows the DB: destroy it before shale_close. */
typedef struct shale_wal_iterator_t shale_wal_iterator_t;
extern SHALE_LIBRARY_API shale_wal_iterator_t* shale_get_updates_since(shale_t* db,
                                                                       uint64_t seq_number,
                                                                       char** errptr);
/* Whether shale_wal_iter_get_batch has a batch; 0 at the end of what is written (then
 * shale_wal_iter_status reports no error) or after an error. */
extern SHALE_LIBRARY_API unsigned char shale_wal_iter_valid(const shale_wal_iterator_t* iter);
/* Moves to the next batch; at the end, looks again for batches written since (polling). */
extern SHALE_LIBRARY_API void shale_wal_iter_next(shale_wal_iterator_t* iter);
/* Sets *errptr when an error stopped the iterator (reaching the end is not an error). */
extern SHALE_LIBRARY_API void shale_wal_iter_status(const shale_wal_iterator_t* iter,
                                                    char** errptr);
/* A copy of the current batch, which the caller destroys with shale_writebatch_destroy, and
 * its first sequence number in *seq (if seq is not NULL). NULL (and *seq 0) when the iterator
 * is not valid. */
extern SHALE_LIBRARY_API shale_writebatch_t* shale_wal_iter_get_batch(
    const shale_wal_iterator_t* iter, uint64_t* seq);
/* NULL is ignored. */
extern SHALE_LIBRARY_API void shale_wal_iter_destroy(shale_wal_iterator_t* iter);
/* The batch's serialized contents (RocksDB's rocksdb_writebatch_data, the same layout: a
 * 12-byte header holding the sequence and count, then the records), owned by the batch and
 * valid until it changes or is destroyed. */
extern SHALE_LIBRARY_API const char* shale_writebatch_data(shale_writebatch_t* batch,
                                                           size_t* size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHALE_C_H_ */
