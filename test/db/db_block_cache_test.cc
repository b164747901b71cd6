// The block cache seen from the DB (shale/cache.h, TableOptions' cache knobs, the memory
// properties of shale/db.h), through the public API only:
// - every combination of index layout and index/filter placement reads what a std::map model
//   says, with a tiny cache (strict or not), across flushes, compactions and a reopen;
// - DBs sharing one cache never see each other's blocks, and the cache's usage counts both;
// - cache_index_and_filter_blocks moves index and filter memory from the table readers into
//   the cache; pinned top-level and L0 blocks show as pinned usage and go with their readers;
//   pinned blocks a strict cache refused still count as the readers' memory;
// - a strict capacity holds under concurrent readers;
// - blocks read once are served from the cache (no file read), unless fill_cache is false;
// - no_block_cache and OptimizeForPointLookup; the memory properties add up;
// - Open rejects contradictory cache options and caches not made by NewLRUCache.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <chrono>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;
using KVs = std::vector<std::pair<std::string, std::string>>;

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// A compressible value of `len` bytes that names its key and a tag (the DB it belongs to, or
// its version), so a value read back proves where it came from.
std::string Value(int i, std::string_view tag, size_t len = 100) {
  std::string v = std::string(tag) + ":" + std::to_string(i) + ":";
  while (v.size() < len) v += static_cast<char>('a' + (v.size() + i) % 26);
  return v;
}

uint64_t Prop(DB* db, std::string_view name) {
  uint64_t v = 0;
  EXPECT_TRUE(db->GetIntProperty(name, &v)) << name;
  return v;
}

uint64_t FilesAtLevel(DB* db, int level) {
  return Prop(db, std::string(DB::Properties::kNumFilesAtLevelPrefix) + std::to_string(level));
}

uint64_t TotalFiles(DB* db, int num_levels) {
  uint64_t total = 0;
  for (int level = 0; level < num_levels; level++) total += FilesAtLevel(db, level);
  return total;
}

int NonEmptyLevels(DB* db, int num_levels) {
  int n = 0;
  for (int level = 0; level < num_levels; level++) n += FilesAtLevel(db, level) > 0;
  return n;
}

// Puts keys [begin, end) with Value(i, tag), flushing every `per_flush` keys and at the end.
void Load(DB* db, int begin, int end, std::string_view tag, int per_flush, size_t len = 100) {
  for (int i = begin; i < end; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, tag, len)));
    if ((i - begin + 1) % per_flush == 0) ASSERT_OK(db->Flush(FlushOptions()));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
}

// Gets every key in [begin, end) and expects Value(i, tag, len).
void ExpectAll(DB* db, int begin, int end, std::string_view tag, size_t len = 100,
               const ReadOptions& ro = ReadOptions()) {
  std::string value;
  for (int i = begin; i < end; i++) {
    Status s = db->Get(ro, Key(i), &value);
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(value, Value(i, tag, len)) << Key(i);
  }
}

KVs ScanForward(DB* db, const ReadOptions& ro = ReadOptions()) {
  KVs out;
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key(), it->value());
  EXPECT_OK(it->status());
  return out;
}

KVs ScanBackward(DB* db) {
  KVs out;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  for (it->SeekToLast(); it->Valid(); it->Prev()) out.emplace_back(it->key(), it->value());
  EXPECT_OK(it->status());
  std::reverse(out.begin(), out.end());
  return out;
}

// Small tables and blocks, so that a few hundred KB make several tables, index partitions and
// filter partitions.
Options SmallTableOptions(std::shared_ptr<FileSystem> fs) {
  Options o;
  o.file_system = std::move(fs);
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.table_options.block_size = 512;
  o.table_options.metadata_block_size = 256;
  o.table_options.filter_policy = NewBloomFilterPolicy(10);
  return o;
}

void UsePartitionedIndex(Options* o) {
  o->table_options.index_type = TableOptions::kTwoLevelIndexSearch;
  o->table_options.partition_filters = true;
}

// ------------------------------------------------------------------ 1. Model-based

struct CacheConfig {
  const char* name;
  bool partitioned;             // partitioned index + partitioned filters, else full ones
  bool cache_index_and_filter;  // cache_index_and_filter_blocks
  bool pin_top_level;           // pin_top_level_index_and_filter
  bool pin_l0;                  // pin_l0_filter_and_index_blocks_in_cache
  bool strict;                  // strict_capacity_limit of the 64 KiB cache
};

