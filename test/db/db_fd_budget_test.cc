// Issue 19, finding 11: every read works within the file-descriptor budget, at any table
// count. The DB here has 2,000 overlapping level-0 tables (a bulk load with auto compactions
// off), far more than the descriptors it may open, and:
// - Get, MultiGet, a full forward and a full reverse scan, and a full compaction all succeed
//   and return the right data;
// - the open descriptors never exceed the budget: max_open_files when it is the lower bound,
//   the process limit (the fault-injecting file system's SetMaxOpenFiles, or a real
//   RLIMIT_NOFILE on the POSIX file system, counted in /proc/self/fd) when that is;
// - a warm Get does not re-read any table's index or filter although the descriptors cannot
//   all stay open (the tables' parsed state does not need a descriptor).
// - with a positive max_open_files the DB keeps at most that many tables parsed (their index
//   and filter memory is bounded by the option, as in RocksDB), yet an iterator over all the
//   tables still reads everything, and Gets over tables within the bound do not re-read
//   metadata; with -1 every table stays parsed.
// Before the fix a scan hung forever (the iterator under construction held every descriptor
// and the table cache waited for one to be released), so each test runs under a watchdog that
// ends the program with a failure instead.
#include <sys/resource.h>

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/filter_policy.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr int kTables = 2000;
// Every table holds its own key and this one, so all of them overlap (and stay in level 0). It
// sorts first, so a Get of Key(i) passes the filters of every table newer than table i.
constexpr char kSharedKey[] = "a-shared";

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) { return absl::StrFormat("value%d", i); }
std::string SharedValue(int i) { return absl::StrFormat("shared%d", i); }

