// The "sortedset64" operator and its formats (shale/sorted_set64.h): the byte layout against
// a reference encoder written from the header's specification, a std::set model over random
// add/remove histories (values stay canonical: the same set always has the same bytes), the
// merge laws, a 1M-id value, and corrupt or truncated inputs failing cleanly.
#include "shale/sorted_set64.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merge_operators/merge_laws.h"
#include "shale/merge_operator.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
using Ids = std::vector<uint64_t>;

// ---------------------------------------------------------------- The reference encoder

bool IsBoundary(uint64_t id, int interval) {
  uint64_t z = id + 0x9E3779B97F4A7C15ull;
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ull;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z < kMax / static_cast<uint64_t>(interval);
}

// The value for the ascending `ids`, written straight from the format in sorted_set64.h.
std::string ReferenceValue(const Ids& ids, int interval) {
  std::vector<Ids> blocks;
  for (uint64_t id : ids) {
    if (blocks.empty() || blocks.back().size() == 8u * static_cast<size_t>(interval) ||
        IsBoundary(id, interval)) {
      blocks.emplace_back();
    }
    blocks.back().push_back(id);
  }
  std::string value(1, '\x01'), data;
  PutVarint32(&value, static_cast<uint32_t>(interval));
  PutVarint64(&value, ids.size());
  PutVarint64(&value, blocks.size());
  for (const Ids& block : blocks) {
    PutFixed64(&value, block[0]);
    PutFixed32(&value, static_cast<uint32_t>(data.size()));
    PutFixed32(&value, static_cast<uint32_t>(block.size()));
    for (size_t i = 1; i < block.size(); i++) PutVarint64(&data, block[i] - block[i - 1]);
  }
  return value + data;
}

Ids ToIds(const std::set<uint64_t>& s) { return Ids(s.begin(), s.end()); }

std::string MakeValue(Ids ids, int interval = kSortedSet64DefaultIndexInterval) {
  std::string value;
  EXPECT_OK(SortedSet64Value(std::move(ids), interval, &value));
  return value;
}

std::string MakeOperand(Ids adds, Ids removes) {
  std::string operand;
  EXPECT_OK(SortedSet64Operand(std::move(adds), std::move(removes), &operand));
  return operand;
}

Ids Decode(std::string_view value) {
  Ids ids;
  EXPECT_OK(SortedSet64Decode(value, &ids));
  return ids;
}

// ---------------------------------------------------------------- Formats

TEST(SortedSet64Test, ValueLayoutMatchesTheSpecification) {
  Random rnd(21);
  for (int interval : {8, 13, 128, 1000}) {
    for (int iter = 0; iter < 20; iter++) {
      std::set<uint64_t> s;
      const size_t n = rnd.Uniform(3000);
      const uint64_t range = rnd.OneIn(2) ? 4 * n + 10 : kMax;
      while (s.size() < n) s.insert(rnd.Uniform(range));
      if (rnd.OneIn(4)) s.insert(kMax);
      if (rnd.OneIn(4)) s.insert(0);
      const std::string value = MakeValue(ToIds(s), interval);
      ASSERT_EQ(value, ReferenceValue(ToIds(s), interval)) << interval;
      EXPECT_EQ(Decode(value), ToIds(s));
      uint64_t count = 0;
      ASSERT_OK(SortedSet64Count(value, &count));
      EXPECT_EQ(count, s.size());
    }
  }
}

TEST(SortedSet64Test, EmptySetAndEdgeIds) {
  const std::string empty = MakeValue({});
  EXPECT_EQ(empty, std::string("\x01\x80\x01\x00\x00", 5));
  EXPECT_TRUE(Decode(empty).empty());
  bool found = true;
  ASSERT_OK(SortedSet64Contains(empty, 0, &found));
  EXPECT_FALSE(found);

  const std::string edges = MakeValue({kMax, 0, 1, kMax - 1, 0});  // any order, duplicates
  EXPECT_EQ(Decode(edges), (Ids{0, 1, kMax - 1, kMax}));
  for (uint64_t id : {uint64_t{0}, uint64_t{1}, kMax - 1, kMax}) {
    ASSERT_OK(SortedSet64Contains(edges, id, &found));
    EXPECT_TRUE(found) << id;
  }
  for (uint64_t id : {uint64_t{2}, kMax - 2}) {
    ASSERT_OK(SortedSet64Contains(edges, id, &found));
    EXPECT_FALSE(found) << id;
  }
}

