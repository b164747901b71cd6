#include "memtable/memtable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

struct Unreffer {
  void operator()(MemTable* m) const { m->Unref(); }
};
using MemTablePtr = std::unique_ptr<MemTable, Unreffer>;

MemTablePtr NewMemTable(const InternalKeyComparator& cmp, MemTable::Options options = {}) {
  auto* mem = new MemTable(cmp, options);
  mem->Ref();
  return MemTablePtr(mem);
}

// What Get() answered, in one comparable value.
struct Answer {
  bool found = false;
  Status::Code code = Status::Code::kOk;
  std::string value;
  SequenceNumber seq = 0;
  bool operator==(const Answer&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Answer& a) {
  if (!a.found) return os << "{not in memtable}";
  return os << "{code " << static_cast<int>(a.code) << ", value '" << a.value << "', seq "
            << a.seq << "}";
}

Answer Lookup(const MemTable& mem, std::string_view user_key, SequenceNumber snapshot) {
  LookupKey lkey(user_key, snapshot);
  Answer a;
  Status s;
  a.found = mem.Get(lkey, &a.value, &s, &a.seq);
  if (!a.found) {
    a.value.clear();
    a.seq = 0;
  } else {
    a.code = s.code();
    if (!s.ok() && !s.IsMergeInProgress()) a.value.clear();
  }
  return a;
}

class MemTableTest : public testing::Test {
 protected:
  InternalKeyComparator cmp_{BytewiseComparator()};
};

TEST_F(MemTableTest, GetSeesTheNewestVisibleEntry) {
  MemTablePtr mem = NewMemTable(cmp_);
  mem->Add(10, kTypeValue, "k", "v10");
  mem->Add(20, kTypeDeletion, "k", "");
  mem->Add(30, kTypeValue, "k", "v30");
  mem->Add(40, kTypeMerge, "k", "operand40");
  mem->Add(50, kTypeSingleDeletion, "k", "");

  EXPECT_EQ(Lookup(*mem, "k", 9), Answer{});
  EXPECT_EQ(Lookup(*mem, "k", 10), (Answer{true, Status::Code::kOk, "v10", 10}));
  EXPECT_EQ(Lookup(*mem, "k", 19), (Answer{true, Status::Code::kOk, "v10", 10}));
  EXPECT_EQ(Lookup(*mem, "k", 25), (Answer{true, Status::Code::kNotFound, "", 20}));
  EXPECT_EQ(Lookup(*mem, "k", 30), (Answer{true, Status::Code::kOk, "v30", 30}));
  EXPECT_EQ(Lookup(*mem, "k", 45),
            (Answer{true, Status::Code::kMergeInProgress, "operand40", 40}));
  EXPECT_EQ(Lookup(*mem, "k", kMaxSequenceNumber),
            (Answer{true, Status::Code::kNotFound, "", 50}));
  // Neighbouring keys are not confused with "k".
  EXPECT_EQ(Lookup(*mem, "j", kMaxSequenceNumber), Answer{});
  EXPECT_EQ(Lookup(*mem, std::string_view("k\0", 2), kMaxSequenceNumber), Answer{});
  EXPECT_EQ(Lookup(*mem, "kk", kMaxSequenceNumber), Answer{});
}

TEST_F(MemTableTest, GetLeavesValueUntouchedOnDeletion) {
  MemTablePtr mem = NewMemTable(cmp_);
  mem->Add(1, kTypeDeletion, "a", "");
  std::string value = "unchanged";
  Status s;
  SequenceNumber seq = 0;
  ASSERT_TRUE(mem->Get(LookupKey("a", 5), &value, &s, &seq));
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(value, "unchanged");
  EXPECT_EQ(seq, 1u);
}

TEST_F(MemTableTest, EmptyAndLargeKeysAndValues) {
  MemTablePtr mem = NewMemTable(cmp_, {.arena_block_size = 4096});
  const std::string big_key(10000, 'k');
  const std::string big_value(3 << 20, 'v');
  mem->Add(1, kTypeValue, "", "");
  mem->Add(2, kTypeValue, big_key, big_value);
  mem->Add(3, kTypeValue, "x", big_value);
  EXPECT_EQ(Lookup(*mem, "", 5), (Answer{true, Status::Code::kOk, "", 1}));
  EXPECT_EQ(Lookup(*mem, big_key, 5), (Answer{true, Status::Code::kOk, big_value, 2}));
  EXPECT_EQ(Lookup(*mem, "x", 5), (Answer{true, Status::Code::kOk, big_value, 3}));
  EXPECT_GE(mem->ApproximateMemoryUsage(), 2 * big_value.size() + big_key.size());
}

TEST_F(MemTableTest, RangeDeletionHidesOlderEntriesOnly) {
  MemTablePtr mem = NewMemTable(cmp_);
  mem->Add(10, kTypeValue, "b", "b10");
  mem->Add(11, kTypeValue, "d", "d11");
  mem->Add(20, kTypeRangeDeletion, "a", "d");  // [a, d)
  mem->Add(30, kTypeValue, "c", "c30");

  EXPECT_EQ(Lookup(*mem, "b", 15), (Answer{true, Status::Code::kOk, "b10", 10}));
  EXPECT_EQ(Lookup(*mem, "b", 20), (Answer{true, Status::Code::kNotFound, "", 20}));
  // A key the memtable never saw, covered by the tombstone: decided here (older data hidden).
  EXPECT_EQ(Lookup(*mem, "a", 25), (Answer{true, Status::Code::kNotFound, "", 20}));
  EXPECT_EQ(Lookup(*mem, "a", 19), Answer{});
  // Newer than the tombstone: visible.
  EXPECT_EQ(Lookup(*mem, "c", 30), (Answer{true, Status::Code::kOk, "c30", 30}));
  EXPECT_EQ(Lookup(*mem, "c", 29), (Answer{true, Status::Code::kNotFound, "", 20}));
  // The end is exclusive.
  EXPECT_EQ(Lookup(*mem, "d", 100), (Answer{true, Status::Code::kOk, "d11", 11}));
  EXPECT_EQ(Lookup(*mem, "e", 100), Answer{});

  EXPECT_EQ(mem->num_entries(), 4u);
  EXPECT_EQ(mem->num_range_deletes(), 1u);
  EXPECT_EQ(mem->num_deletes(), 0u);

  auto it = mem->NewRangeTombstoneIterator();
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), MakeInternalKey("a", 20, kTypeRangeDeletion));
  EXPECT_EQ(it->value(), "d");
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
  // The point iterator does not show tombstones.
  auto points = mem->NewIterator();
  int n = 0;
  for (points->SeekToFirst(); points->Valid(); points->Next()) {
    EXPECT_NE(ExtractValueType(points->key()), kTypeRangeDeletion);
    n++;
  }
  EXPECT_EQ(n, 3);
}

