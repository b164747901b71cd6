/* RocksDB's C API, as ShaleDB's lib/shale-rocksdb/librocksdb.so provides it.
 *
 * This header declares the C interface of RocksDB 7.8.3 (the rocksdb/c.h of Debian's
 * librocksdb-dev, 783 functions): the same function names, parameter and return types, opaque
 * handle types and constants, so that a program or binding written for RocksDB compiles against
 * it and links against ShaleDB's library unchanged. test/rocksdb_capi/header_signature_test.cc
 * proves the declarations identical to Debian's. doc/rocksdb_compat.md says how to build against
 * it and lists each function's status in ShaleDB: implemented, accepted without effect (a tuning
 * knob with no counterpart here), or not supported (the call fails visibly).
 *
 * Conventions that hold throughout:
 *  - Every object is an opaque handle. Objects a create/open call returns belong to the caller
 *    and are released with the matching *_destroy, *_close or release call; the sections below
 *    name the exceptions (objects another object takes over or only borrows).
 *  - Byte strings are passed as a pointer and a length; they may contain NUL bytes.
 *  - A call that can fail takes `char** errptr` last. On entry *errptr is NULL or a message from
 *    an earlier failure; on failure the old message is freed and *errptr receives a malloc'd,
 *    NUL-terminated message (RocksDB's Status text, e.g. "Invalid argument: ..."); on success it
 *    is left as it was. ShaleDB reports a feature it does not have with the message
 *    "Not implemented: Not supported by ShaleDB: <function>" (RocksDB's NotSupported status
 *    text); such a function without errptr returns NULL instead of a handle.
 *  - Buffers returned as malloc'd are the caller's; free them with rocksdb_free (or free()).
 *  - Booleans are unsigned char: 0 is false, anything else true.
 *  - Pointer arguments must not be NULL unless the function's section says otherwise.
 *
 * Thread-safety: as RocksDB's. A DB handle may be used from many threads at once; an options
 * object, batch, iterator or transaction is used by one thread at a time.
 */
#ifndef SHALE_ROCKSDB_C_H_
#define SHALE_ROCKSDB_C_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks the library's functions. Kept under RocksDB's name because clients may use it. */
#ifndef ROCKSDB_LIBRARY_API
#if defined(_WIN32)
#define ROCKSDB_LIBRARY_API
#else
#define ROCKSDB_LIBRARY_API __attribute__((visibility("default")))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------- */
/* Opaque handle types                                                                            */
/* ---------------------------------------------------------------------------------------------- */

// Each is defined only inside the library; clients hold pointers.
typedef struct rocksdb_backup_engine_info_t rocksdb_backup_engine_info_t;
typedef struct rocksdb_backup_engine_options_t rocksdb_backup_engine_options_t;
typedef struct rocksdb_backup_engine_t rocksdb_backup_engine_t;
typedef struct rocksdb_block_based_table_options_t rocksdb_block_based_table_options_t;
typedef struct rocksdb_cache_t rocksdb_cache_t;
typedef struct rocksdb_checkpoint_t rocksdb_checkpoint_t;
typedef struct rocksdb_column_family_handle_t rocksdb_column_family_handle_t;
typedef struct rocksdb_column_family_metadata_t rocksdb_column_family_metadata_t;
typedef struct rocksdb_compactionfilter_t rocksdb_compactionfilter_t;
typedef struct rocksdb_compactionfiltercontext_t rocksdb_compactionfiltercontext_t;
typedef struct rocksdb_compactionfilterfactory_t rocksdb_compactionfilterfactory_t;
typedef struct rocksdb_compactoptions_t rocksdb_compactoptions_t;
typedef struct rocksdb_comparator_t rocksdb_comparator_t;
typedef struct rocksdb_cuckoo_table_options_t rocksdb_cuckoo_table_options_t;
typedef struct rocksdb_dbpath_t rocksdb_dbpath_t;
typedef struct rocksdb_env_t rocksdb_env_t;
typedef struct rocksdb_envoptions_t rocksdb_envoptions_t;
typedef struct rocksdb_fifo_compaction_options_t rocksdb_fifo_compaction_options_t;
typedef struct rocksdb_filelock_t rocksdb_filelock_t;
typedef struct rocksdb_filterpolicy_t rocksdb_filterpolicy_t;
typedef struct rocksdb_flushoptions_t rocksdb_flushoptions_t;
typedef struct rocksdb_ingestexternalfileoptions_t rocksdb_ingestexternalfileoptions_t;
typedef struct rocksdb_iterator_t rocksdb_iterator_t;
typedef struct rocksdb_level_metadata_t rocksdb_level_metadata_t;
typedef struct rocksdb_livefiles_t rocksdb_livefiles_t;
typedef struct rocksdb_logger_t rocksdb_logger_t;
typedef struct rocksdb_lru_cache_options_t rocksdb_lru_cache_options_t;
typedef struct rocksdb_memory_allocator_t rocksdb_memory_allocator_t;
typedef struct rocksdb_memory_consumers_t rocksdb_memory_consumers_t;
typedef struct rocksdb_memory_usage_t rocksdb_memory_usage_t;
typedef struct rocksdb_mergeoperator_t rocksdb_mergeoperator_t;
typedef struct rocksdb_optimistictransaction_options_t rocksdb_optimistictransaction_options_t;
typedef struct rocksdb_optimistictransactiondb_t rocksdb_optimistictransactiondb_t;
typedef struct rocksdb_options_t rocksdb_options_t;
typedef struct rocksdb_perfcontext_t rocksdb_perfcontext_t;
typedef struct rocksdb_pinnableslice_t rocksdb_pinnableslice_t;
typedef struct rocksdb_randomfile_t rocksdb_randomfile_t;
typedef struct rocksdb_ratelimiter_t rocksdb_ratelimiter_t;
typedef struct rocksdb_readoptions_t rocksdb_readoptions_t;
typedef struct rocksdb_restore_options_t rocksdb_restore_options_t;
typedef struct rocksdb_seqfile_t rocksdb_seqfile_t;
typedef struct rocksdb_slicetransform_t rocksdb_slicetransform_t;
typedef struct rocksdb_snapshot_t rocksdb_snapshot_t;
typedef struct rocksdb_sst_file_metadata_t rocksdb_sst_file_metadata_t;
typedef struct rocksdb_sstfilewriter_t rocksdb_sstfilewriter_t;
typedef struct rocksdb_t rocksdb_t;
typedef struct rocksdb_transaction_options_t rocksdb_transaction_options_t;
typedef struct rocksdb_transaction_t rocksdb_transaction_t;
typedef struct rocksdb_transactiondb_options_t rocksdb_transactiondb_options_t;
typedef struct rocksdb_transactiondb_t rocksdb_transactiondb_t;
typedef struct rocksdb_universal_compaction_options_t rocksdb_universal_compaction_options_t;
typedef struct rocksdb_wal_iterator_t rocksdb_wal_iterator_t;
typedef struct rocksdb_wal_readoptions_t rocksdb_wal_readoptions_t;
typedef struct rocksdb_writablefile_t rocksdb_writablefile_t;
typedef struct rocksdb_writebatch_t rocksdb_writebatch_t;
typedef struct rocksdb_writebatch_wi_t rocksdb_writebatch_wi_t;
typedef struct rocksdb_writeoptions_t rocksdb_writeoptions_t;

/* ---------------------------------------------------------------------------------------------- */
/* Opening, closing and removing a database                                                       */
/* ---------------------------------------------------------------------------------------------- */

