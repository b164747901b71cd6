// The two bulk-ingestion benchmarks (see benchmark_list.h), each on a fresh DB with the flags'
// options, reporting a line per phase and the total. With --num_column_families=N, key k goes
// to family k % N: bulkload_sorted feeds one BulkLoader per family (the memory budget split
// between them; finished one after the other) and bulkload_external writes and ingests each
// family's files apart.
//
//   bulkload_sorted    shale::BulkLoader fed --num pairs in random order (fillrandom's keys,
//                      duplicates included: the last one wins), then Finish (sort, merge,
//                      write table files, ingest). Phases: .add (the Add loop, values
//                      generated as fillrandom does), .merge (Finish up to ingestion), .ingest;
//                      total "bulkload_sorted": --num ops over add + Finish, MB/s of user data.
//                      Budget and threads: --bulkload_memory_budget, --bulkload_threads.
//   bulkload_external  RocksDB's SstFileWriter + IngestExternalFile path: --num pairs
//                      (fillrandom's keys) sorted in memory, duplicates dropped (the last one
//                      wins) -- the .prepare line, not part of the total --, then written by
//                      one SstFileWriter into files cut at --target_file_size_base (.write)
//                      and ingested with move_files (.ingest). Total "bulkload_external": the
//                      distinct entries over write + ingest.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "benchmark.h"
#include "db_counters.h"
#include "flags.h"
#include "shale/bulk_loader.h"
#include "shale/sst_file_writer.h"

namespace shale::bench {

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A report line for a phase measured by its wall time alone.
BenchResult Phase(std::string name, uint64_t ops, uint64_t bytes, double seconds) {
  BenchResult r;
  r.name = std::move(name);
  r.threads = 1;
  r.ops = std::max<uint64_t>(ops, 1);
  r.bytes = bytes;
  r.seconds = std::max(seconds, 1e-6);
  r.micros_per_op = r.seconds * 1e6 / static_cast<double>(r.ops);
  r.ops_per_sec = static_cast<double>(r.ops) / r.seconds;
  r.mb_per_sec = static_cast<double>(bytes) / 1048576.0 / r.seconds;
  r.peak_rss_bytes = PeakRssBytes();
  return r;
}

// `add` stretched over `extra_seconds` more (a total line).
BenchResult Stretch(BenchResult add, std::string name, double extra_seconds) {
  add.name = std::move(name);
  add.seconds += extra_seconds;
  add.micros_per_op += extra_seconds * 1e6 / static_cast<double>(add.ops);
  add.ops_per_sec = static_cast<double>(add.ops) / add.seconds;
  add.mb_per_sec = static_cast<double>(add.bytes) / 1048576.0 / add.seconds;
  add.peak_rss_bytes = PeakRssBytes();
  return add;
}

void Print(const BenchResult& r) { std::fputs(FormatReportLine(r).c_str(), stdout); }

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / 1048576.0; }

CompressionType TableCompression(const Options& o) {
  return o.bottommost_compression != kDisableCompressionOption ? o.bottommost_compression
                                                               : o.compression;
}

// The pairs of bulkload_external, generated and sorted before the timed phases.
struct ExternalEntry {
  uint64_t key;
  std::string_view value;  // a slice of the value generator's buffer
};

// Writes `entries` with SstFileWriter into files in `dir` cut at the DB's
// target_file_size_base; the files made go to *files (also on failure).
Status WriteExternalFiles(const Options& options, const std::string& dir,
                          const std::vector<ExternalEntry>& entries, int key_size,
                          std::vector<std::string>* files, uint64_t* user_bytes,
                          uint64_t* file_bytes) {
  Status s = options.file_system->CreateDirIfMissing(dir);
  KeyFormatter keys(key_size);
  std::unique_ptr<SstFileWriter> open;
  ExternalSstFileInfo info;
  for (size_t i = 0; s.ok() && i < entries.size(); i++) {
    if (open == nullptr) {
      open = std::make_unique<SstFileWriter>(options.table_options, TableCompression(options),
                                             options.comparator, options.file_system);
      files->push_back(absl::StrFormat("%s/%06d.sst", dir, files->size() + 1));
      s = open->Open(files->back());
      if (!s.ok()) break;
    }
    const std::string_view key = keys.Format(entries[i].key);
    s = open->Put(key, entries[i].value);
    *user_bytes += key.size() + entries[i].value.size();
    if (s.ok() && (open->FileSize() >= options.target_file_size_base || i + 1 == entries.size())) {
      s = open->Finish(&info);
      *file_bytes += info.file_size;
      open.reset();
    }
  }
  return s;
}

}  // namespace

