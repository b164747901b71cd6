// VersionSet: counters, LogAndApply and the MANIFEST/CURRENT writes. Recovery is in
// version_set_recover.cc.
#include "version/version_set.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "util/absl_compat.h"
#include "util/kill_point.h"
#include "version/version_builder.h"

namespace shale {

VersionSet::ColumnFamilyData::ColumnFamilyData(uint32_t id_in, std::string name_in,
                                               int num_levels_in,
                                               const InternalKeyComparator* icmp)
    : id(id_in),
      name(std::move(name_in)),
      num_levels(num_levels_in),
      compact_pointers(static_cast<size_t>(num_levels_in)),
      dummy_versions(new Version(icmp, 0)) {}

VersionSet::ColumnFamilyData::~ColumnFamilyData() {
  // Every version of the family has been released (they unlink themselves from the list).
  assert(current == nullptr);
  assert(dummy_versions->next_ == dummy_versions);
  delete dummy_versions;
}

VersionSet::VersionSet(std::string dbname, FileSystem* fs, const InternalKeyComparator& icmp,
                       int num_levels, const VersionSetOptions& options)
    : dbname_(std::move(dbname)),
      fs_(fs),
      icmp_(icmp),
      num_levels_(num_levels),
      options_(options) {
  assert(num_levels >= 1 && num_levels <= kMaxNumLevels);
  auto cfd = std::make_unique<ColumnFamilyData>(
      kDefaultColumnFamilyId, std::string(kDefaultColumnFamilyName), num_levels_, &icmp_);
  AppendVersion(cfd.get(), new Version(&icmp_, num_levels_));
  column_families_.emplace(kDefaultColumnFamilyId, std::move(cfd));
}

VersionSet::~VersionSet() {
  assert(manifest_writers_.empty());
  for (auto& [id, cfd] : column_families_) {
    cfd->current->Unref();
    cfd->current = nullptr;
  }
  // Every other version must have been released (they point at icmp_): the destructors of
  // the families assert it.
  column_families_.clear();
  dropped_families_.clear();
  // Every record in the MANIFEST was synced when it was written; a close error loses nothing.
  if (descriptor_log_) descriptor_log_->Close().PermitUncheckedError();
}

VersionSet::ColumnFamilyData* VersionSet::Family(uint32_t id) const {
  auto it = column_families_.find(id);
  assert(it != column_families_.end());
  return it->second.get();
}

bool VersionSet::FindColumnFamily(std::string_view name, uint32_t* id) const {
  for (const auto& [cf_id, cfd] : column_families_) {
    if (cfd->name == name) {
      *id = cf_id;
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> VersionSet::ColumnFamilyIds() const {
  std::vector<uint32_t> ids;
  ids.reserve(column_families_.size());
  for (const auto& [id, cfd] : column_families_) ids.push_back(id);
  return ids;
}

uint64_t VersionSet::MinLogNumber() const {
  uint64_t min = UINT64_MAX;
  for (const auto& [id, cfd] : column_families_) min = std::min(min, cfd->log_number);
  return min;  // the default family is always live
}

void VersionSet::MarkFileNumberUsed(uint64_t number) {
  uint64_t next = next_file_number_.load(std::memory_order_relaxed);
  while (next <= number &&
         !next_file_number_.compare_exchange_weak(next, number + 1, std::memory_order_relaxed)) {
  }
}

void VersionSet::SetLastSequence(SequenceNumber s) {
  assert(s >= LastSequence());
  SequenceNumber allocated = last_allocated_sequence_.load(std::memory_order_relaxed);
  while (allocated < s && !last_allocated_sequence_.compare_exchange_weak(
                              allocated, s, std::memory_order_acq_rel)) {
  }
  last_sequence_.store(s, std::memory_order_release);
}

void VersionSet::AppendVersion(ColumnFamilyData* cfd, Version* v) {
  assert(v != cfd->current && v->refs_ >= 0);
  if (cfd->current != nullptr) cfd->current->Unref();
  cfd->current = v;
  v->Ref();
  Version* head = cfd->dummy_versions;
  v->prev_ = head->prev_;
  v->next_ = head;
  v->prev_->next_ = v;
  v->next_->prev_ = v;
}

void VersionSet::FreeReleasedFamilies() {
  std::erase_if(dropped_families_, [](const std::unique_ptr<ColumnFamilyData>& cfd) {
    return cfd->dummy_versions->next_ == cfd->dummy_versions;
  });
}

template <typename F>
Status VersionSet::RunQueued(Mutex* mu, F&& at_front) {
  mu->AssertHeld();
  ManifestWriter w;
  manifest_writers_.push_back(&w);
  while (manifest_writers_.front() != &w) w.cv.Wait(mu);
  FreeReleasedFamilies();
  Status s = at_front();
  manifest_writers_.pop_front();
  if (!manifest_writers_.empty()) manifest_writers_.front()->cv.Signal();
  return s;
}

Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  return RunQueued(mu, [&] {
    mu->AssertHeld();  // RunQueued runs this with *mu held
    return LogAndApplyAtFront({edit}, /*atomic_group=*/false, mu);
  });
}

Status VersionSet::LogAndApply(const std::vector<VersionEdit*>& edits, Mutex* mu) {
  return RunQueued(mu, [&] {
    mu->AssertHeld();  // RunQueued runs this with *mu held
    return LogAndApplyAtFront(edits, /*atomic_group=*/true, mu);
  });
}

Status VersionSet::CreateColumnFamily(const ColumnFamilyConfig& config, uint64_t log_number,
                                      Mutex* mu, uint32_t* id) {
  return RunQueued(mu, [&] {
    mu->AssertHeld();  // RunQueued runs this with *mu held
    return CreateColumnFamilyAtFront(config, log_number, mu, id);
  });
}

Status VersionSet::DropColumnFamily(uint32_t id, Mutex* mu) {
  return RunQueued(mu, [&] {
    mu->AssertHeld();  // RunQueued runs this with *mu held
    return DropColumnFamilyAtFront(id, mu);
  });
}

Status VersionSet::LogAndApplyAtFront(const std::vector<VersionEdit*>& edits, bool atomic_group,
                                      Mutex* mu) {
  if (edits.empty()) return Status::InvalidArgument("LogAndApply: no edits");
  std::vector<ColumnFamilyData*> families;
  families.reserve(edits.size());
  for (VersionEdit* edit : edits) {
    auto it = column_families_.find(edit->column_family());
    if (it == column_families_.end()) {
      return Status::InvalidArgument(absl::StrCat(
          "LogAndApply: column family ", edit->column_family(), " does not exist"));
    }
    for (const ColumnFamilyData* other : families) {
      if (other == it->second.get()) {
        return Status::InvalidArgument(absl::StrCat(
            "LogAndApply: two edits of an atomic group for column family ", other->id));
      }
    }
    families.push_back(it->second.get());
  }
  std::vector<Version*> versions;
  Status s;
  for (size_t i = 0; i < edits.size() && s.ok(); ++i) {
    s = PrepareEdit(families[i], edits[i]);
    Version* v = nullptr;
    if (s.ok()) s = BuildVersion(families[i], *edits[i], &v);
    if (s.ok()) versions.push_back(v);
  }
  if (s.ok()) {
    for (size_t i = 0; i < edits.size(); ++i) {
      if (atomic_group) {
        edits[i]->MarkAtomicGroup(static_cast<uint32_t>(edits.size() - 1 - i));
      } else {
        edits[i]->ClearAtomicGroup();
      }
    }
  }
  if (s.ok()) s = WriteEdits(edits, mu);
  // The families cannot have been dropped meanwhile: only the front of the queue drops.
  if (s.ok()) {
    for (size_t i = 0; i < edits.size(); ++i) Install(families[i], versions[i], *edits[i]);
  }
  for (Version* v : versions) v->Unref();
  return s;
}

Status VersionSet::CreateColumnFamilyAtFront(const ColumnFamilyConfig& config,
                                             uint64_t log_number, Mutex* mu, uint32_t* id) {
  if (config.name.empty()) {
    return Status::InvalidArgument("CreateColumnFamily: the column family name is empty");
  }
  if (config.num_levels < 1 || config.num_levels > kMaxNumLevels) {
    return Status::InvalidArgument(absl::StrCat(
        "CreateColumnFamily: num_levels ", config.num_levels, " for column family ",
        config.name, " is outside [1, ", kMaxNumLevels, "]"));
  }
  uint32_t existing;
  if (FindColumnFamily(config.name, &existing)) {
    return Status::InvalidArgument(absl::StrCat("CreateColumnFamily: column family ",
                                                config.name, " exists (id ", existing, ")"));
  }
  if (log_number >= PeekNextFileNumber()) {
    return Status::InvalidArgument(absl::StrCat("CreateColumnFamily: log number ", log_number,
                                                " is not below the next file number ",
                                                PeekNextFileNumber()));
  }
  if (max_column_family_ == UINT32_MAX) {
    return Status::InvalidArgument("CreateColumnFamily: every column family id has been used");
  }
  const uint32_t new_id = max_column_family_ + 1;
  VersionEdit edit;
  edit.SetColumnFamily(new_id);
  edit.AddColumnFamily(config.name);
  edit.SetLogNumber(log_number);
  edit.SetPrevLogNumber(prev_log_number_);
  edit.SetMaxColumnFamily(new_id);
  // Used from now on, even if the write fails: a later Recover may find the record.
  max_column_family_ = new_id;
  Status s = WriteEdits({&edit}, mu);
  if (!s.ok()) return s;
  auto cfd = std::make_unique<ColumnFamilyData>(new_id, config.name, config.num_levels, &icmp_);
  cfd->log_number = log_number;
  AppendVersion(cfd.get(), new Version(&icmp_, config.num_levels));
  column_families_.emplace(new_id, std::move(cfd));
  *id = new_id;
  return Status::OK();
}

Status VersionSet::DropColumnFamilyAtFront(uint32_t id, Mutex* mu) {
  if (id == kDefaultColumnFamilyId) {
    return Status::InvalidArgument("DropColumnFamily: the default column family cannot be dropped");
  }
  if (!ColumnFamilyExists(id)) {
    return Status::InvalidArgument(
        absl::StrCat("DropColumnFamily: column family ", id, " does not exist"));
  }
  VersionEdit edit;
  edit.SetColumnFamily(id);
  edit.DropColumnFamily();
  edit.SetPrevLogNumber(prev_log_number_);
  Status s = WriteEdits({&edit}, mu);
  if (!s.ok()) return s;
  auto it = column_families_.find(id);
  std::unique_ptr<ColumnFamilyData> cfd = std::move(it->second);
  column_families_.erase(it);
  Version* current = cfd->current;
  cfd->current = nullptr;
  current->Unref();  // the family's versions now live only as long as their readers need them
  dropped_families_.push_back(std::move(cfd));
  FreeReleasedFamilies();
  return Status::OK();
}

Status VersionSet::WriteEdits(const std::vector<VersionEdit*>& edits, Mutex* mu) {
  ManifestWrite w;
  w.new_manifest = descriptor_log_ == nullptr ||
                   descriptor_log_->length() >= options_.max_manifest_file_size;
  if (w.new_manifest) w.manifest_number = NewFileNumber();
  w.new_db = manifest_file_number_ == 0;
  for (VersionEdit* edit : edits) {
    edit->SetNextFile(PeekNextFileNumber());
    edit->SetLastSequence(LastAllocatedSequence());
  }
  if (w.new_manifest) EncodeSnapshot(&w.snapshot);
  for (const VersionEdit* edit : edits) edit->EncodeTo(&w.records.emplace_back());

  // Only the front of the queue touches descriptor_log_, the MANIFEST and the families, so the
  // mutex can be released for the I/O.
  mu->Unlock();
  Status s = WriteManifest(w);
  mu->Lock();

  if (s.ok()) {
    if (w.new_manifest) {
      manifest_file_number_ = w.manifest_number;
      uncertain_files_.clear();  // the new MANIFEST lists exactly the live files
    }
  } else {
    for (const VersionEdit* edit : edits) {
      for (const auto& [level, f] : edit->new_files()) uncertain_files_.insert(f.number);
    }
  }
  return s;
}

Status VersionSet::PrepareEdit(ColumnFamilyData* cfd, VersionEdit* edit) {
  if (edit->is_column_family_add() || edit->is_column_family_drop() ||
      edit->has_max_column_family()) {
    return Status::InvalidArgument(absl::StrCat(
        "LogAndApply: the edit for column family ", cfd->id,
        " adds or drops a family or sets the max column family (use CreateColumnFamily and "
        "DropColumnFamily)"));
  }
  if (!edit->has_log_number()) {
    edit->SetLogNumber(cfd->log_number);
  } else if (edit->log_number() < cfd->log_number ||
             edit->log_number() >= PeekNextFileNumber()) {
    return Status::InvalidArgument(absl::StrCat(
        "LogAndApply: log number ", edit->log_number(), " of column family ", cfd->id,
        " outside [", cfd->log_number, ", ", PeekNextFileNumber(), ")"));
  }
  if (!edit->has_prev_log_number()) edit->SetPrevLogNumber(prev_log_number_);
  return Status::OK();
}

Status VersionSet::BuildVersion(ColumnFamilyData* cfd, const VersionEdit& edit,
                                Version** result) {
  VersionBuilder builder(&icmp_, cfd->current);
  Status s = builder.Apply(edit);
  auto* v = new Version(&icmp_, cfd->num_levels);  // refcounted: freed by its last Unref
  v->Ref();
  if (s.ok()) s = builder.SaveTo(v);
  if (!s.ok()) {
    v->Unref();
    return s;
  }
  *result = v;
  return Status::OK();
}

void VersionSet::EncodeSnapshot(std::vector<std::string>* records) const {
  for (const auto& [id, cfd] : column_families_) {
    VersionEdit snapshot;
    snapshot.SetColumnFamily(id);
    if (id == kDefaultColumnFamilyId) {
      // The DB's own fields go with the default family's record, which comes first.
      snapshot.SetComparatorName(icmp_.user_comparator()->Name());
      snapshot.SetPrevLogNumber(prev_log_number_);
      snapshot.SetNextFile(PeekNextFileNumber());
      snapshot.SetLastSequence(LastAllocatedSequence());
      // Left out while only the default family was ever used, so such a DB stays readable by
      // a reader that predates column families.
      if (max_column_family_ > 0) snapshot.SetMaxColumnFamily(max_column_family_);
    } else {
      snapshot.AddColumnFamily(cfd->name);
    }
    snapshot.SetLogNumber(cfd->log_number);
    for (int level = 0; level < cfd->num_levels; ++level) {
      if (!cfd->compact_pointers[level].empty()) {
        snapshot.SetCompactPointer(level, cfd->compact_pointers[level]);
      }
      for (const FileMetaData* f : cfd->current->files(level)) snapshot.AddFile(level, *f);
    }
    snapshot.EncodeTo(&records->emplace_back());
  }
}

Status VersionSet::WriteManifest(const ManifestWrite& w) {
  if (w.new_manifest) {
    if (descriptor_log_) {
      // Every record of the old MANIFEST was synced when written: a close error loses nothing.
      descriptor_log_->Close().PermitUncheckedError();
      descriptor_log_.reset();
    }
    return WriteNewManifest(w);
  }
  Status s;
  for (const std::string& record : w.records) {
    s = descriptor_log_->AddRecord(record);
    if (!s.ok()) break;
  }
  if (s.ok()) SHALE_KILL_POINT("manifest.record_appended");
  if (s.ok()) s = descriptor_log_->Sync();
  if (s.ok()) SHALE_KILL_POINT("manifest.record_synced");
  if (!s.ok()) {
    // The record may be half written: never append to this MANIFEST again.
    descriptor_log_->Close().PermitUncheckedError();
    descriptor_log_.reset();
  }
  return s;
}

Status VersionSet::WriteNewManifest(const ManifestWrite& w) {
  if (w.new_db) {
    const std::string current = CurrentFileName(dbname_);
    Status exists = fs_->FileExists(current);
    if (exists.ok()) {
      return Status::InvalidArgument(current, "exists: recover the DB before changing it");
    }
    if (!exists.IsNotFound() && !exists.IsPathNotFound()) return exists;
  }
  const std::string path = DescriptorFileName(dbname_, w.manifest_number);
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  auto writer = std::make_unique<log::Writer>(std::move(file));
  for (const std::string& record : w.snapshot) {
    if (s.ok()) s = writer->AddRecord(record);
  }
  for (const std::string& record : w.records) {
    if (s.ok()) s = writer->AddRecord(record);
  }
  if (s.ok()) s = writer->Sync();
  if (s.ok()) SHALE_KILL_POINT("manifest.new_synced");
  bool renamed = false;
  if (s.ok()) s = InstallCurrentFile(w.manifest_number, &renamed);
  if (!s.ok()) {
    writer->Close().PermitUncheckedError();
    // Once CURRENT names it, the new MANIFEST may be what a restart finds: keep it.
    if (!renamed) fs_->DeleteFile(path).PermitUncheckedError();
    return s;
  }
  descriptor_log_ = std::move(writer);
  return Status::OK();
}

Status VersionSet::InstallCurrentFile(uint64_t number, bool* renamed) {
  return SetCurrentFile(fs_, dbname_, number, renamed);
}

Status VersionSet::SetCurrentFile(FileSystem* fs, const std::string& dbname, uint64_t number,
                                  bool* renamed) {
  *renamed = false;
  const std::string manifest = DescriptorFileName(dbname, number);
  const std::string contents = absl::StrCat(manifest.substr(manifest.rfind('/') + 1), "\n");
  const std::string tmp = TempFileName(dbname, number);
  Status s = WriteStringToFile(fs, contents, tmp, /*sync=*/true);  // deletes tmp on failure
  if (!s.ok()) return s;
  s = fs->RenameFile(tmp, CurrentFileName(dbname));
  if (!s.ok()) {
    fs->DeleteFile(tmp).PermitUncheckedError();
    return s;
  }
  *renamed = true;
  // Makes the rename and the new MANIFEST's directory entry durable.
  return fs->SyncDir(dbname);
}

void VersionSet::Install(ColumnFamilyData* cfd, Version* v, const VersionEdit& edit) {
  for (const auto& [level, key] : edit.compact_pointers()) cfd->compact_pointers[level] = key;
  cfd->log_number = edit.log_number();
  prev_log_number_ = edit.prev_log_number();
  AppendVersion(cfd, v);
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) const {
  auto add_family = [live](const ColumnFamilyData& cfd) {
    for (const Version* v = cfd.dummy_versions->next_; v != cfd.dummy_versions; v = v->next_) {
      for (const auto& level : v->files_) {
        for (const FileMetaData* f : level) live->insert(f->number);
      }
    }
  };
  for (const auto& [id, cfd] : column_families_) add_family(*cfd);
  for (const auto& cfd : dropped_families_) add_family(*cfd);
  live->insert(uncertain_files_.begin(), uncertain_files_.end());
}

void VersionSet::ReleaseTablePinsOfUnreadFiles(
    const Version* dropping, std::vector<std::shared_ptr<const CachedTable>>* released) {
  std::vector<const ColumnFamilyData*> families;
  for (const auto& [id, cfd] : column_families_) families.push_back(cfd.get());
  for (const auto& cfd : dropped_families_) families.push_back(cfd.get());
  // A pin may be in use while any referenced Version lists its file.
  absl::flat_hash_set<const FileMetaData*> read;
  for (const ColumnFamilyData* cfd : families) {
    for (const Version* v = cfd->dummy_versions->next_; v != cfd->dummy_versions; v = v->next_) {
      const int own_refs = (v == cfd->current ? 1 : 0) + (v == dropping ? 1 : 0);
      if (v->refs_ <= own_refs) continue;
      for (const auto& level : v->files_) read.insert(level.begin(), level.end());
    }
  }
  for (const ColumnFamilyData* cfd : families) {
    for (const Version* v = cfd->dummy_versions->next_; v != cfd->dummy_versions; v = v->next_) {
      for (const auto& level : v->files_) {
        for (FileMetaData* f : level) {
          if (read.contains(f)) continue;
          if (auto table = f->table_pin.Release()) released->push_back(std::move(table));
        }
      }
    }
  }
}

std::string VersionSet::LevelSummary(uint32_t cf) const {
  std::string r = "files[";
  for (int level = 0; level < num_levels(cf); ++level) {
    absl::StrAppend(&r, " ", NumLevelFiles(level, cf));
  }
  r.append(" ]");
  return r;
}

}  // namespace shale
