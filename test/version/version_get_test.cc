// Version::Get and Version::AddIterators, on their own (no DB): real tables in an in-memory file
// system, opened through a TableCache, placed in levels with VersionBuilder. Checks the lookup's
// contract: newest source first (L0 in its order, then each level), values, deletions and merges
// across levels, range deletions (hiding older entries in their own table and in older ones,
// not newer ones), the read's snapshot, a key whose entries continue into the next file of a
// level, ingested files read at their global sequence, early stop (files below the deciding
// one are never opened), errors returned as they are; and that AddIterators yields every entry
// and AddRangeTombstones every file's range deletions. And the table pin (FileMetaData::table_pin):
// a Get pins a file's parsed table only when the table cache would keep it until the file is
// deleted, and then reads through the pin without the cache.
#include "version/version.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/filename.h"
#include "base/range_tombstones.h"
#include "cache/lru_cache.h"
#include "cache/table_cache.h"
#include "iterator/merging_iterator.h"
#include "merge/get_context.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "table/table_test_util.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "version/version_builder.h"
#include "version/version_edit.h"
#include "version/version_level_files.h"

namespace shale::test {
namespace {

constexpr char kDb[] = "/db";
constexpr int kLevels = 4;

// One entry of a test table: a point entry (user key, sequence, type, value), or with
// kTypeRangeDeletion the deletion of [key, value) at `seq`.
struct TestEntry {
  std::string key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

TestEntry Put(std::string key, SequenceNumber seq, std::string value) {
  return {std::move(key), seq, kTypeValue, std::move(value)};
}
TestEntry Del(std::string key, SequenceNumber seq) {
  return {std::move(key), seq, kTypeDeletion, ""};
}
TestEntry Merge(std::string key, SequenceNumber seq, std::string operand) {
  return {std::move(key), seq, kTypeMerge, std::move(operand)};
}
TestEntry DeleteRange(std::string start, std::string end, SequenceNumber seq) {
  return {std::move(start), seq, kTypeRangeDeletion, std::move(end)};
}

class VersionGetTest : public testing::Test {
 protected:
  VersionGetTest() : icmp_(BytewiseComparator()), fs_(NewMemFileSystem()) {
    EXPECT_OK(fs_->CreateDirIfMissing(kDb));
    cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, UncachedBlockSource(),
                                          TableReaderOptions(), /*capacity=*/100);
    current_ = new Version(&icmp_, kLevels);
    current_->Ref();
  }
  ~VersionGetTest() override { current_->Unref(); }

  // Writes table `number` holding `entries` and adds it to `level` of the current version.
  // With a global sequence, the entries are stored at sequence 0 and read at `global_seqno`
  // (an ingested file).
  void AddTable(int level, uint64_t number, std::vector<TestEntry> entries,
                SequenceNumber global_seqno = 0) {
    std::vector<Entry> points;
    std::vector<Entry> deletions;
    FileMetaData meta;
    meta.number = number;
    meta.global_seqno = global_seqno;
    for (const TestEntry& e : entries) {
      const SequenceNumber stored = global_seqno > 0 ? 0 : e.seq;
      const std::string ikey = MakeInternalKey(e.key, stored, e.type);
      (e.type == kTypeRangeDeletion ? deletions : points).emplace_back(ikey, e.value);
    }
    std::sort(points.begin(), points.end(), [this](const Entry& a, const Entry& b) {
      return icmp_.Compare(a.first, b.first) < 0;
    });
    auto widen = [&](const std::string& smallest, const std::string& largest) {
      if (meta.smallest.empty() || icmp_.Compare(smallest, meta.smallest) < 0) {
        meta.smallest = smallest;
      }
      if (meta.largest.empty() || icmp_.Compare(largest, meta.largest) > 0) {
        meta.largest = largest;
      }
    };
    for (const Entry& p : points) widen(p.first, p.first);
    for (const Entry& d : deletions) {
      // A range deletion's file covers [start, end): its largest key sorts first among end's.
      widen(d.first, MakeInternalKey(d.second, kMaxSequenceNumber, kTypeRangeDeletion));
    }
    for (const TestEntry& e : entries) {
      const SequenceNumber seq = global_seqno > 0 ? global_seqno : e.seq;
      meta.smallest_seqno = std::min(meta.smallest_seqno, seq);
      meta.largest_seqno = std::max(meta.largest_seqno, seq);
    }
    meta.num_entries = entries.size();
    meta.num_range_deletions = deletions.size();
    points.insert(points.end(), deletions.begin(), deletions.end());
    const std::string path = TableFileName(kDb, number);
    ASSERT_OK(BuildTable(fs_.get(), path, TableOptions(), kNoCompression, &icmp_, points));
    ASSERT_OK(fs_->GetFileSize(path, &meta.file_size));

    VersionEdit edit;
    edit.AddFile(level, meta);
    auto* v = new Version(&icmp_, kLevels);
    v->Ref();
    Status s;
    {
      VersionBuilder builder(&icmp_, current_);
      s = builder.Apply(edit);
      if (s.ok()) s = builder.SaveTo(v);
    }
    if (!s.ok()) v->Unref();
    ASSERT_OK(s);
    current_->Unref();
    current_ = v;
  }

