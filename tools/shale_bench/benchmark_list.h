// The benchmarks shale_bench knows, by db_bench's names, and how each is run: a timed workload
// run by --threads threads (reported with db_bench's line), or an untimed admin step (flush,
// waitforcompaction, stats, levelstats, sstables) that prints what it did. Five are ShaleDB's
// own: bulkload, the bulk-load procedure (PrepareForBulkLoad, fillrandom, CompactRange) timed as
// a whole; bulkload_sorted, fillrandom's pairs through shale::BulkLoader; bulkload_external,
// the same pairs sorted in memory, written with SstFileWriter and ingested; postinglist and
// postinglist_rmw, the posting-list workload by merges and by read-modify-write (posting_list.h).
#ifndef SHALE_TOOLS_SHALE_BENCH_BENCHMARK_LIST_H_
#define SHALE_TOOLS_SHALE_BENCH_BENCHMARK_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "shale/db.h"
#include "shale/status.h"
#include "workloads.h"

namespace shale::bench {

// An untimed step over the open DB and its column families (--num_column_families; empty: the
// default family only); prints its output to stdout.
using AdminFn = Status (*)(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                           const std::string& db_path);

// Adjustments db_bench makes for some benchmarks.
enum class Variant {
  kPlain,
  kSync,         // fillsync: sync writes over a key space of num / 1000
  kBatch1000,    // fillbatch: 1000 entries per batch
  kExtraWriter,  // readwhilewriting: one more thread, which writes
  kBulkLoad,     // bulkload: the bulk-load procedure around a fillrandom (bulk_load.cc)
  kBulkLoadSorted,    // bulkload_sorted: BulkLoader over fillrandom's pairs (bulk_ingest.cc)
  kBulkLoadExternal,  // bulkload_external: SstFileWriter + ingestion (bulk_ingest.cc)
  kMerge,        // mergerandom, readrandommergerandom: need a merge operator for generated values
  kPostingList,  // postinglist, postinglist_rmw: writers and a reader (posting_list_run.cc)
};

// Which flag-derived count a workload's threads each perform.
enum class OpCount { kWrites, kReads };

struct BenchmarkSpec {
  std::string_view name;
  WorkloadFn workload = nullptr;  // set for timed benchmarks
  AdminFn admin = nullptr;        // set for admin steps
  bool fresh_db = false;          // destroys and recreates the DB first (fill*)
  OpCount ops = OpCount::kReads;
  Variant variant = Variant::kPlain;
};

// The spec of `name`, or null if shale_bench has no such benchmark.
const BenchmarkSpec* FindBenchmark(std::string_view name);

// Splits --benchmarks at commas (empty names are skipped) and checks every name: OK, or
// InvalidArgument naming the first one that is unknown, or that db_bench has but ShaleDB does
// not support yet.
Status ParseBenchmarkList(std::string_view list, std::vector<std::string>* names);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_BENCHMARK_LIST_H_
