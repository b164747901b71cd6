// The descriptor pool's growth back after a cut (issue 19, pool review 2, finding 1) must not eat
// the room the cut left for the DB's other files (WAL, MANIFEST, flush and compaction outputs).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/filename.h"
#include "cache/table_cache.h"
#include "fs/posix_errors.h"
#include "table/table_test_util.h"
#include "testutil/forwarding_file_system.h"

namespace shale {
namespace {

constexpr char kDb[] = "/db";
constexpr int kKeysPerTable = 20;

std::string UserKey(uint64_t table, int i) { return absl::StrFormat("t%05d-%03d", table, i); }
std::string ValueOf(uint64_t table, int i) { return absl::StrFormat("value-%d-%d", table, i); }

// A process descriptor limit: at most `limit` files (tables read + files written) open at once;
// an open beyond it fails with EMFILE.
class LimitFileSystem final : public test::ForwardingFileSystem {
 public:
  LimitFileSystem(std::shared_ptr<FileSystem> base, int limit)
      : ForwardingFileSystem(std::move(base)), limit_(limit) {}
  const char* Name() const override { return "limit"; }
  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    if (open_.fetch_add(1) >= limit_) {
      open_--;
      return PosixError(path, "open", EMFILE);
    }
    Status s = base()->NewRandomAccessFile(path, result);
    if (!s.ok()) {
      open_--;
      return s;
    }
    *result = std::make_unique<Counted>(this, std::move(*result));
    return s;
  }
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* result) override {
    if (open_.fetch_add(1) >= limit_) {
      open_--;
      return PosixError(path, "open", EMFILE);
    }
    open_--;  // not kept: only whether it could be opened matters here
    return base()->NewWritableFile(path, result);
  }
  int open() const { return open_.load(); }

 private:
  class Counted final : public RandomAccessFile {
   public:
    Counted(LimitFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
        : fs_(fs), base_(std::move(base)) {}
    ~Counted() override { fs_->open_--; }
    Status Read(uint64_t offset, size_t n, std::string_view* result,
                char* scratch) const override {
      return base_->Read(offset, n, result, scratch);
    }
    Status GetSize(uint64_t* size) const override { return base_->GetSize(size); }

   private:
    LimitFileSystem* const fs_;
    const std::unique_ptr<RandomAccessFile> base_;
  };
  const int limit_;
  std::atomic<int> open_{0};
};

constexpr int kLimit = 20;
constexpr uint64_t kTables = 30;

// kTables tables in a memory file system seen through a process limit of kLimit descriptors,
// and a table cache over them allowed 64.
class TableFilePoolHeadroomTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(mem_->CreateDirIfMissing(kDb));
    for (uint64_t t = 1; t <= kTables; t++) {
      std::vector<Entry> entries;
      for (int i = 0; i < kKeysPerTable; i++) {
        entries.emplace_back(MakeInternalKey(UserKey(t, i), 10, kTypeValue), ValueOf(t, i));
      }
      const std::string path = TableFileName(kDb, t);
      ASSERT_OK(BuildTable(mem_.get(), path, TableOptions(), kNoCompression, &icmp_, entries));
      uint64_t size = 0;
      ASSERT_OK(mem_->GetFileSize(path, &size));
      sizes_.push_back(size);
    }
  }

  // Reads key i of table t through the cache: "" when it is right, else what went wrong.
  std::string Read(uint64_t t, int i) {
    std::shared_ptr<const CachedTable> table;
    Status s = cache_.Find(t, sizes_[t - 1], &table);
    if (!s.ok()) return s.ToString();
    std::vector<Entry> got;
    s = GetAll(*table->reader, UserKey(t, i), kMaxSequenceNumber, &got);
    if (!s.ok()) return s.ToString();
    return std::string(got.size() == 1 && got[0].second == ValueOf(t, i) ? "" : "wrong");
  }

  const InternalKeyComparator icmp_{BytewiseComparator()};
  std::shared_ptr<FileSystem> mem_ = NewMemFileSystem();
  std::vector<uint64_t> sizes_;
  LimitFileSystem fs_{mem_, kLimit};
  TableCache cache_{kDb, &fs_, &icmp_, UncachedBlockSource(), TableReaderOptions(),
                    TableCache::kUnlimited, 0, false, /*max_open_files=*/64};
};

