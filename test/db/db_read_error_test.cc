// Errors are never data (issue 19): a read that fails -- an I/O error at the Nth file read
// (FaultInjectionFileSystem::InjectError) or a block whose bytes come back damaged -- ends every
// read path in that error, never in a stale value, a deleted key or a silently skipped table.
//
// The DB under test has several levels, L0 tables and a memtable, in which newer values,
// deletions, range deletions and merge operands (some in ingested tables, read with a global
// sequence number) shadow older entries across tables; a snapshot keeps some of the older
// versions alive. For many seeds a read (Get, MultiGet, forward and
// backward scans, a random walk of seeks, Next and Prev with and without bounds, at the latest
// state or at the snapshot) runs once without faults to count its file reads, then again with
// the Nth of them failing. Each answer is checked against a std::map model: it is either the
// model's answer or an error. A key the model says is deleted, another value, or a key missing
// without an error fails the test, as does a read whose injected fault fired without any
// operation reporting an error (the error was swallowed), and an iterator that is Valid() while
// its status() is an error. Compaction input: a failing read fails the compaction (a background
// error), the inputs stay and the data reads back in full, after Resume and after a reopen.
//
// Block cache: off, or tiny with the index and filter in it (so index and filter reads hit the
// file too), with a one-level or a partitioned index and filter; max_open_files is small in
// some layouts, so reads also open tables. CI runs 1,000 seeds per case (about 4 s in release);
// SHALE_STRESS=1 runs 40,000 (about 2 minutes).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/filter_policy.h"
#include "shale/merge_operator.h"
#include "shale/sst_file_writer.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;
using Model = std::map<std::string, std::string>;

constexpr char kDBName[] = "/readerrdb";
constexpr int kKeys = 240;

bool Stress() {
  const char* v = std::getenv("SHALE_STRESS");
  return v != nullptr && std::string_view(v) == "1";
}

std::string Key(int i) {
  char key[16];
  snprintf(key, sizeof(key), "k%04d", i);
  return key;
}

// ---------------------------------------------------------------- a damaging file system

// Passes everything through to `base`, except that while armed the nth RandomAccessFile read
// from then on returns its bytes with one byte flipped (a block damaged on disk or in transit;
// the checksums must catch it). Thread-safety: thread-safe (atomics).
class CorruptingFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;

  // The nth read from now (1 = the next) is damaged at byte (salt mod its length). 0: disarm.
  void Arm(uint64_t nth, uint64_t salt) {
    salt_ = salt;
    countdown_ = nth;
  }
  uint64_t reads() const { return reads_; }
  bool fired() const { return fired_; }
  void ResetFired() { fired_ = false; }

  const char* Name() const override { return "corrupting"; }
  Status NewRandomAccessFile(const std::string& p,
                             std::unique_ptr<RandomAccessFile>* r) override {
    std::unique_ptr<RandomAccessFile> file;
    Status s = base()->NewRandomAccessFile(p, &file);
    if (s.ok()) *r = std::make_unique<File>(this, std::move(file));
    return s;
  }

 private:
  class File final : public RandomAccessFile {
   public:
    File(CorruptingFileSystem* fs, std::unique_ptr<RandomAccessFile> base)
        : fs_(fs), base_(std::move(base)) {}
    Status Read(uint64_t offset, size_t n, std::string_view* result,
                char* scratch) const override {
      Status s = base_->Read(offset, n, result, scratch);
      fs_->reads_++;
      if (!s.ok() || result->empty()) return s;
      uint64_t c = fs_->countdown_.load();
      while (c > 0 && !fs_->countdown_.compare_exchange_weak(c, c - 1)) {
      }
      if (c != 1) return s;
      if (result->data() != scratch) memmove(scratch, result->data(), result->size());
      scratch[fs_->salt_ % result->size()] ^= 0x5a;
      *result = std::string_view(scratch, result->size());
      fs_->fired_ = true;
      return s;
    }
    Status GetSize(uint64_t* size) const override { return base_->GetSize(size); }

   private:
    CorruptingFileSystem* const fs_;
    const std::unique_ptr<RandomAccessFile> base_;
  };

  std::atomic<uint64_t> countdown_{0};
  std::atomic<uint64_t> salt_{0};
  std::atomic<uint64_t> reads_{0};
  std::atomic<bool> fired_{false};
};

