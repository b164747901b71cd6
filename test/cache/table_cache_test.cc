// The table cache's promises: it keeps at most `capacity` tables parsed and at most
// `max_open_files` descriptors open, apart (a parsed table or an iterator holds no descriptor,
// so any number of tables is read within a few descriptors); it never drops a table under a
// reader, forgets evicted files and closes their descriptors, survives "Too many open files" by
// closing idle descriptors (and learns the limit), waits a bounded time when the descriptors
// are held elsewhere, pins L0 index and filter blocks on request, names readers by
// prefix | file number, and counts their memory.
#include "cache/table_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "absl/strings/str_format.h"
#include "base/filename.h"
#include "fs/fault_injection_file_system.h"
#include "fs/posix_errors.h"
#include "table/table_test_util.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr char kDb[] = "/db";
constexpr int kKeysPerTable = 20;

std::string UserKey(uint64_t table, int i) { return absl::StrFormat("t%05d-%03d", table, i); }
std::string ValueOf(uint64_t table, int i) { return absl::StrFormat("value-%d-%d", table, i); }

// A BlockSource without a cache that records what it is asked for.
class RecordingBlockSource final : public BlockSource {
 public:
  Status GetBlock(const BlockRequest& request, BlockLoader load,
                  std::shared_ptr<const LoadedBlock>* block) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cache_ids_.push_back(request.key.cache_id);
      requests_[static_cast<int>(request.kind)]++;
    }
    std::unique_ptr<LoadedBlock> loaded;
    Status s = load(&loaded);
    if (s.ok()) *block = std::move(loaded);
    return s;
  }
  std::vector<uint64_t> cache_ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return cache_ids_;
  }
  int requests(BlockKind kind) {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_[static_cast<int>(kind)];
  }

 private:
  std::mutex mu_;
  std::vector<uint64_t> cache_ids_;
  int requests_[6] = {};
};

class TableCacheTest : public ::testing::Test {
 protected:
  TableCacheTest()
      : icmp_(BytewiseComparator()),
        mem_(NewMemFileSystem()),
        fs_(std::make_shared<FaultInjectionFileSystem>(mem_)) {}

  // Tables 1..n, written straight to the in-memory file system (not counted by fs_).
  void BuildTables(uint64_t n, const TableOptions& options = TableOptions()) {
    ASSERT_OK(mem_->CreateDirIfMissing(kDb));
    for (uint64_t t = sizes_.size() + 1; t <= n; t++) {
      std::vector<Entry> entries;
      for (int i = 0; i < kKeysPerTable; i++) {
        entries.emplace_back(MakeInternalKey(UserKey(t, i), 10, kTypeValue), ValueOf(t, i));
      }
      const std::string path = TableFileName(kDb, t);
      ASSERT_OK(BuildTable(mem_.get(), path, options, kNoCompression, &icmp_, entries));
      uint64_t size = 0;
      ASSERT_OK(mem_->GetFileSize(path, &size));
      sizes_.push_back(size);
    }
  }

  // `capacity` tables parsed; as many descriptors unless `max_open_files` says otherwise.
  std::unique_ptr<TableCache> NewCache(size_t capacity, BlockSource* source = nullptr,
                                       const TableReaderOptions& options = TableReaderOptions(),
                                       uint64_t prefix = 0, bool pin_l0 = false,
                                       size_t max_open_files = 0) {
    if (source == nullptr) source = UncachedBlockSource();
    return std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, source, options, capacity,
                                        prefix, pin_l0, max_open_files);
  }

  Status Find(TableCache* cache, uint64_t t, std::shared_ptr<const CachedTable>* table,
              int level = -1) {
    return cache->Find(t, sizes_[t - 1], table, level);
  }

  // Finds table t and checks that key i reads back. Empty on success.
  std::string FindAndRead(TableCache* cache, uint64_t t, int i) {
    std::shared_ptr<const CachedTable> table;
    Status s = Find(cache, t, &table);
    if (!s.ok()) return s.ToString();
    return ReadThrough(*table, t, i);
  }

  static std::string ReadThrough(const CachedTable& table, uint64_t t, int i) {
    std::vector<Entry> got;
    Status s = GetAll(*table.reader, UserKey(t, i), kMaxSequenceNumber, &got);
    if (!s.ok()) return s.ToString();
    if (got.size() != 1 || got[0].second != ValueOf(t, i)) {
      return absl::StrFormat("table %d key %d: wrong result", t, i);
    }
    return "";
  }

  const InternalKeyComparator icmp_;
  std::shared_ptr<FileSystem> mem_;
  std::shared_ptr<FaultInjectionFileSystem> fs_;
  std::vector<uint64_t> sizes_;  // of table t at [t - 1]
};

