// DBImpl: background work. Flushes of immutable memtables (one at a time, oldest first),
// the sticky background error, and deleting files that nothing refers to any more.
#include <algorithm>
#include <chrono>

#include "base/filename.h"
#include "compaction/build_table.h"
#include "db/db_impl.h"
#include "util/kill_point.h"

namespace shale {

ColumnFamilyData* DBImpl::NextFamilyToFlushLocked() const {
  // The family whose oldest immutable memtable started the earliest WAL: its flush frees the
  // oldest WAL soonest.
  ColumnFamilyData* next = nullptr;
  for (const auto& [id, cfd] : column_families_) {
    if (cfd->mems.NumImmutable() == 0) continue;
    if (next == nullptr ||
        cfd->mems.Oldest().next_log_number < next->mems.Oldest().next_log_number) {
      next = cfd.get();
    }
  }
  return next;
}

void DBImpl::MaybeScheduleFlushLocked() {
  if (flush_scheduled_ || !bg_error_.ok() || shutting_down_ ||
      NextFamilyToFlushLocked() == nullptr) {
    return;
  }
  flush_scheduled_ = true;
  flush_pool_->Schedule([this] { BackgroundFlushCall(); }, ThreadPool::Priority::kHigh);
}

std::vector<ColumnFamilyData*> DBImpl::FlushGroupLocked(ColumnFamilyData* next) const {
  if (!db_options_.atomic_flush) return {next};
  // With atomic_flush every family's memtables are retired together (SwitchMemTable), so the
  // oldest immutable memtables of one switch share their next_log_number: flushed and
  // installed as one.
  std::vector<ColumnFamilyData*> group;
  const uint64_t number = next->mems.Oldest().next_log_number;
  for (const auto& [id, cfd] : column_families_) {
    if (cfd->mems.NumImmutable() > 0 && cfd->mems.Oldest().next_log_number == number) {
      group.push_back(cfd.get());
    }
  }
  return group;
}

void DBImpl::BackgroundFlushCall() {
  std::vector<MemTable*> to_unref;
  std::vector<SuperVersion*> old_svs;
  bool flushed = false;
  uint64_t job = 0;  // this job's number in flush_jobs_installed_, once installed
  {
    MutexLock lock(&mu_);
    ColumnFamilyData* cfd = bg_error_.ok() ? NextFamilyToFlushLocked() : nullptr;
    if (cfd != nullptr) {
      Status s = FlushLocked(FlushGroupLocked(cfd), &to_unref, &old_svs);
      if (!s.ok()) RecordBackgroundErrorLocked(s, "flush");
      flushed = s.ok();
      if (flushed) job = ++flush_jobs_installed_;
    }
    flush_scheduled_ = false;
    MaybeScheduleFlushLocked();
    if (flushed) MaybeScheduleCompactionLocked();
    bg_cv_.SignalAll();
  }
  for (SuperVersion* sv : old_svs) UnrefSuperVersion(sv);
  for (MemTable* m : to_unref) m->Unref();
  if (!flushed) return;
  SHALE_KILL_POINT("flush.manifest_written");
  DeleteObsoleteFiles();
  // The Flush(wait) callers of this job return now (WaitForFlushLocked): the files it left
  // obsolete are gone. Close joins this thread before the DB goes away.
  MutexLock lock(&mu_);
  flush_jobs_swept_ = std::max(flush_jobs_swept_, job);
  bg_cv_.SignalAll();
}

Status DBImpl::FlushLocked(const std::vector<ColumnFamilyData*>& families,
                           std::vector<MemTable*>* to_unref, std::vector<SuperVersion*>* old_svs) {
  // One family's part: its oldest immutable memtable and the table built from it. The
  // families stay alive (a drop waits for no flush) while the mutex is released below.
  struct Part {
    std::shared_ptr<ColumnFamilyData> cfd;
    MemTableSet::Immutable imm;
    FileMetaData meta;
    int level = 0;
    uint64_t entries = 0;
    uint64_t micros = 0;
    VersionEdit edit;
  };
  std::vector<Part> parts(families.size());
  Status s;
  for (size_t i = 0; i < families.size(); i++) {
    Part& p = parts[i];
    p.cfd = column_families_.at(families[i]->id());
    p.imm = p.cfd->mems.Oldest();
    p.entries = p.imm.mem->num_entries();
    p.meta.number = versions_->NewFileNumber();
    pending_outputs_.insert(p.meta.number);
  }
  for (Part& p : parts) {
    if (!s.ok()) break;
    const auto start = std::chrono::steady_clock::now();
    const Options& cf_options = p.cfd->options;
    BuildTableOptions bopts;
    bopts.table_options = cf_options.table_options;
    bopts.compression = cf_options.compression;
    bopts.compression_level = cf_options.compression_level;
    bopts.snapshots = snapshots_.All();
    bopts.merge_operator = p.cfd->merge_operator();
    bopts.column_family_id = p.cfd->id();
    bopts.column_family_name = p.cfd->name();
    mu_.Unlock();
    std::unique_ptr<InternalIterator> points = p.imm.mem->NewIterator();
    std::unique_ptr<InternalIterator> range_dels;
    if (p.imm.mem->num_range_deletes() > 0) range_dels = p.imm.mem->NewRangeTombstoneIterator();
    s = BuildTable(dbname_, fs_, icmp_, bopts, points.get(), range_dels.get(), &p.meta);
    if (s.ok()) SHALE_KILL_POINT("flush.table_synced");
    mu_.Lock();
    p.micros = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count();
  }
  // The edits: each family's new table and log number, and (see below) the idle families'.
  std::vector<std::pair<ColumnFamilyData*, uint64_t>> ranges;
  if (s.ok()) {
    for (Part& p : parts) {
      if (p.cfd->dropped || p.meta.file_size == 0) continue;
      // The lowest level whose range, and every level above it, holds none of the file's
      // keys: sorted loads go straight to the bottom and are never rewritten.
      p.level = PickFlushLevelLocked(*p.cfd, ExtractUserKey(p.meta.smallest),
                                     ExtractUserKey(p.meta.largest));
      p.edit.AddFile(p.level, p.meta);
      ranges.emplace_back(p.cfd.get(),
                          AddPendingRangeLocked(p.cfd.get(), p.level,
                                                ExtractUserKey(p.meta.smallest),
                                                ExtractUserKey(p.meta.largest)));
    }
    // A family dropped while the edits wait for the MANIFEST makes the VersionSet refuse the
    // whole write (before any I/O): it is then made again without that family, a few times
    // at most (each retry follows a drop).
    for (int attempt = 0; attempt < 8; attempt++) {
      std::vector<VersionEdit*> edits;
      std::vector<uint32_t> ids;
      for (Part& p : parts) {
        if (p.cfd->dropped) continue;  // its table is obsolete, its data gone with the family
        p.edit.SetColumnFamily(p.cfd->id());
        p.edit.SetLogNumber(p.imm.next_log_number);
        edits.push_back(&p.edit);
        ids.push_back(p.cfd->id());
      }
      // Families with nothing in memory need no WAL below the one being written: their log
      // numbers move with this write (one MANIFEST write), so an idle family does not keep
      // old WALs alive. (A write racing this check goes to the WAL being written, at or above
      // the new log number, so it is replayed.)
      std::vector<VersionEdit> idle;
      idle.reserve(column_families_.size());
      for (const auto& [id, other] : column_families_) {
        bool flushing = false;
        for (const Part& p : parts) flushing = flushing || p.cfd == other;
        if (flushing || other->mems.NumImmutable() > 0 || other->mems.mem()->num_entries() > 0 ||
            other->mems.HasUnloggedWrites() || versions_->LogNumber(id) >= log_number_) {
          continue;
        }
        idle.emplace_back();
        idle.back().SetColumnFamily(id);
        idle.back().SetLogNumber(log_number_);
        ids.push_back(id);
      }
      for (VersionEdit& e : idle) edits.push_back(&e);
      if (edits.empty()) break;
      s = edits.size() == 1 ? versions_->LogAndApply(edits[0], &mu_)
                            : versions_->LogAndApply(edits, &mu_);
      if (s.ok() || !s.IsInvalidArgument()) break;
      bool any_gone = false;
      for (uint32_t id : ids) any_gone = any_gone || column_families_.count(id) == 0;
      if (!any_gone) break;  // refused for another reason: reported below
      // Refused because a family went: made again without it (s stays the refusal if the
      // attempts run out, so nothing is installed without its MANIFEST record).
    }
    for (const auto& [cfd, id] : ranges) RemovePendingRangeLocked(cfd, id);
  }
  for (Part& p : parts) pending_outputs_.erase(p.meta.number);
  // A family dropped while its table was built or its edit waited (the MANIFEST then refused
  // the edit): nothing of it is installed, and its memtable goes.
  bool all_dropped = true;
  for (Part& p : parts) {
    if (p.cfd->dropped) {
      to_unref->push_back(p.cfd->mems.RemoveOldest(p.imm.mem));
    } else {
      all_dropped = false;
    }
  }
  if (all_dropped) return Status::OK();

  if (!s.ok()) {
    if (info_log_) {
      for (const Part& p : parts) {
        info_log_->Log("flush [%s] of %llu entries to table #%llu failed: %s",
                       p.cfd->name().c_str(), static_cast<unsigned long long>(p.entries),
                       static_cast<unsigned long long>(p.meta.number), s.ToString().c_str());
      }
    }
    return s;
  }
  for (Part& p : parts) {
    if (p.cfd->dropped) continue;
    ColumnFamilyData* cfd = p.cfd.get();
    // The memtable is the oldest, and nothing else removes from the family's set.
    to_unref->push_back(cfd->mems.RemoveOldest(p.imm.mem));
    SuperVersion* old = InstallSuperVersionLocked(cfd);
    if (old != nullptr) old_svs->push_back(old);
    cfd->flush_stats.flushes++;
    cfd->flush_stats.bytes_written += p.meta.file_size;
    cfd->flush_stats.micros += p.micros;
    if (p.level > 0) cfd->flush_stats.files_to_lower_levels++;
    RecordTick(FLUSH_WRITE_BYTES, p.meta.file_size);
    if (statistics_ != nullptr) statistics_->measureTime(FLUSH_TIME, p.micros);
    if (info_log_) {
      info_log_->Log("flush [%s]: %llu entries -> table #%llu at L%d, %llu bytes, %.3f s; %s%s",
                     cfd->name().c_str(), static_cast<unsigned long long>(p.entries),
                     static_cast<unsigned long long>(p.meta.number), p.level,
                     static_cast<unsigned long long>(p.meta.file_size), p.micros / 1e6,
                     versions_->LevelSummary(cfd->id()).c_str(),
                     parts.size() > 1 ? " (atomic flush)" : "");
    }
  }
  return Status::OK();
}

Status DBImpl::WaitForFlushLocked(ColumnFamilyData* cfd, uint64_t up_to_log_number) {
  // Memtables retired at or before `up_to_log_number` have next_log_number <= it.
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    if (cfd->dropped || !cfd->mems.HasImmutableUpTo(up_to_log_number)) break;
    // Close schedules no more flushes.
    if (shutting_down_) return Status::ShutdownInProgress("the DB is closing");
    bg_cv_.Wait(&mu_);
  }
  // Flushed. The job that did it is one of those installed so far: once they have all swept,
  // the WALs it left obsolete are deleted (flush_jobs_swept_). Not waited for: a sweep that
  // deletes nothing while file deletions are disabled, and one Close will not wait for.
  const uint64_t installed = flush_jobs_installed_;
  while (flush_jobs_swept_ < installed && file_deletions_disabled_ == 0 && !shutting_down_ &&
         bg_error_.ok()) {
    bg_cv_.Wait(&mu_);
  }
  return Status::OK();
}