  // Version::Get of `key` at `snapshot`, then Finish: the value, "NOT_FOUND", or the error.
  // *tombstone (optional) gets the covering tombstone the context was told of.
  std::string Get(std::string_view key, SequenceNumber snapshot = kMaxSequenceNumber,
                  const MergeOperator* merge_operator = nullptr,
                  SequenceNumber* tombstone = nullptr) {
    std::string value;
    LookupKey lkey(key, snapshot);
    GetContext context(merge_operator, key, &value);
    Status s = current_->Get(TableReadOptions(), cache_.get(), lkey, &context);
    if (tombstone != nullptr) *tombstone = context.covering_tombstone();
    if (s.ok()) s = context.Finish();
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }

  InternalKeyComparator icmp_;
  std::shared_ptr<FileSystem> fs_;
  std::unique_ptr<TableCache> cache_;
  Version* current_;
};

TEST_F(VersionGetTest, EmptyVersionLeavesTheLookupUndecided) {
  std::string value;
  LookupKey lkey("a", kMaxSequenceNumber);
  GetContext context(nullptr, "a", &value);
  ASSERT_OK(current_->Get(TableReadOptions(), cache_.get(), lkey, &context));
  EXPECT_FALSE(context.done());
  EXPECT_TRUE(context.Finish().IsNotFound());
}

TEST_F(VersionGetTest, NewestSourceWinsAcrossLevels) {
  AddTable(3, 1, {Put("a", 1, "a3"), Put("b", 2, "b3"), Put("c", 3, "c3")});
  AddTable(2, 2, {Put("a", 10, "a2"), Put("b", 11, "b2")});
  AddTable(1, 3, {Put("a", 20, "a1")});
  AddTable(0, 4, {Put("d", 30, "d0-old")});
  AddTable(0, 5, {Put("d", 40, "d0-new"), Put("e", 41, "e0")});
  EXPECT_EQ(Get("a"), "a1");
  EXPECT_EQ(Get("b"), "b2");
  EXPECT_EQ(Get("c"), "c3");
  EXPECT_EQ(Get("d"), "d0-new");  // L0 is read newest first
  EXPECT_EQ(Get("e"), "e0");
  EXPECT_EQ(Get("f"), "NOT_FOUND");
  EXPECT_EQ(Get("0"), "NOT_FOUND");  // before every file
}

TEST_F(VersionGetTest, SnapshotSeesOnlyEntriesAtOrBelowItsSequence) {
  AddTable(2, 1, {Put("a", 5, "v5")});
  AddTable(1, 2, {Put("a", 10, "v10")});
  AddTable(0, 3, {Del("a", 20)});
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("a", 20), "NOT_FOUND");
  EXPECT_EQ(Get("a", 19), "v10");
  EXPECT_EQ(Get("a", 10), "v10");
  EXPECT_EQ(Get("a", 9), "v5");
  EXPECT_EQ(Get("a", 4), "NOT_FOUND");
}

TEST_F(VersionGetTest, MergeOperandsGatherAcrossLevelsOntoTheValueBelow) {
  JoinOperator join;
  AddTable(3, 1, {Put("k", 1, "base"), Put("m", 2, "m-old")});
  AddTable(2, 2, {Merge("k", 10, "x"), Del("m", 11)});
  AddTable(1, 3, {Merge("k", 20, "y"), Merge("m", 21, "after-delete")});
  AddTable(0, 4, {Merge("k", 30, "z"), Merge("n", 31, "alone")});
  EXPECT_EQ(Get("k", kMaxSequenceNumber, &join), "base,x,y,z");
  EXPECT_EQ(Get("k", 25, &join), "base,x,y");
  EXPECT_EQ(Get("m", kMaxSequenceNumber, &join), "after-delete");  // merged onto nothing
  EXPECT_EQ(Get("m", 15, &join), "NOT_FOUND");
  EXPECT_EQ(Get("n", kMaxSequenceNumber, &join), "alone");  // Finish merges what is left
  // Without a merge operator, operands are an error.
  EXPECT_EQ(Get("k").substr(0, 16), "Invalid argument");
}

TEST_F(VersionGetTest, OnlyOperandsLeaveTheContextForFinish) {
  JoinOperator join;
  AddTable(1, 1, {Merge("k", 5, "a")});
  AddTable(0, 2, {Merge("k", 6, "b")});
  std::string value;
  LookupKey lkey("k", kMaxSequenceNumber);
  GetContext context(&join, "k", &value);
  ASSERT_OK(current_->Get(TableReadOptions(), cache_.get(), lkey, &context));
  EXPECT_FALSE(context.done());
  EXPECT_EQ(context.num_operands(), 2u);
  ASSERT_OK(context.Finish());
  EXPECT_EQ(value, "a,b");
}

TEST_F(VersionGetTest, RangeDeletionHidesOlderEntriesInItsTableAndBelow) {
  JoinOperator join;
  AddTable(2, 1, {Put("a", 1, "a-old"), Put("c", 2, "c-old"), Put("z", 3, "z-old")});
  // L1: a range deletion of [a, d) at 20, with one older and one newer entry of its own.
  AddTable(1, 2,
           {Put("b", 15, "b-hidden"), Put("c", 25, "c-new"), Merge("a", 30, "op"),
            DeleteRange("a", "d", 20)});
  SequenceNumber tombstone = 0;
  EXPECT_EQ(Get("b", kMaxSequenceNumber, nullptr, &tombstone), "NOT_FOUND");  // same table
  EXPECT_EQ(tombstone, 20u);
  EXPECT_EQ(Get("c"), "c-new");                              // newer than the tombstone
  EXPECT_EQ(Get("a", kMaxSequenceNumber, &join), "op");      // merged onto nothing
  EXPECT_EQ(Get("z", kMaxSequenceNumber, nullptr, &tombstone), "z-old");  // not covered
  EXPECT_EQ(tombstone, 0u);
  // Below the tombstone's sequence the older entries are visible again.
  EXPECT_EQ(Get("b", 19), "b-hidden");
  EXPECT_EQ(Get("a", 19), "a-old");
  EXPECT_EQ(Get("c", 19), "c-old");
}

TEST_F(VersionGetTest, NewestCoveringTombstoneCounts) {
  AddTable(3, 1, {Put("k", 1, "v1")});
  AddTable(2, 2, {DeleteRange("a", "z", 5), Put("k", 8, "v8")});
  AddTable(1, 3, {DeleteRange("j", "l", 10)});
  SequenceNumber tombstone = 0;
  EXPECT_EQ(Get("k", kMaxSequenceNumber, nullptr, &tombstone), "NOT_FOUND");
  EXPECT_EQ(tombstone, 10u);
  EXPECT_EQ(Get("k", 9, nullptr, &tombstone), "v8");
  EXPECT_EQ(tombstone, 5u);
  EXPECT_EQ(Get("k", 7), "NOT_FOUND");
  EXPECT_EQ(Get("k", 4), "v1");
}

TEST_F(VersionGetTest, CoveringTombstoneEndsTheLookupWithoutOlderFiles) {
  JoinOperator join;
  AddTable(2, 1, {Put("b", 1, "b-old")});
  AddTable(1, 2, {DeleteRange("a", "d", 20), Merge("c", 25, "op")});
  // The L2 table is gone: a lookup the tombstone decides never opens it.
  ASSERT_OK(fs_->DeleteFile(TableFileName(kDb, 1)));
  EXPECT_EQ(Get("b"), "NOT_FOUND");
  EXPECT_EQ(Get("c", kMaxSequenceNumber, &join), "op");
  // Below the tombstone's sequence the lookup needs the L2 table.
  EXPECT_NE(Get("b", 19).find(TableFileName(kDb, 1)), std::string::npos);
}

TEST_F(VersionGetTest, KeyContinuesIntoTheNextFileOfALevel) {
  JoinOperator join;
  AddTable(2, 1, {Put("k", 1, "base")});
  // Two L1 files that split the versions of "k": the newer ones in the first file.
  AddTable(1, 2, {Put("a", 40, "a"), Merge("k", 30, "y"), Merge("k", 20, "x")});
  AddTable(1, 3, {Merge("k", 10, "w"), Put("m", 11, "m")});
  ASSERT_EQ(current_->NumFiles(1), 2);
  EXPECT_EQ(Get("k", kMaxSequenceNumber, &join), "base,w,x,y");
  EXPECT_EQ(Get("k", 15, &join), "base,w");
}

TEST_F(VersionGetTest, IngestedFileIsReadAtItsGlobalSequence) {
  AddTable(1, 1, {Put("k", 40, "flushed")});
  AddTable(0, 2, {Put("k", 0, "ingested")}, /*global_seqno=*/50);
  EXPECT_EQ(Get("k"), "ingested");
  EXPECT_EQ(Get("k", 49), "flushed");
}

TEST_F(VersionGetTest, StopsAtTheDecidingFileAndReturnsErrorsAsTheyAre) {
  AddTable(2, 1, {Put("a", 1, "a2"), Put("b", 2, "b2")});
  AddTable(1, 2, {Put("a", 10, "a1")});
  AddTable(0, 3, {Put("x", 20, "x0")});
  // The L2 table is gone: lookups decided above it never open it.
  ASSERT_OK(fs_->DeleteFile(TableFileName(kDb, 1)));
  EXPECT_EQ(Get("a"), "a1");
  EXPECT_EQ(Get("x"), "x0");  // and the L1 file, whose range excludes "x", is never needed
  const std::string missing = Get("b");
  EXPECT_NE(missing, "NOT_FOUND");
  EXPECT_NE(missing.find(TableFileName(kDb, 1)), std::string::npos) << missing;
  EXPECT_EQ(cache_->NumTables(), 2u);  // tables 2 and 3
}

TEST_F(VersionGetTest, AddIteratorsCoverEveryFileNewestSourceFirst) {
  AddTable(2, 1, {Put("a", 1, "a2"), Put("b", 2, "b2")});
  AddTable(2, 2, {Put("c", 3, "c2")});
  AddTable(1, 3, {Put("a", 10, "a1")});
  AddTable(0, 4, {Put("b", 20, "b0")});
  AddTable(0, 5, {Put("c", 30, "c0")});
  std::vector<std::unique_ptr<InternalIterator>> children;
  current_->AddIterators(TableReadOptions(), cache_.get(), &children);
  ASSERT_EQ(children.size(), 4u);  // two L0 files, then L1 and L2 (L3 is empty)
  std::unique_ptr<InternalIterator> merged = NewMergingIterator(&icmp_, std::move(children));
  std::vector<std::string> got;
  for (merged->SeekToFirst(); merged->Valid(); merged->Next()) {
    got.push_back(std::string(ExtractUserKey(merged->key())) + "@" +
                  std::to_string(ExtractSequence(merged->key())) + "=" +
                  std::string(merged->value()));
  }
  ASSERT_OK(merged->status());
  EXPECT_EQ(got, (std::vector<std::string>{"a@10=a1", "a@1=a2", "b@20=b0", "b@2=b2", "c@30=c0",
                                           "c@3=c2"}));
}

TEST_F(VersionGetTest, AddRangeTombstonesTakesEveryFileWithDeletions) {
  AddTable(2, 1, {Put("a", 1, "a"), DeleteRange("b", "c", 2)});
  AddTable(2, 2, {Put("x", 3, "x")});  // no range deletion: not opened
  AddTable(1, 3, {DeleteRange("a", "m", 10)});
  AddTable(0, 4, {Put("k", 20, "k"), DeleteRange("k", "l", 19)});
  std::vector<std::shared_ptr<const RangeTombstones>> tombstones;
  ASSERT_OK(current_->AddRangeTombstones(cache_.get(), &tombstones));
  ASSERT_EQ(tombstones.size(), 3u);
  // Newest source first: L0, then L1, then L2.
  EXPECT_EQ(tombstones[0]->MaxCoveringSequence("k", kMaxSequenceNumber), 19u);
  EXPECT_EQ(tombstones[1]->MaxCoveringSequence("k", kMaxSequenceNumber), 10u);
  EXPECT_EQ(tombstones[2]->MaxCoveringSequence("b", kMaxSequenceNumber), 2u);
  EXPECT_EQ(cache_->NumTables(), 3u);
  // A missing table is reported after the others are taken.
  tombstones.clear();
  cache_->Evict(3);
  ASSERT_OK(fs_->DeleteFile(TableFileName(kDb, 3)));
  Status s = current_->AddRangeTombstones(cache_.get(), &tombstones);
  EXPECT_NE(s.ToString().find(TableFileName(kDb, 3)), std::string::npos) << s.ToString();
  EXPECT_EQ(tombstones.size(), 2u);
}

TEST_F(VersionGetTest, LevelFilesIteratorSeeksAcrossFilesAndReportsAMissingFile) {
  AddTable(1, 1, {Put("a", 1, "a"), Put("b", 2, "b")});
  AddTable(1, 2, {Put("d", 3, "d")});
  AddTable(1, 3, {Put("f", 4, "f")});
  std::unique_ptr<InternalIterator> it = NewLevelFilesIterator(
      &icmp_, cache_.get(), TableReadOptions(), &current_->files(1), /*level=*/1);
  it->Seek(MakeInternalKey("c", kMaxSequenceNumber, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()), "d");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(ExtractUserKey(it->key()), "f");
  it->Next();
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
  // A file that cannot be opened stops the iteration with its error, not silently.
  ASSERT_OK(fs_->DeleteFile(TableFileName(kDb, 1)));
  it = NewLevelFilesIterator(&icmp_, cache_.get(), TableReadOptions(), &current_->files(1), 1);
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_FALSE(it->status().ok());
}

// ---- The table pin (FileMetaData::table_pin, TableCache::KeepsTablesUntilEvicted). ----

TEST(TablePinTest, FirstSetWinsACopyStartsEmptyAndReleaseHandsItOver) {
  auto first = std::make_shared<CachedTable>();
  auto second = std::make_shared<CachedTable>();
  std::weak_ptr<CachedTable> watch = first;
  TablePin pin;
  EXPECT_EQ(pin.Get(), nullptr);
  EXPECT_EQ(pin.Set(first), first.get());
  EXPECT_EQ(pin.Set(second), first.get()) << "a later Set must not replace the pinned table";
  EXPECT_EQ(pin.Get(), first.get());
  TablePin copy(pin);
  EXPECT_EQ(copy.Get(), nullptr) << "a copy is another file's metadata";
  copy = pin;
  EXPECT_EQ(copy.Get(), nullptr);
  first.reset();
  EXPECT_FALSE(watch.expired()) << "the pin keeps the table";
  std::shared_ptr<const CachedTable> released = pin.Release();
  EXPECT_EQ(pin.Get(), nullptr);
  EXPECT_FALSE(watch.expired()) << "handed over to the caller";
  released.reset();
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(pin.Release(), nullptr);
}

TEST_F(VersionGetTest, AnUnboundedCachePinsTheTableAndLaterGetsSkipTheCache) {
  cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, UncachedBlockSource(),
                                        TableReaderOptions(), TableCache::kUnlimited);
  ASSERT_TRUE(cache_->KeepsTablesUntilEvicted());
  AddTable(1, 7, {Put("a", 1, "va"), Put("b", 2, "vb")});
  const FileMetaData* f = current_->files(1)[0];
  EXPECT_EQ(f->table_pin.Get(), nullptr);
  EXPECT_EQ(Get("a"), "va");
  ASSERT_NE(f->table_pin.Get(), nullptr);
  std::shared_ptr<const CachedTable> cached;
  ASSERT_OK(cache_->Find(7, f->file_size, &cached));
  EXPECT_EQ(f->table_pin.Get(), cached.get()) << "the pin is the cache's table";
  cached.reset();
  // Once the cache forgot it, a Get that went through the cache would parse it again.
  cache_->Evict(7);
  ASSERT_EQ(cache_->NumTables(), 0U);
  EXPECT_EQ(Get("b"), "vb");
  EXPECT_EQ(Get("c"), "NOT_FOUND");
  EXPECT_EQ(cache_->NumTables(), 0U) << "the Gets went through the table cache";
}

