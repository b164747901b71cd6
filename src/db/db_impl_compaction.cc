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
  return std::max(1, db_options_.max_background_jobs - 1);
}

uint64_t DBImpl::AddPendingRangeLocked(ColumnFamilyData* cfd, int level,
                                       std::string_view smallest, std::string_view largest) {
  const uint64_t id = next_pending_range_id_++;
  cfd->pending_ranges[id] = PendingOutputRange{level, std::string(smallest), std::string(largest)};
  return id;
}

void DBImpl::RemovePendingRangeLocked(ColumnFamilyData* cfd, uint64_t id) {
  cfd->pending_ranges.erase(id);
}

std::vector<PendingOutputRange> DBImpl::PendingRangesLocked(const ColumnFamilyData& cfd) const {
  std::vector<PendingOutputRange> r;
  r.reserve(cfd.pending_ranges.size());
  for (const auto& [id, range] : cfd.pending_ranges) r.push_back(range);
  return r;
}

int DBImpl::PickFlushLevelLocked(const ColumnFamilyData& cfd, std::string_view smallest,
                                 std::string_view largest) const {
  const Options& cf_options = cfd.options;
  Version* current = versions_->current(cfd.id());
  const bool lower_levels = cf_options.compaction_style != kCompactionStyleFIFO;
  int level = current->PickLevelForMemTableOutput(smallest, largest, lower_levels);
  // A reserved last level is for ingest_behind files only.
  level = std::min(level, LastWritableLevel(cf_options, versions_->num_levels(cfd.id())));
  const Comparator* ucmp = icmp_.user_comparator();
  for (const auto& [id, p] : cfd.pending_ranges) {
    if (level == 0) break;
    if (ucmp->Compare(largest, p.smallest_user_key) < 0 ||
        ucmp->Compare(smallest, p.largest_user_key) > 0) {
      continue;
    }
    // Older data is about to land in p.level: the flush must stay above it.
    level = std::min(level, std::max(0, p.level - 1));
  }
  if (level > 0 && cf_options.compaction_style == kCompactionStyleLevel &&
      level < ComputeLevelTargets(*current, cf_options).base_level) {
    // A level above the base level has no target: a file there would be compacted into the
    // base level on its own, rewriting base-level data once per flush. In L0 several flushes
    // share one L0 -> base compaction.
    level = 0;
  }
  return level;
}

