// BulkLoader::Finish: sorts the last buffer, cuts the key space into one range per merge
// thread (key_ranges.h), merges every run over each range on its own thread into table files
// (run_merger.h, table_sink.h), ingests all the files at once and removes the temporary
// files.
#include <cstdio>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bulk/key_ranges.h"
#include "bulk/loader_rep.h"
#include "bulk/run_cursor.h"
#include "bulk/run_merger.h"
#include "bulk/table_sink.h"

namespace shale {

namespace {

// Bytes each merge thread reads from a run file at a time.
constexpr size_t kRunReadBuffer = 1 << 20;
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
                const Runs& runs, const std::string* lower,
                const std::string* upper, int range, bulk::TempFiles* temp_files,
                RangeOutput* out) {
  const std::string_view lower_view = lower != nullptr ? std::string_view(*lower) : "";
  const std::string_view* lower_ptr = lower != nullptr ? &lower_view : nullptr;
  std::vector<std::unique_ptr<bulk::RunCursor>> cursors;
  for (const bulk::RunFileInfo& info : runs.files) {
    std::unique_ptr<bulk::RunFileCursor> cursor;
    out->status = bulk::RunFileCursor::Open(settings.fs.get(), info, settings.comparator,
                                            lower_ptr, kRunReadBuffer, &cursor);
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
  for (; s.ok() && merger.Valid(); merger.Next()) s = sink.Add(merger.key(), merger.value());
  if (s.ok()) s = merger.status();
  if (s.ok()) s = sink.Finish();
  temp_files->Add(sink.created_files());
  out->status = s;
  out->files = sink.files();
  out->file_bytes = sink.file_bytes();
  out->entries = sink.entries();
}

// Merges `runs` on up to settings.threads threads, one key range each; the table files, in
// key order, go to *out.
Status MergeAll(const bulk::LoaderSettings& settings, const InternalKeyComparator& icmp,
                const Runs& runs, bulk::TempFiles* temp_files,
                RangeOutput* out) {
  std::vector<bulk::KeySample> samples;
  for (const bulk::RunFileInfo& info : runs.files) bulk::SampleRunFile(info, &samples);
  for (const bulk::SortBuffer* buffer : runs.buffers) {
    bulk::SampleSortBuffer(*buffer, kSamplesPerBuffer, &samples);
  }
  const std::vector<std::string> splits =
      bulk::SplitKeySpace(std::move(samples), settings.threads, settings.comparator);
  const size_t ranges = splits.size() + 1;
  std::vector<RangeOutput> outputs(ranges);
  auto work = [&](size_t r) {
    MergeRange(settings, icmp, runs, r > 0 ? &splits[r - 1] : nullptr, r + 1 < ranges ? &splits[r] : nullptr,
               static_cast<int>(r), temp_files, &outputs[r]);
  };
  std::vector<std::thread> helpers;
  for (size_t r = 1; r < ranges; r++) helpers.emplace_back(work, r);
  work(0);
  for (std::thread& t : helpers) t.join();
  for (RangeOutput& o : outputs) {
    if (!o.status.ok()) return o.status;
    out->files.insert(out->files.end(), o.files.begin(), o.files.end());
    out->file_bytes += o.file_bytes;
    out->entries += o.entries;
  }
  return Status::OK();
}

}  // namespace

Status BulkLoader::Rep::Ingest(const std::vector<std::string>& files) {
  if (files.empty()) return Status::OK();
  IngestExternalFileOptions ingest;
  ingest.move_files = true;
  Status s = db->IngestExternalFile(files, ingest);
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
  if (entries_added > 0) s = MergeAll(settings, icmp, all, &temp_files, &written);
  r.merge_seconds = SecondsSince(merge_start);
  // The buffers' memory is not needed any more.
  all.buffers.clear();
  filling.reset();
  held.reset();
  if (!s.ok()) return Fail(s);

  const Clock::time_point ingest_start = Clock::now();
  s = Ingest(written.files);
  if (!s.ok()) return Fail(s);
  r.ingest_seconds = SecondsSince(ingest_start);
  // The load is in the DB: a file left behind here is not worth failing it for.
  temp_files.RemoveAll().PermitUncheckedError();

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
