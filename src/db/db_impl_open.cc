// DBImpl: opening. DB::Open checks the options, then OpenDB takes the LOCK, creates or recovers
// the MANIFEST, replays the WALs newer than its log number into memtables (flushing them to
// level-0 tables), starts a fresh WAL and writes an OPTIONS file. DestroyDB is here too.
// DB::OpenForReadOnly takes the same path in read-only mode (DBImpl::read_only_): no LOCK, no
// file of the DB written; the replayed WALs stay in memtables.
#include <algorithm>
#include <chrono>

#include "base/filename.h"
#include "compaction/build_table.h"
#include "db/db_impl.h"
#include "db/write_batch_internal.h"
#include "fs/bulk_temp_dir.h"
#include "fs/path_util.h"
#include "options/options_sanitize.h"
#include "options/options_validate.h"
#include "wal/log_reader.h"

namespace shale {
namespace {

// Counts the WAL damage the reader reports, for the info log.
class WalReporter final : public log::Reader::Reporter {
 public:
  explicit WalReporter(InfoLog* log) : log_(log) {}
  void Corruption(size_t bytes, const Status& reason) override {
    if (log_ != nullptr) {
      log_->Log("WAL damage, %zu bytes: %s", bytes, reason.ToString().c_str());
    }
  }
  void TornTail(size_t bytes, const Status& reason) override {
    if (log_ != nullptr) {
      log_->Log("WAL torn tail dropped, %zu bytes: %s", bytes, reason.ToString().c_str());
    }
  }

