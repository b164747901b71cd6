// The option objects of transactions and backups: rocksdb_transactiondb_options_*,
// rocksdb_transaction_options_*, rocksdb_optimistictransaction_options_*,
// rocksdb_backup_engine_options_* and rocksdb_restore_options_*. They hold what is set (the
// backup getters return it, with RocksDB's defaults). Backups use backup_dir, destroy_old_data,
// backup_log_files and sync (backup.h); their other settings only tune how a backup is copied
// and are accepted without effect (doc/rocksdb_compat.md);
// transactions are not ShaleDB's yet: a client sets their options up as for RocksDB, and the
// opens and begins that take them fail visibly (transactions.cc).
#include <cstdint>
#include <string>

#include "rocksdb_capi/backup.h"
#include "rocksdb_capi/handles.h"

struct rocksdb_transactiondb_options_t {
  int64_t max_num_locks = -1;
  size_t num_stripes = 16;
  int64_t transaction_lock_timeout = 1000;
  int64_t default_lock_timeout = 1000;
};

struct rocksdb_transaction_options_t {
  bool set_snapshot = false;
  bool deadlock_detect = false;
  int64_t lock_timeout = -1;
  int64_t expiration = -1;
  int64_t deadlock_detect_depth = 50;
  size_t max_write_batch_size = 0;
  bool skip_prepare = true;
};

struct rocksdb_optimistictransaction_options_t {
  bool set_snapshot = false;
};

