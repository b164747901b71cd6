// The pickers on hand-built Versions: level (L0 first when it outranks the base level, busy
// files skipped, pending output ranges respected, trivial moves), universal (size
// amplification, size ratio, run count), FIFO (size bound, ttl) and the manual pick of
// CompactRange (widened until closed, into the bottom level, conflicts); and each of them with
// the last level reserved by allow_ingest_behind (never read, never written, never bottommost).
#include "compaction/compaction_picker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include "compaction/compaction_test_util.h"
#include "compaction/picker_fixture.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::test {
namespace {

using PickerTest = PickerFixture;

// ---------------------------------------------------------------- Level style

TEST_F(PickerTest, LevelPicksL0FirstWhenItOutranksTheBaseLevel) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  // L1 is 1.5x over its target, L0 holds twice its trigger (score 2): L0 goes first. (Which
  // of L0 and the base level goes first: compaction_picker_priority_test.cc.)
  options_.level0_file_num_compaction_trigger = 2;
  Build({{1, File("a", "m", 1500)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("b", "y", 100)}, {0, File("c", "x", 100)}});
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 0));
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kL0FileCount);
  EXPECT_EQ(c->start_level(), 0);
  EXPECT_EQ(c->output_level(), 1);
  EXPECT_EQ(Inputs(*c), "L0:2,3,4,5 L1:1");
  EXPECT_FALSE(c->IsTrivialMove());
  c->ReleaseInputs();
  for (int level = 0; level < 2; level++) {
    for (const FileMetaData* f : v()->files(level)) EXPECT_FALSE(f->being_compacted);
  }
}

TEST_F(PickerTest, LevelNeverPicksFilesBeingCompacted) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  Build({{1, File("a", "c", 1000)},     // #1: overlaps busy #4 below
         {1, File("d", "f", 1000)},     // #2: busy
         {1, File("g", "i", 1000)},     // #3: the only choice
         {2, File("a", "b", 5000)},     // #4: busy
         {2, File("h", "h", 10)}});     // #5
  F(2)->being_compacted = true;
  F(4)->being_compacted = true;
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kLevelMaxBytes);
  EXPECT_EQ(Inputs(*c), "L1:3 L2:5");
  EXPECT_EQ(c->output_level(), 2);
  // Everything left is busy now: nothing more to pick.
  EXPECT_EQ(Pick(picker.get()), nullptr);
  Release();
  F(2)->being_compacted = false;
  F(4)->being_compacted = false;
}

TEST_F(PickerTest, LevelL0WaitsForABusyBaseLevelAndKeepsOthersOutOfIt) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  Build({{1, File("a", "c", 3000)}, {1, File("d", "f", 3000)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)}});
  options_.level0_file_num_compaction_trigger = 1;  // L0 scores 4, L1 (3000 bytes idle) 3
  F(1)->being_compacted = true;
  // L0 cannot go (its base-level overlap is busy); L1 is over target, but L0 outranks it, so
  // it must not start more work in the base level while L0 waits for it.
  EXPECT_EQ(Pick(picker.get()), nullptr);
  F(1)->being_compacted = false;
}

TEST_F(PickerTest, LevelRespectsPendingOutputRanges) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  Build({{1, File("a", "c", 2000)}});
  pending_ = {PendingOutputRange{2, "b", "b"}};
  EXPECT_EQ(Pick(picker.get()), nullptr) << "output would land in a range a job is filling";
  pending_ = {PendingOutputRange{2, "x", "z"}, PendingOutputRange{3, "a", "z"}};
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L1:1");
  EXPECT_EQ(c->output_level(), 2);
}

