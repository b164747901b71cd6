// Memory kept outside the block cache and charged to it (BlockSource::ChargeMemory, issue 20:
// the memory of open tables bounded by the cache's capacity):
// - LRUCache::ChargeMemory counts the bytes as usage and as pinned usage until the charge is
//   destroyed, evicts idle blocks to make room, spreads a charge over the shards so usage stays
//   within capacity, and with a strict limit refuses a charge that does not fit (charging
//   nothing);
// - the table cache charges each parsed table's reader memory while the table stays parsed
//   (and only when asked), gives it back when the table goes, and with a strict cache that
//   cannot fit a table serves the table to its callers without keeping it.
#include <gtest/gtest.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/filename.h"
#include "cache/lru_cache.h"
#include "cache/table_cache.h"
#include "table/block_builder.h"
#include "table/table_test_util.h"

namespace shale {
namespace {

// ---------------------------------------------------------------------------------------------
// LRUCache::ChargeMemory

std::string BlockContents(uint64_t i) {
  BlockBuilder builder(16);
  builder.Add(absl::StrFormat("%016d", i), std::string(1000, 'v'));
  return std::string(builder.Finish());
}

std::shared_ptr<LRUCache> MakeCache(size_t capacity, int shard_bits, bool strict = false) {
  std::shared_ptr<Cache> cache = NewLRUCache(capacity, shard_bits, strict, 0.5);
  EXPECT_NE(cache, nullptr);
  return std::shared_ptr<LRUCache>(cache, LRUCache::FromCache(cache.get()));
}

// Inserts (or finds) the data block of key i; the returned handle pins it while held.
std::shared_ptr<const LoadedBlock> Fetch(LRUCache* cache, uint64_t i, size_t* charge = nullptr) {
  BlockRequest request;
  request.key = BlockKey{1, i * 4096};
  std::shared_ptr<const LoadedBlock> block;
  Status s = cache->GetBlock(
      request,
      [&](std::unique_ptr<LoadedBlock>* out) {
        return LoadedBlock::MakeBlock(BlockContents(i), LoadedBlock::Memory::kHeap, out);
      },
      &block);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (charge != nullptr && block != nullptr) *charge = block->charge();
  return block;
}

size_t BlockCharge() {
  auto cache = MakeCache(1 << 20, 0);
  size_t charge = 0;
  Fetch(cache.get(), 0, &charge);
  return charge;
}

TEST(LRUCacheChargeTest, ChargeIsPinnedUsageAndPushesIdleBlocksOut) {
  const size_t c = BlockCharge();
  ASSERT_GT(c, 1000u);
  auto cache = MakeCache(100 * c, 0);
  for (uint64_t i = 0; i < 100; i++) Fetch(cache.get(), i);  // released at once: idle
  ASSERT_EQ(cache->GetOccupancyCount(), 100u);
  ASSERT_EQ(cache->GetPinnedUsage(), 0u);

  std::unique_ptr<MemoryCharge> charge;
  ASSERT_TRUE(cache->ChargeMemory(60 * c, &charge).ok());
  ASSERT_NE(charge, nullptr);
  EXPECT_EQ(charge->bytes(), 60 * c);
  EXPECT_EQ(cache->GetPinnedUsage(), 60 * c);
  EXPECT_LE(cache->GetUsage(), 100 * c);
  EXPECT_EQ(cache->GetOccupancyCount(), 40u);  // 60 blocks made room for the charge
  // New blocks keep only the room that is left.
  for (uint64_t i = 100; i < 300; i++) Fetch(cache.get(), i);
  EXPECT_LE(cache->GetUsage(), 100 * c);
  EXPECT_EQ(cache->GetOccupancyCount(), 40u);

  charge.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(cache->GetUsage(), 40 * c);
  for (uint64_t i = 300; i < 400; i++) Fetch(cache.get(), i);
  EXPECT_EQ(cache->GetOccupancyCount(), 100u);  // the whole capacity is blocks' again
}

TEST(LRUCacheChargeTest, ChargeBeyondCapacityLeavesNoBlockCachedUntilReleased) {
  const size_t c = BlockCharge();
  auto cache = MakeCache(10 * c, 0);
  std::unique_ptr<MemoryCharge> charge;
  ASSERT_TRUE(cache->ChargeMemory(25 * c, &charge).ok());  // no strict limit: accepted
  EXPECT_EQ(cache->GetUsage(), 25 * c);
  std::shared_ptr<const LoadedBlock> held = Fetch(cache.get(), 1);
  ASSERT_NE(held, nullptr);  // still served
  held.reset();
  EXPECT_EQ(cache->GetOccupancyCount(), 0u);  // but not kept: the budget is spent
  EXPECT_EQ(cache->GetUsage(), 25 * c);
  charge.reset();
  EXPECT_EQ(cache->GetUsage(), 0u);
}

TEST(LRUCacheChargeTest, ChargeIsSpreadOverTheShards) {
  // 16 shards. A charge of all but about 3 blocks per shard's worth: if it landed in one shard,
  // the other 15 would still fill their whole share and usage would end far above capacity.
  const size_t c = BlockCharge();
  constexpr size_t kShards = 16;
  const size_t capacity = kShards * 20 * c;
  auto cache = MakeCache(capacity, 4);
  std::unique_ptr<MemoryCharge> charge;
  ASSERT_TRUE(cache->ChargeMemory(capacity - kShards * 3 * c, &charge).ok());
  for (uint64_t i = 0; i < 2000; i++) Fetch(cache.get(), i);
  EXPECT_LE(cache->GetUsage(), capacity);
  EXPECT_GE(cache->GetOccupancyCount(), kShards);  // each shard keeps a few blocks
  EXPECT_LE(cache->GetOccupancyCount(), kShards * 3);
  charge.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_LE(cache->GetUsage(), kShards * 3 * c);
}

TEST(LRUCacheChargeTest, ChargesOfOddSizesGiveBackExactlyWhatTheyTook) {
  auto cache = MakeCache(1 << 20, 3);
  std::vector<std::unique_ptr<MemoryCharge>> charges;
  size_t total = 0;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{12345}}) {
    std::unique_ptr<MemoryCharge> charge;
    ASSERT_TRUE(cache->ChargeMemory(bytes, &charge).ok());
    total += bytes;
    EXPECT_EQ(cache->GetPinnedUsage(), total);
    charges.push_back(std::move(charge));
  }
  charges.clear();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(cache->GetUsage(), 0u);
}