TEST_F(VersionGetTest, ABoundedCachePinsNothing) {
  // The fixture's cache keeps at most 100 tables: a pin would keep evicted ones parsed.
  ASSERT_FALSE(cache_->KeepsTablesUntilEvicted());
  AddTable(1, 7, {Put("a", 1, "va")});
  EXPECT_EQ(Get("a"), "va");
  EXPECT_EQ(current_->files(1)[0]->table_pin.Get(), nullptr);
}

TEST_F(VersionGetTest, TablesChargedToAStrictBlockCacheAreNotPinned) {
  for (const bool strict : {false, true}) {
    SCOPED_TRACE(strict ? "strict" : "not strict");
    std::shared_ptr<Cache> block_cache = NewLRUCache(1 << 20, 0, strict, 0.5);
    cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_,
                                          LRUCache::FromCache(block_cache.get()),
                                          TableReaderOptions(), TableCache::kUnlimited,
                                          /*cache_id_prefix=*/0, /*pin_l0_index_and_filter=*/false,
                                          /*max_open_files=*/0, /*charge_readers_memory=*/true);
    // A strict cache that cannot fit a new table's charge drops older tables to make room; a
    // pin would keep them, and their memory, beyond the cache's budget.
    EXPECT_EQ(cache_->KeepsTablesUntilEvicted(), !strict);
    AddTable(1, strict ? 9 : 8, {Put("a", 1, "va")});
    const FileMetaData* f = current_->files(1).back();
    EXPECT_EQ(Get("a"), "va");
    EXPECT_EQ(f->table_pin.Get() != nullptr, !strict);
    current_->Unref();  // the tables go before the block cache they are charged to
    current_ = new Version(&icmp_, kLevels);
    current_->Ref();
    cache_.reset();
  }
}