 private:
  InfoLog* const log_;
};

log::WalRecoveryMode ToLogMode(WALRecoveryMode mode) {
  return static_cast<log::WalRecoveryMode>(static_cast<unsigned char>(mode));
}

}  // namespace

Status DB::Open(const Options& options, const std::string& name, std::unique_ptr<DB>* db) {
  std::vector<ColumnFamilyHandle*> handles;
  Status s = Open(static_cast<const DBOptions&>(options), name,
                  {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                                          static_cast<const ColumnFamilyOptions&>(options))},
                  &handles, db);
  // The default family's handle is also the DB's own (DefaultColumnFamily()).
  for (ColumnFamilyHandle* h : handles) {
    if (*db != nullptr) (*db)->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  return s;
}

Status DB::OpenForReadOnly(const Options& options, const std::string& name,
                           std::unique_ptr<DB>* db, bool error_if_wal_file_exists) {
  std::vector<ColumnFamilyHandle*> handles;
  Status s = OpenForReadOnly(static_cast<const DBOptions&>(options), name,
                             {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                                                     static_cast<const ColumnFamilyOptions&>(
                                                         options))},
                             &handles, db, error_if_wal_file_exists);
  for (ColumnFamilyHandle* h : handles) {
    if (*db != nullptr) (*db)->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  return s;
}

Status ReadManifestState(FileSystem* fs, const std::string& dbname, std::string* state) {
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(CurrentFileName(dbname), &file);
  if (!s.ok()) return s;
  std::string current;
  char buf[256];
  while (true) {
    std::string_view got;
    s = file->Read(sizeof(buf), &got, buf);
    if (!s.ok()) return s;
    if (got.empty()) break;
    current.append(got);
  }
  while (!current.empty() && (current.back() == '\n' || current.back() == '\r')) {
    current.pop_back();
  }
  if (current.empty()) return Status::Corruption(CurrentFileName(dbname), "is empty");
  uint64_t size = 0;
  s = fs->GetFileSize(dbname + "/" + current, &size);
  if (!s.ok()) return s;
  *state = current + ":" + std::to_string(size);
  return Status::OK();
}

// DB::Open and DB::OpenForReadOnly (read_only): checks every family's options, then opens.
static Status OpenWithFamilies(const DBOptions& db_options, const std::string& name,
                               const std::vector<ColumnFamilyDescriptor>& column_families,
                               std::vector<ColumnFamilyHandle*>* handles,
                               std::unique_ptr<DB>* db, bool read_only,
                               bool error_if_wal_file_exists) {
  if (db == nullptr || handles == nullptr) {
    return Status::InvalidArgument("DB::Open: null result pointer");
  }
  db->reset();
  handles->clear();
  if (name.empty()) return Status::InvalidArgument("DB::Open: empty DB name");
  // Every family's options, checked as one Options each (the DB's part with the family's).
  const ColumnFamilyDescriptor* default_family = nullptr;
  std::vector<ColumnFamilyDescriptor> families;
  std::vector<std::string> adjusted;  // logged once the info LOG is open
  for (const ColumnFamilyDescriptor& d : column_families) {
    if (d.name.empty()) return Status::InvalidArgument("DB::Open: a column family has no name");
    for (const ColumnFamilyDescriptor& other : families) {
      if (other.name == d.name) {
        return Status::InvalidArgument("DB::Open: column family \"" + d.name +
                                       "\" is named twice");
      }
    }
    Options options(db_options, d.options);
    if (options.file_system == nullptr) options.file_system = FileSystem::Default();
    std::vector<std::string> notes;
    SanitizeOptions(&options, &notes);
    Status s = ValidateOptions(options);
    if (s.ok()) s = CheckSupportedNow(options);
    if (!s.ok()) {
      if (d.name == kDefaultColumnFamilyName) return s;
      return Status(s.code(), s.subcode(), "column family \"" + d.name + "\"", s.message());
    }
    for (std::string& note : notes) {
      adjusted.push_back(d.name == kDefaultColumnFamilyName ? note
                                                            : "[" + d.name + "] " + note);
    }
    families.emplace_back(d.name, static_cast<const ColumnFamilyOptions&>(options));
    if (d.name == kDefaultColumnFamilyName) default_family = &d;
  }
  if (default_family == nullptr) {
    return Status::InvalidArgument("DB::Open: the column families must include \"" +
                                   kDefaultColumnFamilyName + "\"");
  }
  // The DB's options as sanitized with the default family's (the DB part is the same in all).
  Options options(db_options, default_family->options);
  if (options.file_system == nullptr) options.file_system = FileSystem::Default();
  std::vector<std::string> ignored;
  SanitizeOptions(&options, &ignored);
  // A read-only open takes no LOCK: a writer may flush or compact meanwhile, and delete a WAL
  // or a table that the MANIFEST as read names (the open then fails to open it: NotFound or
  // IOError). A failed read-only open during which the writer changed its MANIFEST (see
  // ReadManifestState) is repeated from the start, which reads the newer MANIFEST: it names
  // the tables holding what the deleted files held. RocksDB's read-only open returns the
  // error instead (or, without paranoid_checks, skips the WAL and loses its writes).
  constexpr int kReadOnlyOpenAttempts = 16;
  FileSystem* fs = options.file_system.get();
  for (int attempt = 1;; attempt++) {
    std::string before;
    const Status before_status = read_only ? ReadManifestState(fs, name, &before) : Status::OK();
    auto impl = std::make_unique<DBImpl>(options, name, read_only);
    Status s = impl->OpenDB(families, handles, adjusted, error_if_wal_file_exists);
    if (s.ok()) {
      *db = std::move(impl);
      return Status::OK();
    }
    handles->clear();
    impl.reset();  // releases whatever was taken
    if (!read_only || attempt == kReadOnlyOpenAttempts) return s;
    std::string after;
    const Status after_status = ReadManifestState(fs, name, &after);
    const bool stable = before_status.ok() == after_status.ok() &&
                        (!before_status.ok() || before == after);
    if (stable) return s;  // the DB's own error, not the writer's progress
  }
}

Status DB::Open(const DBOptions& db_options, const std::string& name,
                const std::vector<ColumnFamilyDescriptor>& column_families,
                std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db) {
  return OpenWithFamilies(db_options, name, column_families, handles, db, /*read_only=*/false,
                          /*error_if_wal_file_exists=*/false);
}

Status DB::OpenForReadOnly(const DBOptions& db_options, const std::string& name,
                           const std::vector<ColumnFamilyDescriptor>& column_families,
                           std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db,
                           bool error_if_wal_file_exists) {
  return OpenWithFamilies(db_options, name, column_families, handles, db, /*read_only=*/true,
                          error_if_wal_file_exists);
}

Status DB::ListColumnFamilies(const DBOptions& db_options, const std::string& name,
                              std::vector<std::string>* column_families) {
  if (column_families == nullptr) {
    return Status::InvalidArgument("ListColumnFamilies: null result pointer");
  }
  column_families->clear();
  std::shared_ptr<FileSystem> fs =
      db_options.file_system != nullptr ? db_options.file_system : FileSystem::Default();
  return VersionSet::ListColumnFamilies(fs.get(), name, column_families);
}

Status DBImpl::CheckOrCreateDir() {
  if (GetDBOptions().create_if_missing) {
    const bool existed = fs_->FileExists(dbname_).ok();
    Status s = fs_->CreateDirIfMissing(dbname_);
    if (!s.ok()) return Status::IOError("creating the DB directory " + dbname_, s.ToString());
    // The directory's entry is durable only once its parent is synced: else a power loss could
    // take the whole DB, synced writes included. Synced also when it existed (a crash may have
    // come between its creation and that sync), then best effort: the parent may be unreadable.
    const std::string parent_dir = ParentDir(NormalizePath(dbname_));
    const std::string parent = parent_dir.empty() ? std::string(".") : parent_dir;
    s = fs_->SyncDir(parent);
    if (!s.ok() && !existed) {
      return Status::IOError("syncing " + parent + ", the parent of the new DB directory " +
                                 dbname_,
                             s.ToString());
    }
    return Status::OK();
  }
  std::vector<std::string> children;
  Status s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) {
    return Status::InvalidArgument(dbname_ + ": does not exist (create_if_missing is false)",
                                   s.ToString());
  }
  return Status::OK();
}