TEST(LRUCacheChargeTest, StrictLimitRefusesAChargeThatDoesNotFitAndChargesNothing) {
  const size_t c = BlockCharge();
  auto cache = MakeCache(40 * c, 1, /*strict=*/true);  // 2 shards of 20 blocks
  std::vector<std::shared_ptr<const LoadedBlock>> held;
  for (uint64_t i = 0; i < 10; i++) held.push_back(Fetch(cache.get(), i));  // pinned
  for (uint64_t i = 10; i < 30; i++) Fetch(cache.get(), i);                // idle
  const size_t usage = cache->GetUsage();
  const size_t pinned = cache->GetPinnedUsage();
  ASSERT_EQ(pinned, 10 * c);

  std::unique_ptr<MemoryCharge> charge;
  Status s = cache->ChargeMemory(40 * c, &charge);
  EXPECT_TRUE(s.IsMemoryLimit()) << s.ToString();
  EXPECT_EQ(charge, nullptr);
  EXPECT_EQ(cache->GetUsage(), usage);  // nothing charged, nothing evicted
  EXPECT_EQ(cache->GetPinnedUsage(), pinned);

  // What fits beside the pinned blocks is accepted, idle blocks making room.
  ASSERT_TRUE(cache->ChargeMemory(20 * c, &charge).ok());
  EXPECT_EQ(cache->GetPinnedUsage(), 30 * c);
  EXPECT_LE(cache->GetUsage(), 40 * c);
  held.clear();
  charge.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
}

