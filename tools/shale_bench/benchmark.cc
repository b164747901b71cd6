#include "benchmark.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "db_counters.h"
#include "environment.h"
#include "flags.h"
#include "generators.h"
#include "options_from_flags.h"

namespace shale::bench {

Benchmark::Benchmark() = default;

Benchmark::~Benchmark() {
  sampler_.reset();
  CloseDb().PermitUncheckedError();
}

Status Benchmark::Init() {
  Status s = OptionsFromFlags(&options_);
  if (!s.ok()) return s;
  const bool json = !absl::GetFlag(FLAGS_json).empty();
  if (absl::GetFlag(FLAGS_statistics) || json) {
    options_.statistics = CreateDBStatistics();
    // The JSON report needs a few tickers only: skip the timers unless asked for.
    if (!absl::GetFlag(FLAGS_statistics)) {
      options_.statistics->set_stats_level(kExceptHistogramOrTimers);
    }
  }
  db_path_ = absl::GetFlag(FLAGS_db);
  if (db_path_.empty()) {
    const std::string parent = "/tmp/shaledbtest-" + std::to_string(geteuid());
    s = options_.file_system->CreateDirIfMissing(parent);
    if (!s.ok()) return s;
    db_path_ = parent + "/dbbench";
  }
  seed_base_ = static_cast<uint64_t>(absl::GetFlag(FLAGS_seed));
  if (seed_base_ == 0) {
    seed_base_ = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
    std::fprintf(stdout, "Set seed to %llu because --seed was 0\n",
                 static_cast<unsigned long long>(seed_base_));
  }
  stats_config_.measure_latency = absl::GetFlag(FLAGS_histogram) || json;
  stats_config_.interval_seconds = absl::GetFlag(FLAGS_stats_interval_seconds);
  stats_config_.progress = isatty(STDERR_FILENO) != 0;
  const int64_t report_interval = absl::GetFlag(FLAGS_report_interval_seconds);
  if (report_interval > 0 || json) {
    sampler_ = std::make_unique<IntervalSampler>(
        std::max<int64_t>(report_interval, 1),
        report_interval > 0 ? absl::GetFlag(FLAGS_report_file) : std::string());
    stats_config_.ops_counter = sampler_->counter();
  }
  if (!absl::GetFlag(FLAGS_use_existing_db)) {
    s = DestroyDB(db_path_, options_);
    if (!s.ok()) return s;
  }
  return OpenDb(options_);
}

Status Benchmark::OpenDb(const Options& options) {
  const int num_families = absl::GetFlag(FLAGS_num_column_families);
  Status s;
  if (num_families <= 1) {
    s = DB::Open(options, db_path_, &db_);
  } else {
    DBOptions db_options(options);
    db_options.create_missing_column_families = true;
    std::vector<ColumnFamilyDescriptor> descriptors;
    for (int i = 0; i < num_families; i++) {
      descriptors.emplace_back(ColumnFamilyName(i), ColumnFamilyOptions(options));
    }
    s = DB::Open(db_options, db_path_, descriptors, &families_, &db_);
  }
  if (!s.ok()) return Status(s.code(), s.subcode(), "cannot open " + db_path_, s.message());
  return s;
}

Status Benchmark::CloseDb(bool timed) {
  if (db_ == nullptr) return Status::OK();
  for (ColumnFamilyHandle* family : families_) {
    db_->DestroyColumnFamilyHandle(family).PermitUncheckedError();
  }
  families_.clear();
  const auto start = std::chrono::steady_clock::now();
  Status s = db_->Close();
  const auto end = std::chrono::steady_clock::now();
  const double done_at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  db_.reset();
  if (s.ok() && timed) {
    std::fprintf(stdout, "close(%s): %.3f seconds (done at unix time %.6f)\n", db_path_.c_str(),
                 std::chrono::duration<double>(end - start).count(), done_at);
  }
  return s;
}

Status Benchmark::RecreateDb(const Options& options) {
  if (db_ != nullptr) {
    Status s = CloseDb();
    if (!s.ok()) return s;
  }
  Status s = DestroyDB(db_path_, options);
  if (!s.ok()) return s;
  return OpenDb(options);
}

int Benchmark::Run(const std::vector<std::string>& names) {
  PrintEnvironment();
  Status s = Init();
  if (s.ok()) {
    PrintWorkloadShape(options_);
    json_.SetString("tool", "shale_bench");
    json_.SetString("engine", "ShaleDB");
    json_.SetString("version", SHALE_VERSION_STRING);
    json_.SetString("date", DateString());
    json_.SetString("db", db_path_);
    json_.SetNumber("num", static_cast<double>(absl::GetFlag(FLAGS_num)));
    json_.SetNumber("threads", absl::GetFlag(FLAGS_threads));
    json_.SetNumber("key_size", absl::GetFlag(FLAGS_key_size));
    json_.SetNumber("value_size", absl::GetFlag(FLAGS_value_size));
    json_.SetString("compression_type", absl::GetFlag(FLAGS_compression_type));
  }
  for (size_t i = 0; s.ok() && i < names.size(); i++) s = RunOne(*FindBenchmark(names[i]));
  if (s.ok() && db_ != nullptr) s = CloseDb(/*timed=*/true);
  if (s.ok()) s = WriteJson();
  if (s.ok() && absl::GetFlag(FLAGS_statistics) && options_.statistics != nullptr) {
    std::fprintf(stdout, "\nSTATISTICS:\n%s", options_.statistics->ToString().c_str());
  }
  std::fflush(stdout);
  if (!s.ok()) {
    std::fprintf(stderr, "shale_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

Status Benchmark::RunOne(const BenchmarkSpec& spec) {
  if (spec.fresh_db && absl::GetFlag(FLAGS_use_existing_db)) {
    std::fprintf(stdout, "%-12s : skipped (--use_existing_db is true)\n",
                 std::string(spec.name).c_str());
    return Status::OK();
  }
  Status s;
  if (spec.variant == Variant::kBulkLoad) {
    s = RunBulkLoad(spec);  // makes its own DB
  } else if (spec.variant == Variant::kBulkLoadSorted ||
             spec.variant == Variant::kBulkLoadExternal) {
    s = RecreateDb(options_);
    if (s.ok()) {
      s = spec.variant == Variant::kBulkLoadSorted ? RunBulkLoadSorted(spec)
                                                   : RunBulkLoadExternal(spec);
    }
  } else {
    if (spec.variant == Variant::kMerge) s = CheckMergeOperator(spec);
    if (s.ok() && spec.fresh_db) s = RecreateDb(options_);
    if (s.ok() && spec.variant == Variant::kPostingList) {
      s = RunPostingList(spec);
    } else if (s.ok()) {
      s = spec.admin != nullptr ? spec.admin(db_.get(), families_, db_path_) : RunTimed(spec);
    }
  }
  if (s.IsNotSupported()) {
    std::fprintf(stdout, "%-12s : skipped (%s)\n", std::string(spec.name).c_str(),
                 s.ToString().c_str());
    return Status::OK();
  }
  if (!s.ok()) return Status(s.code(), s.subcode(), spec.name, s.message());
  std::fflush(stdout);
  return Status::OK();
}

WorkloadEnv Benchmark::MakeEnv(const BenchmarkSpec& spec) const {
  WorkloadEnv env;
  env.db = db_.get();
  env.families = families_;
  env.num = absl::GetFlag(FLAGS_num);
  env.writes = env.num;
  const int64_t reads = absl::GetFlag(FLAGS_reads);
  env.reads = reads < 0 ? env.num : reads;
  env.entries_per_batch = absl::GetFlag(FLAGS_batch_size);
  env.duration = absl::GetFlag(FLAGS_duration);
  env.key_size = absl::GetFlag(FLAGS_key_size);
  env.readwritepercent = absl::GetFlag(FLAGS_readwritepercent);
  env.seek_nexts = absl::GetFlag(FLAGS_seek_nexts);
  env.write_rate_limit = absl::GetFlag(FLAGS_benchmark_write_rate_limit);
  const int64_t merge_keys = absl::GetFlag(FLAGS_merge_keys);
  env.merge_keys = merge_keys < 0 ? env.num : merge_keys;
  env.mergereadpercent = absl::GetFlag(FLAGS_mergereadpercent);
  env.value_shape = ValueShape::FromFlags();
  env.write_options.sync = absl::GetFlag(FLAGS_sync);
  env.write_options.disableWAL = absl::GetFlag(FLAGS_disable_wal);
  if (spec.variant == Variant::kBatch1000) env.entries_per_batch = 1000;
  if (spec.variant == Variant::kSync) {
    // db_bench 7.8: num / 1000 keys, but still --num sync writes.
    env.num = std::max<int64_t>(env.num / 1000, 1);
    env.write_options.sync = true;
  }
  return env;
}

Status Benchmark::RunTimed(const BenchmarkSpec& spec) {
  const WorkloadEnv env = MakeEnv(spec);
  int n = absl::GetFlag(FLAGS_threads);
  if (spec.variant == Variant::kExtraWriter) n++;
  BenchResult r;
  std::unique_ptr<ThreadStats> merged;
  Status s = TimeThreads(spec, env, n, &r, &merged);
  if (!s.ok()) return s;
  if (spec.variant == Variant::kSync && env.num != absl::GetFlag(FLAGS_num) &&
      r.message.empty()) {
    r.message = absl::StrCat("(", env.num, " ops)");
  }
  std::fputs(FormatReportLine(r).c_str(), stdout);
  if (absl::GetFlag(FLAGS_histogram)) std::fputs(FormatHistograms(*merged).c_str(), stdout);
  Record(std::move(r));
  return WriteJson();
}

Status Benchmark::TimeThreads(const BenchmarkSpec& spec, const WorkloadEnv& env, int n,
                              BenchResult* r, std::unique_ptr<ThreadStats>* merged) {
  std::fprintf(stdout, "DB path: [%s]\n", db_path_.c_str());
  const TickerSnapshot before = TickerSnapshot::Take(options_.statistics.get());
  if (sampler_ != nullptr) {
    Status s = sampler_->Start();
    if (!s.ok()) return s;
  }
  Status s = RunThreads(spec, env, n, merged);
  std::vector<ThroughputSample> series;
  if (sampler_ != nullptr) series = sampler_->Stop();
  if (!s.ok()) return s;
  *r = Summarize(spec.name, n, **merged);
  ApplyTickers(before, TickerSnapshot::Take(options_.statistics.get()), r);
  r->peak_rss_bytes = PeakRssBytes();
  r->throughput = std::move(series);
  return Status::OK();
}

Status Benchmark::CheckMergeOperator(const BenchmarkSpec& spec) const {
  const std::string name(spec.name);
  const MergeOperator* op = options_.merge_operator.get();
  if (op == nullptr) {
    return Status::InvalidArgument(
        "--merge_operator", name + " needs a merge operator (e.g. --merge_operator=uint64add "
                                   "--value_size=8)");
  }
  const std::string_view op_name = op->Name();
  const ValueShape shape = ValueShape::FromFlags();
  if (op_name == "uint64add" &&
      (shape.distribution != ValueSizeDistribution::kFixed || shape.fixed_size != 8)) {
    return Status::InvalidArgument(
        "--value_size", "must be 8 (fixed) for " + name + " with uint64add: its operands are "
                        "8-byte integers (RocksDB's operator counts others as 0, ShaleDB's "
                        "fails the merge)");
  }
  if (op_name == "sortedset64") {
    return Status::InvalidArgument(
        "--merge_operator", name + " merges generated values, which are no sortedset64 "
                                   "operands: use the postinglist benchmark");
  }
  return Status::OK();
}

Status Benchmark::RunThreads(const BenchmarkSpec& spec, const WorkloadEnv& env, int n,
                             std::unique_ptr<ThreadStats>* merged) {
  SharedState shared(n);
  shared.readers_running.store(spec.variant == Variant::kExtraWriter ? n - 1 : n);
  std::vector<std::unique_ptr<ThreadState>> states;
  for (int i = 0; i < n; i++) {
    states.push_back(std::make_unique<ThreadState>(
        i, seed_base_ + static_cast<uint64_t>(seeds_used_++), stats_config_, &shared));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < n; i++) {
    threads.emplace_back([&spec, &env, state = states[i].get()] {
      state->shared->Arrive();
      state->shared->WaitForStart();
      state->stats.Start();
      spec.workload(env, state);
      state->stats.Stop();
      state->shared->Done();
    });
  }
  shared.WaitAllArrived();
  shared.Go();
  shared.WaitAllDone();
  for (std::thread& t : threads) t.join();
  if (shared.failed()) {
    const Status e = shared.error();
    const std::string context = shared.error_context();
    return context.empty() ? e : Status(e.code(), e.subcode(), context, e.message());
  }
  for (const auto& state : states) {
    if (state->stats.exclude_from_merge()) continue;
    if (*merged == nullptr) {
      *merged = std::make_unique<ThreadStats>(state->stats);
    } else {
      (*merged)->Merge(state->stats);
    }
  }
  return Status::OK();
}

void Benchmark::Record(BenchResult result) { json_.Add(std::move(result)); }

Status Benchmark::WriteJson() {
  const std::string path = absl::GetFlag(FLAGS_json);
  return path.empty() ? Status::OK() : json_.WriteTo(path);
}

}  // namespace shale::bench
