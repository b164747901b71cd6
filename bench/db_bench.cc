// DB-level micro benchmarks (google-benchmark): Put with sequential and random keys, WAL on
// and off, and Get from a flushed DB. Keys are 16 bytes and values 100 bytes, db_bench's
// defaults. The DB lives in a temporary directory on the real disk (TMPDIR, default /tmp).
//
//   build/release/bench/db_bench_micro --benchmark_filter=Put
//
// Each Put benchmark reports ops/s (items_per_second) and the process's peak RSS in MiB
// (counter "peak_rss_mb", VmHWM) after the run. For the 5M-put figure:
//   build/release/bench/db_bench_micro --benchmark_filter='Put' --puts=5000000
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "shale/db.h"
#include "util/random.h"

namespace shale {
namespace {

int64_t g_puts = 1000000;  // --puts=N

std::string TempDir() {
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/shale_db_bench_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) abort();
  return dir;
}

double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  }
  return 0;
}

// A 16-byte key for index i: sequential ("%016llu") or pseudo-random over the key space.
void MakeKey(uint64_t i, bool random, char* buf) {
  uint64_t k = i;
  if (random) {
    k = (i * 0x9E3779B97F4A7C15ull) % 1000000000000000ull;  // a bijection-ish scramble
  }
  snprintf(buf, 17, "%016llu", static_cast<unsigned long long>(k));
}

std::unique_ptr<DB> OpenFresh(const std::string& dir) {
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  Status s = DB::Open(options, dir, &db);
  if (!s.ok()) {
    fprintf(stderr, "open %s: %s\n", dir.c_str(), s.ToString().c_str());
    abort();
  }
  return db;
}

void BM_Put(benchmark::State& state) {
  const bool random = state.range(0) != 0;
  const bool wal = state.range(1) != 0;
  Random rnd(301);
  const std::string value = CompressibleString(&rnd, 0.5, 100);
  char key[17];
  for (auto _ : state) {
    state.PauseTiming();
    const std::string dir = TempDir();
    std::unique_ptr<DB> db = OpenFresh(dir);
    WriteOptions wo;
    wo.disableWAL = !wal;
    state.ResumeTiming();
    for (int64_t i = 0; i < g_puts; i++) {
      MakeKey(static_cast<uint64_t>(i), random, key);
      Status s = db->Put(wo, std::string_view(key, 16), value);
      if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    }
    state.PauseTiming();
    db.reset();
    DestroyDB(dir, Options()).PermitUncheckedError();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * g_puts);
  state.SetBytesProcessed(state.iterations() * g_puts * (16 + 100));
  state.counters["peak_rss_mb"] = PeakRssMiB();
}
BENCHMARK(BM_Put)
    ->ArgsProduct({{0, 1}, {1, 0}})
    ->ArgNames({"random", "wal"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Random Gets over a DB of 1M keys that was flushed to tables (no block cache yet: every Get
// reads its block from the OS page cache).
void BM_Get(benchmark::State& state) {
  static std::string dir;
  static std::unique_ptr<DB> db;
  constexpr int64_t kKeys = 1000000;
  if (db == nullptr) {
    dir = TempDir();
    db = OpenFresh(dir);
    Random rnd(301);
    const std::string value = CompressibleString(&rnd, 0.5, 100);
    char key[17];
    WriteOptions wo;
    wo.disableWAL = true;
    for (int64_t i = 0; i < kKeys; i++) {
      MakeKey(static_cast<uint64_t>(i), false, key);
      if (!db->Put(wo, std::string_view(key, 16), value).ok()) abort();
    }
    if (!db->Flush(FlushOptions()).ok()) abort();
  }
  Random rnd(42);
  char key[17];
  std::string value;
  int64_t found = 0;
  for (auto _ : state) {
    MakeKey(rnd.Uniform(kKeys), false, key);
    if (db->Get(ReadOptions(), std::string_view(key, 16), &value).ok()) found++;
  }
  state.SetItemsProcessed(state.iterations());
  if (found != state.iterations()) state.SkipWithError("a key was not found");
}
BENCHMARK(BM_Get)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace shale

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (std::string(argv[i]).rfind("--puts=", 0) == 0) {
      shale::g_puts = std::atoll(argv[i] + 7);
      for (int j = i; j + 1 < argc; j++) argv[j] = argv[j + 1];
      argc--;
      i--;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