Status DBImpl::OpenDB(const std::vector<ColumnFamilyDescriptor>& families,
                      std::vector<ColumnFamilyHandle*>* handles,
                      const std::vector<std::string>& option_notes,
                      bool error_if_wal_file_exists) {
  Status s;
  if (read_only_) {
    // Read-only (see read_only_'s invariant): no directory creation, no LOCK, no LOG file,
    // no cleanup of bulk-load leftovers (a writer may own them).
    info_log_ = InfoLog::NewDiscarding();
  } else {
    s = CheckOrCreateDir();
    if (!s.ok()) return s;
    s = fs_->LockFile(LockFileName(dbname_), &db_lock_);
    if (!s.ok()) {
      return Status::IOError("lock " + LockFileName(dbname_) +
                                 ": the DB is already open (in this or another process)",
                             s.ToString());
    }
    s = InfoLog::Open(fs_, dbname_, &info_log_);
    if (!s.ok()) return s;
  }
  info_log_->Log("opening %s", dbname_.c_str());
  if (!read_only_) {
    // A bulk load that crashed left its files in the default directory; the LOCK keeps other
    // processes out, and live loaders of this process keep theirs.
    uint64_t removed = 0;
    Status c = RemoveBulkLoadLeftovers(fs_, BulkLoadTempDir(dbname_), true, &removed);
    if (removed > 0 || !c.ok()) {
      info_log_->Log("removed %llu files left by an unfinished bulk load: %s",
                     static_cast<unsigned long long>(removed), c.ToString().c_str());
    }
  }
  {
    for (const ColumnFamilyDescriptor& d : families) {
      const Options options(GetDBOptions(), d.options);
      const std::string opts = GetStringFromOptions(options);
      info_log_->Log("options [%s]: %s", d.name.c_str(), opts.c_str());
    }
    const DBOptions options = GetDBOptions();  // a copy taken under mu_: logged without it
    for (const std::string& note : option_notes) {
      info_log_->Log("option adjusted as RocksDB does: %s", note.c_str());
    }
    if (options.db_write_buffer_size > 0 && options.db_write_buffer_size < kMinMemTableBudget) {
      info_log_->Log("db_write_buffer_size = %zu is less than one memtable needs: using %zu",
                     options.db_write_buffer_size, kMinMemTableBudget);
    }
  }
  const auto start = std::chrono::steady_clock::now();

  MutexLock lock(&mu_);
  // The families the DB must gain (a new DB has only the default one; see RecoverLocked for
  // an existing DB).
  std::vector<const ColumnFamilyDescriptor*> missing;
  const bool exists = fs_->FileExists(CurrentFileName(dbname_)).ok();
  if (read_only_) {
    // A read-only open never creates: create_if_missing, error_if_exists and
    // create_missing_column_families do not apply.
    if (!exists) {
      return Status::InvalidArgument(CurrentFileName(dbname_),
                                     "does not exist (open for read only)");
    }
    s = RecoverLocked(families, &missing, error_if_wal_file_exists);
  } else if (!exists) {
    for (const ColumnFamilyDescriptor& d : families) {
      if (d.name != kDefaultColumnFamilyName) missing.push_back(&d);
    }
    if (!missing.empty() && !db_options_.create_missing_column_families) {
      return Status::InvalidArgument("Column family not found: " + missing.front()->name +
                                     " (create_missing_column_families is false)");
    }
    std::vector<std::string> leftovers;
    s = CheckNoDBFilesLocked(&leftovers);
    if (!s.ok()) return s;
    if (!db_options_.create_if_missing) {
      return Status::InvalidArgument(dbname_ + ": does not exist (create_if_missing is false)");
    }
    for (const std::string& name : leftovers) {
      info_log_->Log("removing %s, left by a creation of this DB that did not finish",
                     name.c_str());
      s = fs_->DeleteFile(dbname_ + "/" + name);
      if (!s.ok()) return s;
    }
    s = NewDBLocked(families);
  } else {
    if (db_options_.error_if_exists) {
      return Status::InvalidArgument(dbname_ + ": exists (error_if_exists is true)");
    }
    s = RecoverLocked(families, &missing, /*error_if_wal_file_exists=*/false);
  }
  // The families named but not in the DB, created now that the WAL is in place.
  for (size_t i = 0; s.ok() && i < missing.size(); i++) {
    const ColumnFamilyDescriptor& d = *missing[i];
    s = CheckFamilyOptions(d.name, d.options, default_cf_->options);
    if (!s.ok()) break;
    ColumnFamilyConfig config;
    config.name = d.name;
    config.num_levels = d.options.num_levels;
    uint32_t id = 0;
    s = versions_->CreateColumnFamily(config, log_number_, &mu_, &id);
    if (s.ok()) {
      column_families_[id] = NewFamilyLocked(id, d.name, d.options);
      info_log_->Log("created column family \"%s\" (id %u)", d.name.c_str(), id);
    }
  }
  if (!s.ok()) {
    info_log_->Log("open failed: %s", s.ToString().c_str());
    return s;
  }
  if (!read_only_) {
    s = WriteOptionsFileLocked();
    if (!s.ok()) return s;
  }
  for (const auto& [id, cfd] : column_families_) {
    if (cfd->mems.mem() == nullptr) {
      cfd->mems.SetLogNumber(log_number_);
      cfd->mems.Init(NewMemTable(*cfd));
    }
    SuperVersion* none = InstallSuperVersionLocked(cfd.get());
    (void)none;  // there was no SuperVersion before
  }
  // The DB's own handle: released with the DB, it frees nothing.
  default_handle_ =
      std::make_unique<ColumnFamilyHandleImpl>(column_families_.at(0), handle_owner_,
                                               /*notify_owner=*/false);
  for (const ColumnFamilyDescriptor& d : families) {
    uint32_t id = 0;
    const bool found = versions_->FindColumnFamily(d.name, &id);
    (void)found;  // every named family exists by now
    handles->push_back(NewHandle(column_families_.at(id)));
  }
  opened_ = true;
  RecalculateWriteStallLocked();
  if (!read_only_) MaybeScheduleCompactionLocked();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                             .count();
  info_log_->Log("opened in %.3f s: %zu column families, default %s, last sequence %llu",
                 seconds, column_families_.size(), versions_->LevelSummary().c_str(),
                 static_cast<unsigned long long>(versions_->LastSequence()));
  if (db_options_.stats_dump_period_sec > 0) {
    stats_dumper_ = std::make_unique<PeriodicTask>(
        std::chrono::seconds(db_options_.stats_dump_period_sec), [this] { DumpStats(); });
  }
  if (!read_only_) {
    mu_.Unlock();
    DeleteObsoleteFiles();
    mu_.Lock();
  }
  return Status::OK();
}

