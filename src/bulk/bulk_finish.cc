// BulkLoader::Finish: sorts the last buffer, plans the merge within the descriptor and memory
// budgets (merge_plan.h), merges groups of run files into longer runs while there are more
// than the plan's fan-in, cuts the key space into one range per merge thread (key_ranges.h),
// merges the remaining runs over each range on its own thread into table files (run_merger.h,
// table_sink.h), ingests all the files at once and removes the temporary files.
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bulk/key_ranges.h"
#include "bulk/loader_rep.h"
#include "bulk/merge_plan.h"
#include "bulk/run_cursor.h"
#include "bulk/run_merger.h"
#include "bulk/table_sink.h"

namespace shale {

namespace {

// Descriptors left for the rest of the process when the budget is automatic (WAL and MANIFEST
// switches, the info log, ingestion, the caller's own files).
constexpr uint64_t kDescriptorReserve = 32;
// Samples taken from a sorted buffer in memory to split the key space.
constexpr size_t kSamplesPerBuffer = 4096;

// The sorted runs Finish merges, oldest first within each kind: run files are older than the
// buffers in memory.
struct Runs {
  std::vector<bulk::RunFileInfo> files;
  std::vector<const bulk::SortBuffer*> buffers;
};

// What one merge thread wrote.
struct RangeOutput {
  Status status;
  std::vector<std::string> files;
  uint64_t file_bytes = 0;
  uint64_t entries = 0;
};

// Merges the runs' keys in [*lower, *upper) (null: unbounded) into table files named
// <file_prefix>r<range>-NNNNNN.sst; every file created is added to `temp_files`.
void MergeRange(const bulk::LoaderSettings& settings, const InternalKeyComparator& icmp,
                const bulk::MergePlan& plan, const Runs& runs, const std::string* lower,
                const std::string* upper, int range, bulk::TempFiles* temp_files,
                bulk::BufferAccount* account, ProgressReporter* progress, RangeOutput* out) {
  const std::string_view lower_view = lower != nullptr ? std::string_view(*lower) : "";
  const std::string_view* lower_ptr = lower != nullptr ? &lower_view : nullptr;
  std::vector<std::unique_ptr<bulk::RunCursor>> cursors;
  for (const bulk::RunFileInfo& info : runs.files) {
    std::unique_ptr<bulk::RunFileCursor> cursor;
    out->status = bulk::RunFileCursor::Open(settings.fs.get(), info, settings.comparator,
                                            lower_ptr, plan.buffer_size, account, &cursor);
    if (!out->status.ok()) return;
    cursors.push_back(std::move(cursor));
  }
  for (const bulk::SortBuffer* buffer : runs.buffers) {
    cursors.push_back(std::make_unique<bulk::MemoryRunCursor>(*buffer, lower_ptr, nullptr));
  }
  bulk::RunMerger merger(std::move(cursors), settings.comparator,
                         bulk::IsBytewiseComparator(settings.comparator), upper);

  bulk::TableSinkOptions sink_options;
  sink_options.file_system = settings.fs.get();
  sink_options.table_options = settings.table_options;
  sink_options.compression = settings.compression;
  sink_options.compression_level = settings.compression_level;
  sink_options.comparator = &icmp;
  sink_options.target_file_size = settings.target_file_size;
  char name[16];
  std::snprintf(name, sizeof(name), "r%02d-", range);
  sink_options.path_prefix = settings.file_prefix + name;
  bulk::TableFileSink sink(std::move(sink_options));

  Status s;
  ProgressBatch batch(progress);
  for (; s.ok() && merger.Valid(); merger.Next()) {
    s = sink.Add(merger.key(), merger.value());
    batch.Add(merger.key().size() + merger.value().size());
  }
  batch.Flush();
  if (s.ok()) s = merger.status();
  if (s.ok()) s = sink.Finish();
  temp_files->Add(sink.created_files());
  out->status = s;
  out->files = sink.files();
  out->file_bytes = sink.file_bytes();
  out->entries = sink.entries();
}

// Runs work(i) for i in [0, n) on up to `threads` threads (the caller's among them).
void RunParallel(size_t n, int threads, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) work(i);
  };
  std::vector<std::thread> helpers;
  const size_t helper_count = std::min<size_t>(n, static_cast<size_t>(threads)) - (n > 0 ? 1 : 0);
  for (size_t t = 0; t < helper_count; t++) helpers.emplace_back(loop);
  loop();
  for (std::thread& t : helpers) t.join();
}

