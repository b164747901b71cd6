// The table-file descriptor pool under pressure (issue 19, pool review findings 2 and 3),
// through the table cache:
// - several reads hitting "Too many open files" at once (a short spike of descriptors used
//   outside the pool) lower the pool's capacity once, from the descriptors really open, not
//   once per failing read counting the others' opens in flight; and the capacity grows back
//   to the configured one after successful opens;
// - several threads missing the same table parse it once (single flight), and all get the
//   same parsed table;
// - reads waiting for room for a descriptor are served first come, first served: a thread
//   reading in a loop cannot take the room again and again ahead of a waiting one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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

// A file system over memory that can
// - fail the next `spike` table opens with EMFILE, all at once: each waits until `spike` of
//   them have arrived (or 10 s passed), then all fail;
// - hold every table open while `gate_closed` (counting the opens that arrive);
// - sleep in every read of a table while `slow_reads`;
// and counts table opens and reads. Thread-safety: thread-safe.
class PressureFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "pressure"; }

  void ArmSpike(int n) {
    std::lock_guard<std::mutex> l(mu_);
    spike_ = n;
    arrived_ = 0;
  }
  void CloseGate() {
    std::lock_guard<std::mutex> l(mu_);
    gate_closed_ = true;
  }
  void OpenGate() {
    std::lock_guard<std::mutex> l(mu_);
    gate_closed_ = false;
    cv_.notify_all();
  }
  int held_at_gate() {
    std::lock_guard<std::mutex> l(mu_);
    return held_;
  }
  std::atomic<bool> slow_reads{false};
  std::atomic<int> table_opens{0};
  std::atomic<int> table_reads{0};
  std::atomic<int> spike_failures{0};
  std::atomic<bool> spike_timed_out{false};

  Status NewRandomAccessFile(const std::string& path,
                             std::unique_ptr<RandomAccessFile>* result) override {
    if (path.ends_with(".sst")) {
      std::unique_lock<std::mutex> l(mu_);
      if (spike_ > 0) {
        const int n = spike_;
        if (++arrived_ == n) {
          spike_ = 0;
          cv_.notify_all();
        } else if (!cv_.wait_for(l, std::chrono::seconds(10), [&] { return spike_ == 0; })) {
          spike_timed_out = true;
          spike_ = 0;
        }
        spike_failures++;
        return PosixError(path, "open", EMFILE);
      }
      held_++;
      cv_.wait(l, [&] { return !gate_closed_; });
      held_--;
      table_opens++;
    }
    Status s = base()->NewRandomAccessFile(path, result);
    if (s.ok() && path.ends_with(".sst")) {
      *result = std::make_unique<CountingFile>(this, std::move(*result));
    }
    return s;
  }

 private:
  class CountingFile final : public RandomAccessFile {
   public:
    CountingFile(PressureFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
        : fs_(fs), base_(std::move(base)) {}
    Status Read(uint64_t offset, size_t n, std::string_view* result,
                char* scratch) const override {
      fs_->table_reads++;
      if (fs_->slow_reads.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return base_->Read(offset, n, result, scratch);
    }
    Status GetSize(uint64_t* size) const override { return base_->GetSize(size); }

   private:
    PressureFileSystem* const fs_;
    const std::unique_ptr<RandomAccessFile> base_;
  };

  std::mutex mu_;
  std::condition_variable cv_;
  int spike_ = 0;
  int arrived_ = 0;
  bool gate_closed_ = false;
  int held_ = 0;
};

class TableFilePoolTest : public ::testing::Test {
 protected:
  TableFilePoolTest()
      : icmp_(BytewiseComparator()),
        mem_(NewMemFileSystem()),
        fs_(std::make_shared<PressureFileSystem>(mem_)) {}

  void BuildTables(uint64_t n) {
    ASSERT_OK(mem_->CreateDirIfMissing(kDb));
    for (uint64_t t = sizes_.size() + 1; t <= n; t++) {
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

  // Every table stays parsed; at most `descriptors` open.
  std::unique_ptr<TableCache> NewCache(size_t descriptors) {
    return std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, UncachedBlockSource(),
                                        TableReaderOptions(), TableCache::kUnlimited, 0, false,
                                        descriptors);
  }

  // Finds table t and checks that key i reads back (one data block read). Empty on success.
  std::string FindAndRead(TableCache* cache, uint64_t t, int i) {
    std::shared_ptr<const CachedTable> table;
    Status s = cache->Find(t, sizes_[t - 1], &table);
    if (!s.ok()) return s.ToString();
    std::vector<Entry> got;
    s = GetAll(*table->reader, UserKey(t, i), kMaxSequenceNumber, &got);
    if (!s.ok()) return s.ToString();
    if (got.size() != 1 || got[0].second != ValueOf(t, i)) {
      return absl::StrFormat("table %d key %d: wrong result", t, i);
    }
    return "";
  }

  const InternalKeyComparator icmp_;
  std::shared_ptr<FileSystem> mem_;
  std::shared_ptr<PressureFileSystem> fs_;
  std::vector<uint64_t> sizes_;  // of table t at [t - 1]
};

// 20 descriptors open (idle), then 16 reads of other tables hit EMFILE at once. The capacity
// is cut once, from the 20 really open: to 20 - 1 - 20/16 = 18. Before the fix each failing
// read cut it again, counting the other reads' opens in flight as "fitting" and closing idle
// descriptors each time: it ended at 1 (and stayed 1 through the 4,000 reads below, as it
// never grew). The growth back stays at the cut while the limit's level is remembered; once the
// hold has passed, successful opens bring it back to the configured 64.
TEST_F(TableFilePoolTest, ConcurrentTooManyOpenFilesCutTheCapacityOnceAndItGrowsBack) {
  constexpr uint64_t kTables = 100;
  constexpr int kOpen = 20;
  constexpr int kConcurrent = 16;
  BuildTables(kTables);
  auto cache = NewCache(64);
  for (uint64_t t = 1; t <= kOpen; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 0), "");
  ASSERT_EQ(cache->NumOpenFiles(), static_cast<size_t>(kOpen));

  fs_->ArmSpike(kConcurrent);
  std::vector<std::string> results(kConcurrent);
  std::vector<std::thread> threads;
  for (int i = 0; i < kConcurrent; i++) {
    threads.emplace_back([&, i] { results[i] = FindAndRead(cache.get(), kOpen + 1 + i, 1); });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_FALSE(fs_->spike_timed_out.load()) << "the reads did not open at once";
  for (int i = 0; i < kConcurrent; i++) EXPECT_EQ(results[i], "") << i;
  EXPECT_EQ(fs_->spike_failures.load(), kConcurrent);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), static_cast<uint64_t>(kConcurrent));
  EXPECT_EQ(cache->file_capacity(), static_cast<size_t>(kOpen - 1 - kOpen / 16))
      << "one cut, from the descriptors really open";

  // Reads cycling over all 100 tables open a descriptor each (they do not fit). While the
  // limit's level is remembered (the headroom hold, 5 minutes by default), the capacity does
  // not grow past the cut: the room it left is the DB's other files' (pool review 2, finding 1).
  for (int n = 0; n < 1000; n++) {
    const uint64_t t = 1 + static_cast<uint64_t>(n) % kTables;
    ASSERT_EQ(FindAndRead(cache.get(), t, n % kKeysPerTable), "");
  }
  EXPECT_EQ(cache->file_capacity(), static_cast<size_t>(kOpen - 1 - kOpen / 16));
  // The spike is over (as if the hold had passed without another EMFILE): the capacity grows
  // back to the configured one.
  cache->set_headroom_hold(std::chrono::milliseconds(0));
  for (int n = 0; n < 4000 && cache->file_capacity() < 64; n++) {
    const uint64_t t = 1 + static_cast<uint64_t>(n) % kTables;
    ASSERT_EQ(FindAndRead(cache.get(), t, n % kKeysPerTable), "");
  }
  EXPECT_EQ(cache->file_capacity(), 64u);
  EXPECT_EQ(cache->TooManyOpenFilesHits(), static_cast<uint64_t>(kConcurrent));
  EXPECT_LE(cache->NumOpenFiles(), 64u);
}