const CacheConfig kCacheConfigs[] = {
    {"Full", false, false, true, false, false},
    {"FullCachedStrict", false, true, true, false, true},
    {"FullCachedPinL0", false, true, false, true, false},
    {"FullCachedPinBothStrict", false, true, true, true, true},
    {"PartitionedStrict", true, false, true, false, true},
    {"Partitioned", true, false, true, true, false},
    {"PartitionedCachedPinTop", true, true, true, false, false},
    {"PartitionedCachedPinBothStrict", true, true, true, true, true},
    {"PartitionedCachedNoPinStrict", true, true, false, false, true},
    {"PartitionedCachedPinL0", true, true, false, true, false},
};

class BlockCacheModelTest : public ::testing::TestWithParam<CacheConfig> {
 protected:
  static constexpr int kKeySpace = 2000;
  static constexpr size_t kCacheBytes = 64 << 10;

  BlockCacheModelTest() : rnd_(301) {
    const CacheConfig& c = GetParam();
    options_ = SmallTableOptions(NewMemFileSystem());
    options_.level0_file_num_compaction_trigger = 3;
    options_.max_bytes_for_level_base = 32 << 10;  // a few hundred KB make two sorted levels
    options_.max_bytes_for_level_multiplier = 4;
    if (c.partitioned) UsePartitionedIndex(&options_);
    TableOptions& t = options_.table_options;
    t.cache_index_and_filter_blocks = c.cache_index_and_filter;
    t.pin_top_level_index_and_filter = c.pin_top_level;
    t.pin_l0_filter_and_index_blocks_in_cache = c.pin_l0;
    t.block_cache = NewLRUCache(kCacheBytes, -1, c.strict);
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/db", &db_)); }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  std::string RandomValue() {
    const size_t len = 20 + rnd_.Uniform(480);
    std::string v = std::to_string(rnd_.Next32());
    v += ':';
    v.resize(len, static_cast<char>('a' + rnd_.Uniform(26)));
    return v;
  }

  void ExpectGet(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    auto it = model_.find(key);
    if (it == model_.end()) {
      ASSERT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
      ASSERT_EQ(value, it->second) << key;
    }
  }

  // Seek(key) then up to 8 Next()s, against the model.
  void ExpectShortScan(const std::string& key) {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    auto m = model_.lower_bound(key);
    it->Seek(key);
    for (int n = 0; n < 8 && m != model_.end(); n++, ++m, it->Next()) {
      ASSERT_TRUE(it->Valid()) << "seek " << key << ": " << it->status().ToString();
      ASSERT_EQ(it->key(), m->first);
      ASSERT_EQ(it->value(), m->second);
    }
    if (m == model_.end()) {
      ASSERT_FALSE(it->Valid());
    }
    ASSERT_OK(it->status());
  }

  void ExpectEverything() {
    for (int i = 0; i < kKeySpace && !HasFatalFailure(); i++) ExpectGet(Key(i));
    const KVs expected(model_.begin(), model_.end());
    EXPECT_EQ(ScanForward(db_.get()), expected);
    EXPECT_EQ(ScanBackward(db_.get()), expected);
    if (GetParam().strict) {
      EXPECT_LE(Prop(db_.get(), DB::Properties::kBlockCacheUsage), kCacheBytes);
    }
  }

  // Random puts, deletes and flushes, with a Get or a short scan checked now and then.
  void RandomOps(int n) {
    for (int i = 0; i < n && !HasFatalFailure(); i++) {
      const std::string key = Key(static_cast<int>(rnd_.Uniform(kKeySpace)));
      const uint64_t r = rnd_.Uniform(100);
      if (r < 65) {
        std::string v = RandomValue();
        ASSERT_OK(db_->Put(WriteOptions(), key, v));
        model_[key] = std::move(v);
      } else if (r < 85) {
        ASSERT_OK(db_->Delete(WriteOptions(), key));
        model_.erase(key);
      } else if (r < 97) {
        ExpectGet(key);
      } else {
        ExpectShortScan(key);
      }
      if (i % 500 == 499) ASSERT_OK(db_->Flush(FlushOptions()));
    }
  }