// Merges the run files of `group` (consecutive, oldest first) into one new run at *merged.
Status MergeGroup(const bulk::LoaderSettings& settings, const bulk::MergePlan& plan,
                  const std::vector<bulk::RunFileInfo>& files, bulk::RunGroup group,
                  const std::string& path, bulk::TempFiles* temp_files,
                  bulk::BufferAccount* account, ProgressReporter* progress,
                  bulk::RunFileInfo* merged) {
  uint64_t bytes = 0;
  std::vector<std::unique_ptr<bulk::RunCursor>> cursors;
  for (size_t i = group.begin; i < group.end; i++) {
    std::unique_ptr<bulk::RunFileCursor> cursor;
    Status s = bulk::RunFileCursor::Open(settings.fs.get(), files[i], settings.comparator,
                                         nullptr, plan.buffer_size, account, &cursor);
    if (!s.ok()) return s;
    cursors.push_back(std::move(cursor));
    bytes += files[i].bytes;
  }
  bulk::RunMerger merger(std::move(cursors), settings.comparator,
                         bulk::IsBytewiseComparator(settings.comparator), nullptr);
  temp_files->Add(path);
  return bulk::WriteMergedRunFile(settings.fs.get(), path, &merger, bulk::RunSampleBytes(bytes),
                                  plan.buffer_size, account, merged, progress);
}

// Merges groups of run files into longer runs until at most plan.fan_in are left, deleting
// each group's files once merged. *files stays oldest first; *passes counts the passes.
Status ReduceRuns(const bulk::LoaderSettings& settings, const bulk::MergePlan& plan,
                  const std::function<std::string()>& next_run_path,
                  bulk::TempFiles* temp_files, bulk::BufferAccount* account,
                  ProgressReporter* progress, std::vector<bulk::RunFileInfo>* files,
                  uint64_t* passes) {
  for (;;) {
    const std::vector<bulk::RunGroup> groups = bulk::PlanPass(files->size(), plan.fan_in);
    if (groups.empty()) return Status::OK();
    ++*passes;
    std::vector<std::string> paths;
    for (size_t g = 0; g < groups.size(); g++) paths.push_back(next_run_path());
    std::vector<bulk::RunFileInfo> merged(groups.size());
    std::vector<Status> statuses(groups.size());
    RunParallel(groups.size(), plan.threads, [&](size_t g) {
      statuses[g] = MergeGroup(settings, plan, *files, groups[g], paths[g], temp_files, account,
                               progress, &merged[g]);
      if (!statuses[g].ok()) return;
      for (size_t i = groups[g].begin; i < groups[g].end; i++) {
        // A file left here is removed with the others at the end.
        settings.fs->DeleteFile((*files)[i].path).PermitUncheckedError();
      }
    });
    for (const Status& s : statuses) {
      if (!s.ok()) return s;
    }
    std::vector<bulk::RunFileInfo> next;
    size_t i = 0;
    for (size_t g = 0; g < groups.size(); g++) {
      for (; i < groups[g].begin; i++) next.push_back(std::move((*files)[i]));
      next.push_back(std::move(merged[g]));
      i = groups[g].end;
    }
    for (; i < files->size(); i++) next.push_back(std::move((*files)[i]));
    *files = std::move(next);
  }
}

// Merges `runs` on up to plan.threads threads, one key range each; the table files, in key
// order, go to *out. REQUIRES: runs.files.size() <= plan.fan_in.
Status MergeAll(const bulk::LoaderSettings& settings, const InternalKeyComparator& icmp,
                const bulk::MergePlan& plan, const Runs& runs, bulk::TempFiles* temp_files,
                bulk::BufferAccount* account, ProgressReporter* progress, RangeOutput* out) {
  std::vector<bulk::KeySample> samples;
  for (const bulk::RunFileInfo& info : runs.files) bulk::SampleRunFile(info, &samples);
  for (const bulk::SortBuffer* buffer : runs.buffers) {
    bulk::SampleSortBuffer(*buffer, kSamplesPerBuffer, &samples);
  }
  const std::vector<std::string> splits =
      bulk::SplitKeySpace(std::move(samples), plan.threads, settings.comparator);
  const size_t ranges = splits.size() + 1;
  std::vector<RangeOutput> outputs(ranges);
  RunParallel(ranges, plan.threads, [&](size_t r) {
    MergeRange(settings, icmp, plan, runs, r > 0 ? &splits[r - 1] : nullptr,
               r + 1 < ranges ? &splits[r] : nullptr, static_cast<int>(r), temp_files, account,
               progress, &outputs[r]);
  });
  for (RangeOutput& o : outputs) {
    if (!o.status.ok()) return o.status;
    out->files.insert(out->files.end(), o.files.begin(), o.files.end());
    out->file_bytes += o.file_bytes;
    out->entries += o.entries;
  }
  return Status::OK();
}