// Review of the pins, HIGH-1: a block cache made strict while tables are pinned. The pinned
// table stays in the table cache (its charge is kept, as RocksDB keeps a table open for its
// file's life with max_open_files = -1) instead of being dropped for room, which freed nothing
// and left the cache keeping no table at all; a new table that does not fit is served and not
// kept, nor pinned.
TEST_F(VersionGetTest, ABlockCacheMadeStrictLaterNeverDropsAPinnedTableForRoom) {
  std::shared_ptr<Cache> block_cache = NewLRUCache(1 << 20, 0, /*strict=*/false, 0.5);
  cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_,
                                        LRUCache::FromCache(block_cache.get()),
                                        TableReaderOptions(), TableCache::kUnlimited,
                                        /*cache_id_prefix=*/0, /*pin_l0_index_and_filter=*/false,
                                        /*max_open_files=*/0, /*charge_readers_memory=*/true);
  AddTable(1, 7, {Put("a", 1, "va")});
  EXPECT_EQ(Get("a"), "va");
  const FileMetaData* pinned = current_->files(1)[0];
  ASSERT_NE(pinned->table_pin.Get(), nullptr);
  const size_t charge = cache_->ApproximateReadersMemory();
  ASSERT_GT(charge, 0U);
  ASSERT_EQ(block_cache->GetPinnedUsage(), charge);

  // Room for table 7's charge and half another.
  block_cache->SetStrictCapacityLimit(true);
  block_cache->SetCapacity(charge + charge / 2);
  ASSERT_FALSE(cache_->KeepsTablesUntilEvicted());
  AddTable(1, 8, {Put("b", 2, "vb")});
  const FileMetaData* other = current_->files(1)[1];
  ASSERT_EQ(other->number, 8U);
  EXPECT_EQ(Get("b"), "vb");
  EXPECT_EQ(Get("b"), "vb");
  EXPECT_EQ(Get("a"), "va");
  EXPECT_EQ(cache_->NumTables(), 1U) << "the pinned table was dropped from the cache for room";
  EXPECT_EQ(cache_->ApproximateReadersMemory(), charge);
  EXPECT_EQ(other->table_pin.Get(), nullptr) << "a table the cache does not keep was pinned";
  EXPECT_LE(block_cache->GetPinnedUsage(), charge + charge / 2);

  current_->Unref();  // the tables go before the block cache they are charged to
  current_ = new Version(&icmp_, kLevels);
  current_->Ref();
  cache_.reset();
}

