// Level-style picking order between L0 and the base level (issue 20): a due L0 -> base
// compaction no longer always goes first. The due levels are taken by score, highest first; L0
// goes first only when it outranks the others or when it is urgent: its file count + 1 has
// reached level0_slowdown_writes_trigger (one more flush would slow writes, so a Flush with
// allow_write_stall = false waits for L0). Otherwise a base level far over its target would
// never be compacted down while L0 keeps refilling during each L0 -> base job. A blocked L0
// ahead of the base level holds back the base level's own and ttl compactions.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compaction/compaction_picker.h"
#include "compaction/picker_fixture.h"

namespace shale::test {
namespace {

class PickerPriorityTest : public PickerFixture {
 protected:
  PickerPriorityTest() {
    options_.level0_file_num_compaction_trigger = 4;
    options_.level0_slowdown_writes_trigger = 8;
    options_.level0_stop_writes_trigger = 12;
  }

  // L1 (the base level, target 1000 bytes) holding `l1_bytes` in four files (a-b, c-d, e-f,
  // g-h) written at `l1_creation_time` (0: unknown, never expires), one L2 file under each, and
  // `l0_files` L0 files spanning the key space.
  void BuildTree(uint64_t l1_bytes, int l0_files, uint64_t l1_creation_time = 0) {
    std::vector<std::pair<int, FileMetaData>> files;
    const char* ranges[4][2] = {{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}};
    for (const auto& r : ranges) files.push_back({2, File(r[0], r[1], 2000)});
    first_l1_ = next_number_;
    for (const auto& r : ranges) {
      files.push_back({1, File(r[0], r[1], l1_bytes / 4, l1_creation_time)});
    }
    for (int i = 0; i < l0_files; i++) files.push_back({0, File("a", "h", 100)});
    Build(std::move(files));
  }

  uint64_t first_l1_ = 0;  // the number of BuildTree's first L1 file (a-b)
};

// L1 is 40x over its target, L0 is due (6 files, score 1.5) but not urgent (two flushes short of
// the slowdown trigger): the base level's own compaction goes first.
TEST_F(PickerPriorityTest, BaseLevelFarOverTargetOutranksADueL0) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(40000, 6);
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 1) << Inputs(*c);
  EXPECT_EQ(c->output_level(), 2);
  EXPECT_EQ(c->reason(), CompactionReason::kLevelMaxBytes);
  // Another L1 file can go on in parallel (L0 -> L1 would need the busy one).
  Compaction* c2 = Pick(picker.get());
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->start_level(), 1) << Inputs(*c2);
}

// The same tree with L0 at level0_slowdown_writes_trigger: writes are being slowed, so
// L0 -> L1 goes first although L1's score is higher.
TEST_F(PickerPriorityTest, L0AtTheSlowdownTriggerGoesFirst) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(40000, 8);
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0) << Inputs(*c);
  EXPECT_EQ(c->output_level(), 1);
  EXPECT_EQ(c->reason(), CompactionReason::kL0FileCount);
  EXPECT_EQ(c->inputs()[0].files.size(), 8u);
}

// L0 due and the base level under its target: L0 -> L1 as before.
TEST_F(PickerPriorityTest, DueL0IntoABaseLevelUnderTarget) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(800, 5);
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0) << Inputs(*c);
  EXPECT_EQ(c->output_level(), 1);
  EXPECT_EQ(c->reason(), CompactionReason::kL0FileCount);
  EXPECT_EQ(Inputs(*c), "L0:9,10,11,12,13 L1:5,6,7,8");
}

// L0 outranks a base level that is over its target too (L0 score 1.5 with 6 files, not urgent;
// L1 score 1.2): L0 goes first.
TEST_F(PickerPriorityTest, L0WithTheHighestScoreGoesFirst) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(1200, 6);
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0) << Inputs(*c);
  EXPECT_EQ(c->output_level(), 1);
}

// A non-urgent L0 (6 files, two flushes short of the slowdown trigger) outranks L1 but waits for
// a busy L1 file: L1 (over target, lower score) must not start more work in the base level
// meanwhile. With L1 outranking L0 instead, L1 goes on.
TEST_F(PickerPriorityTest, BlockedL0HoldsBackTheBaseLevelOnlyWhenItOutranksIt) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(1600, 6);  // L0 1.5; L1 counts 1200 bytes not being compacted: 1.2
  F(first_l1_)->being_compacted = true;
  EXPECT_EQ(Pick(picker.get()), nullptr);
  F(first_l1_)->being_compacted = false;

  BuildTree(40000, 6);  // L1 30000 bytes not being compacted: 30
  F(first_l1_)->being_compacted = true;
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 1) << Inputs(*c);
  Release();
  F(first_l1_)->being_compacted = false;
}

// One flush short of the slowdown trigger (7 files, trigger 8), L0 is urgent: a Flush or
// CompactRange (allow_write_stall = false) waits while one more L0 file would slow writes
// (DBImpl::WaitUntilFlushWouldNotStallLocked), so L0 -> L1 goes first although L1 (40x over its
// target) outranks L0; otherwise the Flush would wait for every level outranking L0 to drain.
TEST_F(PickerPriorityTest, L0OneFlushShortOfTheSlowdownTriggerGoesFirst) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(40000, 7);
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0) << Inputs(*c);
  EXPECT_EQ(c->output_level(), 1);
  EXPECT_EQ(c->reason(), CompactionReason::kL0FileCount);
  EXPECT_EQ(c->inputs()[0].files.size(), 7u);
}

// An urgent L0 (at the slowdown trigger) waiting for a busy L1 file holds the base level back
// although L1 (40x over its target) outranks it: the base level must not keep taking the work
// L0 waits for. L2 is not due, so nothing is picked.
TEST_F(PickerPriorityTest, BlockedUrgentL0HoldsBackABaseLevelThatOutranksIt) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  BuildTree(40000, 8);
  F(first_l1_)->being_compacted = true;
  Compaction* held = Pick(picker.get());
  EXPECT_EQ(held, nullptr) << Inputs(*held);
  Release();
  F(first_l1_)->being_compacted = false;
  // Once the L1 file is free, L0 -> L1 goes.
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 0) << Inputs(*c);
}

// ttl does not bypass the hold-back: with a blocked urgent L0, an expired idle L1 file is not
// moved down (it would take base-level work L0 waits for); it goes once L0 is no longer blocked.
TEST_F(PickerPriorityTest, BlockedL0HoldsBackTtlPicksFromTheBaseLevel) {
  options_.ttl = 100;
  auto picker = NewLevelCompactionPicker(&icmp_);
  for (uint64_t l1_bytes : {800u, 40000u}) {  // L1 under its target, and far over it
    SCOPED_TRACE(l1_bytes);
    BuildTree(l1_bytes, 8, /*l1_creation_time=*/1);
    F(first_l1_)->being_compacted = true;
    Compaction* held = Pick(picker.get(), /*now=*/1000);
    EXPECT_EQ(held, nullptr) << Inputs(*held) << " reason " << static_cast<int>(held->reason());
    Release();
    F(first_l1_)->being_compacted = false;
  }
  // Nothing blocked in L0 (it is not due): the expired L1 files move down.
  BuildTree(800, 2, /*l1_creation_time=*/1);
  F(first_l1_)->being_compacted = true;
  Compaction* c = Pick(picker.get(), /*now=*/1000);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_level(), 1) << Inputs(*c);
  EXPECT_EQ(c->reason(), CompactionReason::kTtl);
  Release();
  F(first_l1_)->being_compacted = false;
}

}  // namespace
}  // namespace shale::test
