// Version and VersionBuilder: level order (L0 newest first, L1+ sorted and non-overlapping),
// the checks on edits, the range queries against brute force, PickLevelForMemTableOutput, and
// the file references that keep a file alive while a Version lists it.
#include "version/version.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "shale/comparator.h"
#include "testutil/status_matchers.h"
#include "util/random.h"
#include "version/version_builder.h"
#include "version/version_level_files.h"
#include "version/version_test_util.h"

namespace shale::test {
namespace {

constexpr int kLevels = 5;

// Owns a chain of versions built with VersionBuilder, outside any VersionSet.
class VersionTest : public testing::Test {
 protected:
  VersionTest() : icmp_(BytewiseComparator()) {
    current_ = new Version(&icmp_, kLevels);
    current_->Ref();
  }
  ~VersionTest() override { current_->Unref(); }

  // Applies the edit to current_ and makes the result current.
  Status Apply(const VersionEdit& edit) {
    auto* v = new Version(&icmp_, kLevels);
    v->Ref();
    Status s;
    {
      VersionBuilder builder(&icmp_, current_);
      s = builder.Apply(edit);
      if (s.ok()) s = builder.SaveTo(v);
    }
    if (!s.ok()) {
      v->Unref();
      return s;
    }
    current_->Unref();
    current_ = v;
    return Status::OK();
  }

  Status Add(int level, const FileMetaData& f) {
    VersionEdit e;
    e.AddFile(level, f);
    return Apply(e);
  }

  std::vector<uint64_t> Numbers(int level) const {
    std::vector<uint64_t> r;
    for (const FileMetaData* f : current_->files(level)) r.push_back(f->number);
    return r;
  }

  InternalKeyComparator icmp_;
  Version* current_;
};

TEST_F(VersionTest, L0IsNewestFirstByLargestSequenceThenNumber) {
  ASSERT_OK(Add(0, MakeFile(1, "a", "z", 10, 20)));
  ASSERT_OK(Add(0, MakeFile(2, "a", "z", 30, 40)));
  ASSERT_OK(Add(0, MakeFile(3, "c", "d", 5, 15)));    // oldest data, newest number
  ASSERT_OK(Add(0, MakeFile(4, "c", "d", 35, 40)));   // ties with #2 on sequence
  EXPECT_EQ(Numbers(0), (std::vector<uint64_t>{4, 2, 1, 3}));
  EXPECT_OK(current_->CheckConsistency());
}

TEST_F(VersionTest, LowerLevelsAreSortedBySmallestKey) {
  VersionEdit e;
  e.AddFile(1, MakeFile(7, "m", "p", 1, 2));
  e.AddFile(1, MakeFile(5, "a", "c", 1, 2));
  e.AddFile(1, MakeFile(9, "x", "z", 1, 2));
  e.AddFile(1, MakeFile(6, "d", "f", 1, 2));
  ASSERT_OK(Apply(e));
  EXPECT_EQ(Numbers(1), (std::vector<uint64_t>{5, 6, 7, 9}));
  EXPECT_EQ(current_->NumFiles(1), 4);
  EXPECT_EQ(current_->NumLevelBytes(1), 4000u);
  EXPECT_OK(current_->CheckConsistency());
}

TEST_F(VersionTest, OverlappingFilesInALowerLevelAreRejected) {
  ASSERT_OK(Add(2, MakeFile(5, "d", "h", 1, 2)));
  Status s = Add(2, MakeFile(6, "a", "e", 3, 4));
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("L2"), std::string::npos) << s.ToString();
  EXPECT_EQ(Numbers(2), std::vector<uint64_t>{5});  // nothing installed
  // The same file is fine in L0 and in another level.
  EXPECT_OK(Add(0, MakeFile(6, "a", "e", 3, 4)));
  EXPECT_OK(Add(3, MakeFile(8, "a", "e", 3, 4)));
  // Sharing a boundary user key is overlap when the internal keys overlap too...
  EXPECT_TRUE(Add(2, MakeFile(9, "a", "d", 1, 1)).IsCorruption());  // ('d',1) >= ('d',2)
  // ...but a user key may continue into the next file with older entries.
  EXPECT_OK(Add(2, MakeFile(10, "a", "d", 3, 4)));  // ends at ('d',3), newer than ('d',2)
  EXPECT_EQ(Numbers(2), (std::vector<uint64_t>{10, 5}));
  EXPECT_TRUE(current_->OverlapInLevel(2, "d", "d"));
  std::vector<FileMetaData*> inputs;
  current_->GetOverlappingInputs(2, MakeInternalKey("d", 9, kTypeValue),
                                 MakeInternalKey("d", 9, kTypeValue), &inputs);
  EXPECT_EQ(inputs.size(), 2u);  // a compaction of "d" takes both
}

TEST_F(VersionTest, FileWithSmallestAboveLargestIsRejected) {
  EXPECT_TRUE(Add(0, MakeFile(5, "z", "a", 1, 2)).IsCorruption());
}

TEST_F(VersionTest, EditsThatDoNotApplyAreRejected) {
  ASSERT_OK(Add(1, MakeFile(5, "a", "c", 1, 2)));
  VersionEdit missing;
  missing.DeleteFile(2, 5);  // #5 is in L1
  Status s = Apply(missing);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("#5"), std::string::npos);

