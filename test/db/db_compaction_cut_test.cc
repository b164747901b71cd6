// Issue 19, findings 5, 6 and 17 (part) through the DB:
//  - one user key must never be split between two neighbouring files of a sorted level (L1+):
//    the L0 trivial move compared internal keys and moved [E .. K-deletion] and [K-value .. M]
//    side by side into L1; a later bottommost merge of the first then dropped the deletion and
//    the old value came back. A randomized load (few keys, many versions, deletions, range
//    deletions, snapshots, tiny files, manual compactions with change_level) checks after every
//    step that no level >= 1 splits a user key and that every read agrees with a map model;
//  - CompactRange(change_level) must not move its output above newer data that a flush put into
//    a level between the target and the bottom while the compaction ran;
//  - a huge max_subcompactions is refused by Open, and a huge per-call
//    CompactRangeOptions::max_subcompactions runs a bounded number of threads and still compacts.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "compaction/db_shape_util.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::ListFiles;
using test::SstInfo;

constexpr uint64_t kMaxSeq = (uint64_t{1} << 56) - 1;
// Options::kMaxSubcompactions (spelled out so this file also builds against the code before
// the bound, to see the tests fail there).
constexpr uint32_t kSubcompactionBound = 64;
constexpr int kTypeRangeDeletionByte = 0xF;

// No two neighbouring files of a level >= 1 share a user key at their boundary. The one
// allowed exception: the left file's largest key is a range deletion's end sentinel (that end
// is exclusive: the left file holds nothing of that user key).
void ExpectNoSplitUserKeys(const std::vector<SstInfo>& files, const std::string& when) {
  for (size_t i = 1; i < files.size(); i++) {
    const SstInfo& a = files[i - 1];
    const SstInfo& b = files[i];
    if (a.level != b.level || a.level == 0) continue;
    const bool sentinel = a.largest_seq == kMaxSeq && a.largest_type == kTypeRangeDeletionByte;
    EXPECT_TRUE(a.largest < b.smallest || (a.largest == b.smallest && sentinel))
        << when << ": L" << a.level << " #" << a.number << " [" << a.smallest << " .. "
        << a.largest << "@" << a.largest_seq << "] and #" << b.number << " [" << b.smallest
        << "@" << b.smallest_seq << " .. " << b.largest << "] split user key " << a.largest;
  }
}

// Forwards to a base file system; SyncDir runs a one-shot hook first (once armed), so a test
// can act at the moment a compaction has written its outputs, before it installs them.
class HookFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  // Runs `hook` at the next SyncDir (from whichever thread calls it), once.
  void ArmSyncDirHook(std::function<void()> hook) {
    hook_ = std::move(hook);
    armed_.store(true);
  }
  bool hook_ran() const { return ran_.load(); }

  const char* Name() const override { return "hook"; }
  Status SyncDir(const std::string& d) override {
    if (armed_.exchange(false)) {
      hook_();
      ran_.store(true);
    }
    return base()->SyncDir(d);
  }

 private:
  std::function<void()> hook_;  // set before armed_ (release/acquire through armed_)
  std::atomic<bool> armed_{false};
  std::atomic<bool> ran_{false};
};

class DBCompactionCutTest : public ::testing::Test {
 protected:
  DBCompactionCutTest() {
    fs_ = std::make_shared<HookFileSystem>(NewMemFileSystem());
    options_.file_system = fs_;
    options_.create_if_missing = true;
  }
  ~DBCompactionCutTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  void Close() {
    ASSERT_OK(db_->Close());
    db_.reset();
  }
  std::string Get(const std::string& key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "(absent)";
    EXPECT_OK(s);
    return value;
  }

