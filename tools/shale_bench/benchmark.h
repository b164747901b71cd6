// Benchmark: runs the --benchmarks list against one DB, db_bench's way: prints the
// environment and the workload's shape, opens (by default: destroys, then creates) the DB,
// runs each benchmark in order (fresh-DB benchmarks recreate it first), prints a report line
// per benchmark, and keeps the JSON report up to date after each one.
//
// bulkload (bulk_load.cc) is a procedure of its own: it reopens the DB with
// Options::PrepareForBulkLoad(), fills it, compacts it, reports each phase and the total, and
// reopens the DB with the flags' options for the benchmarks after it. bulkload_sorted and
// bulkload_external (bulk_ingest.cc) load a fresh DB through BulkLoader and through
// SstFileWriter + IngestExternalFile, reporting each phase and the total.
//
// postinglist and postinglist_rmw (posting_list_run.cc) run their writers and the reader of
// the hottest list, then print the reader's table after the report line.
//
// A benchmark that fails with NotSupported (a feature ShaleDB has not built yet) is reported as
// skipped and the run goes on; any other error stops the run with a message and a failing exit
// status.
//
// Thread-safety: used by the main thread only; it starts and joins the benchmark threads.
#ifndef SHALE_TOOLS_SHALE_BENCH_BENCHMARK_H_
#define SHALE_TOOLS_SHALE_BENCH_BENCHMARK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark_list.h"
#include "interval_sampler.h"
#include "json_report.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/statistics.h"
#include "thread_stats.h"

namespace shale::bench {

class Benchmark {
 public:
  // REQUIRES: the flags are parsed and CheckFlags() returned OK.
  Benchmark();
  ~Benchmark();

  // Runs `names` (from ParseBenchmarkList). Returns the process exit status: 0 on success.
  int Run(const std::vector<std::string>& names);

 private:
  Status Init();
  // Opens the DB with `options`; with --num_column_families=N > 1, with its N families
  // (created if missing, each with `options`), whose handles go to families_.
  Status OpenDb(const Options& options);
  // Releases the family handles, then closes the DB (if open). `timed`: prints how long Close
  // took (the end of a run):
  //   close(<db>): 0.123 seconds (done at unix time 1795272426.132635)
  // (bench/compare's scale suite reads it: the close time with whatever backlog remains).
  Status CloseDb(bool timed = false);
  // Closes the DB (if open), destroys it and opens it empty with `options`.
  Status RecreateDb(const Options& options);
  Status RunOne(const BenchmarkSpec& spec);
  Status RunTimed(const BenchmarkSpec& spec);
  // Runs `n` threads of `spec` over `env` with the DB's tickers and the throughput series
  // measured around them; their summary in *r and their merged stats in *merged.
  Status TimeThreads(const BenchmarkSpec& spec, const WorkloadEnv& env, int n, BenchResult* r,
                     std::unique_ptr<ThreadStats>* merged);
  // mergerandom, readrandommergerandom: InvalidArgument unless the DB has a merge operator that
  // takes the generated values as operands.
  Status CheckMergeOperator(const BenchmarkSpec& spec) const;
  // postinglist and postinglist_rmw (posting_list_run.cc).
  Status RunPostingList(const BenchmarkSpec& spec);
  // The bulk-load procedure (bulk_load.cc).
  Status RunBulkLoad(const BenchmarkSpec& spec);
  Status BulkLoadFill(const BenchmarkSpec& spec, const WorkloadEnv& env, BenchResult* fill,
                      std::unique_ptr<ThreadStats>* merged);
  Status BulkLoadCompact(BenchResult* compact);
  // bulkload_sorted and bulkload_external, on the fresh DB (bulk_ingest.cc).
  Status RunBulkLoadSorted(const BenchmarkSpec& spec);
  Status RunBulkLoadExternal(const BenchmarkSpec& spec);
  // Starts `n` threads running `spec`'s workload over `env`, waits for them, and returns their
  // merged stats in *merged (null-initialized by the caller).
  Status RunThreads(const BenchmarkSpec& spec, const WorkloadEnv& env, int n,
                    std::unique_ptr<ThreadStats>* merged);
  WorkloadEnv MakeEnv(const BenchmarkSpec& spec) const;
  void Record(BenchResult result);
  Status WriteJson();

  Options options_;  // from the flags; what the DB is open with except during bulkload
  std::string db_path_;
  std::unique_ptr<DB> db_;
  // The handles of the DB's column families with --num_column_families > 1 (owned: released
  // by CloseDb before the DB closes); empty otherwise.
  std::vector<ColumnFamilyHandle*> families_;
  uint64_t seed_base_ = 0;
  int seeds_used_ = 0;
  StatsConfig stats_config_;
  std::unique_ptr<IntervalSampler> sampler_;  // set with --report_interval_seconds or --json
  JsonReport json_;
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_BENCHMARK_H_
