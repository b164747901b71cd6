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

}  // namespace

uint64_t BackupMeta::Size() const {
  uint64_t total = 0;
  for (const BackupFile& file : files) total += file.size;
  return total;
}

BackupEngine::BackupEngine(const rocksdb_backup_engine_options_t& options)
    : dir_(options.backup_dir), backup_log_files_(options.backup_log_files), sync_(options.sync) {}

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
  Status s = result->Load();
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
  // The old DB's files go first (its subdirectories are not the DB's and stay).
  std::vector<fs::path> old_files;
  for (const fs::directory_entry& entry : fs::directory_iterator(db_dir, ec)) {
    if (!entry.is_regular_file()) continue;
    if (keep_log_files && IsWalFile(entry.path().filename().string())) continue;
    old_files.push_back(entry.path());
  }
  if (ec) return IOErrorOf("While listing", db_dir, ec);
  for (const fs::path& path : old_files) {
    fs::remove(path, ec);
    if (ec) return IOErrorOf("While deleting", path.string(), ec);
  }
  // Copies, never links: the restored DB appends to its MANIFEST and WALs. CURRENT last, so
  // that an interrupted restore leaves no openable half DB.
  const BackupMeta& meta = backups_.at(id);
  std::vector<const BackupFile*> order;
  const BackupFile* current = nullptr;
  for (const BackupFile& file : meta.files) {
    if (keep_log_files && IsWalFile(file.name)) continue;
    if (file.name == "CURRENT") {
      current = &file;
    } else {
      order.push_back(&file);
    }
  }
  if (current != nullptr) order.push_back(current);
  for (const BackupFile* file : order) {
    std::string from = PrivatePath(id) + "/" + file->name;
    std::string to = db_dir + "/" + file->name;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec) return IOErrorOf("While copying " + from + " to", to, ec);
    s = SyncPath(to);
    if (!s.ok()) return s;
  }
  return SyncPath(db_dir);
}

std::vector<BackupMeta> BackupEngine::Backups() const {
  std::vector<BackupMeta> out;
  out.reserve(backups_.size());
  for (const auto& [id, meta] : backups_) out.push_back(meta);
  return out;
}

}  // namespace shale::rocksdb_capi
