// CompactionIterator and the value size limit (shale/limits.h, doc/size_limits.md): a merge
// whose result would be larger than the largest value a table can hold is not done; the
// operands (and the value or deletion under them) are kept as they are, so a flush or a
// compaction never has to write an oversized value, and a read still merges them. The limit
// is small here (the engine's is kMaxValueSize, 1008 MiB).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compaction/compaction_iterator.h"
#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"

namespace shale::test {
namespace {

constexpr size_t kLimit = 5;

class CompactionMergeSizeTest : public testing::Test {
 protected:
  CompactionMergeSizeTest() : icmp_(BytewiseComparator()) {}

  void Put(std::string_view key, SequenceNumber seq, std::string_view value) {
    entries_.emplace_back(IKey(key, seq, kTypeValue), std::string(value));
  }
  void Merge(std::string_view key, SequenceNumber seq, std::string_view operand) {
    entries_.emplace_back(IKey(key, seq, kTypeMerge), std::string(operand));
  }
  void Del(std::string_view key, SequenceNumber seq) {
    entries_.emplace_back(IKey(key, seq, kTypeDeletion), "");
  }

  // The kept entries, "key@seq:type=value" joined by spaces.
  std::string Run(bool bottommost = false, std::vector<SequenceNumber> snapshots = {}) {
    EntryIterator input(&icmp_, entries_);
    input.SeekToFirst();
    CompactionIterator iter(&input, BytewiseComparator(), std::move(snapshots), nullptr,
                            bottommost, &op_, kLimit);
    std::string r;
    for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
      if (!r.empty()) r += " ";
      r += Describe(iter.key()) + "=" + std::string(iter.value());
    }
    EXPECT_OK(iter.status());
    return r;
  }

  InternalKeyComparator icmp_;
  std::vector<KV> entries_;
  JoinOperator op_{true};
};

// At the limit the merge is done; one byte over, the operands and their base stay, and what
// the base hides in its stripe is still dropped.
TEST_F(CompactionMergeSizeTest, FullMergeOverTheLimitKeepsOperandsAndBase) {
  Merge("k", 5, "c");
  Merge("k", 4, "b");
  Put("k", 3, "a");  // "a,b,c": 5 bytes, at the limit
  Put("k", 2, "hidden");
  EXPECT_EQ(Run(), "k@5:1=a,b,c");
  entries_.clear();
  Merge("k", 5, "cc");
  Merge("k", 4, "b");
  Put("k", 3, "a");  // "a,b,cc": 6 bytes
  Put("k", 2, "hidden");
  Put("l", 1, "next key");
  EXPECT_EQ(Run(), "k@5:2=cc k@4:2=b k@3:1=a l@1:1=next key");
}

// A deletion under the operands stays too (at the bottommost level it goes, as always, with
// what it hides: the operands then merge onto nothing when read).
TEST_F(CompactionMergeSizeTest, FullMergeOntoADeletionOverTheLimitKeepsTheDeletion) {
  Merge("k", 5, "ccc");
  Merge("k", 4, "bbb");
  Del("k", 3);
  Put("k", 2, "hidden");
  EXPECT_EQ(Run(), "k@5:2=ccc k@4:2=bbb k@3:0=");
  EXPECT_EQ(Run(/*bottommost=*/true), "k@5:2=ccc k@4:2=bbb");
}

// At the bottommost level operands alone merge onto nothing, unless the result is too large.
TEST_F(CompactionMergeSizeTest, BottommostMergeOverTheLimitKeepsOperands) {
  Merge("k", 5, "cc");
  Merge("k", 4, "bb");  // "bb,cc": 5 bytes
  EXPECT_EQ(Run(/*bottommost=*/true), "k@5:1=bb,cc");
  entries_.clear();
  Merge("k", 5, "cc");
  Merge("k", 4, "bbb");  // 6 bytes
  EXPECT_EQ(Run(/*bottommost=*/true), "k@5:2=cc k@4:2=bbb");
}

// A partial merge over the limit is not used either.
TEST_F(CompactionMergeSizeTest, PartialMergeOverTheLimitKeepsOperands) {
  Merge("k", 5, "cc");
  Merge("k", 4, "bb");
  EXPECT_EQ(Run(), "k@5:2=bb,cc");
  entries_.clear();
  Merge("k", 5, "cc");
  Merge("k", 4, "bbb");
  EXPECT_EQ(Run(), "k@5:2=cc k@4:2=bbb");
}

}  // namespace
}  // namespace shale::test