// ---------------------------------------------------------------- the DB under test

// How tables are read.
enum class Layout {
  kNoCache,            // no block cache: every block read hits the file
  kTinyCacheIndexed,   // a 4 KiB cache holding the index and filter (unpinned), filter on
  kPartitioned,        // partitioned index and filter, no cache, few open tables
  kPartitionedCached,  // partitioned, a 4 KiB cache holding the (unpinned) top-level index too
};

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kNoCache: return "no-cache";
    case Layout::kTinyCacheIndexed: return "tiny-cache-indexed";
    case Layout::kPartitioned: return "partitioned";
    case Layout::kPartitionedCached: return "partitioned-cached";
  }
  return "?";
}

// A DB over CorruptingFileSystem over FaultInjectionFileSystem over memory, built by Build():
// rounds of puts, deletes, merges and range deletions, flushed and compacted into several
// levels with waits between (so the shape is the same every time), the last two rounds left
// in L0 and the memtable. The model holds the latest state; snap_model the state at snapshot.
class ReadErrorDB {
 public:
  explicit ReadErrorDB(Layout layout) : layout_(layout) {
    fault_fs_ = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    fs_ = std::make_shared<CorruptingFileSystem>(fault_fs_);
  }
  ~ReadErrorDB() { Close(); }

  Options MakeOptions() const {
    Options o;
    o.create_if_missing = true;
    o.file_system = fs_;
    o.merge_operator = NewStringAppendOperator(",");
    o.write_buffer_size = 4 << 20;
    o.num_levels = 4;
    o.level_compaction_dynamic_level_bytes = false;
    o.level0_file_num_compaction_trigger = 2;
    o.max_bytes_for_level_base = 8 << 10;
    o.max_bytes_for_level_multiplier = 2;
    o.target_file_size_base = 2 << 10;
    o.table_options.block_size = 256;
    o.compression = kNoCompression;
    switch (layout_) {
      case Layout::kNoCache:
        o.table_options.no_block_cache = true;
        break;
      case Layout::kTinyCacheIndexed:
        o.table_options.block_cache = NewLRUCache(4 << 10, 0);
        o.table_options.cache_index_and_filter_blocks = true;
        o.table_options.filter_policy = NewBloomFilterPolicy(10);
        break;
      case Layout::kPartitioned:
        o.table_options.no_block_cache = true;
        o.table_options.index_type = TableOptions::kTwoLevelIndexSearch;
        o.table_options.partition_filters = true;
        o.table_options.metadata_block_size = 128;
        o.table_options.filter_policy = NewBloomFilterPolicy(10);
        o.max_open_files = 20;  // a table cache of 10 tables: reads open tables too
        break;
      case Layout::kPartitionedCached:
        o.table_options.block_cache = NewLRUCache(4 << 10, 0);
        o.table_options.cache_index_and_filter_blocks = true;
        o.table_options.pin_top_level_index_and_filter = false;
        o.table_options.index_type = TableOptions::kTwoLevelIndexSearch;
        o.table_options.partition_filters = true;
        o.table_options.metadata_block_size = 128;
        o.table_options.filter_policy = NewBloomFilterPolicy(10);
        break;
    }
    return o;
  }

  void Open() {
    Options o = MakeOptions();
    o.disable_auto_compactions = auto_compactions_off_;
    ASSERT_OK(DB::Open(o, kDBName, &db_));
  }
  void Close() {
    if (db_ == nullptr) return;
    if (snapshot_ != nullptr) db_->ReleaseSnapshot(snapshot_);
    snapshot_ = nullptr;
    ASSERT_OK(db_->Close());
    db_.reset();
  }