  Options options_;
  Random rnd_;
  Model model_;
  std::unique_ptr<DB> db_;
};

TEST_P(BlockCacheModelTest, ReadsMatchModelAcrossFlushesAndReopen) {
  Open();
  RandomOps(6000);
  ASSERT_NO_FATAL_FAILURE(ExpectEverything());
  ASSERT_GE(TotalFiles(db_.get(), options_.num_levels), 3u) << "the test needs several tables";
  ASSERT_GE(NonEmptyLevels(db_.get(), options_.num_levels), 2) << "and several levels";
  Reopen();  // same cache: the old DB's blocks stay in it, unreachable to the new one
  ASSERT_NO_FATAL_FAILURE(ExpectEverything());
  RandomOps(2000);
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_NO_FATAL_FAILURE(ExpectEverything());
  ASSERT_OK(db_->Close());
}

INSTANTIATE_TEST_SUITE_P(Configs, BlockCacheModelTest, ::testing::ValuesIn(kCacheConfigs),
                         [](const ::testing::TestParamInfo<CacheConfig>& info) {
                           return std::string(info.param.name);
                         });

// ------------------------------------------------------------------ 2. Shared cache

TEST(BlockCacheTest, TwoDBsSharingOneCacheReadOnlyTheirOwnBlocks) {
  std::shared_ptr<Cache> cache = NewLRUCache(32 << 20);
  Options options = SmallTableOptions(NewMemFileSystem());
  options.disable_auto_compactions = true;  // the same file numbers in both DBs
  options.table_options.block_cache = cache;
  std::unique_ptr<DB> a, b;
  ASSERT_OK(DB::Open(options, "/a", &a));
  ASSERT_OK(DB::Open(options, "/b", &b));
  constexpr int kKeys = 3000;
  // Values of equal length: both DBs' tables have the same blocks at the same offsets, so
  // only the cache key's DB part tells them apart.
  ASSERT_NO_FATAL_FAILURE(Load(a.get(), 0, kKeys, "A", 1000));
  ASSERT_NO_FATAL_FAILURE(Load(b.get(), 0, kKeys, "B", 1000));
  std::string tables_a, tables_b;
  ASSERT_TRUE(a->GetProperty(DB::Properties::kSSTables, &tables_a));
  ASSERT_TRUE(b->GetProperty(DB::Properties::kSSTables, &tables_b));
  // Creation times may differ by a second between the two DBs' flushes.
  const std::regex created(" created=[0-9]+");
  ASSERT_EQ(std::regex_replace(tables_a, created, ""), std::regex_replace(tables_b, created, ""))
      << "both DBs must have the same file numbers";

  ASSERT_NO_FATAL_FAILURE(ExpectAll(a.get(), 0, kKeys, "A"));
  const uint64_t usage_a = cache->GetUsage();
  ASSERT_GT(usage_a, 0u);
  ASSERT_NO_FATAL_FAILURE(ExpectAll(b.get(), 0, kKeys, "B"));
  const uint64_t usage_both = cache->GetUsage();
  // B's blocks were all misses (none of A's served it): the cache holds both sets.
  EXPECT_GE(usage_both, usage_a + usage_a * 9 / 10);
  EXPECT_EQ(Prop(a.get(), DB::Properties::kBlockCacheUsage), usage_both);
  EXPECT_EQ(Prop(b.get(), DB::Properties::kBlockCacheUsage), usage_both);

  // Interleaved reads, now all hits: each DB still sees only its own values.
  ASSERT_NO_FATAL_FAILURE(ExpectAll(a.get(), 0, kKeys, "A"));
  ASSERT_NO_FATAL_FAILURE(ExpectAll(b.get(), 0, kKeys, "B"));
  const KVs scan_a = ScanForward(a.get());
  const KVs scan_b = ScanBackward(b.get());
  ASSERT_EQ(scan_a.size(), static_cast<size_t>(kKeys));
  ASSERT_EQ(scan_b.size(), static_cast<size_t>(kKeys));
  for (int i = 0; i < kKeys; i++) {
    ASSERT_EQ(scan_a[i].second, Value(i, "A"));
    ASSERT_EQ(scan_b[i].second, Value(i, "B"));
  }
  EXPECT_EQ(cache->GetUsage(), usage_both) << "the second round must be all hits";
  ASSERT_OK(a->Close());
  ASSERT_OK(b->Close());
}