TEST_F(PickerTest, LevelTrivialMoveWhenNothingOverlaps) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  Build({{1, File("a", "c", 2000)}, {2, File("x", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L1:1");
  EXPECT_TRUE(c->IsTrivialMove());
  Release();

  Build({{1, File("a", "c", 2000)}, {2, File("b", "d", 100)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L1:3 L2:4");
  EXPECT_FALSE(c->IsTrivialMove());
  Release();

  // Disjoint L0 files into an empty base level move too; overlapping ones do not.
  Build({{0, File("a", "b", 10)}, {0, File("c", "d", 10)}, {0, File("e", "f", 10)},
         {0, File("g", "h", 10)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0);
  EXPECT_TRUE(c->IsTrivialMove());
  Release();
  Build({{0, File("a", "b", 10)}, {0, File("b", "d", 10)}, {0, File("e", "f", 10)},
         {0, File("g", "h", 10)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->IsTrivialMove());
}

TEST_F(PickerTest, LevelBottommostOnlyWhenNothingLiesBelow) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  Build({{1, File("a", "c", 2000)}, {2, File("b", "c", 100)}, {3, File("a", "b", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->bottommost);
  Release();
  Build({{1, File("a", "c", 2000)}, {2, File("b", "c", 100)}, {3, File("x", "y", 100)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->bottommost);
}

// ---------------------------------------------------------------- Universal style

TEST_F(PickerTest, UniversalSizeAmplificationMergesEverythingIntoTheBottom) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  Build({{3, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kUniversalSizeAmp);
  EXPECT_EQ(c->output_level(), 3);
  EXPECT_EQ(Inputs(*c), "L0:2,3,4 L3:1");
  EXPECT_TRUE(c->bottommost);
}

TEST_F(PickerTest, UniversalSizeRatioMergesSimilarNewestRuns) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  // Runs, newest first: 10, 10, 10, 1000, 100000.
  Build({{3, File("a", "z", 100000)}, {0, File("a", "z", 1000)}, {0, File("a", "z", 10)},
         {0, File("a", "z", 10)}, {0, File("a", "z", 10)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kUniversalSizeRatio);
  EXPECT_EQ(Inputs(*c), "L0:3,4,5");
  EXPECT_EQ(c->output_level(), 0);  // just above the next older run, which is in L0
  EXPECT_FALSE(c->bottommost);
}

TEST_F(PickerTest, UniversalRunCountFallsBelowTheTrigger) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  // Runs, newest first: 1, 10, 100, 1000, 10000, 1000000: no similar neighbours, no size
  // amplification, but 6 runs over a trigger of 4.
  Build({{3, File("a", "z", 1000000)}, {0, File("a", "z", 10000)}, {0, File("a", "z", 1000)},
         {0, File("a", "z", 100)}, {0, File("a", "z", 10)}, {0, File("a", "z", 1)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kUniversalRunCount);
  // The fewest newest runs whose merge leaves fewer runs than the trigger: 6 - 4 + 1 = 3.
  EXPECT_EQ(Inputs(*c), "L0:3,4,5,6");
  EXPECT_EQ(c->output_level(), 0);
  // One universal compaction at a time.
  EXPECT_EQ(Pick(picker.get()), nullptr);
}

TEST_F(PickerTest, UniversalAtTheTriggerStillPicks) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  // Runs, newest first: 1, 10, 100, 1000000: no similar neighbours, no size amplification,
  // exactly as many runs as the trigger. A compaction is due, so one must be picked.
  Build({{3, File("a", "z", 1000000)}, {0, File("a", "z", 100)}, {0, File("a", "z", 10)},
         {0, File("a", "z", 1)}});
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 0));
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr) << "due, nothing busy, and yet nothing picked";
  EXPECT_EQ(c->reason(), CompactionReason::kUniversalRunCount);
  EXPECT_EQ(Inputs(*c), "L0:3,4");
  EXPECT_EQ(c->output_level(), 0);
}

TEST_F(PickerTest, UniversalNothingBelowTheTrigger) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  Build({{3, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)}});
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 0));
  EXPECT_EQ(Pick(picker.get()), nullptr);
  EXPECT_EQ(picker->EstimatePendingCompactionBytes(*v(), options_), 0u);
}

TEST_F(PickerTest, UniversalOutputAboveAnOlderLevelRun) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  // Runs, newest first: 10, 10, 10 (L0), 5000 (L2), 100000 (L3).
  Build({{3, File("a", "z", 100000)}, {2, File("a", "z", 5000)}, {0, File("a", "z", 10)},
         {0, File("a", "z", 10)}, {0, File("a", "z", 10)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L0:3,4,5");
  EXPECT_EQ(c->output_level(), 1) << "the merged runs must stay above the older L2 run";
}

// ---------------------------------------------------------------- FIFO style

TEST_F(PickerTest, FifoDeletesOldestUntilUnderTheSizeBound) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.compaction_options_fifo.max_table_files_size = 250;
  Build({{0, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}, {0, File("a", "z", 100)}});
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 0));
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->deletion_only);
  EXPECT_EQ(c->reason(), CompactionReason::kFifoMaxSize);
  EXPECT_EQ(Inputs(*c), "L0:1,2,3");  // 500 -> 200 bytes
  EXPECT_EQ(Pick(picker.get()), nullptr) << "busy files are not picked again";
  Release();

  options_.compaction_options_fifo.max_table_files_size = 500;
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 0));
  EXPECT_EQ(Pick(picker.get()), nullptr);
}

TEST_F(PickerTest, FifoDeletesFilesBelowL0First) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.compaction_options_fifo.max_table_files_size = 250;
  Build({{2, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L2:1");
}

TEST_F(PickerTest, FifoTtlDeletesExpiredFiles) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.ttl = 100;
  Build({{0, File("a", "z", 100, 800)}, {0, File("a", "z", 100, 850)},
         {0, File("a", "z", 100, 950)}, {0, File("a", "z", 100, 990)}});
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 900));
  EXPECT_EQ(Pick(picker.get(), 900), nullptr);
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 1000));
  Compaction* c = Pick(picker.get(), 1000);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kFifoTtl);
  EXPECT_EQ(Inputs(*c), "L0:1,2");
}

// ---------------------------------------------------------------- Reserved last level

// With allow_ingest_behind (num_levels = 4 here) L3 belongs to ingest_behind files: L2 is the
// bottom. Each test also runs the same tree without the option where that shows the
// difference.

TEST_F(PickerTest, ReservedLevelTheLastWritableLevelIsTheBottom) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  // L2 is 5x over its static target (10000): due only when L3 is writable.
  Build({{2, File("a", "m", 50000)}, {3, File("a", "z", 10)}});
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 0));
  options_.allow_ingest_behind = true;
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 0));
  EXPECT_EQ(Pick(picker.get()), nullptr);
  EXPECT_EQ(picker->EstimatePendingCompactionBytes(*v(), options_), 0u);
}