// Ends the whole program with a failure message if it is not destroyed within `limit`: a hang
// must fail the test, not stall the suite.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit) {
    thread_ = std::thread([this, limit] {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
        std::fprintf(stderr, "FAILED: watchdog: the test did not finish within %lld s (hang)\n",
                     static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::_Exit(1);
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Generous for sanitizer builds; a release run takes a few seconds per test.
constexpr std::chrono::seconds kWatchdogLimit(180);

// Lowers the soft RLIMIT_NOFILE for its scope and restores the old limits when it ends.
class ScopedFileLimit {
 public:
  explicit ScopedFileLimit(rlim_t soft) {
    ok_ = getrlimit(RLIMIT_NOFILE, &old_) == 0;
    if (!ok_) return;
    struct rlimit lowered = old_;
    lowered.rlim_cur = soft;
    ok_ = setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~ScopedFileLimit() {
    if (ok_) setrlimit(RLIMIT_NOFILE, &old_);
  }
  ScopedFileLimit(const ScopedFileLimit&) = delete;
  ScopedFileLimit& operator=(const ScopedFileLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  struct rlimit old_ = {};
  bool ok_ = false;
};

// The descriptors this process has open now.
size_t OpenDescriptors() {
  size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    n++;
  }
  return n;
}

Options BulkLoadOptions() {
  Options options;
  options.disable_auto_compactions = true;
  options.level0_file_num_compaction_trigger = 1 << 30;
  options.level0_slowdown_writes_trigger = 1 << 30;
  options.level0_stop_writes_trigger = 1 << 30;
  options.table_options.filter_policy = NewBloomFilterPolicy(10);
  return options;
}

// kTables tables, table i holding Key(i) -> Value(i) and kSharedKey -> SharedValue(i).
void MakeOverlappingTables(std::shared_ptr<FileSystem> fs, const std::string& dbname) {
  Options options = BulkLoadOptions();
  options.file_system = std::move(fs);
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  for (int i = 0; i < kTables; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
    ASSERT_OK(db->Put(WriteOptions(), kSharedKey, SharedValue(i)));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  uint64_t l0 = 0;
  ASSERT_TRUE(db->GetIntProperty("shale.num-files-at-level0", &l0));
  // The first flush lands in the last level (it overlaps nothing); every later one overlaps it.
  ASSERT_GE(l0, static_cast<uint64_t>(kTables - 1));
  ASSERT_OK(db->Close());
}

// Copies every file of the DB directory `from_dir` to `to_dir` (on another file system).
void CopyDb(FileSystem* from, const std::string& from_dir, FileSystem* to,
            const std::string& to_dir) {
  std::vector<std::string> names;
  ASSERT_OK(from->GetChildren(from_dir, &names));
  ASSERT_OK(to->CreateDirIfMissing(to_dir));
  for (const std::string& name : names) {
    std::string data;
    ASSERT_OK(ReadFileToString(from, from_dir + "/" + name, &data));
    ASSERT_OK(WriteStringToFile(to, data, to_dir + "/" + name, /*sync=*/false));
  }
}

// `count` keys of the DB in random order (Key(i) or the shared key).
std::vector<int> RandomOrder(int count, uint32_t seed) {
  std::vector<int> order(kTables + 1);
  for (int i = 0; i <= kTables; i++) order[i] = i;  // kTables stands for the shared key
  Random rnd(seed);
  for (int i = kTables; i > 0; i--) std::swap(order[i], order[rnd.Uniform(i + 1)]);
  order.resize(std::min(count, kTables + 1));
  return order;
}

std::string KeyOf(int i) { return i == kTables ? std::string(kSharedKey) : Key(i); }
std::string ValueOf(int i) { return i == kTables ? SharedValue(kTables - 1) : Value(i); }
// The entry at position p of a scan: the shared key first, then Key(0), Key(1), ...
std::string ScanKey(int p) { return KeyOf(p == 0 ? kTables : p - 1); }
std::string ScanValue(int p) { return ValueOf(p == 0 ? kTables : p - 1); }

// `count` Gets in random order. Empty on success, else the first failure.
std::string CheckGets(DB* db, int count, uint32_t seed) {
  for (int i : RandomOrder(count, seed)) {
    std::string value;
    Status s = db->Get(ReadOptions(), KeyOf(i), &value);
    if (!s.ok()) return "Get " + KeyOf(i) + ": " + s.ToString();
    if (value != ValueOf(i)) return "Get " + KeyOf(i) + ": wrong value " + value;
  }
  return "";
}

// MultiGet of `count` keys (default: every key) in random order, in batches of 100.
std::string CheckMultiGet(DB* db, int count = kTables + 1) {
  std::vector<int> order = RandomOrder(count, 17);
  for (size_t start = 0; start < order.size(); start += 100) {
    std::vector<std::string> keys;
    for (size_t j = start; j < std::min(order.size(), start + 100); j++) {
      keys.push_back(KeyOf(order[j]));
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> statuses = db->MultiGet(ReadOptions(), views, &values);
    for (size_t j = 0; j < keys.size(); j++) {
      if (!statuses[j].ok()) return "MultiGet " + keys[j] + ": " + statuses[j].ToString();
      if (values[j] != ValueOf(order[start + j])) {
        return "MultiGet " + keys[j] + ": wrong value " + values[j];
      }
    }
  }
  return "";
}

// A full forward scan, then a full reverse scan. `probe` runs at every 100th entry.
template <typename Probe>
std::string CheckScans(DB* db, Probe probe) {
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  int i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    if (i > kTables || it->key() != ScanKey(i) || it->value() != ScanValue(i)) {
      return "forward scan: wrong entry at " + std::to_string(i) + ": " + std::string(it->key());
    }
    if (i % 100 == 0) probe();
  }
  if (!it->status().ok()) return "forward scan: " + it->status().ToString();
  if (i != kTables + 1) return "forward scan: " + std::to_string(i) + " entries";
  i = kTables;
  for (it->SeekToLast(); it->Valid(); it->Prev(), i--) {
    if (i < 0 || it->key() != ScanKey(i) || it->value() != ScanValue(i)) {
      return "reverse scan: wrong entry at " + std::to_string(i) + ": " + std::string(it->key());
    }
    if (i % 100 == 0) probe();
  }
  if (!it->status().ok()) return "reverse scan: " + it->status().ToString();
  if (i != -1) return "reverse scan: stopped at " + std::to_string(i);
  return "";
}
std::string CheckScans(DB* db) {
  return CheckScans(db, [] {});
}

// A full compaction, then everything reads back from the compacted DB.
std::string CheckCompaction(DB* db) {
  CompactRangeOptions compact;
  Status s = db->CompactRange(compact, nullptr, nullptr);
  if (!s.ok()) return "CompactRange: " + s.ToString();
  uint64_t l0 = 0;
  if (!db->GetIntProperty("shale.num-files-at-level0", &l0) || l0 != 0) {
    return "level 0 still has " + std::to_string(l0) + " files after CompactRange";
  }
  std::string r = CheckScans(db);
  if (r.empty()) r = CheckGets(db, 300, 5);
  return r;
}

class DBFdBudgetTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kProcessLimit = 64;  // the fault-injecting file system's EMFILE

  static void SetUpTestSuite() {
    mem_ = NewMemFileSystem();
    MakeOverlappingTables(mem_, "/bulk");
    built_ = !::testing::Test::HasFatalFailure();
  }
  static void TearDownTestSuite() { mem_.reset(); }

  // Opens a copy of the DB (at `dbname` on the in-memory file system) through a fresh
  // fault-injecting layer.
  void OpenCopy(const std::string& dbname, int max_open_files, uint64_t process_limit) {
    ASSERT_TRUE(built_);
    CopyDb(mem_.get(), "/bulk", mem_.get(), dbname);
    ASSERT_FALSE(HasFatalFailure());
    fs_ = std::make_shared<FaultInjectionFileSystem>(mem_);
    fs_->SetMaxOpenFiles(process_limit);
    Options options = BulkLoadOptions();
    options.file_system = fs_;
    options.max_open_files = max_open_files;
    ASSERT_OK(DB::Open(options, dbname, &db_));
  }

  void TearDown() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }

  static std::shared_ptr<FileSystem> mem_;
  static bool built_;
  std::shared_ptr<FaultInjectionFileSystem> fs_;
  std::unique_ptr<DB> db_;
};

std::shared_ptr<FileSystem> DBFdBudgetTest::mem_;
bool DBFdBudgetTest::built_ = false;

// max_open_files=-1 and a process limit of 64 descriptors: Gets and MultiGet are right, and
// once every table's metadata has been read, a Get reads at most a data block or two (the
// tables' index and filter are not read again, though their descriptors were closed).
TEST_F(DBFdBudgetTest, GetsUnderProcessLimitDoNotRereadMetadata) {
  Watchdog dog(kWatchdogLimit);
  OpenCopy("/gets", -1, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(CheckGets(db_.get(), kTables + 1, 1), "");  // warms every table's metadata
  ASSERT_EQ(CheckMultiGet(db_.get()), "");
  constexpr int kWarmGets = 500;
  fs_->ResetOpCounts();
  ASSERT_EQ(CheckGets(db_.get(), kWarmGets, 2), "");
  // A bloom filter's false positives (~1% of the ~1,000 newer tables a Get passes) cost a
  // data block each, most of them cached by now; metadata re-reads would cost two reads
  // (footer and tail) for each of those ~1,000 tables, ~1,000,000 in all.
  EXPECT_LE(fs_->OpCount(FaultInjectionFileSystem::OpKind::kRead), 10u * kWarmGets);
  EXPECT_LE(fs_->PeakOpenFiles(), kProcessLimit);
}

// The reproduction: a full scan forward and back over 2,000 overlapping tables with 64
// descriptors. Before the fix NewIterator never returned.
TEST_F(DBFdBudgetTest, ScansUnderProcessLimit) {
  Watchdog dog(kWatchdogLimit);
  OpenCopy("/scans", -1, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(CheckScans(db_.get()), "");
  // Two iterators at once, positioned on every table.
  std::unique_ptr<Iterator> a = db_->NewIterator(ReadOptions());
  std::unique_ptr<Iterator> b = db_->NewIterator(ReadOptions());
  a->SeekToFirst();
  b->SeekToLast();
  ASSERT_TRUE(a->Valid()) << a->status().ToString();
  ASSERT_TRUE(b->Valid()) << b->status().ToString();
  EXPECT_EQ(a->key(), kSharedKey);
  EXPECT_EQ(a->value(), SharedValue(kTables - 1));
  EXPECT_EQ(b->key(), Key(kTables - 1));
  EXPECT_EQ(CheckGets(db_.get(), 200, 3), "");  // while the iterators are positioned
  EXPECT_LE(fs_->PeakOpenFiles(), kProcessLimit);
}

// max_open_files=40 and no process limit: the DB itself keeps to 40 descriptors (tables in
// the pool plus its own files) through Gets, MultiGet and scans. (Only 30 of the tables stay
// parsed, so a Get re-parses the ~1,000 tables it looks at: a few hundred keys, not all.)
TEST_F(DBFdBudgetTest, EverythingWithinMaxOpenFiles) {
  Watchdog dog(kWatchdogLimit);
  OpenCopy("/max_open", 40, FaultInjectionFileSystem::kNoLimit);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(CheckGets(db_.get(), 200, 4), "");
  EXPECT_EQ(CheckMultiGet(db_.get(), 200), "");
  EXPECT_EQ(CheckScans(db_.get()), "");
  EXPECT_LE(fs_->PeakOpenFiles(), 40u);
}

// The tables the DB's table cache keeps parsed now (not counting evicted ones that a live
// iterator or a Get still holds), from the "Table cache: N ..." line of shale.stats; SIZE_MAX
// if the line is missing.
size_t ParsedTables(DB* db) {
  std::string stats;
  if (!db->GetProperty("shale.stats", &stats)) return SIZE_MAX;
  constexpr std::string_view kPrefix = "Table cache: ";
  const size_t at = stats.find(kPrefix);
  if (at == std::string::npos) return SIZE_MAX;
  return std::strtoull(stats.c_str() + at + kPrefix.size(), nullptr, 10);
}

uint64_t ReadersMemory(DB* db) {
  uint64_t bytes = 0;
  EXPECT_TRUE(db->GetIntProperty("shale.estimate-table-readers-mem", &bytes));
  return bytes;
}

// Gets that touch every table (and MultiGet), with max_open_files=-1 and then with
// max_open_files=40: with -1 every table stays parsed; with 40 the DB never keeps more than
// 40 parsed (max_open_files bounds the readers' memory, as in RocksDB), and that memory is a
// bounded share of what all of them take. Before the fix every table stayed parsed whatever
// max_open_files said (2,000 parsed with max_open_files=40).
TEST_F(DBFdBudgetTest, MaxOpenFilesBoundsParsedTables) {
  Watchdog dog(kWatchdogLimit);
  constexpr int kMaxOpenFiles = 40;
  OpenCopy("/parsed_all", -1, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(CheckGets(db_.get(), kTables + 1, 8), "");
  const size_t parsed_all = ParsedTables(db_.get());
  const uint64_t memory_all = ReadersMemory(db_.get());
  EXPECT_GE(parsed_all, static_cast<size_t>(kTables - 1));  // every table of the DB
  EXPECT_NE(parsed_all, SIZE_MAX);
  ASSERT_OK(db_->Close());
  db_.reset();

  OpenCopy("/parsed_bounded", kMaxOpenFiles, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  size_t peak = 0;
  int gets = 0;
  // Each Get of Key(i) looks at the kTables - i newer tables, so a hundred Gets reach every
  // table many times over (each re-parsing most of the tables it looks at).
  for (int i : RandomOrder(100, 9)) {
    std::string value;
    ASSERT_OK(db_->Get(ReadOptions(), KeyOf(i), &value));
    ASSERT_EQ(value, ValueOf(i));
    if (++gets % 10 == 0) peak = std::max(peak, ParsedTables(db_.get()));
  }
  ASSERT_EQ(CheckMultiGet(db_.get(), 100), "");
  peak = std::max(peak, ParsedTables(db_.get()));
  EXPECT_GE(peak, 1u);
  EXPECT_LE(peak, static_cast<size_t>(kMaxOpenFiles));
  // The tables are alike (two small entries each), so 40 of them take about 40/2,000 of the
  // memory of all of them; allow twice that.
  const uint64_t memory_bounded = ReadersMemory(db_.get());
  EXPECT_LE(memory_bounded, memory_all * 2 * kMaxOpenFiles / parsed_all)
      << "all parsed: " << memory_all << " bytes for " << parsed_all << " tables";
  EXPECT_LE(fs_->PeakOpenFiles(), static_cast<uint64_t>(kMaxOpenFiles));
}

// An iterator over all 2,000 tables with max_open_files=40: it holds every table it is
// positioned on (evicted from the cache or not), reads everything forward and backward, and
// the cache itself keeps no more than 40 parsed meanwhile; once the iterator is gone, only
// the cache's tables remain.
TEST_F(DBFdBudgetTest, IteratorOverMoreTablesThanMaxOpenFiles) {
  Watchdog dog(kWatchdogLimit);
  constexpr int kMaxOpenFiles = 40;
  OpenCopy("/iter_bounded", kMaxOpenFiles, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  size_t peak = 0;
  ASSERT_EQ(CheckScans(db_.get(), [&] { peak = std::max(peak, ParsedTables(db_.get())); }),
            "");
  EXPECT_LE(peak, static_cast<size_t>(kMaxOpenFiles));
  // Two iterators positioned at once, then Gets while they are.
  std::unique_ptr<Iterator> a = db_->NewIterator(ReadOptions());
  std::unique_ptr<Iterator> b = db_->NewIterator(ReadOptions());
  a->SeekToFirst();
  b->SeekToLast();
  ASSERT_TRUE(a->Valid()) << a->status().ToString();
  ASSERT_TRUE(b->Valid()) << b->status().ToString();
  EXPECT_EQ(a->key(), kSharedKey);
  EXPECT_EQ(a->value(), SharedValue(kTables - 1));
  EXPECT_EQ(b->key(), Key(kTables - 1));
  EXPECT_EQ(CheckGets(db_.get(), 50, 10), "");
  EXPECT_LE(ParsedTables(db_.get()), static_cast<size_t>(kMaxOpenFiles));
  int n = 0;
  for (; a->Valid(); a->Next()) n++;
  EXPECT_OK(a->status());
  EXPECT_EQ(n, kTables + 1);
  a.reset();
  b.reset();
  EXPECT_LE(ParsedTables(db_.get()), static_cast<size_t>(kMaxOpenFiles));
  EXPECT_LE(fs_->PeakOpenFiles(), static_cast<uint64_t>(kMaxOpenFiles));
}

// max_open_files large enough for every table (2,010: 2,000 tables plus the DB's reserve of
// 10) under a process limit of 64: as with -1, every table stays parsed and a warm Get does not
// re-read any index or filter, although the descriptors cannot all stay open.
TEST_F(DBFdBudgetTest, GetsWithinMaxOpenFilesDoNotRereadMetadata) {
  Watchdog dog(kWatchdogLimit);
  OpenCopy("/gets_bounded", kTables + 10, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(CheckGets(db_.get(), kTables + 1, 11), "");  // warms every table's metadata
  EXPECT_GE(ParsedTables(db_.get()), static_cast<size_t>(kTables - 1));
  constexpr int kWarmGets = 500;
  fs_->ResetOpCounts();
  ASSERT_EQ(CheckGets(db_.get(), kWarmGets, 12), "");
  EXPECT_LE(fs_->OpCount(FaultInjectionFileSystem::OpKind::kRead), 10u * kWarmGets);
  EXPECT_LE(fs_->PeakOpenFiles(), kProcessLimit);
}

// A full compaction of the 2,000 tables (one merge reading all of them at once) under the
// process limit.
TEST_F(DBFdBudgetTest, CompactionUnderProcessLimit) {
  Watchdog dog(kWatchdogLimit);
  OpenCopy("/compact", -1, kProcessLimit);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(CheckCompaction(db_.get()), "");
  EXPECT_LE(fs_->PeakOpenFiles(), kProcessLimit);
}

// The same on the real file system under a real RLIMIT_NOFILE of 128 (max_open_files=-1: the
// pool takes half of it): every read and the compaction succeed, and the process's open
// descriptors, sampled during the scans, stay within the limit.
TEST_F(DBFdBudgetTest, EverythingUnderRlimitOnPosix) {
  Watchdog dog(kWatchdogLimit);
  ASSERT_TRUE(built_);
  std::string dir = (std::filesystem::temp_directory_path() / "shale_fd_budget_XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  struct RemoveDir {
    std::string path;
    ~RemoveDir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove_dir{dir};
  const std::string dbname = dir + "/db";
  std::shared_ptr<FileSystem> posix = FileSystem::Default();
  CopyDb(mem_.get(), "/bulk", posix.get(), dbname);
  ASSERT_FALSE(HasFatalFailure());

  constexpr rlim_t kLimit = 128;
  const size_t before = OpenDescriptors();
  ASSERT_LT(before + 20, kLimit) << "the test process has too many descriptors open already";
  ScopedFileLimit limit(kLimit);  // restored when the test ends, however it ends
  ASSERT_TRUE(limit.ok());
  Options options = BulkLoadOptions();
  options.file_system = posix;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  size_t peak = 0;
  auto sample = [&] { peak = std::max(peak, OpenDescriptors()); };
  EXPECT_EQ(CheckGets(db.get(), kTables + 1, 6), "");
  sample();
  EXPECT_EQ(CheckMultiGet(db.get()), "");
  EXPECT_EQ(CheckScans(db.get(), sample), "");
  EXPECT_EQ(CheckCompaction(db.get()), "");
  ASSERT_OK(db->Close());
  EXPECT_LE(peak, kLimit);
  // Half the limit for the table pool, plus the DB's own files and the count itself.
  EXPECT_LE(peak, before + kLimit / 2 + 12);
}

}  // namespace
}  // namespace shale