  // Waits until no compaction is due or running (auto compactions are on while building).
  void WaitIdle() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      uint64_t pending = 0, running = 0;
      ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kCompactionPending, &pending));
      ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningCompactions, &running));
      if ((pending == 0 || auto_compactions_off_) && running == 0) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "compactions never settled";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  void Build(uint64_t seed) {
    ASSERT_NO_FATAL_FAILURE(Open());
    std::mt19937_64 rng(seed);
    constexpr int kRounds = 9;
    for (int round = 0; round < kRounds; round++) {
      const int ops = round < 2 ? 2 * kKeys : 150;
      for (int i = 0; i < ops; i++) {
        const int k = round < 2 ? i % kKeys : static_cast<int>(rng() % kKeys);
        const std::string key = Key(k);
        const int op = static_cast<int>(rng() % 100);
        if (round < 2 || op < 55) {
          std::string value = absl::StrCat("r", round, ".", i, ".");
          value.append(10 + rng() % 110, static_cast<char>('a' + rng() % 26));
          ASSERT_OK(db_->Put(WriteOptions(), key, value));
          model_[key] = value;
        } else if (op < 75) {
          ASSERT_OK(db_->Delete(WriteOptions(), key));
          model_.erase(key);
        } else if (op < 95) {
          const std::string operand = absl::StrCat("m", round, ".", i);
          ASSERT_OK(db_->Merge(WriteOptions(), key, operand));
          auto it = model_.find(key);
          if (it == model_.end()) {
            model_[key] = operand;
          } else {
            it->second += "," + operand;
          }
        } else {
          const std::string end = Key(k + 1 + static_cast<int>(rng() % 6));
          ASSERT_OK(db_->DeleteRange(WriteOptions(), key, end));
          model_.erase(model_.lower_bound(key), model_.lower_bound(end));
        }
      }
      if (round == 3 || round == kRounds - 2) {
        ASSERT_NO_FATAL_FAILURE(Ingest(&rng, round));
      }
      if (round == 4) {
        snapshot_ = db_->GetSnapshot();
        snap_model_ = model_;
      }
      if (round == kRounds - 3) {
        // The rest stays in L0 and in the memtable.
        ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "true"}}));
        auto_compactions_off_ = true;
      }
      if (round < kRounds - 1) {
        FlushOptions fo;
        ASSERT_OK(db_->Flush(fo));
        ASSERT_NO_FATAL_FAILURE(WaitIdle());
      }
    }
  }

  // Ingests a table of puts, deletions and merge operands over random keys. It overlaps the
  // memtable and the tables, so it gets a global sequence number (read through
  // GlobalSeqnoIterator) and shadows older entries.
  void Ingest(std::mt19937_64* rng, int round) {
    const std::string path = absl::StrCat("/ingest-", round, ".sst");
    SstFileWriter writer(MakeOptions().table_options, kNoCompression, BytewiseComparator(), fs_);
    ASSERT_OK(writer.Open(path));
    for (int k = static_cast<int>((*rng)() % 4); k < kKeys; k += 1 + static_cast<int>((*rng)() % 4)) {
      const std::string key = Key(k);
      const int op = static_cast<int>((*rng)() % 10);
      if (op < 6) {
        std::string value = absl::StrCat("ingested", round, ".");
        value.append(10 + (*rng)() % 110, static_cast<char>('a' + (*rng)() % 26));
        ASSERT_OK(writer.Put(key, value));
        model_[key] = value;
      } else if (op < 8) {
        ASSERT_OK(writer.Delete(key));
        model_.erase(key);
      } else {
        const std::string operand = absl::StrCat("im", round, ".", k);
        ASSERT_OK(writer.Merge(key, operand));
        auto it = model_.find(key);
        if (it == model_.end()) {
          model_[key] = operand;
        } else {
          it->second += "," + operand;
        }
      }
    }
    ASSERT_OK(writer.Finish());
    ASSERT_OK(db_->IngestExternalFile({path}, IngestExternalFileOptions()));
  }

  // Files per level, "L0:2 L1:3 ...".
  std::string Shape() {
    std::string out;
    for (int level = 0; level < 4; level++) {
      uint64_t n = 0;
      EXPECT_TRUE(db_->GetIntProperty(
          absl::StrCat(std::string(DB::Properties::kNumFilesAtLevelPrefix), level), &n));
      absl::StrAppend(&out, "L", level, ":", n, " ");
    }
    return out;
  }
  int NonEmptyLevels() {
    int count = 0;
    for (int level = 0; level < 4; level++) {
      uint64_t n = 0;
      EXPECT_TRUE(db_->GetIntProperty(
          absl::StrCat(std::string(DB::Properties::kNumFilesAtLevelPrefix), level), &n));
      if (n > 0) count++;
    }
    return count;
  }

  DB* db() const { return db_.get(); }
  FaultInjectionFileSystem* fault_fs() const { return fault_fs_.get(); }
  CorruptingFileSystem* fs() const { return fs_.get(); }
  const Model& model() const { return model_; }
  const Model& snap_model() const { return snap_model_; }
  const Snapshot* snapshot() const { return snapshot_; }
  Layout layout() const { return layout_; }

 private:
  const Layout layout_;
  std::shared_ptr<FaultInjectionFileSystem> fault_fs_;
  std::shared_ptr<CorruptingFileSystem> fs_;
  std::unique_ptr<DB> db_;
  const Snapshot* snapshot_ = nullptr;
  bool auto_compactions_off_ = false;
  Model model_;
  Model snap_model_;
};

