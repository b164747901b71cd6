// Benchmark::RunPostingList: postinglist and postinglist_rmw (posting_list.h) on the fresh DB
// RunOne made: --threads writers and the reader, db_bench's report line (ops are the writers'
// adds), the hottest list's size checked against its adds, and the reader's table.
#include <cinttypes>
#include <cstdio>

#include "absl/flags/flag.h"
#include "benchmark.h"
#include "flags.h"
#include "posting_list.h"

namespace shale::bench {

Status Benchmark::RunPostingList(const BenchmarkSpec& spec) {
  const MergeOperator* op = options_.merge_operator.get();
  const bool by_merge = spec.workload == PostingList;
  if (by_merge && (op == nullptr || std::string_view(op->Name()) != "sortedset64")) {
    return Status::InvalidArgument(
        "--merge_operator", std::string(spec.name) +
                                " needs --merge_operator=sortedset64[:<index_interval>] (got '" +
                                (op == nullptr ? std::string() : op->GetId()) + "')");
  }
  PostingListConfig config = PostingListConfig::FromFlags();
  config.seed = seed_base_;
  config.index_interval = SortedSet64IndexInterval(op);
  PostingListRun run(config);
  WorkloadEnv env = MakeEnv(spec);
  env.posting = &run;

  BenchResult r;
  std::unique_ptr<ThreadStats> merged;
  Status s = TimeThreads(spec, env, config.writers + 1, &r, &merged);
  if (!s.ok()) return s;
  uint64_t hottest_ids = 0;
  s = CheckHottestList(env, run, &hottest_ids);
  if (!s.ok()) return s;
  char msg[160];
  std::snprintf(msg, sizeof(msg), "( %s:%" PRIu64 " lists:%" PRIu64 " hottest:%" PRIu64 " ids)",
                by_merge ? "merges" : "updates", run.total_adds(), config.lists, hottest_ids);
  r.message = msg;
  r.details_json = PostingDetailsJson(run, hottest_ids);
  std::fputs(FormatReportLine(r).c_str(), stdout);
  std::fputs(FormatPostingReport(spec.name, run, hottest_ids).c_str(), stdout);
  if (absl::GetFlag(FLAGS_histogram)) std::fputs(FormatHistograms(*merged).c_str(), stdout);
  Record(std::move(r));
  return WriteJson();
}

}  // namespace shale::bench
