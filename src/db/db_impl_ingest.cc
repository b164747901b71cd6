// DBImpl: IngestExternalFile. The work is an IngestionJob (ingestion_job.h says the steps, what
// makes the call all-or-nothing and the crash-safety order); DBImpl runs its steps and keeps
// what needs the DB's internals: the DB mutex, reserving the files' numbers as pending outputs,
// the write queue's front, flushing the memtables the files overlap, and installing the
// MANIFEST edit (LogAndApply, the sequence numbers, the SuperVersion).
#include <algorithm>

#include "db/db_impl.h"
#include "compaction/reserved_level.h"
#include "db/ingestion_job.h"
#include "util/kill_point.h"

namespace shale {

Status DBImpl::IngestExternalFile(ColumnFamilyHandle* column_family,
                                  const std::vector<std::string>& paths,
                                  const IngestExternalFileOptions& options) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  // Refused before the job (and its progress report) exists: a refused call sends no report.
  Status checked = ProgressReporter::ValidateInterval(
      options.progress_interval_seconds, "IngestExternalFileOptions::progress_interval_seconds");
  if (!checked.ok()) return checked;
  Options db_options;
  std::shared_ptr<ColumnFamilyData> cfd;
  {
    MutexLock lock(&mu_);
    ColumnFamilyData* found = nullptr;
    Status s = LiveFamilyLocked(column_family, "IngestExternalFile", &found);
    if (!s.ok()) return s;
    cfd = column_families_.at(found->id());
    if (!bg_error_.ok()) return bg_error_;
    db_options = cfd->options;
  }
  IngestionJobContext ctx;
  ctx.dbname = dbname_;
  ctx.fs = fs_;
  ctx.icmp = &icmp_;
  ctx.has_merge_operator = cfd->merge_operator() != nullptr;
  ctx.info_log = info_log_.get();
  IngestionJob job(std::move(ctx), paths, options);

  // 1. Check and inspect.
  Status s = job.Prepare(db_options);
  if (!s.ok()) return s;

  // 2. Bring the files in, under numbers no obsolete-file sweep removes.
  std::vector<uint64_t> numbers(job.num_files());
  {
    MutexLock lock(&mu_);
    for (uint64_t& n : numbers) {
      n = versions_->NewFileNumber();
      pending_outputs_.insert(n);
    }
  }
  s = job.AddFilesToDir(numbers);
  if (s.ok()) SHALE_KILL_POINT("ingest.files_in_dir");
  if (s.ok()) {
    // 3 and 4.
    s = InstallExternalFiles(cfd.get(), &job);
  }
  if (!s.ok()) {
    job.RemoveFilesFromDir();
    MutexLock lock(&mu_);
    for (uint64_t n : job.UnloggedNumbers()) pending_outputs_.erase(n);
    if (info_log_) info_log_->Log("ingestion of %zu files failed: %s", job.num_files(),
                                  s.ToString().c_str());
    return s;
  }