// ---------------------------------------------------------------- checked reads

// One read run against the model. Every answer must be the model's or an error; errors_ counts
// the operations that reported one.
class CheckedReads {
 public:
  // `may_skip_checksums`: reads may turn off checksum verification (not when the fault is
  // damaged bytes, which only the checksums can catch).
  CheckedReads(DB* db, const Model& model, const Snapshot* snapshot, bool may_skip_checksums,
               std::string where)
      : db_(db),
        model_(model),
        snapshot_(snapshot),
        may_skip_checksums_(may_skip_checksums),
        where_(std::move(where)) {}

  int errors() const { return errors_; }

  ReadOptions Options(std::mt19937_64* rng) const {
    ReadOptions ro;
    ro.snapshot = snapshot_;
    ro.fill_cache = (*rng)() % 2 == 0;
    ro.verify_checksums = !may_skip_checksums_ || (*rng)() % 4 != 0;
    return ro;
  }

  void Get(std::mt19937_64* rng) {
    const ReadOptions ro = Options(rng);
    for (int i = 0; i < 40; i++) {
      const std::string key = Key(static_cast<int>((*rng)() % kKeys));
      std::string value;
      Status s = db_->Get(ro, key, &value);
      auto it = model_.find(key);
      if (s.ok()) {
        ASSERT_NE(it, model_.end()) << where_ << "Get(" << key << ") found a deleted key: "
                                    << value;
        ASSERT_EQ(value, it->second) << where_ << "Get(" << key << ") returned a wrong value";
      } else if (s.IsNotFound()) {
        ASSERT_EQ(it, model_.end()) << where_ << "Get(" << key << ") lost the key without an "
                                    << "error; it holds " << it->second;
      } else {
        errors_++;
      }
    }
  }

  void MultiGet(std::mt19937_64* rng) {
    const ReadOptions ro = Options(rng);
    std::vector<std::string> keys;
    for (int i = 0; i < 40; i++) keys.push_back(Key(static_cast<int>((*rng)() % kKeys)));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> statuses = db_->MultiGet(ro, views, &values);
    ASSERT_EQ(statuses.size(), keys.size());
    bool any_error = false;
    for (size_t i = 0; i < keys.size(); i++) {
      auto it = model_.find(keys[i]);
      if (statuses[i].ok()) {
        ASSERT_NE(it, model_.end()) << where_ << "MultiGet(" << keys[i]
                                    << ") found a deleted key: " << values[i];
        ASSERT_EQ(values[i], it->second) << where_ << "MultiGet(" << keys[i] << ")";
      } else if (statuses[i].IsNotFound()) {
        ASSERT_EQ(it, model_.end()) << where_ << "MultiGet(" << keys[i]
                                    << ") lost the key without an error";
      } else {
        any_error = true;
      }
    }
    if (any_error) errors_++;
  }

  // A full scan forward or backward: the entries returned are a prefix of the model's (in the
  // scan's order) and the scan ends at the model's end or in an error.
  void Scan(std::mt19937_64* rng, bool forward) {
    ReadOptions ro = Options(rng);
    std::optional<std::string> lo, hi;
    std::string_view lo_view, hi_view;
    if ((*rng)() % 3 == 0) {
      lo = Key(static_cast<int>((*rng)() % kKeys));
      lo_view = *lo;
      ro.iterate_lower_bound = &lo_view;
    }
    if ((*rng)() % 3 == 0) {
      hi = Key(static_cast<int>((*rng)() % (kKeys + 10)));
      hi_view = *hi;
      ro.iterate_upper_bound = &hi_view;
    }
    std::vector<std::pair<std::string, std::string>> expected;
    for (const auto& [k, v] : model_) {
      if ((lo && k < *lo) || (hi && k >= *hi)) continue;
      expected.emplace_back(k, v);
    }
    if (!forward) std::reverse(expected.begin(), expected.end());
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    size_t n = 0;
    for (forward ? it->SeekToFirst() : it->SeekToLast(); it->Valid();
         forward ? it->Next() : it->Prev()) {
      ASSERT_TRUE(it->status().ok()) << where_ << "Valid() with an error: " << it->status().ToString();
      ASSERT_LT(n, expected.size()) << where_ << "scan past the model's end at " << it->key();
      ASSERT_EQ(it->key(), expected[n].first)
          << where_ << (forward ? "forward" : "backward") << " scan entry " << n
          << ": a wrong key (a deleted key, or one skipped)";
      ASSERT_EQ(it->value(), expected[n].second)
          << where_ << (forward ? "forward" : "backward") << " scan: a wrong value of "
          << it->key();
      n++;
    }
    if (it->status().ok()) {
      ASSERT_EQ(n, expected.size()) << where_ << (forward ? "forward" : "backward")
                                    << " scan ended early without an error";
    } else {
      errors_++;
    }
  }