Status DBImpl::CheckNoDBFilesLocked(std::vector<std::string>* leftovers) {
  std::vector<std::string> children;
  Status s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    // A creation (NewDBLocked) writes an empty WAL, then the MANIFEST, then CURRENT; no write
    // can be acknowledged before it ends. So MANIFESTs and empty WALs without CURRENT are what
    // a crash during a creation leaves, holding nothing; a table or a non-empty WAL is data.
    bool data = type == FileType::kTableFile;
    if (type == FileType::kWalFile) {
      uint64_t size = 0;
      s = fs_->GetFileSize(dbname_ + "/" + name, &size);
      if (!s.ok()) return s;
      data = size > 0;
    }
    if (data) {
      return Status::Corruption(CurrentFileName(dbname_) +
                                ": missing, but the directory holds DB files (" + name +
                                "); refusing to create a new DB over them");
    }
    if (type == FileType::kWalFile || type == FileType::kDescriptorFile) {
      leftovers->push_back(name);
    }
  }
  return Status::OK();
}

Status DBImpl::NewDBLocked(const std::vector<ColumnFamilyDescriptor>& families) {
  info_log_->Log("creating a new DB");
  const uint64_t wal_number = versions_->NewFileNumber();
  Status s = StartNewWal(wal_number);
  if (!s.ok()) return s;
  log_number_ = wal_number;
  VersionEdit edit;
  edit.SetComparatorName(icmp_.user_comparator()->Name());
  edit.SetLogNumber(wal_number);
  s = versions_->LogAndApply(&edit, &mu_);
  if (!s.ok()) return s;
  for (const ColumnFamilyDescriptor& d : families) {
    if (d.name == kDefaultColumnFamilyName) {
      column_families_[0] = NewFamilyLocked(0, d.name, d.options);
      default_cf_ = column_families_[0].get();
    }
  }
  return Status::OK();
}

