#include "benchmark_list.h"

#include <array>

#include "absl/strings/str_split.h"
#include "admin_steps.h"

namespace shale::bench {

namespace {

constexpr BenchmarkSpec Timed(std::string_view name, WorkloadFn fn, OpCount ops,
                              bool fresh = false, Variant variant = Variant::kPlain) {
  BenchmarkSpec spec;
  spec.name = name;
  spec.workload = fn;
  spec.fresh_db = fresh;
  spec.ops = ops;
  spec.variant = variant;
  return spec;
}

constexpr BenchmarkSpec Admin(std::string_view name, AdminFn fn) {
  BenchmarkSpec spec;
  spec.name = name;
  spec.admin = fn;
  return spec;
}

constexpr OpCount kW = OpCount::kWrites;
constexpr OpCount kR = OpCount::kReads;

const std::array kBenchmarks = {
    Timed("fillseq", WriteSeq, kW, true),
    Timed("fillbatch", WriteSeq, kW, true, Variant::kBatch1000),
    Timed("fillrandom", WriteRandom, kW, true),
    Timed("fillsync", WriteRandom, kW, true, Variant::kSync),
    Timed("bulkload", WriteRandom, kW, true, Variant::kBulkLoad),
    // fillrandom's pairs (WriteRandom's keys), loaded by bulk_ingest.cc.
    Timed("bulkload_sorted", WriteRandom, kW, true, Variant::kBulkLoadSorted),
    Timed("bulkload_external", WriteRandom, kW, true, Variant::kBulkLoadExternal),
    Timed("overwrite", WriteRandom, kW),
    Timed("updaterandom", UpdateRandom, kR),
    Timed("readrandom", ReadRandom, kR),
    Timed("readmissing", ReadMissing, kR),
    Timed("multireadrandom", MultiReadRandom, kR),
    Timed("readseq", ReadSequential, kR),
    Timed("readreverse", ReadReverse, kR),
    Timed("seekrandom", SeekRandom, kR),
    Timed("readwhilewriting", ReadWhileWriting, kR, false, Variant::kExtraWriter),
    Timed("readrandomwriterandom", ReadRandomWriteRandom, kR),
    Timed("mergerandom", MergeRandom, kR, false, Variant::kMerge),
    Timed("readrandommergerandom", ReadRandomMergeRandom, kR, false, Variant::kMerge),
    // ShaleDB's posting-list workload, on a fresh DB (its sizes are checked against its adds);
    // its own flags decide the operations.
    Timed("postinglist", PostingList, kW, true, Variant::kPostingList),
    Timed("postinglist_rmw", PostingListRmw, kW, true, Variant::kPostingList),
    Timed("deleteseq", DeleteSeq, kW),
    Timed("deleterandom", DeleteRandom, kW),
    Timed("compact", Compact, kR),
    Admin("flush", FlushStep),
    Admin("waitforcompaction", WaitForCompactionStep),
    Admin("stats", StatsStep),
    Admin("levelstats", LevelStatsStep),
    Admin("sstables", SstablesStep),
};

// db_bench (RocksDB 7.8) benchmarks that shale_bench does not run yet.
constexpr std::array<std::string_view, 34> kNotYet = {
    "fillseqdeterministic", "filluniquerandomdeterministic", "filluniquerandom",
    "fill100K", "readtocache", "readwhilemerging", "readwhilescanning",
    "xorupdaterandom", "appendrandom", "newiterator",
    "newiteratorwhilewriting", "seekrandomwhilewriting", "seekrandomwhilemerging", "crc32c",
    "xxhash", "xxhash64", "xxh3", "acquireload", "fillseekseq", "randomtransaction",
    "randomreplacekeys", "timeseries", "compactall", "compact0", "compact1", "resetstats",
    "memstats", "heapprofile", "replay", "getmergeoperands", "readrandomoperands", "backup",
    "restore", "mixgraph"};

}  // namespace

const BenchmarkSpec* FindBenchmark(std::string_view name) {
  for (const BenchmarkSpec& spec : kBenchmarks) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Status ParseBenchmarkList(std::string_view list, std::vector<std::string>* names) {
  names->clear();
  for (absl::string_view piece : absl::StrSplit(absl::string_view(list.data(), list.size()), ',',
                                                absl::SkipEmpty())) {
    const std::string name(piece);
    if (FindBenchmark(name) != nullptr) {
      names->push_back(name);
      continue;
    }
    for (std::string_view later : kNotYet) {
      if (later == name) {
        return Status::InvalidArgument("--benchmarks",
                                       "benchmark '" + name + "' is not supported yet");
      }
    }
    return Status::InvalidArgument("--benchmarks", "unknown benchmark '" + name + "'");
  }
  return Status::OK();
}

}  // namespace shale::bench
