// DBImpl: checkpoints (shale/checkpoint.h). The work is a CheckpointJob (checkpoint_job.h says
// the steps and their crash-safety order); DBImpl lends it what needs the DB's internals:
// Flush, capturing the plan at the write queue's front under mu_, and releasing it (the plan
// references a Version, and checkpoint_wals_ keeps its WALs from DeleteObsoleteFiles).
#include "db/checkpoint_job.h"
#include "db/db_impl.h"

namespace shale {

Status DBImpl::CreateCheckpoint(const std::string& checkpoint_dir,
                                const CheckpointOptions& options) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Status s = ProgressReporter::ValidateInterval(options.progress_interval_seconds,
                                                "CheckpointOptions::progress_interval_seconds");
  if (!s.ok()) return s;
  // Its final report goes at the return, without mu_.
  ProgressReporter progress("checkpoint", options.progress, options.progress_interval_seconds);
  CheckpointJobContext ctx;
  ctx.dbname = dbname_;
  ctx.fs = fs_;
  ctx.flush = [this] { return Flush(FlushOptions()); };
  ctx.capture_plan = [this](CheckpointPlan* plan) { return CapturePlanAtFront(plan); };
  ctx.release_plan = [this](CheckpointPlan* plan) { ReleasePlan(plan); };
  ctx.progress = &progress;
  CheckpointJob job(std::move(ctx), checkpoint_dir, options.log_size_for_flush);
  s = job.Run();
  if (!job.planned()) return s;
  DeleteObsoleteFiles();  // tables that only the plan's Version kept
  info_log_->Log("checkpoint to %s: %s", job.dir().c_str(), s.ToString().c_str());
  return s;
}

Status DBImpl::CapturePlanAtFront(CheckpointPlan* plan) {
  MutexLock lock(&mu_);
  if (closed_ || shutting_down_) return Status::ShutdownInProgress("the DB is closed");
  WriteQueue::Front front(&write_queue_, &mu_);
  // At the front no write is in progress (and no ingestion, which takes the front too): the
  // current Version with the WALs as long as they are now holds exactly the writes made so
  // far, and the WAL being written ends at a record boundary -- unless a write failed: then
  // the WAL may end in that write's record (whole when only its sync failed), which the DB
  // never applied. So no plan while the background error stands (as the flush path, which
  // fails with it, already does).
  Status s = bg_error_;
  std::vector<std::shared_ptr<ColumnFamilyData>> families;
  for (const auto& [id, cfd] : column_families_) families.push_back(cfd);
  for (const auto& cfd : families) {
    if (s.ok() && !cfd->dropped && cfd->mems.HasUnloggedWrites()) {
      // Writes made without the WAL are only in the memtables: flush them into tables first,
      // here, so that none is made meanwhile.
      if (cfd->mems.mem()->num_entries() > 0) s = MakeRoomForWrite(/*force=*/cfd.get());
      if (s.ok()) s = WaitForFlushLocked(cfd.get(), cfd->mems.log_number());
    }
  }
  if (s.ok()) {
    DBOptions db_options;
    std::vector<ColumnFamilyDescriptor> descriptors;
    CollectOptionsLocked(&db_options, &descriptors);
    CaptureCheckpointVersion(versions_.get(), db_options, descriptors, plan);
    plan->current_wal = log_number_;
    plan->current_wal_length = log_->length();
    checkpoint_wals_.insert(plan->log_number);
  }
  front.Release();
  return s;
}

void DBImpl::ReleasePlan(CheckpointPlan* plan) {
  if (!plan->versions.empty()) {
    MutexLock lock(&mu_);
    for (Version* v : plan->versions) v->Unref();
    checkpoint_wals_.erase(checkpoint_wals_.find(plan->log_number));
  }
  *plan = CheckpointPlan();
}

}  // namespace shale