TEST(SortedSet64Test, OperandLayoutAndBuilders) {
  // Adds {3, 5}, removes {4}: tag, counts, then first id and differences per list.
  EXPECT_EQ(MakeOperand({5, 3, 5}, {4}), std::string("\x02\x02\x01\x03\x02\x04", 6));
  EXPECT_EQ(SortedSet64AddOperand({9, 1, 9}), std::string("\x02\x02\x00\x01\x08", 5));
  EXPECT_EQ(SortedSet64RemoveOperand({}), std::string("\x02\x00\x00", 3));
  Ids adds, removes;
  ASSERT_OK(SortedSet64DecodeOperand(MakeOperand({kMax, 0}, {7, 2}), &adds, &removes));
  EXPECT_EQ(adds, (Ids{0, kMax}));
  EXPECT_EQ(removes, (Ids{2, 7}));

  std::string operand;
  Status s = SortedSet64Operand({1, 2, 3}, {5, 3}, &operand);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("id 3 both added and removed"), std::string::npos) << s.ToString();
  std::string value;
  for (int bad : {0, 7, 65537, -1}) {
    s = SortedSet64Value({1}, bad, &value);
    ASSERT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("index_interval"), std::string::npos) << s.ToString();
  }
}

// ---------------------------------------------------------------- The operator

std::shared_ptr<MergeOperator> Op(int interval = kSortedSet64DefaultIndexInterval) {
  return NewSortedSet64Operator(interval);
}

std::string Merged(const MergeOperator& op, const std::optional<std::string>& value,
                   const std::vector<std::string>& operands) {
  std::string out;
  EXPECT_OK(FullMergeStrings(op, value, operands, &out));
  return out;
}

TEST(SortedSet64OperatorTest, Identity) {
  EXPECT_STREQ(Op()->Name(), "sortedset64");
  EXPECT_EQ(Op()->GetId(), "sortedset64");
  EXPECT_EQ(Op(8)->GetId(), "sortedset64:8");
  EXPECT_EQ(Op(3)->GetId(), "sortedset64:8");  // clamped into range
  EXPECT_EQ(Op(1 << 20)->GetId(), "sortedset64:65536");
  EXPECT_FALSE(Op()->AllowSingleOperand());
}

TEST(SortedSet64OperatorTest, LaterOperandsWinPerId) {
  auto op = Op();
  const std::string add5 = SortedSet64AddOperand({5});
  const std::string remove5 = SortedSet64RemoveOperand({5});
  EXPECT_EQ(Decode(Merged(*op, std::nullopt, {add5, remove5})), Ids{});
  EXPECT_EQ(Decode(Merged(*op, std::nullopt, {remove5, add5})), Ids{5});
  EXPECT_EQ(Decode(Merged(*op, MakeValue({1, 5}), {add5, remove5, add5, remove5})), Ids{1});
  // With no value, removes of absent ids leave an empty set: a valid value.
  EXPECT_EQ(Merged(*op, std::nullopt, {remove5}), MakeValue({}));
  std::string combined;
  ASSERT_TRUE(op->PartialMerge("k", add5, remove5, &combined));
  EXPECT_EQ(combined, remove5);
  ASSERT_TRUE(op->PartialMergeMulti("k", {remove5, add5, SortedSet64AddOperand({1})}, &combined));
  EXPECT_EQ(combined, SortedSet64AddOperand({1, 5}));
}

TEST(SortedSet64OperatorTest, IndexIntervalOfNewAndPatchedValues) {
  const std::string add = SortedSet64AddOperand({1, 2, 3});
  // A new value takes the operator's interval...
  EXPECT_EQ(Merged(*Op(8), std::nullopt, {add}), MakeValue({1, 2, 3}, 8));
  // ...a patched one keeps its own.
  EXPECT_EQ(Merged(*Op(8), MakeValue({7}, 1000), {add}), MakeValue({1, 2, 3, 7}, 1000));
  EXPECT_EQ(Merged(*Op(8), MakeValue({}, 1000), {add}), MakeValue({1, 2, 3}, 1000));
}