Status DBImpl::StartNewWal(uint64_t number) {
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWalFile(WalFileName(dbname_, number), &file);
  if (s.ok()) s = fs_->SyncDir(dbname_);
  if (!s.ok()) return s;
  log_ = std::make_unique<log::Writer>(std::move(file), 0, log::Writer::FlushPolicy::kManual);
  return Status::OK();
}

Status DBImpl::RecoverLocked(const std::vector<ColumnFamilyDescriptor>& families,
                             std::vector<const ColumnFamilyDescriptor*>* missing,
                             bool error_if_wal_file_exists) {
  std::vector<ColumnFamilyConfig> configs;
  for (const ColumnFamilyDescriptor& d : families) {
    ColumnFamilyConfig config;
    config.name = d.name;
    config.num_levels = d.options.num_levels;
    configs.push_back(std::move(config));
  }
  bool save_manifest = false;
  // Read-only: the families may be a subset (the others stay out of the VersionSet, which is
  // never written).
  Status s = versions_->Recover(configs, &save_manifest,
                                /*allow_unopened_families=*/read_only_);
  if (!s.ok()) return s;
  // The recovered families, each with its descriptor's options; the named ones the DB lacks.
  const ColumnFamilyOptions* default_options = nullptr;
  for (const ColumnFamilyDescriptor& d : families) {
    if (d.name == kDefaultColumnFamilyName) default_options = &d.options;
  }
  for (const ColumnFamilyDescriptor& d : families) {
    uint32_t id = 0;
    if (!versions_->FindColumnFamily(d.name, &id)) {
      if (read_only_) return Status::InvalidArgument("Column family not found: " + d.name);
      if (!db_options_.create_missing_column_families) {
        return Status::InvalidArgument("Column family not found: " + d.name +
                                       " (create_missing_column_families is false)");
      }
      missing->push_back(&d);
      continue;
    }
    s = CheckFamilyOptions(d.name, d.options, *default_options);
    if (!s.ok()) return s;
    column_families_[id] = NewFamilyLocked(id, d.name, d.options);
  }
  default_cf_ = column_families_.at(0).get();
  if (db_options_.paranoid_checks && !db_options_.skip_checking_sst_file_sizes_on_db_open) {
    s = CheckTableFileSizesLocked();
    if (!s.ok()) return s;
  }
  // Every file in the directory: WALs to replay, and numbers never to reuse.
  std::vector<std::string> children;
  s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  std::vector<uint64_t> wals;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    // Info logs carry a timestamp, not a file number.
    if (type != FileType::kInfoLogFile) versions_->MarkFileNumberUsed(number);
    if (type == FileType::kWalFile &&
        (number >= versions_->MinLogNumber() || number == versions_->PrevLogNumber())) {
      wals.push_back(number);
    }
    if (type == FileType::kTempFile && !read_only_) {
      fs_->DeleteFile(dbname_ + "/" + name).PermitUncheckedError();
    }
  }
  std::sort(wals.begin(), wals.end());
  if (read_only_ && error_if_wal_file_exists && !wals.empty()) {
    return Status::Corruption(
        "The db was opened in readonly mode with error_if_wal_file_exists flag but a WAL file "
        "already exists",
        WalFileName(dbname_, wals.front()));
  }
  RecoveredFamilies recovered;
  s = ReplayWals(wals, &recovered);
  if (!s.ok()) return s;
  if (read_only_) {
    // The replayed writes stay in memory: each family's memtable becomes its active one (with
    // the reference ReplayWals took), writing to no WAL; nothing is logged to the MANIFEST.
    // log_number_ only names the newest WAL replayed: no WAL is ever written.
    log_number_ = wals.empty() ? versions_->MinLogNumber() : wals.back();
    for (const auto& [id, cfd] : column_families_) cfd->mems.SetLogNumber(log_number_);
    for (auto& [id, family] : recovered) {
      if (family.mem == nullptr) continue;
      column_families_.at(id)->mems.Init(family.mem);
      family.mem = nullptr;
    }
    return Status::OK();
  }
  // Everything replayed is now in tables: start a fresh WAL and record, for every family in
  // one atomic MANIFEST write (which also starts the new MANIFEST), its recovered tables and
  // that the old WALs are obsolete.
  const uint64_t wal_number = versions_->NewFileNumber();
  s = StartNewWal(wal_number);
  if (!s.ok()) return s;
  log_number_ = wal_number;
  std::vector<VersionEdit*> edits;
  for (const auto& [id, cfd] : column_families_) {
    VersionEdit& edit = recovered[id].edit;
    edit.SetColumnFamily(id);
    edit.SetLogNumber(wal_number);
    edits.push_back(&edit);
  }
  return edits.size() == 1 ? versions_->LogAndApply(edits[0], &mu_)
                           : versions_->LogAndApply(edits, &mu_);
}