extern "C" {

rocksdb_transactiondb_options_t* rocksdb_transactiondb_options_create(void) {
  return new rocksdb_transactiondb_options_t;
}
void rocksdb_transactiondb_options_destroy(rocksdb_transactiondb_options_t* opt) { delete opt; }
void rocksdb_transactiondb_options_set_max_num_locks(rocksdb_transactiondb_options_t* opt,
                                                     int64_t max_num_locks) {
  opt->max_num_locks = max_num_locks;
}
void rocksdb_transactiondb_options_set_num_stripes(rocksdb_transactiondb_options_t* opt,
                                                   size_t num_stripes) {
  opt->num_stripes = num_stripes;
}
void rocksdb_transactiondb_options_set_transaction_lock_timeout(
    rocksdb_transactiondb_options_t* opt, int64_t txn_lock_timeout) {
  opt->transaction_lock_timeout = txn_lock_timeout;
}
void rocksdb_transactiondb_options_set_default_lock_timeout(rocksdb_transactiondb_options_t* opt,
                                                            int64_t default_lock_timeout) {
  opt->default_lock_timeout = default_lock_timeout;
}

rocksdb_transaction_options_t* rocksdb_transaction_options_create(void) {
  return new rocksdb_transaction_options_t;
}
void rocksdb_transaction_options_destroy(rocksdb_transaction_options_t* opt) { delete opt; }
void rocksdb_transaction_options_set_set_snapshot(rocksdb_transaction_options_t* opt,
                                                  unsigned char v) {
  opt->set_snapshot = v != 0;
}
void rocksdb_transaction_options_set_deadlock_detect(rocksdb_transaction_options_t* opt,
                                                     unsigned char v) {
  opt->deadlock_detect = v != 0;
}
void rocksdb_transaction_options_set_lock_timeout(rocksdb_transaction_options_t* opt,
                                                  int64_t lock_timeout) {
  opt->lock_timeout = lock_timeout;
}
void rocksdb_transaction_options_set_expiration(rocksdb_transaction_options_t* opt,
                                                int64_t expiration) {
  opt->expiration = expiration;
}
void rocksdb_transaction_options_set_deadlock_detect_depth(rocksdb_transaction_options_t* opt,
                                                           int64_t depth) {
  opt->deadlock_detect_depth = depth;
}
void rocksdb_transaction_options_set_max_write_batch_size(rocksdb_transaction_options_t* opt,
                                                          size_t size) {
  opt->max_write_batch_size = size;
}
void rocksdb_transaction_options_set_skip_prepare(rocksdb_transaction_options_t* opt,
                                                  unsigned char v) {
  opt->skip_prepare = v != 0;
}

rocksdb_optimistictransaction_options_t* rocksdb_optimistictransaction_options_create(void) {
  return new rocksdb_optimistictransaction_options_t;
}
void rocksdb_optimistictransaction_options_destroy(rocksdb_optimistictransaction_options_t* opt) {
  delete opt;
}
void rocksdb_optimistictransaction_options_set_set_snapshot(
    rocksdb_optimistictransaction_options_t* opt, unsigned char v) {
  opt->set_snapshot = v != 0;
}

rocksdb_backup_engine_options_t* rocksdb_backup_engine_options_create(const char* backup_dir) {
  auto* options = new rocksdb_backup_engine_options_t;
  if (backup_dir != nullptr) options->backup_dir = backup_dir;
  return options;
}
void rocksdb_backup_engine_options_destroy(rocksdb_backup_engine_options_t* options) {
  delete options;
}
void rocksdb_backup_engine_options_set_backup_dir(rocksdb_backup_engine_options_t* options,
                                                  const char* backup_dir) {
  options->backup_dir = backup_dir == nullptr ? "" : backup_dir;
}
void rocksdb_backup_engine_options_set_env(rocksdb_backup_engine_options_t* options,
                                           rocksdb_env_t* env) {
  // accepted without effect
  options->env = env;
}
void rocksdb_backup_engine_options_set_share_table_files(rocksdb_backup_engine_options_t* options,
                                                         unsigned char val) {
  // accepted without effect
  options->share_table_files = val != 0;
}
unsigned char rocksdb_backup_engine_options_get_share_table_files(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->share_table_files;
}
void rocksdb_backup_engine_options_set_sync(rocksdb_backup_engine_options_t* options,
                                            unsigned char val) {
  options->sync = val != 0;
}
unsigned char rocksdb_backup_engine_options_get_sync(rocksdb_backup_engine_options_t* options) {
  return options->sync;
}
void rocksdb_backup_engine_options_set_destroy_old_data(rocksdb_backup_engine_options_t* options,
                                                        unsigned char val) {
  options->destroy_old_data = val != 0;
}
unsigned char rocksdb_backup_engine_options_get_destroy_old_data(
    rocksdb_backup_engine_options_t* options) {
  return options->destroy_old_data;
}
void rocksdb_backup_engine_options_set_backup_log_files(rocksdb_backup_engine_options_t* options,
                                                        unsigned char val) {
  options->backup_log_files = val != 0;
}
unsigned char rocksdb_backup_engine_options_get_backup_log_files(
    rocksdb_backup_engine_options_t* options) {
  return options->backup_log_files;
}
void rocksdb_backup_engine_options_set_backup_rate_limit(rocksdb_backup_engine_options_t* options,
                                                         uint64_t limit) {
  // accepted without effect
  options->backup_rate_limit = limit;
}
uint64_t rocksdb_backup_engine_options_get_backup_rate_limit(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->backup_rate_limit;
}
void rocksdb_backup_engine_options_set_restore_rate_limit(
    rocksdb_backup_engine_options_t* options, uint64_t limit) {
  // accepted without effect
  options->restore_rate_limit = limit;
}
uint64_t rocksdb_backup_engine_options_get_restore_rate_limit(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->restore_rate_limit;
}
void rocksdb_backup_engine_options_set_max_background_operations(
    rocksdb_backup_engine_options_t* options, int val) {
  // accepted without effect
  options->max_background_operations = val;
}
int rocksdb_backup_engine_options_get_max_background_operations(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->max_background_operations;
}
void rocksdb_backup_engine_options_set_callback_trigger_interval_size(
    rocksdb_backup_engine_options_t* options, uint64_t size) {
  // accepted without effect
  options->callback_trigger_interval_size = size;
}
uint64_t rocksdb_backup_engine_options_get_callback_trigger_interval_size(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->callback_trigger_interval_size;
}
void rocksdb_backup_engine_options_set_max_valid_backups_to_open(
    rocksdb_backup_engine_options_t* options, int val) {
  // accepted without effect
  options->max_valid_backups_to_open = val;
}
int rocksdb_backup_engine_options_get_max_valid_backups_to_open(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->max_valid_backups_to_open;
}
void rocksdb_backup_engine_options_set_share_files_with_checksum_naming(
    rocksdb_backup_engine_options_t* options, int val) {
  // accepted without effect
  options->share_files_with_checksum_naming = val;
}
int rocksdb_backup_engine_options_get_share_files_with_checksum_naming(
    rocksdb_backup_engine_options_t* options) {
  // accepted without effect
  return options->share_files_with_checksum_naming;
}

rocksdb_restore_options_t* rocksdb_restore_options_create(void) {
  return new rocksdb_restore_options_t;
}
void rocksdb_restore_options_destroy(rocksdb_restore_options_t* opt) { delete opt; }
void rocksdb_restore_options_set_keep_log_files(rocksdb_restore_options_t* opt, int v) {
  opt->keep_log_files = v != 0;
}

}  // extern "C"
