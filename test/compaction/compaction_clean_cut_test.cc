// Issue 19, finding 5: the pickers never split one user key between the files of a sorted level
// (compaction.h invariant 1b). On hand-built Versions: the L0 trivial move compares user keys;
// the level picker widens the output level (and, for ttl, the start level) to a clean cut; FIFO
// deletes a file with the neighbour sharing its boundary key. Then random trees that already
// split keys (as a DB written before the fix may) are compacted pick after pick by each style,
// checking every pick's cuts and that no pick splits a key that was not split before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compaction/compaction_picker.h"
#include "compaction/compaction_test_util.h"
#include "compaction/picker_fixture.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::test {
namespace {

// The shared picker fixture with an L0 trigger of 2.
class CleanCutTest : public PickerFixture {
 protected:
  using Files = std::vector<std::pair<int, FileMetaData>>;
  CleanCutTest() { options_.level0_file_num_compaction_trigger = 2; }
};

// The issue's layout: L0 files [e@.. k-deletion] (newer) and [k-value .. m] (older). By internal
// key they are disjoint, by user key they share k: no trivial move into L1.
TEST_F(CleanCutTest, L0TrivialMoveComparesUserKeys) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  const FileMetaData older = File("k", "m", 10);   // #1
  const FileMetaData newer = File("e", "k", 10);   // #2
  ASSERT_LT(icmp_.Compare(newer.largest, older.smallest), 0) << "disjoint by internal key";
  Build({{0, older}, {0, newer}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L0:1,2");
  EXPECT_FALSE(c->IsTrivialMove()) << "would split k between two L1 files";
  Release();
  // Disjoint by user key: still a move.
  Build({{0, File("n", "p", 10)}, {0, File("e", "k", 10)}});
  c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->IsTrivialMove());
}

// L2 already splits k between #2 [e .. k] and #1 [k .. m]; an L1 file over [a, f] overlaps only
// #2, but the merge, bottommost, must take #1 too, or k's deletion in #2 is dropped while k's
// older value in #1 stays.
TEST_F(CleanCutTest, LevelOutputLevelIsWidenedToACleanCut) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  const FileMetaData right = File("k", "m", 100);  // #1, older
  const FileMetaData left = File("e", "k", 100);   // #2, newer
  Build({{2, right}, {2, left}, {1, File("a", "f", 2000)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Inputs(*c), "L1:3 L2:1,2");
  EXPECT_TRUE(c->bottommost);
  EXPECT_EQ(c->largest_user_key(), "m");
}

// A busy neighbour sharing the key blocks the pick rather than being left out.
TEST_F(CleanCutTest, LevelBusyNeighbourBlocksThePick) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  const FileMetaData right = File("k", "m", 100);
  const FileMetaData left = File("e", "k", 100);
  Build({{2, right}, {2, left}, {1, File("a", "f", 2000)}});
  version_->File(1)->being_compacted = true;
  EXPECT_EQ(Pick(picker.get()), nullptr);
  version_->File(1)->being_compacted = false;
}

// ttl moves an expired L1 file down together with the neighbour sharing its boundary key;
// moving [e .. k-deletion] alone would put k's deletion below k's older value.
TEST_F(CleanCutTest, LevelTtlMovesTheNeighbourSharingAUserKey) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.ttl = 100;
  const FileMetaData right = File("k", "m", 10, 1);
  const FileMetaData left = File("e", "k", 10, 1);
  Build({{1, right}, {1, left}});
  Compaction* c = Pick(picker.get(), 1000);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason(), CompactionReason::kTtl);
  EXPECT_EQ(Inputs(*c), "L1:1,2");
  EXPECT_EQ(c->output_level(), 2);
}

// FIFO deletes a file below L0 only with the neighbour sharing its boundary key: deleting the
// file with k's deletion alone would bring k's older value back.
TEST_F(CleanCutTest, FifoDeletesTheNeighbourSharingAUserKey) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.compaction_options_fifo.max_table_files_size = 250;
  const FileMetaData right = File("k", "m", 100);
  const FileMetaData left = File("e", "k", 100);
  Build({{1, right}, {1, left}, {0, File("a", "z", 100)}});
  Compaction* c = Pick(picker.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->deletion_only);
  EXPECT_EQ(Inputs(*c), "L1:1,2");
}

