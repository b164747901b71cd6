// DBImpl: compactions. Scheduling automatic compactions in the compaction pool, running and
// installing a Compaction (merge, trivial move or FIFO deletion), DB::CompactRange, the
// pending output ranges that keep concurrent flushes and compactions from colliding, and the
// write controller's inputs.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/filename.h"
#include "compaction/level_targets.h"
#include "compaction/reserved_level.h"
#include "db/db_impl.h"
#include "util/kill_point.h"
#include "util/progress_reporter.h"

namespace shale {
namespace {

uint64_t NowSeconds() { return static_cast<uint64_t>(std::time(nullptr)); }

// How long a compaction that could not get file descriptors for its inputs waits before it is
// picked again (doc/table_cache.md).
constexpr int kDescriptorShortageRetryMs = 1000;

}  // namespace

int DBImpl::MaxCompactionThreadsLocked() const {
  return std::max(1, options_.max_background_jobs - 1);
}

uint64_t DBImpl::AddPendingRangeLocked(int level, std::string_view smallest,
                                       std::string_view largest) {
  const uint64_t id = next_pending_range_id_++;
  pending_ranges_[id] = PendingOutputRange{level, std::string(smallest), std::string(largest)};
  return id;
}

void DBImpl::RemovePendingRangeLocked(uint64_t id) { pending_ranges_.erase(id); }

std::vector<PendingOutputRange> DBImpl::PendingRangesLocked() const {
  std::vector<PendingOutputRange> r;
  r.reserve(pending_ranges_.size());
  for (const auto& [id, range] : pending_ranges_) r.push_back(range);
  return r;
}

int DBImpl::PickFlushLevelLocked(std::string_view smallest, std::string_view largest) const {
  const bool lower_levels = options_.compaction_style != kCompactionStyleFIFO;
  int level = versions_->current()->PickLevelForMemTableOutput(smallest, largest, lower_levels);
  // A reserved last level is for ingest_behind files only.
  level = std::min(level, LastWritableLevel(options_, versions_->num_levels()));
  const Comparator* ucmp = icmp_.user_comparator();
  for (const auto& [id, p] : pending_ranges_) {
    if (level == 0) break;
    if (ucmp->Compare(largest, p.smallest_user_key) < 0 ||
        ucmp->Compare(smallest, p.largest_user_key) > 0) {
      continue;
    }
    // Older data is about to land in p.level: the flush must stay above it.
    level = std::min(level, std::max(0, p.level - 1));
  }
  if (level > 0 && options_.compaction_style == kCompactionStyleLevel &&
      level < ComputeLevelTargets(*versions_->current(), options_).base_level) {
    // A level above the base level has no target: a file there would be compacted into the
    // base level on its own, rewriting base-level data once per flush. In L0 several flushes
    // share one L0 -> base compaction.
    level = 0;
  }
  return level;
}

void DBImpl::RecalculateWriteStallLocked() {
  WriteController::TreeShape shape;
  Version* v = versions_->current();
  shape.l0_files = v->NumFiles(0);
  shape.immutable_memtables = static_cast<int>(mems_.NumImmutable());
  if (picker_ != nullptr) {
    shape.pending_compaction_bytes = picker_->EstimatePendingCompactionBytes(*v, options_);
  }
  const WriteController::State before = write_controller_.state();
  write_controller_.Update(options_, shape);
  if (before != write_controller_.state() && info_log_) {
    static const char* kNames[] = {"normal", "delayed", "stopped"};
    info_log_->Log("write controller: %s -> %s (%s; L0 files %d, pending compaction bytes %llu)",
                   kNames[static_cast<int>(before)],
                   kNames[static_cast<int>(write_controller_.state())],
                   WriteController::CauseName(write_controller_.cause()), shape.l0_files,
                   static_cast<unsigned long long>(shape.pending_compaction_bytes));
  }
  if (write_controller_.state() != WriteController::State::kStopped) bg_cv_.SignalAll();
}

void DBImpl::MaybeScheduleCompactionLocked() {
  if (!opened_ || shutting_down_ || !bg_error_.ok() || picker_ == nullptr) return;
  if (options_.disable_auto_compactions || exclusive_manual_compactions_ > 0) return;
  const int max_threads = MaxCompactionThreadsLocked();
  if (compaction_pool_->NumThreads() != max_threads) compaction_pool_->SetNumThreads(max_threads);
  // Schedule one job per free thread while work is due; a job that finds nothing it can start
  // (conflicts) simply ends, and every finished job schedules again.
  if (bg_compactions_scheduled_ >= max_threads) return;
  if (!picker_->NeedsCompaction(*versions_->current(), options_, NowSeconds())) return;
  bg_compactions_scheduled_++;
  compaction_pool_->Schedule([this] { BackgroundCompactionCall(); });
}

void DBImpl::BackgroundCompactionCall() {
  bool did_work = false;
  {
    MutexLock lock(&mu_);
    if (!shutting_down_ && bg_error_.ok() && !options_.disable_auto_compactions &&
        exclusive_manual_compactions_ == 0) {
      std::unique_ptr<Compaction> c = picker_->PickCompaction(
          versions_->current(), options_, PendingRangesLocked(), NowSeconds());
      if (c != nullptr) {
        did_work = true;
        // Another thread may find more to do alongside this one.
        MaybeScheduleCompactionLocked();
        Status s = RunCompactionLocked(c.get());
        if (IsDescriptorShortage(s)) {
          // The table file pool gave up waiting for a descriptor (the process's limit is held
          // by files outside it): nothing is damaged and the inputs are still there, so this
          // is no background error. The compaction is picked again after a pause, during which
          // its inputs stay marked as being compacted (no other job picks them meanwhile);
          // Close ends the pause at once.
          if (info_log_) {
            info_log_->Log("compaction short of file descriptors, retried in %d ms: %s",
                           kDescriptorShortageRetryMs, s.ToString().c_str());
          }
          mu_.Unlock();
          for (int ms = 0; ms < kDescriptorShortageRetryMs && !stop_compactions_.load();
               ms += 10) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          mu_.Lock();
        } else if (!s.ok() && !s.IsShutdownInProgress()) {
          RecordBackgroundErrorLocked(s, "compaction");
        }
        c->ReleaseInputs();
      }
    }
    bg_compactions_scheduled_--;
    if (did_work) MaybeScheduleCompactionLocked();
    bg_cv_.SignalAll();
  }
  if (did_work) DeleteObsoleteFiles();
}

Status DBImpl::RunCompactionLocked(Compaction* c, ProgressReporter* progress) {
  compactions_running_++;
  Status s;
  if (c->deletion_only) {
    s = InstallCompactionLocked(c, nullptr, false);
  } else if (c->IsTrivialMove()) {
    s = InstallCompactionLocked(c, nullptr, true);
  } else {
    const uint64_t range_id =
        AddPendingRangeLocked(c->output_level(), c->smallest_user_key(), c->largest_user_key());
    CompactionJobContext ctx;
    ctx.dbname = dbname_;
    ctx.fs = fs_;
    ctx.table_cache = table_cache_.get();
    ctx.table_options = options_.table_options;
    ctx.snapshots = snapshots_.All();
    ctx.merge_operator = merge_operator_.get();
    ctx.shutting_down = &stop_compactions_;
    ctx.progress = progress;
    std::vector<uint64_t> numbers;
    ctx.new_file_number = [this, &numbers] {
      MutexLock lock(&mu_);
      const uint64_t n = versions_->NewFileNumber();
      pending_outputs_.insert(n);
      numbers.push_back(n);
      return n;
    };
    if (info_log_) {
      info_log_->Log("compaction (%s) starts: %s, %llu bytes, %u subcompactions max%s",
                     CompactionReasonName(c->reason()), c->InputSummary().c_str(),
                     static_cast<unsigned long long>(c->InputBytes()), c->max_subcompactions,
                     c->bottommost ? ", bottommost" : "");
    }
    CompactionJob job(c, std::move(ctx));
    const uint64_t started_busy = debt_tracker_.CompactionStarted(SteadyMicros());
    mu_.Unlock();
    s = job.Run();
    if (s.ok()) SHALE_KILL_POINT("compaction.outputs_synced");
    mu_.Lock();
    // The bytes count once the job has read them all (a failed or stopped job adds busy time
    // only).
    debt_tracker_.CompactionFinished(SteadyMicros(), s.ok() ? c->InputBytes() : 0, started_busy);
    if (s.ok()) s = InstallCompactionLocked(c, &job, false);
    if (!s.ok()) {
      // Outputs of a failed install stay until no MANIFEST can name them (AddLiveFiles).
      if (info_log_) {
        info_log_->Log("compaction %s failed: %s", c->InputSummary().c_str(),
                       s.ToString().c_str());
      }
    }
    for (uint64_t n : numbers) pending_outputs_.erase(n);
    RemovePendingRangeLocked(range_id);
  }
  compactions_running_--;
  return s;
}

Status DBImpl::InstallCompactionLocked(Compaction* c, const CompactionJob* job,
                                       bool trivial_move) {
  VersionEdit edit;
  c->AddInputDeletions(&edit);
  uint64_t range_id = 0;
  if (trivial_move) {
    for (const FileMetaData* f : c->inputs().front().files) edit.AddFile(c->output_level(), *f);
    range_id =
        AddPendingRangeLocked(c->output_level(), c->smallest_user_key(), c->largest_user_key());
  } else if (job != nullptr) {
    for (const FileMetaData& f : job->outputs()) edit.AddFile(c->output_level(), f);
  }
  Status s = versions_->LogAndApply(&edit, &mu_);
  if (range_id != 0) RemovePendingRangeLocked(range_id);
  if (!s.ok()) return s;
  SHALE_KILL_POINT("compaction.manifest_written");
  ReplaceSuperVersionLocked();
  // Statistics and the LOG line.
  const int out = c->output_level();
  if (compaction_stats_.size() < static_cast<size_t>(versions_->num_levels())) {
    compaction_stats_.resize(versions_->num_levels());
  }
  LevelCompactionStats& st = compaction_stats_[out];
  st.compactions++;
  st.files_in += c->NumInputFiles();
  if (trivial_move) {
    st.trivial_moves++;
  } else if (job != nullptr) {
    const uint64_t from_output = c->InputBytesAt(out);
    st.bytes_read_output += from_output;
    st.bytes_read_start += c->InputBytes() - from_output;
    st.bytes_written += job->stats().bytes_written;
    st.files_out += job->outputs().size();
    st.micros += job->stats().micros;
    RecordTick(COMPACT_READ_BYTES, c->InputBytes());
    RecordTick(COMPACT_WRITE_BYTES, job->stats().bytes_written);
    if (statistics_ != nullptr) statistics_->measureTime(COMPACTION_TIME, job->stats().micros);
  }
  if (info_log_) {
    if (job != nullptr) {
      const CompactionJobStats& js = job->stats();
      info_log_->Log(
          "compaction (%s) done: %s, read %llu bytes, wrote %zu files %llu bytes, "
          "%llu entries in, %llu dropped, %d subcompactions, %.3f s; %s",
          CompactionReasonName(c->reason()), c->InputSummary().c_str(),
          static_cast<unsigned long long>(js.bytes_read), job->outputs().size(),
          static_cast<unsigned long long>(js.bytes_written),
          static_cast<unsigned long long>(js.entries_read),
          static_cast<unsigned long long>(js.entries_dropped), js.subcompactions, js.micros / 1e6,
          versions_->LevelSummary().c_str());
    } else {
      info_log_->Log("compaction (%s): %s %s; %s", CompactionReasonName(c->reason()),
                     c->deletion_only ? "deleted" : "moved", c->InputSummary().c_str(),
                     versions_->LevelSummary().c_str());
    }
  }
  return Status::OK();
}

Status DBImpl::CompactRange(const CompactRangeOptions& options, const std::string_view* begin,
                            const std::string_view* end) {
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Status s = ProgressReporter::ValidateInterval(
      options.progress_interval_seconds, "CompactRangeOptions::progress_interval_seconds");
  if (!s.ok()) return s;
  {
    MutexLock lock(&mu_);
    if (options.change_level && options.target_level >= versions_->num_levels()) {
      return Status::InvalidArgument(
          "CompactRange: target_level",
          absl::StrCat(options.target_level, " is not below num_levels = ",
                       versions_->num_levels()));
    }
    if (options.change_level &&
        options.target_level > LastWritableLevel(options_, versions_->num_levels())) {
      return Status::InvalidArgument(
          "CompactRange: target_level",
          absl::StrCat(options.target_level,
                       " is the last level, reserved for ingest_behind files "
                       "(allow_ingest_behind = true)"));
    }
  }
  // Declared before the lock below, so that its final report (from its destructor, on every
  // return) runs after mu_ is released: the callback never runs under the DB mutex.
  ProgressReporter progress("compact_range", options.progress, options.progress_interval_seconds);
  // The memtables' data is compacted too.
  s = Flush(FlushOptions());
  if (!s.ok()) return s;
  std::optional<std::string_view> lo, hi;
  if (begin != nullptr) lo = *begin;
  if (end != nullptr) hi = *end;
  MutexLock lock(&mu_);
  manual_compactions_++;
  if (options.exclusive_manual_compaction) exclusive_manual_compactions_++;
  const bool force = options.bottommost_level_compaction == BottommostLevelCompaction::kForce ||
                     options.bottommost_level_compaction ==
                         BottommostLevelCompaction::kForceOptimized;
  uint32_t subcompactions = options.max_subcompactions;
  if (subcompactions == 0) {
    const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
    subcompactions = std::max<uint32_t>(
        options_.max_subcompactions,
        std::min<uint32_t>(cores, static_cast<uint32_t>(options_.max_background_jobs)));
  }
  std::unique_ptr<Compaction> c;
  while (true) {
    if (shutting_down_) {
      s = Status::ShutdownInProgress("the DB is closing");
      break;
    }
    if (!bg_error_.ok()) {
      s = bg_error_;
      break;
    }
    // An exclusive manual compaction waits for the automatic ones to finish.
    if (options.exclusive_manual_compaction && compactions_running_ > 0) {
      bg_cv_.Wait(&mu_);
      continue;
    }
    bool conflict = false;
    c = picker_->PickManualCompaction(versions_->current(), options_, PendingRangesLocked(), lo,
                                      hi, force, subcompactions, &conflict);
    if (c != nullptr || !conflict) break;
    bg_cv_.Wait(&mu_);
  }
  // Moved or deleted files count as read once the compaction is done.
  uint64_t unread_bytes = 0, unread_entries = 0;
  if (s.ok() && c != nullptr) {
    uint64_t entries = 0;
    for (const CompactionInputLevel& in : c->inputs()) {
      for (const FileMetaData* f : in.files) entries += f->num_entries;
    }
    progress.SetTotals(c->InputBytes(), entries);
    if (c->deletion_only || c->IsTrivialMove()) {
      unread_bytes = c->InputBytes();
      unread_entries = entries;
    }
    // change_level: the output, written to the bottom level, then moves up to `target`.
    // Between the two, while the compaction runs and while its MANIFEST edits are written
    // (both without the mutex), flushes, ingestions and automatic compactions go on. Had one
    // of them put newer data of the span into a level between target and the bottom, the move
    // would lift the older output above it. So the span of every level from target down to
    // the one above the output is registered as a pending output range from the pick to the
    // end of the move: flushes and ingestions place overlapping files above target, and no
    // compaction sends output into it (RocksDB pauses background work for its ReFitLevel).
    // L0 needs no guard: it is ordered by sequence number, so output moved into L0 goes below
    // any newer L0 file (and a flush can always go to L0).
    const int target = options.target_level < 0
                           ? LastWritableLevel(options_, versions_->num_levels())
                           : options.target_level;
    const bool refit = options.change_level && !c->deletion_only && target < c->output_level();
    std::vector<uint64_t> refit_guard;
    if (refit) {
      for (int level = std::max(1, target); level < c->output_level(); level++) {
        refit_guard.push_back(
            AddPendingRangeLocked(level, c->smallest_user_key(), c->largest_user_key()));
      }
    }
    s = RunCompactionLocked(c.get(), progress.enabled() ? &progress : nullptr);
    if (s.ok() && refit) s = RefitCompactionOutputLocked(*c, target);
    for (uint64_t id : refit_guard) RemovePendingRangeLocked(id);
    c->ReleaseInputs();
    // A refused move (Aborted) leaves a consistent tree: not a background error; nor is a
    // shortage of file descriptors (the caller gets it and may try again).
    if (!s.ok() && !s.IsShutdownInProgress() && !s.IsAborted() && !IsDescriptorShortage(s)) {
      RecordBackgroundErrorLocked(s, "manual compaction");
    }
  }
  manual_compactions_--;
  if (options.exclusive_manual_compaction) exclusive_manual_compactions_--;
  MaybeScheduleCompactionLocked();
  bg_cv_.SignalAll();
  mu_.Unlock();
  if (s.ok() && unread_entries + unread_bytes > 0) progress.Add(unread_bytes, unread_entries);
  DeleteObsoleteFiles();
  mu_.Lock();
  return s;
}

Status DBImpl::RefitCompactionOutputLocked(const Compaction& c, int target) {
  const int out = c.output_level();
  const std::string lo(c.smallest_user_key()), hi(c.largest_user_key());
  Version* v = versions_->current();
  // The compaction took every file overlapping its span (but those of a reserved last level,
  // which are older and stay below), and the guard of CompactRange kept new ones out of the
  // levels max(1, target)..out-1 since: the span there is empty. Checked here, under the same
  // lock as the edit below is computed, so the move can never lift older data above newer.
  // (Newer L0 files may overlap: L0 is ordered by sequence number, the moved files go below.)
  for (int level = std::max(1, target); level < out; level++) {
    if (v->OverlapInLevel(level, lo, hi)) {
      return Status::Aborted(
          "CompactRange: change_level",
          absl::StrCat("L", level, " holds newer data of the range; the output stays in L", out));
    }
  }
  std::vector<FileMetaData*> moved;
  v->GetOverlappingInputs(out, FirstInternalKeyOf(lo), LastInternalKeyOf(hi), &moved);
  if (moved.empty()) return Status::OK();
  VersionEdit edit;
  for (const FileMetaData* f : moved) {
    if (f->being_compacted) {
      return Status::Aborted("CompactRange: change_level",
                             absl::StrCat("table #", f->number, " is being compacted"));
    }
    edit.DeleteFile(out, f->number);
    edit.AddFile(target, *f);
  }
  // LogAndApply releases mu_ while it writes the edit, and until it installs it the moved
  // files still sit in `out` of the current Version: marked as being compacted meanwhile, so
  // no pick (another CompactRange, an automatic compaction of a non-exclusive one) takes them
  // as inputs there; its edit would delete them from a level that no longer holds them. (The
  // edit holds copies, unmarked; the Version installed holds new, unmarked FileMetaData.)
  for (FileMetaData* f : moved) f->being_compacted = true;
  Status s = versions_->LogAndApply(&edit, &mu_);
  for (FileMetaData* f : moved) f->being_compacted = false;
  if (s.ok()) ReplaceSuperVersionLocked();
  return s;
}

std::string DBImpl::CompactionStatsString() const {
  std::string r = "Level  Files   Size(MB) Comps Moves  Rn(MB) Rnp1(MB) Write(MB) W-Amp  Comp(s)\n";
  uint64_t total_written = 0, total_read = 0, total_micros = 0;
  for (int level = 0; level < versions_->num_levels(); level++) {
    LevelCompactionStats st;
    if (static_cast<size_t>(level) < compaction_stats_.size()) st = compaction_stats_[level];
    const double rn = static_cast<double>(st.bytes_read_start) / 1048576.0;
    const double w = static_cast<double>(st.bytes_written) / 1048576.0;
    absl::StrAppendFormat(&r, "L%-5d %5d %10.1f %5d %5d %7.1f %8.1f %9.1f %5.2f %8.2f\n", level,
                          versions_->NumLevelFiles(level),
                          static_cast<double>(versions_->NumLevelBytes(level)) / 1048576.0,
                          st.compactions, st.trivial_moves, rn,
                          static_cast<double>(st.bytes_read_output) / 1048576.0, w,
                          rn > 0 ? w / rn : 0.0, st.micros / 1e6);
    total_written += st.bytes_written;
    total_read += st.bytes_read_start + st.bytes_read_output;
    total_micros += st.micros;
  }
  const double user_mb = static_cast<double>(user_bytes_written_) / 1048576.0;
  const double flushed_mb = static_cast<double>(flush_stats_.bytes_written) / 1048576.0;
  const double compacted_mb = static_cast<double>(total_written) / 1048576.0;
  absl::StrAppendFormat(
      &r,
      "Compaction: read %.1f MB, wrote %.1f MB in %.2f s; flushed %.1f MB; "
      "write amplification (flush + compaction) / user bytes = %.2f\n",
      static_cast<double>(total_read) / 1048576.0, compacted_mb, total_micros / 1e6, flushed_mb,
      user_mb > 0 ? (flushed_mb + compacted_mb) / user_mb : 0.0);
  return r;
}

}  // namespace shale