// ------------------------------------------------------------------ 3. Index and filter in cache

// What a DB holding `dir` reports after reading every key, with its own fresh cache.
struct MemoryReport {
  uint64_t readers_mem;
  uint64_t cache_usage;
  uint64_t pinned;
};

class IndexAndFilterInCacheTest : public ::testing::Test {
 protected:
  static constexpr int kKeys = 12000;

  IndexAndFilterInCacheTest() {
    options_ = SmallTableOptions(NewMemFileSystem());
    options_.disable_auto_compactions = true;
    options_.write_buffer_size = 4 << 20;  // only Prepare's flushes make tables
    options_.table_options.block_size = 1024;
    // These compare where the index and filter live (readers or cache); charging the readers'
    // memory to the cache (db_table_reader_charge_test) would count them in the cache both ways.
    options_.table_options.charge_table_reader_memory = false;
  }

  // Writes kKeys small entries (big filters and indexes for their data) into 4 tables, each
  // holding every fourth key: they overlap, so the first lands in the last level and the
  // others in L0.
  void Prepare() {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    for (int table = 0; table < 4; table++) {
      for (int i = table; i < kKeys; i += 4) {
        ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, "v", 16)));
      }
      ASSERT_OK(db->Flush(FlushOptions()));
    }
    ASSERT_EQ(TotalFiles(db.get(), options_.num_levels), 4u);
    ASSERT_EQ(FilesAtLevel(db.get(), 0), 3u);
    ASSERT_OK(db->Close());
  }

  MemoryReport ReadAll(DB* db) {
    ExpectAll(db, 0, kKeys, "v", 16);
    return {Prop(db, DB::Properties::kEstimateTableReadersMem),
            Prop(db, DB::Properties::kBlockCacheUsage),
            Prop(db, DB::Properties::kBlockCachePinnedUsage)};
  }

  MemoryReport OpenAndReadAll(bool cache_index_and_filter) {
    Options o = options_;
    o.table_options.cache_index_and_filter_blocks = cache_index_and_filter;
    o.table_options.block_cache = NewLRUCache(64 << 20);
    std::unique_ptr<DB> db;
    EXPECT_OK(DB::Open(o, "/db", &db));
    if (db == nullptr) return {};
    MemoryReport r = ReadAll(db.get());
    EXPECT_OK(db->Close());
    return r;
  }

  Options options_;
};

TEST_F(IndexAndFilterInCacheTest, FullIndexAndFilterAreChargedToTheCache) {
  ASSERT_NO_FATAL_FAILURE(Prepare());
  const MemoryReport in_readers = OpenAndReadAll(false);
  const MemoryReport in_cache = OpenAndReadAll(true);
  ASSERT_GT(in_readers.readers_mem, 0u);
  EXPECT_LT(in_cache.readers_mem * 4, in_readers.readers_mem)
      << "readers still keep the index and filter";
  EXPECT_GT(in_cache.cache_usage, in_readers.cache_usage);
  // The same blocks moved from one side to the other (charges are the allocator's sizes, so
  // two copies of a block may differ by a size class's slack: allow 1%).
  const double moved_to_cache = static_cast<double>(in_cache.cache_usage - in_readers.cache_usage);
  const double left_readers = static_cast<double>(in_readers.readers_mem - in_cache.readers_mem);
  EXPECT_NEAR(moved_to_cache, left_readers, left_readers / 100);
  // Full index, no pin_l0: nothing stays pinned between reads.
  EXPECT_EQ(in_cache.pinned, 0u);
}