  // 5. The originals of moved files.
  SHALE_KILL_POINT("ingest.manifest_written");
  job.RemoveOriginals();
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::InstallExternalFiles(ColumnFamilyData* cfd, IngestionJob* job) {
  MutexLock lock(&mu_);
  WriteQueue::Front front(&write_queue_, &mu_);
  Status s = cfd->dropped ? Status::InvalidArgument("IngestExternalFile: the column family was dropped")
                          : FlushForIngestionLocked(cfd, *job);
  if (s.ok()) s = job->Place(IngestionViewLocked(*cfd));
  if (s.ok()) {
    VersionEdit edit;
    edit.SetColumnFamily(cfd->id());
    const SequenceNumber last = std::max(versions_->LastSequence(), job->AddToEdit(&edit));
    // The files' sequence numbers are allocated before the edit is logged, so the MANIFEST
    // records them (after a restart new writes are numbered above the files), but published
    // only once the SuperVersion holds the files (below): LogAndApply releases mu_, and a
    // snapshot taken meanwhile must read below the files both before and after they land.
    const SequenceNumber allocated = versions_->LastAllocatedSequence();
    if (last > allocated) versions_->AllocateSequences(last - allocated);
    // GetSnapshot waits while the edit of a file at sequence 0 that earlier snapshots must
    // not see is written (IngestionJob::BlocksSnapshots).
    const bool hold_snapshots = job->BlocksSnapshots();
    if (hold_snapshots) snapshot_blocking_ingestions_++;
    // LogAndApply releases mu_ while it writes: until the files are in the Version, their
    // ranges are pending outputs, so no compaction or flush picked meanwhile puts an
    // overlapping file into their levels.
    std::vector<uint64_t> range_ids;
    for (const IngestionJob::File& f : job->files()) {
      range_ids.push_back(AddPendingRangeLocked(cfd, f.level, f.info.smallest_user_key,
                                                f.info.largest_user_key));
    }
    SHALE_KILL_POINT("ingest.before_manifest");
    s = versions_->LogAndApply(&edit, &mu_);
    for (uint64_t id : range_ids) RemovePendingRangeLocked(cfd, id);
    if (!s.ok()) {
      // The edit may have reached the MANIFEST anyway (a failed sync after the write): the
      // files stay, listed as pending outputs until the DB closes; the next Open keeps them
      // if the MANIFEST lists them and deletes them otherwise. Their sequence numbers are
      // used up: no later write may reuse them.
      if (last > versions_->LastSequence()) versions_->SetLastSequence(last);
      job->MarkMaybeLogged();
      RecordBackgroundErrorLocked(s, "ingestion MANIFEST write");
    } else {
      // Readers that lock mu_ take the SuperVersion and the last sequence together: both
      // change here without releasing it. A point read through the SuperVersion slots reads
      // the sequence after the SuperVersion, without mu_: if it still holds the SuperVersion
      // without the files, it may read at `last` and miss them, a state that was current
      // while it ran (it started before the install).
      SuperVersion* old = InstallSuperVersionLocked(cfd);
      if (last > versions_->LastSequence()) versions_->SetLastSequence(last);
      if (old != nullptr) {
        mu_.Unlock();
        UnrefSuperVersion(old);
        mu_.Lock();
      }
      RecalculateWriteStallLocked();
      MaybeScheduleCompactionLocked();
      for (const IngestionJob::File& f : job->files()) pending_outputs_.erase(f.number);
      job->LogInstalled();
    }
    if (hold_snapshots && --snapshot_blocking_ingestions_ == 0) ingestion_cv_.SignalAll();
  }
  front.Release();
  return s;
}

Status DBImpl::FlushForIngestionLocked(ColumnFamilyData* cfd, const IngestionJob& job) {
  const MemTableSet& mems = cfd->mems;
  if (!bg_error_.ok()) return bg_error_;
  if (job.options().ingest_behind) return Status::OK();  // below everything: memtables may overlap
  const bool mem_holds = mems.mem()->num_entries() > 0;
  if (!mem_holds && mems.NumImmutable() == 0) return Status::OK();
  const bool mem_overlaps = job.OverlapsMemTable(*mems.mem());
  bool imm_overlaps = false;
  for (const MemTableSet::Immutable& m : mems.immutables()) {
    imm_overlaps = imm_overlaps || job.OverlapsMemTable(*m.mem);
  }
  bool flush = false;
  bool flush_all = false;  // every memtable, not only the overlapping ones (universal)
  Status s = job.CheckFlush(mem_overlaps || imm_overlaps, IngestionViewLocked(*cfd), &flush,
                            &flush_all);
  if (!s.ok() || !flush) return s;
  if (mem_holds && (mem_overlaps || flush_all)) s = MakeRoomForWrite(/*force=*/cfd);
  if (s.ok()) s = WaitForFlushLocked(cfd, cfd->mems.log_number());
  return s;
}

IngestionJob::DbView DBImpl::IngestionViewLocked(const ColumnFamilyData& cfd) const {
  const Options& cf_options = cfd.options;
  IngestionJob::DbView view;
  view.version = versions_->current(cfd.id());
  view.pending_ranges = PendingRangesLocked(cfd);
  view.has_snapshots = !snapshots_.empty();
  view.last_sequence = versions_->LastSequence();
  view.compaction_style = cf_options.compaction_style;
  view.last_writable_level = LastWritableLevel(cf_options, view.version->num_levels());
  return view;
}

}  // namespace shale
