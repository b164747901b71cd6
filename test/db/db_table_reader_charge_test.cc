// TableOptions::charge_table_reader_memory seen from the DB (issue 20: the memory of open
// tables bounded by the block cache's capacity, whatever the number of tables):
// - on (the default), the open tables' index and filter memory counts as the cache's pinned
//   usage, and the cache plus the readers stay within the cache's capacity while every key
//   reads back as a std::map model says; off, the readers' memory comes on top of a full cache;
// - with a strict cache too small for the readers, every key still reads back;
// - the option string, the C API setter's default, and the per-family rule (it must match the
//   default family's, since one table cache reads every family).
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/filter_policy.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%07d", i);
  return buf;
}

std::string Value(int i) { return "value-" + std::to_string(i) + std::string(90, 'x'); }

uint64_t Prop(DB* db, std::string_view name) {
  uint64_t v = 0;
  EXPECT_TRUE(db->GetIntProperty(name, &v)) << name;
  return v;
}

constexpr int kTables = 30;
constexpr int kKeysPerTable = 2000;
constexpr size_t kCacheBytes = 512 << 10;

Options ManyTablesOptions(bool charge, std::shared_ptr<Cache> cache) {
  Options options;
  options.file_system = NewMemFileSystem();
  options.create_if_missing = true;
  options.disable_auto_compactions = true;  // keep every table
  options.table_options.filter_policy = NewBloomFilterPolicy(10);
  options.table_options.block_cache = std::move(cache);
  options.table_options.charge_table_reader_memory = charge;
  return options;
}

// kTables tables of kKeysPerTable keys each (keys interleaved across tables, so every table
// spans the key space and a Get consults all their filters), recorded in *model.
void LoadTables(DB* db, std::map<std::string, std::string>* model) {
  for (int t = 0; t < kTables; t++) {
    for (int j = 0; j < kKeysPerTable; j++) {
      const int i = j * kTables + t;
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
      (*model)[Key(i)] = Value(i);
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
}

void ExpectModel(DB* db, const std::map<std::string, std::string>& model) {
  for (const auto& [key, value] : model) {
    std::string got;
    Status s = db->Get(ReadOptions(), key, &got);
    ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
    ASSERT_EQ(got, value) << key;
  }
  std::string got;
  EXPECT_TRUE(db->Get(ReadOptions(), "absent", &got).IsNotFound());
}

TEST(TableReaderChargeTest, OpenTablesAndCachedBlocksStayWithinTheCapacity) {
  std::shared_ptr<Cache> cache = NewLRUCache(kCacheBytes);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyTablesOptions(/*charge=*/true, cache), "/db", &db));
  std::map<std::string, std::string> model;
  ASSERT_NO_FATAL_FAILURE(LoadTables(db.get(), &model));
  ASSERT_GE(Prop(db.get(), "shale.num-files-at-level0"), uint64_t{kTables} - 2);
  ASSERT_NO_FATAL_FAILURE(ExpectModel(db.get(), model));

  const uint64_t readers = Prop(db.get(), DB::Properties::kEstimateTableReadersMem);
  ASSERT_GT(readers, 100u << 10);  // the filters alone: 60,000 keys x 10 bits
  // Nothing else is pinned once the reads are done: the pinned usage is the readers' charge.
  EXPECT_EQ(cache->GetPinnedUsage(), readers);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kTableReadersMemCharged), readers);
  EXPECT_LE(cache->GetUsage(), kCacheBytes);  // readers and data blocks together
  EXPECT_GT(cache->GetUsage(), readers);      // and the rest still caches data blocks

  // Closing gives the charge back.
  ASSERT_OK(db->Close());
  db.reset();
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
}

TEST(TableReaderChargeTest, WithoutTheChargeReadersComeOnTopOfAFullCache) {
  std::shared_ptr<Cache> cache = NewLRUCache(kCacheBytes);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyTablesOptions(/*charge=*/false, cache), "/db", &db));
  std::map<std::string, std::string> model;
  ASSERT_NO_FATAL_FAILURE(LoadTables(db.get(), &model));
  ASSERT_NO_FATAL_FAILURE(ExpectModel(db.get(), model));
  const uint64_t readers = Prop(db.get(), DB::Properties::kEstimateTableReadersMem);
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kTableReadersMemCharged), 0u);
  EXPECT_GT(cache->GetUsage() + readers, kCacheBytes);  // what the charge prevents
  ASSERT_OK(db->Close());
}

// The DB's private 8 MiB cache (no block_cache given) is not charged: the readers of a DB
// much past 1 GB would take all of it.
TEST(TableReaderChargeTest, ThePrivateDefaultCacheIsNotCharged) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyTablesOptions(/*charge=*/true, nullptr), "/db", &db));
  std::map<std::string, std::string> model;
  ASSERT_NO_FATAL_FAILURE(LoadTables(db.get(), &model));
  ASSERT_NO_FATAL_FAILURE(ExpectModel(db.get(), model));
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCacheCapacity), 8u << 20);
  EXPECT_GT(Prop(db.get(), DB::Properties::kEstimateTableReadersMem), 0u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kTableReadersMemCharged), 0u);
  EXPECT_EQ(Prop(db.get(), DB::Properties::kBlockCachePinnedUsage), 0u);
  ASSERT_OK(db->Close());
}

TEST(TableReaderChargeTest, AStrictCacheTooSmallForTheReadersStillReadsEverything) {
  std::shared_ptr<Cache> cache = NewLRUCache(64 << 10, 0, /*strict_capacity_limit=*/true);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyTablesOptions(/*charge=*/true, cache), "/db", &db));
  std::map<std::string, std::string> model;
  ASSERT_NO_FATAL_FAILURE(LoadTables(db.get(), &model));
  ASSERT_NO_FATAL_FAILURE(ExpectModel(db.get(), model));
  EXPECT_LE(cache->GetUsage(), size_t{64} << 10);
  // Compaction reads the tables too.
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(ExpectModel(db.get(), model));
  EXPECT_LE(cache->GetUsage(), size_t{64} << 10);
  ASSERT_OK(db->Close());
}

TEST(TableReaderChargeTest, OptionStringAndDefault) {
  EXPECT_TRUE(TableOptions().charge_table_reader_memory);
  Options base;
  Options parsed;
  ASSERT_OK(GetOptionsFromString(
      base, "block_based_table_factory={charge_table_reader_memory=false}", &parsed));
  EXPECT_FALSE(parsed.table_options.charge_table_reader_memory);
  Status s = GetOptionsFromString(
      base, "block_based_table_factory={charge_table_reader_memory=maybe}", &parsed);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("charge_table_reader_memory"), std::string::npos) << s.ToString();
}

TEST(TableReaderChargeTest, AFamilyMustChargeAsTheDefaultFamilyDoes) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(ManyTablesOptions(/*charge=*/true, NewLRUCache(kCacheBytes)), "/db", &db));
  ColumnFamilyOptions family;
  family.table_options.charge_table_reader_memory = false;
  ColumnFamilyHandle* handle = nullptr;
  Status s = db->CreateColumnFamily(family, "other", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("charge_table_reader_memory"), std::string::npos) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