  Status dup = Add(3, MakeFile(5, "x", "y", 1, 2));
  EXPECT_TRUE(dup.IsCorruption()) << dup.ToString();

  VersionEdit deep;
  deep.AddFile(kLevels, MakeFile(6, "a", "b", 1, 2));
  EXPECT_TRUE(Apply(deep).IsInvalidArgument());
  VersionEdit deep_pointer;
  deep_pointer.SetCompactPointer(kLevels, MakeInternalKey("a", 1, kTypeValue));
  EXPECT_TRUE(Apply(deep_pointer).IsInvalidArgument());
}

TEST_F(VersionTest, OneEditCanMoveAFileDownALevel) {
  ASSERT_OK(Add(1, MakeFile(5, "a", "c", 1, 2)));
  VersionEdit move;
  move.DeleteFile(1, 5);
  move.AddFile(2, MakeFile(5, "a", "c", 1, 2));
  ASSERT_OK(Apply(move));
  EXPECT_TRUE(Numbers(1).empty());
  EXPECT_EQ(Numbers(2), std::vector<uint64_t>{5});
}

TEST_F(VersionTest, OverlapInLevel) {
  ASSERT_OK(Add(0, MakeFile(1, "f", "h", 1, 2)));
  VersionEdit e;
  e.AddFile(1, MakeFile(2, "b", "d", 1, 2));
  e.AddFile(1, MakeFile(3, "m", "p", 1, 2));
  ASSERT_OK(Apply(e));
  EXPECT_TRUE(current_->OverlapInLevel(0, "a", "f"));
  EXPECT_TRUE(current_->OverlapInLevel(0, "g", "g"));
  EXPECT_FALSE(current_->OverlapInLevel(0, "i", "z"));
  EXPECT_TRUE(current_->OverlapInLevel(1, "d", "e"));
  EXPECT_FALSE(current_->OverlapInLevel(1, "e", "l"));
  EXPECT_TRUE(current_->OverlapInLevel(1, "e", "m"));
  EXPECT_FALSE(current_->OverlapInLevel(1, "q", "z"));
  EXPECT_FALSE(current_->OverlapInLevel(1, std::nullopt, "a"));
  EXPECT_TRUE(current_->OverlapInLevel(1, std::nullopt, "b"));
  EXPECT_TRUE(current_->OverlapInLevel(1, "p", std::nullopt));
  EXPECT_TRUE(current_->OverlapInLevel(1, std::nullopt, std::nullopt));
  EXPECT_FALSE(current_->OverlapInLevel(2, std::nullopt, std::nullopt));
}

TEST_F(VersionTest, GetOverlappingInputsWidensTheRangeInL0) {
  ASSERT_OK(Add(0, MakeFile(1, "a", "c", 1, 2)));
  ASSERT_OK(Add(0, MakeFile(2, "c", "f", 3, 4)));
  ASSERT_OK(Add(0, MakeFile(3, "e", "g", 5, 6)));
  ASSERT_OK(Add(0, MakeFile(4, "x", "z", 7, 8)));
  std::vector<FileMetaData*> inputs;
  const std::string b = MakeInternalKey("a", kMaxSequenceNumber, kValueTypeForSeek);
  const std::string e = MakeInternalKey("b", 0, kTypeValue);
  current_->GetOverlappingInputs(0, b, e, &inputs);
  // [a, b] takes #1 (a..c), which reaches #2 (c..f), which reaches #3 (e..g).
  std::set<uint64_t> got;
  for (FileMetaData* f : inputs) got.insert(f->number);
  EXPECT_EQ(got, (std::set<uint64_t>{1, 2, 3}));
  current_->GetOverlappingInputs(0, std::nullopt, std::nullopt, &inputs);
  EXPECT_EQ(inputs.size(), 4u);
}