Status Benchmark::RunBulkLoadSorted(const BenchmarkSpec& spec) {
  const WorkloadEnv env = MakeEnv(spec);
  // One loader per column family (--num_column_families): key k goes to the loader of family
  // k % N, and the memory budget is split between them.
  const std::vector<ColumnFamilyHandle*> families = env.AllFamilies();
  BulkLoaderOptions lo;
  lo.memory_budget = std::max<uint64_t>(absl::GetFlag(FLAGS_bulkload_memory_budget) /
                                            families.size(),
                                        uint64_t{64} << 10);
  lo.threads = absl::GetFlag(FLAGS_bulkload_threads);
  lo.max_open_files = absl::GetFlag(FLAGS_bulkload_max_open_files);
  std::fprintf(stdout,
               "DB path: [%s]\nbulkload_sorted: memory budget %llu bytes (%.1f MiB)%s, %d "
               "threads%s\n",
               db_path_.c_str(), static_cast<unsigned long long>(lo.memory_budget),
               MiB(lo.memory_budget), families.size() > 1 ? " per column family" : "",
               lo.threads,
               lo.threads == 0 ? " (0: the DB's max_background_jobs, at least 2)" : "");
  SharedState shared(1);
  ThreadState state(0, seed_base_ + static_cast<uint64_t>(seeds_used_++), stats_config_,
                    &shared);
  KeyFormatter keys(env.key_size);
  ValueGenerator values(env.value_shape, state.rand.Next64());
  std::vector<std::unique_ptr<BulkLoader>> loaders(families.size());
  state.stats.Start();
  Status s;
  for (size_t f = 0; s.ok() && f < families.size(); f++) {
    BulkLoaderOptions family_options = lo;
    family_options.column_family = families[f];
    // Each loader spills into a directory of its own.
    if (f > 0) family_options.temp_dir = absl::StrFormat("%s/bulkload.tmp.%d", db_path_, f);
    s = BulkLoader::Open(db_.get(), family_options, &loaders[f]);
  }
  for (int64_t i = 0; s.ok() && i < env.num; i++) {
    const uint64_t k = RandomKeyNumber(env, &state);
    const std::string_view key = keys.Format(k);
    const std::string_view value = values.Next();
    s = loaders[k % loaders.size()]->Add(key, value);
    state.stats.AddBytes(static_cast<int64_t>(key.size() + value.size()));
    state.stats.FinishedOps(1, OpType::kWrite);
  }
  state.stats.Stop();
  if (!s.ok()) return s;
  BenchResult add = Summarize("bulkload_sorted.add", 1, state.stats);
  add.peak_rss_bytes = PeakRssBytes();
  const Clock::time_point finish_start = Clock::now();
  // The loaders' results added up (one after the other, so their times add up too).
  BulkLoadResult r;
  for (size_t f = 0; s.ok() && f < loaders.size(); f++) {
    BulkLoadResult one;
    s = loaders[f]->Finish(&one);
    r.entries_loaded += one.entries_loaded;
    r.runs_spilled += one.runs_spilled;
    r.spilled_bytes += one.spilled_bytes;
    r.files += one.files;
    r.file_bytes += one.file_bytes;
    r.sort_seconds += one.sort_seconds;
    r.spill_seconds += one.spill_seconds;
    r.stall_seconds += one.stall_seconds;
    r.ingest_seconds += one.ingest_seconds;
    r.finish_seconds += one.finish_seconds;
  }
  const double finish_seconds = Since(finish_start);
  if (!s.ok()) return s;
  BenchResult merge = Phase("bulkload_sorted.merge", r.entries_loaded, r.file_bytes,
                            r.finish_seconds - r.ingest_seconds);
  merge.message = absl::StrFormat("(%d runs spilled, %.1f MiB; %d files, %.1f MiB)",
                                  r.runs_spilled, MiB(r.spilled_bytes), r.files,
                                  MiB(r.file_bytes));
  BenchResult ingest = Phase("bulkload_sorted.ingest", r.files, 0, r.ingest_seconds);
  BenchResult total = Stretch(add, "bulkload_sorted", finish_seconds);
  total.message = absl::StrFormat(
      "(%d distinct keys; sort %.3f s, spill %.3f s, add waited %.3f s; files per level %s)",
      r.entries_loaded, r.sort_seconds, r.spill_seconds, r.stall_seconds,
      FilesPerLevel(db_.get(), families_));
  for (const BenchResult* line : {&add, &merge, &ingest, &total}) Print(*line);
  if (absl::GetFlag(FLAGS_histogram)) std::fputs(FormatHistograms(state.stats).c_str(), stdout);
  for (BenchResult* line : {&add, &merge, &ingest, &total}) Record(std::move(*line));
  return WriteJson();
}

