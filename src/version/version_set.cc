// VersionSet: counters, LogAndApply and the MANIFEST/CURRENT writes. Recovery is in
// version_set_recover.cc.
#include "version/version_set.h"

#include <cassert>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "util/absl_compat.h"
#include "util/kill_point.h"
#include "version/version_builder.h"

namespace shale {

VersionSet::VersionSet(std::string dbname, FileSystem* fs, const InternalKeyComparator& icmp,
                       int num_levels, const VersionSetOptions& options)
    : dbname_(std::move(dbname)),
      fs_(fs),
      icmp_(icmp),
      num_levels_(num_levels),
      options_(options),
      compact_pointers_(static_cast<size_t>(num_levels)),
      dummy_versions_(&icmp_, 0) {
  assert(num_levels >= 1 && num_levels <= kMaxNumLevels);
  AppendVersion(new Version(&icmp_, num_levels_));
}

VersionSet::~VersionSet() {
  assert(manifest_writers_.empty());
  current_->Unref();
  // Every other version must have been released: they point at icmp_.
  assert(dummy_versions_.next_ == &dummy_versions_);
  // Every record in the MANIFEST was synced when it was written; a close error loses nothing.
  if (descriptor_log_) descriptor_log_->Close().PermitUncheckedError();
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

void VersionSet::AppendVersion(Version* v) {
  assert(v != current_ && v->refs_ >= 0);
  if (current_ != nullptr) current_->Unref();
  current_ = v;
  v->Ref();
  v->prev_ = dummy_versions_.prev_;
  v->next_ = &dummy_versions_;
  v->prev_->next_ = v;
  v->next_->prev_ = v;
}

Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  mu->AssertHeld();
  ManifestWriter w;
  manifest_writers_.push_back(&w);
  while (manifest_writers_.front() != &w) w.cv.Wait(mu);
  Status s = LogAndApplyAtFront(edit, mu);
  manifest_writers_.pop_front();
  if (!manifest_writers_.empty()) manifest_writers_.front()->cv.Signal();
  return s;
}

Status VersionSet::LogAndApplyAtFront(VersionEdit* edit, Mutex* mu) {
  Status s = PrepareEdit(edit);
  if (!s.ok()) return s;
  Version* v = nullptr;
  s = BuildVersion(*edit, &v);
  if (!s.ok()) return s;

  ManifestWrite w;
  w.new_manifest = descriptor_log_ == nullptr ||
                   descriptor_log_->length() >= options_.max_manifest_file_size;
  if (w.new_manifest) w.manifest_number = NewFileNumber();
  w.new_db = manifest_file_number_ == 0;
  edit->SetNextFile(PeekNextFileNumber());
  edit->SetLastSequence(LastAllocatedSequence());
  if (w.new_manifest) EncodeSnapshot(&w.snapshot);
  edit->EncodeTo(&w.record);

  // Only the front of the queue touches descriptor_log_ and the MANIFEST, and nothing else
  // changes current_, so the mutex can be released for the I/O.
  mu->Unlock();
  s = WriteManifest(w);
  mu->Lock();

  if (s.ok()) {
    Install(v, *edit);
    if (w.new_manifest) {
      manifest_file_number_ = w.manifest_number;
      uncertain_files_.clear();  // the new MANIFEST lists exactly the live files
    }
  } else {
    for (const auto& [level, f] : edit->new_files()) uncertain_files_.insert(f.number);
  }
  v->Unref();
  return s;
}

Status VersionSet::PrepareEdit(VersionEdit* edit) {
  if (edit->column_family() != 0) {
    return Status::NotSupported(
        absl::StrCat("LogAndApply: column family ", edit->column_family(), " does not exist"));
  }
  if (!edit->has_log_number()) {
    edit->SetLogNumber(log_number_);
  } else if (edit->log_number() < log_number_ || edit->log_number() >= PeekNextFileNumber()) {
    return Status::InvalidArgument(absl::StrCat(
        "LogAndApply: log number ", edit->log_number(), " outside [", log_number_, ", ",
        PeekNextFileNumber(), ")"));
  }
  if (!edit->has_prev_log_number()) edit->SetPrevLogNumber(prev_log_number_);
  return Status::OK();
}

Status VersionSet::BuildVersion(const VersionEdit& edit, Version** result) {
  VersionBuilder builder(&icmp_, current_);
  Status s = builder.Apply(edit);
  auto* v = new Version(&icmp_, num_levels_);  // refcounted: freed by its last Unref
  v->Ref();
  if (s.ok()) s = builder.SaveTo(v);
  if (!s.ok()) {
    v->Unref();
    return s;
  }
  *result = v;
  return Status::OK();
}

void VersionSet::EncodeSnapshot(std::string* dst) const {
  VersionEdit snapshot;
  snapshot.SetComparatorName(icmp_.user_comparator()->Name());
  snapshot.SetLogNumber(log_number_);
  snapshot.SetPrevLogNumber(prev_log_number_);
  snapshot.SetNextFile(PeekNextFileNumber());
  snapshot.SetLastSequence(LastAllocatedSequence());
  for (int level = 0; level < num_levels_; ++level) {
    if (!compact_pointers_[level].empty()) {
      snapshot.SetCompactPointer(level, compact_pointers_[level]);
    }
    for (const FileMetaData* f : current_->files(level)) snapshot.AddFile(level, *f);
  }
  snapshot.EncodeTo(dst);
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
  Status s = descriptor_log_->AddRecord(w.record);
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
  s = writer->AddRecord(w.snapshot);
  if (s.ok()) s = writer->AddRecord(w.record);
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
  *renamed = false;
  const std::string manifest = DescriptorFileName(dbname_, number);
  const std::string contents = absl::StrCat(manifest.substr(manifest.rfind('/') + 1), "\n");
  const std::string tmp = TempFileName(dbname_, number);
  Status s = WriteStringToFile(fs_, contents, tmp, /*sync=*/true);  // deletes tmp on failure
  if (!s.ok()) return s;
  s = fs_->RenameFile(tmp, CurrentFileName(dbname_));
  if (!s.ok()) {
    fs_->DeleteFile(tmp).PermitUncheckedError();
    return s;
  }
  *renamed = true;
  // Makes the rename and the new MANIFEST's directory entry durable.
  return fs_->SyncDir(dbname_);
}

void VersionSet::Install(Version* v, const VersionEdit& edit) {
  for (const auto& [level, key] : edit.compact_pointers()) compact_pointers_[level] = key;
  log_number_ = edit.log_number();
  prev_log_number_ = edit.prev_log_number();
  AppendVersion(v);
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) const {
  for (const Version* v = dummy_versions_.next_; v != &dummy_versions_; v = v->next_) {
    for (const auto& level : v->files_) {
      for (const FileMetaData* f : level) live->insert(f->number);
    }
  }
  live->insert(uncertain_files_.begin(), uncertain_files_.end());
}

std::string VersionSet::LevelSummary() const {
  std::string r = "files[";
  for (int level = 0; level < num_levels_; ++level) absl::StrAppend(&r, " ", NumLevelFiles(level));
  r.append(" ]");
  return r;
}

}  // namespace shale