TEST_F(MemTableTest, RangeTombstoneIteratorIsEmptyWithoutTombstones) {
  MemTablePtr mem = NewMemTable(cmp_);
  mem->Add(1, kTypeValue, "a", "1");
  auto it = mem->NewRangeTombstoneIterator();
  ASSERT_NE(it, nullptr);
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
}

TEST_F(MemTableTest, CountersAndSequences) {
  MemTablePtr empty = NewMemTable(cmp_);
  EXPECT_EQ(empty->num_entries(), 0u);
  EXPECT_EQ(empty->first_sequence(), 0u);
  EXPECT_EQ(empty->earliest_sequence(), kMaxSequenceNumber);
  EXPECT_TRUE(empty->IsSortedInsertOnly());

  MemTablePtr mem = NewMemTable(cmp_);
  mem->Add(7, kTypeValue, "a", "1");
  mem->Add(8, kTypeDeletion, "b", "");
  mem->Add(9, kTypeSingleDeletion, "c", "");
  mem->Add(10, kTypeMerge, "d", "m");
  mem->Add(11, kTypeRangeDeletion, "e", "f");
  EXPECT_EQ(mem->num_entries(), 5u);
  EXPECT_EQ(mem->num_deletes(), 2u);
  EXPECT_EQ(mem->num_range_deletes(), 1u);
  EXPECT_EQ(mem->first_sequence(), 7u);
  EXPECT_EQ(mem->earliest_sequence(), 7u);

  MemTablePtr with_bound = NewMemTable(cmp_, {.earliest_sequence = 5});
  with_bound->Add(7, kTypeValue, "a", "1");
  EXPECT_EQ(with_bound->earliest_sequence(), 5u);
  EXPECT_EQ(with_bound->first_sequence(), 7u);
}

