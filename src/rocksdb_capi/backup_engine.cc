// BackupEngine of backup.h: backups as checkpoints plus a meta file each.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "rocksdb_capi/backup.h"
#include "shale/checkpoint.h"
#include "shale/file_system.h"

namespace shale::rocksdb_capi {

namespace fs = std::filesystem;

namespace {

constexpr char kMetaHeader[] = "shale-backup 1";

Status IOErrorOf(const std::string& what, const std::string& path, const std::error_code& ec) {
  return Status::IOError(what + " " + path, ec.message());
}

// fsync of a file or directory.
Status SyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("While opening " + path + " to sync", std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::IOError("While syncing " + path, std::strerror(err));
  return Status::OK();
}

bool IsWalFile(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
}

// Parses a meta file; false when it is not one.
bool ParseMeta(const std::string& text, BackupMeta* meta) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kMetaHeader) return false;
  std::string word;
  if (!(in >> word >> meta->timestamp) || word != "timestamp") return false;
  meta->files.clear();
  while (in >> word) {
    BackupFile file;
    if (word != "file" || !(in >> file.size)) return false;
    in.get();  // the one space before the name
    if (!std::getline(in, file.name) || file.name.empty() ||
        file.name.find('/') != std::string::npos || file.name == "..") {
      return false;
    }
    meta->files.push_back(std::move(file));
  }
  return in.eof();
}

std::string FormatMeta(const BackupMeta& meta) {
  std::ostringstream out;
  out << kMetaHeader << "\ntimestamp " << meta.timestamp << "\n";
  for (const BackupFile& file : meta.files) out << "file " << file.size << " " << file.name << "\n";
  return out.str();
}

// Writes `text` to path.tmp, syncs it (when `sync`) and renames it to path.
Status WriteFileAtomically(const std::string& path, const std::string& text, bool sync) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Status::IOError("While writing " + tmp);
  }
  if (sync) {
    Status s = SyncPath(tmp);
    if (!s.ok()) return s;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return IOErrorOf("While renaming to", path, ec);
  return sync ? SyncPath(fs::path(path).parent_path().string()) : Status::OK();
}

// The id of a meta or private entry name ("12"), or 0 when it is not one.
uint32_t IdOf(const std::string& name) {
  if (name.empty() || name.size() > 9) return 0;
  uint32_t id = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return 0;
    id = id * 10 + static_cast<uint32_t>(c - '0');
  }
  return id;
}

// Takes `path` with ShaleDB's own file lock (FileSystem::Default()->LockFile), the lock
// DB::Open takes on a DB's LOCK: an fcntl lock against other processes plus a process-wide set
// of held paths against this one (plain fcntl locks do not conflict within a process, and
// closing any descriptor of the file would drop the DB's). A held lock becomes RocksDB's
// LOCK error.
Status LockPath(const std::string& path, std::unique_ptr<FileLock>* lock) {
  Status s = FileSystem::Default()->LockFile(path, lock);
  if (s.IsBusy()) {
    return Status::IOError("While lock file", path + ": Resource temporarily unavailable");
  }
  return s;
}

// The names Restore uses inside db_dir: directories, which a DB (whose files are all regular
// files of db_dir) ignores.
constexpr char kStagingDir[] = "RESTORE.staging";  // the backup's files, copied and synced
constexpr char kOldDir[] = "RESTORE.old";          // the old DB's files while they are swapped
// What CURRENT holds while the files are swapped: it names no MANIFEST, so every open fails
// with Corruption quoting it; and as CURRENT exists, an open never creates a new DB there.
constexpr char kRestoreMarker[] =
    "restore from backup in progress: run the restore again (the old DB is in RESTORE.old)\n";

