// Micro benchmarks of the util/ hot paths: block checksums, varints, random numbers and
// latency histograms. Run: build/release/bench/util_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/checksum.h"
#include "util/coding.h"
#include "util/histogram.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr int kBatch = 1024;  // values per benchmark iteration where a batch is used

// kBatch values of at most `bits` bits, so the varints take up to (bits + 6) / 7 bytes.
std::vector<uint64_t> VarintValues(int bits) {
  Random rnd(301);
  std::vector<uint64_t> values(kBatch);
  for (uint64_t& v : values) v = rnd.Next64() >> (64 - bits);
  return values;
}

void BM_Checksum32_4KiB(benchmark::State& state) {
  Random rnd(1);
  const std::string block = RandomString(&rnd, 4096);
  for (auto _ : state) benchmark::DoNotOptimize(Checksum32(block));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(block.size()));
}
BENCHMARK(BM_Checksum32_4KiB);

void BM_VarintEncode(benchmark::State& state) {
  const std::vector<uint64_t> values = VarintValues(static_cast<int>(state.range(0)));
  std::vector<char> buf(kBatch * kMaxVarint64Length);
  for (auto _ : state) {
    char* p = buf.data();
    for (uint64_t v : values) p = EncodeVarint64(p, v);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_VarintEncode)->Arg(7)->Arg(21)->Arg(64);

void BM_VarintDecode(benchmark::State& state) {
  std::string encoded;
  for (uint64_t v : VarintValues(static_cast<int>(state.range(0)))) PutVarint64(&encoded, v);
  const char* limit = encoded.data() + encoded.size();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const char* p = encoded.data(); p != nullptr && p < limit;) {
      uint64_t v;
      p = GetVarint64Ptr(p, limit, &v);
      sum += v;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_VarintDecode)->Arg(7)->Arg(21)->Arg(64);

void BM_RandomNext64(benchmark::State& state) {
  Random rnd(7);
  for (auto _ : state) benchmark::DoNotOptimize(rnd.Next64());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RandomNext64);

void BM_HistogramAdd(benchmark::State& state) {
  // Latency-like values spread over six orders of magnitude, precomputed so only Add is timed.
  Random rnd(11);
  std::vector<double> latencies(kBatch);
  for (double& l : latencies) l = static_cast<double>(rnd.Skewed(20)) + rnd.NextDouble();
  Histogram h;
  for (auto _ : state) {
    for (double l : latencies) h.Add(l);
  }
  benchmark::DoNotOptimize(h.Count());
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_HistogramAdd);

}  // namespace
}  // namespace shale