void DBImpl::RecalculateWriteStallLocked() {
  // Each family's shape against its own triggers; the most severe state wins (stopped over
  // delayed over normal; the first family in id order among equals).
  WriteController::TreeShape shape;
  const Options* worst_options = nullptr;
  WriteController::State worst = WriteController::State::kNormal;
  for (const auto& [id, cfd] : column_families_) {
    WriteController::TreeShape family;
    Version* v = versions_->current(id);
    family.l0_files = v->NumFiles(0);
    family.immutable_memtables = static_cast<int>(cfd->mems.NumImmutable());
    if (cfd->picker != nullptr) {
      family.pending_compaction_bytes =
          cfd->picker->EstimatePendingCompactionBytes(*v, cfd->options);
    }
    WriteController probe;  // only its state is wanted
    probe.Update(cfd->options, family);
    if (worst_options == nullptr || static_cast<int>(probe.state()) > static_cast<int>(worst)) {
      worst = probe.state();
      shape = family;
      worst_options = &cfd->options;
      write_stall_family_ = id;
    }
  }
  if (worst_options == nullptr) return;  // no family (Close)
  const WriteController::State before = write_controller_.state();
  write_controller_.Update(*worst_options, shape);
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

ColumnFamilyData* DBImpl::FamilyNeedingCompactionLocked() {
  // Round robin from the family after the last one served, so that a busy family does not
  // starve the others.
  if (column_families_.empty()) return nullptr;
  auto start = column_families_.upper_bound(last_compacted_family_);
  auto it = start;
  for (size_t n = 0; n < column_families_.size(); n++, ++it) {
    if (it == column_families_.end()) it = column_families_.begin();
    ColumnFamilyData* cfd = it->second.get();
    if (cfd->picker == nullptr || cfd->options.disable_auto_compactions) continue;
    if (cfd->picker->NeedsCompaction(*versions_->current(cfd->id()), cfd->options,
                                     NowSeconds())) {
      return cfd;
    }
  }
  return nullptr;
}

void DBImpl::MaybeScheduleCompactionLocked() {
  if (!opened_ || shutting_down_ || !bg_error_.ok()) return;
  if (exclusive_manual_compactions_ > 0) return;
  const int max_threads = MaxCompactionThreadsLocked();
  if (compaction_pool_->NumThreads() != max_threads) compaction_pool_->SetNumThreads(max_threads);
  // Schedule one job per free thread while work is due; a job that finds nothing it can start
  // (conflicts) simply ends, and every finished job schedules again.
  if (bg_compactions_scheduled_ >= max_threads) return;
  if (FamilyNeedingCompactionLocked() == nullptr) return;
  bg_compactions_scheduled_++;
  compaction_pool_->Schedule([this] { BackgroundCompactionCall(); });
}

void DBImpl::BackgroundCompactionCall() {
  bool did_work = false;
  {
    MutexLock lock(&mu_);
    std::shared_ptr<ColumnFamilyData> cfd;
    std::unique_ptr<Compaction> c;
    if (!shutting_down_ && bg_error_.ok() && exclusive_manual_compactions_ == 0) {
      // The first family (round robin) with a compaction that can start now.
      for (size_t n = 0; n < column_families_.size() && c == nullptr; n++) {
        ColumnFamilyData* candidate = FamilyNeedingCompactionLocked();
        if (candidate == nullptr) break;
        last_compacted_family_ = candidate->id();
        c = candidate->picker->PickCompaction(versions_->current(candidate->id()),
                                              candidate->options, PendingRangesLocked(*candidate),
                                              NowSeconds());
        if (c != nullptr) cfd = column_families_.at(candidate->id());
      }
    }
    {
      if (c != nullptr) {
        did_work = true;
        // Another thread may find more to do alongside this one.
        MaybeScheduleCompactionLocked();
        Status s = RunCompactionLocked(cfd.get(), c.get());
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

namespace {
// The family has a compaction filter (a shared one or a factory).
bool HasCompactionFilter(const Options& o) {
  return o.compaction_filter != nullptr || o.compaction_filter_factory != nullptr;
}
}  // namespace

Status DBImpl::RunCompactionLocked(ColumnFamilyData* cfd, Compaction* c,
                                   ProgressReporter* progress) {
  compactions_running_++;
  Status s;
  if (c->deletion_only) {
    s = InstallCompactionLocked(cfd, c, nullptr, false);
  } else if (c->IsTrivialMove()) {
    s = InstallCompactionLocked(cfd, c, nullptr, true);
  } else {
    const uint64_t range_id = AddPendingRangeLocked(cfd, c->output_level(),
                                                    c->smallest_user_key(), c->largest_user_key());
    CompactionJobContext ctx;
    ctx.dbname = dbname_;
    ctx.column_family_id = cfd->id();
    ctx.column_family_name = cfd->name();
    ctx.fs = fs_;
    ctx.table_cache = table_cache_.get();
    ctx.table_options = cfd->options.table_options;
    ctx.snapshots = snapshots_.All();
    ctx.merge_operator = cfd->merge_operator();
    // The filter is called by the job, without the mutex. Full: every table file of the
    // family is an input.
    ctx.compaction_filter = cfd->options.compaction_filter;
    if (ctx.compaction_filter == nullptr) {
      ctx.compaction_filter_factory = cfd->options.compaction_filter_factory;
    }
    if (ctx.compaction_filter_factory != nullptr) {
      const Version* v = c->input_version();
      size_t files = 0;
      for (int level = 0; level < v->num_levels(); level++) files += v->NumFiles(level);
      ctx.filter_context.is_full_compaction = c->NumInputFiles() == files;
      ctx.filter_context.is_manual_compaction = c->reason() == CompactionReason::kManual;
      ctx.filter_context.column_family_id = cfd->id();
    }
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
      info_log_->Log("compaction [%s] (%s) starts: %s, %llu bytes, %u subcompactions max%s",
                     cfd->name().c_str(), CompactionReasonName(c->reason()), c->InputSummary().c_str(),
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
    if (s.ok()) s = InstallCompactionLocked(cfd, c, &job, false);
    if (!s.ok()) {
      // Outputs of a failed install stay until no MANIFEST can name them (AddLiveFiles).
      if (info_log_) {
        info_log_->Log("compaction %s failed: %s", c->InputSummary().c_str(),
                       s.ToString().c_str());
      }
    }
    for (uint64_t n : numbers) pending_outputs_.erase(n);
    RemovePendingRangeLocked(cfd, range_id);
  }
  compactions_running_--;
  return s;
}

Status DBImpl::InstallCompactionLocked(ColumnFamilyData* cfd, Compaction* c,
                                       const CompactionJob* job, bool trivial_move) {
  VersionEdit edit;
  edit.SetColumnFamily(cfd->id());
  c->AddInputDeletions(&edit);
  uint64_t range_id = 0;
  if (trivial_move) {
    for (const FileMetaData* f : c->inputs().front().files) edit.AddFile(c->output_level(), *f);
    range_id = AddPendingRangeLocked(cfd, c->output_level(), c->smallest_user_key(),
                                     c->largest_user_key());
  } else if (job != nullptr) {
    for (const FileMetaData& f : job->outputs()) edit.AddFile(c->output_level(), f);
  }
  Status s = cfd->dropped ? Status::OK() : versions_->LogAndApply(&edit, &mu_);
  if (range_id != 0) RemovePendingRangeLocked(cfd, range_id);
  // A family dropped meanwhile (its edit refused): nothing to install, its files go with it.
  if (cfd->dropped) return Status::OK();
  if (!s.ok()) return s;
  SHALE_KILL_POINT("compaction.manifest_written");
  // Statistics, before ReplaceSuperVersionLocked releases the mutex (a drop may then remove the
  // family from the VersionSet, issue 23 tests: a drop racing a compaction's install).
  const int out = c->output_level();
  if (cfd->compaction_stats.size() < static_cast<size_t>(versions_->num_levels(cfd->id()))) {
    cfd->compaction_stats.resize(versions_->num_levels(cfd->id()));
  }
  LevelCompactionStats& st = cfd->compaction_stats[out];
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
  const std::string summary = versions_->LevelSummary(cfd->id());
  ReplaceSuperVersionLocked(cfd);  // releases mu_ briefly: cfd may be dropped from here on
  if (info_log_) {
    if (job != nullptr) {
      const CompactionJobStats& js = job->stats();
      info_log_->Log(
          "compaction [%s] (%s) done: %s, read %llu bytes, wrote %zu files %llu bytes, "
          "%llu entries in, %llu dropped, %llu removed and %llu changed by the compaction "
          "filter, %d subcompactions, %.3f s; %s",
          cfd->name().c_str(), CompactionReasonName(c->reason()), c->InputSummary().c_str(),
          static_cast<unsigned long long>(js.bytes_read), job->outputs().size(),
          static_cast<unsigned long long>(js.bytes_written),
          static_cast<unsigned long long>(js.entries_read),
          static_cast<unsigned long long>(js.entries_dropped),
          static_cast<unsigned long long>(js.filter_removed),
          static_cast<unsigned long long>(js.filter_changed), js.subcompactions, js.micros / 1e6,
          summary.c_str());
    } else {
      info_log_->Log("compaction [%s] (%s): %s %s; %s", cfd->name().c_str(),
                     CompactionReasonName(c->reason()), c->deletion_only ? "deleted" : "moved",
                     c->InputSummary().c_str(), summary.c_str());
    }
  }
  return Status::OK();
}

Status DBImpl::CompactRange(const CompactRangeOptions& options,
                            ColumnFamilyHandle* column_family, const std::string_view* begin,
                            const std::string_view* end) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Status s = ProgressReporter::ValidateInterval(
      options.progress_interval_seconds, "CompactRangeOptions::progress_interval_seconds");
  if (!s.ok()) return s;
  std::shared_ptr<ColumnFamilyData> cfd;
  {
    MutexLock lock(&mu_);
    ColumnFamilyData* found = nullptr;
    s = LiveFamilyLocked(column_family, "CompactRange", &found);
    if (!s.ok()) return s;
    cfd = column_families_.at(found->id());
    const int num_levels = versions_->num_levels(cfd->id());
    if (options.change_level && options.target_level >= num_levels) {
      return Status::InvalidArgument(
          "CompactRange: target_level",
          absl::StrCat(options.target_level, " is not below num_levels = ", num_levels));
    }
    if (options.change_level &&
        options.target_level > LastWritableLevel(cfd->options, num_levels)) {
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
  s = Flush(FlushOptions(), column_family);
  if (!s.ok()) return s;
  std::optional<std::string_view> lo, hi;
  if (begin != nullptr) lo = *begin;
  if (end != nullptr) hi = *end;
  MutexLock lock(&mu_);
  manual_compactions_++;
  if (options.exclusive_manual_compaction) exclusive_manual_compactions_++;
  const bool force = options.bottommost_level_compaction == BottommostLevelCompaction::kForce ||
                     options.bottommost_level_compaction ==
                         BottommostLevelCompaction::kForceOptimized ||
                     (options.bottommost_level_compaction ==
                          BottommostLevelCompaction::kIfHaveCompactionFilter &&
                      HasCompactionFilter(cfd->options));
  uint32_t subcompactions = options.max_subcompactions;
  if (subcompactions == 0) {
    const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
    subcompactions = std::max<uint32_t>(
        db_options_.max_subcompactions,
        std::min<uint32_t>(cores, static_cast<uint32_t>(db_options_.max_background_jobs)));
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
    if (cfd->dropped) {
      s = Status::InvalidArgument("CompactRange: the column family was dropped");
      break;
    }
    if (cfd->picker == nullptr) break;  // kCompactionStyleNone has a picker; none: nothing
    // An exclusive manual compaction waits for the automatic ones to finish.
    if (options.exclusive_manual_compaction && compactions_running_ > 0) {
      bg_cv_.Wait(&mu_);
      continue;
    }
    bool conflict = false;
    c = cfd->picker->PickManualCompaction(versions_->current(cfd->id()), cfd->options,
                                          PendingRangesLocked(*cfd), lo, hi, force,
                                          subcompactions, &conflict);
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
                           ? LastWritableLevel(cfd->options, versions_->num_levels(cfd->id()))
                           : options.target_level;
    const bool refit = options.change_level && !c->deletion_only && target < c->output_level();
    std::vector<uint64_t> refit_guard;
    if (refit) {
      for (int level = std::max(1, target); level < c->output_level(); level++) {
        refit_guard.push_back(AddPendingRangeLocked(cfd.get(), level, c->smallest_user_key(),
                                                    c->largest_user_key()));
      }
    }
    s = RunCompactionLocked(cfd.get(), c.get(), progress.enabled() ? &progress : nullptr);
    if (s.ok() && refit && !cfd->dropped) s = RefitCompactionOutputLocked(cfd.get(), *c, target);
    for (uint64_t id : refit_guard) RemovePendingRangeLocked(cfd.get(), id);
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

Status DBImpl::RefitCompactionOutputLocked(ColumnFamilyData* cfd, const Compaction& c,
                                           int target) {
  const int out = c.output_level();
  const std::string lo(c.smallest_user_key()), hi(c.largest_user_key());
  Version* v = versions_->current(cfd->id());
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
  edit.SetColumnFamily(cfd->id());
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
  if (cfd->dropped) return Status::OK();
  if (s.ok()) ReplaceSuperVersionLocked(cfd);
  return s;
}

std::string DBImpl::CompactionStatsString(const ColumnFamilyData& cfd) const {
  const uint32_t cf = cfd.id();
  std::string r = "Level  Files   Size(MB) Comps Moves  Rn(MB) Rnp1(MB) Write(MB) W-Amp  Comp(s)\n";
  uint64_t total_written = 0, total_read = 0, total_micros = 0;
  for (int level = 0; level < versions_->num_levels(cf); level++) {
    LevelCompactionStats st;
    if (static_cast<size_t>(level) < cfd.compaction_stats.size()) st = cfd.compaction_stats[level];
    const double rn = static_cast<double>(st.bytes_read_start) / 1048576.0;
    const double w = static_cast<double>(st.bytes_written) / 1048576.0;
    absl::StrAppendFormat(&r, "L%-5d %5d %10.1f %5d %5d %7.1f %8.1f %9.1f %5.2f %8.2f\n", level,
                          versions_->NumLevelFiles(level, cf),
                          static_cast<double>(versions_->NumLevelBytes(level, cf)) / 1048576.0,
                          st.compactions, st.trivial_moves, rn,
                          static_cast<double>(st.bytes_read_output) / 1048576.0, w,
                          rn > 0 ? w / rn : 0.0, st.micros / 1e6);
    total_written += st.bytes_written;
    total_read += st.bytes_read_start + st.bytes_read_output;
    total_micros += st.micros;
  }
  const double user_mb = static_cast<double>(user_bytes_written_) / 1048576.0;
  const double flushed_mb = static_cast<double>(cfd.flush_stats.bytes_written) / 1048576.0;
  const double compacted_mb = static_cast<double>(total_written) / 1048576.0;
  absl::StrAppendFormat(
      &r,
      "Compaction: read %.1f MB, wrote %.1f MB in %.2f s; flushed %.1f MB; "
      "write amplification (flush + compaction) / user bytes = %.2f\n",
      static_cast<double>(total_read) / 1048576.0, compacted_mb, total_micros / 1e6, flushed_mb,
      user_mb > 0 ? (flushed_mb + compacted_mb) / user_mb : 0.0);
  return r;
}

Status DBImpl::DeleteFilesInRange(ColumnFamilyHandle* column_family,
                                  const std::string_view* begin, const std::string_view* end) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Status s;
  {
    MutexLock lock(&mu_);
    ColumnFamilyData* cfd = nullptr;
    s = LiveFamilyLocked(column_family, "DeleteFilesInRange", &cfd);
    if (!s.ok()) return s;
    if (!bg_error_.ok()) return bg_error_;
    const Comparator* ucmp = icmp_.user_comparator();
    Version* v = versions_->current(cfd->id());
    VersionEdit edit;
    edit.SetColumnFamily(cfd->id());
    std::vector<FileMetaData*> dropped;
    for (int level = 1; level < v->num_levels(); level++) {
      for (FileMetaData* f : v->files(level)) {
        if (f->being_compacted) continue;
        if (begin != nullptr && ucmp->Compare(ExtractUserKey(f->smallest), *begin) < 0) continue;
        if (end != nullptr && ucmp->Compare(ExtractUserKey(f->largest), *end) > 0) continue;
        edit.DeleteFile(level, f->number);
        dropped.push_back(f);
      }
    }
    if (dropped.empty()) return Status::OK();
    // Marked while LogAndApply releases mu_, so that no compaction picks them meanwhile (its
    // edit would delete them a second time); see CompactRange's change_level.
    for (FileMetaData* f : dropped) f->being_compacted = true;
    s = versions_->LogAndApply(&edit, &mu_);
    for (FileMetaData* f : dropped) f->being_compacted = false;
    // The edit may be in the MANIFEST though the files are still live here (a failed sync
    // after the write): the DB goes read-only until Resume rewrites the MANIFEST from the
    // state in memory, as after every failed MANIFEST write.
    if (!s.ok()) RecordBackgroundErrorLocked(s, "DeleteFilesInRange MANIFEST write");
    if (s.ok() && !cfd->dropped) ReplaceSuperVersionLocked(cfd);
    if (s.ok() && info_log_ != nullptr) {
      info_log_->Log("DeleteFilesInRange [%s]: %zu table files dropped", cfd->name().c_str(),
                     dropped.size());
    }
  }
  if (s.ok()) DeleteObsoleteFiles();  // the dropped files, once no reader holds them
  return s;
}

}  // namespace shale
