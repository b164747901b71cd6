// ComputeLevelTargets, EstimateLevelPendingBytes and TargetFileSizeForLevel on hand-built
// Versions: static and dynamic level sizes, the base level moving up as the bottom grows,
// levels above the base level that hold files, and the L0 score.
#include "compaction/level_targets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"

namespace shale::test {
namespace {

class LevelTargetsTest : public testing::Test {
 protected:
  LevelTargetsTest() : icmp_(BytewiseComparator()) {
    options_.num_levels = 7;
    options_.max_bytes_for_level_base = 10000;
    options_.max_bytes_for_level_multiplier = 10;
    options_.level0_file_num_compaction_trigger = 4;
  }

  // A version holding `files` (level, file).
  std::unique_ptr<TestVersion> Make(std::vector<std::pair<int, FileMetaData>> files) {
    auto v = std::make_unique<TestVersion>(&icmp_, options_.num_levels, files);
    EXPECT_OK(v->status());
    return v;
  }
  uint64_t Pending(const Version& v) {
    return EstimateLevelPendingBytes(v, options_, ComputeLevelTargets(v, options_));
  }
  FileMetaData File(std::string_view lo, std::string_view hi, uint64_t size) {
    const SequenceNumber seq = next_seq_;
    next_seq_ += 10;
    return MakeFile(next_number_++, lo, hi, seq, seq + 9, size);
  }

