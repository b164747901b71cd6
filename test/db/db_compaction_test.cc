// Compaction through the DB: the shape each style leaves after random loads (levels below L0
// sorted and disjoint, level sizes within their targets, the FIFO size bound, the universal
// sorted-run bound, no compaction and no stall with kCompactionStyleNone), turning automatic
// compactions off and on, write stalls engaging and releasing, CompactRange (a sub-range,
// everything, change_level), a failed compaction (error state, nothing lost, Resume), the
// bulk-load recipe, and a prompt Close over 500 L0 files.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compaction/db_shape_util.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/statistics.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::ExpectLevelsSortedAndDisjoint;
using test::IntProperty;
using test::ListFiles;
using test::SstInfo;

std::string Key(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%06u", static_cast<unsigned>(i));
  return buf;
}

class DBCompactionTest : public ::testing::Test {
 protected:
  DBCompactionTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.target_file_size_base = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
    options_.statistics = CreateDBStatistics();
  }
  ~DBCompactionTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }

  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  void Close() {
    ASSERT_OK(db_->Close());
    db_.reset();
  }
  void Reopen() {
    Close();
    Open();
  }

  std::string Value(Random* rnd, size_t size) {
    std::string v = std::to_string(rnd->Next32()) + ":";
    v.resize(size, static_cast<char>('a' + rnd->Uniform(26)));
    return v;
  }
  // `ops` random puts (and `delete_pct` percent deletes) over keys [base, base + key_space).
  void Load(Random* rnd, int ops, uint64_t key_space, size_t value_size, int delete_pct = 0,
            uint64_t base = 0) {
    for (int i = 0; i < ops; i++) {
      const std::string key = Key(base + rnd->Uniform(key_space));
      if (static_cast<int>(rnd->Uniform(100)) < delete_pct) {
        ASSERT_OK(db_->Delete(WriteOptions(), key));
        model_.erase(key);
      } else {
        const std::string value = Value(rnd, value_size);
        ASSERT_OK(db_->Put(WriteOptions(), key, value));
        model_[key] = value;
      }
    }
  }

  // A full scan gives the model, and a sample of Gets agrees with it.
  void ExpectDataIntact() {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    auto m = model_.begin();
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m, ++n) {
      ASSERT_NE(m, model_.end()) << "extra key " << it->key();
      ASSERT_EQ(it->key(), m->first) << "at position " << n;
      ASSERT_EQ(it->value(), m->second) << m->first;
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(m, model_.end()) << "missing key " << m->first << " and " << model_.size() - n - 1
                               << " more";
    it.reset();
    size_t i = 0;
    for (const auto& [k, v] : model_) {
      if (i++ % 37 != 0) continue;
      std::string got;
      ASSERT_OK(db_->Get(ReadOptions(), k, &got));
      ASSERT_EQ(got, v) << k;
    }
  }

  uint64_t Ticker(uint32_t t) { return options_.statistics->getTickerCount(t); }
  uint64_t StallCount() {
    return Ticker(STALL_L0_SLOWDOWN_COUNT) + Ticker(STALL_L0_STOP_COUNT) +
           Ticker(STALL_PENDING_COMPACTION_BYTES_COUNT);
  }
  std::string Shape() { return test::ShapeString(ListFiles(db_.get()), options_.num_levels); }

  // Every table file in the directory is live: no partial compaction output was left behind.
  // (Call when no background work can be deleting obsolete files, e.g. right after Open.)
  void ExpectNoOrphanTables() {
    std::vector<std::string> children;
    ASSERT_OK(options_.file_system->GetChildren(kDb, &children));
    std::vector<uint64_t> live;
    for (const SstInfo& f : ListFiles(db_.get())) live.push_back(f.number);
    std::string orphans;
    for (const std::string& name : children) {
      if (name.size() < 4 || name.substr(name.size() - 4) != ".sst") continue;
      const uint64_t number = std::stoull(name.substr(0, name.size() - 4));
      if (std::find(live.begin(), live.end(), number) == live.end()) orphans += name + " ";
    }
    EXPECT_EQ(orphans, "") << "table files no Version lists";
  }

  // Waits for compaction to settle and requires that nothing is left due.
  void Settle() {
    const test::SettleResult r = test::WaitForCompactions(db_.get());
    EXPECT_TRUE(r.settled) << "compaction did not settle (stable " << r.stable << ", pending "
                           << r.pending << "): " << Shape();
  }

  static constexpr const char* kDb = "/compaction";
  Options options_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