TEST(SortedSet64OperatorTest, NoChangeGivesTheValueBack) {
  const std::string value = MakeValue({1, 2, 3, 1000});
  EXPECT_EQ(Merged(*Op(), value, {SortedSet64AddOperand({2, 1000}),
                                  SortedSet64RemoveOperand({4, 999})}),
            value);
  EXPECT_EQ(Merged(*Op(), value, {SortedSet64RemoveOperand({})}), value);
}

// One random operand over ids below `universe`: a few adds and removes, now and then many.
std::string RandomOperand(Random* rnd, uint64_t universe, std::set<uint64_t>* model) {
  std::set<uint64_t> adds, removes;
  const uint64_t n = rnd->OneIn(10) ? rnd->Uniform(400) : rnd->Uniform(12);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t id = rnd->OneIn(50) ? kMax - rnd->Uniform(3) : rnd->Uniform(universe);
    if (adds.count(id) != 0 || removes.count(id) != 0) continue;
    // Removes favour present ids, so that they change something.
    if (rnd->OneIn(2) && !model->empty() && rnd->OneIn(2)) {
      auto it = model->lower_bound(id);
      if (it != model->end() && adds.count(*it) == 0) {
        removes.insert(*it);
        continue;
      }
    }
    (rnd->OneIn(3) ? removes : adds).insert(id);
  }
  for (uint64_t id : adds) model->insert(id);
  for (uint64_t id : removes) model->erase(id);
  return MakeOperand(ToIds(adds), ToIds(removes));
}

// Partially merges random consecutive runs of `operands` (as a flush or compaction might).
void RandomPartialMerges(const MergeOperator& op, Random* rnd, std::vector<std::string>* ops) {
  while (ops->size() >= 2 && rnd->OneIn(2)) {
    const size_t begin = rnd->Uniform(ops->size() - 1);
    const size_t end = begin + 2 + rnd->Uniform(ops->size() - begin - 1);
    std::deque<std::string_view> run(ops->begin() + begin, ops->begin() + end);
    std::string combined;
    ASSERT_TRUE(TryPartialMerge(&op, "k", run, &combined));
    ops->erase(ops->begin() + begin + 1, ops->begin() + end);
    (*ops)[begin] = combined;
  }
}

// Random histories against a std::set: after every merge the value decodes to the model and
// has the canonical bytes; Contains and Count agree.
void RunModel(int op_interval, uint64_t seed) {
  auto op = Op(op_interval);
  Random rnd(seed);
  std::set<uint64_t> model;
  std::optional<std::string> value;
  int value_interval = op_interval;
  for (int step = 0; step < 250; step++) {
    const uint64_t universe = 10 + model.size() * 3 + rnd.Uniform(100);
    if (rnd.OneIn(60)) {  // Delete
      model.clear();
      value.reset();
      value_interval = op_interval;
    } else if (rnd.OneIn(60)) {  // Put with another interval
      value_interval = rnd.OneIn(2) ? 8 : 200;
      value = MakeValue(ToIds(model), value_interval);
    }
    std::vector<std::string> operands(1 + rnd.Uniform(4));
    for (std::string& o : operands) o = RandomOperand(&rnd, universe, &model);
    RandomPartialMerges(*op, &rnd, &operands);
    value = Merged(*op, value, operands);
    const Ids ids = ToIds(model);
    ASSERT_EQ(Decode(*value), ids) << "step " << step;
    ASSERT_EQ(*value, ReferenceValue(ids, value_interval)) << "step " << step;
    uint64_t count = 0;
    ASSERT_OK(SortedSet64Count(*value, &count));
    ASSERT_EQ(count, ids.size());
    for (int probe = 0; probe < 20; probe++) {
      const uint64_t id = probe % 2 == 0 && !ids.empty() ? ids[rnd.Uniform(ids.size())]
                                                        : rnd.Uniform(universe);
      bool found = false;
      ASSERT_OK(SortedSet64Contains(*value, id, &found));
      ASSERT_EQ(found, model.count(id) != 0) << id;
    }
  }
}

TEST(SortedSet64OperatorTest, ModelInterval8) { RunModel(8, 31); }
TEST(SortedSet64OperatorTest, ModelInterval128) { RunModel(128, 32); }