TEST_F(PickerTest, ReservedLevelCompactionsAreNeverBottommost) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  // Nothing lies below the output: bottommost, unless older data may be ingested behind.
  Build({{1, File("a", "c", 2000)}, {2, File("b", "c", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->bottommost);
  Release();
  options_.allow_ingest_behind = true;
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L1:1 L2:2");
  EXPECT_EQ(c->output_level(), 2);
  EXPECT_FALSE(c->bottommost);
}

TEST_F(PickerTest, ReservedLevelBottommostCompressionGoesToTheLastWritableLevel) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.allow_ingest_behind = true;
  options_.compression = kNoCompression;
  options_.bottommost_compression = kZSTD;
  Build({{1, File("a", "c", 2000)}, {2, File("b", "c", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->bottommost);
  EXPECT_EQ(c->compression, kZSTD);
  EXPECT_TRUE(c->grandparents.empty()) << "reserved files are no grandparents";
  Release();
  Build({{0, File("a", "c", 10)}, {0, File("a", "c", 10)}, {0, File("a", "c", 10)},
         {0, File("a", "c", 10)}, {1, File("a", "b", 10)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->output_level(), 1);
  EXPECT_EQ(c->compression, kNoCompression);
}

TEST_F(PickerTest, ReservedLevelTtlStopsAboveIt) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.ttl = 100;
  options_.allow_ingest_behind = true;
  Build({{2, File("a", "c", 10, 500)}, {3, File("a", "c", 10, 500)}});
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 1000));
  EXPECT_EQ(Pick(picker.get(), 1000), nullptr);
  options_.allow_ingest_behind = false;
  ASSERT_TRUE(picker->NeedsCompaction(*v(), options_, 1000));
  Release();
  options_.allow_ingest_behind = true;
  Build({{1, File("a", "c", 10, 500)}, {3, File("a", "c", 10, 500)}});
  Compaction* c = Pick(picker.get(), 1000);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kTtl);
  EXPECT_EQ(Inputs(*c), "L1:3");
  EXPECT_EQ(c->output_level(), 2);
}

TEST_F(PickerTest, ReservedLevelUniversalIsNoRun) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  options_.allow_ingest_behind = true;
  // Three L0 runs and an L3 file: four runs without the option, three (below the trigger)
  // with it.
  Build({{3, File("a", "z", 100)}, {0, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}});
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 0));
  EXPECT_EQ(Pick(picker.get()), nullptr);
  // Size amplification merges everything into L2, not L3, and is not bottommost.
  Build({{3, File("a", "z", 100000)}, {2, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}, {0, File("a", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kUniversalSizeAmp);
  EXPECT_EQ(Inputs(*c), "L0:7,8,9 L2:6");
  EXPECT_EQ(c->output_level(), 2);
  EXPECT_FALSE(c->bottommost);
}

TEST_F(PickerTest, ReservedLevelFifoNeitherCountsNorDeletesIt) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.compaction_options_fifo.max_table_files_size = 250;
  options_.ttl = 100;
  options_.allow_ingest_behind = true;
  // 200 bytes in L0: under the bound, although the expired L3 file is huge.
  Build({{3, File("a", "z", 100000, 500)}, {0, File("a", "z", 100, 950)},
         {0, File("a", "z", 100, 990)}});
  EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 1000));
  EXPECT_EQ(Pick(picker.get(), 1000), nullptr);
  options_.allow_ingest_behind = false;
  EXPECT_TRUE(picker->NeedsCompaction(*v(), options_, 1000));
  options_.allow_ingest_behind = true;
  // Over the bound: the oldest file above L3 goes.
  Build({{3, File("a", "z", 100000)}, {2, File("a", "z", 100)}, {0, File("a", "z", 100)},
         {0, File("a", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L2:5");
}

// ---------------------------------------------------------------- Convergence

// Random trees, compacted pick after pick (the "job" merges the inputs into one file at the
// output level) until nothing is due. Checks each pick against the invariants of compaction.h
// and of the level order, that "due" always yields a pick when nothing is busy, and that
// picking converges to a tree where nothing is due.
class PickerConvergenceTest : public PickerTest {
 protected:
  using Files = std::vector<std::pair<int, FileMetaData>>;

  static std::string K(uint64_t i) {
    char buf[16];
    snprintf(buf, sizeof(buf), "k%04u", static_cast<unsigned>(i));
    return buf;
  }

  Files RandomTree(Random* rnd) {
    Files files;
    // Deeper levels hold older data.
    for (int level = options_.num_levels - 1; level >= 1; level--) {
      const int n = static_cast<int>(rnd->Uniform(6));
      std::set<uint64_t> points;
      while (static_cast<int>(points.size()) < 2 * n) points.insert(rnd->Uniform(1000));
      for (auto it = points.begin(); it != points.end();) {
        const uint64_t lo = *it++;
        const uint64_t hi = *it++;
        files.push_back({level, File(K(lo), K(hi), 1 + rnd->Uniform(60000))});
      }
    }
    const int l0 = static_cast<int>(rnd->Uniform(8));
    for (int i = 0; i < l0; i++) {
      const uint64_t lo = rnd->Uniform(1000);
      files.push_back({0, File(K(lo), K(lo + rnd->Uniform(300)), 1 + rnd->Uniform(30000))});
    }
    return files;
  }

  static bool Overlaps(const FileMetaData& f, std::string_view lo, std::string_view hi) {
    return !(ExtractUserKey(f.largest) < lo || ExtractUserKey(f.smallest) > hi);
  }

  // The invariants of a fresh pick `c` of version v().
  void CheckPick(const Compaction& c) {
    if (options_.allow_ingest_behind) {
      const int reserved = v()->num_levels() - 1;
      EXPECT_FALSE(c.bottommost) << "bottommost with a reserved last level";
      EXPECT_LT(c.output_level(), reserved) << c.InputSummary();
      for (const CompactionInputLevel& in : c.inputs()) {
        EXPECT_LT(in.level, reserved) << "reserved-level input in " << c.InputSummary();
      }
    }
    std::set<uint64_t> inputs;
    int last_level = -1;
    SequenceNumber newest_l0_input = 0;
    for (const CompactionInputLevel& in : c.inputs()) {
      EXPECT_GT(in.level, last_level) << "input levels in increasing order";
      last_level = in.level;
      EXPECT_FALSE(in.files.empty());
      for (const FileMetaData* f : in.files) {
        inputs.insert(f->number);
        if (in.level == 0) newest_l0_input = std::max(newest_l0_input, f->largest_seqno);
      }
      if (in.level > 0 && !in.files.empty()) {
        // Contiguous files of the level.
        const std::vector<FileMetaData*>& level = v()->files(in.level);
        auto first = std::find(level.begin(), level.end(), in.files.front());
        ASSERT_NE(first, level.end());
        for (size_t i = 0; i < in.files.size(); i++) {
          ASSERT_LT(first + i, level.end());
          EXPECT_EQ(*(first + i), in.files[i]) << "L" << in.level << " inputs not contiguous";
        }
      }
    }
    if (c.deletion_only) return;
    EXPECT_LE(last_level, c.output_level());
    const std::string lo(c.smallest_user_key()), hi(c.largest_user_key());
    // Older overlapping files between the start and the output level are inputs. An output
    // that stays in L0 needs instead that no other L0 file's sequences interleave with the
    // inputs' (it takes their place in L0's newest-first order).
    SequenceNumber oldest_input = kMaxSequenceNumber;
    for (const CompactionInputLevel& in : c.inputs()) {
      for (const FileMetaData* f : in.files) {
        oldest_input = std::min(oldest_input, f->smallest_seqno);
      }
    }
    for (const FileMetaData* f : v()->files(0)) {
      if (c.start_level() != 0 || inputs.count(f->number)) continue;
      if (c.output_level() == 0) {
        EXPECT_TRUE(f->largest_seqno < oldest_input || f->smallest_seqno > newest_l0_input)
            << "L0 #" << f->number << " interleaves with the inputs of " << c.InputSummary();
      } else if (Overlaps(*f, lo, hi) && f->largest_seqno < newest_l0_input) {
        ADD_FAILURE() << "older overlapping L0 file #" << f->number << " is not an input of "
                      << c.InputSummary();
      }
    }
    for (int level = std::max(1, c.start_level() + 1); level <= c.output_level(); level++) {
      for (const FileMetaData* f : v()->files(level)) {
        if (Overlaps(*f, lo, hi)) {
          EXPECT_TRUE(inputs.count(f->number))
              << "L" << level << " #" << f->number << " overlaps [" << lo << ", " << hi
              << "] but is not an input of " << c.InputSummary();
        }
      }
    }
    if (c.bottommost) {
      for (int level = c.output_level() + 1; level < v()->num_levels(); level++) {
        for (const FileMetaData* f : v()->files(level)) {
          EXPECT_FALSE(Overlaps(*f, lo, hi)) << "bottommost, yet L" << level << " #" << f->number
                                             << " holds older keys of the span";
        }
      }
    }
  }

  // The tree after `c` ran: inputs gone, and (for a merge) one file at the output level.
  Files Apply(const Files& files, const Compaction& c) {
    std::set<uint64_t> inputs;
    FileMetaData merged;
    merged.smallest_seqno = kMaxSequenceNumber;
    for (const CompactionInputLevel& in : c.inputs()) {
      for (const FileMetaData* f : in.files) {
        inputs.insert(f->number);
        merged.file_size += f->file_size;
        merged.smallest_seqno = std::min(merged.smallest_seqno, f->smallest_seqno);
        merged.largest_seqno = std::max(merged.largest_seqno, f->largest_seqno);
      }
    }
    Files next;
    for (const auto& [level, f] : files) {
      if (inputs.count(f.number) == 0) {
        next.push_back({level, f});
      } else if (c.IsTrivialMove()) {
        next.push_back({c.output_level(), f});
      }
    }
    if (!c.deletion_only && !c.IsTrivialMove()) {
      next.push_back({c.output_level(),
                      MakeFile(next_number_++, c.smallest_user_key(), c.largest_user_key(),
                               merged.smallest_seqno, merged.largest_seqno, merged.file_size)});
    }
    return next;
  }

  // The numbers of the files in the last level of `files`.
  std::set<uint64_t> LastLevel(const Files& files) const {
    std::set<uint64_t> r;
    for (const auto& [level, f] : files) {
      if (level == options_.num_levels - 1) r.insert(f.number);
    }
    return r;
  }

  void Converge(CompactionPicker* picker, Random* rnd) {
    Files files = RandomTree(rnd);
    const std::set<uint64_t> last_level_before = LastLevel(files);
    Build(files);
    int picks = 0;
    for (; picks < 300 && picker->NeedsCompaction(*v(), options_, 0); picks++) {
      Compaction* c = Pick(picker);
      ASSERT_NE(c, nullptr) << "due, nothing busy, nothing pending, yet nothing picked:\n"
                            << v()->DebugString();
      CheckPick(*c);
      if (HasFailure()) {
        ADD_FAILURE() << c->InputSummary() << " from\n" << v()->DebugString();
        return;
      }
      files = Apply(files, *c);
      Build(files);  // releases c; fails when the result breaks the level order
      if (HasFatalFailure()) return;
    }
    EXPECT_FALSE(picker->NeedsCompaction(*v(), options_, 0))
        << "still due after " << picks << " picks:\n" << v()->DebugString();
    if (options_.allow_ingest_behind) {
      EXPECT_EQ(LastLevel(files), last_level_before) << "the reserved last level changed";
    }
  }
};

TEST_F(PickerConvergenceTest, LevelStyle) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.num_levels = 5;
  options_.max_bytes_for_level_base = 100000;
  options_.max_bytes_for_level_multiplier = 4;
  Random rnd(17);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level_compaction_dynamic_level_bytes = rnd.OneIn(2);
    options_.level0_file_num_compaction_trigger = 1 + static_cast<int>(rnd.Uniform(4));
    Converge(picker.get(), &rnd);
  }
}

TEST_F(PickerConvergenceTest, UniversalStyle) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  options_.num_levels = 5;
  Random rnd(18);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level0_file_num_compaction_trigger = 2 + static_cast<int>(rnd.Uniform(4));
    options_.compaction_options_universal.size_ratio = static_cast<unsigned>(rnd.Uniform(50));
    options_.compaction_options_universal.max_size_amplification_percent =
        50 + static_cast<unsigned>(rnd.Uniform(300));
    Converge(picker.get(), &rnd);
  }
}

