// Micro benchmarks of the table's in-memory structures: bloom filter probes (keys present and
// absent) and point lookups in a data block, by binary search (Seek) and through the data-block
// hash index (SeekForGet), with and without the index.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/internal_key.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "table/bloom_filter.h"

namespace shale {
namespace {

std::string UserKey(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%016llu", static_cast<unsigned long long>(i));
  return buf;
}

// Args: {0: keys absent, 1: keys present}.
void BM_BloomMayMatch(benchmark::State& state) {
  const bool present = state.range(0) != 0;
  const uint64_t n = 100000;
  BloomFilterBuilder builder(10);
  for (uint64_t i = 0; i < n; i++) builder.AddKey(UserKey(2 * i));
  const std::string filter = builder.Finish();
  std::unique_ptr<BloomFilterReader> reader;
  if (!BloomFilterReader::Create(filter, &reader).ok()) {
    state.SkipWithError("bad filter");
    return;
  }
  std::vector<std::string> queries;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 4096; i++) queries.push_back(UserKey(2 * (rng() % n) + (present ? 0 : 1)));
  size_t i = 0, matched = 0;
  for (auto _ : state) {
    matched += reader->MayMatch(queries[i++ & 4095]);
  }
  benchmark::DoNotOptimize(matched);
  state.counters["match_rate"] =
      benchmark::Counter(static_cast<double>(matched) / static_cast<double>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BloomMayMatch)->ArgName("present")->Arg(0)->Arg(1);

// A ~4 KiB data block of internal keys (16-byte user keys, 32-byte values), restart interval 16.
struct BlockFixture {
  InternalKeyComparator icmp{BytewiseComparator()};
  std::unique_ptr<Block> block;
  std::vector<std::string> targets;  // lookup keys of present user keys

  explicit BlockFixture(bool hash) {
    BlockBuilder builder(16, hash);
    uint64_t n = 0;
    const std::string value(32, 'v');
    while (builder.CurrentSizeEstimate() < 4096) {
      builder.Add(MakeInternalKey(UserKey(n++), 100, kTypeValue), value);
    }
    if (!Block::Create(std::string(builder.Finish()), &block).ok()) std::abort();
    std::mt19937_64 rng(2);
    for (int i = 0; i < 1024; i++) {
      LookupKey lk(UserKey(rng() % n), 200);
      targets.emplace_back(lk.internal_key());
    }
  }
};

// Args: {0: no hash index, 1: hash index}.
void BM_BlockSeek(benchmark::State& state) {
  BlockFixture f(state.range(0) != 0);
  auto it = f.block->NewIterator(&f.icmp);
  size_t i = 0;
  for (auto _ : state) {
    it->Seek(f.targets[i++ & 1023]);
    benchmark::DoNotOptimize(it->Valid());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BlockSeek)->ArgName("hash_index")->Arg(0)->Arg(1);

void BM_BlockSeekForGet(benchmark::State& state) {
  BlockFixture f(state.range(0) != 0);
  auto it = f.block->NewIterator(&f.icmp);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(it->SeekForGet(f.targets[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BlockSeekForGet)->ArgName("hash_index")->Arg(0)->Arg(1);

}  // namespace
}  // namespace shale