// FindFile and GetOverlappingInputs in a sorted level against brute force.
TEST_F(VersionTest, LowerLevelQueriesMatchBruteForce) {
  Random rnd(77);
  VersionEdit e;
  uint64_t key = 0;
  for (uint64_t n = 1; n <= 200; ++n) {
    const uint64_t lo = key + rnd.Uniform(3);
    const uint64_t hi = lo + rnd.Uniform(5);
    e.AddFile(1, MakeFile(n, UserKey(lo), UserKey(hi), n, n));
    key = hi + 1;
  }
  ASSERT_OK(Apply(e));
  const auto& files = current_->files(1);
  for (int i = 0; i < 500; ++i) {
    const uint64_t a = rnd.Uniform(key + 10);
    const uint64_t b = a + rnd.Uniform(20);
    const std::string ia = MakeInternalKey(UserKey(a), kMaxSequenceNumber, kValueTypeForSeek);
    const std::string ib = MakeInternalKey(UserKey(b), 0, kTypeValue);
    size_t want_index = files.size();
    std::vector<FileMetaData*> want;
    for (size_t j = 0; j < files.size(); ++j) {
      if (want_index == files.size() && icmp_.Compare(files[j]->largest, ia) >= 0) want_index = j;
      if (ExtractUserKey(files[j]->largest) >= UserKey(a) &&
          ExtractUserKey(files[j]->smallest) <= UserKey(b)) {
        want.push_back(files[j]);
      }
    }
    ASSERT_EQ(FindFile(icmp_, VersionLevelFiles(&files), ia), want_index);
    std::vector<FileMetaData*> got;
    current_->GetOverlappingInputs(1, ia, ib, &got);
    ASSERT_EQ(got, want) << a << ".." << b;
    ASSERT_EQ(current_->OverlapInLevel(1, UserKey(a), UserKey(b)), !want.empty());
  }
}

TEST_F(VersionTest, PickLevelForMemTableOutput) {
  // Empty tree: sorted input goes straight to the bottom.
  EXPECT_EQ(current_->PickLevelForMemTableOutput("a", "b"), kLevels - 1);
  EXPECT_EQ(current_->PickLevelForMemTableOutput("a", "b", /*allow_lower_levels=*/false), 0);
  ASSERT_OK(Add(0, MakeFile(1, "m", "n", 1, 2)));
  ASSERT_OK(Add(1, MakeFile(2, "e", "f", 1, 2)));
  ASSERT_OK(Add(3, MakeFile(3, "h", "j", 1, 2)));
  EXPECT_EQ(current_->PickLevelForMemTableOutput("m", "m"), 0);  // overlaps L0
  EXPECT_EQ(current_->PickLevelForMemTableOutput("a", "e"), 0);  // overlaps L1: above it
  EXPECT_EQ(current_->PickLevelForMemTableOutput("i", "k"), 2);  // overlaps L3 only
  EXPECT_EQ(current_->PickLevelForMemTableOutput("x", "z"), kLevels - 1);  // overlaps nothing
  EXPECT_EQ(current_->PickLevelForMemTableOutput("x", "z", false), 0);
  EXPECT_EQ(current_->PickLevelForMemTableOutput("g", "g"), kLevels - 1);  // between files
}

TEST_F(VersionTest, OldVersionKeepsItsFilesAlive) {
  ASSERT_OK(Add(1, MakeFile(5, "a", "c", 1, 2)));
  Version* old = current_;
  old->Ref();
  FileMetaData* f = old->files(1)[0];
  EXPECT_EQ(f->refs, 1);
  ASSERT_OK(Add(0, MakeFile(6, "a", "c", 3, 4)));
  EXPECT_EQ(f->refs, 2);  // shared, not copied, by the new version
  EXPECT_EQ(current_->files(1)[0], f);
  VersionEdit del;
  del.DeleteFile(1, 5);
  ASSERT_OK(Apply(del));
  EXPECT_EQ(f->refs, 1);  // only the old version lists it now
  EXPECT_EQ(f->number, 5u);
  old->Unref();  // frees it (checked by the sanitizer builds)
  EXPECT_EQ(current_->NumFiles(1), 0);
}

TEST_F(VersionTest, DebugStringListsLevels) {
  ASSERT_OK(Add(2, MakeFile(5, "a", "c", 1, 2)));
  const std::string s = current_->DebugString();
  EXPECT_NE(s.find("--- level 2 ---\n #5 size=1000"), std::string::npos) << s;
}

}  // namespace
}  // namespace shale::test