TEST(IsTooManyOpenFilesTest, MatchesEmfileAndEnfileOnly) {
  EXPECT_TRUE(IsTooManyOpenFiles(PosixError("/db/000001.sst", "open", EMFILE)));
  EXPECT_TRUE(IsTooManyOpenFiles(PosixError("/db/000001.sst", "open", ENFILE)));
  EXPECT_FALSE(IsTooManyOpenFiles(PosixError("/db/000001.sst", "open", EIO)));
  EXPECT_FALSE(IsTooManyOpenFiles(PosixError("/db/000001.sst", "open", ENOSPC)));
  EXPECT_FALSE(IsTooManyOpenFiles(PosixError("/db/000001.sst", "open", ENOENT)));
  EXPECT_FALSE(IsTooManyOpenFiles(Status::OK()));
  EXPECT_FALSE(IsTooManyOpenFiles(Status::Corruption("/x: open", ErrnoText(EMFILE))));
  // The fault-injecting file system's imitation of EMFILE.
  auto fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  ASSERT_OK(WriteStringToFile(fs.get(), "x", "/f", false));
  fs->SetMaxOpenFiles(0);
  std::unique_ptr<RandomAccessFile> file;
  Status s = fs->NewRandomAccessFile("/f", &file);
  EXPECT_TRUE(IsTooManyOpenFiles(s)) << s.ToString();
}

TEST_F(TableCacheTest, KeepsAtMostCapacityTablesOpen) {
  BuildTables(50);
  auto cache = NewCache(8);
  Random rnd(301);
  for (int n = 0; n < 500; n++) {
    const uint64_t t = 1 + rnd.Uniform(50);
    ASSERT_EQ(FindAndRead(cache.get(), t, static_cast<int>(rnd.Uniform(kKeysPerTable))), "");
    ASSERT_LE(cache->NumTables(), 8u);
    ASSERT_LE(fs_->OpenFiles(), 8u);
  }
  EXPECT_EQ(cache->NumTables(), 8u);
  EXPECT_LE(fs_->PeakOpenFiles(), 8u);
  EXPECT_EQ(cache->capacity(), 8u);
  EXPECT_EQ(cache->file_capacity(), 8u);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), 0u);
}

TEST_F(TableCacheTest, HitReturnsTheOpenTable) {
  BuildTables(3);
  auto cache = NewCache(4);
  std::shared_ptr<const CachedTable> a, b;
  ASSERT_OK(Find(cache.get(), 2, &a));
  ASSERT_OK(Find(cache.get(), 2, &b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(fs_->OpenFiles(), 1u);
}

TEST_F(TableCacheTest, LeastRecentlyUsedIsEvictedFirst) {
  BuildTables(4);
  auto cache = NewCache(3);
  std::shared_ptr<const CachedTable> first, again;
  ASSERT_OK(Find(cache.get(), 1, &first));
  const CachedTable* one = first.get();
  first.reset();
  ASSERT_EQ(FindAndRead(cache.get(), 2, 0), "");
  ASSERT_EQ(FindAndRead(cache.get(), 3, 0), "");
  ASSERT_EQ(FindAndRead(cache.get(), 1, 0), "");  // 1 is now the most recently used
  ASSERT_EQ(FindAndRead(cache.get(), 4, 0), "");  // evicts 2
  ASSERT_OK(Find(cache.get(), 1, &again));
  EXPECT_EQ(again.get(), one);
  EXPECT_EQ(fs_->OpenFiles(), 3u);
}

// A held table stays usable after its eviction, without keeping a descriptor.
TEST_F(TableCacheTest, HeldTableStaysUsableAfterEviction) {
  BuildTables(4);
  auto cache = NewCache(2);
  std::shared_ptr<const CachedTable> held;
  ASSERT_OK(Find(cache.get(), 1, &held));
  std::unique_ptr<InternalIterator> iter =
      cache->NewIterator(TableReadOptions(), 1, sizes_[0]);
  for (uint64_t t = 2; t <= 4; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 1), "");
  EXPECT_EQ(cache->NumTables(), 2u);
  EXPECT_LE(fs_->OpenFiles(), 2u);  // the held table has no descriptor of its own
  EXPECT_EQ(ReadThrough(*held, 1, 7), "");
  int n = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) n++;
  ASSERT_OK(iter->status());
  EXPECT_EQ(n, kKeysPerTable);
  EXPECT_LE(fs_->PeakOpenFiles(), 2u);
}