// Eight threads miss table 1 at once (its open is held until all have asked): it is parsed
// once, and all get the same table. Before the fix each thread parsed it: 16 reads instead of
// the 2 of one parse.
TEST_F(TableFilePoolTest, ConcurrentMissesOfOneTableParseItOnce) {
  BuildTables(2);
  // The reads one parse takes.
  int parse_reads = 0;
  {
    auto cache = NewCache(8);
    std::shared_ptr<const CachedTable> table;
    const int before = fs_->table_reads.load();
    ASSERT_OK(cache->Find(1, sizes_[0], &table));
    parse_reads = fs_->table_reads.load() - before;
    ASSERT_GT(parse_reads, 0);
  }
  auto cache = NewCache(8);
  constexpr int kThreads = 8;
  fs_->CloseGate();
  const int reads_before = fs_->table_reads.load();
  std::vector<std::shared_ptr<const CachedTable>> got(kThreads);
  std::vector<Status> status(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) {
    threads.emplace_back([&, i] { status[i] = cache->Find(1, sizes_[0], &got[i]); });
  }
  // Let every thread reach its Find (the first waits in the open, the others behind it).
  while (fs_->held_at_gate() == 0) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fs_->OpenGate();
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; i++) {
    ASSERT_OK(status[i]);
    EXPECT_EQ(got[i].get(), got[0].get()) << i;
  }
  EXPECT_EQ(fs_->table_reads.load() - reads_before, parse_reads) << "parsed more than once";
  EXPECT_EQ(cache->NumTables(), 1u);
}