// Second review, M1: only a table handed out to be pinned is kept for its file's life; one
// an iterator or a compaction asked for (Find without `pinnable`) may still be dropped to make
// room in a strict cache, as before the pins.
TEST_F(VersionGetTest, ATableFoundWithoutPinningMayStillBeDroppedForRoom) {
  std::shared_ptr<Cache> block_cache = NewLRUCache(1 << 20, 0, /*strict=*/false, 0.5);
  cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_,
                                        LRUCache::FromCache(block_cache.get()),
                                        TableReaderOptions(), TableCache::kUnlimited,
                                        /*cache_id_prefix=*/0, /*pin_l0_index_and_filter=*/false,
                                        /*max_open_files=*/0, /*charge_readers_memory=*/true);
  AddTable(1, 7, {Put("a", 1, "va")});
  AddTable(1, 8, {Put("b", 2, "vb")});
  const FileMetaData* f7 = current_->files(1)[0];
  const FileMetaData* f8 = current_->files(1)[1];
  std::shared_ptr<const CachedTable> t7;
  ASSERT_OK(cache_->Find(7, f7->file_size, &t7));  // as an iterator does
  t7.reset();
  const size_t charge = cache_->ApproximateReadersMemory();
  block_cache->SetStrictCapacityLimit(true);
  block_cache->SetCapacity(charge + charge / 2);  // room for one table's charge
  std::shared_ptr<const CachedTable> first, second;
  ASSERT_OK(cache_->Find(8, f8->file_size, &first));
  ASSERT_OK(cache_->Find(8, f8->file_size, &second));
  EXPECT_EQ(first, second) << "table 8 was not kept: table 7 was not dropped to make room";
  EXPECT_EQ(cache_->NumTables(), 1U);
  first.reset();
  second.reset();
  current_->Unref();  // the tables go before the block cache they are charged to
  current_ = new Version(&icmp_, kLevels);
  current_->Ref();
  cache_.reset();
}

}  // namespace
}  // namespace shale::test