  static constexpr const char* kDb = "/cut";
  std::shared_ptr<HookFileSystem> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// ---------------------------------------------------------------- Finding 5

// Two L0 files [e .. k-deletion] (newer) and [k-value .. m] (older): by internal key they do
// not overlap (k's deletion sorts before k's older value), but they share the user key k. Moved
// side by side into L1 they split k; the next L0 -> L1 merge took only the first of them,
// counted as bottommost (nothing below L1), dropped k's deletion, and Get(k) found "old" again.
// FIFO writes the two L0 files (its flushes never go below L0); the DB is reopened with level
// compaction, whose first pick is that L0 -> L1 compaction.
TEST_F(DBCompactionCutTest, L0FilesSharingAUserKeyAreNotMovedSideBySide) {
  options_.num_levels = 2;
  options_.compaction_style = kCompactionStyleFIFO;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "old"));
  ASSERT_OK(db_->Put(WriteOptions(), "m", "m1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "e", "e1"));
  ASSERT_OK(db_->Delete(WriteOptions(), "k"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_EQ(files.size(), 2u);
  for (const SstInfo& f : files) ASSERT_EQ(f.level, 0);
  Close();

  options_.compaction_style = kCompactionStyleLevel;
  options_.level0_file_num_compaction_trigger = 2;
  Open();
  EXPECT_TRUE(test::WaitForCompactions(db_.get()).settled);
  ExpectNoSplitUserKeys(ListFiles(db_.get()), "after the L0 -> L1 compaction");
  EXPECT_EQ(Get("k"), "(absent)");

  // Two more L0 files over [a, f]: their L0 -> L1 merge takes whatever L1 file holds e.
  for (int i = 0; i < 2; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), "a", "a" + std::to_string(i)));
    ASSERT_OK(db_->Put(WriteOptions(), "f", "f" + std::to_string(i)));
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  EXPECT_TRUE(test::WaitForCompactions(db_.get()).settled);
  ExpectNoSplitUserKeys(ListFiles(db_.get()), "after the second compaction");
  EXPECT_EQ(Get("k"), "(absent)") << "a deleted value came back";
  EXPECT_EQ(Get("e"), "e1");
  EXPECT_EQ(Get("m"), "m1");
  EXPECT_EQ(Get("a"), "a1");
}

// A randomized load over few keys with many versions each, deletions, range deletions and
// snapshots, with tiny memtables and output files (so one key's versions fill several files),
// automatic compactions and CompactRange (sometimes with change_level) mixed in. After every
// step: no sorted level splits a user key, and reads (latest and at every held snapshot) agree
// with a map model. Level and universal compaction. (SHALE_STRESS=1: 10x the steps.)
class DBCompactionCutRandomTest : public DBCompactionCutTest,
                                  public ::testing::WithParamInterface<CompactionStyle> {};

TEST_P(DBCompactionCutRandomTest, NoLevelSplitsAUserKeyAndReadsMatchTheModel) {
  const bool stress = std::getenv("SHALE_STRESS") != nullptr;
  options_.compaction_style = GetParam();
  options_.num_levels = 5;
  options_.write_buffer_size = 64 << 10;
  options_.target_file_size_base = 4 << 10;
  options_.max_bytes_for_level_base = 16 << 10;
  options_.max_bytes_for_level_multiplier = 2;
  options_.level0_file_num_compaction_trigger = 2;
  options_.level_compaction_dynamic_level_bytes = true;
  options_.max_subcompactions = 3;
  options_.max_background_jobs = 3;
  Open();
  Random rnd(GetParam() == kCompactionStyleLevel ? 1905 : 1906);
  constexpr int kKeys = 120;
  uint64_t cursor = kKeys - 1;
  const int steps = stress ? 4000 : 400;
  auto key = [](uint64_t i) {
    char buf[16];
    snprintf(buf, sizeof(buf), "k%03u", static_cast<unsigned>(i));
    return std::string(buf);
  };
  std::map<std::string, std::string> model;
  struct Held {
    const Snapshot* snap;
    std::map<std::string, std::string> model;
  };
  std::vector<Held> snaps;
  // Releases what a failed assertion left held, before the fixture closes the DB.
  struct ReleaseHeld {
    std::unique_ptr<DB>* db;
    std::vector<Held>* snaps;
    ~ReleaseHeld() {
      for (const Held& h : *snaps) (*db)->ReleaseSnapshot(h.snap);
    }
  } release_held{&db_, &snaps};
  auto check = [&](const std::string& when) {
    ExpectNoSplitUserKeys(ListFiles(db_.get()), when);
    for (int i = 0; i < kKeys; i++) {
      auto it = model.find(key(i));
      ASSERT_EQ(Get(key(i)), it == model.end() ? "(absent)" : it->second) << when;
    }
    for (const Held& h : snaps) {
      for (int i = 0; i < kKeys; i++) {
        auto it = h.model.find(key(i));
        ASSERT_EQ(Get(key(i), h.snap), it == h.model.end() ? "(absent)" : it->second)
            << when << ", at a snapshot";
      }
    }
  };
  for (int step = 0; step < steps && !HasFailure(); step++) {
    const std::string when = "step " + std::to_string(step);
    // A burst of writes. Two steps in three write a run of keys ending at the start of the last
    // run (sharing its boundary key) and flush it: files side by side, meeting at one key, the
    // newer one on the left (as in the L0 test above), in a part of the key space the sorted
    // levels may not hold yet (a cursor walks the keys downwards), as L0 -> base moves need.
    // The other steps write elsewhere.
    const bool run = !rnd.OneIn(3);
    const int writes = 1 + static_cast<int>(rnd.Uniform(40));
    // Elsewhere: mostly well behind the cursor, where the sorted levels have data already.
    const uint64_t behind = std::min<uint64_t>(kKeys - 1, cursor + 8);
    uint64_t window_start =
        rnd.OneIn(8) ? rnd.Uniform(kKeys) : behind + rnd.Uniform(static_cast<uint32_t>(kKeys - behind));
    uint64_t window = 1 + rnd.Uniform(rnd.OneIn(4) ? kKeys : 4);
    if (run) {
      window = 2 + rnd.Uniform(4);
      if (cursor < window - 1) cursor = kKeys - 1;
      window_start = cursor - (window - 1);
      cursor = window_start;
    }
    for (int w = 0; w < writes; w++) {
      std::string k = key(std::min<uint64_t>(kKeys - 1, window_start + rnd.Uniform(window)));
      if (run && w == 0) k = key(window_start);
      if (run && w == 1) k = key(window_start + window - 1);
      const uint32_t op = rnd.Uniform(100);
      if (op < 15) {
        ASSERT_OK(db_->Delete(WriteOptions(), k));
        model.erase(k);
      } else if (op < 18 && !run) {
        const uint64_t a = rnd.Uniform(kKeys), b = a + 1 + rnd.Uniform(4);
        ASSERT_OK(db_->DeleteRange(WriteOptions(), key(a), key(b)));
        model.erase(model.lower_bound(key(a)), model.lower_bound(key(b)));
      } else {
        std::string v = "v" + std::to_string(step) + "." + std::to_string(w) + ":";
        v.resize(50 + rnd.Uniform(400), 'x');
        ASSERT_OK(db_->Put(WriteOptions(), k, v));
        model[k] = v;
      }
    }
    const uint32_t action = run ? 50 : rnd.Uniform(100);
    if (action < 10) {
      snaps.push_back(Held{db_->GetSnapshot(), model});
    } else if (action < 20 && !snaps.empty()) {
      const size_t i = rnd.Uniform(static_cast<uint32_t>(snaps.size()));
      db_->ReleaseSnapshot(snaps[i].snap);
      snaps.erase(snaps.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (action < 60) {
      ASSERT_OK(db_->Flush(FlushOptions()));
    } else if (action < 64) {
      CompactRangeOptions cro;
      cro.change_level = rnd.OneIn(2);
      cro.target_level = static_cast<int>(rnd.Uniform(options_.num_levels));
      cro.exclusive_manual_compaction = rnd.OneIn(2);
      if (rnd.OneIn(2)) {
        const std::string a = key(rnd.Uniform(kKeys)), b = key(rnd.Uniform(kKeys));
        const std::string_view lo = std::min(a, b), hi = std::max(a, b);
        ASSERT_OK(db_->CompactRange(cro, &lo, &hi));
      } else {
        ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
      }
    }
    check(when);
  }
  EXPECT_TRUE(test::WaitForCompactions(db_.get()).settled);
  check("settled");
  for (const Held& h : snaps) db_->ReleaseSnapshot(h.snap);
  snaps.clear();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  check("after a full compaction");
  Close();
  Open();
  check("after reopen");
}

INSTANTIATE_TEST_SUITE_P(Styles, DBCompactionCutRandomTest,
                         ::testing::Values(kCompactionStyleLevel, kCompactionStyleUniversal),
                         [](const ::testing::TestParamInfo<CompactionStyle>& info) {
                           return info.param == kCompactionStyleLevel ? std::string("Level")
                                                                      : std::string("Universal");
                         });

// ---------------------------------------------------------------- Finding 6

// CompactRange(change_level, target L1) over a DB whose data sits in the bottom level (L3):
// the compaction rewrites it into L3, then moves it up to L1. A flush of a newer value of m
// while the compaction runs (here: at its directory sync, after its outputs are written) used
// to land in L2 (L0..L2 held nothing of m, and the compaction's pending output kept it out of
// L3); the move then lifted the older output into L1, above it, and Get(m) read the old value.
TEST_F(DBCompactionCutTest, ChangeLevelNeverMovesOlderDataAboveAConcurrentFlush) {
  options_.num_levels = 4;
  options_.level_compaction_dynamic_level_bytes = false;
  options_.disable_auto_compactions = true;
  Open();
  for (char c = 'a'; c <= 'z'; c++) {
    ASSERT_OK(db_->Put(WriteOptions(), std::string(1, c), std::string("v1-") + c));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(files[0].level, 3) << "a flush over an empty DB goes to the bottom level";

  Status hook_status;
  fs_->ArmSyncDirHook([&] {
    std::thread writer([&] {
      hook_status = db_->Put(WriteOptions(), "m", "v3");
      if (hook_status.ok()) hook_status = db_->Flush(FlushOptions());
    });
    writer.join();
  });
  CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = 1;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  ASSERT_TRUE(fs_->hook_ran());
  ASSERT_OK(hook_status);
  EXPECT_EQ(Get("m"), "v3") << "the moved (older) output sits above the newer flush: "
                            << test::ShapeString(ListFiles(db_.get()), options_.num_levels);
  EXPECT_EQ(Get("a"), "v1-a");
  // The moved data did go up to L1 (the flush stayed above it, in L0).
  files = ListFiles(db_.get());
  int in_l1 = 0;
  for (const SstInfo& f : files) {
    if (f.level == 1) in_l1++;
    EXPECT_NE(f.level, 2) << "#" << f.number;
    EXPECT_NE(f.level, 3) << "#" << f.number;
  }
  EXPECT_GT(in_l1, 0);
  Close();
  Open();
  EXPECT_EQ(Get("m"), "v3") << "after reopen";
}

// ---------------------------------------------------------------- Finding 17 (part)

// max_subcompactions above Options::kMaxSubcompactions opens (RocksDB accepts any value, so its
// option strings must load) and is taken as the bound, which the info LOG says.
TEST_F(DBCompactionCutTest, MaxSubcompactionsAboveTheBoundIsClampedAndLogged) {
  for (uint32_t asked : {kSubcompactionBound + 1, std::numeric_limits<uint32_t>::max()}) {
    SCOPED_TRACE(asked);
    options_.max_subcompactions = asked;
    Open();
    EXPECT_EQ(db_->GetOptions().max_subcompactions, kSubcompactionBound);
    Close();
    std::string log;
    ASSERT_OK(ReadFileToString(fs_.get(), std::string(kDb) + "/LOG", &log));
    EXPECT_NE(log.find("max_subcompactions: " + std::to_string(asked) + " -> " +
                       std::to_string(kSubcompactionBound)),
              std::string::npos)
        << log;
  }
}

// A per-call CompactRangeOptions::max_subcompactions of 2^31 over 40 tables (some 5,000
// sampled split points) used to start one thread per split point. The job now runs at most
// Options::kMaxSubcompactions ranges (the LOG's "N subcompactions"), and the result is complete.
TEST_F(DBCompactionCutTest, HugeSubcompactionCountStartsBoundedThreads) {
  options_.disable_auto_compactions = true;
  options_.max_subcompactions = kSubcompactionBound;
  Open();
  std::map<std::string, std::string> model;
  Random rnd(17);
  for (int f = 0; f < 40; f++) {
    for (int i = 0; i < 400; i++) {
      char k[16];
      snprintf(k, sizeof(k), "k%06u", static_cast<unsigned>(rnd.Uniform(200000)));
      const std::string v = std::to_string(f) + std::string(20, 'v');
      ASSERT_OK(db_->Put(WriteOptions(), k, v));
      model[k] = v;
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  CompactRangeOptions cro;
  cro.max_subcompactions = 1u << 31;
  ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
  std::string log;
  ASSERT_OK(ReadFileToString(fs_.get(), std::string(kDb) + "/LOG", &log));
  std::smatch m;
  const std::regex done(R"(compaction \[default\] \(manual\) done: .*, (\d+) subcompactions,)");
  ASSERT_TRUE(std::regex_search(log, m, done)) << "no compaction line in the LOG";
  const int subs = std::stoi(m[1].str());
  EXPECT_GE(subs, 2);
  EXPECT_LE(subs, static_cast<int>(kSubcompactionBound));
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  auto expected = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    ASSERT_NE(expected, model.end());
    ASSERT_EQ(it->key(), expected->first);
    ASSERT_EQ(it->value(), expected->second);
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(expected, model.end());
}

}  // namespace
}  // namespace shale