Status DBImpl::CheckTableFileSizesLocked() {
  for (uint32_t id : versions_->ColumnFamilyIds()) {
  Version* v = versions_->current(id);
  for (int level = 0; level < v->num_levels(); level++) {
    for (const FileMetaData* f : v->files(level)) {
      const std::string path = TableFileName(dbname_, f->number);
      uint64_t size = 0;
      Status s = fs_->GetFileSize(path, &size);
      if (!s.ok()) {
        return Status::Corruption(path + ": listed in the MANIFEST but cannot be found",
                                  s.ToString());
      }
      if (size != f->file_size) {
        return Status::Corruption(path + ": size " + std::to_string(size) +
                                  " differs from the MANIFEST's " +
                                  std::to_string(f->file_size));
      }
    }
  }
  }
  return Status::OK();
}

Status DBImpl::ReplayWals(const std::vector<uint64_t>& wals, RecoveredFamilies* families) {
  Status s;
  bool stop = false;
  for (uint64_t number : wals) {
    if (stop) {
      info_log_->Log("WAL #%llu not replayed: an earlier WAL stopped at a corruption",
                     static_cast<unsigned long long>(number));
      continue;
    }
    s = ReplayWal(number, number == wals.back(), families, &stop);
    if (s.ok() && stop) {
      // Point-in-time recovery ends here. A family whose tables already hold this WAL (its
      // log number is above it) has writes from after the damaged record that the others
      // lose: a batch across them would come back torn. Refused, as RocksDB does.
      for (const auto& [id, cfd] : column_families_) {
        if (versions_->LogNumber(id) > number) {
          return Status::Corruption(
              WalFileName(dbname_, number) +
                  ": replay stopped at a damaged record, but column family \"" + cfd->name() +
                  "\" already holds later writes in its tables (the families would disagree)",
              "point-in-time recovery cannot give one consistent point across families");
        }
      }
    }
    if (!s.ok()) break;
  }
  for (auto& [id, family] : *families) {
    // Read-only: the memtables are kept (RecoverLocked installs them), unless the replay
    // failed.
    if (read_only_ && s.ok()) continue;
    if (s.ok() && family.mem != nullptr && family.mem->num_entries() > 0) {
      s = FlushRecoveredMemTable(column_families_.at(id).get(), family.mem, &family.edit);
    }
    if (family.mem != nullptr) family.mem->Unref();
    family.mem = nullptr;
  }
  return s;
}