// CountSuccessiveMerges: tracked (O(1)) and walked counts agree on random histories, except
// that a range deletion restarts the tracked counts (documented: it only delays the bound).
TEST_F(MemTableTest, SuccessiveMergeCounts) {
  std::mt19937 rnd(11);
  for (int round = 0; round < 20; round++) {
    MemTablePtr tracked = NewMemTable(cmp_, {.track_successive_merges = true});
    MemTablePtr walked = NewMemTable(cmp_);
    std::map<std::string, size_t> model;  // merges on top of each key since its last non-merge
    SequenceNumber seq = 1;
    bool range_deleted = false;
    for (int i = 0; i < 300; i++) {
      const std::string key = absl::StrFormat("k%u", rnd() % 8);
      const uint32_t r = rnd() % 10;
      const ValueType type = r < 6 ? kTypeMerge : r < 8 ? kTypeValue : kTypeDeletion;
      for (MemTable* m : {tracked.get(), walked.get()}) m->Add(seq, type, key, "x");
      seq++;
      model[key] = type == kTypeMerge ? model[key] + 1 : 0;
      if (round % 2 == 1 && i == 150) {
        for (MemTable* m : {tracked.get(), walked.get()}) m->Add(seq, kTypeRangeDeletion, "k", "l");
        seq++;
        range_deleted = true;
        for (auto& [k, n] : model) n = 0;  // the tracked counts restart
      }
      for (const auto& [k, n] : model) {
        EXPECT_EQ(tracked->CountSuccessiveMerges(k, 1000), n) << k;
        EXPECT_EQ(tracked->CountSuccessiveMerges(k, 2), std::min<size_t>(n, 2)) << k;
        if (!range_deleted) {
          EXPECT_EQ(walked->CountSuccessiveMerges(k, 1000), n) << k;
          EXPECT_EQ(walked->CountSuccessiveMerges(k, 3), std::min<size_t>(n, 3)) << k;
        }
      }
      if (HasFailure()) return;
    }
    // The tracking is counted as memory.
    EXPECT_GT(tracked->ApproximateMemoryUsage(), walked->ApproximateMemoryUsage());
  }
}

TEST_F(MemTableTest, SortedInsertOnly) {
  MemTablePtr mem = NewMemTable(cmp_);
  for (int i = 0; i < 1000; i++) {
    mem->Add(i + 1, kTypeValue, absl::StrFormat("key%06d", i), "v");
  }
  EXPECT_TRUE(mem->IsSortedInsertOnly());
  // Range deletions live apart and do not count, wherever they start.
  mem->Add(1500, kTypeRangeDeletion, "a", "z");
  EXPECT_TRUE(mem->IsSortedInsertOnly());
  mem->Add(1501, kTypeValue, "key001000", "v");
  EXPECT_TRUE(mem->IsSortedInsertOnly());
  // A newer version of an existing key sorts before the older one: not an append.
  mem->Add(2000, kTypeValue, "key000999", "v2");
  EXPECT_FALSE(mem->IsSortedInsertOnly());

  MemTablePtr unsorted = NewMemTable(cmp_);
  unsorted->Add(1, kTypeValue, "b", "v");
  unsorted->Add(2, kTypeValue, "a", "v");
  EXPECT_FALSE(unsorted->IsSortedInsertOnly());
}