// The same random trees (with files in the last level, as ingest_behind leaves them) converge
// without reading or writing the reserved level.
TEST_F(PickerConvergenceTest, LevelStyleWithReservedLastLevel) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.num_levels = 5;
  options_.allow_ingest_behind = true;
  options_.max_bytes_for_level_base = 100000;
  options_.max_bytes_for_level_multiplier = 4;
  Random rnd(27);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level_compaction_dynamic_level_bytes = rnd.OneIn(2);
    options_.level0_file_num_compaction_trigger = 1 + static_cast<int>(rnd.Uniform(4));
    Converge(picker.get(), &rnd);
  }
}

TEST_F(PickerConvergenceTest, UniversalStyleWithReservedLastLevel) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  options_.num_levels = 5;
  options_.allow_ingest_behind = true;
  Random rnd(28);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level0_file_num_compaction_trigger = 2 + static_cast<int>(rnd.Uniform(4));
    options_.compaction_options_universal.size_ratio = static_cast<unsigned>(rnd.Uniform(50));
    options_.compaction_options_universal.max_size_amplification_percent =
        50 + static_cast<unsigned>(rnd.Uniform(300));
    Converge(picker.get(), &rnd);
  }
}

TEST_F(PickerConvergenceTest, FifoStyleWithReservedLastLevel) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.num_levels = 5;
  options_.allow_ingest_behind = true;
  Random rnd(29);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.compaction_options_fifo.max_table_files_size = rnd.Uniform(300000);
    Converge(picker.get(), &rnd);
    uint64_t total = 0;  // the bound holds for the levels FIFO owns
    for (int level = 0; level + 1 < v()->num_levels(); level++) total += v()->NumLevelBytes(level);
    EXPECT_LE(total, options_.compaction_options_fifo.max_table_files_size);
  }
}