// A database handle (rocksdb_t) comes from one of the rocksdb_open* calls and is released with
// rocksdb_close, which also frees every resource the DB holds. Close the iterators, snapshots,
// column family handles and transactions made from a DB before closing it. The *_column_families
// variants open the named families, each with its own options, and fill the caller's array with one
// handle per family; those handles are the caller's (rocksdb_column_family_handle_destroy).
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open(
    const rocksdb_options_t* options, const char* name, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_column_families(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_for_read_only(
    const rocksdb_options_t* options, const char* name, unsigned char error_if_wal_file_exists,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_for_read_only_column_families(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, unsigned char error_if_wal_file_exists,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_as_secondary(
    const rocksdb_options_t* options, const char* name, const char* secondary_path, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_as_secondary_column_families(
    const rocksdb_options_t* options, const char* name, const char* secondary_path,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_try_catch_up_with_primary(rocksdb_t* db, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_with_ttl(
    const rocksdb_options_t* options, const char* name, int ttl, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_column_families_with_ttl(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, const int* ttls, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_open_and_trim_history(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char* trim_ts, size_t trim_tslen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_close(rocksdb_t* db);
ROCKSDB_LIBRARY_API void rocksdb_cancel_all_background_work(rocksdb_t* db, unsigned char wait);
ROCKSDB_LIBRARY_API void rocksdb_destroy_db(
    const rocksdb_options_t* options, const char* name, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_repair_db(
    const rocksdb_options_t* options, const char* name, char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Column families                                                                                */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_list_column_families returns a malloc'd array of malloc'd names; release it with
// rocksdb_list_column_families_destroy. A handle from rocksdb_create_column_family* or an open
// belongs to the caller, who destroys it (before rocksdb_close); dropping a family does not destroy
// its handle. rocksdb_column_family_handle_get_name returns a malloc'd copy (not NUL-terminated;
// its length goes to *name_len), to be freed with rocksdb_free.
ROCKSDB_LIBRARY_API char** rocksdb_list_column_families(
    const rocksdb_options_t* options, const char* name, size_t* lencf, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_list_column_families_destroy(char** list, size_t len);
ROCKSDB_LIBRARY_API rocksdb_column_family_handle_t* rocksdb_create_column_family(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_column_family_handle_t* rocksdb_create_column_family_with_ttl(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    int ttl, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_drop_column_family(
    rocksdb_t* db, rocksdb_column_family_handle_t* handle, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_column_family_handle_destroy(
    rocksdb_column_family_handle_t* handle);
ROCKSDB_LIBRARY_API uint32_t rocksdb_column_family_handle_get_id(
    rocksdb_column_family_handle_t* handle);
ROCKSDB_LIBRARY_API char* rocksdb_column_family_handle_get_name(
    rocksdb_column_family_handle_t* handle, size_t* name_len);

/* ---------------------------------------------------------------------------------------------- */
/* Writing                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

// Keys and values are (pointer, length) pairs and are copied before the call returns. Every write
// takes a rocksdb_writeoptions_t. The *_cf variants name a column family, the *_with_ts variants
// carry a user timestamp (for a comparator made by rocksdb_comparator_with_ts_create).
// rocksdb_write applies a batch atomically; the batch stays the caller's.
ROCKSDB_LIBRARY_API void rocksdb_put(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    const char* val, size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_put_cf(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val,
    size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_put_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    const char* ts, size_t tslen, const char* val, size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_put_cf_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* ts,
    size_t tslen, const char* val, size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_cf(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    const char* ts, size_t tslen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_cf_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* ts,
    size_t tslen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_singledelete(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_singledelete_cf(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_singledelete_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    const char* ts, size_t tslen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_singledelete_cf_with_ts(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* ts,
    size_t tslen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_range_cf(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* start_key, size_t start_key_len,
    const char* end_key, size_t end_key_len, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_merge(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, const char* key, size_t keylen,
    const char* val, size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_merge_cf(
    rocksdb_t* db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val,
    size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_write(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_writebatch_t* batch,
    char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Reading                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_get* return a malloc'd copy of the value (length in *vallen) or NULL when the key is
// absent; free it with rocksdb_free. rocksdb_multi_get* fill caller-provided arrays of num_keys
// entries: for each key a malloc'd value (or NULL) and a malloc'd error message (or NULL), each
// freed with rocksdb_free; an absent key gives NULL in both. rocksdb_batched_multi_get_cf instead
// fills an array of pinnable slices (each destroyed with rocksdb_pinnableslice_destroy, NULL when
// absent) and of error strings. rocksdb_key_may_exist* answer "maybe" cheaply; when value_found is
// not NULL and the value was at hand, *value is a malloc'd copy to free. A pinnable slice
// (rocksdb_get_pinned*) owns its value until rocksdb_pinnableslice_destroy; the pointer
// rocksdb_pinnableslice_value returns is valid until then.
ROCKSDB_LIBRARY_API char* rocksdb_get(
    rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t keylen,
    size_t* vallen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_get_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen,
    char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_get_with_ts(
    rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t keylen,
    size_t* vallen, char** ts, size_t* tslen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_get_cf_with_ts(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen,
    char** ts, size_t* tslen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_multi_get(
    rocksdb_t* db, const rocksdb_readoptions_t* options, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_multi_get_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    const rocksdb_column_family_handle_t* const* column_families, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_multi_get_with_ts(
    rocksdb_t* db, const rocksdb_readoptions_t* options, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** timestamp_list, size_t* timestamp_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_multi_get_cf_with_ts(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    const rocksdb_column_family_handle_t* const* column_families, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** timestamps_list, size_t* timestamps_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_batched_multi_get_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, size_t num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes, rocksdb_pinnableslice_t** values, char** errs,
    const bool sorted_input);
ROCKSDB_LIBRARY_API unsigned char rocksdb_key_may_exist(
    rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t key_len,
    char** value, size_t* val_len, const char* timestamp, size_t timestamp_len,
    unsigned char* value_found);
ROCKSDB_LIBRARY_API unsigned char rocksdb_key_may_exist_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t key_len, char** value,
    size_t* val_len, const char* timestamp, size_t timestamp_len, unsigned char* value_found);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_get_pinned(
    rocksdb_t* db, const rocksdb_readoptions_t* options, const char* key, size_t keylen,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_get_pinned_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API const char* rocksdb_pinnableslice_value(
    const rocksdb_pinnableslice_t* t, size_t* vlen);
ROCKSDB_LIBRARY_API void rocksdb_pinnableslice_destroy(rocksdb_pinnableslice_t* v);

/* ---------------------------------------------------------------------------------------------- */
/* Iterators                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

// An iterator from rocksdb_create_iterator* belongs to the caller and is destroyed with
// rocksdb_iter_destroy before its DB is closed. rocksdb_create_iterators fills a caller-provided
// array of `size` iterators, one per column family, all over one consistent view. The pointers
// rocksdb_iter_key, rocksdb_iter_value and rocksdb_iter_timestamp return belong to the iterator and
// stay valid until it moves or is destroyed. rocksdb_iter_get_error reports a failure that ended
// the iteration (a loop stops when rocksdb_iter_valid returns 0; check the error then).
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_create_iterator(
    rocksdb_t* db, const rocksdb_readoptions_t* options);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_create_iterator_cf(
    rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family);
ROCKSDB_LIBRARY_API void rocksdb_create_iterators(
    rocksdb_t* db, rocksdb_readoptions_t* opts, rocksdb_column_family_handle_t** column_families,
    rocksdb_iterator_t** iterators, size_t size, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_iter_destroy(rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API unsigned char rocksdb_iter_valid(const rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API void rocksdb_iter_seek_to_first(rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API void rocksdb_iter_seek_to_last(rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API void rocksdb_iter_seek(rocksdb_iterator_t* iter, const char* k, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_iter_seek_for_prev(
    rocksdb_iterator_t* iter, const char* k, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_iter_next(rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API void rocksdb_iter_prev(rocksdb_iterator_t* iter);
ROCKSDB_LIBRARY_API const char* rocksdb_iter_key(const rocksdb_iterator_t* iter, size_t* klen);
ROCKSDB_LIBRARY_API const char* rocksdb_iter_value(const rocksdb_iterator_t* iter, size_t* vlen);
ROCKSDB_LIBRARY_API const char* rocksdb_iter_timestamp(
    const rocksdb_iterator_t* iter, size_t* tslen);
ROCKSDB_LIBRARY_API void rocksdb_iter_get_error(const rocksdb_iterator_t* iter, char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Snapshots                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

// A snapshot pins a consistent view for reads that name it (rocksdb_readoptions_set_snapshot). It
// belongs to the DB: give it back with rocksdb_release_snapshot before rocksdb_close.
ROCKSDB_LIBRARY_API const rocksdb_snapshot_t* rocksdb_create_snapshot(rocksdb_t* db);
ROCKSDB_LIBRARY_API void rocksdb_release_snapshot(
    rocksdb_t* db, const rocksdb_snapshot_t* snapshot);

/* ---------------------------------------------------------------------------------------------- */
/* Properties, sizes and metadata                                                                 */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_property_value* return a malloc'd NUL-terminated string, or NULL for an unknown property
// name; free it with rocksdb_free. rocksdb_property_int* store a numeric property in *out_val and
// return 0, or return -1 when the property is unknown or not a number. rocksdb_approximate_sizes*
// fill the caller's `sizes` array, one entry per range. A rocksdb_livefiles_t (rocksdb_livefiles)
// owns the strings its getters return; release it with rocksdb_livefiles_destroy. The metadata
// objects (column family -> levels -> SST files) are each the caller's, destroyed with their own
// *_destroy; their string getters return malloc'd copies to free with rocksdb_free.
ROCKSDB_LIBRARY_API char* rocksdb_property_value(rocksdb_t* db, const char* propname);
ROCKSDB_LIBRARY_API char* rocksdb_property_value_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* propname);
ROCKSDB_LIBRARY_API int rocksdb_property_int(
    rocksdb_t* db, const char* propname, uint64_t* out_val);
ROCKSDB_LIBRARY_API int rocksdb_property_int_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* propname,
    uint64_t* out_val);
ROCKSDB_LIBRARY_API void rocksdb_approximate_sizes(
    rocksdb_t* db, int num_ranges, const char* const* range_start_key,
    const size_t* range_start_key_len, const char* const* range_limit_key,
    const size_t* range_limit_key_len, uint64_t* sizes, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_approximate_sizes_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len, uint64_t* sizes,
    char** errptr);
ROCKSDB_LIBRARY_API uint64_t rocksdb_get_latest_sequence_number(rocksdb_t* db);
ROCKSDB_LIBRARY_API const rocksdb_livefiles_t* rocksdb_livefiles(rocksdb_t* db);
ROCKSDB_LIBRARY_API int rocksdb_livefiles_count(const rocksdb_livefiles_t* files);
ROCKSDB_LIBRARY_API const char* rocksdb_livefiles_column_family_name(
    const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API const char* rocksdb_livefiles_name(const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API int rocksdb_livefiles_level(const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API size_t rocksdb_livefiles_size(const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API const char* rocksdb_livefiles_smallestkey(
    const rocksdb_livefiles_t* files, int index, size_t* size);
ROCKSDB_LIBRARY_API const char* rocksdb_livefiles_largestkey(
    const rocksdb_livefiles_t* files, int index, size_t* size);
ROCKSDB_LIBRARY_API uint64_t rocksdb_livefiles_entries(const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API uint64_t rocksdb_livefiles_deletions(
    const rocksdb_livefiles_t* files, int index);
ROCKSDB_LIBRARY_API void rocksdb_livefiles_destroy(const rocksdb_livefiles_t* files);
ROCKSDB_LIBRARY_API rocksdb_column_family_metadata_t* rocksdb_get_column_family_metadata(
    rocksdb_t* db);
ROCKSDB_LIBRARY_API rocksdb_column_family_metadata_t* rocksdb_get_column_family_metadata_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family);
ROCKSDB_LIBRARY_API void rocksdb_column_family_metadata_destroy(
    rocksdb_column_family_metadata_t* cf_meta);
ROCKSDB_LIBRARY_API uint64_t rocksdb_column_family_metadata_get_size(
    rocksdb_column_family_metadata_t* cf_meta);
ROCKSDB_LIBRARY_API size_t rocksdb_column_family_metadata_get_file_count(
    rocksdb_column_family_metadata_t* cf_meta);
ROCKSDB_LIBRARY_API char* rocksdb_column_family_metadata_get_name(
    rocksdb_column_family_metadata_t* cf_meta);
ROCKSDB_LIBRARY_API size_t rocksdb_column_family_metadata_get_level_count(
    rocksdb_column_family_metadata_t* cf_meta);
ROCKSDB_LIBRARY_API rocksdb_level_metadata_t* rocksdb_column_family_metadata_get_level_metadata(
    rocksdb_column_family_metadata_t* cf_meta, size_t i);
ROCKSDB_LIBRARY_API void rocksdb_level_metadata_destroy(rocksdb_level_metadata_t* level_meta);
ROCKSDB_LIBRARY_API int rocksdb_level_metadata_get_level(rocksdb_level_metadata_t* level_meta);
ROCKSDB_LIBRARY_API uint64_t rocksdb_level_metadata_get_size(rocksdb_level_metadata_t* level_meta);
ROCKSDB_LIBRARY_API size_t rocksdb_level_metadata_get_file_count(
    rocksdb_level_metadata_t* level_meta);
ROCKSDB_LIBRARY_API rocksdb_sst_file_metadata_t* rocksdb_level_metadata_get_sst_file_metadata(
    rocksdb_level_metadata_t* level_meta, size_t i);
ROCKSDB_LIBRARY_API void rocksdb_sst_file_metadata_destroy(rocksdb_sst_file_metadata_t* file_meta);
ROCKSDB_LIBRARY_API char* rocksdb_sst_file_metadata_get_relative_filename(
    rocksdb_sst_file_metadata_t* file_meta);
ROCKSDB_LIBRARY_API uint64_t rocksdb_sst_file_metadata_get_size(
    rocksdb_sst_file_metadata_t* file_meta);
ROCKSDB_LIBRARY_API char* rocksdb_sst_file_metadata_get_smallestkey(
    rocksdb_sst_file_metadata_t* file_meta, size_t* len);
ROCKSDB_LIBRARY_API char* rocksdb_sst_file_metadata_get_largestkey(
    rocksdb_sst_file_metadata_t* file_meta, size_t* len);

/* ---------------------------------------------------------------------------------------------- */
/* Maintenance                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

// Manual compaction and flushes, file deletions and online option changes. A NULL start or limit
// key means the beginning or the end of the key space. rocksdb_set_options* take `count` pairs of
// option names and values as text (RocksDB's option-string names).
ROCKSDB_LIBRARY_API void rocksdb_compact_range(
    rocksdb_t* db, const char* start_key, size_t start_key_len, const char* limit_key,
    size_t limit_key_len);
ROCKSDB_LIBRARY_API void rocksdb_compact_range_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* start_key,
    size_t start_key_len, const char* limit_key, size_t limit_key_len);
ROCKSDB_LIBRARY_API void rocksdb_compact_range_opt(
    rocksdb_t* db, rocksdb_compactoptions_t* opt, const char* start_key, size_t start_key_len,
    const char* limit_key, size_t limit_key_len);
ROCKSDB_LIBRARY_API void rocksdb_compact_range_cf_opt(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, rocksdb_compactoptions_t* opt,
    const char* start_key, size_t start_key_len, const char* limit_key, size_t limit_key_len);
ROCKSDB_LIBRARY_API void rocksdb_suggest_compact_range(
    rocksdb_t* db, const char* start_key, size_t start_key_len, const char* limit_key,
    size_t limit_key_len, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_suggest_compact_range_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* start_key,
    size_t start_key_len, const char* limit_key, size_t limit_key_len, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_disable_manual_compaction(rocksdb_t* db);
ROCKSDB_LIBRARY_API void rocksdb_enable_manual_compaction(rocksdb_t* db);
ROCKSDB_LIBRARY_API void rocksdb_flush(
    rocksdb_t* db, const rocksdb_flushoptions_t* options, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_flush_cf(
    rocksdb_t* db, const rocksdb_flushoptions_t* options,
    rocksdb_column_family_handle_t* column_family, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_flush_wal(rocksdb_t* db, unsigned char sync, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_disable_file_deletions(rocksdb_t* db, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_enable_file_deletions(
    rocksdb_t* db, unsigned char force, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_file(rocksdb_t* db, const char* name);
ROCKSDB_LIBRARY_API void rocksdb_delete_file_in_range(
    rocksdb_t* db, const char* start_key, size_t start_key_len, const char* limit_key,
    size_t limit_key_len, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_delete_file_in_range_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* start_key,
    size_t start_key_len, const char* limit_key, size_t limit_key_len, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_set_options(
    rocksdb_t* db, int count, const char* const keys[], const char* const values[], char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_set_options_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* handle, int count, const char* const keys[],
    const char* const values[], char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_increase_full_history_ts_low(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, const char* ts_low,
    size_t ts_lowlen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_get_full_history_ts_low(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, size_t* ts_lowlen, char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* The write-ahead log iterator                                                                   */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_get_updates_since iterates over the batches written since a sequence number. The iterator
// is the caller's (rocksdb_wal_iter_destroy); each batch rocksdb_wal_iter_get_batch returns is a
// new batch the caller destroys with rocksdb_writebatch_destroy, and *seq receives its first
// sequence number. The read options may be NULL.
ROCKSDB_LIBRARY_API rocksdb_wal_iterator_t* rocksdb_get_updates_since(
    rocksdb_t* db, uint64_t seq_number, const rocksdb_wal_readoptions_t* options, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_wal_iter_next(rocksdb_wal_iterator_t* iter);
ROCKSDB_LIBRARY_API unsigned char rocksdb_wal_iter_valid(const rocksdb_wal_iterator_t* iter);
ROCKSDB_LIBRARY_API void rocksdb_wal_iter_status(const rocksdb_wal_iterator_t* iter, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_writebatch_t* rocksdb_wal_iter_get_batch(
    const rocksdb_wal_iterator_t* iter, uint64_t* seq);
ROCKSDB_LIBRARY_API void rocksdb_wal_iter_destroy(const rocksdb_wal_iterator_t* iter);

/* ---------------------------------------------------------------------------------------------- */
/* Write batches                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

// A batch collects updates that rocksdb_write applies atomically; it belongs to the caller
// (rocksdb_writebatch_destroy). The *v variants take arrays of key or value parts that are
// concatenated. rocksdb_writebatch_data returns the batch's serialized form (owned by the batch,
// valid until it changes), which rocksdb_writebatch_create_from copies back into a new batch.
// rocksdb_writebatch_iterate calls `put` and `deleted` for each Put and Delete in order.
ROCKSDB_LIBRARY_API rocksdb_writebatch_t* rocksdb_writebatch_create(void);
ROCKSDB_LIBRARY_API rocksdb_writebatch_t* rocksdb_writebatch_create_from(
    const char* rep, size_t size);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_destroy(rocksdb_writebatch_t* batch);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_clear(rocksdb_writebatch_t* batch);
ROCKSDB_LIBRARY_API int rocksdb_writebatch_count(rocksdb_writebatch_t* batch);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_put(
    rocksdb_writebatch_t* batch, const char* key, size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_put_cf(
    rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_put_cf_with_ts(
    rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* ts, size_t tslen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_putv(
    rocksdb_writebatch_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes, int num_values, const char* const* values_list,
    const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_putv_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, int num_values,
    const char* const* values_list, const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_merge(
    rocksdb_writebatch_t* batch, const char* key, size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_merge_cf(
    rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_mergev(
    rocksdb_writebatch_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes, int num_values, const char* const* values_list,
    const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_mergev_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, int num_values,
    const char* const* values_list, const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete(
    rocksdb_writebatch_t* batch, const char* key, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_singledelete(
    rocksdb_writebatch_t* b, const char* key, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_cf(
    rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_cf_with_ts(
    rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* ts, size_t tslen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_singledelete_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_singledelete_cf_with_ts(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* ts, size_t tslen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_deletev(
    rocksdb_writebatch_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_deletev_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_range(
    rocksdb_writebatch_t* b, const char* start_key, size_t start_key_len, const char* end_key,
    size_t end_key_len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_range_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, const char* start_key,
    size_t start_key_len, const char* end_key, size_t end_key_len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_rangev(
    rocksdb_writebatch_t* b, int num_keys, const char* const* start_keys_list,
    const size_t* start_keys_list_sizes, const char* const* end_keys_list,
    const size_t* end_keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_delete_rangev_cf(
    rocksdb_writebatch_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* start_keys_list, const size_t* start_keys_list_sizes,
    const char* const* end_keys_list, const size_t* end_keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_put_log_data(
    rocksdb_writebatch_t* batch, const char* blob, size_t len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_iterate(
    rocksdb_writebatch_t* batch, void* state,
    void (* put)(void* , const char* k, size_t klen, const char* v, size_t vlen),
    void (* deleted)(void* , const char* k, size_t klen));
ROCKSDB_LIBRARY_API const char* rocksdb_writebatch_data(rocksdb_writebatch_t* batch, size_t* size);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_set_save_point(rocksdb_writebatch_t* batch);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_rollback_to_save_point(
    rocksdb_writebatch_t* batch, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_pop_save_point(
    rocksdb_writebatch_t* batch, char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Write batches with an index (WriteBatchWithIndex)                                              */
/* ---------------------------------------------------------------------------------------------- */

// A batch that can be read before it is written: the get_from_batch* calls return a malloc'd value
// (free with rocksdb_free) or NULL, and an iterator made with a base iterator shows the batch over
// the DB. The new iterator takes over the base iterator: do not destroy the base one afterwards.
// rocksdb_write_writebatch_wi applies the batch; it stays the caller's.
ROCKSDB_LIBRARY_API rocksdb_writebatch_wi_t* rocksdb_writebatch_wi_create(
    size_t reserved_bytes, unsigned char overwrite_keys);
ROCKSDB_LIBRARY_API rocksdb_writebatch_wi_t* rocksdb_writebatch_wi_create_from(
    const char* rep, size_t size);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_destroy(rocksdb_writebatch_wi_t* batch);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_clear(rocksdb_writebatch_wi_t* batch);
ROCKSDB_LIBRARY_API int rocksdb_writebatch_wi_count(rocksdb_writebatch_wi_t* b);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_put(
    rocksdb_writebatch_wi_t* batch, const char* key, size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_put_cf(
    rocksdb_writebatch_wi_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_putv(
    rocksdb_writebatch_wi_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes, int num_values, const char* const* values_list,
    const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_putv_cf(
    rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, int num_values,
    const char* const* values_list, const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_merge(
    rocksdb_writebatch_wi_t* batch, const char* key, size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_merge_cf(
    rocksdb_writebatch_wi_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_mergev(
    rocksdb_writebatch_wi_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes, int num_values, const char* const* values_list,
    const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_mergev_cf(
    rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, int num_values,
    const char* const* values_list, const size_t* values_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete(
    rocksdb_writebatch_wi_t* batch, const char* key, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_singledelete(
    rocksdb_writebatch_wi_t* batch, const char* key, size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete_cf(
    rocksdb_writebatch_wi_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_singledelete_cf(
    rocksdb_writebatch_wi_t* batch, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_deletev(
    rocksdb_writebatch_wi_t* b, int num_keys, const char* const* keys_list,
    const size_t* keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_deletev_cf(
    rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete_range(
    rocksdb_writebatch_wi_t* b, const char* start_key, size_t start_key_len, const char* end_key,
    size_t end_key_len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete_range_cf(
    rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* column_family,
    const char* start_key, size_t start_key_len, const char* end_key, size_t end_key_len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete_rangev(
    rocksdb_writebatch_wi_t* b, int num_keys, const char* const* start_keys_list,
    const size_t* start_keys_list_sizes, const char* const* end_keys_list,
    const size_t* end_keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_delete_rangev_cf(
    rocksdb_writebatch_wi_t* b, rocksdb_column_family_handle_t* column_family, int num_keys,
    const char* const* start_keys_list, const size_t* start_keys_list_sizes,
    const char* const* end_keys_list, const size_t* end_keys_list_sizes);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_put_log_data(
    rocksdb_writebatch_wi_t* batch, const char* blob, size_t len);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_iterate(
    rocksdb_writebatch_wi_t* b, void* state,
    void (* put)(void* , const char* k, size_t klen, const char* v, size_t vlen),
    void (* deleted)(void* , const char* k, size_t klen));
ROCKSDB_LIBRARY_API const char* rocksdb_writebatch_wi_data(
    rocksdb_writebatch_wi_t* b, size_t* size);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_set_save_point(rocksdb_writebatch_wi_t* batch);
ROCKSDB_LIBRARY_API void rocksdb_writebatch_wi_rollback_to_save_point(
    rocksdb_writebatch_wi_t* batch, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_writebatch_wi_get_from_batch(
    rocksdb_writebatch_wi_t* wbwi, const rocksdb_options_t* options, const char* key, size_t keylen,
    size_t* vallen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_writebatch_wi_get_from_batch_cf(
    rocksdb_writebatch_wi_t* wbwi, const rocksdb_options_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen,
    char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_writebatch_wi_get_from_batch_and_db(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_t* db, const rocksdb_readoptions_t* options,
    const char* key, size_t keylen, size_t* vallen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_writebatch_wi_get_from_batch_and_db_cf(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_t* db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_writebatch_wi_create_iterator_with_base(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_iterator_t* base_iterator);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_writebatch_wi_create_iterator_with_base_cf(
    rocksdb_writebatch_wi_t* wbwi, rocksdb_iterator_t* base_iterator,
    rocksdb_column_family_handle_t* cf);
ROCKSDB_LIBRARY_API void rocksdb_write_writebatch_wi(
    rocksdb_t* db, const rocksdb_writeoptions_t* options, rocksdb_writebatch_wi_t* wbwi,
    char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Checkpoints                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

// A checkpoint object makes openable copies of a live DB in a new directory (hard links where
// possible). It is the caller's: rocksdb_checkpoint_object_destroy.
ROCKSDB_LIBRARY_API rocksdb_checkpoint_t* rocksdb_checkpoint_object_create(
    rocksdb_t* db, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_checkpoint_create(
    rocksdb_checkpoint_t* checkpoint, const char* checkpoint_dir, uint64_t log_size_for_flush,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_checkpoint_object_destroy(rocksdb_checkpoint_t* checkpoint);

/* ---------------------------------------------------------------------------------------------- */
/* SST file writer and ingestion                                                                  */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_sstfilewriter_* write a sorted table file (keys added in ascending order) that
// rocksdb_ingest_external_file* then move or copy into the DB. The writer, the env options and the
// ingestion options belong to the caller (their *_destroy). The comparator given to
// rocksdb_sstfilewriter_create_with_comparator stays the caller's.
ROCKSDB_LIBRARY_API rocksdb_envoptions_t* rocksdb_envoptions_create(void);
ROCKSDB_LIBRARY_API void rocksdb_envoptions_destroy(rocksdb_envoptions_t* opt);
ROCKSDB_LIBRARY_API rocksdb_sstfilewriter_t* rocksdb_sstfilewriter_create(
    const rocksdb_envoptions_t* env, const rocksdb_options_t* io_options);
ROCKSDB_LIBRARY_API rocksdb_sstfilewriter_t* rocksdb_sstfilewriter_create_with_comparator(
    const rocksdb_envoptions_t* env, const rocksdb_options_t* io_options,
    const rocksdb_comparator_t* comparator);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_open(
    rocksdb_sstfilewriter_t* writer, const char* name, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_add(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, const char* val, size_t vallen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_put(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, const char* val, size_t vallen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_put_with_ts(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, const char* ts, size_t tslen,
    const char* val, size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_merge(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, const char* val, size_t vallen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_delete(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_delete_with_ts(
    rocksdb_sstfilewriter_t* writer, const char* key, size_t keylen, const char* ts, size_t tslen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_delete_range(
    rocksdb_sstfilewriter_t* writer, const char* begin_key, size_t begin_keylen,
    const char* end_key, size_t end_keylen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_finish(
    rocksdb_sstfilewriter_t* writer, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_file_size(
    rocksdb_sstfilewriter_t* writer, uint64_t* file_size);
ROCKSDB_LIBRARY_API void rocksdb_sstfilewriter_destroy(rocksdb_sstfilewriter_t* writer);
ROCKSDB_LIBRARY_API rocksdb_ingestexternalfileoptions_t* rocksdb_ingestexternalfileoptions_create(
    void);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_set_move_files(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char move_files);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_set_snapshot_consistency(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char snapshot_consistency);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_set_allow_global_seqno(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char allow_global_seqno);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_set_allow_blocking_flush(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char allow_blocking_flush);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_set_ingest_behind(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char ingest_behind);
ROCKSDB_LIBRARY_API void rocksdb_ingestexternalfileoptions_destroy(
    rocksdb_ingestexternalfileoptions_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_ingest_external_file(
    rocksdb_t* db, const char* const* file_list, const size_t list_len,
    const rocksdb_ingestexternalfileoptions_t* opt, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_ingest_external_file_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* handle, const char* const* file_list,
    const size_t list_len, const rocksdb_ingestexternalfileoptions_t* opt, char** errptr);

/* ---------------------------------------------------------------------------------------------- */
/* Backups                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

// A backup engine keeps backups of a DB in a directory of its own and restores them. The engine,
// its options, restore options and the info from rocksdb_backup_engine_get_backup_info are the
// caller's, each released with its *_destroy (the engine with rocksdb_backup_engine_close).
ROCKSDB_LIBRARY_API rocksdb_backup_engine_t* rocksdb_backup_engine_open(
    const rocksdb_options_t* options, const char* path, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_backup_engine_t* rocksdb_backup_engine_open_opts(
    const rocksdb_backup_engine_options_t* options, rocksdb_env_t* env, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_create_new_backup(
    rocksdb_backup_engine_t* be, rocksdb_t* db, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_create_new_backup_flush(
    rocksdb_backup_engine_t* be, rocksdb_t* db, unsigned char flush_before_backup, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_purge_old_backups(
    rocksdb_backup_engine_t* be, uint32_t num_backups_to_keep, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_verify_backup(
    rocksdb_backup_engine_t* be, uint32_t backup_id, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_restore_db_from_latest_backup(
    rocksdb_backup_engine_t* be, const char* db_dir, const char* wal_dir,
    const rocksdb_restore_options_t* restore_options, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_restore_db_from_backup(
    rocksdb_backup_engine_t* be, const char* db_dir, const char* wal_dir,
    const rocksdb_restore_options_t* restore_options, const uint32_t backup_id, char** errptr);
ROCKSDB_LIBRARY_API const rocksdb_backup_engine_info_t* rocksdb_backup_engine_get_backup_info(
    rocksdb_backup_engine_t* be);
ROCKSDB_LIBRARY_API int rocksdb_backup_engine_info_count(const rocksdb_backup_engine_info_t* info);
ROCKSDB_LIBRARY_API int64_t rocksdb_backup_engine_info_timestamp(
    const rocksdb_backup_engine_info_t* info, int index);
ROCKSDB_LIBRARY_API uint32_t rocksdb_backup_engine_info_backup_id(
    const rocksdb_backup_engine_info_t* info, int index);
ROCKSDB_LIBRARY_API uint64_t rocksdb_backup_engine_info_size(
    const rocksdb_backup_engine_info_t* info, int index);
ROCKSDB_LIBRARY_API uint32_t rocksdb_backup_engine_info_number_files(
    const rocksdb_backup_engine_info_t* info, int index);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_info_destroy(
    const rocksdb_backup_engine_info_t* info);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_close(rocksdb_backup_engine_t* be);
ROCKSDB_LIBRARY_API rocksdb_restore_options_t* rocksdb_restore_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_restore_options_destroy(rocksdb_restore_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_restore_options_set_keep_log_files(
    rocksdb_restore_options_t* opt, int v);
ROCKSDB_LIBRARY_API rocksdb_backup_engine_options_t* rocksdb_backup_engine_options_create(
    const char* backup_dir);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_backup_dir(
    rocksdb_backup_engine_options_t* options, const char* backup_dir);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_env(
    rocksdb_backup_engine_options_t* options, rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_share_table_files(
    rocksdb_backup_engine_options_t* options, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_backup_engine_options_get_share_table_files(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_sync(
    rocksdb_backup_engine_options_t* options, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_backup_engine_options_get_sync(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_destroy_old_data(
    rocksdb_backup_engine_options_t* options, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_backup_engine_options_get_destroy_old_data(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_backup_log_files(
    rocksdb_backup_engine_options_t* options, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_backup_engine_options_get_backup_log_files(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_backup_rate_limit(
    rocksdb_backup_engine_options_t* options, uint64_t limit);
ROCKSDB_LIBRARY_API uint64_t rocksdb_backup_engine_options_get_backup_rate_limit(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_restore_rate_limit(
    rocksdb_backup_engine_options_t* options, uint64_t limit);
ROCKSDB_LIBRARY_API uint64_t rocksdb_backup_engine_options_get_restore_rate_limit(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_max_background_operations(
    rocksdb_backup_engine_options_t* options, int val);
ROCKSDB_LIBRARY_API int rocksdb_backup_engine_options_get_max_background_operations(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_callback_trigger_interval_size(
    rocksdb_backup_engine_options_t* options, uint64_t size);
ROCKSDB_LIBRARY_API uint64_t rocksdb_backup_engine_options_get_callback_trigger_interval_size(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_max_valid_backups_to_open(
    rocksdb_backup_engine_options_t* options, int val);
ROCKSDB_LIBRARY_API int rocksdb_backup_engine_options_get_max_valid_backups_to_open(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_set_share_files_with_checksum_naming(
    rocksdb_backup_engine_options_t* options, int val);
ROCKSDB_LIBRARY_API int rocksdb_backup_engine_options_get_share_files_with_checksum_naming(
    rocksdb_backup_engine_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_backup_engine_options_destroy(
    rocksdb_backup_engine_options_t* be_options);

/* ---------------------------------------------------------------------------------------------- */
/* Options: the object and its presets                                                            */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_options_create gives RocksDB's defaults; the handle is the caller's
// (rocksdb_options_destroy) and an open copies what it needs, so options may be destroyed once the
// DB is open. Setters take the handle first and a value; a getter returns the current value.
// Booleans are unsigned char (0 false, anything else true). The presets change several options at
// once as RocksDB's C++ helpers of the same name do.
ROCKSDB_LIBRARY_API rocksdb_options_t* rocksdb_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_options_destroy(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API rocksdb_options_t* rocksdb_options_create_copy(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_increase_parallelism(
    rocksdb_options_t* opt, int total_threads);
ROCKSDB_LIBRARY_API void rocksdb_options_optimize_for_point_lookup(
    rocksdb_options_t* opt, uint64_t block_cache_size_mb);
ROCKSDB_LIBRARY_API void rocksdb_options_optimize_level_style_compaction(
    rocksdb_options_t* opt, uint64_t memtable_memory_budget);
ROCKSDB_LIBRARY_API void rocksdb_options_optimize_universal_style_compaction(
    rocksdb_options_t* opt, uint64_t memtable_memory_budget);
ROCKSDB_LIBRARY_API void rocksdb_options_prepare_for_bulk_load(rocksdb_options_t* opt);

/* ---------------------------------------------------------------------------------------------- */
/* Options: user callbacks and table formats                                                      */
/* ---------------------------------------------------------------------------------------------- */

// Ownership differs by object, as in RocksDB: the options take (and eventually destroy) a merge
// operator, a compaction filter factory and a prefix extractor (slice transform); the caller must
// not destroy those after handing them over. A comparator, a compaction filter and an env stay the
// caller's and must outlive every DB opened with them. A block-based or cuckoo table options handle
// is copied: the caller still destroys it.
ROCKSDB_LIBRARY_API void rocksdb_options_set_comparator(
    rocksdb_options_t* opt, rocksdb_comparator_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_merge_operator(
    rocksdb_options_t* opt, rocksdb_mergeoperator_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_uint64add_merge_operator(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compaction_filter(
    rocksdb_options_t* opt, rocksdb_compactionfilter_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compaction_filter_factory(
    rocksdb_options_t* opt, rocksdb_compactionfilterfactory_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_prefix_extractor(
    rocksdb_options_t* opt, rocksdb_slicetransform_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_add_compact_on_deletion_collector_factory(
    rocksdb_options_t* opt, size_t window_size, size_t num_dels_trigger);
ROCKSDB_LIBRARY_API void rocksdb_options_set_block_based_table_factory(
    rocksdb_options_t* opt, rocksdb_block_based_table_options_t* table_options);
ROCKSDB_LIBRARY_API void rocksdb_options_set_cuckoo_table_factory(
    rocksdb_options_t* opt, rocksdb_cuckoo_table_options_t* table_options);
ROCKSDB_LIBRARY_API void rocksdb_options_set_plain_table_factory(
    rocksdb_options_t* opt, uint32_t, int, double, size_t value);

/* ---------------------------------------------------------------------------------------------- */
/* Options: the database as a whole                                                               */
/* ---------------------------------------------------------------------------------------------- */

// Creation and checks at open, the environment, the info LOG, statistics, open files, file
// placement (db_paths: an array of num_paths rocksdb_dbpath_t, copied), I/O behaviour, the row
// cache and the rate limiter (both shared with the caller's handle, which the caller still
// destroys).
ROCKSDB_LIBRARY_API void rocksdb_options_set_create_if_missing(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_create_if_missing(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_create_missing_column_families(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_create_missing_column_families(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_error_if_exists(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_error_if_exists(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_paranoid_checks(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_paranoid_checks(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_env(rocksdb_options_t* opt, rocksdb_env_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_info_log(
    rocksdb_options_t* opt, rocksdb_logger_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_info_log_level(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_info_log_level(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_db_log_dir(rocksdb_options_t* opt, const char* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_log_file_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_max_log_file_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_log_file_time_to_roll(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_log_file_time_to_roll(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_keep_log_file_num(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_keep_log_file_num(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_enable_statistics(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API char* rocksdb_options_statistics_get_string(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_skip_stats_update_on_db_open(
    rocksdb_options_t* opt, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_skip_stats_update_on_db_open(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_skip_checking_sst_file_sizes_on_db_open(
    rocksdb_options_t* opt, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_skip_checking_sst_file_sizes_on_db_open(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_stats_dump_period_sec(
    rocksdb_options_t* opt, unsigned int value);
ROCKSDB_LIBRARY_API unsigned int rocksdb_options_get_stats_dump_period_sec(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_stats_persist_period_sec(
    rocksdb_options_t* opt, unsigned int value);
ROCKSDB_LIBRARY_API unsigned int rocksdb_options_get_stats_persist_period_sec(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_report_bg_io_stats(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_report_bg_io_stats(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_dump_malloc_stats(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_open_files(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_open_files(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_file_opening_threads(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_file_opening_threads(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_table_cache_numshardbits(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_table_cache_numshardbits(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_db_paths(
    rocksdb_options_t* opt, const rocksdb_dbpath_t** path_values, size_t num_paths);
ROCKSDB_LIBRARY_API void rocksdb_options_set_use_fsync(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_use_fsync(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_allow_mmap_reads(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_allow_mmap_reads(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_allow_mmap_writes(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_allow_mmap_writes(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_use_direct_reads(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_use_direct_reads(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_use_direct_io_for_flush_and_compaction(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_use_direct_io_for_flush_and_compaction(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_is_fd_close_on_exec(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_is_fd_close_on_exec(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_advise_random_on_open(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_advise_random_on_open(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_access_hint_on_compaction_start(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_access_hint_on_compaction_start(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_use_adaptive_mutex(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_use_adaptive_mutex(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bytes_per_sync(rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_bytes_per_sync(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_writable_file_max_buffer_size(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_writable_file_max_buffer_size(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_avoid_unnecessary_blocking_io(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_avoid_unnecessary_blocking_io(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_manifest_file_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_max_manifest_file_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_manifest_preallocation_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_manifest_preallocation_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_delete_obsolete_files_period_micros(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_delete_obsolete_files_period_micros(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_allow_ingest_behind(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_allow_ingest_behind(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_atomic_flush(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_atomic_flush(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_row_cache(
    rocksdb_options_t* opt, rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API void rocksdb_options_set_ratelimiter(
    rocksdb_options_t* opt, rocksdb_ratelimiter_t* limiter);

/* ---------------------------------------------------------------------------------------------- */
/* Options: the write-ahead log                                                                   */
/* ---------------------------------------------------------------------------------------------- */

// Where the WAL lives, how much of it is kept, how it is synced and compressed, and how much of a
// damaged log recovery accepts (the recovery-mode constants).
ROCKSDB_LIBRARY_API void rocksdb_options_set_wal_dir(rocksdb_options_t* opt, const char* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_total_wal_size(rocksdb_options_t* opt, uint64_t n);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_max_total_wal_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_recycle_log_file_num(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_recycle_log_file_num(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_WAL_ttl_seconds(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_WAL_ttl_seconds(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_WAL_size_limit_MB(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_WAL_size_limit_MB(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_wal_bytes_per_sync(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_wal_bytes_per_sync(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_manual_wal_flush(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_manual_wal_flush(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_wal_compression(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_wal_compression(rocksdb_options_t* opt);

// Values of wal_recovery_mode.
enum {
  rocksdb_tolerate_corrupted_tail_records_recovery = 0,
  rocksdb_absolute_consistency_recovery = 1,
  rocksdb_point_in_time_recovery = 2,
  rocksdb_skip_any_corrupted_records_recovery = 3,
};
ROCKSDB_LIBRARY_API void rocksdb_options_set_wal_recovery_mode(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_wal_recovery_mode(rocksdb_options_t* opt);

/* ---------------------------------------------------------------------------------------------- */
/* Options: memtables and the write path                                                          */
/* ---------------------------------------------------------------------------------------------- */

// Write buffers (memtables), their representation and filters, and how concurrent writers are
// grouped.
ROCKSDB_LIBRARY_API void rocksdb_options_set_write_buffer_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_write_buffer_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_db_write_buffer_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_db_write_buffer_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_write_buffer_number(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_write_buffer_number(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_min_write_buffer_number_to_merge(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_min_write_buffer_number_to_merge(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_write_buffer_number_to_maintain(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_write_buffer_number_to_maintain(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_write_buffer_size_to_maintain(
    rocksdb_options_t* opt, int64_t value);
ROCKSDB_LIBRARY_API int64_t rocksdb_options_get_max_write_buffer_size_to_maintain(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_arena_block_size(rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_arena_block_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_memtable_vector_rep(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_hash_skip_list_rep(
    rocksdb_options_t* opt, size_t, int32_t, int32_t value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_hash_link_list_rep(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_sequential_skip_in_iterations(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_max_sequential_skip_in_iterations(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_memtable_prefix_bloom_size_ratio(
    rocksdb_options_t* opt, double value);
ROCKSDB_LIBRARY_API double rocksdb_options_get_memtable_prefix_bloom_size_ratio(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_memtable_huge_page_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_memtable_huge_page_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_successive_merges(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_max_successive_merges(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bloom_locality(rocksdb_options_t* opt, uint32_t value);
ROCKSDB_LIBRARY_API uint32_t rocksdb_options_get_bloom_locality(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_inplace_update_support(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_inplace_update_support(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_inplace_update_num_locks(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_inplace_update_num_locks(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_experimental_mempurge_threshold(
    rocksdb_options_t* opt, double value);
ROCKSDB_LIBRARY_API double rocksdb_options_get_experimental_mempurge_threshold(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_memtable_whole_key_filtering(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_enable_pipelined_write(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_enable_pipelined_write(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_unordered_write(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_unordered_write(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_allow_concurrent_memtable_write(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_allow_concurrent_memtable_write(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_enable_write_thread_adaptive_yield(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_enable_write_thread_adaptive_yield(
    rocksdb_options_t* opt);

/* ---------------------------------------------------------------------------------------------- */
/* Options: levels, compaction and background work                                                */
/* ---------------------------------------------------------------------------------------------- */

// The shape of the LSM tree and when and how it is compacted. The universal and FIFO option objects
// are copied into the options; the caller still destroys them.

// Values of compaction_style.
enum {
  rocksdb_level_compaction = 0,
  rocksdb_universal_compaction = 1,
  rocksdb_fifo_compaction = 2,
};
ROCKSDB_LIBRARY_API void rocksdb_options_set_compaction_style(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_compaction_style(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_num_levels(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_num_levels(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_level0_file_num_compaction_trigger(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_level0_file_num_compaction_trigger(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_level0_slowdown_writes_trigger(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_level0_slowdown_writes_trigger(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_level0_stop_writes_trigger(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_level0_stop_writes_trigger(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_target_file_size_base(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_target_file_size_base(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_target_file_size_multiplier(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_target_file_size_multiplier(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_bytes_for_level_base(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_max_bytes_for_level_base(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_level_compaction_dynamic_level_bytes(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_level_compaction_dynamic_level_bytes(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_bytes_for_level_multiplier(
    rocksdb_options_t* opt, double value);
ROCKSDB_LIBRARY_API double rocksdb_options_get_max_bytes_for_level_multiplier(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_bytes_for_level_multiplier_additional(
    rocksdb_options_t* opt, int* level_values, size_t num_levels);
ROCKSDB_LIBRARY_API void rocksdb_options_set_optimize_filters_for_hits(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_optimize_filters_for_hits(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_compaction_bytes(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_max_compaction_bytes(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_soft_pending_compaction_bytes_limit(
    rocksdb_options_t* opt, size_t v);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_soft_pending_compaction_bytes_limit(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_hard_pending_compaction_bytes_limit(
    rocksdb_options_t* opt, size_t v);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_hard_pending_compaction_bytes_limit(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_disable_auto_compactions(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_disable_auto_compactions(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_subcompactions(
    rocksdb_options_t* opt, uint32_t value);
ROCKSDB_LIBRARY_API uint32_t rocksdb_options_get_max_subcompactions(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_background_jobs(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_background_jobs(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_background_compactions(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_background_compactions(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_max_background_flushes(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_max_background_flushes(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_compaction_readahead_size(
    rocksdb_options_t* opt, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_options_get_compaction_readahead_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_universal_compaction_options(
    rocksdb_options_t* opt, rocksdb_universal_compaction_options_t* value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_fifo_compaction_options(
    rocksdb_options_t* opt, rocksdb_fifo_compaction_options_t* fifo);

// Values of the universal stop style.
enum {
  rocksdb_similar_size_compaction_stop_style = 0,
  rocksdb_total_size_compaction_stop_style = 1,
};
ROCKSDB_LIBRARY_API rocksdb_universal_compaction_options_t* rocksdb_universal_compaction_options_create(
    void);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_size_ratio(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_size_ratio(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_min_merge_width(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_min_merge_width(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_max_merge_width(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_max_merge_width(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_max_size_amplification_percent(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_max_size_amplification_percent(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_compression_size_percent(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_compression_size_percent(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_set_stop_style(
    rocksdb_universal_compaction_options_t* uco, int value);
ROCKSDB_LIBRARY_API int rocksdb_universal_compaction_options_get_stop_style(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API void rocksdb_universal_compaction_options_destroy(
    rocksdb_universal_compaction_options_t* uco);
ROCKSDB_LIBRARY_API rocksdb_fifo_compaction_options_t* rocksdb_fifo_compaction_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_fifo_compaction_options_set_max_table_files_size(
    rocksdb_fifo_compaction_options_t* fifo_opts, uint64_t size);
ROCKSDB_LIBRARY_API uint64_t rocksdb_fifo_compaction_options_get_max_table_files_size(
    rocksdb_fifo_compaction_options_t* fifo_opts);
ROCKSDB_LIBRARY_API void rocksdb_fifo_compaction_options_destroy(
    rocksdb_fifo_compaction_options_t* fifo_opts);

/* ---------------------------------------------------------------------------------------------- */
/* Options: compression                                                                           */
/* ---------------------------------------------------------------------------------------------- */

// Compression of table files, per level and for the last level, and the codecs' parameters
// (window_bits, level, strategy, max_dict_bytes for the *_compression_options setters). The
// compression type constants name RocksDB's codecs.

// Compression types.
enum {
  rocksdb_no_compression = 0,
  rocksdb_snappy_compression = 1,
  rocksdb_zlib_compression = 2,
  rocksdb_bz2_compression = 3,
  rocksdb_lz4_compression = 4,
  rocksdb_lz4hc_compression = 5,
  rocksdb_xpress_compression = 6,
  rocksdb_zstd_compression = 7,
};
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression(rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_compression(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bottommost_compression(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_bottommost_compression(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_per_level(
    rocksdb_options_t* opt, const int* level_values, size_t num_levels);
ROCKSDB_LIBRARY_API void rocksdb_options_set_min_level_to_compress(
    rocksdb_options_t* opt, int level);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_options(
    rocksdb_options_t* opt, int, int, int, int value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_options_zstd_max_train_bytes(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_compression_options_zstd_max_train_bytes(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_options_parallel_threads(
    rocksdb_options_t* opt, int value);
ROCKSDB_LIBRARY_API int rocksdb_options_get_compression_options_parallel_threads(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_compression_options_max_dict_buffer_bytes(
    rocksdb_options_t* opt, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_compression_options_max_dict_buffer_bytes(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bottommost_compression_options(
    rocksdb_options_t* opt, int, int, int, int, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bottommost_compression_options_zstd_max_train_bytes(
    rocksdb_options_t* opt, int, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bottommost_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt, unsigned char, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_bottommost_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_bottommost_compression_options_max_dict_buffer_bytes(
    rocksdb_options_t* opt, uint64_t, unsigned char value);

/* ---------------------------------------------------------------------------------------------- */
/* Options: blob files                                                                            */
/* ---------------------------------------------------------------------------------------------- */

// Values at least min_blob_size long kept in blob files apart from the LSM tree, and their garbage
// collection and cache (shared with the caller's cache handle).
ROCKSDB_LIBRARY_API void rocksdb_options_set_enable_blob_files(
    rocksdb_options_t* opt, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_enable_blob_files(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_min_blob_size(rocksdb_options_t* opt, uint64_t val);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_min_blob_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_file_size(rocksdb_options_t* opt, uint64_t val);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_blob_file_size(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_compression_type(rocksdb_options_t* opt, int val);
ROCKSDB_LIBRARY_API int rocksdb_options_get_blob_compression_type(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_enable_blob_gc(
    rocksdb_options_t* opt, unsigned char val);
ROCKSDB_LIBRARY_API unsigned char rocksdb_options_get_enable_blob_gc(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_gc_age_cutoff(rocksdb_options_t* opt, double val);
ROCKSDB_LIBRARY_API double rocksdb_options_get_blob_gc_age_cutoff(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_gc_force_threshold(
    rocksdb_options_t* opt, double val);
ROCKSDB_LIBRARY_API double rocksdb_options_get_blob_gc_force_threshold(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_compaction_readahead_size(
    rocksdb_options_t* opt, uint64_t val);
ROCKSDB_LIBRARY_API uint64_t rocksdb_options_get_blob_compaction_readahead_size(
    rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_file_starting_level(
    rocksdb_options_t* opt, int val);
ROCKSDB_LIBRARY_API int rocksdb_options_get_blob_file_starting_level(rocksdb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_options_set_blob_cache(
    rocksdb_options_t* opt, rocksdb_cache_t* blob_cache);

// Values of prepopulate_blob_cache.
enum {
  rocksdb_prepopulate_blob_disable = 0,
  rocksdb_prepopulate_blob_flush_only = 1,
};
ROCKSDB_LIBRARY_API void rocksdb_options_set_prepopulate_blob_cache(
    rocksdb_options_t* opt, int val);
ROCKSDB_LIBRARY_API int rocksdb_options_get_prepopulate_blob_cache(rocksdb_options_t* opt);

/* ---------------------------------------------------------------------------------------------- */
/* Block-based table options                                                                      */
/* ---------------------------------------------------------------------------------------------- */

// The format of table files: block sizes, index and filter layout, checksums and the block cache.
// The handle is the caller's (rocksdb_block_based_options_destroy), copied by
// rocksdb_options_set_block_based_table_factory. The filter policy given to
// rocksdb_block_based_options_set_filter_policy is taken over by the table options (do not destroy
// it afterwards); a block cache is shared (the caller still destroys its handle).
ROCKSDB_LIBRARY_API rocksdb_block_based_table_options_t* rocksdb_block_based_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_destroy(
    rocksdb_block_based_table_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_checksum(
    rocksdb_block_based_table_options_t* table_options, char value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_block_size(
    rocksdb_block_based_table_options_t* options, size_t block_size);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_block_size_deviation(
    rocksdb_block_based_table_options_t* options, int block_size_deviation);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_block_restart_interval(
    rocksdb_block_based_table_options_t* options, int block_restart_interval);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_index_block_restart_interval(
    rocksdb_block_based_table_options_t* options, int index_block_restart_interval);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_metadata_block_size(
    rocksdb_block_based_table_options_t* options, uint64_t metadata_block_size);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_partition_filters(
    rocksdb_block_based_table_options_t* options, unsigned char partition_filters);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_use_delta_encoding(
    rocksdb_block_based_table_options_t* options, unsigned char use_delta_encoding);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_filter_policy(
    rocksdb_block_based_table_options_t* options, rocksdb_filterpolicy_t* filter_policy);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_no_block_cache(
    rocksdb_block_based_table_options_t* options, unsigned char no_block_cache);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_block_cache(
    rocksdb_block_based_table_options_t* options, rocksdb_cache_t* block_cache);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_block_cache_compressed(
    rocksdb_block_based_table_options_t* options, rocksdb_cache_t* block_cache_compressed);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_whole_key_filtering(
    rocksdb_block_based_table_options_t* table_options, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_format_version(
    rocksdb_block_based_table_options_t* table_options, int value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_cache_index_and_filter_blocks(
    rocksdb_block_based_table_options_t* table_options, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(
    rocksdb_block_based_table_options_t* table_options, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
    rocksdb_block_based_table_options_t* table_options, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_pin_top_level_index_and_filter(
    rocksdb_block_based_table_options_t* table_options, unsigned char value);

// Values of index_type.
enum {
  rocksdb_block_based_table_index_type_binary_search = 0,
  rocksdb_block_based_table_index_type_hash_search = 1,
  rocksdb_block_based_table_index_type_two_level_index_search = 2,
};
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_index_type(
    rocksdb_block_based_table_options_t* table_options, int value);

// Values of data_block_index_type.
enum {
  rocksdb_block_based_table_data_block_index_type_binary_search = 0,
  rocksdb_block_based_table_data_block_index_type_binary_search_and_hash = 1,
};
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_data_block_index_type(
    rocksdb_block_based_table_options_t* table_options, int value);
ROCKSDB_LIBRARY_API void rocksdb_block_based_options_set_data_block_hash_ratio(
    rocksdb_block_based_table_options_t* options, double v);

/* ---------------------------------------------------------------------------------------------- */
/* Cuckoo table options                                                                           */
/* ---------------------------------------------------------------------------------------------- */

// Options of the cuckoo-hash table format; the handle is the caller's.
ROCKSDB_LIBRARY_API rocksdb_cuckoo_table_options_t* rocksdb_cuckoo_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_destroy(rocksdb_cuckoo_table_options_t* options);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_set_hash_ratio(
    rocksdb_cuckoo_table_options_t* options, double v);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_set_max_search_depth(
    rocksdb_cuckoo_table_options_t* options, uint32_t v);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_set_cuckoo_block_size(
    rocksdb_cuckoo_table_options_t* options, uint32_t v);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_set_identity_as_first_hash(
    rocksdb_cuckoo_table_options_t* options, unsigned char v);
ROCKSDB_LIBRARY_API void rocksdb_cuckoo_options_set_use_module_hash(
    rocksdb_cuckoo_table_options_t* options, unsigned char v);

/* ---------------------------------------------------------------------------------------------- */
/* Filter policies                                                                                */
/* ---------------------------------------------------------------------------------------------- */

// Bloom and Ribbon filters for table files, by bits per key. A policy handed to
// rocksdb_block_based_options_set_filter_policy belongs to the table options from then on; destroy
// only a policy that was never handed over.
ROCKSDB_LIBRARY_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom(double bits_per_key);
ROCKSDB_LIBRARY_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_bloom_full(
    double bits_per_key);
ROCKSDB_LIBRARY_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_ribbon(
    double bloom_equivalent_bits_per_key);
ROCKSDB_LIBRARY_API rocksdb_filterpolicy_t* rocksdb_filterpolicy_create_ribbon_hybrid(
    double bloom_equivalent_bits_per_key, int bloom_before_level);
ROCKSDB_LIBRARY_API void rocksdb_filterpolicy_destroy(rocksdb_filterpolicy_t* policy);

/* ---------------------------------------------------------------------------------------------- */
/* Caches and memory allocators                                                                   */
/* ---------------------------------------------------------------------------------------------- */

// A cache handle is the caller's (rocksdb_cache_destroy) even after options or table options share
// it: the cache lives on while anything uses it. The LRU options object and a memory allocator are
// the caller's too.
ROCKSDB_LIBRARY_API rocksdb_cache_t* rocksdb_cache_create_lru(size_t capacity);
ROCKSDB_LIBRARY_API rocksdb_cache_t* rocksdb_cache_create_lru_with_strict_capacity_limit(
    size_t capacity);
ROCKSDB_LIBRARY_API rocksdb_cache_t* rocksdb_cache_create_lru_opts(
    rocksdb_lru_cache_options_t* lru_options);
ROCKSDB_LIBRARY_API void rocksdb_cache_destroy(rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API void rocksdb_cache_disown_data(rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API void rocksdb_cache_set_capacity(rocksdb_cache_t* cache, size_t capacity);
ROCKSDB_LIBRARY_API size_t rocksdb_cache_get_capacity(rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API size_t rocksdb_cache_get_usage(rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API size_t rocksdb_cache_get_pinned_usage(rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API rocksdb_lru_cache_options_t* rocksdb_lru_cache_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_lru_cache_options_destroy(
    rocksdb_lru_cache_options_t* lru_options);
ROCKSDB_LIBRARY_API void rocksdb_lru_cache_options_set_capacity(
    rocksdb_lru_cache_options_t* lru_options, size_t value);
ROCKSDB_LIBRARY_API void rocksdb_lru_cache_options_set_num_shard_bits(
    rocksdb_lru_cache_options_t* lru_options, int value);
ROCKSDB_LIBRARY_API void rocksdb_lru_cache_options_set_memory_allocator(
    rocksdb_lru_cache_options_t* lru_options, rocksdb_memory_allocator_t* value);
ROCKSDB_LIBRARY_API rocksdb_memory_allocator_t* rocksdb_jemalloc_nodump_allocator_create(
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_memory_allocator_destroy(rocksdb_memory_allocator_t* allocator);

/* ---------------------------------------------------------------------------------------------- */
/* Comparators                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

// A comparator built from C callbacks: compare returns <0, 0 or >0 like memcmp; name must stay the
// same for the life of the data (it is recorded in the DB). `destructor(state)` runs when
// rocksdb_comparator_destroy is called; the comparator stays the caller's after
// rocksdb_options_set_comparator and must outlive the DB. The *_with_ts variant adds user
// timestamps of timestamp_size bytes at the end of each key.
ROCKSDB_LIBRARY_API rocksdb_comparator_t* rocksdb_comparator_create(
    void* state, void (*destructor)(void*),
    int (*compare)(void*, const char* a, size_t alen, const char* b, size_t blen),
    const char* (*name)(void*));
ROCKSDB_LIBRARY_API rocksdb_comparator_t* rocksdb_comparator_with_ts_create(
    void* state, void (*destructor)(void*),
    int (*compare)(void*, const char* a, size_t alen, const char* b, size_t blen),
    int (*compare_ts)(void*, const char* a_ts, size_t a_tslen, const char* b_ts, size_t b_tslen),
    int (*compare_without_ts)(void*, const char* a, size_t alen, unsigned char a_has_ts,
                              const char* b, size_t blen, unsigned char b_has_ts),
    const char* (*name)(void*), size_t timestamp_size);
ROCKSDB_LIBRARY_API void rocksdb_comparator_destroy(rocksdb_comparator_t* cmp);

/* ---------------------------------------------------------------------------------------------- */
/* Merge operators                                                                                */
/* ---------------------------------------------------------------------------------------------- */

// A merge operator built from C callbacks. full_merge combines an existing value (NULL when there
// is none) with num_operands operands; partial_merge combines operands alone. Each returns a buffer
// with the result (its length in *new_value_length) and sets *success; the library releases that
// buffer with delete_value (a NULL delete_value means the library frees it itself). Once given to
// rocksdb_options_set_merge_operator the operator belongs to the options: its destructor(state)
// runs when the last user is gone; do not call rocksdb_mergeoperator_destroy on it then.
ROCKSDB_LIBRARY_API rocksdb_mergeoperator_t* rocksdb_mergeoperator_create(
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
ROCKSDB_LIBRARY_API void rocksdb_mergeoperator_destroy(rocksdb_mergeoperator_t* merge_operator);

/* ---------------------------------------------------------------------------------------------- */
/* Compaction filters                                                                             */
/* ---------------------------------------------------------------------------------------------- */

// A compaction filter sees each key-value pair a compaction keeps and returns nonzero to drop it,
// or sets *value_changed and points *new_value / *new_value_length at a replacement value, which
// the library copies (the buffer stays the filter's). A filter set with
// rocksdb_options_set_compaction_filter stays the caller's (destroy it after the DB is closed). A
// factory makes one filter per compaction (the library destroys those filters) and is taken over by
// rocksdb_options_set_compaction_filter_factory. The context tells the factory what kind of
// compaction asks.
ROCKSDB_LIBRARY_API rocksdb_compactionfilter_t* rocksdb_compactionfilter_create(
    void* state, void (*destructor)(void*),
    unsigned char (*filter)(void*, int level, const char* key, size_t key_length,
                            const char* existing_value, size_t value_length, char** new_value,
                            size_t* new_value_length, unsigned char* value_changed),
    const char* (*name)(void*));
ROCKSDB_LIBRARY_API void rocksdb_compactionfilter_set_ignore_snapshots(
    rocksdb_compactionfilter_t* filter, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_compactionfilter_destroy(rocksdb_compactionfilter_t* filter);
ROCKSDB_LIBRARY_API unsigned char rocksdb_compactionfiltercontext_is_full_compaction(
    rocksdb_compactionfiltercontext_t* context);
ROCKSDB_LIBRARY_API unsigned char rocksdb_compactionfiltercontext_is_manual_compaction(
    rocksdb_compactionfiltercontext_t* context);
ROCKSDB_LIBRARY_API rocksdb_compactionfilterfactory_t* rocksdb_compactionfilterfactory_create(
    void* state, void (*destructor)(void*),
    rocksdb_compactionfilter_t* (*create_compaction_filter)(
        void*, rocksdb_compactionfiltercontext_t* context),
    const char* (*name)(void*));
ROCKSDB_LIBRARY_API void rocksdb_compactionfilterfactory_destroy(
    rocksdb_compactionfilterfactory_t* factory);

/* ---------------------------------------------------------------------------------------------- */
/* Slice transforms (prefix extractors)                                                           */
/* ---------------------------------------------------------------------------------------------- */

// A slice transform maps a key to its prefix, for prefix bloom filters and prefix seeks. transform
// returns a pointer into the key and the prefix length in *dst_length. Once given to
// rocksdb_options_set_prefix_extractor it belongs to the options; destroy only one never handed
// over.
ROCKSDB_LIBRARY_API rocksdb_slicetransform_t* rocksdb_slicetransform_create(
    void* state, void (*destructor)(void*),
    char* (*transform)(void*, const char* key, size_t length, size_t* dst_length),
    unsigned char (*in_domain)(void*, const char* key, size_t length),
    unsigned char (*in_range)(void*, const char* key, size_t length),
    const char* (*name)(void*));
ROCKSDB_LIBRARY_API rocksdb_slicetransform_t* rocksdb_slicetransform_create_fixed_prefix(
    size_t value);
ROCKSDB_LIBRARY_API rocksdb_slicetransform_t* rocksdb_slicetransform_create_noop(void);
ROCKSDB_LIBRARY_API void rocksdb_slicetransform_destroy(rocksdb_slicetransform_t* transform);

/* ---------------------------------------------------------------------------------------------- */
/* Read options                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

// Options of one read or iterator; the handle is the caller's (rocksdb_readoptions_destroy). This
// library copies the iterate bounds when they are set; RocksDB only points at the caller's buffer,
// so portable code keeps it alive while the options are in use. A NULL key removes a bound. A
// snapshot set here stays the DB's.
ROCKSDB_LIBRARY_API rocksdb_readoptions_t* rocksdb_readoptions_create(void);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_destroy(rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_verify_checksums(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_verify_checksums(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_fill_cache(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_fill_cache(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_snapshot(
    rocksdb_readoptions_t* read_options, const rocksdb_snapshot_t* value);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_iterate_upper_bound(
    rocksdb_readoptions_t* read_options, const char* key, size_t keylen);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_iterate_lower_bound(
    rocksdb_readoptions_t* read_options, const char* key, size_t keylen);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_read_tier(
    rocksdb_readoptions_t* read_options, int value);
ROCKSDB_LIBRARY_API int rocksdb_readoptions_get_read_tier(rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_tailing(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_tailing(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_managed(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_readahead_size(
    rocksdb_readoptions_t* read_options, size_t value);
ROCKSDB_LIBRARY_API size_t rocksdb_readoptions_get_readahead_size(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_prefix_same_as_start(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_prefix_same_as_start(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_pin_data(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_pin_data(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_total_order_seek(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_total_order_seek(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_max_skippable_internal_keys(
    rocksdb_readoptions_t* read_options, uint64_t value);
ROCKSDB_LIBRARY_API uint64_t rocksdb_readoptions_get_max_skippable_internal_keys(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_background_purge_on_iterator_cleanup(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_background_purge_on_iterator_cleanup(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_ignore_range_deletions(
    rocksdb_readoptions_t* read_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_readoptions_get_ignore_range_deletions(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_deadline(
    rocksdb_readoptions_t* read_options, uint64_t microseconds);
ROCKSDB_LIBRARY_API uint64_t rocksdb_readoptions_get_deadline(rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_io_timeout(
    rocksdb_readoptions_t* read_options, uint64_t microseconds);
ROCKSDB_LIBRARY_API uint64_t rocksdb_readoptions_get_io_timeout(
    rocksdb_readoptions_t* read_options);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_timestamp(
    rocksdb_readoptions_t* read_options, const char* ts, size_t tslen);
ROCKSDB_LIBRARY_API void rocksdb_readoptions_set_iter_start_ts(
    rocksdb_readoptions_t* read_options, const char* ts, size_t tslen);

/* ---------------------------------------------------------------------------------------------- */
/* Write options                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

// Options of one write; the handle is the caller's.
ROCKSDB_LIBRARY_API rocksdb_writeoptions_t* rocksdb_writeoptions_create(void);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t* write_options);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_set_sync(
    rocksdb_writeoptions_t* write_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_sync(
    rocksdb_writeoptions_t* write_options);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_disable_WAL(rocksdb_writeoptions_t* opt, int disable);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_disable_WAL(rocksdb_writeoptions_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_set_ignore_missing_column_families(
    rocksdb_writeoptions_t* write_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_ignore_missing_column_families(
    rocksdb_writeoptions_t* write_options);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_set_no_slowdown(
    rocksdb_writeoptions_t* write_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_no_slowdown(
    rocksdb_writeoptions_t* write_options);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_set_low_pri(
    rocksdb_writeoptions_t* write_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_low_pri(
    rocksdb_writeoptions_t* write_options);
ROCKSDB_LIBRARY_API void rocksdb_writeoptions_set_memtable_insert_hint_per_batch(
    rocksdb_writeoptions_t* write_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_writeoptions_get_memtable_insert_hint_per_batch(
    rocksdb_writeoptions_t* write_options);

/* ---------------------------------------------------------------------------------------------- */
/* Compact-range and flush options                                                                */
/* ---------------------------------------------------------------------------------------------- */

// Options of rocksdb_compact_range_opt* and rocksdb_flush*; the handles are the caller's.
ROCKSDB_LIBRARY_API rocksdb_compactoptions_t* rocksdb_compactoptions_create(void);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_destroy(rocksdb_compactoptions_t* compact_options);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_set_exclusive_manual_compaction(
    rocksdb_compactoptions_t* compact_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_compactoptions_get_exclusive_manual_compaction(
    rocksdb_compactoptions_t* compact_options);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_set_bottommost_level_compaction(
    rocksdb_compactoptions_t* compact_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_compactoptions_get_bottommost_level_compaction(
    rocksdb_compactoptions_t* compact_options);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_set_change_level(
    rocksdb_compactoptions_t* compact_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_compactoptions_get_change_level(
    rocksdb_compactoptions_t* compact_options);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_set_target_level(
    rocksdb_compactoptions_t* compact_options, int value);
ROCKSDB_LIBRARY_API int rocksdb_compactoptions_get_target_level(
    rocksdb_compactoptions_t* compact_options);
ROCKSDB_LIBRARY_API void rocksdb_compactoptions_set_full_history_ts_low(
    rocksdb_compactoptions_t* compact_options, char* ts, size_t tslen);
ROCKSDB_LIBRARY_API rocksdb_flushoptions_t* rocksdb_flushoptions_create(void);
ROCKSDB_LIBRARY_API void rocksdb_flushoptions_destroy(rocksdb_flushoptions_t* flush_options);
ROCKSDB_LIBRARY_API void rocksdb_flushoptions_set_wait(
    rocksdb_flushoptions_t* flush_options, unsigned char value);
ROCKSDB_LIBRARY_API unsigned char rocksdb_flushoptions_get_wait(
    rocksdb_flushoptions_t* flush_options);

/* ---------------------------------------------------------------------------------------------- */
/* Environments, thread pools and rate limiting                                                   */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_create_default_env returns a handle to the process-wide default environment;
// rocksdb_create_mem_env one that keeps files in memory. Both are the caller's
// (rocksdb_env_destroy, which never destroys the default environment itself) and must outlive every
// DB using them. A rate limiter and a db path are the caller's as well.
ROCKSDB_LIBRARY_API rocksdb_env_t* rocksdb_create_default_env(void);
ROCKSDB_LIBRARY_API rocksdb_env_t* rocksdb_create_mem_env(void);
ROCKSDB_LIBRARY_API void rocksdb_env_set_background_threads(rocksdb_env_t* env, int n);
ROCKSDB_LIBRARY_API int rocksdb_env_get_background_threads(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_set_high_priority_background_threads(
    rocksdb_env_t* env, int n);
ROCKSDB_LIBRARY_API int rocksdb_env_get_high_priority_background_threads(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_set_low_priority_background_threads(rocksdb_env_t* env, int n);
ROCKSDB_LIBRARY_API int rocksdb_env_get_low_priority_background_threads(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_set_bottom_priority_background_threads(
    rocksdb_env_t* env, int n);
ROCKSDB_LIBRARY_API int rocksdb_env_get_bottom_priority_background_threads(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_join_all_threads(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_lower_thread_pool_io_priority(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_lower_high_priority_thread_pool_io_priority(
    rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_lower_thread_pool_cpu_priority(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_lower_high_priority_thread_pool_cpu_priority(
    rocksdb_env_t* env);
ROCKSDB_LIBRARY_API void rocksdb_env_destroy(rocksdb_env_t* env);
ROCKSDB_LIBRARY_API rocksdb_ratelimiter_t* rocksdb_ratelimiter_create(
    int64_t rate_bytes_per_sec, int64_t refill_period_us, int32_t fairness);
ROCKSDB_LIBRARY_API void rocksdb_ratelimiter_destroy(rocksdb_ratelimiter_t* limiter);
ROCKSDB_LIBRARY_API rocksdb_dbpath_t* rocksdb_dbpath_create(const char* path, uint64_t target_size);
ROCKSDB_LIBRARY_API void rocksdb_dbpath_destroy(rocksdb_dbpath_t* dbpath);

/* ---------------------------------------------------------------------------------------------- */
/* Performance context                                                                            */
/* ---------------------------------------------------------------------------------------------- */

// Per-thread counters of the work a thread's calls did, enabled with rocksdb_set_perf_level. A
// context handle reads the calling thread's counters; the report is a malloc'd string to free with
// rocksdb_free.

// Perf levels.
enum {
  rocksdb_uninitialized = 0,
  rocksdb_disable = 1,
  rocksdb_enable_count = 2,
  rocksdb_enable_time_except_for_mutex = 3,
  rocksdb_enable_time = 4,
  rocksdb_out_of_bounds = 5,
};
ROCKSDB_LIBRARY_API void rocksdb_set_perf_level(int value);

// Counters of rocksdb_perfcontext_metric.
enum {
  rocksdb_user_key_comparison_count = 0,
  rocksdb_block_cache_hit_count = 1,
  rocksdb_block_read_count = 2,
  rocksdb_block_read_byte = 3,
  rocksdb_block_read_time = 4,
  rocksdb_block_checksum_time = 5,
  rocksdb_block_decompress_time = 6,
  rocksdb_get_read_bytes = 7,
  rocksdb_multiget_read_bytes = 8,
  rocksdb_iter_read_bytes = 9,
  rocksdb_internal_key_skipped_count = 10,
  rocksdb_internal_delete_skipped_count = 11,
  rocksdb_internal_recent_skipped_count = 12,
  rocksdb_internal_merge_count = 13,
  rocksdb_get_snapshot_time = 14,
  rocksdb_get_from_memtable_time = 15,
  rocksdb_get_from_memtable_count = 16,
  rocksdb_get_post_process_time = 17,
  rocksdb_get_from_output_files_time = 18,
  rocksdb_seek_on_memtable_time = 19,
  rocksdb_seek_on_memtable_count = 20,
  rocksdb_next_on_memtable_count = 21,
  rocksdb_prev_on_memtable_count = 22,
  rocksdb_seek_child_seek_time = 23,
  rocksdb_seek_child_seek_count = 24,
  rocksdb_seek_min_heap_time = 25,
  rocksdb_seek_max_heap_time = 26,
  rocksdb_seek_internal_seek_time = 27,
  rocksdb_find_next_user_entry_time = 28,
  rocksdb_write_wal_time = 29,
  rocksdb_write_memtable_time = 30,
  rocksdb_write_delay_time = 31,
  rocksdb_write_pre_and_post_process_time = 32,
  rocksdb_db_mutex_lock_nanos = 33,
  rocksdb_db_condition_wait_nanos = 34,
  rocksdb_merge_operator_time_nanos = 35,
  rocksdb_read_index_block_nanos = 36,
  rocksdb_read_filter_block_nanos = 37,
  rocksdb_new_table_block_iter_nanos = 38,
  rocksdb_new_table_iterator_nanos = 39,
  rocksdb_block_seek_nanos = 40,
  rocksdb_find_table_nanos = 41,
  rocksdb_bloom_memtable_hit_count = 42,
  rocksdb_bloom_memtable_miss_count = 43,
  rocksdb_bloom_sst_hit_count = 44,
  rocksdb_bloom_sst_miss_count = 45,
  rocksdb_key_lock_wait_time = 46,
  rocksdb_key_lock_wait_count = 47,
  rocksdb_env_new_sequential_file_nanos = 48,
  rocksdb_env_new_random_access_file_nanos = 49,
  rocksdb_env_new_writable_file_nanos = 50,
  rocksdb_env_reuse_writable_file_nanos = 51,
  rocksdb_env_new_random_rw_file_nanos = 52,
  rocksdb_env_new_directory_nanos = 53,
  rocksdb_env_file_exists_nanos = 54,
  rocksdb_env_get_children_nanos = 55,
  rocksdb_env_get_children_file_attributes_nanos = 56,
  rocksdb_env_delete_file_nanos = 57,
  rocksdb_env_create_dir_nanos = 58,
  rocksdb_env_create_dir_if_missing_nanos = 59,
  rocksdb_env_delete_dir_nanos = 60,
  rocksdb_env_get_file_size_nanos = 61,
  rocksdb_env_get_file_modification_time_nanos = 62,
  rocksdb_env_rename_file_nanos = 63,
  rocksdb_env_link_file_nanos = 64,
  rocksdb_env_lock_file_nanos = 65,
  rocksdb_env_unlock_file_nanos = 66,
  rocksdb_env_new_logger_nanos = 67,
  rocksdb_number_async_seek = 68,
  rocksdb_blob_cache_hit_count = 69,
  rocksdb_blob_read_count = 70,
  rocksdb_blob_read_byte = 71,
  rocksdb_blob_read_time = 72,
  rocksdb_blob_checksum_time = 73,
  rocksdb_blob_decompress_time = 74,
  rocksdb_internal_range_del_reseek_count = 75,
  rocksdb_total_metric_count = 78,
};
ROCKSDB_LIBRARY_API rocksdb_perfcontext_t* rocksdb_perfcontext_create(void);
ROCKSDB_LIBRARY_API void rocksdb_perfcontext_reset(rocksdb_perfcontext_t* context);
ROCKSDB_LIBRARY_API char* rocksdb_perfcontext_report(
    rocksdb_perfcontext_t* context, unsigned char exclude_zero_counters);
ROCKSDB_LIBRARY_API uint64_t rocksdb_perfcontext_metric(rocksdb_perfcontext_t* context, int metric);
ROCKSDB_LIBRARY_API void rocksdb_perfcontext_destroy(rocksdb_perfcontext_t* context);

/* ---------------------------------------------------------------------------------------------- */
/* Pessimistic transactions (TransactionDB)                                                       */
/* ---------------------------------------------------------------------------------------------- */

// A TransactionDB locks the keys a transaction writes (or reads for update) until it commits or
// rolls back. The DB, its options, transaction options and transactions are the caller's, each
// released with its own call (rocksdb_transactiondb_close, *_destroy). rocksdb_transaction_begin
// may reuse old_txn (pass NULL for a new one). Returned values are malloc'd (rocksdb_free). The
// write batch handle rocksdb_transaction_get_writebatch_wi returns and the snapshot
// rocksdb_transaction_get_snapshot returns are views into the transaction: release the handle with
// rocksdb_free, never with a *_destroy. rocksdb_transactiondb_get_prepared_transactions returns a
// malloc'd array (rocksdb_free) of transactions the caller destroys.
ROCKSDB_LIBRARY_API rocksdb_transactiondb_options_t* rocksdb_transactiondb_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_options_destroy(
    rocksdb_transactiondb_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_options_set_max_num_locks(
    rocksdb_transactiondb_options_t* opt, int64_t max_num_locks);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_options_set_num_stripes(
    rocksdb_transactiondb_options_t* opt, size_t num_stripes);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_options_set_transaction_lock_timeout(
    rocksdb_transactiondb_options_t* opt, int64_t txn_lock_timeout);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_options_set_default_lock_timeout(
    rocksdb_transactiondb_options_t* opt, int64_t default_lock_timeout);
ROCKSDB_LIBRARY_API rocksdb_transaction_options_t* rocksdb_transaction_options_create(void);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_destroy(rocksdb_transaction_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_set_snapshot(
    rocksdb_transaction_options_t* opt, unsigned char v);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_deadlock_detect(
    rocksdb_transaction_options_t* opt, unsigned char v);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_lock_timeout(
    rocksdb_transaction_options_t* opt, int64_t lock_timeout);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_expiration(
    rocksdb_transaction_options_t* opt, int64_t expiration);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_deadlock_detect_depth(
    rocksdb_transaction_options_t* opt, int64_t depth);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_max_write_batch_size(
    rocksdb_transaction_options_t* opt, size_t size);
ROCKSDB_LIBRARY_API void rocksdb_transaction_options_set_skip_prepare(
    rocksdb_transaction_options_t* opt, unsigned char v);
ROCKSDB_LIBRARY_API rocksdb_transactiondb_t* rocksdb_transactiondb_open(
    const rocksdb_options_t* options, const rocksdb_transactiondb_options_t* txn_db_options,
    const char* name, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_transactiondb_t* rocksdb_transactiondb_open_column_families(
    const rocksdb_options_t* options, const rocksdb_transactiondb_options_t* txn_db_options,
    const char* name, int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_close(rocksdb_transactiondb_t* txn_db);
ROCKSDB_LIBRARY_API rocksdb_column_family_handle_t* rocksdb_transactiondb_create_column_family(
    rocksdb_transactiondb_t* txn_db, const rocksdb_options_t* column_family_options,
    const char* column_family_name, char** errptr);
ROCKSDB_LIBRARY_API const rocksdb_snapshot_t* rocksdb_transactiondb_create_snapshot(
    rocksdb_transactiondb_t* txn_db);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_release_snapshot(
    rocksdb_transactiondb_t* txn_db, const rocksdb_snapshot_t* snapshot);
ROCKSDB_LIBRARY_API char* rocksdb_transactiondb_property_value(
    rocksdb_transactiondb_t* db, const char* propname);
ROCKSDB_LIBRARY_API int rocksdb_transactiondb_property_int(
    rocksdb_transactiondb_t* db, const char* propname, uint64_t* out_val);
ROCKSDB_LIBRARY_API rocksdb_transaction_t** rocksdb_transactiondb_get_prepared_transactions(
    rocksdb_transactiondb_t* txn_db, size_t* cnt);
ROCKSDB_LIBRARY_API char* rocksdb_transactiondb_get(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, const char* key,
    size_t klen, size_t* vlen, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, const char* key,
    size_t klen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_transactiondb_get_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, size_t* vallen,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_multi_get(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_multi_get_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options,
    const rocksdb_column_family_handle_t* const* column_families, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_put(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key,
    size_t klen, const char* val, size_t vlen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_put_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, const char* val,
    size_t vallen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_write(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options,
    rocksdb_writebatch_t* batch, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_merge(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key,
    size_t klen, const char* val, size_t vlen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_merge_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, const char* val,
    size_t vlen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_delete(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options, const char* key,
    size_t klen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_delete_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_transactiondb_create_iterator(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_transactiondb_create_iterator_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_flush(
    rocksdb_transactiondb_t* txn_db, const rocksdb_flushoptions_t* options, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_flush_cf(
    rocksdb_transactiondb_t* txn_db, const rocksdb_flushoptions_t* options,
    rocksdb_column_family_handle_t* column_family, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transactiondb_flush_wal(
    rocksdb_transactiondb_t* txn_db, unsigned char sync, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_checkpoint_t* rocksdb_transactiondb_checkpoint_object_create(
    rocksdb_transactiondb_t* txn_db, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_transaction_t* rocksdb_transaction_begin(
    rocksdb_transactiondb_t* txn_db, const rocksdb_writeoptions_t* write_options,
    const rocksdb_transaction_options_t* txn_options, rocksdb_transaction_t* old_txn);
ROCKSDB_LIBRARY_API void rocksdb_transaction_set_name(
    rocksdb_transaction_t* txn, const char* name, size_t name_len, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_transaction_get_name(
    rocksdb_transaction_t* txn, size_t* name_len);
ROCKSDB_LIBRARY_API void rocksdb_transaction_prepare(rocksdb_transaction_t* txn, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_commit(rocksdb_transaction_t* txn, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_rollback(rocksdb_transaction_t* txn, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_set_savepoint(rocksdb_transaction_t* txn);
ROCKSDB_LIBRARY_API void rocksdb_transaction_rollback_to_savepoint(
    rocksdb_transaction_t* txn, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_destroy(rocksdb_transaction_t* txn);
ROCKSDB_LIBRARY_API rocksdb_writebatch_wi_t* rocksdb_transaction_get_writebatch_wi(
    rocksdb_transaction_t* txn);
ROCKSDB_LIBRARY_API void rocksdb_transaction_rebuild_from_writebatch(
    rocksdb_transaction_t* txn, rocksdb_writebatch_t* writebatch, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_rebuild_from_writebatch_wi(
    rocksdb_transaction_t* txn, rocksdb_writebatch_wi_t* wi, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_set_commit_timestamp(
    rocksdb_transaction_t* txn, uint64_t commit_timestamp);
ROCKSDB_LIBRARY_API void rocksdb_transaction_set_read_timestamp_for_validation(
    rocksdb_transaction_t* txn, uint64_t read_timestamp);
ROCKSDB_LIBRARY_API const rocksdb_snapshot_t* rocksdb_transaction_get_snapshot(
    rocksdb_transaction_t* txn);
ROCKSDB_LIBRARY_API char* rocksdb_transaction_get(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen,
    size_t* vlen, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen,
    char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_transaction_get_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, size_t* vlen,
    char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_transaction_get_for_update(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen,
    size_t* vlen, unsigned char exclusive, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_for_update(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, const char* key, size_t klen,
    unsigned char exclusive, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_transaction_get_for_update_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t klen, size_t* vlen,
    unsigned char exclusive, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_for_update_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t klen,
    unsigned char exclusive, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_multi_get(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_transaction_multi_get_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    const rocksdb_column_family_handle_t* const* column_families, size_t num_keys,
    const char* const* keys_list, const size_t* keys_list_sizes, char** values_list,
    size_t* values_list_sizes, char** errs);
ROCKSDB_LIBRARY_API void rocksdb_transaction_put(
    rocksdb_transaction_t* txn, const char* key, size_t klen, const char* val, size_t vlen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_put_cf(
    rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_merge(
    rocksdb_transaction_t* txn, const char* key, size_t klen, const char* val, size_t vlen,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_merge_cf(
    rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, const char* val, size_t vlen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_delete(
    rocksdb_transaction_t* txn, const char* key, size_t klen, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_transaction_delete_cf(
    rocksdb_transaction_t* txn, rocksdb_column_family_handle_t* column_family, const char* key,
    size_t klen, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_transaction_create_iterator(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options);
ROCKSDB_LIBRARY_API rocksdb_iterator_t* rocksdb_transaction_create_iterator_cf(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family);

/* ---------------------------------------------------------------------------------------------- */
/* Optimistic transactions                                                                        */
/* ---------------------------------------------------------------------------------------------- */

// An OptimisticTransactionDB checks at commit that nothing a transaction read or wrote changed
// meanwhile. rocksdb_optimistictransactiondb_get_base_db returns a view of the underlying DB,
// released with rocksdb_optimistictransactiondb_close_base_db (which does not close it).
ROCKSDB_LIBRARY_API rocksdb_optimistictransaction_options_t* rocksdb_optimistictransaction_options_create(
    void);
ROCKSDB_LIBRARY_API void rocksdb_optimistictransaction_options_destroy(
    rocksdb_optimistictransaction_options_t* opt);
ROCKSDB_LIBRARY_API void rocksdb_optimistictransaction_options_set_set_snapshot(
    rocksdb_optimistictransaction_options_t* opt, unsigned char v);
ROCKSDB_LIBRARY_API rocksdb_optimistictransactiondb_t* rocksdb_optimistictransactiondb_open(
    const rocksdb_options_t* options, const char* name, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_optimistictransactiondb_t* rocksdb_optimistictransactiondb_open_column_families(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr);
ROCKSDB_LIBRARY_API rocksdb_t* rocksdb_optimistictransactiondb_get_base_db(
    rocksdb_optimistictransactiondb_t* otxn_db);
ROCKSDB_LIBRARY_API void rocksdb_optimistictransactiondb_close_base_db(rocksdb_t* base_db);
ROCKSDB_LIBRARY_API void rocksdb_optimistictransactiondb_write(
    rocksdb_optimistictransactiondb_t* otxn_db, const rocksdb_writeoptions_t* options,
    rocksdb_writebatch_t* batch, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_optimistictransactiondb_close(
    rocksdb_optimistictransactiondb_t* otxn_db);
ROCKSDB_LIBRARY_API rocksdb_checkpoint_t* rocksdb_optimistictransactiondb_checkpoint_object_create(
    rocksdb_optimistictransactiondb_t* otxn_db, char** errptr);
ROCKSDB_LIBRARY_API char* rocksdb_optimistictransactiondb_property_value(
    rocksdb_optimistictransactiondb_t* db, const char* propname);
ROCKSDB_LIBRARY_API int rocksdb_optimistictransactiondb_property_int(
    rocksdb_optimistictransactiondb_t* db, const char* propname, uint64_t* out_val);
ROCKSDB_LIBRARY_API rocksdb_transaction_t* rocksdb_optimistictransaction_begin(
    rocksdb_optimistictransactiondb_t* otxn_db, const rocksdb_writeoptions_t* write_options,
    const rocksdb_optimistictransaction_options_t* otxn_options, rocksdb_transaction_t* old_txn);

/* ---------------------------------------------------------------------------------------------- */
/* Memory usage                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

// Approximate memory used by a set of DBs and caches: collect them in a consumers object (it does
// not own them), then take a usage snapshot. Both objects are the caller's.
ROCKSDB_LIBRARY_API rocksdb_memory_consumers_t* rocksdb_memory_consumers_create(void);
ROCKSDB_LIBRARY_API void rocksdb_memory_consumers_add_db(
    rocksdb_memory_consumers_t* consumers, rocksdb_t* db);
ROCKSDB_LIBRARY_API void rocksdb_memory_consumers_add_cache(
    rocksdb_memory_consumers_t* consumers, rocksdb_cache_t* cache);
ROCKSDB_LIBRARY_API void rocksdb_memory_consumers_destroy(rocksdb_memory_consumers_t* consumers);
ROCKSDB_LIBRARY_API rocksdb_memory_usage_t* rocksdb_approximate_memory_usage_create(
    rocksdb_memory_consumers_t* consumers, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_approximate_memory_usage_destroy(rocksdb_memory_usage_t* usage);
ROCKSDB_LIBRARY_API uint64_t rocksdb_approximate_memory_usage_get_mem_table_total(
    rocksdb_memory_usage_t* memory_usage);
ROCKSDB_LIBRARY_API uint64_t rocksdb_approximate_memory_usage_get_mem_table_unflushed(
    rocksdb_memory_usage_t* memory_usage);
ROCKSDB_LIBRARY_API uint64_t rocksdb_approximate_memory_usage_get_mem_table_readers_total(
    rocksdb_memory_usage_t* memory_usage);
ROCKSDB_LIBRARY_API uint64_t rocksdb_approximate_memory_usage_get_cache_total(
    rocksdb_memory_usage_t* memory_usage);

/* ---------------------------------------------------------------------------------------------- */
/* Utilities                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

// rocksdb_load_latest_options reads the OPTIONS file of a DB; release what it returns with
// rocksdb_load_latest_options_destroy. rocksdb_get_options_from_string fills new_options from
// base_options and an option string. rocksdb_free releases every buffer this API documents as
// malloc'd (values, names, error messages, reports).
ROCKSDB_LIBRARY_API void rocksdb_load_latest_options(
    const char* db_path, rocksdb_env_t* env, bool ignore_unknown_options, rocksdb_cache_t* cache,
    rocksdb_options_t** db_options, size_t* num_column_families, char*** column_family_names,
    rocksdb_options_t*** column_family_options, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_load_latest_options_destroy(
    rocksdb_options_t* db_options, char** list_column_family_names,
    rocksdb_options_t** list_column_family_options, size_t len);
ROCKSDB_LIBRARY_API void rocksdb_get_options_from_string(
    const rocksdb_options_t* base_options, const char* opts_str, rocksdb_options_t* new_options,
    char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_create_dir_if_missing(
    rocksdb_env_t* env, const char* path, char** errptr);
ROCKSDB_LIBRARY_API void rocksdb_free(void* ptr);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SHALE_ROCKSDB_C_H_ */