// Iterators positioned on 100 tables at once, with 3 descriptors: each holds its current
// block, not a file, and all of them walk their tables to the end, forwards and back.
TEST_F(TableCacheTest, IteratorsOverMoreTablesThanDescriptors) {
  constexpr uint64_t kTables = 100;
  BuildTables(kTables);
  auto cache = NewCache(TableCache::kUnlimited, nullptr, TableReaderOptions(), 0, false,
                        /*max_open_files=*/3);
  std::vector<std::unique_ptr<InternalIterator>> iters;
  for (uint64_t t = 1; t <= kTables; t++) {
    iters.push_back(cache->NewIterator(TableReadOptions(), t, sizes_[t - 1]));
    iters.back()->SeekToFirst();
    ASSERT_TRUE(iters.back()->Valid()) << iters.back()->status().ToString();
  }
  EXPECT_EQ(cache->NumTables(), kTables);
  for (int step = 1; step < kKeysPerTable; step++) {
    for (uint64_t t = 1; t <= kTables; t++) {
      InternalIterator* it = iters[t - 1].get();
      it->Next();
      ASSERT_TRUE(it->Valid()) << it->status().ToString();
      ASSERT_EQ(ExtractUserKey(it->key()), UserKey(t, step));
    }
  }
  for (uint64_t t = 1; t <= kTables; t++) {
    InternalIterator* it = iters[t - 1].get();
    int n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n++;
    ASSERT_OK(it->status());
    ASSERT_EQ(n, kKeysPerTable);
  }
  EXPECT_LE(fs_->PeakOpenFiles(), 3u);
  EXPECT_LE(cache->PeakOpenFiles(), 3u);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), 0u);
}

// A bound on parsed tables (the DB's positive max_open_files) below the number of tables an
// iterator set is positioned on: the cache keeps only 5 parsed (and their memory), the
// iterators keep the evicted ones alive without a descriptor and walk them forwards and back,
// and a Find of a table evicted while an iterator holds it parses it again.
TEST_F(TableCacheTest, IteratorsOverMoreTablesThanParsedCapacity) {
  constexpr uint64_t kTables = 100;
  constexpr size_t kCapacity = 5;
  BuildTables(kTables);
  auto cache = NewCache(kCapacity, nullptr, TableReaderOptions(), 0, false,
                        /*max_open_files=*/3);
  std::vector<std::unique_ptr<InternalIterator>> iters;
  for (uint64_t t = 1; t <= kTables; t++) {
    iters.push_back(cache->NewIterator(TableReadOptions(), t, sizes_[t - 1]));
    iters.back()->SeekToFirst();
    ASSERT_TRUE(iters.back()->Valid()) << iters.back()->status().ToString();
    ASSERT_LE(cache->NumTables(), kCapacity);
  }
  std::shared_ptr<const CachedTable> one;
  ASSERT_OK(Find(cache.get(), kTables, &one));
  const size_t per_table = one->reader->ApproximateMemoryUsage();
  one.reset();
  EXPECT_LE(cache->ApproximateReadersMemory(), kCapacity * per_table * 2);
  ASSERT_EQ(FindAndRead(cache.get(), 1, 3), "");  // evicted, held by iters[0]: parsed again
  EXPECT_LE(cache->NumTables(), kCapacity);
  for (uint64_t t = 1; t <= kTables; t++) {
    InternalIterator* it = iters[t - 1].get();
    int n = 1;
    for (it->Next(); it->Valid(); it->Next()) {
      ASSERT_EQ(ExtractUserKey(it->key()), UserKey(t, n));
      n++;
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(n, kKeysPerTable);
    n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n++;
    ASSERT_OK(it->status());
    ASSERT_EQ(n, kKeysPerTable);
  }
  EXPECT_LE(cache->NumTables(), kCapacity);
  EXPECT_LE(fs_->PeakOpenFiles(), 3u);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), 0u);
}

