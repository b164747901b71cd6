// CompactionIterator: which versions survive. Snapshot stripes (newest per stripe kept), range
// deletions dropping only what they cover within their own stripe, the bottommost rule for
// deletions, and corruption. A randomized test checks that every snapshot's view is preserved.
#include "compaction/compaction_iterator.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::test {
namespace {

class CompactionIteratorTest : public testing::Test {
 protected:
  CompactionIteratorTest() : icmp_(BytewiseComparator()) {}

  void Put(std::string_view key, SequenceNumber seq, std::string_view value = "v") {
    entries_.emplace_back(IKey(key, seq, kTypeValue), std::string(value));
  }
  void Del(std::string_view key, SequenceNumber seq) {
    entries_.emplace_back(IKey(key, seq, kTypeDeletion), "");
  }
  void SingleDel(std::string_view key, SequenceNumber seq) {
    entries_.emplace_back(IKey(key, seq, kTypeSingleDeletion), "");
  }
  void DelRange(std::string_view start, std::string_view end, SequenceNumber seq) {
    ranges_.push_back(Tombstone{std::string(start), std::string(end), seq});
  }

  // The kept entries, "key@seq:type" joined by spaces.
  std::string Run(std::vector<SequenceNumber> snapshots, bool bottommost = false) {
    EntryIterator input(&icmp_, entries_);
    RangeTombstones tombstones(BytewiseComparator());
    for (const Tombstone& t : ranges_) tombstones.Add(t.start, t.end, t.seq);
    tombstones.Finish();
    input.SeekToFirst();
    CompactionIterator iter(&input, BytewiseComparator(), std::move(snapshots), &tombstones,
                            bottommost);
    std::string r;
    for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
      if (!r.empty()) r += " ";
      r += Describe(iter.key());
    }
    EXPECT_OK(iter.status());
    dropped_ = iter.num_dropped();
    return r;
  }

  InternalKeyComparator icmp_;
  std::vector<KV> entries_;
  std::vector<Tombstone> ranges_;
  uint64_t dropped_ = 0;
};

TEST_F(CompactionIteratorTest, WithoutSnapshotsOnlyTheNewestVersionSurvives) {
  Put("a", 5);
  Put("a", 3);
  Put("a", 1);
  Del("b", 4);
  Put("b", 2);
  Put("c", 6);
  EXPECT_EQ(Run({}), "a@5:1 b@4:0 c@6:1");
  EXPECT_EQ(dropped_, 3u);
}

TEST_F(CompactionIteratorTest, EachSnapshotStripeKeepsItsNewestVersion) {
  // Snapshots 3 and 6 cut the versions into stripes (..3], (3..6], (6..].
  for (SequenceNumber s : {8, 7, 5, 4, 2, 1}) Put("a", s);
  EXPECT_EQ(Run({3, 6}), "a@8:1 a@5:1 a@2:1");
  EXPECT_EQ(dropped_, 3u);
  // A snapshot equal to a sequence sees that version: it stays.
  EXPECT_EQ(Run({4}), "a@8:1 a@4:1");
  // Snapshots older than every version, or between none of them, change nothing.
  EXPECT_EQ(Run({0}), "a@8:1");
}

TEST_F(CompactionIteratorTest, DeletionsAreKeptAboveTheBottom) {
  Del("a", 5);
  Put("a", 3);
  SingleDel("b", 9);
  Put("b", 8);
  EXPECT_EQ(Run({}), "a@5:0 b@9:7");
  EXPECT_EQ(Run({4}), "a@5:0 a@3:1 b@9:7");
}

TEST_F(CompactionIteratorTest, BottommostDropsDeletionsInTheOldestStripeWithWhatTheyHide) {
  Del("a", 5);
  Put("a", 3);
  SingleDel("b", 9);
  Put("b", 8);
  Put("c", 1);
  EXPECT_EQ(Run({}, /*bottommost=*/true), "c@1:1");
  EXPECT_EQ(dropped_, 4u);
  // A snapshot between the deletion and the value: the reader at 4 still sees a@3, so both
  // stay (the deletion is not in the oldest stripe).
  // b@9 is newer than the snapshot, so it is not in the oldest stripe either.
  EXPECT_EQ(Run({4}, true), "a@5:0 a@3:1 b@9:7 c@1:1");
  // A snapshot at 6: a's deletion is in the oldest stripe and goes with a@3; b's is not.
  EXPECT_EQ(Run({6}, true), "b@9:7 c@1:1");
}

TEST_F(CompactionIteratorTest, BottommostKeepsNewerDeletionsAndDropsOldOnes) {
  Del("a", 7);
  Del("a", 3);
  Put("a", 1);
  // Stripes (..5] and (5..]: a@7 is in the newest stripe and stays (it hides nothing the
  // latest reader could see, but it is not in the oldest stripe); a@3 is in the oldest stripe
  // and goes with the a@1 it hides (the reader at 5 reads "absent", as good as "deleted").
  EXPECT_EQ(Run({5}, true), "a@7:0");
  EXPECT_EQ(Run({5}, false), "a@7:0 a@3:0");
}