TEST_F(TableFilePoolHeadroomTest, GrowthBackKeepsTheRoomLeftForTheDbsOtherFiles) {
  // 30 tables over 20 descriptors: the limit is hit, the capacity cut to 20 - 1 - 1 = 18,
  // leaving 2 descriptors of the process for the WAL, MANIFEST, flush outputs.
  for (uint64_t t = 1; t <= kTables; t++) ASSERT_EQ(Read(t, 0), "");
  ASSERT_GE(cache_.TooManyOpenFilesHits(), 1u);
  ASSERT_EQ(cache_.file_capacity(), 18u);
  // A working set of 20 tables: the pool misses on every read. Before the fix it grew by 1
  // every 64 opens and ended holding every descriptor the process has (capacity 20, 20 of 20
  // open), and the open below failed with EMFILE.
  for (int n = 0; n < 1000; n++) ASSERT_EQ(Read(1 + n % 20, n % kKeysPerTable), "");
  std::printf("capacity %zu, pool open %zu, process open %d of %d\n", cache_.file_capacity(),
              cache_.NumOpenFiles(), fs_.open(), kLimit);
  EXPECT_EQ(cache_.file_capacity(), 18u) << "grew past the level of the cut within the hold";
  // The DB's next flush output / WAL / MANIFEST:
  std::unique_ptr<WritableFile> wal;
  Status ws = fs_.NewWritableFile("/db/000999.log", &wal);
  EXPECT_TRUE(ws.ok()) << ws.ToString() << ":"
      << "the pool grew back into the room the cut left for the DB's own files";
}

// The ceiling is raised after the quiet period only when a probe finds the room: a quiet period
// alone proves nothing (at its ceiling the pool cannot hit the limit), and lifting the ceiling
// on it brought the EMFILE back (pool review 3). Here the hold is 0 (the quiet period is always
// over) and an outside file stays open the whole time.
TEST_F(TableFilePoolHeadroomTest, TheCeilingRisesOnlyWhenAProbeFindsTheRoom) {
  cache_.set_headroom_hold(std::chrono::milliseconds(0));
  // The DB's WAL, open all along: the outside use.
  std::unique_ptr<RandomAccessFile> outside;
  ASSERT_OK(fs_.NewRandomAccessFile(TableFileName(kDb, kTables), &outside));
  for (uint64_t t = 1; t <= kTables; t++) ASSERT_EQ(Read(t, 0), "");
  ASSERT_GE(cache_.TooManyOpenFilesHits(), 1u);
  const size_t cut = cache_.file_capacity();
  ASSERT_LT(cut, 19u);
  for (int n = 0; n < 2000; n++) ASSERT_EQ(Read(1 + n % 20, n % kKeysPerTable), "");
  EXPECT_EQ(cache_.file_capacity(), cut) << "the ceiling rose with the outside use still there";
  std::unique_ptr<WritableFile> wal;
  Status ws = fs_.NewWritableFile("/db/000999.log", &wal);
  EXPECT_TRUE(ws.ok()) << ws.ToString() << ": the pool took the room left for the DB's files";
  // The outside use ends: the probe finds room for a step and the reserve, the ceiling rises.
  outside.reset();
  for (int n = 0; n < 2000; n++) ASSERT_EQ(Read(1 + n % 20, n % kKeysPerTable), "");
  EXPECT_GT(cache_.file_capacity(), cut) << "the ceiling never rose after the outside use ended";
  ws = fs_.NewWritableFile("/db/000998.log", &wal);
  EXPECT_TRUE(ws.ok()) << ws.ToString() << ": the pool took the room left for the DB's files";
}

}  // namespace
}  // namespace shale