  // A random walk of seeks, Next and Prev, each position checked against the model.
  void Walk(std::mt19937_64* rng) {
    ReadOptions ro = Options(rng);
    std::optional<std::string> lo, hi;
    std::string_view lo_view, hi_view;
    if ((*rng)() % 3 == 0) {
      lo = Key(static_cast<int>((*rng)() % kKeys));
      lo_view = *lo;
      ro.iterate_lower_bound = &lo_view;
    }
    if ((*rng)() % 3 == 0) {
      hi = Key(static_cast<int>((*rng)() % (kKeys + 10)));
      hi_view = *hi;
      ro.iterate_upper_bound = &hi_view;
    }
    Model view;
    for (const auto& [k, v] : model_) {
      if ((lo && k < *lo) || (hi && k >= *hi)) continue;
      view.emplace(k, v);
    }
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    Model::const_iterator pos = view.end();  // the model's position; end(): not valid
    for (int step = 0; step < 60; step++) {
      const int op = static_cast<int>((*rng)() % 10);
      std::string what;
      if (!it->Valid() || op < 2) {
        // A positioning call: also the retry after an error.
        const std::string target =
            absl::StrCat(Key(static_cast<int>((*rng)() % (kKeys + 4))), (*rng)() % 2 ? "" : "5");
        switch ((*rng)() % 4) {
          case 0:
            what = "SeekToFirst";
            it->SeekToFirst();
            pos = view.begin();
            break;
          case 1:
            what = "SeekToLast";
            it->SeekToLast();
            pos = view.empty() ? view.end() : std::prev(view.end());
            break;
          case 2:
            what = "Seek(" + target + ")";
            it->Seek(target);
            pos = view.lower_bound(target);
            break;
          default: {
            what = "SeekForPrev(" + target + ")";
            it->SeekForPrev(target);
            auto up = view.upper_bound(target);
            pos = up == view.begin() ? view.end() : std::prev(up);
            break;
          }
        }
      } else if (op < 6) {
        what = "Next";
        it->Next();
        ++pos;
      } else {
        what = "Prev";
        it->Prev();
        pos = pos == view.begin() ? view.end() : std::prev(pos);
      }
      if (it->Valid()) {
        ASSERT_TRUE(it->status().ok())
            << where_ << "Valid() with an error after " << what << ": " << it->status().ToString();
        ASSERT_NE(pos, view.end()) << where_ << what << " gave " << it->key()
                                   << " where the model has no key";
        ASSERT_EQ(it->key(), pos->first) << where_ << what << ": a wrong key";
        ASSERT_EQ(it->value(), pos->second) << where_ << what << ": a wrong value";
      } else if (it->status().ok()) {
        ASSERT_EQ(pos, view.end()) << where_ << what << " gave no key without an error; the "
                                   << "model has " << pos->first;
      } else {
        errors_++;
        ASSERT_FALSE(it->Valid());
        pos = view.end();
      }
    }
  }

 private:
  DB* const db_;
  const Model& model_;
  const Snapshot* const snapshot_;
  const bool may_skip_checksums_;
  const std::string where_;
  int errors_ = 0;
};

enum class ReadPath { kGet, kMultiGet, kForward, kBackward, kWalk };
constexpr int kNumReadPaths = 5;

