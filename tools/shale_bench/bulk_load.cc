// Benchmark::RunBulkLoad: the bulk-load procedure of Options::PrepareForBulkLoad() as one
// benchmark (see benchmark_list.h). Its phases:
//   1. destroy the DB and open it with the flags' options plus PrepareForBulkLoad() (a
//      Statistics object is attached if the flags did not ask for one: the write
//      amplification comes from its tickers);
//   2. fill: fillrandom of --num keys per thread, without WAL unless --disable_wal is given;
//   3. compact: one CompactRange over every key (kForceOptimized, as db_bench's compact);
//   4. report a line per phase ("bulkload.fill", "bulkload.compact") and the total
//      ("bulkload": --num ops over fill + compact seconds) with the write amplification
//      ((flush + compaction bytes) / user bytes) and the table files per level, then (with
//      --histogram) the fill's latencies;
//   5. reopen the DB with the flags' options for the benchmarks that follow.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "benchmark.h"
#include "db_counters.h"
#include "flags.h"

namespace shale::bench {

namespace {

// The total of a fill and a compaction: the fill's operations and bytes over both phases' time.
BenchResult BulkLoadTotal(const BenchResult& fill, const BenchResult& compact) {
  BenchResult total = fill;
  total.name = "bulkload";
  total.seconds = fill.seconds + compact.seconds;
  total.micros_per_op =
      fill.micros_per_op + compact.seconds * 1e6 / static_cast<double>(fill.ops);
  total.ops_per_sec = static_cast<double>(total.ops) / total.seconds;
  total.mb_per_sec = static_cast<double>(total.bytes) / 1048576.0 / total.seconds;
  total.stall_seconds = fill.stall_seconds + compact.stall_seconds;
  return total;
}

}  // namespace

Status Benchmark::RunBulkLoad(const BenchmarkSpec& spec) {
  Options bulk = options_;
  bulk.PrepareForBulkLoad();
  if (bulk.statistics == nullptr) {
    bulk.statistics = CreateDBStatistics();
    bulk.statistics->set_stats_level(kExceptHistogramOrTimers);
  }
  WorkloadEnv env = MakeEnv(spec);
  const bool wal_given = FlagWasSet("disable_wal");
  env.write_options.disableWAL = wal_given ? absl::GetFlag(FLAGS_disable_wal) : true;
  std::fprintf(stdout,
               "bulkload: Options::PrepareForBulkLoad() over the flags' options; WAL %s%s\n",
               env.write_options.disableWAL ? "disabled" : "enabled",
               wal_given ? " (--disable_wal)" : " (bulkload's default; --disable_wal=0 keeps it)");
  Status s = RecreateDb(bulk);
  if (!s.ok()) return s;
  env.db = db_.get();
  env.families = families_;
  const TickerSnapshot before = TickerSnapshot::Take(bulk.statistics.get());
  BenchResult fill, compact;
  std::unique_ptr<ThreadStats> fill_stats;
  s = BulkLoadFill(spec, env, &fill, &fill_stats);
  if (s.ok()) s = BulkLoadCompact(&compact);
  if (!s.ok()) return s;
  BenchResult total = BulkLoadTotal(fill, compact);
  ApplyTickers(before, TickerSnapshot::Take(bulk.statistics.get()), &total);
  total.message = absl::StrFormat("(write amplification %.2f; files per level %s)",
                                  total.write_amplification, FilesPerLevel(db_.get(), families_));
  total.peak_rss_bytes = PeakRssBytes();
  std::fputs(FormatReportLine(total).c_str(), stdout);
  // The fill's latencies, under the line of the benchmark they belong to.
  if (absl::GetFlag(FLAGS_histogram)) std::fputs(FormatHistograms(*fill_stats).c_str(), stdout);
  Record(std::move(fill));
  Record(std::move(compact));
  Record(std::move(total));
  // The benchmarks after this one run with the flags' options, as after a real bulk load.
  s = CloseDb();
  if (s.ok()) s = OpenDb(options_);
  if (!s.ok()) return s;
  return WriteJson();
}

Status Benchmark::BulkLoadFill(const BenchmarkSpec& spec, const WorkloadEnv& env,
                               BenchResult* fill, std::unique_ptr<ThreadStats>* merged) {
  const int n = absl::GetFlag(FLAGS_threads);
  std::fprintf(stdout, "DB path: [%s]\n", db_path_.c_str());
  if (sampler_ != nullptr) {
    Status s = sampler_->Start();
    if (!s.ok()) return s;
  }
  Status s = RunThreads(spec, env, n, merged);
  std::vector<ThroughputSample> series;
  if (sampler_ != nullptr) series = sampler_->Stop();
  if (!s.ok()) return s;
  *fill = Summarize("bulkload.fill", n, **merged);
  fill->peak_rss_bytes = PeakRssBytes();
  fill->throughput = std::move(series);
  std::fputs(FormatReportLine(*fill).c_str(), stdout);
  return Status::OK();
}

Status Benchmark::BulkLoadCompact(BenchResult* compact) {
  CompactRangeOptions options;
  options.bottommost_level_compaction = BottommostLevelCompaction::kForceOptimized;
  const auto start = std::chrono::steady_clock::now();
  // Every column family (--num_column_families), one after the other.
  const std::vector<ColumnFamilyHandle*> families =
      families_.empty() ? std::vector<ColumnFamilyHandle*>{db_->DefaultColumnFamily()}
                        : families_;
  for (ColumnFamilyHandle* family : families) {
    Status s = db_->CompactRange(options, family, nullptr, nullptr);
    if (!s.ok()) return s;
  }
  compact->name = "bulkload.compact";
  compact->threads = 1;
  compact->ops = 1;
  // As in Summarize: a clock tick of zero would make the rate infinite.
  compact->seconds = std::max(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1e-6);
  compact->micros_per_op = compact->seconds * 1e6;
  compact->ops_per_sec = 1 / compact->seconds;
  compact->peak_rss_bytes = PeakRssBytes();
  std::fputs(FormatReportLine(*compact).c_str(), stdout);
  return Status::OK();
}

}  // namespace shale::bench