// The dynamic or static level targets (level_targets.h), recomputed from the level sizes.
std::vector<uint64_t> ExpectedTargets(const Options& o, const std::vector<uint64_t>& bytes,
                                      int* base_level) {
  const int n = o.num_levels;
  std::vector<uint64_t> t(n, 0);
  if (!o.level_compaction_dynamic_level_bytes) {
    *base_level = 1;
    double size = static_cast<double>(o.max_bytes_for_level_base);
    for (int l = 1; l < n; l++, size *= o.max_bytes_for_level_multiplier) {
      t[l] = static_cast<uint64_t>(size);
    }
    return t;
  }
  uint64_t total = 0;
  for (int l = 1; l < n; l++) total += bytes[l];
  int base = n - 1;
  double size = static_cast<double>(total);
  while (base > 1 && size > static_cast<double>(o.max_bytes_for_level_base)) {
    base--;
    size /= o.max_bytes_for_level_multiplier;
  }
  *base_level = base;
  for (int l = base; l < n; l++, size *= o.max_bytes_for_level_multiplier) {
    t[l] = std::max(static_cast<uint64_t>(size), o.max_bytes_for_level_base);
  }
  return t;
}

void ExpectLevelShape(const Options& o, const std::vector<SstInfo>& files) {
  SCOPED_TRACE(test::ShapeString(files, o.num_levels));
  ExpectLevelsSortedAndDisjoint(files);
  const std::vector<uint64_t> bytes = test::LevelBytes(files, o.num_levels);
  const std::vector<int> counts = test::LevelFileCounts(files, o.num_levels);
  EXPECT_LT(counts[0], o.level0_file_num_compaction_trigger);
  int base = 0;
  const std::vector<uint64_t> targets = ExpectedTargets(o, bytes, &base);
  for (int l = 1; l < base; l++) EXPECT_EQ(bytes[l], 0u) << "L" << l << " is above the base level";
  for (int l = base; l + 1 < o.num_levels; l++) {
    EXPECT_LE(bytes[l], targets[l]) << "L" << l << " is over its target";
  }
  uint64_t below_l0 = 0;
  for (int l = 1; l < o.num_levels; l++) below_l0 += bytes[l];
  if (o.level_compaction_dynamic_level_bytes) {
    EXPECT_GE(bytes[o.num_levels - 1] * 10, below_l0 * 8) << "most data sits in the bottom level";
  }
}

// ---------------------------------------------------------------- Shapes per style

TEST_F(DBCompactionTest, LevelStyleDynamicShapeAfterRandomLoad) {
  Open();
  Random rnd(1);
  Load(&rnd, 16000, 20000, 150, 10);
  Settle();
  ExpectLevelShape(options_, ListFiles(db_.get()));
  EXPECT_GT(Ticker(COMPACT_WRITE_BYTES), 0u);
  ExpectDataIntact();
  Reopen();
  ExpectDataIntact();
}

TEST_F(DBCompactionTest, LevelStyleStaticShapeAfterRandomLoad) {
  options_.level_compaction_dynamic_level_bytes = false;
  options_.max_subcompactions = 2;
  Open();
  Random rnd(2);
  Load(&rnd, 16000, 20000, 150, 10);
  Settle();
  const std::vector<SstInfo> files = ListFiles(db_.get());
  ExpectLevelShape(options_, files);
  EXPECT_GT(test::LevelBytes(files, options_.num_levels)[2], 0u) << "L1 overflowed into L2";
  ExpectDataIntact();
}