Status DBImpl::WaitUntilFlushWouldNotStallLocked(ColumnFamilyData* cfd, bool* flush_needed) {
  *flush_needed = true;
  MemTableSet& mems = cfd->mems;
  // The active memtable now is the next to retire.
  const uint64_t active_retires_as = mems.retired_count() + 1;
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    if (shutting_down_) return Status::ShutdownInProgress("the DB is closing");
    if (mems.flushed_count() >= active_retires_as) {
      *flush_needed = false;  // someone else's flush took it
      return Status::OK();
    }
    if (cfd->dropped) return Status::InvalidArgument("Flush: the column family was dropped");
    const Options& cf_options = cfd->options;
    Version* v = versions_->current(cfd->id());
    WriteController::TreeShape shape;
    shape.l0_files = v->NumFiles(0);
    shape.immutable_memtables = static_cast<int>(mems.NumImmutable());
    if (shape.immutable_memtables == 0 &&
        shape.l0_files < cf_options.level0_file_num_compaction_trigger) {
      return Status::OK();
    }
    if (cfd->picker != nullptr) {
      shape.pending_compaction_bytes = cfd->picker->EstimatePendingCompactionBytes(*v, cf_options);
    }
    // What the write controller would say after this flush: one more immutable memtable, then
    // one more L0 file. The L0 part (NumFiles(0) + 1 >= level0_slowdown_writes_trigger) MUST
    // agree with the level picker's "urgent L0" (compaction/level_compaction_picker.cc), which
    // then compacts L0 before every other level, so this wait is not behind deeper levels.
    shape.l0_files++;
    shape.immutable_memtables++;
    WriteController probe;  // a fresh one: only its state is wanted
    probe.Update(cf_options, shape);
    if (probe.state() == WriteController::State::kNormal) return Status::OK();
    // Only background work lifts the condition: with none scheduled or running (e.g. FIFO,
    // whose L0 never shrinks unless it deletes files), waiting would never end.
    if (!flush_scheduled_ && bg_compactions_scheduled_ == 0 && manual_compactions_ == 0) {
      return Status::OK();
    }
    bg_cv_.Wait(&mu_);
  }
}