// Entries the passes of ReduceRuns will merge (before the final merge): PlanPass replayed over
// the files' entry counts. An upper bound: a merge drops duplicate keys.
uint64_t EntriesOfPasses(const std::vector<bulk::RunFileInfo>& files, int fan_in) {
  std::vector<uint64_t> entries;
  for (const bulk::RunFileInfo& f : files) entries.push_back(f.entries);
  uint64_t total = 0;
  for (;;) {
    const std::vector<bulk::RunGroup> groups = bulk::PlanPass(entries.size(), fan_in);
    if (groups.empty()) return total;
    std::vector<uint64_t> next;
    size_t i = 0;
    for (const bulk::RunGroup& g : groups) {
      for (; i < g.begin; i++) next.push_back(entries[i]);
      uint64_t merged = 0;
      for (; i < g.end; i++) merged += entries[i];
      next.push_back(merged);
      total += merged;
    }
    for (; i < entries.size(); i++) next.push_back(entries[i]);
    entries = std::move(next);
  }
}

}  // namespace

Status BulkLoader::Rep::Ingest(const std::vector<std::string>& files) {
  if (files.empty()) return Status::OK();
  IngestExternalFileOptions ingest;
  ingest.move_files = true;
  Status s = db->IngestExternalFile(settings.column_family, files, ingest);
  if (s.ok()) return s;
  return Status(s.code(), s.subcode(),
                absl::StrCat("BulkLoader::Finish: ingesting ", files.size(), " table files"),
                s.message());
}

Status BulkLoader::Rep::Finish(BulkLoadResult* result) {
  if (!status.ok()) return status;
  if (finished) return Status::InvalidArgument("BulkLoader::Finish called twice");
  finished = true;
  const Clock::time_point start = Clock::now();
  // Reports until Finish returns (its destructor sends the final report, on failure too).
  ProgressReporter progress("bulk_load", settings.progress, settings.progress_interval_seconds);
  BulkLoadResult r;
  r.add_seconds = std::chrono::duration<double>(start - opened_at).count();
  double waited = 0;
  Status s = WaitForSpill(&waited);
  if (!s.ok()) return Fail(s);
  SortFilling();
  r.sort_seconds = sort_seconds;
  Runs all;
  {
    MutexLock lock(&mu);
    all.files = runs;
    r.runs_spilled = runs.size();
    for (const bulk::RunFileInfo& info : runs) r.spilled_bytes += info.bytes;
    r.spill_seconds = spill_seconds;
  }
  if (held != nullptr && !held_spilled) all.buffers.push_back(held.get());
  all.buffers.push_back(filling.get());

  const Clock::time_point merge_start = Clock::now();
  RangeOutput written;
  bulk::BufferAccount account;
  if (entries_added > 0) {
    const uint64_t descriptors =
        settings.max_open_files > 0
            ? settings.max_open_files
            : bulk::FreeDescriptors(kDescriptorReserve + settings.db_max_open_files);
    const bulk::MergePlan plan =
        bulk::PlanMerge(descriptors, settings.memory_budget, settings.threads, all.files.size());
    r.merge_threads = static_cast<uint64_t>(plan.threads);
    r.merge_fan_in = static_cast<uint64_t>(plan.fan_in);
    // The work: every pass's entries, then every entry once more in the final merge; bytes at
    // the loaded entries' mean size.
    const uint64_t pass_entries = EntriesOfPasses(all.files, plan.fan_in);
    const uint64_t work = pass_entries + entries_added;
    progress.SetTotals(static_cast<uint64_t>(static_cast<double>(work) *
                                             static_cast<double>(bytes_added) /
                                             static_cast<double>(entries_added)),
                       work);
    if (pass_entries > 0) progress.SetStage("merge_runs");
    s = ReduceRuns(
        settings, plan,
        [this] {
          MutexLock lock(&mu);
          return NextRunPath();
        },
        &temp_files, &account, &progress, &all.files, &r.merge_passes);
    progress.SetStage("write_tables");
    if (s.ok()) {
      s = MergeAll(settings, icmp, plan, all, &temp_files, &account, &progress, &written);
    }
  }
  r.merge_buffer_bytes = account.peak();
  r.merge_seconds = SecondsSince(merge_start);
  // The buffers' memory is not needed any more.
  all.buffers.clear();
  filling.reset();
  held.reset();
  if (!s.ok()) return Fail(s);

  const Clock::time_point ingest_start = Clock::now();
  progress.SetStage("ingest");
  s = Ingest(written.files);
  if (!s.ok()) return Fail(s);
  r.ingest_seconds = SecondsSince(ingest_start);
  // The load is in the DB: a file left behind here is not worth failing it for.
  RemoveTempFiles();

  r.entries_added = entries_added;
  r.entries_loaded = written.entries;
  r.duplicates_dropped = entries_added - written.entries;
  r.files = written.files.size();
  r.file_bytes = written.file_bytes;
  r.stall_seconds = stall_seconds;
  r.finish_seconds = SecondsSince(start);
  if (result != nullptr) *result = r;
  return Status::OK();
}

}  // namespace shale
