// Micro benchmarks of whole tables: point lookups that hit and miss, and a full scan, for a
// table of 200K entries (16-byte keys, 100-byte values, 4 KiB blocks, 10 bits/key bloom):
// full filter + binary-search index against partitioned filter + two-level index, and data
// blocks searched by binary search against the data-block hash index.
//
// Blocks come through a simple caching BlockSource (every block stays once read), as they will
// through the block cache, so lookups measure the table code and not repeated file reads;
// BM_TableGetUncached shows the cost without a cache (read + checksum + parse per block).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/filter_policy.h"
#include "table/table_builder.h"
#include "table/table_reader.h"

namespace shale {
namespace {

constexpr int kEntries = 200000;

std::string UserKey(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016llu", static_cast<unsigned long long>(i));
  return buf;
}

// Keeps every block it loads. One mutex: the benchmarks run on one thread.
class KeepAllSource final : public BlockSource {
 public:
  Status GetBlock(const BlockRequest& request, BlockLoader load,
                  std::shared_ptr<const LoadedBlock>* block) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(request.key.offset);
    if (it != blocks_.end()) {
      *block = it->second;
      return Status::OK();
    }
    std::unique_ptr<LoadedBlock> loaded;
    Status s = load(&loaded);
    if (!s.ok()) return s;
    *block = blocks_[request.key.offset] = std::move(loaded);
    return Status::OK();
  }

 private:
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<const LoadedBlock>> blocks_;
};

// One table per (partitioned, hash) pair, built once: even-numbered keys 0, 2, ...
struct TableFixture {
  InternalKeyComparator icmp{BytewiseComparator()};
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  KeepAllSource cache;
  std::unique_ptr<TableReader> cached;
  std::unique_ptr<TableReader> uncached;

  TableFixture(bool partitioned, bool hash) {
    TableOptions o;
    o.filter_policy = NewBloomFilterPolicy(10);
    if (partitioned) {
      o.index_type = TableOptions::kTwoLevelIndexSearch;
      o.partition_filters = true;
    }
    if (hash) o.data_block_index_type = TableOptions::kDataBlockBinaryAndHash;
    std::unique_ptr<WritableFile> file;
    Check(fs->NewWritableFile("/b.sst", &file));
    TableBuilder builder(o, kNoCompression, 0, &icmp, file.get(), "/b.sst");
    std::string value(100, 'v');
    for (uint64_t i = 0; i < kEntries; i++) {
      value[i % 100] = static_cast<char>('a' + i % 26);
      builder.Add(MakeInternalKey(UserKey(2 * i), 1, kTypeValue), value);
    }
    Check(builder.Finish());
    Check(file->Close());
    cached = Open(&cache);
    uncached = Open(nullptr);
  }

  std::unique_ptr<TableReader> Open(BlockSource* source) {
    uint64_t size;
    Check(fs->GetFileSize("/b.sst", &size));
    std::unique_ptr<RandomAccessFile> file;
    Check(fs->NewRandomAccessFile("/b.sst", &file));
    std::unique_ptr<TableReader> reader;
    Check(TableReader::Open(TableReaderOptions(), std::move(file), size, "/b.sst", 1, &icmp,
                            source, &reader));
    return reader;
  }

  static void Check(const Status& s) {
    if (!s.ok()) {
      std::fprintf(stderr, "table_bench: %s\n", s.ToString().c_str());
      std::abort();
    }
  }

  static TableFixture& Get(bool partitioned, bool hash) {
    static std::map<std::pair<bool, bool>, std::unique_ptr<TableFixture>> fixtures;
    auto& f = fixtures[{partitioned, hash}];
    if (f == nullptr) f = std::make_unique<TableFixture>(partitioned, hash);
    return *f;
  }
};

// Lookup keys: present (even) or absent (odd) user keys in random order.
std::vector<std::string> LookupKeys(bool present) {
  std::mt19937_64 rng(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 4096; i++) {
    LookupKey lk(UserKey(2 * (rng() % kEntries) + (present ? 0 : 1)), kMaxSequenceNumber);
    keys.emplace_back(lk.internal_key());
  }
  return keys;
}

void RunGets(benchmark::State& state, const TableReader& reader, bool present) {
  const std::vector<std::string> keys = LookupKeys(present);
  const TableReadOptions options;
  size_t i = 0, found = 0;
  for (auto _ : state) {
    Status s = reader.Get(options, keys[i++ & 4095], [&](std::string_view, std::string_view) {
      found++;
      return false;
    });
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.counters["found_rate"] =
      benchmark::Counter(static_cast<double>(found) / static_cast<double>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
}

// Args: partitioned (0 full filter + binary index, 1 partitioned + two-level), hash index,
// present (0: misses, 1: hits).
void BM_TableGet(benchmark::State& state) {
  TableFixture& f = TableFixture::Get(state.range(0) != 0, state.range(1) != 0);
  RunGets(state, *f.cached, state.range(2) != 0);
}
BENCHMARK(BM_TableGet)
    ->ArgNames({"partitioned", "hash", "present"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}});

void BM_TableGetUncached(benchmark::State& state) {
  TableFixture& f = TableFixture::Get(state.range(0) != 0, state.range(1) != 0);
  RunGets(state, *f.uncached, state.range(2) != 0);
}
BENCHMARK(BM_TableGetUncached)
    ->ArgNames({"partitioned", "hash", "present"})
    ->ArgsProduct({{0, 1}, {0, 1}, {1}});

// A full forward scan per iteration.
void BM_TableScan(benchmark::State& state) {
  TableFixture& f = TableFixture::Get(state.range(0) != 0, false);
  uint64_t entries = 0;
  for (auto _ : state) {
    std::unique_ptr<InternalIterator> it = f.cached->NewIterator(TableReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) entries++;
    if (!it->status().ok()) state.SkipWithError(it->status().ToString().c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(entries));
}
BENCHMARK(BM_TableScan)->ArgName("partitioned")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shale