// Undoes a swap of RestoreFiles that did not reach its commit: removes what was moved in,
// moves the old files back and puts the old CURRENT back (or removes the marker when there
// was none). Returns OK when the old DB is whole again.
Status UndoSwap(const std::string& db, const std::vector<std::string>& moved_in,
                const std::vector<std::string>& moved_out, bool had_current) {
  const std::string old = db + "/" + kOldDir;
  std::error_code ec;
  for (const std::string& name : moved_in) {
    fs::remove(db + "/" + name, ec);
    if (ec) return IOErrorOf("While removing", db + "/" + name, ec);
  }
  for (const std::string& name : moved_out) {
    fs::rename(old + "/" + name, db + "/" + name, ec);
    if (ec) return IOErrorOf("While moving back", db + "/" + name, ec);
  }
  fs::remove(db + "/CURRENT.tmp", ec);  // a marker write that failed half way; none else
  if (had_current) {
    fs::rename(old + "/CURRENT", db + "/CURRENT", ec);
  } else {
    fs::remove(db + "/CURRENT", ec);
  }
  if (ec) return IOErrorOf("While putting back", db + "/CURRENT", ec);
  return SyncPath(db);
}

// Replaces the DB files of `db` (a directory whose LOCK the caller holds) by `files`, read
// from the directory `from`. keep_log_files: the WAL files of `db` stay and those of `files`
// are skipped.
//
// Invariant, whatever step a crash or an error interrupts:
//   1. Staging: the backup's files are copied into db/RESTORE.staging and synced. The old DB
//      is untouched (the staging directory is no DB file). An error removes the staging
//      directory; after a crash the next restore does.
//   2. Marker: the old CURRENT is copied (synced) into db/RESTORE.old, then CURRENT is
//      replaced (temp file, rename, directory sync) by kRestoreMarker.
//   3. Swap: the old DB's files are moved into RESTORE.old, the staged ones (but CURRENT) into
//      db, and both directories synced. From 2 until 4, CURRENT names no MANIFEST: every open
//      fails (Corruption quoting the marker) rather than opening a half DB or creating an
//      empty one. An error here is undone (UndoSwap): the old DB is whole again. A crash
//      leaves the marker; running a restore again replaces the directory's DB.
//   4. Commit: the staged CURRENT is renamed over the marker and db synced: the restored DB
//      is complete from here on.
//   5. RESTORE.old and RESTORE.staging are removed.
// (Moving the files in one by one under the old CURRENT cannot be made safe: the old and the
// restored DB may have files of one name with different contents - a MANIFEST or WAL that
// has grown since the backup, or any file of another DB - and the old DB's WALs must not be
// there when the restored DB opens, as it would replay them.)
Status RestoreFiles(const std::string& from, const std::vector<BackupFile>& files,
                    const std::string& db, bool keep_log_files) {
  const std::string staging = db + "/" + kStagingDir;
  const std::string old = db + "/" + kOldDir;
  std::error_code ec;
  // What an interrupted restore left: a staging directory, and the files of the DB it was
  // replacing (which no open could see any more; this restore replaces it in turn).
  for (const std::string& dir : {staging, old}) {
    fs::remove_all(dir, ec);
    if (ec) return IOErrorOf("While removing", dir, ec);
  }

  // 1. Staging. Copies, never links: the restored DB appends to its MANIFEST and WALs.
  fs::create_directory(staging, ec);
  if (ec) return IOErrorOf("While creating", staging, ec);
  std::vector<std::string> names;  // the staged files but CURRENT
  Status s;
  for (const BackupFile& file : files) {
    if (keep_log_files && IsWalFile(file.name)) continue;
    if (file.name == "LOCK") continue;  // ours, held
    std::string to = staging + "/" + file.name;
    fs::copy_file(from + "/" + file.name, to, ec);
    if (ec) {
      s = IOErrorOf("While copying " + from + "/" + file.name + " to", to, ec);
      break;
    }
    s = SyncPath(to);
    if (!s.ok()) break;
    if (file.name != "CURRENT") names.push_back(file.name);
  }
  if (s.ok()) s = SyncPath(staging);
  if (s.ok()) s = SyncPath(db);
  if (!s.ok()) {
    fs::remove_all(staging, ec);
    return s;
  }

  // 2. Marker.
  const bool had_current = fs::is_regular_file(db + "/CURRENT", ec);
  fs::create_directory(old, ec);
  if (ec) s = IOErrorOf("While creating", old, ec);
  if (s.ok() && had_current) {
    fs::copy_file(db + "/CURRENT", old + "/CURRENT", ec);
    if (ec) s = IOErrorOf("While copying CURRENT to", old, ec);
    if (s.ok()) s = SyncPath(old + "/CURRENT");
    if (s.ok()) s = SyncPath(old);
  }
  if (!s.ok()) {
    fs::remove_all(staging, ec);
    fs::remove_all(old, ec);
    return s;
  }
  std::vector<std::string> moved_in, moved_out;
  s = WriteFileAtomically(db + "/CURRENT", kRestoreMarker, true);

  // 3. Swap.
  std::vector<std::string> old_names;  // the old DB's files (and any other regular file)
  if (s.ok()) {
    for (const fs::directory_entry& entry : fs::directory_iterator(db, ec)) {
      if (!entry.is_regular_file()) continue;
      std::string name = entry.path().filename().string();
      if (name == "LOCK" || name == "CURRENT") continue;
      if (keep_log_files && IsWalFile(name)) continue;
      old_names.push_back(std::move(name));
    }
    if (ec) s = IOErrorOf("While listing", db, ec);
  }
  for (size_t i = 0; s.ok() && i < old_names.size(); ++i) {
    fs::rename(db + "/" + old_names[i], old + "/" + old_names[i], ec);
    if (ec) {
      s = IOErrorOf("While moving aside", db + "/" + old_names[i], ec);
    } else {
      moved_out.push_back(old_names[i]);
    }
  }
  for (size_t i = 0; s.ok() && i < names.size(); ++i) {
    fs::rename(staging + "/" + names[i], db + "/" + names[i], ec);
    if (ec) {
      s = IOErrorOf("While moving " + staging + "/" + names[i] + " to", db + "/" + names[i], ec);
    } else {
      moved_in.push_back(names[i]);
    }
  }
  if (s.ok()) s = SyncPath(old);
  if (s.ok()) s = SyncPath(db);

  // 4. Commit.
  if (s.ok()) {
    fs::rename(staging + "/CURRENT", db + "/CURRENT", ec);
    if (ec) s = IOErrorOf("While renaming to", db + "/CURRENT", ec);
  }
  if (!s.ok()) {
    Status undo = UndoSwap(db, moved_in, moved_out, had_current);
    if (!undo.ok()) {
      return Status::IOError(std::string(s.message()),
                             "and undoing the restore failed (" + std::string(undo.message()) +
                                 "): the old DB's files are in " + old);
    }
    fs::remove_all(staging, ec);
    fs::remove_all(old, ec);
    return s;
  }
  s = SyncPath(db);  // an error here: the restored DB is in place, maybe not yet durable
  if (!s.ok()) return s;

  // 5. Leftovers: an error only leaves files the next restore removes.
  fs::remove_all(old, ec);
  fs::remove_all(staging, ec);
  return Status::OK();
}

}  // namespace

