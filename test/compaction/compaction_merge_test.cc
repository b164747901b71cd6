// CompactionIterator with merge operands (compaction_iterator.h, "Merges"): what replaces a
// key's operands in each snapshot stripe — a full merge onto a value, a deletion, a covering
// range deletion or (at the bottommost level) nothing; otherwise one partial-merged operand,
// or the operands unchanged when the operator cannot combine them — and the error paths (a
// failing operator, operands without an operator). Inputs are vectors of internal entries.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compaction/compaction_iterator.h"
#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"

namespace shale::test {
namespace {

class CompactionMergeTest : public testing::Test {
 protected:
  CompactionMergeTest() : icmp_(BytewiseComparator()) {}

  void Put(std::string_view key, SequenceNumber seq, std::string_view value) {
    entries_.emplace_back(IKey(key, seq, kTypeValue), std::string(value));
  }
  void Merge(std::string_view key, SequenceNumber seq, std::string_view operand) {
    entries_.emplace_back(IKey(key, seq, kTypeMerge), std::string(operand));
  }
  void Del(std::string_view key, SequenceNumber seq) {
    entries_.emplace_back(IKey(key, seq, kTypeDeletion), "");
  }
  void DelRange(std::string_view start, std::string_view end, SequenceNumber seq) {
    ranges_.push_back(Tombstone{std::string(start), std::string(end), seq});
  }

  // The kept entries, "key@seq:type=value" joined by spaces; the iterator's final status in
  // status_.
  std::string Run(const MergeOperator* op, std::vector<SequenceNumber> snapshots = {},
                  bool bottommost = false) {
    EntryIterator input(&icmp_, entries_);
    RangeTombstones tombstones(BytewiseComparator());
    for (const Tombstone& t : ranges_) tombstones.Add(t.start, t.end, t.seq);
    tombstones.Finish();
    input.SeekToFirst();
    CompactionIterator iter(&input, BytewiseComparator(), std::move(snapshots), &tombstones,
                            bottommost, op);
    std::string r;
    for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
      if (!r.empty()) r += " ";
      r += Describe(iter.key()) + "=" + std::string(iter.value());
    }
    status_ = iter.status();
    dropped_ = iter.num_dropped();
    return r;
  }

  InternalKeyComparator icmp_;
  std::vector<KV> entries_;
  std::vector<Tombstone> ranges_;
  Status status_;
  uint64_t dropped_ = 0;
  JoinOperator partial_{true};
  JoinOperator no_partial_{false};
};

TEST_F(CompactionMergeTest, OperandsAloneArePartialMergedAboveTheBottom) {
  Merge("k", 7, "c");
  Merge("k", 5, "b");
  Merge("k", 3, "a");
  EXPECT_EQ(Run(&partial_), "k@7:2=a,b,c");
  ASSERT_OK(status_);
  EXPECT_EQ(dropped_, 2u);
  EXPECT_EQ(partial_.full_merges.load(), 0);  // no base, not bottommost: no full merge
}

TEST_F(CompactionMergeTest, OperandsAloneStayWhenTheOperatorCannotCombine) {
  Merge("k", 7, "c");
  Merge("k", 5, "b");
  Merge("k", 3, "a");
  EXPECT_EQ(Run(&no_partial_), "k@7:2=c k@5:2=b k@3:2=a");
  ASSERT_OK(status_);
  EXPECT_EQ(dropped_, 0u);
  EXPECT_EQ(no_partial_.full_merges.load(), 0);
}

TEST_F(CompactionMergeTest, SingleOperandIsKeptAsIs) {
  Merge("k", 4, "a");
  EXPECT_EQ(Run(&partial_), "k@4:2=a");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, OperandsAloneBecomeOneValueAtTheBottom) {
  Merge("k", 7, "c");
  Merge("k", 5, "b");
  Merge("k", 3, "a");
  EXPECT_EQ(Run(&partial_, {}, /*bottommost=*/true), "k@7:1=a,b,c");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&no_partial_, {}, /*bottommost=*/true), "k@7:1=a,b,c");
  ASSERT_OK(status_);
  // A lone operand too.
  entries_.clear();
  Merge("k", 2, "z");
  EXPECT_EQ(Run(&no_partial_, {}, /*bottommost=*/true), "k@2:1=z");
}

TEST_F(CompactionMergeTest, OperandsOnAValueBecomeAValueAtTheNewestOperandsSequence) {
  Merge("k", 9, "c");
  Merge("k", 8, "b");
  Put("k", 6, "v");
  Put("k", 4, "old");  // hidden by the value in the same stripe
  for (const JoinOperator* op : {&partial_, &no_partial_}) {
    EXPECT_EQ(Run(op), "k@9:1=v,b,c");
    ASSERT_OK(status_);
    EXPECT_EQ(dropped_, 3u);
  }
}

