// Memtable micro benchmarks: fill a 64 MiB memtable with 16-byte keys and 100-byte values in
// sorted and in random order (the last-position hint makes the sorted fill cheap, DESIGN.md
// section 5), and point lookups in a full one. Arg 0 uses the default allocator (the jemalloc
// arena, as this binary links jemalloc), arg 1 forces the malloc fallback.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "base/internal_key.h"
#include "memtable/memtable.h"
#include "memtable/memtable_allocator.h"

namespace shale {
namespace {

constexpr size_t kMemtableBytes = size_t{64} << 20;
constexpr size_t kMaxEntries = 700'000;  // more than a 64 MiB memtable holds (~460K)
constexpr size_t kValueSize = 100;

// kMaxEntries distinct 16-byte keys, ascending ("%016zu"), or the same keys shuffled.
const std::vector<std::string>& Keys(bool shuffled) {
  static const std::vector<std::string> sorted = [] {
    std::vector<std::string> keys(kMaxEntries);
    char buf[32];
    for (size_t i = 0; i < kMaxEntries; i++) {
      std::snprintf(buf, sizeof(buf), "%016zu", i * 7);
      keys[i] = buf;
    }
    return keys;
  }();
  static const std::vector<std::string> random = [] {
    std::vector<std::string> keys = sorted;
    std::shuffle(keys.begin(), keys.end(), std::mt19937_64(301));
    return keys;
  }();
  return shuffled ? random : sorted;
}

const InternalKeyComparator& Cmp() {
  static const InternalKeyComparator cmp(BytewiseComparator());
  return cmp;
}

// Adds keys in order until the memtable holds kMemtableBytes; returns how many went in.
size_t Fill(MemTable* mem, const std::vector<std::string>& keys) {
  const std::string value(kValueSize, 'v');
  size_t n = 0;
  while (mem->ApproximateMemoryUsage() < kMemtableBytes && n < keys.size()) {
    mem->Add(n + 1, kTypeValue, keys[n], value);
    n++;
  }
  return n;
}

void SelectAllocator(benchmark::State& state) {
  MemtableAllocator::ForceMallocForTesting(state.range(0) == 1);
  state.SetLabel(MemtableAllocator::Get()->name());
}

void BM_Fill(benchmark::State& state, bool shuffled) {
  SelectAllocator(state);
  const std::vector<std::string>& keys = Keys(shuffled);
  size_t total = 0;
  size_t per_memtable = 0;
  for (auto _ : state) {
    auto* mem = new MemTable(Cmp());
    mem->Ref();
    per_memtable = Fill(mem, keys);
    total += per_memtable;
    state.PauseTiming();
    if (mem->IsSortedInsertOnly() == shuffled) state.SkipWithError("sorted-insert flag is wrong");
    mem->Unref();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(total));
  state.counters["entries"] = static_cast<double>(per_memtable);
  state.counters["per_insert"] = benchmark::Counter(
      static_cast<double>(total), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  MemtableAllocator::ForceMallocForTesting(false);
}

void BM_FillSorted(benchmark::State& state) { BM_Fill(state, false); }
void BM_FillRandom(benchmark::State& state) { BM_Fill(state, true); }

// Point lookups of present keys, in random order, in a full 64 MiB memtable filled randomly.
void BM_Get(benchmark::State& state) {
  SelectAllocator(state);
  auto* mem = new MemTable(Cmp());
  mem->Ref();
  const std::vector<std::string>& keys = Keys(true);
  const size_t n = Fill(mem, keys);
  std::mt19937_64 rng(7);
  std::string value;
  size_t found = 0;
  for (auto _ : state) {
    LookupKey lkey(keys[rng() % n], kMaxSequenceNumber);
    Status s;
    SequenceNumber seq = 0;
    found += mem->Get(lkey, &value, &s, &seq) && s.ok();
  }
  if (found != static_cast<size_t>(state.iterations())) {
    state.SkipWithError("a present key was not found");
  }
  state.SetItemsProcessed(state.iterations());
  mem->Unref();
  MemtableAllocator::ForceMallocForTesting(false);
}

BENCHMARK(BM_FillSorted)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FillRandom)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Get)->Arg(0);

}  // namespace
}  // namespace shale