// Parsed tables do not need their descriptors: with 2 descriptors for 50 tables, a second
// round of lookups reads data blocks only, never a footer or an index again.
TEST_F(TableCacheTest, ParsedTablesSurviveClosedDescriptors) {
  constexpr uint64_t kTables = 50;
  BuildTables(kTables);
  auto cache = NewCache(TableCache::kUnlimited, nullptr, TableReaderOptions(), 0, false,
                        /*max_open_files=*/2);
  for (uint64_t t = 1; t <= kTables; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 0), "");
  fs_->ResetOpCounts();
  for (uint64_t t = 1; t <= kTables; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 1), "");
  // One data block per lookup (there is no block cache here).
  EXPECT_EQ(fs_->OpCount(FaultInjectionFileSystem::OpKind::kRead), kTables);
  EXPECT_LE(fs_->PeakOpenFiles(), 2u);
}

// Eight threads walk iterators over 40 tables with 2 descriptors: reads wait for a descriptor
// to be handed back (never for the process limit), and every read succeeds.
TEST_F(TableCacheTest, ConcurrentScansShareFewDescriptors) {
  constexpr uint64_t kTables = 40;
  BuildTables(kTables);
  auto cache = NewCache(TableCache::kUnlimited, nullptr, TableReaderOptions(), 0, false,
                        /*max_open_files=*/2);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int id = 0; id < 8; id++) {
    threads.emplace_back([&, id] {
      std::vector<std::unique_ptr<InternalIterator>> iters;
      for (uint64_t i = 0; i < kTables; i++) {
        const uint64_t t = 1 + (i + id) % kTables;
        iters.push_back(cache->NewIterator(TableReadOptions(), t, sizes_[t - 1]));
      }
      for (auto& it : iters) {
        int n = 0;
        for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
        if (!it->status().ok() || n != kKeysPerTable) failures++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(fs_->PeakOpenFiles(), 2u);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), 0u);
}

TEST_F(TableCacheTest, EvictForgetsTheTable) {
  BuildTables(2);
  auto cache = NewCache(4);
  std::shared_ptr<const CachedTable> held;
  ASSERT_OK(Find(cache.get(), 1, &held));
  ASSERT_EQ(FindAndRead(cache.get(), 2, 0), "");
  EXPECT_EQ(fs_->OpenFiles(), 2u);
  cache->Evict(1);
  cache->Evict(99);  // unknown: nothing happens
  EXPECT_EQ(cache->NumTables(), 1u);
  // The holder keeps table 1's descriptor (pool review finding 1): it reads on even if the
  // file is deleted now; the descriptor closes when the last holder lets go.
  EXPECT_EQ(fs_->OpenFiles(), 2u);
  EXPECT_EQ(ReadThrough(*held, 1, 3), "");
  // Kept alive, so the new reader cannot be allocated where the old one was.
  std::shared_ptr<const CachedTable> old = std::move(held);
  ASSERT_OK(Find(cache.get(), 1, &held));
  EXPECT_NE(held.get(), old.get());  // opened afresh
  EXPECT_EQ(ReadThrough(*held, 1, 3), "");
  // With a descriptor of its own: the number of an evicted file may be reused by a new file.
  EXPECT_EQ(fs_->OpenFiles(), 3u);
  old.reset();
  EXPECT_EQ(fs_->OpenFiles(), 2u);
}

TEST_F(TableCacheTest, OpenErrorsAreReturnedAndNotCached) {
  BuildTables(1);
  auto cache = NewCache(4);
  std::shared_ptr<const CachedTable> table;
  Status s = cache->Find(7, 1000, &table);  // no such file
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("000007.sst"), std::string::npos) << s.ToString();
  s = cache->Find(1, sizes_[0] - 1, &table);  // wrong size: not a table
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(cache->NumTables(), 0u);
  std::unique_ptr<InternalIterator> iter = cache->NewIterator(TableReadOptions(), 7, 1000);
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsPathNotFound());
  EXPECT_EQ(cache->TooManyOpenFilesHits(), 0u);
}