// One descriptor; every read takes 2 ms. A reader alternating between tables 1 and 3 needs
// the room for each read; a second reader reads table 2, 20 times 3 ms apart, while it loops. First
// come, first served: each of the second reader's reads gets the room after the loop's read in
// progress, not after a run of them. Before the fix the looping reader often took the room
// back at once (it still held the lock when the waiter woke) and the waiter was overtaken by
// many reads (the most in 5 runs: 11, 5, 16, 11, 10 reads).
TEST_F(TableFilePoolTest, WaitersForADescriptorAreServedInOrder) {
  BuildTables(3);
  auto cache = NewCache(1);
  for (uint64_t t = 1; t <= 3; t++) ASSERT_EQ(FindAndRead(cache.get(), t, 0), "");
  fs_->slow_reads = true;
  constexpr int kMaxLoop = 1000;
  constexpr int kWaiterReads = 20;
  std::atomic<int> loop_reads{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::thread looper([&] {
    for (int n = 0; n < kMaxLoop && !stop.load(); n++) {
      if (FindAndRead(cache.get(), n % 2 == 0 ? 1 : 3, n % kKeysPerTable) != "") failed = true;
      loop_reads++;
    }
  });
  while (loop_reads.load() < 3) std::this_thread::yield();
  int most_overtaken = 0;
  for (int i = 0; i < kWaiterReads; i++) {
    // Arrive while the loop reads (else this reader is the one that takes the room at once).
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const int at_start = loop_reads.load();
    EXPECT_EQ(FindAndRead(cache.get(), 2, i % kKeysPerTable), "");
    most_overtaken = std::max(most_overtaken, loop_reads.load() - at_start);
  }
  stop = true;
  looper.join();
  EXPECT_FALSE(failed.load());
  EXPECT_LE(most_overtaken, 3) << "a waiting read was overtaken by " << most_overtaken
                               << " reads";
  EXPECT_LE(cache->PeakOpenFiles(), 1u);
}

// One descriptor, held by table 1; four threads read table 1 in a loop (2 ms reads), so at
// almost every moment some read of it is in progress. A read of table 2 waits for room; it
// must get it within a few reads of table 1, not when the loop stops (issue 19, pool review 2,
// finding 3). Before the fix reads sharing an open descriptor never queued, the descriptor's
// users never dropped to 0, and the read of table 2 waited the whole 3 s the test lets it.
TEST_F(TableFilePoolTest, SharedReadsDoNotStarveAWaiterForRoom) {
  BuildTables(2);
  auto cache = NewCache(1);
  ASSERT_EQ(FindAndRead(cache.get(), 2, 0), "");
  ASSERT_EQ(FindAndRead(cache.get(), 1, 0), "");
  fs_->slow_reads = true;
  std::atomic<bool> stop{false};
  std::vector<std::thread> hammer;
  for (int i = 0; i < 4; i++) {
    hammer.emplace_back([&, i] {
      for (int n = 0; !stop.load(); n++) (void)FindAndRead(cache.get(), 1, (n + i) % kKeysPerTable);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::atomic<bool> done{false};
  const auto start = std::chrono::steady_clock::now();
  std::thread waiter([&] {
    EXPECT_EQ(FindAndRead(cache.get(), 2, 1), "");
    done = true;
  });
  while (!done.load() && std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                              start).count();
  stop = true;
  for (std::thread& t : hammer) t.join();
  waiter.join();
  EXPECT_LT(ms, 100.0) << "the read of table 2 waited " << ms << " ms for room";
}

}  // namespace
}  // namespace shale
