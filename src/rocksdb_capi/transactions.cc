// rocksdb_transaction*, rocksdb_transactiondb* and rocksdb_optimistictransaction*: pessimistic
// and optimistic transactions, which ShaleDB's engine does not have yet. Each function fails
// visibly, as issue 24 asks: "Not supported by ShaleDB: <function>" through errptr (each entry of
// errs for the multi_get variants), NULL where it returns a handle or buffer (a zero length with
// it), -1 from property_int (RocksDB's failure value). No transaction or transaction DB handle
// can exist, so the functions that take one and return nothing have nothing to do. Their option
// objects work (transaction_options.cc): the failure comes at the open.
#include <cstddef>
#include <cstdint>

#include "rocksdb_capi/handles.h"

using shale::rocksdb_capi::NotSupported;

extern "C" {

rocksdb_column_family_handle_t* rocksdb_transactiondb_create_column_family(
    rocksdb_transactiondb_t*, const rocksdb_options_t*, const char*, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_create_column_family");
  return nullptr;
}

rocksdb_transactiondb_t* rocksdb_transactiondb_open(
    const rocksdb_options_t*, const rocksdb_transactiondb_options_t*, const char*, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_open");
  return nullptr;
}

rocksdb_transactiondb_t* rocksdb_transactiondb_open_column_families(
    const rocksdb_options_t*, const rocksdb_transactiondb_options_t*, const char*, int,
    const char* const*, const rocksdb_options_t* const*, rocksdb_column_family_handle_t**,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_open_column_families");
  return nullptr;
}

const rocksdb_snapshot_t* rocksdb_transactiondb_create_snapshot(rocksdb_transactiondb_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

void rocksdb_transactiondb_release_snapshot(rocksdb_transactiondb_t*, const rocksdb_snapshot_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
}

char* rocksdb_transactiondb_property_value(rocksdb_transactiondb_t*, const char*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

int rocksdb_transactiondb_property_int(rocksdb_transactiondb_t*, const char*, uint64_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return -1;
}

rocksdb_transaction_t* rocksdb_transaction_begin(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, const rocksdb_transaction_options_t*,
    rocksdb_transaction_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

rocksdb_transaction_t** rocksdb_transactiondb_get_prepared_transactions(
    rocksdb_transactiondb_t*, size_t* cnt) {
  // not supported: Pessimistic transactions (TransactionDB)
  if (cnt != nullptr) *cnt = 0;
  return nullptr;
}

void rocksdb_transaction_set_name(rocksdb_transaction_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_set_name");
}

char* rocksdb_transaction_get_name(rocksdb_transaction_t*, size_t* name_len) {
  // not supported: Pessimistic transactions (TransactionDB)
  if (name_len != nullptr) *name_len = 0;
  return nullptr;
}

void rocksdb_transaction_prepare(rocksdb_transaction_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_prepare");
}

void rocksdb_transaction_commit(rocksdb_transaction_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_commit");
}

void rocksdb_transaction_rollback(rocksdb_transaction_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_rollback");
}

void rocksdb_transaction_set_savepoint(rocksdb_transaction_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
}

void rocksdb_transaction_rollback_to_savepoint(rocksdb_transaction_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_rollback_to_savepoint");
}

void rocksdb_transaction_destroy(rocksdb_transaction_t*) {}

rocksdb_writebatch_wi_t* rocksdb_transaction_get_writebatch_wi(rocksdb_transaction_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

void rocksdb_transaction_rebuild_from_writebatch(
    rocksdb_transaction_t*, rocksdb_writebatch_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_rebuild_from_writebatch");
}

void rocksdb_transaction_rebuild_from_writebatch_wi(
    rocksdb_transaction_t*, rocksdb_writebatch_wi_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_rebuild_from_writebatch_wi");
}

void rocksdb_transaction_set_commit_timestamp(rocksdb_transaction_t*, uint64_t) {
  // not supported: Pessimistic transactions (TransactionDB)
}

void rocksdb_transaction_set_read_timestamp_for_validation(rocksdb_transaction_t*, uint64_t) {
  // not supported: Pessimistic transactions (TransactionDB)
}

const rocksdb_snapshot_t* rocksdb_transaction_get_snapshot(rocksdb_transaction_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

char* rocksdb_transaction_get(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, const char*, size_t, size_t* vlen,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get");
  if (vlen != nullptr) *vlen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_pinned");
  return nullptr;
}

char* rocksdb_transaction_get_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, size_t* vlen, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_cf");
  if (vlen != nullptr) *vlen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_pinned_cf");
  return nullptr;
}

char* rocksdb_transaction_get_for_update(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, const char*, size_t, size_t* vlen,
    unsigned char, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_for_update");
  if (vlen != nullptr) *vlen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_for_update(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, const char*, size_t, unsigned char,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_pinned_for_update");
  return nullptr;
}

char* rocksdb_transaction_get_for_update_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, size_t* vlen, unsigned char, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_for_update_cf");
  if (vlen != nullptr) *vlen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transaction_get_pinned_for_update_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, unsigned char, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_get_pinned_for_update_cf");
  return nullptr;
}

void rocksdb_transaction_multi_get(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, size_t num_keys, const char* const*,
    const size_t*, char** values_list, size_t* values_list_sizes, char** errs) {
  for (size_t i = 0; i < num_keys; ++i) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_transaction_multi_get");
  }
}

void rocksdb_transaction_multi_get_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*,
    const rocksdb_column_family_handle_t* const*, size_t num_keys, const char* const*,
    const size_t*, char** values_list, size_t* values_list_sizes, char** errs) {
  for (size_t i = 0; i < num_keys; ++i) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_transaction_multi_get_cf");
  }
}

char* rocksdb_transactiondb_get(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, const char*, size_t, size_t* vlen,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_get");
  if (vlen != nullptr) *vlen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_get_pinned");
  return nullptr;
}

char* rocksdb_transactiondb_get_cf(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, size_t* vallen, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_get_cf");
  if (vallen != nullptr) *vallen = 0;
  return nullptr;
}

rocksdb_pinnableslice_t* rocksdb_transactiondb_get_pinned_cf(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_get_pinned_cf");
  return nullptr;
}

void rocksdb_transactiondb_multi_get(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, size_t num_keys, const char* const*,
    const size_t*, char** values_list, size_t* values_list_sizes, char** errs) {
  for (size_t i = 0; i < num_keys; ++i) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_transactiondb_multi_get");
  }
}

void rocksdb_transactiondb_multi_get_cf(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*,
    const rocksdb_column_family_handle_t* const*, size_t num_keys, const char* const*,
    const size_t*, char** values_list, size_t* values_list_sizes, char** errs) {
  for (size_t i = 0; i < num_keys; ++i) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    NotSupported(&errs[i], "rocksdb_transactiondb_multi_get_cf");
  }
}