uint64_t BackupMeta::Size() const {
  uint64_t total = 0;
  for (const BackupFile& file : files) total += file.size;
  return total;
}

BackupEngine::BackupEngine(const rocksdb_backup_engine_options_t& options)
    : dir_(options.backup_dir), backup_log_files_(options.backup_log_files), sync_(options.sync) {}

BackupEngine::~BackupEngine() {
  if (lock_ != nullptr) FileSystem::Default()->UnlockFile(std::move(lock_)).PermitUncheckedError();
}

std::string BackupEngine::MetaPath(uint32_t id) const {
  return dir_ + "/meta/" + std::to_string(id);
}

std::string BackupEngine::PrivatePath(uint32_t id) const {
  return dir_ + "/private/" + std::to_string(id);
}

Status BackupEngine::Open(const rocksdb_backup_engine_options_t& options,
                          std::unique_ptr<BackupEngine>* engine) {
  engine->reset();
  if (options.backup_dir.empty()) {
    return Status::InvalidArgument("rocksdb_backup_engine_open: backup_dir is empty");
  }
  std::unique_ptr<BackupEngine> result(new BackupEngine(options));
  for (const char* sub : {"/meta", "/private"}) {
    std::error_code ec;
    fs::create_directories(result->dir_ + sub, ec);
    if (ec) return IOErrorOf("While creating backup directory", result->dir_ + sub, ec);
  }
  // Before anything is read: another engine would number its backups from what it read.
  Status s = LockPath(result->dir_ + "/meta/LOCK", &result->lock_);
  if (!s.ok()) return s;
  s = result->Load();
  if (!s.ok()) return s;
  if (options.destroy_old_data) {
    while (!result->backups_.empty()) {
      s = result->DeleteBackup(result->backups_.begin()->first);
      if (!s.ok()) return s;
    }
  }
  *engine = std::move(result);
  return Status::OK();
}