TEST(LRUCacheChargeTest, UncachedSourceChargesNothing) {
  std::unique_ptr<MemoryCharge> charge;
  ASSERT_TRUE(UncachedBlockSource()->ChargeMemory(1 << 20, &charge).ok());
  EXPECT_EQ(charge, nullptr);
}

// ---------------------------------------------------------------------------------------------
// The table cache's charge

constexpr char kDb[] = "/db";
constexpr int kKeysPerTable = 400;

std::string UserKey(uint64_t table, int i) { return absl::StrFormat("t%05d-%05d", table, i); }

class TableCacheChargeTest : public ::testing::Test {
 protected:
  TableCacheChargeTest() : icmp_(BytewiseComparator()), fs_(NewMemFileSystem()) {
    EXPECT_TRUE(fs_->CreateDirIfMissing(kDb).ok());
    TableOptions options;
    options.filter_policy = NewBloomFilterPolicy(10);
    for (uint64_t t = 1; t <= 4; t++) {
      std::vector<Entry> entries;
      for (int i = 0; i < kKeysPerTable; i++) {
        entries.emplace_back(MakeInternalKey(UserKey(t, i), 10, kTypeValue), "value");
      }
      const std::string path = TableFileName(kDb, t);
      EXPECT_TRUE(BuildTable(fs_.get(), path, options, kNoCompression, &icmp_, entries).ok());
      uint64_t size = 0;
      EXPECT_TRUE(fs_->GetFileSize(path, &size).ok());
      sizes_.push_back(size);
    }
  }

  std::unique_ptr<TableCache> NewTableCache(BlockSource* source, bool charge,
                                            size_t capacity = TableCache::kUnlimited) {
    return std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, source, TableReaderOptions(),
                                        capacity, uint64_t{1} << 40, false, 0, charge);
  }

  Status Find(TableCache* cache, uint64_t t, std::shared_ptr<const CachedTable>* table) {
    return cache->Find(t, sizes_[t - 1], table);
  }

  static bool Reads(const CachedTable& table, uint64_t t, int i) {
    std::vector<Entry> got;
    return GetAll(*table.reader, UserKey(t, i), kMaxSequenceNumber, &got).ok() &&
           got.size() == 1 && got[0].second == "value";
  }

  const InternalKeyComparator icmp_;
  std::shared_ptr<FileSystem> fs_;
  std::vector<uint64_t> sizes_;
};