TEST_F(IndexAndFilterInCacheTest, PinnedTopLevelGoesAwayWithTheDB) {
  UsePartitionedIndex(&options_);
  ASSERT_NO_FATAL_FAILURE(Prepare());
  std::shared_ptr<Cache> cache = NewLRUCache(64 << 20);
  Options o = options_;
  o.table_options.cache_index_and_filter_blocks = true;
  o.table_options.pin_top_level_index_and_filter = true;
  o.table_options.block_cache = cache;

  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, "/db", &db));
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCachePinnedUsage), 0u) << "no table open yet";
  const MemoryReport first = ReadAll(db.get());
  EXPECT_GT(first.pinned, 0u) << "open tables pin their top-level index and filter";
  EXPECT_EQ(cache->GetPinnedUsage(), first.pinned);
  ASSERT_OK(db->Close());
  db.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u) << "the closed DB's readers still pin blocks";

  ASSERT_OK(DB::Open(o, "/db", &db));
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCachePinnedUsage), 0u);
  const MemoryReport second = ReadAll(db.get());
  // The same tables pin the same blocks, once: nothing of the old DB is left pinned.
  EXPECT_EQ(second.pinned, first.pinned);
  ASSERT_OK(db->Close());

  // Without the pin, nothing stays pinned between reads.
  o.table_options.pin_top_level_index_and_filter = false;
  ASSERT_OK(DB::Open(o, "/db", &db));
  EXPECT_EQ(ReadAll(db.get()).pinned, 0u);
  ASSERT_OK(db->Close());
}

TEST_F(IndexAndFilterInCacheTest, PinL0PinsOnlyLevel0Tables) {
  ASSERT_NO_FATAL_FAILURE(Prepare());
  Options o = options_;
  o.table_options.cache_index_and_filter_blocks = true;
  o.table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  o.table_options.block_cache = NewLRUCache(64 << 20);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, "/db", &db));
  ASSERT_GT(FilesAtLevel(db.get(), 0), 0u);
  EXPECT_GT(ReadAll(db.get()).pinned, 0u) << "L0 tables pin their index and filter";
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_EQ(FilesAtLevel(db.get(), 0), 0u);
  EXPECT_EQ(ReadAll(db.get()).pinned, 0u) << "deeper tables must not be pinned";
  ASSERT_OK(db->Close());
}

// A cache that refuses every insert (strict, capacity 0): the top-level index and filter the
// readers pin stay in the readers' memory, and estimate-table-readers-mem must say so.
TEST_F(IndexAndFilterInCacheTest, PinnedBlocksRefusedByAStrictCacheCountAsReaderMemory) {
  UsePartitionedIndex(&options_);
  ASSERT_NO_FATAL_FAILURE(Prepare());
  const MemoryReport in_readers = OpenAndReadAll(false);
  Options o = options_;
  o.table_options.cache_index_and_filter_blocks = true;
  o.table_options.pin_top_level_index_and_filter = true;
  o.table_options.block_cache = NewLRUCache(0, -1, /*strict_capacity_limit=*/true);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, "/db", &db));
  const MemoryReport refused = ReadAll(db.get());
  EXPECT_EQ(refused.cache_usage, 0u);
  EXPECT_EQ(refused.readers_mem, in_readers.readers_mem)
      << "pinned blocks the cache refused are kept by the readers but counted nowhere";
  ASSERT_OK(db->Close());
}

// ------------------------------------------------------------------ 4. Strict capacity