TEST_F(DBCompactionTest, UniversalStyleBoundsSortedRuns) {
  options_.compaction_style = kCompactionStyleUniversal;
  Open();
  Random rnd(3);
  for (int round = 0; round < 4; round++) {
    Load(&rnd, 5000, 20000, 150, 10);
    Settle();
    const std::vector<SstInfo> files = ListFiles(db_.get());
    ExpectLevelsSortedAndDisjoint(files);
    const std::vector<int> counts = test::LevelFileCounts(files, options_.num_levels);
    int runs = counts[0];
    for (int l = 1; l < options_.num_levels; l++) runs += counts[l] > 0 ? 1 : 0;
    // Settled: fewer runs than the trigger (else a run-count merge would be due).
    EXPECT_LT(runs, options_.level0_file_num_compaction_trigger) << Shape();
  }
  EXPECT_GT(Ticker(COMPACT_WRITE_BYTES), 0u);
  ExpectDataIntact();
  Reopen();
  ExpectDataIntact();
}

// Once universal compaction has nothing left to pick (as many sorted runs as the trigger, no
// size ratio or amplification to fix), the DB must not report a compaction as due, nor owe
// compaction bytes that delay writers: no compaction will ever pay them off.
TEST_F(DBCompactionTest, UniversalSettledTreeNeitherReportsPendingNorDelaysWriters) {
  options_.compaction_style = kCompactionStyleUniversal;
  options_.soft_pending_compaction_bytes_limit = 4 << 10;
  options_.hard_pending_compaction_bytes_limit = 0;
  Open();
  Random rnd(12);
  // Four flushes, each overlapping the last and so placed one level higher (L6, L5, L4, L3):
  // four sorted runs of about 48K, 12K, 4K and 1.5K bytes, oldest first. No run is within 1%
  // of the next older one, the newer runs add up to far less than 200% of the oldest: the
  // picker has nothing to do, though the run count is at the trigger (4).
  for (int keys : {450, 100, 25, 3}) {
    for (int i = 0; i < keys; i++) {
      const std::string key = Key(i * 450 / keys);
      const std::string value = Value(&rnd, 100);
      ASSERT_OK(db_->Put(WriteOptions(), key, value));
      model_[key] = value;
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_EQ(files.size(), 4u) << Shape();
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kNumRunningCompactions), 0u);
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kCompactionPending), 0u)
      << "a compaction is reported due, but none will ever run: " << Shape();
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kActualDelayedWriteRate), 0u)
      << "writers are paced for pending compaction bytes ("
      << IntProperty(db_.get(), DB::Properties::kEstimatePendingCompactionBytes)
      << ") that no compaction will ever work off: " << Shape();
  ExpectDataIntact();
}

TEST_F(DBCompactionTest, FifoStyleKeepsTheTablesUnderTheSizeBound) {
  options_.compaction_style = kCompactionStyleFIFO;
  options_.compaction_options_fifo.max_table_files_size = 512 << 10;
  Open();
  Random rnd(4);
  const int kKeys = 20000;
  for (int i = 0; i < kKeys; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(&rnd, 200)));
    if (i % 4000 == 3999) {
      // Each time the deletions have caught up with the flushes (while loading, flushes may
      // run ahead of them: how far is timing), the tables are back under the bound, having
      // passed it (about 880 KB are written between two checks; 4.4 MB in all).
      Settle();
      uint64_t total = 0;
      for (const SstInfo& f : ListFiles(db_.get())) total += f.size;
      EXPECT_LE(total, options_.compaction_options_fifo.max_table_files_size) << "after key " << i;
    }
  }
  Settle();
  uint64_t total = 0;
  const std::vector<SstInfo> files = ListFiles(db_.get());
  for (const SstInfo& f : files) {
    total += f.size;
    EXPECT_EQ(f.level, 0) << "FIFO flushes go to L0 and never move";
  }
  EXPECT_LE(total, options_.compaction_options_fifo.max_table_files_size);
  EXPECT_GT(total, options_.compaction_options_fifo.max_table_files_size / 2);
  // The newest data is there, the oldest aged out.
  std::string value;
  for (int i = kKeys - 500; i < kKeys; i++) ASSERT_OK(db_->Get(ReadOptions(), Key(i), &value));
  EXPECT_TRUE(db_->Get(ReadOptions(), Key(0), &value).IsNotFound());
  EXPECT_EQ(Ticker(COMPACT_WRITE_BYTES), 0u) << "FIFO never rewrites data";
}

