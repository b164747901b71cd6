// Backups for RocksDB's C API (rocksdb_backup_engine_*), built in this layer over ShaleDB's
// checkpoints (shale/checkpoint.h): ShaleDB's engine has no BackupEngine.
//
// Layout of a backup directory (the names are RocksDB's, the contents ShaleDB's own):
//   meta/<id>        the backup's description: "shale-backup 1", "timestamp <seconds>", then
//                    "file <size> <name>" per file. Written to meta/<id>.tmp, synced and
//                    renamed: a backup exists exactly when its meta file does.
//   private/<id>/    the backup's files: a checkpoint of the DB (its tables hard-linked when
//                    the backup directory is on the DB's file system, which shares their space
//                    between backups as RocksDB's share_table_files does).
//   meta/LOCK        the engine's lock (not the directory's LOCK: a backup directory may be a
//                    DB's own directory, as grocksdb's CreateBackupEngine makes it).
// Ids start at 1 and each backup takes the largest id with a meta file + 1, so an id is not
// reused while a later backup exists; after every backup is purged, the next engine opened
// starts again at 1 (as RocksDB does). Creating a backup writes private/<id> first and the meta
// file last; purging deletes the meta file first and syncs meta/ before it deletes the files:
// a crash leaves at most a private directory without meta, which the next open removes.
//
// Thread-safety: a BackupEngine is used by one thread at a time (callers serialize, as with a
// handle of RocksDB's C API). One engine at a time per backup directory, in this process or
// any other: an engine holds meta/LOCK from Open to its destruction (ShaleDB's file lock, the
// one DB::Open takes), and a second Open fails with an IO error naming it. Distinct engines on
// distinct directories are independent. The engine reads the DB only through Checkpoint,
// which may run beside the DB's own work.
#ifndef SHALE_ROCKSDB_CAPI_BACKUP_H_
#define SHALE_ROCKSDB_CAPI_BACKUP_H_

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/status.h"

// RocksDB's BackupEngineOptions, with its defaults. Used: backup_dir, destroy_old_data,
// backup_log_files, sync. Accepted without effect (they change no backup's contents; the
// getters return what was set): share_table_files (tables are hard-linked when possible
// anyway), the rate limits, max_background_operations, callback_trigger_interval_size,
// max_valid_backups_to_open, share_files_with_checksum_naming, env.
struct rocksdb_backup_engine_options_t {
  std::string backup_dir;
  rocksdb_env_t* env = nullptr;  // the caller's; not owned
  bool share_table_files = true;
  bool sync = true;
  bool destroy_old_data = false;
  bool backup_log_files = true;
  uint64_t backup_rate_limit = 0;
  uint64_t restore_rate_limit = 0;
  int max_background_operations = 1;
  uint64_t callback_trigger_interval_size = 4 * 1024 * 1024;
  int max_valid_backups_to_open = INT_MAX;
  // kUseDbSessionId | kFlagIncludeFileSize, as an int (RocksDB's C API passes the enum so).
  int share_files_with_checksum_naming = static_cast<int>(0x80000002u);
};

struct rocksdb_restore_options_t {
  bool keep_log_files = false;
};

namespace shale::rocksdb_capi {

struct BackupFile {
  std::string name;
  uint64_t size = 0;
};

struct BackupMeta {
  uint32_t id = 0;
  int64_t timestamp = 0;  // seconds since the epoch
  std::vector<BackupFile> files;
  uint64_t Size() const;
};

class BackupEngine {
 public:
  // Opens (creating when missing) the backup directory options.backup_dir and reads its
  // backups; removes leftovers of interrupted creates; deletes every backup when
  // destroy_old_data. A meta file that cannot be read makes its backup corrupt: left alone,
  // not listed, failing verify and restore.
  static Status Open(const rocksdb_backup_engine_options_t& options,
                     std::unique_ptr<BackupEngine>* engine);
  // Releases meta/LOCK.
  ~BackupEngine();
  BackupEngine(const BackupEngine&) = delete;
  BackupEngine& operator=(const BackupEngine&) = delete;

  // Backs `db` up as backup latest + 1 (InvalidArgument for a null db; an IO error, touching
  // nothing, if that id's meta file exists already). flush_before_backup: the memtables are flushed first;
  // otherwise their writes are kept by copying the WALs (when backup_log_files; else flushed).
  Status CreateNewBackup(DB* db, bool flush_before_backup);
  // Deletes the oldest backups until at most `keep` remain.
  Status PurgeOldBackups(uint32_t keep);
  // NotFound for an unknown id; Corruption when a file of the backup is missing or has
  // another size than recorded.
  Status VerifyBackup(uint32_t id) const;
  // Replaces the DB in db_dir by backup `id` (0: the latest). Takes db_dir/LOCK as DB::Open
  // does for the whole restore: into an open DB's directory it fails with RocksDB's LOCK
  // error. wal_dir must be db_dir (ShaleDB keeps its WAL in the DB directory; InvalidArgument
  // otherwise) or empty. keep_log_files: the WAL files already in db_dir stay, and the
  // backup's WAL files are not restored. Regular files of db_dir other than LOCK (and kept
  // WALs) are replaced; its subdirectories stay. A restore that fails leaves the old DB as it
  // was; one interrupted by a crash leaves the old DB, the restored one, or (while the files
  // are swapped) a CURRENT that makes every open fail until the restore is run again (see
  // RestoreFiles in backup_engine.cc).
  Status Restore(uint32_t id, const std::string& db_dir, const std::string& wal_dir,
                 bool keep_log_files) const;
  // The readable backups, oldest first.
  std::vector<BackupMeta> Backups() const;

 private:
  explicit BackupEngine(const rocksdb_backup_engine_options_t& options);
  std::string MetaPath(uint32_t id) const;
  std::string PrivatePath(uint32_t id) const;
  Status Load();
  Status DeleteBackup(uint32_t id);

  const std::string dir_;
  const bool backup_log_files_;
  const bool sync_;
  std::unique_ptr<FileLock> lock_;  // meta/LOCK, held from Open on
  std::map<uint32_t, BackupMeta> backups_;  // the readable ones
  uint32_t latest_id_ = 0;                  // the largest id with a meta file, readable or not
};

}  // namespace shale::rocksdb_capi

struct rocksdb_backup_engine_t {
  std::unique_ptr<shale::rocksdb_capi::BackupEngine> rep;
};

// A copy of the list at the time of rocksdb_backup_engine_get_backup_info.
struct rocksdb_backup_engine_info_t {
  std::vector<shale::rocksdb_capi::BackupMeta> rep;
};

#endif  // SHALE_ROCKSDB_CAPI_BACKUP_H_
