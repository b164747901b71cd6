// GlobalSeqnoIterator: over entries stored at sequence 0, every move must land where an iterator
// over the same entries stored at the global sequence lands (the reference: a VectorIterator
// over the rewritten keys), for random targets of every user key and sequence.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "iterator/iterator_test_util.h"
#include "table/global_seqno_iterator.h"
#include "util/random.h"

namespace shale {
namespace {

std::string UserKey(int i) { return "u" + std::to_string(1000 + i); }

// Where `it` is: its key, or "<end>".
std::string At(const InternalIterator& it) {
  return it.Valid() ? std::string(it.key()) : std::string("<end>");
}

void CheckAgainstReference(bool duplicates, uint64_t seed) {
  InternalKeyComparator icmp(BytewiseComparator());
  Random rnd(seed);
  const SequenceNumber global = 50;
  test::Entries stored, rewritten;
  for (int i = 0; i < 40; i += 1 + static_cast<int>(rnd.Uniform(3))) {
    // Duplicate internal keys happen among range deletions (same start, sequence 0).
    const int copies = duplicates && rnd.OneIn(3) ? 2 : 1;
    const ValueType type = rnd.OneIn(4) ? kTypeDeletion : kTypeValue;
    for (int c = 0; c < copies; c++) {
      const std::string value = "v" + std::to_string(i) + "." + std::to_string(c);
      stored.emplace_back(MakeInternalKey(UserKey(i), 0, type), value);
      rewritten.emplace_back(MakeInternalKey(UserKey(i), global, type), value);
    }
  }
  GlobalSeqnoIterator it(std::make_unique<test::VectorIterator>(&icmp, stored), &icmp, global);
  test::VectorIterator ref(&icmp, rewritten);
  const SequenceNumber seqs[] = {0, 1, global - 1, global, global + 1, kMaxSequenceNumber};
  for (int round = 0; round < 500; round++) {
    const std::string target =
        MakeInternalKey(UserKey(static_cast<int>(rnd.Uniform(42)) - 1),
                        seqs[rnd.Uniform(6)], rnd.OneIn(2) ? kValueTypeForSeek : kTypeValue);
    const bool forward = rnd.OneIn(2);
    if (forward) {
      it.Seek(target);
      ref.Seek(target);
    } else {
      it.SeekForPrev(target);
      ref.SeekForPrev(target);
    }
    ASSERT_EQ(At(it), At(ref)) << (forward ? "Seek " : "SeekForPrev ") << round;
    for (int step = 0; step < 3 && ref.Valid(); step++) {
      ASSERT_EQ(it.value(), ref.value());
      if (rnd.OneIn(2)) {
        it.Next();
        ref.Next();
      } else {
        it.Prev();
        ref.Prev();
      }
      ASSERT_EQ(At(it), At(ref)) << "step " << step << " after round " << round;
    }
  }
  it.SeekToFirst();
  ref.SeekToFirst();
  EXPECT_EQ(At(it), At(ref));
  it.SeekToLast();
  ref.SeekToLast();
  EXPECT_EQ(At(it), At(ref));
}

TEST(GlobalSeqnoIteratorTest, MovesLikeAnIteratorOverRewrittenKeys) {
  for (uint64_t seed = 1; seed <= 5; seed++) CheckAgainstReference(false, seed);
}

TEST(GlobalSeqnoIteratorTest, DuplicateKeysAsRangeDeletionsHaveThem) {
  for (uint64_t seed = 1; seed <= 5; seed++) CheckAgainstReference(true, seed);
}

TEST(GlobalSeqnoIteratorTest, RewriteKeepsUserKeyAndType) {
  std::string out;
  RewriteSequence(MakeInternalKey("abc", 0, kTypeDeletion), 77, &out);
  EXPECT_EQ(out, MakeInternalKey("abc", 77, kTypeDeletion));
}

}  // namespace
}  // namespace shale
