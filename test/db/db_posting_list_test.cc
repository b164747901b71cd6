// A posting list of a million ids built one id per Merge (sortedset64) reads back exactly:
// the ids arrive in random order through small memtables, so the list's operands are flushed,
// partially merged, compacted into the value and patched many times; some ids are removed
// again. Checked with Get (and SortedSet64Decode / Contains), with an iterator, at a snapshot
// taken half way, and after a reopen. Under sanitizers the list is 100k ids (same paths).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "shale/sorted_set64.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr uint64_t kIds = 100000;
#else
constexpr uint64_t kIds = 1000000;
#endif

class PostingListTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.merge_operator = NewSortedSet64Operator();
    options_.write_buffer_size = 1 << 20;  // many flushes: operands meet values in tables
    options_.target_file_size_base = 1 << 20;
    options_.max_successive_merges = GetParam();
    ASSERT_OK(DB::Open(options_, "/posting", &db_));
  }

  std::vector<uint64_t> ReadList(const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    Status s = db_->Get(ro, "list", &value);
    EXPECT_OK(s);
    std::vector<uint64_t> ids;
    EXPECT_OK(SortedSet64Decode(value, &ids));
    return ids;
  }

  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_P(PostingListTest, MillionSingleIdMergesReadBackExactly) {
  std::mt19937_64 rnd(42);
  // Ids spread over the 64-bit space, added in random order.
  std::vector<uint64_t> ids(kIds);
  for (uint64_t& id : ids) id = rnd() >> 8;
  std::set<uint64_t> model;
  std::vector<uint64_t> half_state;
  const Snapshot* half = nullptr;
  WriteOptions wo;
  wo.disableWAL = true;  // the reopen below flushes first
  for (size_t i = 0; i < ids.size(); i++) {
    ASSERT_OK(db_->Merge(wo, "list", SortedSet64AddOperand({ids[i]})));
    model.insert(ids[i]);
    // Now and then remove an id added before (a single-id remove operand).
    if (i % 97 == 0 && i > 0) {
      const uint64_t gone = ids[rnd() % i];
      ASSERT_OK(db_->Merge(wo, "list", SortedSet64RemoveOperand({gone})));
      model.erase(gone);
    }
    if (i == ids.size() / 2) {
      half = db_->GetSnapshot();
      half_state.assign(model.begin(), model.end());
    }
  }
  const std::vector<uint64_t> want(model.begin(), model.end());
  EXPECT_EQ(ReadList(), want);
  EXPECT_EQ(ReadList(half), half_state);
  db_->ReleaseSnapshot(half);

  // Membership from the index, for ids in and out of the list.
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "list", &value));
  uint64_t count = 0;
  ASSERT_OK(SortedSet64Count(value, &count));
  EXPECT_EQ(count, want.size());
  for (int j = 0; j < 1000; j++) {
    const uint64_t probe = j % 2 == 0 ? ids[rnd() % ids.size()] : rnd() >> 8;
    bool found = false;
    ASSERT_OK(SortedSet64Contains(value, probe, &found));
    EXPECT_EQ(found, model.count(probe) == 1) << probe;
  }

  // The iterator sees the same value.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "list");
  EXPECT_EQ(it->value(), value);
  it.reset();

  // After a full compaction and a reopen: still exactly the model.
  CompactRangeOptions co;
  co.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(co, nullptr, nullptr));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Close());
  db_.reset();
  ASSERT_OK(DB::Open(options_, "/posting", &db_));
  EXPECT_EQ(ReadList(), want);
}

// 0: operands pile up in the memtable until a flush; 10000: every 10000th operand in a
// memtable is merged into a value at write time (a rewrite of the whole list, up to ~7 MB).
INSTANTIATE_TEST_SUITE_P(MaxSuccessiveMerges, PostingListTest, ::testing::Values(0, 10000));

}  // namespace
}  // namespace shale