// The file system allows 10 open files; the cache would keep 100 descriptors.
TEST_F(TableCacheTest, TooManyOpenFilesClosesIdleDescriptorsAndLearnsTheLimit) {
  BuildTables(40);
  auto cache = NewCache(100);
  fs_->SetMaxOpenFiles(10);
  for (uint64_t t = 1; t <= 40; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 2), "");
  EXPECT_GT(cache->TooManyOpenFilesHits(), 0u);
  EXPECT_LT(cache->file_capacity(), 10u);
  EXPECT_GE(cache->file_capacity(), 1u);
  EXPECT_EQ(cache->configured_file_capacity(), 100u);
  EXPECT_LE(cache->NumOpenFiles(), cache->file_capacity());
  EXPECT_EQ(cache->NumTables(), 40u);  // parsed tables are not limited by descriptors
  // Having learnt the limit, the cache runs into it again only when it tries to grow back
  // (once per TableFilePool::kGrowthOpens successful opens at most, pool review finding 2).
  const uint64_t hits = cache->TooManyOpenFilesHits();
  Random rnd(7);
  constexpr int kReads = 300;
  for (int n = 0; n < kReads; n++) {
    const uint64_t t = 1 + rnd.Uniform(40);
    ASSERT_EQ(FindAndRead(cache.get(), t, static_cast<int>(rnd.Uniform(kKeysPerTable))), "");
  }
  EXPECT_LE(cache->TooManyOpenFilesHits(), hits + kReads / TableFilePool::kGrowthOpens);
  EXPECT_LT(cache->file_capacity(), 10u);
  EXPECT_LE(fs_->PeakOpenFiles(), 10u);
}

// Descriptors held outside the cache use up the limit: a read waits (polling) for one to be
// closed.
TEST_F(TableCacheTest, TooManyOpenFilesWaitsForDescriptorsHeldElsewhere) {
  BuildTables(1);
  auto cache = NewCache(10);
  fs_->SetMaxOpenFiles(2);
  std::unique_ptr<RandomAccessFile> a, b;
  ASSERT_OK(fs_->NewRandomAccessFile(TableFileName(kDb, 1), &a));
  ASSERT_OK(fs_->NewRandomAccessFile(TableFileName(kDb, 1), &b));
  std::atomic<bool> returned{false};
  std::thread releaser([&] {
    // Let go only once the open below has hit the limit (or has given up without retrying).
    while (cache->TooManyOpenFilesHits() == 0 && !returned) std::this_thread::yield();
    a.reset();
  });
  std::shared_ptr<const CachedTable> table;
  Status s = Find(cache.get(), 1, &table);
  returned = true;
  releaser.join();
  ASSERT_OK(s);
  EXPECT_EQ(ReadThrough(*table, 1, 5), "");
  EXPECT_LE(fs_->PeakOpenFiles(), 2u);
}

TEST_F(TableCacheTest, TooManyOpenFilesGivesUpWhenDescriptorsAreHeldElsewhere) {
  BuildTables(2);
  auto cache = NewCache(10);
  cache->set_max_descriptor_wait(std::chrono::milliseconds(50));
  std::shared_ptr<const CachedTable> first, second;
  ASSERT_OK(Find(cache.get(), 1, &first));
  fs_->SetMaxOpenFiles(1);  // table 1's idle descriptor is the one file allowed
  std::unique_ptr<RandomAccessFile> outside;
  Status s = fs_->NewRandomAccessFile(TableFileName(kDb, 2), &outside);
  ASSERT_TRUE(IsTooManyOpenFiles(s)) << s.ToString();
  // The cache closes its idle descriptor for table 2, then table 2's takes the one file.
  ASSERT_OK(Find(cache.get(), 2, &second));
  // Something outside the cache takes the one file: table 1 cannot be read.
  fs_->SetMaxOpenFiles(2);
  ASSERT_OK(fs_->NewRandomAccessFile(TableFileName(kDb, 2), &outside));
  fs_->SetMaxOpenFiles(1);
  second.reset();
  cache->Evict(2);  // no one holds table 2: its descriptor closes, only `outside` is open
  std::vector<Entry> got;
  s = GetAll(*first->reader, UserKey(1, 0), kMaxSequenceNumber, &got);
  ASSERT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("000001.sst"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("could not get a file descriptor"), std::string::npos)
      << s.ToString();
  EXPECT_FALSE(IsTooManyOpenFiles(s));
  // Once the outside file is closed, the same reader reads again.
  outside.reset();
  EXPECT_EQ(ReadThrough(*first, 1, 0), "");
}