TEST_F(DBCompactionTest, NoneStyleNeverCompactsNorStallsWriters) {
  options_.compaction_style = kCompactionStyleNone;
  options_.level0_file_num_compaction_trigger = 2;
  options_.level0_slowdown_writes_trigger = 3;
  options_.level0_stop_writes_trigger = 4;
  Open();
  Random rnd(5);
  constexpr int kFlushes = 30;
  for (int i = 0; i < kFlushes; i++) {
    Load(&rnd, 200, 5000, 100, 5);
    ASSERT_OK(db_->Put(WriteOptions(), Key(0), "first"));  // every flush spans the key space
    ASSERT_OK(db_->Put(WriteOptions(), Key(5000), "last"));
    model_[Key(0)] = "first";
    model_[Key(5000)] = "last";
    ASSERT_OK(db_->Flush(FlushOptions()));
    EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kIsWriteStopped), 0u);
    EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kActualDelayedWriteRate), 0u);
    EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kCompactionPending), 0u);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::vector<SstInfo> files = ListFiles(db_.get());
  EXPECT_EQ(files.size(), static_cast<size_t>(kFlushes)) << "nothing merged: " << Shape();
  EXPECT_GT(test::LevelFileCounts(files, options_.num_levels)[0],
            options_.level0_stop_writes_trigger);
  EXPECT_EQ(StallCount(), 0u);
  EXPECT_EQ(Ticker(STALL_MICROS), 0u);
  EXPECT_EQ(Ticker(COMPACT_WRITE_BYTES), 0u);
  ExpectDataIntact();
  // CompactRange still works.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const std::vector<SstInfo> after = ListFiles(db_.get());
  for (const SstInfo& f : after) EXPECT_EQ(f.level, options_.num_levels - 1);
  ExpectLevelsSortedAndDisjoint(after);
  ExpectDataIntact();
}

TEST_F(DBCompactionTest, EnablingAutoCompactionsCompactsL0Down) {
  options_.disable_auto_compactions = true;
  options_.level0_slowdown_writes_trigger = 8;
  options_.level0_stop_writes_trigger = 12;
  Open();
  Random rnd(6);
  for (int i = 0; i < 30; i++) {
    Load(&rnd, 200, 5000, 100, 5);
    ASSERT_OK(db_->Put(WriteOptions(), Key(0), "first"));
    ASSERT_OK(db_->Put(WriteOptions(), Key(5000), "last"));
    model_[Key(0)] = "first";
    model_[Key(5000)] = "last";
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const uint64_t l0_before = IntProperty(db_.get(), "shale.num-files-at-level0");
  EXPECT_GT(l0_before, 12u) << Shape();
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kNumRunningCompactions), 0u);
  EXPECT_EQ(StallCount(), 0u) << "disabled auto compactions lift the L0 stalls";
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "false"}}));
  Settle();
  EXPECT_LT(IntProperty(db_.get(), "shale.num-files-at-level0"),
            static_cast<uint64_t>(options_.level0_file_num_compaction_trigger))
      << Shape();
  ExpectLevelsSortedAndDisjoint(ListFiles(db_.get()));
  ExpectDataIntact();
}

// ---------------------------------------------------------------- Stalls