// ---------------------------------------------------------------- Random trees

class CleanCutRandomTest : public CleanCutTest {
 protected:
  static std::string K(uint64_t i) {
    char buf[16];
    snprintf(buf, sizeof(buf), "k%04u", static_cast<unsigned>(i));
    return buf;
  }

  // Levels deepest (oldest) first; in each level some neighbours share a boundary key (made
  // right to left, so the left file is the newer, as the internal-key order of a level needs).
  // L0: random files, some pairs sharing a boundary key.
  Files RandomTree(Random* rnd) {
    Files files;
    for (int level = options_.num_levels - 1; level >= 1; level--) {
      const int n = static_cast<int>(rnd->Uniform(6));
      std::set<uint64_t> points;
      while (static_cast<int>(points.size()) < 2 * n) points.insert(rnd->Uniform(1000));
      std::vector<std::pair<uint64_t, uint64_t>> ranges;
      for (auto it = points.begin(); it != points.end();) {
        const uint64_t lo = *it++;
        const uint64_t hi = *it++;
        ranges.push_back({lo, hi});
      }
      for (size_t i = 1; i < ranges.size(); i++) {
        if (rnd->OneIn(2)) ranges[i].first = ranges[i - 1].second;  // split a key
      }
      for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
        files.push_back({level, File(K(it->first), K(it->second), 1 + rnd->Uniform(60000),
                                     rnd->Uniform(3))});
      }
    }
    const int l0 = static_cast<int>(rnd->Uniform(6));
    for (int i = 0; i < l0; i++) {
      const uint64_t lo = rnd->Uniform(1000);
      const uint64_t hi = lo + rnd->Uniform(300);
      files.push_back({0, File(K(lo), K(hi), 1 + rnd->Uniform(30000), rnd->Uniform(3))});
      if (rnd->OneIn(2)) {  // a newer file ending where this one starts
        files.push_back(
            {0, File(K(lo >= 50 ? lo - rnd->Uniform(50) : 0), K(lo), 1 + rnd->Uniform(30000))});
      }
    }
    return files;
  }

  // Whether neighbours a, b (a first) of a sorted level share a boundary user key.
  static bool Shares(const FileMetaData& a, const FileMetaData& b) {
    return ExtractUserKey(a.largest) == ExtractUserKey(b.smallest);
  }

  // Neighbour pairs of levels >= 1 sharing a boundary user key.
  int SplitKeys() {
    int n = 0;
    for (int level = 1; level < v()->num_levels(); level++) {
      const std::vector<FileMetaData*>& files = v()->files(level);
      for (size_t i = 1; i < files.size(); i++) {
        if (Shares(*files[i - 1], *files[i])) n++;
      }
    }
    return n;
  }

  static bool Overlaps(const FileMetaData& f, std::string_view lo, std::string_view hi) {
    return !(ExtractUserKey(f.largest) < lo || ExtractUserKey(f.smallest) > hi);
  }

  void CheckPick(const Compaction& c) {
    std::set<uint64_t> inputs;
    for (const CompactionInputLevel& in : c.inputs()) {
      for (const FileMetaData* f : in.files) inputs.insert(f->number);
      if (in.level == 0 || in.files.empty()) continue;
      // A clean cut: the level's files just outside the inputs share no boundary key.
      const std::vector<FileMetaData*>& level = v()->files(in.level);
      const size_t first = std::find(level.begin(), level.end(), in.files.front()) - level.begin();
      const size_t last = first + in.files.size() - 1;
      ASSERT_LT(last, level.size());
      if (first > 0) {
        EXPECT_FALSE(Shares(*level[first - 1],
                                           *level[first]))
            << "L" << in.level << " #" << level[first - 1]->number << " left out of "
            << c.InputSummary();
      }
      if (last + 1 < level.size()) {
        EXPECT_FALSE(Shares(*level[last],
                                           *level[last + 1]))
            << "L" << in.level << " #" << level[last + 1]->number << " left out of "
            << c.InputSummary();
      }
    }
    if (c.deletion_only) return;
    const std::string lo(c.smallest_user_key()), hi(c.largest_user_key());
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
          EXPECT_FALSE(Overlaps(*f, lo, hi)) << "bottommost, yet L" << level << " #"
                                             << f->number << " holds older keys of the span";
        }
      }
    }
  }

  // The tree after `c`: inputs gone; a merge leaves one file over the span at the output level
  // (outputs are cut between user keys, so one file stands for them all here).
  Files Apply(const Files& files, const Compaction& c) {
    std::set<uint64_t> inputs;
    SequenceNumber smallest = kMaxSequenceNumber, largest = 0;
    uint64_t bytes = 0;
    for (const CompactionInputLevel& in : c.inputs()) {
      for (const FileMetaData* f : in.files) {
        inputs.insert(f->number);
        bytes += f->file_size;
        smallest = std::min(smallest, f->smallest_seqno);
        largest = std::max(largest, f->largest_seqno);
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
      next.push_back({c.output_level(), MakeFile(next_number_++, c.smallest_user_key(),
                                                 c.largest_user_key(), smallest, largest, bytes)});
    }
    return next;
  }

  void Converge(CompactionPicker* picker, Random* rnd, uint64_t now) {
    Files files = RandomTree(rnd);
    Build(files);
    if (HasFatalFailure()) return;
    for (int picks = 0; picks < 300 && picker->NeedsCompaction(*v(), options_, now); picks++) {
      const int splits_before = SplitKeys();
      const std::string before = v()->DebugString();
      Compaction* c = Pick(picker, now);
      if (c == nullptr) return;  // e.g. ttl with nothing movable; not what is tested here
      CheckPick(*c);
      files = Apply(files, *c);
      const std::string summary = c->InputSummary();
      Build(files);
      if (HasFatalFailure()) return;
      EXPECT_LE(SplitKeys(), splits_before) << summary << " split a user key; before:\n"
                                            << before << "after:\n" << v()->DebugString();
      if (HasFailure()) {
        ADD_FAILURE() << summary << " from\n" << before;
        return;
      }
    }
  }
};