Status DBImpl::ReplayWal(uint64_t number, bool last, RecoveredFamilies* families, bool* stop) {
  const std::string path = WalFileName(dbname_, number);
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(path, &file);
  if (!s.ok()) return s;
  WalReporter reporter(info_log_.get());
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0,
                     ToLogMode(db_options_.wal_recovery_mode), path);
  std::string_view record;
  std::string scratch;
  uint64_t records = 0;
  SequenceNumber max_sequence = versions_->LastSequence();
  while (reader.ReadRecord(&record, &scratch)) {
    if (record.size() < WriteBatchInternal::kHeader) {
      return Status::Corruption(path + ": WAL record shorter than a batch header");
    }
    WriteBatch batch;
    s = WriteBatchInternal::SetContents(&batch, record);
    if (!s.ok()) return s;
    // A family's records go to its memtable unless its tables already hold this WAL (its log
    // number is above it) or it was dropped (ids are never reused).
    auto mem_for = [&](uint32_t id) -> MemTable* {
      mu_.AssertHeld();  // called by InsertInto in this thread, which holds mu_
      auto it = column_families_.find(id);
      if (it == column_families_.end() || number < versions_->LogNumber(id)) return nullptr;
      RecoveredFamily& family = (*families)[id];
      if (family.mem == nullptr) family.mem = NewMemTable(*it->second);
      return family.mem;
    };
    s = WriteBatchInternal::InsertInto(
        batch, mem_for, /*skip_families_without_memtable=*/true,
        [](uint32_t, SequenceNumber, std::string_view, std::string_view, std::string*) {
          return false;
        });
    if (!s.ok()) return Status::Corruption(path + ": bad batch in WAL", s.ToString());
    const SequenceNumber last =
        WriteBatchInternal::Sequence(batch) + WriteBatchInternal::Count(batch) - 1;
    if (WriteBatchInternal::Count(batch) > 0 && last > max_sequence) max_sequence = last;
    records++;
    for (auto& [id, family] : *families) {
      ColumnFamilyData* cfd = column_families_.at(id).get();
      // Read-only: never flushed; a family's replayed writes all stay in one memtable.
      if (read_only_ || family.mem == nullptr ||
          family.mem->ApproximateMemoryUsage() < cfd->options.write_buffer_size) {
        continue;
      }
      versions_->SetLastSequence(max_sequence);
      s = FlushRecoveredMemTable(cfd, family.mem, &family.edit);
      family.mem->Unref();
      family.mem = nullptr;
      if (!s.ok()) return s;
    }
  }
  if (!reader.status().ok()) return reader.status();
  // A torn tail in a WAL that a newer WAL follows is a write that failed and was never
  // acknowledged: a memtable switch syncs the old WAL before it creates the next one, so only a
  // failed append (after which Resume starts a new WAL) leaves an incomplete record there. It is
  // dropped in every mode; only the last WAL's torn tail (a crash) fails kAbsoluteConsistency.
  if (reader.torn_tail() && last &&
      db_options_.wal_recovery_mode == WALRecoveryMode::kAbsoluteConsistency) {
    return Status::Corruption(path + ": incomplete last record (wal_recovery_mode is "
                                     "kAbsoluteConsistency)");
  }
  *stop = reader.stopped_at_corruption();
  versions_->SetLastSequence(max_sequence);
  info_log_->Log("replayed WAL #%llu: %llu records%s%s", static_cast<unsigned long long>(number),
                 static_cast<unsigned long long>(records),
                 !reader.torn_tail() ? ""
                 : last              ? ", torn tail dropped"
                                     : ", torn tail of a failed write dropped (a newer WAL follows)",
                 *stop ? ", stopped at a corruption (point-in-time recovery)" : "");
  return Status::OK();
}