TEST_F(PickerConvergenceTest, FifoStyle) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.num_levels = 5;
  Random rnd(19);
  for (int round = 0; round < 200 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.compaction_options_fifo.max_table_files_size = rnd.Uniform(300000);
    Converge(picker.get(), &rnd);
    uint64_t total = 0;
    for (int level = 0; level < v()->num_levels(); level++) total += v()->NumLevelBytes(level);
    EXPECT_LE(total, options_.compaction_options_fifo.max_table_files_size);
  }
}

// ---------------------------------------------------------------- Manual

class ManualPickTest : public PickerTest {
 protected:
  void SetUp() override {
    Build({{0, File("c", "f", 100)},                               // #1
           {1, File("a", "b", 100)}, {1, File("d", "e", 100)},     // #2 #3
           {1, File("g", "h", 100)},                               // #4
           {2, File("e", "g", 100)}, {2, File("x", "y", 100)},     // #5 #6
           {3, File("h", "i", 100)}, {3, File("p", "q", 100)}});   // #7 #8
  }
  Compaction* Manual(std::optional<std::string_view> begin, std::optional<std::string_view> end,
                     bool force, bool* conflict) {
    return Keep(
        picker_->PickManualCompaction(v(), options_, pending_, begin, end, force, 3, conflict));
  }
  std::unique_ptr<CompactionPicker> picker_ = NewLevelCompactionPicker(&icmp_);
};

