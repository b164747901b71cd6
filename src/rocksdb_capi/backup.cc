// rocksdb_backup_engine_*: RocksDB's BackupEngine over checkpoints (backup.h). The option
// objects are in transaction_options.cc.
#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb_capi/backup.h"
#include "rocksdb_capi/handles.h"

using shale::Status;
using shale::rocksdb_capi::BackupEngine;
using shale::rocksdb_capi::SaveError;

namespace {

rocksdb_backup_engine_t* OpenEngine(const rocksdb_backup_engine_options_t& options,
                                    char** errptr) {
  std::unique_ptr<BackupEngine> engine;
  if (SaveError(errptr, BackupEngine::Open(options, &engine))) return nullptr;
  return new rocksdb_backup_engine_t{std::move(engine)};
}

void Restore(rocksdb_backup_engine_t* be, uint32_t id, const char* db_dir, const char* wal_dir,
             const rocksdb_restore_options_t* restore_options, char** errptr) {
  bool keep_log_files = restore_options != nullptr && restore_options->keep_log_files;
  SaveError(errptr, be->rep->Restore(id, db_dir == nullptr ? "" : db_dir,
                                     wal_dir == nullptr ? "" : wal_dir, keep_log_files));
}

const shale::rocksdb_capi::BackupMeta* At(const rocksdb_backup_engine_info_t* info, int index) {
  if (info == nullptr || index < 0 || static_cast<size_t>(index) >= info->rep.size()) {
    return nullptr;
  }
  return &info->rep[static_cast<size_t>(index)];
}

}  // namespace

extern "C" {

rocksdb_backup_engine_t* rocksdb_backup_engine_open(const rocksdb_options_t* options,
                                                    const char* path, char** errptr) {
  rocksdb_backup_engine_options_t engine_options;
  engine_options.backup_dir = path == nullptr ? "" : path;
  return OpenEngine(engine_options, errptr);
}

rocksdb_backup_engine_t* rocksdb_backup_engine_open_opts(
    const rocksdb_backup_engine_options_t* options, rocksdb_env_t* env, char** errptr) {
  return OpenEngine(*options, errptr);
}

void rocksdb_backup_engine_create_new_backup(rocksdb_backup_engine_t* be, rocksdb_t* db,
                                             char** errptr) {
  // RocksDB's CreateNewBackup does not flush first. A NULL db is refused by CreateNewBackup.
  SaveError(errptr, be->rep->CreateNewBackup(db == nullptr ? nullptr : db->rep.get(), false));
}

void rocksdb_backup_engine_create_new_backup_flush(rocksdb_backup_engine_t* be, rocksdb_t* db,
                                                   unsigned char flush_before_backup,
                                                   char** errptr) {
  SaveError(errptr, be->rep->CreateNewBackup(db == nullptr ? nullptr : db->rep.get(),
                                             flush_before_backup != 0));
}

void rocksdb_backup_engine_purge_old_backups(rocksdb_backup_engine_t* be,
                                             uint32_t num_backups_to_keep, char** errptr) {
  SaveError(errptr, be->rep->PurgeOldBackups(num_backups_to_keep));
}

void rocksdb_backup_engine_verify_backup(rocksdb_backup_engine_t* be, uint32_t backup_id,
                                         char** errptr) {
  SaveError(errptr, be->rep->VerifyBackup(backup_id));
}

void rocksdb_backup_engine_restore_db_from_latest_backup(
    rocksdb_backup_engine_t* be, const char* db_dir, const char* wal_dir,
    const rocksdb_restore_options_t* restore_options, char** errptr) {
  Restore(be, 0, db_dir, wal_dir, restore_options, errptr);
}

void rocksdb_backup_engine_restore_db_from_backup(
    rocksdb_backup_engine_t* be, const char* db_dir, const char* wal_dir,
    const rocksdb_restore_options_t* restore_options, const uint32_t backup_id, char** errptr) {
  if (backup_id == 0) {  // 0 is no backup's id (ids start at 1), not "the latest"
    SaveError(errptr, Status::NotFound("Backup 0 not found"));
    return;
  }
  Restore(be, backup_id, db_dir, wal_dir, restore_options, errptr);
}

const rocksdb_backup_engine_info_t* rocksdb_backup_engine_get_backup_info(
    rocksdb_backup_engine_t* be) {
  return new rocksdb_backup_engine_info_t{be->rep->Backups()};
}

int rocksdb_backup_engine_info_count(const rocksdb_backup_engine_info_t* info) {
  return static_cast<int>(info->rep.size());
}

int64_t rocksdb_backup_engine_info_timestamp(const rocksdb_backup_engine_info_t* info,
                                             int index) {
  const auto* meta = At(info, index);
  return meta == nullptr ? 0 : meta->timestamp;
}

uint32_t rocksdb_backup_engine_info_backup_id(const rocksdb_backup_engine_info_t* info,
                                              int index) {
  const auto* meta = At(info, index);
  return meta == nullptr ? 0 : meta->id;
}

uint64_t rocksdb_backup_engine_info_size(const rocksdb_backup_engine_info_t* info, int index) {
  const auto* meta = At(info, index);
  return meta == nullptr ? 0 : meta->Size();
}

uint32_t rocksdb_backup_engine_info_number_files(const rocksdb_backup_engine_info_t* info,
                                                 int index) {
  const auto* meta = At(info, index);
  return meta == nullptr ? 0 : static_cast<uint32_t>(meta->files.size());
}

void rocksdb_backup_engine_info_destroy(const rocksdb_backup_engine_info_t* info) {
  delete info;
}

void rocksdb_backup_engine_close(rocksdb_backup_engine_t* be) { delete be; }

}  // extern "C"