Status DBImpl::FlushRecoveredMemTable(ColumnFamilyData* cfd, MemTable* mem, VersionEdit* edit) {
  const Options& cf_options = cfd->options;
  FileMetaData meta;
  meta.number = versions_->NewFileNumber();
  BuildTableOptions bopts;
  bopts.table_options = cf_options.table_options;
  bopts.compression = cf_options.compression;
  bopts.compression_level = cf_options.compression_level;
  bopts.merge_operator = cfd->merge_operator();
  bopts.column_family_id = cfd->id();
  bopts.column_family_name = cfd->name();
  std::unique_ptr<InternalIterator> points = mem->NewIterator();
  std::unique_ptr<InternalIterator> range_dels;
  if (mem->num_range_deletes() > 0) range_dels = mem->NewRangeTombstoneIterator();
  // Open is single-threaded: building the table under the mutex blocks nobody.
  Status s = BuildTable(dbname_, fs_, icmp_, bopts, points.get(), range_dels.get(), &meta);
  if (!s.ok()) return s;
  if (meta.file_size > 0) edit->AddFile(0, meta);
  info_log_->Log("recovery [%s]: %llu entries -> table #%llu at L0, %llu bytes",
                 cfd->name().c_str(), static_cast<unsigned long long>(mem->num_entries()),
                 static_cast<unsigned long long>(meta.number),
                 static_cast<unsigned long long>(meta.file_size));
  return Status::OK();
}

Status DBImpl::WriteOptionsFileLocked() {
  const uint64_t number = versions_->NewFileNumber();
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  CollectOptionsLocked(&db_options, &families);
  // Open is single-threaded: writing under the mutex blocks nobody.
  Status s = WriteOptionsFileNumbered(db_options, families, number);
  if (s.ok()) options_file_number_ = number;
  return s;
}

void DBImpl::CollectOptionsLocked(DBOptions* db_options,
                                  std::vector<ColumnFamilyDescriptor>* families) const {
  *db_options = db_options_;
  families->clear();
  for (const auto& [id, cfd] : column_families_) {  // the default family (id 0) first
    families->emplace_back(cfd->name(), static_cast<const ColumnFamilyOptions&>(cfd->options));
  }
}

Status DBImpl::WriteOptionsFileNumbered(const DBOptions& db_options,
                                        const std::vector<ColumnFamilyDescriptor>& families,
                                        uint64_t number) {
  const std::string tmp = TempFileName(dbname_, number);
  const std::string target = OptionsFileName(dbname_, number);
  Status s = WriteOptionsFile(fs_, tmp, db_options, families);
  bool renamed = false;
  if (s.ok()) {
    s = fs_->RenameFile(tmp, target);
    renamed = s.ok();
  }
  if (s.ok()) s = fs_->SyncDir(dbname_);
  if (!s.ok()) {
    // Neither name stays: the previous OPTIONS file remains the latest.
    fs_->DeleteFile(renamed ? target : tmp).PermitUncheckedError();
    return s;
  }
  return Status::OK();
}

Status DestroyDB(const std::string& name, const Options& options) {
  const std::shared_ptr<FileSystem> fs_holder =
      options.file_system != nullptr ? options.file_system : FileSystem::Default();
  FileSystem* fs = fs_holder.get();
  std::vector<std::string> children;
  if (!fs->GetChildren(name, &children).ok()) return Status::OK();  // nothing there
  std::unique_ptr<FileLock> lock;
  Status s = fs->LockFile(LockFileName(name), &lock);
  if (!s.ok()) {
    return Status::IOError("DestroyDB " + name + ": the DB is open (its LOCK is held)",
                           s.ToString());
  }
  Status result;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;  // not the DB's
    if (type == FileType::kLockFile) continue;            // deleted after unlocking
    Status del = fs->DeleteFile(name + "/" + child);
    if (result.ok() && !del.ok()) result = del;
  }
  Status leftovers = RemoveBulkLoadLeftovers(fs, BulkLoadTempDir(name), true);
  if (result.ok() && !leftovers.ok()) result = leftovers;
  fs->UnlockFile(std::move(lock)).PermitUncheckedError();
  fs->DeleteFile(LockFileName(name)).PermitUncheckedError();
  fs->DeleteDir(name).PermitUncheckedError();  // fails, harmlessly, if other files remain
  return result;
}

}  // namespace shale