TEST_F(ManualPickTest, WidensUntilClosedAndOutputsToTheBottom) {
  bool conflict = true;
  // [c, c] takes #1 (to f), then #5 (to g), then #4 (to h), then #7 (to i).
  Compaction* c = Manual("c", "c", false, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(conflict);
  EXPECT_EQ(c->reason(), CompactionReason::kManual);
  EXPECT_EQ(Inputs(*c), "L0:1 L1:3,4 L2:5 L3:7");
  EXPECT_EQ(c->output_level(), 3);
  EXPECT_TRUE(c->bottommost);
  EXPECT_EQ(c->max_subcompactions, 3u);
  EXPECT_EQ(c->smallest_user_key(), "c");
  EXPECT_EQ(c->largest_user_key(), "i");
  EXPECT_FALSE(c->IsTrivialMove());
}

TEST_F(ManualPickTest, OpenBoundsTakeEverything) {
  bool conflict = true;
  Compaction* c = Manual(std::nullopt, std::nullopt, false, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L0:1 L1:2,3,4 L2:5,6 L3:7,8");
}

TEST_F(ManualPickTest, ConflictsWithBusyFilesAndPendingOutputs) {
  bool conflict = false;
  F(5)->being_compacted = true;
  EXPECT_EQ(Manual("c", "c", false, &conflict), nullptr);
  EXPECT_TRUE(conflict);
  F(5)->being_compacted = false;

  pending_ = {PendingOutputRange{3, "i", "k"}};
  conflict = false;
  EXPECT_EQ(Manual("c", "c", false, &conflict), nullptr);
  EXPECT_TRUE(conflict);
  for (const FileMetaData* f : v()->files(1)) EXPECT_FALSE(f->being_compacted);

  pending_ = {PendingOutputRange{3, "j", "k"}, PendingOutputRange{2, "c", "c"}};
  Compaction* c = Manual("c", "c", false, &conflict);
  EXPECT_NE(c, nullptr);
  EXPECT_FALSE(conflict);
}

TEST_F(ManualPickTest, NothingToDo) {
  bool conflict = true;
  EXPECT_EQ(Manual("r", "r", false, &conflict), nullptr);  // no file overlaps
  EXPECT_FALSE(conflict);
  conflict = true;
  // Only the bottom level overlaps: nothing to do unless forced.
  EXPECT_EQ(Manual("p", "p", false, &conflict), nullptr);
  EXPECT_FALSE(conflict);
  Compaction* c = Manual("p", "p", true, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L3:8");
  EXPECT_EQ(c->output_level(), 3);
}

TEST_F(ManualPickTest, ReservedLevelIsNeitherInputNorOutput) {
  options_.allow_ingest_behind = true;
  bool conflict = true;
  // [c, c] widens through #1, #5 and #4 to h, but not into L3's #7.
  Compaction* c = Manual("c", "c", false, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(conflict);
  EXPECT_EQ(Inputs(*c), "L0:1 L1:3,4 L2:5");
  EXPECT_EQ(c->output_level(), 2);
  EXPECT_EQ(c->largest_user_key(), "h");
  EXPECT_FALSE(c->bottommost);
  Release();
  c = Manual(std::nullopt, std::nullopt, false, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L0:1 L1:2,3,4 L2:5,6");
  EXPECT_EQ(c->output_level(), 2);
  EXPECT_FALSE(c->bottommost);
  Release();
  // Only reserved files overlap: nothing to do, forced or not.
  EXPECT_EQ(Manual("p", "p", true, &conflict), nullptr);
  EXPECT_FALSE(conflict);
  // Only the last writable level overlaps: as for the bottom level.
  EXPECT_EQ(Manual("x", "x", false, &conflict), nullptr);
  EXPECT_FALSE(conflict);
  c = Manual("x", "x", true, &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L2:6");
  EXPECT_EQ(c->output_level(), 2);
  // A pending output in the reserved level is no conflict; one in L2 is.
  Release();
  pending_ = {PendingOutputRange{3, "a", "z"}};
  c = Manual("c", "c", false, &conflict);
  EXPECT_NE(c, nullptr);
  Release();
  pending_ = {PendingOutputRange{2, "h", "h"}};
  EXPECT_EQ(Manual("c", "c", false, &conflict), nullptr);
  EXPECT_TRUE(conflict);
}

TEST_F(ManualPickTest, FifoManualPicksItsDeletions) {
  auto fifo = NewFifoCompactionPicker(&icmp_);
  options_.compaction_options_fifo.max_table_files_size = 650;
  bool conflict = true;
  Compaction* c =
      Keep(fifo->PickManualCompaction(v(), options_, pending_, "a", "b", false, 1, &conflict));
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(conflict);
  EXPECT_TRUE(c->deletion_only);
  EXPECT_EQ(Inputs(*c), "L3:7,8");  // the oldest tables: 800 -> 600 bytes
}

TEST(CompactionPickerFactoryTest, NoneStylePicksNothingByItself) {
  InternalKeyComparator icmp(BytewiseComparator());
  Options options;
  options.num_levels = 3;
  std::vector<std::pair<int, FileMetaData>> files;
  for (int i = 0; i < 50; i++) {
    files.push_back({0, MakeFile(i + 1, "a", "z", i * 10 + 1, i * 10 + 9)});
  }
  TestVersion v(&icmp, 3, files);
  ASSERT_OK(v.status());
  auto none = NewCompactionPicker(kCompactionStyleNone, &icmp);
  EXPECT_FALSE(none->NeedsCompaction(*v.get(), options, 0));
  EXPECT_EQ(none->PickCompaction(v.get(), options, {}, 0), nullptr);
  EXPECT_EQ(none->EstimatePendingCompactionBytes(*v.get(), options), 0u);
  bool conflict = true;
  std::unique_ptr<Compaction> c =
      none->PickManualCompaction(v.get(), options, {}, std::nullopt, std::nullopt, false, 1,
                                 &conflict);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->NumInputFiles(), 50u);
  EXPECT_EQ(c->output_level(), 2);
  c->ReleaseInputs();
  auto level = NewCompactionPicker(kCompactionStyleLevel, &icmp);
  EXPECT_TRUE(level->NeedsCompaction(*v.get(), options, 0));
}

}  // namespace
}  // namespace shale::test