void DBImpl::RecordBackgroundErrorLocked(const Status& s, const char* where) {
  if (s.ok() || !bg_error_.ok()) return;
  bg_error_ = s;
  bg_errors_recorded_++;
  if (info_log_) {
    info_log_->Log("background error in %s: %s; the DB is read-only until Resume()", where,
                   s.ToString().c_str());
  }
  bg_cv_.SignalAll();
}

Status DBImpl::ResumeAtFrontLocked() {
  if (bg_error_.ok()) return Status::OK();  // another Resume got here first
  if (log_ == nullptr || !log_->status().ok() || log_->file() == nullptr) {
    // The WAL failed (it may end in a half-written record) or was closed by a failed switch.
    Status s = ReplaceFailedWalLocked();
    if (!s.ok()) return s;  // the background error stays
  }
  // The MANIFEST is rewritten from the state in memory before writes come back: a failed
  // MANIFEST write (say the sync of a column family's drop or creation, whose record may be
  // on disk while the change did not happen here) must not be what a reopen finds once
  // writes the DB went on to acknowledge depend on the state here (issue 23 review,
  // finding 1). After such a failure the VersionSet starts a new MANIFEST, a snapshot of this
  // state; otherwise this appends an empty edit.
  {
    VersionEdit edit;
    Status s = versions_->LogAndApply(&edit, &mu_);
    if (!s.ok()) {
      info_log_->Log("Resume: writing the MANIFEST failed: %s", s.ToString().c_str());
      return s;  // the background error stays
    }
  }
  info_log_->Log("Resume: clearing background error %s", bg_error_.ToString().c_str());
  bg_error_ = Status::OK();
  MaybeScheduleFlushLocked();
  MaybeScheduleCompactionLocked();
  return Status::OK();
}