void StrictCapacityUnderConcurrentReaders(Options options, int num_shard_bits) {
  constexpr size_t kCapacity = 256 << 10;
  constexpr int kKeys = 16000;  // ~4 MB of 256-byte values
  constexpr int kReaders = 3;
  options.write_buffer_size = 1 << 20;
  options.target_file_size_base = 1 << 20;
  options.disable_auto_compactions = true;
  options.table_options.block_cache = NewLRUCache(kCapacity, num_shard_bits, true);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, kKeys, "v", kKeys / 4, 256));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, kKeys, "w", kKeys / 2, 256));  // newer, in L0

  std::atomic<int> readers_left{kReaders};
  std::atomic<int> wrong{0};
  std::atomic<uint64_t> samples{0};
  std::atomic<uint64_t> over_capacity{0};
  std::atomic<uint64_t> max_usage{0};
  // Reads the usage while the other threads read; every thread samples, so that the check
  // does not depend on how the scheduler treats a sampler-only thread.
  auto sample = [&] {
    uint64_t usage = 0;
    if (!db->GetIntProperty(DB::Properties::kBlockCacheUsage, &usage)) wrong++;
    if (usage > kCapacity) over_capacity++;
    uint64_t seen = max_usage.load();
    while (usage > seen && !max_usage.compare_exchange_weak(seen, usage)) {
    }
    samples++;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kReaders; t++) {
    threads.emplace_back([&, t] {
      Random rnd(1000 + t);
      std::string value;
      for (int op = 0; op < 3000; op++) {
        const int i = static_cast<int>(rnd.Uniform(kKeys));
        if (op % 10 == 0) sample();
        if (op % 20 != 0) {
          Status s = db->Get(ReadOptions(), Key(i), &value);
          if (!s.ok() || value != Value(i, "w", 256)) wrong++;
          continue;
        }
        std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
        it->Seek(Key(i));
        for (int j = i; j < std::min(i + 10, kKeys); j++, it->Next()) {
          if (!it->Valid() || it->key() != Key(j) || it->value() != Value(j, "w", 256)) {
            wrong++;
            break;
          }
        }
        if (!it->status().ok()) wrong++;
      }
      readers_left--;
    });
  }
  while (readers_left.load() > 0) {
    sample();
    std::this_thread::yield();
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(over_capacity.load(), 0u) << "max usage seen: " << max_usage.load();
  EXPECT_GE(samples.load(), 900u);
  EXPECT_GT(max_usage.load(), kCapacity / 2) << "the cache was hardly used";
  EXPECT_LE(Prop(db.get(), DB::Properties::kBlockCacheUsage), kCapacity);
  ASSERT_OK(db->Close());
}

TEST(BlockCacheTest, StrictCapacityHoldsUnderConcurrentReaders) {
  StrictCapacityUnderConcurrentReaders(SmallTableOptions(NewMemFileSystem()), -1);
}

TEST(BlockCacheTest, StrictCapacityHoldsWithPinnedPartitionedIndexes) {
  Options options = SmallTableOptions(NewMemFileSystem());
  UsePartitionedIndex(&options);
  options.table_options.cache_index_and_filter_blocks = true;
  options.table_options.pin_top_level_index_and_filter = true;
  options.table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  StrictCapacityUnderConcurrentReaders(options, 2);
}

// ------------------------------------------------------------------ 5. Reads served by the cache

class SecondPassTest : public ::testing::Test {
 protected:
  static constexpr int kKeys = 6000;

  SecondPassTest() : fs_(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())) {
    options_ = SmallTableOptions(fs_);
    UsePartitionedIndex(&options_);
    options_.compression = kZSTD;
    options_.table_options.enable_index_compression = true;
    options_.disable_auto_compactions = true;
  }

  // An L1+ run of kKeys keys and two L0 tables overwriting every third key.
  void Prepare() {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, kKeys, "old", kKeys / 3));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    for (int i = 0; i < kKeys; i += 3) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, "new")));
      if (i == kKeys / 2) ASSERT_OK(db->Flush(FlushOptions()));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }

  std::unique_ptr<DB> OpenWithCache(size_t capacity) {
    Options o = options_;
    o.table_options.block_cache = NewLRUCache(capacity);
    std::unique_ptr<DB> db;
    EXPECT_OK(DB::Open(o, "/db", &db));
    return db;
  }

  // Gets of every other key (present and absent ones), a forward and a backward scan.
  void Pass(DB* db, bool fill_cache) {
    ReadOptions ro;
    ro.fill_cache = fill_cache;
    std::string value;
    for (int i = 0; i < kKeys; i += 2) {
      ASSERT_OK(db->Get(ro, Key(i), &value));
      ASSERT_EQ(value, Value(i, i % 3 == 0 ? "new" : "old"));
      ASSERT_TRUE(db->Get(ro, Key(i) + "-absent", &value).IsNotFound());
    }
    std::unique_ptr<Iterator> it = db->NewIterator(ro);
    int i = 1000;
    for (it->Seek(Key(i)); i < 1500; i++, it->Next()) {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(it->key(), Key(i));
    }
    for (it->SeekForPrev(Key(4000)), i = 4000; i > 3700; i--, it->Prev()) {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(it->key(), Key(i));
    }
    ASSERT_OK(it->status());
  }

  uint64_t Reads() const { return fs_->OpCount(FaultInjectionFileSystem::OpKind::kRead); }

  std::shared_ptr<FaultInjectionFileSystem> fs_;
  Options options_;
};