TEST_F(CompactionMergeTest, OperandsOnADeletionBecomeAValueOnNothing) {
  Merge("k", 9, "c");
  Merge("k", 8, "b");
  Del("k", 6);
  Put("k", 4, "old");
  EXPECT_EQ(Run(&no_partial_), "k@9:1=b,c");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&no_partial_, {}, /*bottommost=*/true), "k@9:1=b,c");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, SnapshotsSplitTheMergeIntoStripes) {
  // Stripes with snapshots 4 and 7: (..4] = {V2, M3, M4}, (4..7] = {M5, M6}, (7..] = {M8, M9}.
  Merge("k", 9, "i");
  Merge("k", 8, "h");
  Merge("k", 6, "f");
  Merge("k", 5, "e");
  Merge("k", 4, "d");
  Merge("k", 3, "c");
  Put("k", 2, "b");
  EXPECT_EQ(Run(&partial_, {4, 7}), "k@9:2=h,i k@6:2=e,f k@4:1=b,c,d");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&no_partial_, {4, 7}), "k@9:2=i k@8:2=h k@6:2=f k@5:2=e k@4:1=b,c,d");
  ASSERT_OK(status_);
  // Bottommost changes nothing here: each stripe above has older entries below it.
  EXPECT_EQ(Run(&partial_, {4, 7}, /*bottommost=*/true), "k@9:2=h,i k@6:2=e,f k@4:1=b,c,d");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, SnapshotBetweenOperandsAtTheBottom) {
  // No base at all: at the bottom only the oldest stripe can be full-merged onto nothing.
  Merge("k", 6, "c");
  Merge("k", 5, "b");
  Merge("k", 3, "a");
  EXPECT_EQ(Run(&partial_, {4}, /*bottommost=*/true), "k@6:2=b,c k@3:1=a");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, RangeDeletionBetweenOperandsEndsTheMerge) {
  // The tombstone at 5 hides M4 and V2 from every reader (same stripe): M7, M6 merge onto
  // nothing.
  Merge("k", 7, "c");
  Merge("k", 6, "b");
  Merge("k", 4, "a");
  Put("k", 2, "v");
  DelRange("a", "z", 5);
  EXPECT_EQ(Run(&partial_), "k@7:1=b,c");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&no_partial_), "k@7:1=b,c");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, RangeDeletionInANewerStripeDoesNotEndTheMerge) {
  // The tombstone at 5 is newer than snapshot 4: readers at 4 still see V2 + M3 + M4.
  Merge("k", 7, "d");
  Merge("k", 4, "c");
  Merge("k", 3, "b");
  Put("k", 2, "a");
  DelRange("a", "z", 5);
  EXPECT_EQ(Run(&partial_, {4}), "k@7:2=d k@4:1=a,b,c");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, FailingFullMergeStopsWithCorruption) {
  Merge("k", 5, "FAIL");
  Put("k", 3, "v");
  Put("z", 1, "after");
  Run(&partial_);
  EXPECT_TRUE(status_.IsCorruption()) << status_.ToString();
  EXPECT_NE(status_.ToString().find("operand FAIL refused"), std::string::npos)
      << status_.ToString();
  EXPECT_NE(status_.ToString().find("test.join"), std::string::npos) << status_.ToString();
}

TEST_F(CompactionMergeTest, FailingPartialMergeKeepsTheOperands) {
  // PartialMerge refusing is not an error: the operands stay.
  Merge("k", 5, "b");
  Merge("k", 4, "FAIL");
  Merge("k", 3, "a");
  EXPECT_EQ(Run(&partial_), "k@5:2=b k@4:2=FAIL k@3:2=a");
  ASSERT_OK(status_);
  // At the bottom the full merge fails.
  Run(&partial_, {}, /*bottommost=*/true);
  EXPECT_TRUE(status_.IsCorruption()) << status_.ToString();
}

TEST_F(CompactionMergeTest, OperandsWithoutAnOperatorAreInvalidArgument) {
  Put("a", 2, "x");
  Merge("k", 5, "b");
  Run(nullptr);
  EXPECT_TRUE(status_.IsInvalidArgument()) << status_.ToString();
}

TEST_F(CompactionMergeTest, KeysAroundAMergedKeyComeOutRight) {
  Put("a", 1, "A");
  Merge("b", 9, "y");
  Merge("b", 8, "x");
  Put("b", 3, "w");
  Put("c", 4, "C");
  Put("c", 2, "old");
  Merge("d", 6, "only");
  Del("e", 7);
  Put("e", 5, "gone");
  EXPECT_EQ(Run(&partial_), "a@1:1=A b@9:1=w,x,y c@4:1=C d@6:2=only e@7:0=");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&no_partial_, {}, /*bottommost=*/true), "a@1:1=A b@9:1=w,x,y c@4:1=C d@6:1=only");
  ASSERT_OK(status_);
  // Operands kept unchanged, followed by another key.
  EXPECT_EQ(Run(&no_partial_, {8}), "a@1:1=A b@9:2=y b@8:1=w,x c@4:1=C d@6:2=only e@7:0=");
  ASSERT_OK(status_);
}

TEST_F(CompactionMergeTest, OperandsAtTheEndOfTheInput) {
  Put("a", 1, "A");
  Merge("z", 3, "q");
  Merge("z", 2, "p");
  EXPECT_EQ(Run(&no_partial_), "a@1:1=A z@3:2=q z@2:2=p");
  ASSERT_OK(status_);
  EXPECT_EQ(Run(&partial_, {}, /*bottommost=*/true), "a@1:1=A z@3:1=p,q");
  ASSERT_OK(status_);
}

}  // namespace
}  // namespace shale::test