Status Benchmark::RunBulkLoadExternal(const BenchmarkSpec& spec) {
  const WorkloadEnv env = MakeEnv(spec);
  std::fprintf(stdout, "DB path: [%s]\n", db_path_.c_str());
  SharedState shared(1);
  ThreadState state(0, seed_base_ + static_cast<uint64_t>(seeds_used_++), stats_config_,
                    &shared);
  ValueGenerator values(env.value_shape, state.rand.Next64());
  // Prepare: fillrandom's pairs, sorted by key; of equal keys the last one stays.
  const Clock::time_point prepare_start = Clock::now();
  std::vector<ExternalEntry> entries(static_cast<size_t>(env.num));
  for (ExternalEntry& e : entries) e = {RandomKeyNumber(env, &state), values.Next()};
  std::stable_sort(entries.begin(), entries.end(),
                   [](const ExternalEntry& a, const ExternalEntry& b) { return a.key < b.key; });
  size_t distinct = 0;
  for (size_t i = 0; i < entries.size(); i++) {
    if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;
    entries[distinct++] = entries[i];
  }
  entries.resize(distinct);
  BenchResult prepare = Phase("bulkload_external.prepare", static_cast<uint64_t>(env.num), 0,
                              Since(prepare_start));
  Print(prepare);
  Record(std::move(prepare));

  // The files of each column family (--num_column_families: key k in family k % N) are
  // written apart, then ingested into their family.
  const std::vector<ColumnFamilyHandle*> families = env.AllFamilies();
  std::vector<std::vector<ExternalEntry>> by_family(families.size());
  for (const ExternalEntry& e : entries) by_family[e.key % families.size()].push_back(e);
  std::vector<std::string> files;
  std::vector<std::vector<std::string>> family_files(families.size());
  uint64_t user_bytes = 0, file_bytes = 0;
  const Clock::time_point write_start = Clock::now();
  const std::string dir = db_path_ + "/external.tmp";
  Status s;
  for (size_t f = 0; s.ok() && f < families.size(); f++) {
    if (by_family[f].empty()) continue;
    const size_t before = files.size();
    s = WriteExternalFiles(options_, dir, by_family[f], env.key_size, &files, &user_bytes,
                           &file_bytes);
    family_files[f].assign(files.begin() + static_cast<std::ptrdiff_t>(before), files.end());
  }
  const double write_seconds = Since(write_start);
  const Clock::time_point ingest_start = Clock::now();
  for (size_t f = 0; s.ok() && f < families.size(); f++) {
    if (family_files[f].empty()) continue;
    IngestExternalFileOptions io;
    io.move_files = true;
    s = db_->IngestExternalFile(families[f], family_files[f], io);
  }
  const double ingest_seconds = Since(ingest_start);
  for (const std::string& f : files) options_.file_system->DeleteFile(f).PermitUncheckedError();
  options_.file_system->DeleteDir(dir).PermitUncheckedError();
  if (!s.ok()) return s;
  BenchResult write = Phase("bulkload_external.write", distinct, user_bytes, write_seconds);
  write.message = absl::StrFormat("(%d files, %.1f MiB)", files.size(), MiB(file_bytes));
  BenchResult ingest = Phase("bulkload_external.ingest", files.size(), 0, ingest_seconds);
  BenchResult total = Stretch(write, "bulkload_external", ingest_seconds);
  total.message = absl::StrFormat("(%d distinct keys of %d; files per level %s)", distinct,
                                  env.num, FilesPerLevel(db_.get(), families_));
  for (const BenchResult* line : {&write, &ingest, &total}) Print(*line);
  for (BenchResult* line : {&write, &ingest, &total}) Record(std::move(*line));
  return WriteJson();
}

}  // namespace shale::bench