// Runs one read path (chosen by seed), checked. *errors: operations that reported an error.
void RunRead(ReadErrorDB* t, uint64_t seed, bool at_snapshot, bool corrupt,
             const std::string& where, int* errors) {
  std::mt19937_64 rng(seed);
  CheckedReads reads(t->db(), at_snapshot ? t->snap_model() : t->model(),
                     at_snapshot ? t->snapshot() : nullptr, !corrupt, where);
  switch (static_cast<ReadPath>(seed % kNumReadPaths)) {
    case ReadPath::kGet:
      ASSERT_NO_FATAL_FAILURE(reads.Get(&rng));
      break;
    case ReadPath::kMultiGet:
      ASSERT_NO_FATAL_FAILURE(reads.MultiGet(&rng));
      break;
    case ReadPath::kForward:
      ASSERT_NO_FATAL_FAILURE(reads.Scan(&rng, true));
      break;
    case ReadPath::kBackward:
      ASSERT_NO_FATAL_FAILURE(reads.Scan(&rng, false));
      break;
    case ReadPath::kWalk:
      ASSERT_NO_FATAL_FAILURE(reads.Walk(&rng));
      break;
  }
  *errors = reads.errors();
}

// For `seeds` seeds: a read path run clean (it must succeed and count its reads), then with the
// Nth read failing (an I/O error, or damaged bytes when `corrupt`).
void RunSeeds(Layout layout, bool corrupt, int seeds) {
  ReadErrorDB t(layout);
  ASSERT_NO_FATAL_FAILURE(t.Build(1000 + static_cast<int>(layout)));
  ASSERT_GE(t.NonEmptyLevels(), 3) << "the layout should span L0 and two more levels: "
                                   << t.Shape();
  std::mt19937_64 rng(static_cast<uint64_t>(layout) * 7919 + (corrupt ? 1 : 0));
  int fired = 0;
  for (int i = 0; i < seeds; i++) {
    const uint64_t seed = rng();
    const bool at_snapshot = rng() % 4 == 0;
    const std::string base =
        absl::StrCat(LayoutName(layout), corrupt ? " corrupt" : " ioerror", " seed ", seed,
                     at_snapshot ? " snapshot" : "", " (", t.Shape(), "): ");
    int errors = 0;
    const uint64_t before = t.fs()->reads();
    ASSERT_NO_FATAL_FAILURE(RunRead(&t, seed, at_snapshot, corrupt, base + "clean: ", &errors));
    ASSERT_EQ(errors, 0) << base << "a clean read failed";
    const uint64_t reads = t.fs()->reads() - before;
    if (reads == 0) continue;
    const uint64_t nth = 1 + rng() % reads;
    const uint64_t fault_before = t.fault_fs()->OpCount(OpKind::kRead);
    if (corrupt) {
      t.fs()->ResetFired();
      t.fs()->Arm(nth, rng());
    } else {
      t.fault_fs()->InjectError(OpKind::kRead, nth, FaultIOError("injected read fault"));
    }
    const std::string where = absl::StrCat(base, "read ", nth, " of ", reads, " fails: ");
    ASSERT_NO_FATAL_FAILURE(RunRead(&t, seed, at_snapshot, corrupt, where, &errors));
    const bool hit = corrupt ? t.fs()->fired()
                             : t.fault_fs()->OpCount(OpKind::kRead) - fault_before >= nth;
    t.fs()->Arm(0, 0);
    t.fault_fs()->ClearInjectedErrors();
    if (hit) {
      fired++;
      ASSERT_GT(errors, 0) << where << "the failed read was swallowed: no operation reported it";
    }
  }
  // Most runs repeat the clean run's reads, so most faults fire.
  EXPECT_GT(fired, seeds / 3) << LayoutName(layout);
}

int ReadSeeds() { return Stress() ? 40000 : 1000; }

TEST(DBReadErrorTest, IOErrorNoCache) { RunSeeds(Layout::kNoCache, false, ReadSeeds()); }
TEST(DBReadErrorTest, IOErrorTinyCacheIndexed) {
  RunSeeds(Layout::kTinyCacheIndexed, false, ReadSeeds());
}
TEST(DBReadErrorTest, IOErrorPartitioned) { RunSeeds(Layout::kPartitioned, false, ReadSeeds()); }
TEST(DBReadErrorTest, IOErrorPartitionedCached) {
  RunSeeds(Layout::kPartitionedCached, false, ReadSeeds());
}
TEST(DBReadErrorTest, CorruptionNoCache) { RunSeeds(Layout::kNoCache, true, ReadSeeds()); }
TEST(DBReadErrorTest, CorruptionPartitioned) {
  RunSeeds(Layout::kPartitioned, true, ReadSeeds());
}