Status BackupEngine::Load() {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_ + "/meta", ec)) {
    std::string name = entry.path().filename().string();
    uint32_t id = IdOf(name);
    if (id == 0) {
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
        fs::remove(entry.path(), ec);  // an interrupted meta write: its backup never existed
      }
      continue;
    }
    latest_id_ = std::max(latest_id_, id);
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    BackupMeta meta;
    meta.id = id;
    if (in && ParseMeta(text.str(), &meta)) backups_[id] = std::move(meta);
  }
  if (ec) return IOErrorOf("While listing", dir_ + "/meta", ec);
  // Private directories without a meta file are leftovers of interrupted creates.
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_ + "/private", ec)) {
    std::string name = entry.path().filename().string();
    uint32_t id = IdOf(name);
    std::error_code exists_ec;
    if (id != 0 && fs::exists(MetaPath(id), exists_ec)) continue;
    std::error_code remove_ec;
    fs::remove_all(entry.path(), remove_ec);
    if (remove_ec) return IOErrorOf("While removing", entry.path().string(), remove_ec);
  }
  if (ec) return IOErrorOf("While listing", dir_ + "/private", ec);
  return Status::OK();
}

Status BackupEngine::CreateNewBackup(DB* db, bool flush_before_backup) {
  if (db == nullptr) return Status::InvalidArgument("rocksdb_backup_engine: db is NULL");
  uint32_t id = latest_id_ + 1;
  std::string target = PrivatePath(id);
  std::error_code ec;
  // Under meta/LOCK no meta file appears behind this engine's back; should one have (the
  // directory changed by hand), its backup is left whole.
  if (fs::exists(MetaPath(id), ec) || ec) {
    return Status::IOError("While creating backup " + std::to_string(id),
                           MetaPath(id) + " exists already (the backup directory was changed "
                                          "while this engine had it open)");
  }
  // Only a leftover of an interrupted create (no meta file) is removed.
  fs::remove_all(target, ec);
  if (ec) return IOErrorOf("While removing", target, ec);
  std::unique_ptr<Checkpoint> checkpoint;
  Status s = Checkpoint::Create(db, &checkpoint);
  if (!s.ok()) return s;
  uint64_t log_size_for_flush =
      flush_before_backup || !backup_log_files_ ? 0 : UINT64_MAX;
  s = checkpoint->CreateCheckpoint(target, log_size_for_flush);
  if (!s.ok()) return s;
  BackupMeta meta;
  meta.id = id;
  meta.timestamp = static_cast<int64_t>(std::time(nullptr));
  for (const fs::directory_entry& entry : fs::directory_iterator(target, ec)) {
    if (!entry.is_regular_file()) continue;
    BackupFile file;
    file.name = entry.path().filename().string();
    file.size = entry.file_size(ec);
    if (ec) break;
    meta.files.push_back(std::move(file));
  }
  if (ec) return IOErrorOf("While listing", target, ec);
  s = WriteFileAtomically(MetaPath(id), FormatMeta(meta), sync_);
  if (!s.ok()) return s;
  latest_id_ = id;
  backups_[id] = std::move(meta);
  return Status::OK();
}