TEST_F(SecondPassTest, SecondPassIsServedFromTheCache) {
  ASSERT_NO_FATAL_FAILURE(Prepare());
  std::unique_ptr<DB> db = OpenWithCache(64 << 20);
  ASSERT_NE(db, nullptr);
  ASSERT_GE(FilesAtLevel(db.get(), 0), 2u);
  fs_->ResetOpCounts();
  ASSERT_NO_FATAL_FAILURE(Pass(db.get(), true));
  EXPECT_GT(Reads(), 0u);
  fs_->ResetOpCounts();
  ASSERT_NO_FATAL_FAILURE(Pass(db.get(), true));
  EXPECT_EQ(Reads(), 0u) << "blocks read by the first pass were read again";
  ASSERT_OK(db->Close());
}

TEST_F(SecondPassTest, FillCacheFalseKeepsNothing) {
  ASSERT_NO_FATAL_FAILURE(Prepare());
  std::unique_ptr<DB> db = OpenWithCache(64 << 20);
  ASSERT_NE(db, nullptr);
  const uint64_t usage_before = Prop(db.get(), DB::Properties::kBlockCacheUsage);
  ASSERT_NO_FATAL_FAILURE(Pass(db.get(), false));
  // The pass opened the tables: their readers' memory is charged (charge_table_reader_memory),
  // and that is all the cache holds.
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheUsage),
            usage_before + Prop(db.get(), DB::Properties::kEstimateTableReadersMem));
  fs_->ResetOpCounts();
  ASSERT_NO_FATAL_FAILURE(Pass(db.get(), true));
  EXPECT_GT(Reads(), 0u) << "nothing should have been kept by the fill_cache=false pass";
  ASSERT_OK(db->Close());
}

// ------------------------------------------------------------------ 6. No cache, presets

TEST(BlockCacheTest, NoBlockCacheReadsFromFiles) {
  Options options = SmallTableOptions(NewMemFileSystem());
  options.table_options.no_block_cache = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, 3000, "v", 1000));
  ASSERT_NO_FATAL_FAILURE(ExpectAll(db.get(), 0, 3000, "v"));
  EXPECT_EQ(ScanForward(db.get()).size(), 3000u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheCapacity), 0u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheUsage), 0u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCachePinnedUsage), 0u);
  EXPECT_EQ(db->GetOptions().table_options.block_cache, nullptr);
  ASSERT_OK(db->Close());
}

TEST(BlockCacheTest, DefaultCacheAndOptimizeForPointLookup) {
  Options options = SmallTableOptions(NewMemFileSystem());
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheCapacity), 8u << 20) << "default cache";
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, 3000, "v", 1000));
  ASSERT_OK(db->Close());

  options.OptimizeForPointLookup(1);
  ASSERT_OK(DB::Open(options, "/db", &db));
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheCapacity), 1u << 20);
  ASSERT_NO_FATAL_FAILURE(ExpectAll(db.get(), 0, 3000, "v"));
  std::string value;
  EXPECT_TRUE(db->Get(ReadOptions(), "absent", &value).IsNotFound());
  // Blocks beyond the open tables' charged reader memory (the preset's cache is a named one).
  EXPECT_GT(Prop(db.get(), DB::Properties::kTableReadersMemCharged), 0u);
  EXPECT_GT(Prop(db.get(), DB::Properties::kBlockCacheUsage),
            Prop(db.get(), DB::Properties::kTableReadersMemCharged));
  EXPECT_LE(Prop(db.get(), DB::Properties::kBlockCacheUsage), 1u << 20);
  ASSERT_OK(db->Close());
}

// ------------------------------------------------------------------ 7. Memory properties

void ExpectMemoryUsageAddsUp(DB* db) {
  const uint64_t mem = Prop(db, DB::Properties::kSizeAllMemTables);
  const uint64_t cur = Prop(db, DB::Properties::kCurSizeAllMemTables);
  const uint64_t cache = Prop(db, DB::Properties::kBlockCacheUsage);
  const uint64_t readers = Prop(db, DB::Properties::kEstimateTableReadersMem);
  EXPECT_GE(mem, cur);
  // Readers charged to the block cache are in its usage already.
  const uint64_t charged = Prop(db, DB::Properties::kTableReadersMemCharged);
  EXPECT_LE(charged, readers);
  EXPECT_EQ(Prop(db, DB::Properties::kMemoryUsage), mem + cache + readers - charged);
}