// ---------------------------------------------------------------- finding 12, deterministic

// The reported case: old values of every key in the bottom level; newer values of the even
// keys and deletions of the odd ones in an L0 table. A backward scan meets each key's old entry
// first (the bottom table's); when the bottom table's previous block then fails to read, the
// merge stops before the key's newer entry in the L0 table. The iterator must report the error,
// not the old value (or, for an odd key, a deleted key) as Valid(). For every N, the Nth read
// of a backward scan fails; then a new positioning call retries and succeeds.
TEST(DBReadErrorTest, BackwardScanNeverReturnsAnOlderVersionAfterAnError) {
  auto fault_fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  Options o;
  o.create_if_missing = true;
  o.file_system = fault_fs;
  o.table_options.no_block_cache = true;
  o.table_options.block_size = 256;
  o.compression = kNoCompression;
  o.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(o, "/f12", &db));
  for (int i = 0; i < 100; i++) ASSERT_OK(db->Put(WriteOptions(), Key(i), "old" + Key(i)));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));  // to the bottom
  std::vector<std::pair<std::string, std::string>> expected;  // backward
  for (int i = 99; i >= 0; i--) {
    if (i % 2 == 1) {
      ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
    } else {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), "new" + Key(i)));
      expected.emplace_back(Key(i), "new" + Key(i));
    }
  }
  ASSERT_OK(db->Flush(FlushOptions()));  // an L0 table
  uint64_t reads = 0;
  {
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    const uint64_t before = fault_fs->OpCount(FaultInjectionFileSystem::OpKind::kRead);
    size_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev(), n++) {
      ASSERT_EQ(it->key(), expected[n].first);
      ASSERT_EQ(it->value(), expected[n].second);
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(n, expected.size());
    reads = fault_fs->OpCount(FaultInjectionFileSystem::OpKind::kRead) - before;
  }
  ASSERT_GT(reads, 4u);
  uint64_t errors = 0;
  for (uint64_t nth = 1; nth <= reads; nth++) {
    SCOPED_TRACE(absl::StrCat("read ", nth, " of ", reads, " fails"));
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    const uint64_t before = fault_fs->OpCount(FaultInjectionFileSystem::OpKind::kRead);
    fault_fs->InjectError(FaultInjectionFileSystem::OpKind::kRead, nth,
                          FaultIOError("injected read fault"));
    size_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev(), n++) {
      ASSERT_LT(n, expected.size());
      ASSERT_EQ(it->key(), expected[n].first) << "a deleted or skipped key";
      ASSERT_EQ(it->value(), expected[n].second) << "an older version";
      ASSERT_TRUE(it->status().ok()) << "Valid() with an error: " << it->status().ToString();
    }
    if (fault_fs->OpCount(FaultInjectionFileSystem::OpKind::kRead) - before < nth) {
      // The first scan also opened the tables: this one reads less, and the fault never came.
      ASSERT_OK(it->status());
      ASSERT_EQ(n, expected.size());
      continue;
    }
    errors++;
    ASSERT_FALSE(it->status().ok()) << "the scan ended without an error after " << n << " keys";
    fault_fs->ClearInjectedErrors();
    // Next and Prev need Valid(); a new positioning call retries, and the fault is gone.
    it->SeekToLast();
    ASSERT_TRUE(it->Valid()) << it->status().ToString();
    ASSERT_EQ(it->key(), expected[0].first);
    ASSERT_EQ(it->value(), expected[0].second);
  }
  fault_fs->ClearInjectedErrors();
  ASSERT_GT(errors, 4u);
  ASSERT_OK(db->Close());
}

// ---------------------------------------------------------------- compaction input