TEST_F(MemTableTest, MemoryIsCountedAndFreedWithTheLastReference) {
  MemtableAllocator* allocator = MemtableAllocator::Get();
  const size_t before = allocator->allocated_bytes();
  auto* mem = new MemTable(cmp_, {.arena_block_size = 64 * 1024});
  mem->Ref();
  for (int i = 0; i < 5000; i++) {
    mem->Add(i + 1, kTypeValue, absl::StrFormat("key%06d", i), std::string(100, 'v'));
  }
  const size_t usage = mem->ApproximateMemoryUsage();
  EXPECT_GE(usage, 5000u * 100);
  EXPECT_EQ(usage % (64 * 1024), 0u);
  EXPECT_EQ(allocator->allocated_bytes() - before, usage);

  mem->Ref();  // a second holder
  mem->Unref();
  EXPECT_EQ(allocator->allocated_bytes() - before, usage) << "freed with a reference left";
  EXPECT_EQ(Lookup(*mem, "key000042", 100).value, std::string(100, 'v'));
  mem->Unref();
  EXPECT_EQ(allocator->allocated_bytes(), before);
}

// Entries of the model, in the memtable's order.
struct ModelEntry {
  std::string ikey;
  std::string value;
};

// Random writes (all types, many versions per key, range deletions), then Get at random
// snapshots and every iterator operation, against a plain model.
TEST_F(MemTableTest, RandomizedAgainstModel) {
  std::mt19937_64 rng(2024);
  MemTablePtr mem = NewMemTable(cmp_, {.arena_block_size = 4096});
  struct Tombstone {
    std::string start, end;
    SequenceNumber seq;
  };
  std::map<std::string, std::map<SequenceNumber, std::pair<ValueType, std::string>>> points;
  std::vector<Tombstone> tombstones;
  std::vector<ModelEntry> entries;
  auto user_key = [](int k) { return absl::StrFormat("key%03d", k); };

  constexpr SequenceNumber kOps = 4000;
  for (SequenceNumber seq = 1; seq <= kOps; seq++) {
    const std::string key = user_key(static_cast<int>(rng() % 40));
    const int dice = static_cast<int>(rng() % 100);
    if (dice < 3) {
      std::string end = user_key(static_cast<int>(rng() % 42));
      if (end <= key) continue;  // an empty range; skip the sequence
      mem->Add(seq, kTypeRangeDeletion, key, end);
      tombstones.push_back({key, end, seq});
      continue;
    }
    ValueType type = dice < 55   ? kTypeValue
                     : dice < 70 ? kTypeDeletion
                     : dice < 80 ? kTypeSingleDeletion
                                 : kTypeMerge;
    std::string value =
        (type == kTypeValue || type == kTypeMerge) ? absl::StrFormat("v%d", seq) : "";
    mem->Add(seq, type, key, value);
    points[key][seq] = {type, value};
    entries.push_back({MakeInternalKey(key, seq, type), value});
  }

  // Get at random snapshots, including keys never written (key040..key044).
  for (int i = 0; i < 20000; i++) {
    const std::string key = user_key(static_cast<int>(rng() % 45));
    const SequenceNumber snapshot = rng() % (kOps + 10);
    SequenceNumber covering = 0;
    for (const Tombstone& t : tombstones) {
      if (t.seq <= snapshot && t.start <= key && key < t.end) covering = std::max(covering, t.seq);
    }
    Answer expected;
    auto versions = points.find(key);
    const std::pair<ValueType, std::string>* newest = nullptr;
    SequenceNumber newest_seq = 0;
    if (versions != points.end()) {
      auto it = versions->second.upper_bound(snapshot);
      if (it != versions->second.begin()) {
        --it;
        newest = &it->second;
        newest_seq = it->first;
      }
    }
    if (newest != nullptr && newest_seq >= covering) {
      expected.found = true;
      expected.seq = newest_seq;
      switch (newest->first) {
        case kTypeValue:
          expected.value = newest->second;
          break;
        case kTypeMerge:
          expected.code = Status::Code::kMergeInProgress;
          expected.value = newest->second;
          break;
        default:
          expected.code = Status::Code::kNotFound;
      }
    } else if (covering > 0) {
      expected = Answer{true, Status::Code::kNotFound, "", covering};
    }
    ASSERT_EQ(Lookup(*mem, key, snapshot), expected) << key << " @ " << snapshot;
  }

  // Iterators.
  auto less = [&](const ModelEntry& a, const ModelEntry& b) {
    return cmp_.Compare(a.ikey, b.ikey) < 0;
  };
  std::sort(entries.begin(), entries.end(), less);
  auto iter = mem->NewIterator();
  size_t n = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), n++) {
    ASSERT_LT(n, entries.size());
    ASSERT_EQ(iter->key(), entries[n].ikey);
    ASSERT_EQ(iter->value(), entries[n].value);
  }
  ASSERT_EQ(n, entries.size());
  EXPECT_OK(iter->status());
  n = entries.size();
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    ASSERT_GT(n, 0u);
    ASSERT_EQ(iter->key(), entries[--n].ikey);
  }
  ASSERT_EQ(n, 0u);

  for (int i = 0; i < 2000; i++) {
    ModelEntry target{MakeInternalKey(user_key(static_cast<int>(rng() % 42)), rng() % (kOps + 10),
                                      (rng() % 2) ? kValueTypeForSeek : kTypeValue),
                      ""};
    auto lb = std::lower_bound(entries.begin(), entries.end(), target, less);
    iter->Seek(target.ikey);
    ASSERT_EQ(iter->Valid(), lb != entries.end());
    if (iter->Valid()) {
      ASSERT_EQ(iter->key(), lb->ikey);
      iter->Prev();
      ASSERT_EQ(iter->Valid(), lb != entries.begin());
      if (iter->Valid()) {
        ASSERT_EQ(iter->key(), std::prev(lb)->ikey);
      }
    }
    auto ub = std::upper_bound(entries.begin(), entries.end(), target, less);
    iter->SeekForPrev(target.ikey);
    ASSERT_EQ(iter->Valid(), ub != entries.begin());
    if (iter->Valid()) {
      ASSERT_EQ(iter->key(), std::prev(ub)->ikey);
      iter->Next();
      ASSERT_EQ(iter->Valid(), ub != entries.end());
      if (iter->Valid()) {
        ASSERT_EQ(iter->key(), ub->ikey);
      }
    }
  }
  // SeekForPrev on an exact key lands on it.
  iter->SeekForPrev(entries[entries.size() / 2].ikey);
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ(iter->key(), entries[entries.size() / 2].ikey);

  // The tombstone iterator: sorted by start, newest first.
  std::vector<ModelEntry> expected_tombstones;
  for (const Tombstone& t : tombstones) {
    expected_tombstones.push_back({MakeInternalKey(t.start, t.seq, kTypeRangeDeletion), t.end});
  }
  std::sort(expected_tombstones.begin(), expected_tombstones.end(), less);
  auto tomb_iter = mem->NewRangeTombstoneIterator();
  n = 0;
  for (tomb_iter->SeekToFirst(); tomb_iter->Valid(); tomb_iter->Next(), n++) {
    ASSERT_LT(n, expected_tombstones.size());
    ASSERT_EQ(tomb_iter->key(), expected_tombstones[n].ikey);
    ASSERT_EQ(tomb_iter->value(), expected_tombstones[n].value);
  }
  EXPECT_EQ(n, expected_tombstones.size());
  EXPECT_GT(n, 10u);

  EXPECT_EQ(mem->num_entries(), entries.size() + tombstones.size());
  EXPECT_EQ(mem->num_range_deletes(), tombstones.size());
  EXPECT_FALSE(mem->IsSortedInsertOnly());
}

}  // namespace
}  // namespace shale