void rocksdb_transaction_put(
    rocksdb_transaction_t*, const char*, size_t, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_put");
}

void rocksdb_transaction_put_cf(
    rocksdb_transaction_t*, rocksdb_column_family_handle_t*, const char*, size_t, const char*,
    size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_put_cf");
}

void rocksdb_transactiondb_put(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, const char*, size_t, const char*,
    size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_put");
}

void rocksdb_transactiondb_put_cf(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_put_cf");
}

void rocksdb_transactiondb_write(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, rocksdb_writebatch_t *,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_write");
}

void rocksdb_transaction_merge(
    rocksdb_transaction_t*, const char*, size_t, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_merge");
}

void rocksdb_transaction_merge_cf(
    rocksdb_transaction_t*, rocksdb_column_family_handle_t*, const char*, size_t, const char*,
    size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_merge_cf");
}

void rocksdb_transactiondb_merge(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, const char*, size_t, const char*,
    size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_merge");
}

void rocksdb_transactiondb_merge_cf(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_merge_cf");
}

void rocksdb_transaction_delete(rocksdb_transaction_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_delete");
}

void rocksdb_transaction_delete_cf(
    rocksdb_transaction_t*, rocksdb_column_family_handle_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transaction_delete_cf");
}

void rocksdb_transactiondb_delete(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_delete");
}