void VerifyAll(DB* db, const Model& model, const std::string& where) {
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end()) << where << "extra key " << it->key();
    ASSERT_EQ(it->key(), m->first) << where;
    ASSERT_EQ(it->value(), m->second) << where;
  }
  ASSERT_TRUE(it->status().ok()) << where << it->status().ToString();
  ASSERT_EQ(m, model.end()) << where << "missing " << m->first;
  auto r = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
    ASSERT_NE(r, model.rend()) << where;
    ASSERT_EQ(it->key(), r->first) << where;
  }
  ASSERT_TRUE(it->status().ok()) << where << it->status().ToString();
  ASSERT_EQ(r, model.rend()) << where;
  it.reset();
  for (int i = 0; i < kKeys; i++) {
    std::string value;
    Status s = db->Get(ReadOptions(), Key(i), &value);
    auto found = model.find(Key(i));
    if (found == model.end()) {
      ASSERT_TRUE(s.IsNotFound()) << where << Key(i) << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << where << Key(i) << ": " << s.ToString();
      ASSERT_EQ(value, found->second) << where << Key(i);
    }
  }
}

// A full manual compaction whose Nth read fails: it fails (the DB records a background error),
// the inputs stay, every key reads back; after Resume and after a reopen the compaction
// succeeds and the data is unchanged.
TEST(DBReadErrorTest, FailedCompactionReadKeepsTheInputs) {
  const int seeds = Stress() ? 60 : 10;
  for (Layout layout : {Layout::kNoCache, Layout::kTinyCacheIndexed, Layout::kPartitioned,
                        Layout::kPartitionedCached}) {
    uint64_t reads = 0;
    {
      // A clean run counts the compaction's reads (the build is the same every time).
      ReadErrorDB t(layout);
      ASSERT_NO_FATAL_FAILURE(t.Build(77));
      ASSERT_NO_FATAL_FAILURE(t.Close());
      ASSERT_NO_FATAL_FAILURE(t.Open());  // the snapshot is gone: the compaction reads all
      const uint64_t before = t.fault_fs()->OpCount(OpKind::kRead);
      ASSERT_OK(t.db()->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      reads = t.fault_fs()->OpCount(OpKind::kRead) - before;
      ASSERT_NO_FATAL_FAILURE(VerifyAll(t.db(), t.model(), "clean compaction: "));
    }
    ASSERT_GT(reads, 0u);
    std::mt19937_64 rng(static_cast<uint64_t>(layout) + 5);
    for (int i = 0; i < seeds; i++) {
      ReadErrorDB t(layout);
      ASSERT_NO_FATAL_FAILURE(t.Build(77));
      ASSERT_NO_FATAL_FAILURE(t.Close());
      ASSERT_NO_FATAL_FAILURE(t.Open());
      const uint64_t nth = 1 + rng() % reads;
      const std::string where =
          absl::StrCat(LayoutName(layout), ": compaction read ", nth, " of ", reads, " fails: ");
      const uint64_t before = t.fault_fs()->OpCount(OpKind::kRead);
      t.fault_fs()->InjectError(OpKind::kRead, nth, FaultIOError("injected read fault"));
      Status s = t.db()->CompactRange(CompactRangeOptions(), nullptr, nullptr);
      const bool hit = t.fault_fs()->OpCount(OpKind::kRead) - before >= nth;
      t.fault_fs()->ClearInjectedErrors();
      if (hit) {
        ASSERT_FALSE(s.ok()) << where << "the compaction succeeded";
        std::string cause;
        ASSERT_TRUE(t.db()->GetProperty(DB::Properties::kBackgroundError, &cause));
        EXPECT_FALSE(cause.empty()) << where << "no background error recorded";
      }
      ASSERT_NO_FATAL_FAILURE(VerifyAll(t.db(), t.model(), where + "after it: "));
      {
        Status r = t.db()->Resume();
        ASSERT_TRUE(r.ok()) << where << "Resume: " << r.ToString();
      }
      ASSERT_NO_FATAL_FAILURE(VerifyAll(t.db(), t.model(), where + "after Resume: "));
      {
        Status r = t.db()->CompactRange(CompactRangeOptions(), nullptr, nullptr);
        ASSERT_TRUE(r.ok()) << where << "compacting again: " << r.ToString();
      }
      ASSERT_NO_FATAL_FAILURE(VerifyAll(t.db(), t.model(), where + "compacted again: "));
      ASSERT_NO_FATAL_FAILURE(t.Close());
      ASSERT_NO_FATAL_FAILURE(t.Open());
      ASSERT_NO_FATAL_FAILURE(VerifyAll(t.db(), t.model(), where + "after reopen: "));
    }
  }
}

}  // namespace
}  // namespace shale