TEST_F(DBCompactionTest, StallsEngageAndRelease) {
  options_.level0_file_num_compaction_trigger = 2;
  options_.level0_slowdown_writes_trigger = 3;
  options_.level0_stop_writes_trigger = 4;
  options_.max_background_jobs = 2;
  options_.delayed_write_rate = 4 << 20;
  Open();
  std::atomic<bool> done{false};
  std::atomic<int> stopped_seen{0}, delayed_seen{0};
  std::thread monitor([&] {
    while (!done) {
      uint64_t v = 0;
      if (db_->GetIntProperty(DB::Properties::kIsWriteStopped, &v) && v != 0) stopped_seen++;
      if (db_->GetIntProperty(DB::Properties::kActualDelayedWriteRate, &v) && v != 0) {
        delayed_seen++;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  Random rnd(7);
  const auto start = std::chrono::steady_clock::now();
  // Random keys over a growing key space: every L0 compaction rewrites the whole base level.
  int written = 0;
  while (written < 40000 && std::chrono::steady_clock::now() - start < std::chrono::seconds(6)) {
    Load(&rnd, 500, 40000, 200);
    written += 500;
    if (HasFatalFailure()) break;
  }
  done = true;
  monitor.join();
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GT(Ticker(STALL_L0_SLOWDOWN_COUNT) + Ticker(STALL_L0_STOP_COUNT), 0u)
      << "writers outran compaction with L0 triggers 2/3/4, yet no stall engaged (seen "
      << stopped_seen << " stopped, " << delayed_seen << " delayed)";
  Settle();
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kIsWriteStopped), 0u);
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kActualDelayedWriteRate), 0u);
  // Writes go through at full speed again.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK(db_->Put(WriteOptions(), "after", "stall"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  model_["after"] = "stall";
  ExpectDataIntact();
}

TEST_F(DBCompactionTest, PendingCompactionBytesStallEngagesAndReleases) {
  options_.soft_pending_compaction_bytes_limit = 128 << 10;
  options_.hard_pending_compaction_bytes_limit = 512 << 10;
  options_.max_background_jobs = 2;
  Open();
  Random rnd(8);
  const auto start = std::chrono::steady_clock::now();
  int written = 0;
  while (written < 30000 && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    Load(&rnd, 500, 30000, 200);
    written += 500;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(Ticker(STALL_PENDING_COMPACTION_BYTES_COUNT), 0u);
  Settle();
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kIsWriteStopped), 0u);
  EXPECT_EQ(IntProperty(db_.get(), DB::Properties::kActualDelayedWriteRate), 0u);
  ExpectDataIntact();
}

// ---------------------------------------------------------------- CompactRange

// Ten key chunks of 1000 keys, each flushed on its own seven times: the first flushes land in
// the bottom level (they overlap nothing), the later ones in L0 (a level above the base level
// would hold a lone file that compaction must move down on its own).
class DBCompactRangeTest : public DBCompactionTest {
 protected:
  void LoadChunks() {
    options_.disable_auto_compactions = true;
    Open();
    Random rnd(9);
    for (int round = 0; round < 7; round++) {
      for (int chunk = 0; chunk < 10; chunk++) {
        Load(&rnd, 100, 1000, 150, round == 0 ? 0 : 15, chunk * 1000);
        if (round == 3 && chunk == 4) {
          ASSERT_OK(db_->DeleteRange(WriteOptions(), Key(4100), Key(4300)));
          model_.erase(model_.lower_bound(Key(4100)), model_.lower_bound(Key(4300)));
        }
        ASSERT_OK(db_->Flush(FlushOptions()));
      }
    }
    const std::vector<int> counts =
        test::LevelFileCounts(ListFiles(db_.get()), options_.num_levels);
    ASSERT_GE(counts[0], 10) << Shape();
    ASSERT_GE(counts[options_.num_levels - 1], 10) << Shape();
  }
};