// The flush thread drops its reference to a flushed memtable a moment after Flush returns:
// waits (up to a second) until no flushed memtable is counted.
void WaitForFlushedMemtablesReleased(DB* db) {
  for (int i = 0; i < 200 && Prop(db, DB::Properties::kSizeAllMemTables) !=
                                 Prop(db, DB::Properties::kCurSizeAllMemTables);
       i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(BlockCacheTest, MemoryPropertiesAddUp) {
  Options options = SmallTableOptions(NewMemFileSystem());
  options.write_buffer_size = 4 << 20;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), 0, 2000, "v", 1000));
  ASSERT_NO_FATAL_FAILURE(ExpectAll(db.get(), 0, 1000, "v"));  // opens tables, fills the cache
  for (int i = 2000; i < 3000; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, "v")));
  EXPECT_GT(Prop(db.get(), DB::Properties::kBlockCacheUsage), 0u);
  EXPECT_GT(Prop(db.get(), DB::Properties::kEstimateTableReadersMem), 0u);
  const uint64_t active = Prop(db.get(), DB::Properties::kCurSizeAllMemTables);
  EXPECT_GT(active, 0u);
  WaitForFlushedMemtablesReleased(db.get());
  EXPECT_EQ(Prop(db.get(), DB::Properties::kSizeAllMemTables), active);
  ExpectMemoryUsageAddsUp(db.get());

  // An iterator made before the flush pins the flushed memtable.
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  ASSERT_OK(db->Flush(FlushOptions()));
  const uint64_t cur = Prop(db.get(), DB::Properties::kCurSizeAllMemTables);
  const uint64_t all = Prop(db.get(), DB::Properties::kSizeAllMemTables);
  EXPECT_EQ(all - cur, active) << "size-all-mem-tables must count the pinned memtable";
  ExpectMemoryUsageAddsUp(db.get());
  it->Seek(Key(2500));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), Value(2500, "v"));
  it.reset();
  WaitForFlushedMemtablesReleased(db.get());
  EXPECT_EQ(Prop(db.get(), DB::Properties::kSizeAllMemTables),
            Prop(db.get(), DB::Properties::kCurSizeAllMemTables))
      << "the flushed memtable is still counted after its last reader let go";
  ExpectMemoryUsageAddsUp(db.get());
  ASSERT_OK(db->Close());
}

// ------------------------------------------------------------------ 8. Rejected options

// A Cache not made by NewLRUCache: the DB cannot use it.
class ForeignCache final : public Cache {
 public:
  const char* Name() const override { return "ForeignCache"; }
  size_t GetCapacity() const override { return 1 << 20; }
  void SetCapacity(size_t) override {}
  bool HasStrictCapacityLimit() const override { return false; }
  void SetStrictCapacityLimit(bool) override {}
  size_t GetUsage() const override { return 0; }
  size_t GetPinnedUsage() const override { return 0; }
  size_t GetOccupancyCount() const override { return 0; }
  void EraseUnRefEntries() override {}
};

void ExpectOpenRejects(const Options& options, std::string_view option_name) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(options, "/db", &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find(option_name), std::string::npos) << s.ToString();
  EXPECT_EQ(db, nullptr);
}

TEST(BlockCacheTest, OpenRejectsBadCacheOptions) {
  Options options = SmallTableOptions(NewMemFileSystem());
  Options foreign = options;
  foreign.table_options.block_cache = std::make_shared<ForeignCache>();
  ExpectOpenRejects(foreign, "block_cache");

  Options both = options;
  both.table_options.no_block_cache = true;
  both.table_options.block_cache = NewLRUCache(1 << 20);
  ExpectOpenRejects(both, "no_block_cache");

  Options cached_without_cache = options;
  cached_without_cache.table_options.no_block_cache = true;
  cached_without_cache.table_options.cache_index_and_filter_blocks = true;
  ExpectOpenRejects(cached_without_cache, "cache_index_and_filter_blocks");

  // Nothing was created by the rejected opens.
  EXPECT_FALSE(options.file_system->FileExists("/db/CURRENT").ok());
}

}  // namespace
}  // namespace shale