TEST_F(TableCacheTest, ConcurrentFindsUnderASmallLimit) {
  constexpr uint64_t kTables = 200;
  constexpr uint64_t kLimit = 12;
  BuildTables(kTables);
  auto cache = NewCache(64);
  fs_->SetMaxOpenFiles(kLimit);
  std::atomic<int> failures{0};
  std::string first_failure;
  std::mutex failure_mu;
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; id++) {
    threads.emplace_back([&, id] {
      Random rnd(1000 + id);
      for (int n = 0; n < 400; n++) {
        const uint64_t t = 1 + rnd.Uniform(kTables);
        std::string r = FindAndRead(cache.get(), t, static_cast<int>(rnd.Uniform(kKeysPerTable)));
        if (!r.empty()) {
          std::lock_guard<std::mutex> lock(failure_mu);
          if (failures++ == 0) first_failure = r;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0) << first_failure;
  EXPECT_LE(fs_->PeakOpenFiles(), kLimit);
  EXPECT_LE(cache->NumOpenFiles(), cache->file_capacity());
  EXPECT_GT(cache->TooManyOpenFilesHits(), 0u);
}

TEST_F(TableCacheTest, ReadersMemoryFollowsTheOpenTables) {
  BuildTables(6);
  auto cache = NewCache(4);
  EXPECT_EQ(cache->ApproximateReadersMemory(), 0u);
  std::vector<size_t> memory(7, 0);
  size_t expected = 0;
  for (uint64_t t = 1; t <= 4; t++) {
    std::shared_ptr<const CachedTable> table;
    ASSERT_OK(Find(cache.get(), t, &table));
    memory[t] = table->reader->ApproximateMemoryUsage();
    ASSERT_GT(memory[t], 0u);
    expected += memory[t];
    EXPECT_EQ(cache->ApproximateReadersMemory(), expected);
  }
  cache->Evict(2);
  expected -= memory[2];
  EXPECT_EQ(cache->ApproximateReadersMemory(), expected);
  // Table 5 fills the room table 2 left; table 6 evicts table 1, the least recently used.
  for (uint64_t t : {5, 6}) {
    std::shared_ptr<const CachedTable> table;
    ASSERT_OK(Find(cache.get(), t, &table));
    memory[t] = table->reader->ApproximateMemoryUsage();
  }
  EXPECT_EQ(cache->NumTables(), 4u);
  EXPECT_EQ(cache->ApproximateReadersMemory(), memory[3] + memory[4] + memory[5] + memory[6]);
}

TEST_F(TableCacheTest, ReaderCacheIdIsPrefixOrFileNumber) {
  BuildTables(5);
  RecordingBlockSource source;
  constexpr uint64_t kPrefix = uint64_t{3} << 40;
  auto cache = NewCache(4, &source, TableReaderOptions(), kPrefix);
  ASSERT_EQ(FindAndRead(cache.get(), 5, 0), "");  // reads a data block through the source
  std::vector<uint64_t> ids = source.cache_ids();
  ASSERT_FALSE(ids.empty());
  for (uint64_t id : ids) EXPECT_EQ(id, kPrefix | 5);
}

TEST_F(TableCacheTest, PinsIndexAndFilterOfLevel0TablesOnRequest) {
  BuildTables(2);
  TableReaderOptions options;
  options.cache_index_and_filter_blocks = true;
  RecordingBlockSource source;
  auto cache = NewCache(4, &source, options, 0, /*pin_l0=*/true);
  std::shared_ptr<const CachedTable> l0, l1;
  ASSERT_OK(Find(cache.get(), 1, &l0, /*level=*/0));
  ASSERT_OK(Find(cache.get(), 2, &l1, /*level=*/1));
  const int after_open = source.requests(BlockKind::kIndex);
  for (int i = 0; i < 5; i++) ASSERT_EQ(ReadThrough(*l0, 1, i), "");
  EXPECT_EQ(source.requests(BlockKind::kIndex), after_open);  // pinned: never asked again
  for (int i = 0; i < 5; i++) ASSERT_EQ(ReadThrough(*l1, 2, i), "");
  EXPECT_GE(source.requests(BlockKind::kIndex), after_open + 5);  // asked on every lookup
}

TEST_F(TableCacheTest, NoPinningWithoutTheOption) {
  BuildTables(1);
  TableReaderOptions options;
  options.cache_index_and_filter_blocks = true;
  RecordingBlockSource source;
  auto cache = NewCache(4, &source, options, 0, /*pin_l0=*/false);
  std::shared_ptr<const CachedTable> l0;
  ASSERT_OK(Find(cache.get(), 1, &l0, /*level=*/0));
  const int after_open = source.requests(BlockKind::kIndex);
  for (int i = 0; i < 5; i++) ASSERT_EQ(ReadThrough(*l0, 1, i), "");
  EXPECT_GE(source.requests(BlockKind::kIndex), after_open + 5);
}

}  // namespace
}  // namespace shale