TEST_F(CompactionIteratorTest, RangeDeletionDropsCoveredEntriesOfItsOwnStripe) {
  DelRange("a", "c", 5);
  Put("a", 4);  // covered, same stripe as the tombstone without snapshots
  Put("b", 6);  // newer than the tombstone
  Put("b", 2);  // hidden by b@6 anyway
  Put("c", 1);  // the end key is not covered
  EXPECT_EQ(Run({}), "b@6:1 c@1:1");
  // A snapshot at 4 sees a@4 (the tombstone is newer than the snapshot): it must stay.
  EXPECT_EQ(Run({4}), "a@4:1 b@6:1 b@2:1 c@1:1");
  // A snapshot at 5 sees the tombstone: a@4 goes, and b@2 (in stripe 5) is covered too.
  EXPECT_EQ(Run({5}), "b@6:1 c@1:1");
  // A snapshot at 3: a@4 is in stripe (3..], where the tombstone is visible: dropped. b@2 is
  // in stripe (..3], where the tombstone is not visible: kept.
  EXPECT_EQ(Run({3}), "b@6:1 b@2:1 c@1:1");
}

TEST_F(CompactionIteratorTest, RangeDeletionDoesNotDropEntriesInOlderStripes) {
  DelRange("k", "m", 10);
  Put("k", 9);
  Put("k", 4);
  Put("l", 3);
  // Snapshot 5: the versions at 4 and 3 are seen by it, and the tombstone is not.
  EXPECT_EQ(Run({5}), "k@4:1 l@3:1");
  EXPECT_EQ(Run({5}, true), "k@4:1 l@3:1");
}

TEST_F(CompactionIteratorTest, CorruptKeyStopsWithCorruption) {
  std::string bad = "b";
  PutFixed64(&bad, (uint64_t{2} << 8) | 0x05);  // type 5 does not exist
  EntryIterator input(&icmp_, {{IKey("a", 1, kTypeValue), "v"}, {bad, "x"}});
  input.SeekToFirst();
  CompactionIterator iter(&input, BytewiseComparator(), {});
  iter.SeekToFirst();
  int n = 0;
  while (iter.Valid()) {
    n++;
    iter.Next();
  }
  EXPECT_TRUE(iter.status().IsCorruption()) << iter.status().ToString();
  EXPECT_LE(n, 1);
}

// Random versions, deletions and range deletions: whatever the iterator keeps must give every
// reader at a live snapshot (and at the latest sequence) the same answer as the input did.
TEST_F(CompactionIteratorTest, RandomInputsKeepEverySnapshotsView) {
  Random rnd(301);
  for (int round = 0; round < 300; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    entries_.clear();
    ranges_.clear();
    LsmContents input;
    const int keys = 1 + static_cast<int>(rnd.Uniform(8));
    SequenceNumber seq = 1;
    const int ops = 1 + static_cast<int>(rnd.Uniform(40));
    for (int i = 0; i < ops; i++, seq++) {
      const std::string key(1, static_cast<char>('a' + rnd.Uniform(keys)));
      const uint32_t kind = rnd.Uniform(10);
      if (kind < 6) {
        const std::string value = "v" + std::to_string(seq);
        Put(key, seq, value);
        input.points.push_back(PointEntry{key, seq, kTypeValue, value});
      } else if (kind < 8) {
        Del(key, seq);
        input.points.push_back(PointEntry{key, seq, kTypeDeletion, ""});
      } else {
        const std::string end(1, static_cast<char>(key[0] + 1 + rnd.Uniform(3)));
        DelRange(key, end, seq);
        input.tombstones.push_back(Tombstone{key, end, seq});
      }
    }
    std::vector<SequenceNumber> snapshots;
    for (SequenceNumber s = 1; s < seq; s++) {
      if (rnd.OneIn(6)) snapshots.push_back(s);
    }
    const bool bottommost = rnd.OneIn(2);
    EntryIterator it(&icmp_, entries_);
    RangeTombstones tombstones(BytewiseComparator());
    for (const Tombstone& t : input.tombstones) tombstones.Add(t.start, t.end, t.seq);
    tombstones.Finish();
    it.SeekToFirst();
    CompactionIterator iter(&it, BytewiseComparator(), snapshots, &tombstones, bottommost);
    LsmContents output;
    output.tombstones = input.tombstones;  // the job writes the tombstones; keep them all here
    for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
      ParsedInternalKey p;
      ASSERT_OK(ParseInternalKey(iter.key(), &p));
      output.points.push_back(
          PointEntry{std::string(p.user_key), p.sequence, p.type, std::string(iter.value())});
    }
    ASSERT_OK(iter.status());
    std::vector<SequenceNumber> readers = snapshots;
    readers.push_back(kMaxSequenceNumber);
    for (SequenceNumber s : readers) {
      for (int k = 0; k < keys + 3; k++) {
        const std::string key(1, static_cast<char>('a' + k));
        std::string want = Lookup(input, key, s);
        std::string got = Lookup(output, key, s);
        if (bottommost) {
          // Nothing lies below: a deletion and nothing at all read the same.
          if (want == "deleted") want = "absent";
          if (got == "deleted") got = "absent";
        }
        ASSERT_EQ(got, want) << "key " << key << " at snapshot " << s
                             << (bottommost ? " (bottommost)" : "");
      }
    }
  }
}

}  // namespace
}  // namespace shale::test