Status DBImpl::ReplaceFailedWalLocked() {
  const uint64_t number = versions_->NewFileNumber();
  const std::string path = WalFileName(dbname_, number);
  std::unique_ptr<WritableFile> file;
  mu_.Unlock();
  Status s = fs_->NewWalFile(path, &file);
  if (s.ok()) s = fs_->SyncDir(dbname_);  // sync writes to the new WAL need its entry durable
  if (!s.ok() && file != nullptr) {
    file->Close().PermitUncheckedError();
    fs_->DeleteFile(path).PermitUncheckedError();
  }
  // The old WAL is not trusted any more: the flush below makes its writes durable instead.
  if (s.ok() && log_ != nullptr && log_->file() != nullptr) log_->Close().PermitUncheckedError();
  mu_.Lock();
  if (!s.ok()) return s;
  log_ = std::make_unique<log::Writer>(std::move(file), 0, log::Writer::FlushPolicy::kManual);
  log_number_ = number;
  // Every family's memtable is retired marked unlogged: only a flush saves its writes. Close
  // flushes them when no background error stands; while one does (Resume's flush failed
  // again), their writes are only in the old, unsynced WAL, which stays on disk (no log
  // number moved past it) for the next Open.
  std::vector<ColumnFamilyData*> families;
  for (const auto& [id, cfd] : column_families_) families.push_back(cfd.get());
  for (ColumnFamilyData* cfd : families) {
    cfd->mems.MarkUnloggedWrite();
    cfd->mems.Switch(NewMemTable(*cfd), number);
  }
  for (ColumnFamilyData* cfd : families) {
    if (!cfd->dropped) ReplaceSuperVersionLocked(cfd);  // releases mu_ briefly
  }
  return Status::OK();
}