TEST_F(DBCompactRangeTest, SubRangeMovesJustThatRangeToTheBottom) {
  LoadChunks();
  const std::string_view begin = "k002000", end = "k002999";
  const std::vector<SstInfo> before = ListFiles(db_.get());
  const size_t files_before = before.size();
  int l0_outside_range = 0;
  for (const SstInfo& f : before) {
    if (f.level == 0 && (f.largest < begin || f.smallest > end)) l0_outside_range++;
  }
  ASSERT_GE(l0_outside_range, 9) << Shape();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), &begin, &end));
  const std::vector<SstInfo> files = ListFiles(db_.get());
  int untouched_l0 = 0;
  for (const SstInfo& f : files) {
    const bool overlaps = !(f.largest < begin || f.smallest > end);
    if (overlaps) {
      EXPECT_EQ(f.level, options_.num_levels - 1)
          << "#" << f.number << " [" << f.smallest << " .. " << f.largest << "]";
    }
    if (f.level == 0) untouched_l0++;
  }
  EXPECT_EQ(untouched_l0, l0_outside_range) << "the other chunks' L0 files stay";
  EXPECT_LT(files.size(), files_before);
  ExpectLevelsSortedAndDisjoint(files);
  ExpectDataIntact();
}

TEST_F(DBCompactRangeTest, EverythingEndsInTheBottomLevel) {
  LoadChunks();
  // An overwritten key, seen old through a snapshot.
  const std::string old_value = model_.begin()->second;
  const std::string first_key = model_.begin()->first;
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_OK(db_->Put(WriteOptions(), first_key, "new"));
  model_[first_key] = "new";
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::vector<SstInfo> files = ListFiles(db_.get());
  for (const SstInfo& f : files) EXPECT_EQ(f.level, options_.num_levels - 1) << f.number;
  ExpectLevelsSortedAndDisjoint(files);
  ReadOptions ro;
  ro.snapshot = snap;
  std::string got;
  ASSERT_OK(db_->Get(ro, first_key, &got));
  EXPECT_EQ(got, old_value) << "the snapshot's version survived the compaction";
  db_->ReleaseSnapshot(snap);
  ExpectDataIntact();

  // Without snapshots, a full compaction (forced: everything is in the bottom level already)
  // keeps exactly the live keys: no deletion, no tombstone, no old version.
  CompactRangeOptions force;
  force.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(force, nullptr, nullptr));
  files = ListFiles(db_.get());
  uint64_t entries = 0, deletions = 0, range_deletions = 0;
  for (const SstInfo& f : files) {
    EXPECT_EQ(f.level, options_.num_levels - 1);
    entries += f.entries;
    deletions += f.deletions;
    range_deletions += f.range_deletions;
  }
  EXPECT_EQ(entries, model_.size()) << test::ShapeString(files, options_.num_levels);
  EXPECT_EQ(deletions, 0u);
  EXPECT_EQ(range_deletions, 0u);
  ExpectDataIntact();
  Reopen();
  ExpectDataIntact();
}

TEST_F(DBCompactRangeTest, ChangeLevelMovesTheResult) {
  LoadChunks();
  CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = 1;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_FALSE(files.empty());
  for (const SstInfo& f : files) EXPECT_EQ(f.level, 1) << f.number;
  ExpectLevelsSortedAndDisjoint(files);
  ExpectDataIntact();
  Reopen();
  for (const SstInfo& f : ListFiles(db_.get())) EXPECT_EQ(f.level, 1) << "after reopen";
  ExpectDataIntact();
  cro.target_level = options_.num_levels;
  EXPECT_TRUE(db_->CompactRange(cro, nullptr, nullptr).IsInvalidArgument());
}

// ---------------------------------------------------------------- Errors