TEST_F(CleanCutRandomTest, LevelStyle) {
  auto picker = NewLevelCompactionPicker(&icmp_);
  options_.num_levels = 5;
  options_.max_bytes_for_level_base = 100000;
  options_.max_bytes_for_level_multiplier = 4;
  Random rnd(1905);
  for (int round = 0; round < 1000 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level_compaction_dynamic_level_bytes = rnd.OneIn(2);
    options_.level0_file_num_compaction_trigger = 1 + static_cast<int>(rnd.Uniform(4));
    options_.ttl = rnd.OneIn(3) ? 5 : 0;  // files made at 0..2 have expired at 100
    Converge(picker.get(), &rnd, 100);
  }
}

TEST_F(CleanCutRandomTest, UniversalStyle) {
  auto picker = NewUniversalCompactionPicker(&icmp_);
  options_.num_levels = 5;
  Random rnd(1906);
  for (int round = 0; round < 1000 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.level0_file_num_compaction_trigger = 2 + static_cast<int>(rnd.Uniform(4));
    options_.compaction_options_universal.size_ratio = static_cast<unsigned>(rnd.Uniform(50));
    options_.compaction_options_universal.max_size_amplification_percent =
        50 + static_cast<unsigned>(rnd.Uniform(300));
    Converge(picker.get(), &rnd, 0);
  }
}

TEST_F(CleanCutRandomTest, FifoStyle) {
  auto picker = NewFifoCompactionPicker(&icmp_);
  options_.num_levels = 5;
  Random rnd(1907);
  for (int round = 0; round < 1000 && !HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    options_.compaction_options_fifo.max_table_files_size = rnd.Uniform(300000);
    options_.ttl = rnd.OneIn(3) ? 5 : 0;
    Converge(picker.get(), &rnd, 100);
  }
}

}  // namespace
}  // namespace shale::test