  InternalKeyComparator icmp_;
  Options options_;
  uint64_t next_number_ = 1;
  SequenceNumber next_seq_ = 1;
};

TEST_F(LevelTargetsTest, DynamicBaseLevelMovesUpAsTheBottomGrows) {
  struct Case {
    uint64_t bottom_bytes;
    int base_level;
  };
  const Case cases[] = {{0, 6}, {5000, 6}, {50000, 5}, {500000, 4}, {5000000, 3}};
  int previous_base = 7;
  for (const Case& c : cases) {
    SCOPED_TRACE("bottom bytes " + std::to_string(c.bottom_bytes));
    auto v = Make({{6, File("a", "z", c.bottom_bytes)}});
    const LevelTargets t = ComputeLevelTargets(*v->get(), options_);
    EXPECT_EQ(t.base_level, c.base_level);
    EXPECT_LE(t.base_level, previous_base);
    previous_base = t.base_level;
    for (int level = 1; level < t.base_level; level++) EXPECT_EQ(t.max_bytes[level], 0u);
    // The bottom level targets what it holds, each level above a tenth of the one below, and
    // no level below the base level targets less than max_bytes_for_level_base.
    uint64_t expected = c.bottom_bytes;
    for (int level = 6; level >= t.base_level; level--) {
      EXPECT_EQ(t.max_bytes[level], std::max<uint64_t>(expected, 10000)) << "level " << level;
      expected /= 10;
    }
    for (double s : t.scores) EXPECT_LT(s, 1.0);  // the bottom holds everything: nothing due
  }
  auto v = Make({{6, File("a", "z", 500000)}});
  const LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  EXPECT_EQ(t.max_bytes[4], 10000u);
  EXPECT_EQ(t.max_bytes[5], 50000u);
  EXPECT_EQ(t.max_bytes[6], 500000u);
}

TEST_F(LevelTargetsTest, DynamicBottomTargetFollowsItsSize) {
  auto v = Make({{6, File("a", "z", 5000000)}});
  const LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  ASSERT_EQ(t.base_level, 3);
  EXPECT_EQ(t.max_bytes[3], 10000u) << "5000000 / 10^3 = 5000, raised to the base size";
  EXPECT_EQ(t.max_bytes[6], 5000000u);
  EXPECT_EQ(t.scores[6], 0.0);
}

TEST_F(LevelTargetsTest, LevelsAboveTheBaseLevelWithFilesScoreAtLeastOne) {
  auto v = Make({{6, File("a", "m", 500000)}, {2, File("n", "p", 100)}});
  const LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  ASSERT_EQ(t.base_level, 4);
  EXPECT_GE(t.scores[2], 1.0);
  EXPECT_EQ(t.scores[1], 0.0);
  EXPECT_EQ(t.scores[3], 0.0);
  EXPECT_LT(t.scores[4], 1.0);
  EXPECT_EQ(t.scores[6], 0.0);
}

TEST_F(LevelTargetsTest, L0ScoresItsFileCountAndBytes) {
  std::vector<std::pair<int, FileMetaData>> files;
  for (int i = 0; i < 6; i++) files.push_back({0, File("a", "z", 10)});
  auto v = Make(files);
  LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  EXPECT_DOUBLE_EQ(t.scores[0], 1.5);  // 6 files over a trigger of 4
  // Files being compacted do not count.
  for (int i = 0; i < 3; i++) v->get()->files(0)[i]->being_compacted = true;
  t = ComputeLevelTargets(*v->get(), options_);
  EXPECT_DOUBLE_EQ(t.scores[0], 0.75);
  for (int i = 0; i < 3; i++) v->get()->files(0)[i]->being_compacted = false;

  // One huge L0 file is due by bytes.
  auto big = Make({{0, File("a", "z", 30000)}});
  t = ComputeLevelTargets(*big->get(), options_);
  EXPECT_DOUBLE_EQ(t.scores[0], 3.0);

  auto none = Make({});
  t = ComputeLevelTargets(*none->get(), options_);
  EXPECT_EQ(t.scores[0], 0.0);
}

TEST_F(LevelTargetsTest, StaticSizesStartAtL1) {
  options_.level_compaction_dynamic_level_bytes = false;
  options_.num_levels = 4;
  options_.max_bytes_for_level_base = 1000;
  auto v = Make({{1, File("a", "c", 3000)}, {2, File("a", "z", 5000)}, {3, File("a", "z", 9)}});
  const LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  EXPECT_EQ(t.base_level, 1);
  EXPECT_EQ(t.max_bytes[1], 1000u);
  EXPECT_EQ(t.max_bytes[2], 10000u);
  EXPECT_EQ(t.max_bytes[3], 100000u);
  EXPECT_DOUBLE_EQ(t.scores[1], 3.0);
  EXPECT_DOUBLE_EQ(t.scores[2], 0.5);
  EXPECT_EQ(t.scores[3], 0.0);
}

TEST_F(LevelTargetsTest, PendingBytesCountTheExcessAndItsShareOfTheNextLevel) {
  options_.level_compaction_dynamic_level_bytes = false;
  options_.num_levels = 4;
  options_.max_bytes_for_level_base = 1000;
  {
    auto v = Make({{1, File("a", "c", 800)}, {2, File("a", "z", 6000)}});
    EXPECT_EQ(Pending(*v->get()), 0u);
  }
  {
    // L1 holds 3000 of 1000: 2000 excess, merged with its share (6000 / 3000) of L2.
    auto v = Make({{1, File("a", "c", 3000)}, {2, File("a", "z", 6000)}});
    EXPECT_EQ(Pending(*v->get()), 6000u);
  }
  {
    // L0 at its trigger: its bytes and L1's, then L1's excess grows by what L0 brings.
    std::vector<std::pair<int, FileMetaData>> files = {{1, File("a", "c", 3000)},
                                                       {2, File("a", "z", 6000)}};
    for (int i = 0; i < 4; i++) files.push_back({0, File("a", "z", 100)});
    auto v = Make(files);
    const uint64_t pending = Pending(*v->get());
    EXPECT_GE(pending, 400u + 3000u + 2400u);
    EXPECT_LE(pending, 400u + 3000u + 2400u * 3);
  }
}

// allow_ingest_behind: L6 is reserved, L5 is the bottom. The reserved level's bytes do not
// size the tree, it has no target, and the bottom (L5) never scores.
TEST_F(LevelTargetsTest, ReservedLastLevelMovesTheBottomUp) {
  options_.allow_ingest_behind = true;
  auto v = Make({{6, File("a", "z", 90000000)}, {5, File("a", "z", 500000)}});
  LevelTargets t = ComputeLevelTargets(*v->get(), options_);
  EXPECT_EQ(t.base_level, 3) << "sized from L5's 500000 bytes, not L6's";
  EXPECT_EQ(t.max_bytes[3], 10000u);
  EXPECT_EQ(t.max_bytes[4], 50000u);
  EXPECT_EQ(t.max_bytes[5], 500000u);
  EXPECT_EQ(t.max_bytes[6], 0u);
  EXPECT_EQ(t.scores[5], 0.0);
  EXPECT_EQ(t.scores[6], 0.0);
  EXPECT_EQ(Pending(*v->get()), 0u);

  // Static sizes: targets stop at L5, and an over-full L5 is not due.
  options_.level_compaction_dynamic_level_bytes = false;
  auto s = Make({{5, File("a", "z", 900000000)}, {6, File("a", "z", 10)}});
  t = ComputeLevelTargets(*s->get(), options_);
  EXPECT_EQ(t.max_bytes[5], 100000000u);
  EXPECT_EQ(t.max_bytes[6], 0u);
  EXPECT_EQ(t.scores[5], 0.0);
  auto over = Make({{4, File("a", "z", 90000000)}, {6, File("a", "z", 10)}});
  t = ComputeLevelTargets(*over->get(), options_);
  EXPECT_DOUBLE_EQ(t.scores[4], 9.0);
  EXPECT_GT(Pending(*over->get()), 0u);

  // Three levels: L0 compacts into L1, the only sorted level.
  options_.level_compaction_dynamic_level_bytes = true;
  options_.num_levels = 3;
  auto three = Make({{1, File("a", "z", 90000000)}, {2, File("a", "z", 90000000)}});
  t = ComputeLevelTargets(*three->get(), options_);
  EXPECT_EQ(t.base_level, 1);
  EXPECT_EQ(t.scores[1], 0.0);
}

TEST_F(LevelTargetsTest, TargetFileSizeGrowsBelowTheBaseLevel) {
  options_.target_file_size_base = 1000;
  options_.target_file_size_multiplier = 2;
  EXPECT_EQ(TargetFileSizeForLevel(options_, 0, 1), 1000u);
  EXPECT_EQ(TargetFileSizeForLevel(options_, 1, 1), 1000u);
  EXPECT_EQ(TargetFileSizeForLevel(options_, 3, 1), 4000u);
  EXPECT_EQ(TargetFileSizeForLevel(options_, 2, 4), 1000u);  // above the base level
  EXPECT_EQ(TargetFileSizeForLevel(options_, 6, 4), 4000u);
}

}  // namespace
}  // namespace shale::test