TEST_F(TableCacheChargeTest, ParsedTablesAreChargedWhileTheyStayParsed) {
  auto block_cache = MakeCache(64 << 20, 2);
  auto tables = NewTableCache(block_cache.get(), /*charge=*/true, /*capacity=*/3);
  size_t charged = 0;
  for (uint64_t t = 1; t <= 3; t++) {
    std::shared_ptr<const CachedTable> table;
    ASSERT_TRUE(Find(tables.get(), t, &table).ok());
    ASSERT_NE(table->memory_charge, nullptr);
    EXPECT_EQ(table->memory_charge->bytes(), table->reader->ApproximateMemoryUsage());
    charged += table->memory_charge->bytes();
  }
  // The filter alone is 500 bytes per table: the charge is the reader's index and filter.
  EXPECT_GT(charged, 3u * 500);
  EXPECT_EQ(tables->ApproximateReadersMemory(), charged);
  EXPECT_EQ(block_cache->GetPinnedUsage(), charged);

  // Table 4 pushes table 1 (least recently used) out of the table cache: its charge goes.
  std::shared_ptr<const CachedTable> four;
  ASSERT_TRUE(Find(tables.get(), 4, &four).ok());
  EXPECT_EQ(tables->NumTables(), 3u);
  EXPECT_EQ(block_cache->GetPinnedUsage(), tables->ApproximateReadersMemory());

  // A table a reader holds keeps its charge after Evict, until the reader lets go.
  tables->Evict(4);
  EXPECT_EQ(block_cache->GetPinnedUsage(),
            tables->ApproximateReadersMemory() + four->memory_charge->bytes());
  four.reset();
  EXPECT_EQ(block_cache->GetPinnedUsage(), tables->ApproximateReadersMemory());

  tables->Close();
  EXPECT_EQ(block_cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(block_cache->GetUsage(), 0u);
}

TEST_F(TableCacheChargeTest, NothingIsChargedUnlessAsked) {
  auto block_cache = MakeCache(64 << 20, 2);
  auto tables = NewTableCache(block_cache.get(), /*charge=*/false);
  std::shared_ptr<const CachedTable> table;
  ASSERT_TRUE(Find(tables.get(), 1, &table).ok());
  EXPECT_EQ(table->memory_charge, nullptr);
  EXPECT_GT(tables->ApproximateReadersMemory(), 0u);
  EXPECT_EQ(block_cache->GetPinnedUsage(), 0u);
}

TEST_F(TableCacheChargeTest, AStrictCacheDropsTheLeastRecentlyUsedTablesToMakeRoom) {
  // Room for two tables' charges (every table here charges about the same), not three.
  size_t one = 0;
  {
    auto probe_cache = MakeCache(64 << 20, 0);
    auto probe = NewTableCache(probe_cache.get(), /*charge=*/true);
    std::shared_ptr<const CachedTable> table;
    ASSERT_TRUE(Find(probe.get(), 1, &table).ok());
    one = table->memory_charge->bytes();
  }
  auto block_cache = MakeCache(one * 5 / 2, 0, /*strict=*/true);
  auto tables = NewTableCache(block_cache.get(), /*charge=*/true);
  for (uint64_t t = 1; t <= 4; t++) {
    std::shared_ptr<const CachedTable> table;
    ASSERT_TRUE(Find(tables.get(), t, &table).ok());
    EXPECT_NE(table->memory_charge, nullptr) << t;  // kept: older tables made room
    EXPECT_TRUE(Reads(*table, t, 7));
    EXPECT_LE(tables->NumTables(), 2u);
    EXPECT_LE(block_cache->GetUsage(), one * 5 / 2);
  }
  // The two most recently used are the ones kept: finding them again opens nothing.
  EXPECT_EQ(tables->NumTables(), 2u);
  const size_t charged = block_cache->GetPinnedUsage();
  for (uint64_t t : {3, 4}) {
    std::shared_ptr<const CachedTable> table;
    ASSERT_TRUE(Find(tables.get(), t, &table).ok());
  }
  EXPECT_EQ(block_cache->GetPinnedUsage(), charged);
  EXPECT_EQ(tables->ApproximateReadersMemory(), charged);
}

TEST_F(TableCacheChargeTest, AStrictCacheThatCannotFitATableServesItWithoutKeepingIt) {
  auto block_cache = MakeCache(256, 0, /*strict=*/true);  // smaller than any table's charge
  auto tables = NewTableCache(block_cache.get(), /*charge=*/true);
  for (int round = 0; round < 2; round++) {
    for (uint64_t t = 1; t <= 4; t++) {
      std::shared_ptr<const CachedTable> table;
      ASSERT_TRUE(Find(tables.get(), t, &table).ok());
      EXPECT_EQ(table->memory_charge, nullptr);
      for (int i : {0, kKeysPerTable / 2, kKeysPerTable - 1}) {
        EXPECT_TRUE(Reads(*table, t, i)) << t << " " << i;
      }
    }
  }
  EXPECT_EQ(tables->NumTables(), 0u);
  EXPECT_EQ(tables->ApproximateReadersMemory(), 0u);
  EXPECT_LE(block_cache->GetUsage(), 256u);

  // Once there is room, tables are kept and charged again.
  block_cache->SetCapacity(64 << 20);
  std::shared_ptr<const CachedTable> table;
  ASSERT_TRUE(Find(tables.get(), 2, &table).ok());
  EXPECT_NE(table->memory_charge, nullptr);
  EXPECT_EQ(tables->NumTables(), 1u);
  EXPECT_EQ(block_cache->GetPinnedUsage(), table->memory_charge->bytes());
}

}  // namespace
}  // namespace shale