// Sets whose ids are mostly not boundaries: long segments, cut by the 8 * interval limit.
TEST(SortedSet64OperatorTest, LongSegmentsAreCutAtTheBlockLimit) {
  Random rnd(33);
  auto op = Op(8);
  Ids ids;
  for (uint64_t id = 0; ids.size() < 2000; id++) {
    if (!IsBoundary(id, 8) || rnd.OneIn(200)) ids.push_back(id);
  }
  std::string value = MakeValue(ids, 8);
  ASSERT_EQ(value, ReferenceValue(ids, 8));
  std::set<uint64_t> model(ids.begin(), ids.end());
  for (int step = 0; step < 100; step++) {
    std::vector<std::string> operands = {RandomOperand(&rnd, 2500, &model)};
    value = Merged(*op, value, operands);
    ASSERT_EQ(value, ReferenceValue(ToIds(model), 8)) << step;
  }
}

TEST(SortedSet64OperatorTest, MergeLawsOnRandomHistories) {
  Random rnd(34);
  for (int interval : {8, 128}) {
    auto op = Op(interval);
    int merged = 0;
    for (int iter = 0; iter < 150; iter++) {
      std::set<uint64_t> model;
      const uint64_t universe = 20 + rnd.Uniform(2000);
      std::optional<std::string> value;
      if (!rnd.OneIn(3)) {
        for (uint64_t i = rnd.Uniform(universe); i > 0; i--) model.insert(rnd.Uniform(universe));
        value = MakeValue(ToIds(model), interval);
      }
      std::vector<std::string> operands(1 + rnd.Uniform(6));
      for (std::string& o : operands) o = RandomOperand(&rnd, universe, &model);
      merged += CheckMergeLaws(*op, value, operands, 3, &rnd);
    }
    EXPECT_GT(merged, 100);
  }
}

// A 1M-id posting list: patches at the front, the back, segment starts and random places
// decode to the model and keep the canonical bytes.
TEST(SortedSet64OperatorTest, MillionIdValue) {
  Random rnd(35);
  Ids ids(1000000);
  uint64_t id = 1000;
  for (uint64_t& x : ids) x = (id += 1 + rnd.Uniform(6));
  std::set<uint64_t> model(ids.begin(), ids.end());
  std::string value = MakeValue(ids);
  ASSERT_EQ(Decode(value), ids);
  auto op = Op();
  auto check = [&](const std::vector<std::string>& operands, const char* what) {
    value = Merged(*op, value, operands);
    const Ids expected = ToIds(model);
    ASSERT_EQ(Decode(value), expected) << what;
    ASSERT_EQ(value, MakeValue(expected)) << what;
  };
  auto patch = [&](Ids adds, Ids removes) {
    for (uint64_t x : adds) model.insert(x);
    for (uint64_t x : removes) model.erase(x);
    return MakeOperand(std::move(adds), std::move(removes));
  };
  check({patch({5, 6}, {}), patch({kMax}, {})}, "front and back");
  check({patch({}, {5, ids[0], kMax})}, "remove the first and last ids");
  Ids starts;  // ids that start segments
  for (size_t i = 1; i < ids.size() && starts.size() < 5; i += 99991) {
    while (i < ids.size() && !IsBoundary(ids[i], 128)) i++;
    if (i < ids.size()) starts.push_back(ids[i]);
  }
  ASSERT_EQ(starts.size(), 5u);
  check({patch({}, starts)}, "remove segment starts");
  check({patch({starts[0], starts[1] + 1}, {starts[2] + 1})}, "add around them");
  for (int round = 0; round < 3; round++) {
    std::vector<std::string> operands;
    for (int i = 0; i < 3; i++) operands.push_back(RandomOperand(&rnd, id + 10, &model));
    check(operands, "random");
  }
  for (int probe = 0; probe < 1000; probe++) {
    const uint64_t x = rnd.Uniform(id + 10);
    bool found = false;
    ASSERT_OK(SortedSet64Contains(value, x, &found));
    ASSERT_EQ(found, model.count(x) != 0) << x;
  }
}

// ---------------------------------------------------------------- Corrupt input