Status DBImpl::DisableFileDeletions() {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  MutexLock lock(&mu_);
  InFlightCall call(this, /*mu_held=*/true);
  if (!call.status().ok()) return call.status();
  file_deletions_disabled_++;
  // A pass that passed its check before the increment may still be deleting: wait for it, so
  // that every file a listing made after this returns stays (the wait releases mu_; the pass
  // deletes without it and takes it only to count itself out).
  while (deletion_passes_running_ > 0) deletion_passes_cv_.Wait(&mu_);
  return Status::OK();
}

Status DBImpl::EnableFileDeletions(bool force) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call (and its sweep)
  if (!call.status().ok()) return call.status();
  {
    MutexLock lock(&mu_);
    if (force) {
      file_deletions_disabled_ = 0;
    } else if (file_deletions_disabled_ > 0) {
      file_deletions_disabled_--;
    }
    if (file_deletions_disabled_ > 0) return Status::OK();
  }
  DeleteObsoleteFiles();  // what was kept while deletions were disabled
  return Status::OK();
}

void DBImpl::DeleteObsoleteFiles() {
  // A read-only DB deletes nothing (read_only_'s invariant): its VersionSet may know only some
  // families, and another instance may be writing the directory, so "not live here" says
  // nothing about a file.
  if (read_only_) return;
  if (num_dropped_families_.load(std::memory_order_acquire) > 0) {
    // Dropped families nothing holds any more (the last holder may have been a write or an
    // iterator that went without sweeping): their Versions go first, so their files are
    // obsolete below.
    std::vector<SuperVersion*> svs;
    std::vector<MemTable*> mems;
    std::vector<std::shared_ptr<ColumnFamilyData>> freed;
    {
      MutexLock lock(&mu_);
      SweepDroppedFamiliesLocked(&svs, &mems, &freed);
    }
    for (SuperVersion* sv : svs) UnrefSuperVersion(sv);
    for (MemTable* m : mems) m->Unref();
    freed.clear();  // the families themselves, without the mutex
  }
  std::set<uint64_t> live;
  uint64_t log_number, manifest_number, options_number, options_writing, next_number;
  {
    MutexLock lock(&mu_);
    if (file_deletions_disabled_ > 0) return;  // EnableFileDeletions sweeps again
    live = pending_outputs_;
    versions_->AddLiveFiles(&live);
    log_number = versions_->MinLogNumber();
    // WALs a checkpoint in progress copies.
    if (!checkpoint_wals_.empty()) log_number = std::min(log_number, *checkpoint_wals_.begin());
    manifest_number = versions_->ManifestFileNumber();
    options_number = options_file_number_;
    options_writing = options_file_writing_;
    // Files numbered from here on may be created after this snapshot of what is live.
    next_number = versions_->PeekNextFileNumber();
    deletion_passes_running_++;  // DisableFileDeletions waits until this pass is done
  }
  DeleteObsoleteFilesUnlocked(live, log_number, manifest_number, options_number, options_writing,
                              next_number);
  MutexLock lock(&mu_);
  deletion_passes_running_--;
  deletion_passes_cv_.SignalAll();
}

void DBImpl::DeleteObsoleteFilesUnlocked(const std::set<uint64_t>& live, uint64_t log_number,
                                         uint64_t manifest_number, uint64_t options_number,
                                         uint64_t options_writing, uint64_t next_number) {
  std::vector<std::string> children;
  if (!fs_->GetChildren(dbname_, &children).ok()) return;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || number >= next_number) continue;
    bool keep = true;
    switch (type) {
      case FileType::kTableFile:
        keep = live.count(number) > 0;
        break;
      case FileType::kWalFile:
        keep = number >= log_number;
        break;
      case FileType::kDescriptorFile:
        keep = number >= manifest_number;
        break;
      case FileType::kOptionsFile:
        // Not `>=`: a newer one is either being written (kept) or was left by a failed
        // SetOptions and holds values that were never applied. (0: Open has written none
        // yet; keep them all.)
        keep = options_number == 0 || number == options_number || number == options_writing;
        break;
      default:
        break;  // CURRENT, LOCK, LOG, temp files (cleared at Open)
    }
    if (keep) continue;
    if (type == FileType::kTableFile) table_cache_->Evict(number);
    Status s = fs_->DeleteFile(dbname_ + "/" + name);
    if (info_log_) {
      info_log_->Log("delete obsolete file %s: %s", name.c_str(), s.ToString().c_str());
    }
  }
}

}  // namespace shale