// A compaction that cannot sync its output fails CompactRange, puts the DB in the error state
// (reads work, writes fail), leaves no output behind and loses nothing; Resume recovers.
TEST_F(DBCompactionTest, FailedCompactionKeepsDataAndResumes) {
  auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  options_.file_system = fault;
  options_.disable_auto_compactions = true;
  Open();
  Random rnd(13);
  for (int i = 0; i < 8; i++) {
    Load(&rnd, 300, 3000, 100, 10);
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  const size_t files_before = ListFiles(db_.get()).size();
  ASSERT_GE(files_before, 8u);
  fault->InjectError(FaultInjectionFileSystem::OpKind::kSync, 1, FaultNoSpaceError("compaction"));
  Status s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_EQ(ListFiles(db_.get()).size(), files_before) << "the failed compaction changed nothing";
  ExpectDataIntact();
  s = db_->Put(WriteOptions(), "during", "error");
  EXPECT_FALSE(s.ok()) << "writes fail while the background error stands";
  fault->ClearInjectedErrors();
  ASSERT_OK(db_->Resume());
  ASSERT_OK(db_->Put(WriteOptions(), "after", "resume"));
  model_["after"] = "resume";
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (const SstInfo& f : ListFiles(db_.get())) EXPECT_EQ(f.level, options_.num_levels - 1);
  ExpectDataIntact();
  Reopen();
  ExpectNoOrphanTables();
  ExpectDataIntact();
}

// ---------------------------------------------------------------- Bulk load

TEST_F(DBCompactionTest, BulkLoadThenCompactRangeEndsInTheBottomLevel) {
  options_.PrepareForBulkLoad();
  // Small memtables, so the load makes many L0 files (the preset's are 256 MiB).
  options_.write_buffer_size = 64 << 10;
  Open();
  Random rnd(10);
  WriteOptions wo;
  wo.disableWAL = true;
  for (int i = 0; i < 12000; i++) {
    const std::string key = Key(rnd.Uniform(60000));
    const std::string value = Value(&rnd, 120);
    ASSERT_OK(db_->Put(wo, key, value));
    model_[key] = value;
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_GT(IntProperty(db_.get(), "shale.num-files-at-level0"), 10u) << Shape();
  EXPECT_EQ(StallCount(), 0u) << "bulk load never stalls on compaction";
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_FALSE(files.empty());
  for (const SstInfo& f : files) EXPECT_EQ(f.level, 1) << "one non-empty level, the bottom";
  ExpectLevelsSortedAndDisjoint(files);
  ExpectDataIntact();
  Reopen();
  ExpectDataIntact();
}

// ---------------------------------------------------------------- Close

class DBCompactionCloseTest : public DBCompactionTest {
 protected:
  // 500 flushes of `per_flush` keys, each spanning the whole key space: 500 L0 files.
  void Make500L0Files(int per_flush, size_t value_size) {
    options_.disable_auto_compactions = true;
    options_.max_write_buffer_number = 4;
    Open();
    Random rnd(11);
    for (int i = 0; i < 500; i++) {
      WriteBatch batch;
      for (int j = 0; j < per_flush; j++) {
        const std::string key = Key(j == 0 ? 0 : j == 1 ? 999999 : rnd.Uniform(1000000));
        const std::string value = Value(&rnd, value_size);
        ASSERT_OK(batch.Put(key, value));
        model_[key] = value;
      }
      ASSERT_OK(db_->Write(WriteOptions(), &batch));
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    ASSERT_GE(IntProperty(db_.get(), "shale.num-files-at-level0"), 490u) << Shape();
  }
  // Closes, requiring it to be prompt, then reopens and checks nothing was lost.
  void TimedCloseAndReopen() {
    const auto start = std::chrono::steady_clock::now();
    ASSERT_OK(db_->Close());
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(5))
        << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
    db_.reset();
    Open();
    ExpectNoOrphanTables();
    ExpectDataIntact();
  }
};

TEST_F(DBCompactionCloseTest, CloseWith500L0FilesIsPrompt) {
  Make500L0Files(20, 100);
  TimedCloseAndReopen();
}

TEST_F(DBCompactionCloseTest, CloseStopsAnL0CompactionInFlight) {
  Make500L0Files(60, 400);  // about 12 MB to merge
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "false"}}));
  bool running = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!running && std::chrono::steady_clock::now() < deadline) {
    running = IntProperty(db_.get(), DB::Properties::kNumRunningCompactions) > 0;
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(running) << "the L0 compaction never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  TimedCloseAndReopen();  // reopens with auto compactions off: nothing moves meanwhile
  // Compacting what is due after all loses nothing either.
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "false"}}));
  Settle();
  EXPECT_LT(IntProperty(db_.get(), "shale.num-files-at-level0"), 4u) << Shape();
  ExpectDataIntact();
}

}  // namespace
}  // namespace shale