// Decoding `value`, and merging it as the existing value with an operand that adds `touch`,
// must fail with a message containing `what`. (A merge decodes only the blocks its patch
// touches: damage elsewhere in the data, not in the header or index, is copied along.)
void ExpectValueRejected(const std::string& value, const std::string& what,
                         uint64_t touch = 1) {
  Ids ids;
  Status s = SortedSet64Decode(value, &ids);
  ASSERT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
  EXPECT_TRUE(ids.empty());
  std::string out;
  s = FullMergeStrings(*Op(), value, {SortedSet64AddOperand({touch})}, &out);
  ASSERT_TRUE(s.IsCorruption()) << what;
  EXPECT_NE(s.message().find("sortedset64 failed: existing value: sortedset64 value: "),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
}

// The small value used by the corruption tests: at interval 8, where 3 is the first boundary
// id, two blocks [0, 1, 2] and [3, ..., 8, 300]; header 4 bytes, index 32, data 2 + 7.
std::string SmallValue() { return MakeValue({0, 1, 2, 3, 4, 5, 6, 7, 8, 300}, 8); }

TEST(SortedSet64CorruptionTest, TargetedValueDamage) {
  const std::string good = SmallValue();
  ASSERT_EQ(good, ReferenceValue({0, 1, 2, 3, 4, 5, 6, 7, 8, 300}, 8));
  ASSERT_EQ(good.size(), 4u + 32u + 9u) << "the offsets below assume this layout";
  ExpectValueRejected("", "empty");
  ExpectValueRejected(SortedSet64AddOperand({1}), "an operand's, not a value's");
  std::string v = good;
  v[0] = 7;
  ExpectValueRejected(v, "unknown format byte 7");
  v = good;
  v[1] = 7;  // index_interval
  ExpectValueRejected(v, "index_interval 7 outside [8, 65536]");
  v = good;
  v[2] = 11;  // count
  ExpectValueRejected(v, "blocks hold 10 ids, the header says 11");
  // A huge count with few blocks is refused from the header, before any allocation.
  v = std::string("\x01\x08", 2);
  PutVarint64(&v, uint64_t{1} << 62);
  PutVarint64(&v, 2);
  ExpectValueRejected(v + good.substr(4), "does not fit 2 blocks");
  v = std::string("\x01\x08", 2);
  PutVarint64(&v, uint64_t{1} << 62);
  PutVarint64(&v, uint64_t{1} << 61);
  ExpectValueRejected(v + good.substr(4), "index of 2305843009213693952 blocks truncated");
  v = good;
  v[4 + 16 + 12] = 0;  // block 1's count
  ExpectValueRejected(v, "block 1 of 2: count 0 outside [1, 64]");
  v = good;
  v[4 + 16] = 2;  // block 1's first id among block 0's ids
  ExpectValueRejected(v, "block 0 of 2: its ids reach into the next block");
  v = good;
  v[4 + 16 + 8] = 10;  // block 1's offset past the data
  ExpectValueRejected(v, "block 0 of 2: bad offsets");
  v = good;
  v[4 + 32] = 0;  // a zero difference
  ExpectValueRejected(v, "block 0 of 2: ids out of order");
  v = good;
  v[4 + 32 + 1] = '\x80';  // a varint that runs past its block
  ExpectValueRejected(v, "block 0 of 2: a varint runs past the block or 64 bits");
  ExpectValueRejected(good + "x", "block 1 of 2: bytes left after its last id", 400);
  v = good;
  v[4 + 12] = 1;  // block 0 holds 1 id in 2 bytes
  ExpectValueRejected(v, "block 0 of 2: 2 bytes cannot hold 0 ids");
  ExpectValueRejected(MakeValue({kMax - 3, kMax - 2}).substr(0, 21) + "\x05",
                      "an id overflows 64 bits");
}

TEST(SortedSet64CorruptionTest, TargetedOperandDamage) {
  auto expect_rejected = [](const std::string& operand, const std::string& what) {
    Ids adds, removes;
    Status s = SortedSet64DecodeOperand(operand, &adds, &removes);
    ASSERT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
    EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
    std::string out;
    s = FullMergeStrings(*Op(), std::nullopt, {SortedSet64AddOperand({1}), operand}, &out);
    ASSERT_TRUE(s.IsCorruption());
    EXPECT_NE(s.message().find("sortedset64 failed: operand 2 of 2: sortedset64 operand: "),
              std::string::npos)
        << s.ToString();
    EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
    EXPECT_FALSE(Op()->PartialMerge("k", SortedSet64AddOperand({1}), operand, &out));
    EXPECT_FALSE(Op()->PartialMergeMulti("k", {operand, "\x02\x00\x00", "\x02\x00\x00"}, &out));
  };
  expect_rejected("", "empty");
  expect_rejected(MakeValue({1}), "a value's, not an operand's");
  expect_rejected("\x03\x00\x00", "unknown format byte 3");
  expect_rejected(std::string("\x02\x01", 2), "truncated header");
  expect_rejected(std::string("\x02\x02\x00\x01", 4), "2 adds and 0 removes cannot fit in 1");
  expect_rejected(std::string("\x02\x01\x00\x01\x01", 5), "1 bytes after the removes");
  expect_rejected(std::string("\x02\x02\x00\x01\x00", 5), "adds out of order at id 1");
  expect_rejected(std::string("\x02\x00\x01\x80\x80", 5), "removes truncated at id 0");
  expect_rejected(std::string("\x02\x01\x01\x05\x05", 5), "id 5 both added and removed");
  std::string overflow("\x02\x02\x00", 3);
  PutVarint64(&overflow, kMax);
  PutVarint64(&overflow, 1);
  expect_rejected(overflow, "adds overflow 64 bits at id 1");
}

// Every proper prefix of a value or an operand is rejected by every reader.
TEST(SortedSet64CorruptionTest, EveryTruncationFails) {
  const Ids truth = {0, 1, 2, 3, 4, 5, 6, 7, 8, 300};
  const std::string value = SmallValue();
  for (size_t n = 0; n < value.size(); n++) {
    const std::string cut = value.substr(0, n);
    Ids ids;
    EXPECT_FALSE(SortedSet64Decode(cut, &ids).ok()) << n;
    std::string out;
    EXPECT_FALSE(FullMergeStrings(*Op(), cut, {SortedSet64AddOperand({9})}, &out).ok()) << n;
    for (uint64_t id : {uint64_t{0}, uint64_t{5}, uint64_t{300}, uint64_t{301}}) {
      bool found = false;
      Status s = SortedSet64Contains(cut, id, &found);
      // Contains checks only what it reads: a cut in another block may go unnoticed, but the
      // answer is then still the truth.
      if (s.ok()) {
        EXPECT_EQ(found, std::count(truth.begin(), truth.end(), id) == 1) << n;
      }
    }
  }
  const std::string operand = MakeOperand({1, 200, 70000}, {5, 1u << 30});
  for (size_t n = 0; n < operand.size(); n++) {
    Ids adds, removes;
    EXPECT_FALSE(SortedSet64DecodeOperand(operand.substr(0, n), &adds, &removes).ok()) << n;
  }
}

// Flipping any bit of a value or an operand never crashes a reader, and whatever a reader
// accepts is a well-formed set.
TEST(SortedSet64CorruptionTest, BitFlipsFailCleanly) {
  const std::string value = SmallValue();
  const std::string operand = MakeOperand({1, 200, 70000}, {5, 1u << 30});
  int value_rejected = 0;
  for (size_t bit = 0; bit < value.size() * 8; bit++) {
    std::string v = value;
    v[bit / 8] = static_cast<char>(v[bit / 8] ^ (1 << (bit % 8)));
    Ids ids;
    Status s = SortedSet64Decode(v, &ids);
    if (!s.ok()) {
      value_rejected++;
      continue;
    }
    EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end());
    uint64_t count = 0;
    ASSERT_OK(SortedSet64Count(v, &count));
    EXPECT_EQ(count, ids.size());
    std::string out;
    ASSERT_OK(FullMergeStrings(*Op(), v, {SortedSet64AddOperand({9, 1000})}, &out));
  }
  EXPECT_GT(value_rejected, static_cast<int>(value.size() * 8 / 2));
  for (size_t bit = 0; bit < operand.size() * 8; bit++) {
    std::string o = operand;
    o[bit / 8] = static_cast<char>(o[bit / 8] ^ (1 << (bit % 8)));
    Ids adds, removes;
    if (!SortedSet64DecodeOperand(o, &adds, &removes).ok()) continue;
    std::string out;
    ASSERT_OK(FullMergeStrings(*Op(), value, {o}, &out));
  }
}

}  // namespace
}  // namespace shale