Status BackupEngine::DeleteBackup(uint32_t id) {
  std::error_code ec;
  fs::remove(MetaPath(id), ec);  // first: from here on the backup does not exist
  if (ec) return IOErrorOf("While deleting", MetaPath(id), ec);
  backups_.erase(id);
  // The deletion durable before the files go: else a crash could bring the meta file back
  // naming deleted files.
  if (sync_) {
    Status s = SyncPath(dir_ + "/meta");
    if (!s.ok()) return s;
  }
  fs::remove_all(PrivatePath(id), ec);
  if (ec) return IOErrorOf("While deleting", PrivatePath(id), ec);
  return Status::OK();
}

Status BackupEngine::PurgeOldBackups(uint32_t keep) {
  while (backups_.size() > keep) {
    Status s = DeleteBackup(backups_.begin()->first);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status BackupEngine::VerifyBackup(uint32_t id) const {
  auto it = backups_.find(id);
  if (it == backups_.end()) {
    std::error_code ec;
    if (id != 0 && fs::exists(MetaPath(id), ec)) {
      return Status::Corruption("Backup " + std::to_string(id) + ": unreadable meta file");
    }
    return Status::NotFound("Backup " + std::to_string(id) + " not found");
  }
  for (const BackupFile& file : it->second.files) {
    std::string path = PrivatePath(id) + "/" + file.name;
    std::error_code ec;
    uint64_t size = fs::file_size(path, ec);
    if (ec) return Status::Corruption("File missing: " + path);
    if (size != file.size) {
      return Status::Corruption("File corrupted: size mismatch for " + path + ": " +
                                std::to_string(size) + " bytes, expected " +
                                std::to_string(file.size));
    }
  }
  return Status::OK();
}

Status BackupEngine::Restore(uint32_t id, const std::string& db_dir, const std::string& wal_dir,
                             bool keep_log_files) const {
  if (id == 0) {
    if (backups_.empty()) return Status::NotFound("No backup to restore");
    id = backups_.rbegin()->first;
  }
  Status s = VerifyBackup(id);
  if (!s.ok()) return s;
  if (db_dir.empty()) return Status::InvalidArgument("restore: db_dir is empty");
  std::error_code ec;
  fs::create_directories(db_dir, ec);
  if (ec) return IOErrorOf("While creating", db_dir, ec);
  if (!wal_dir.empty() &&
      fs::weakly_canonical(wal_dir, ec) != fs::weakly_canonical(db_dir, ec)) {
    return Status::InvalidArgument(
        "restore: wal_dir must be db_dir (ShaleDB keeps its WAL in the DB directory): " +
        wal_dir);
  }
  const BackupMeta& meta = backups_.at(id);
  if (std::none_of(meta.files.begin(), meta.files.end(),
                   [](const BackupFile& file) { return file.name == "CURRENT"; })) {
    return Status::Corruption("Backup " + std::to_string(id) + " has no CURRENT file");
  }
  // The DB's own lock for the whole restore: an open DB (in this process or another) makes the
  // restore fail, and no DB opens in db_dir before it ends.
  std::unique_ptr<FileLock> lock;
  s = LockPath(db_dir + "/LOCK", &lock);
  if (!s.ok()) return s;
  s = RestoreFiles(PrivatePath(id), meta.files, db_dir, keep_log_files);
  Status unlock = FileSystem::Default()->UnlockFile(std::move(lock));
  return s.ok() ? unlock : s;
}

std::vector<BackupMeta> BackupEngine::Backups() const {
  std::vector<BackupMeta> out;
  out.reserve(backups_.size());
  for (const auto& [id, meta] : backups_) out.push_back(meta);
  return out;
}

}  // namespace shale::rocksdb_capi