void rocksdb_transactiondb_delete_cf(
    rocksdb_transactiondb_t*, const rocksdb_writeoptions_t*, rocksdb_column_family_handle_t*,
    const char*, size_t, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_delete_cf");
}

rocksdb_iterator_t* rocksdb_transaction_create_iterator(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

rocksdb_iterator_t* rocksdb_transaction_create_iterator_cf(
    rocksdb_transaction_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

rocksdb_iterator_t* rocksdb_transactiondb_create_iterator(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

rocksdb_iterator_t* rocksdb_transactiondb_create_iterator_cf(
    rocksdb_transactiondb_t*, const rocksdb_readoptions_t*, rocksdb_column_family_handle_t*) {
  // not supported: Pessimistic transactions (TransactionDB)
  return nullptr;
}

void rocksdb_transactiondb_close(rocksdb_transactiondb_t*) {}

void rocksdb_transactiondb_flush(
    rocksdb_transactiondb_t*, const rocksdb_flushoptions_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_flush");
}

void rocksdb_transactiondb_flush_cf(
    rocksdb_transactiondb_t*, const rocksdb_flushoptions_t*, rocksdb_column_family_handle_t*,
    char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_flush_cf");
}

void rocksdb_transactiondb_flush_wal(rocksdb_transactiondb_t*, unsigned char, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_flush_wal");
}

rocksdb_checkpoint_t* rocksdb_transactiondb_checkpoint_object_create(
    rocksdb_transactiondb_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_transactiondb_checkpoint_object_create");
  return nullptr;
}

rocksdb_optimistictransactiondb_t* rocksdb_optimistictransactiondb_open(
    const rocksdb_options_t*, const char*, char** errptr) {
  NotSupported(errptr, "rocksdb_optimistictransactiondb_open");
  return nullptr;
}

rocksdb_optimistictransactiondb_t* rocksdb_optimistictransactiondb_open_column_families(
    const rocksdb_options_t*, const char*, int, const char* const*, const rocksdb_options_t* const*,
    rocksdb_column_family_handle_t**, char** errptr) {
  NotSupported(errptr, "rocksdb_optimistictransactiondb_open_column_families");
  return nullptr;
}

rocksdb_t* rocksdb_optimistictransactiondb_get_base_db(rocksdb_optimistictransactiondb_t*) {
  // not supported: Optimistic transactions
  return nullptr;
}

void rocksdb_optimistictransactiondb_close_base_db(rocksdb_t*) {
  // not supported: Optimistic transactions
}

rocksdb_transaction_t* rocksdb_optimistictransaction_begin(
    rocksdb_optimistictransactiondb_t*, const rocksdb_writeoptions_t*,
    const rocksdb_optimistictransaction_options_t*, rocksdb_transaction_t*) {
  // not supported: Optimistic transactions
  return nullptr;
}

void rocksdb_optimistictransactiondb_write(
    rocksdb_optimistictransactiondb_t*, const rocksdb_writeoptions_t*, rocksdb_writebatch_t*,
    char** errptr) {
  NotSupported(errptr, "rocksdb_optimistictransactiondb_write");
}

void rocksdb_optimistictransactiondb_close(rocksdb_optimistictransactiondb_t*) {}

rocksdb_checkpoint_t* rocksdb_optimistictransactiondb_checkpoint_object_create(
    rocksdb_optimistictransactiondb_t*, char** errptr) {
  NotSupported(errptr, "rocksdb_optimistictransactiondb_checkpoint_object_create");
  return nullptr;
}

char* rocksdb_optimistictransactiondb_property_value(
    rocksdb_optimistictransactiondb_t*, const char*) {
  // not supported: Optimistic transactions
  return nullptr;
}

int rocksdb_optimistictransactiondb_property_int(
    rocksdb_optimistictransactiondb_t*, const char*, uint64_t*) {
  // not supported: Optimistic transactions
  return -1;
}

}  // extern "C"
