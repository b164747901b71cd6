// Blocks: BlockBuilder and Block/BlockIter against a std::map model, SeekForGet with and
// without the hash index, size estimates, and corrupt blocks.
#include "table/block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "base/internal_key.h"
#include "table/block_builder.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"

namespace shale {
namespace {

// A std::map ordered by any Comparator.
struct CmpLess {
  const Comparator* cmp;
  bool operator()(const std::string& a, const std::string& b) const {
    return cmp->Compare(a, b) < 0;
  }
};
using Model = std::map<std::string, std::string, CmpLess>;

// Keys over a 3-letter alphabet, so that sorted neighbours share long prefixes, with an
// occasional 0x00 or 0xff byte.
std::string RandomKey(std::mt19937& rng, size_t max_len) {
  std::string k(rng() % (max_len + 1), 'a');
  for (auto& c : k) {
    uint32_t r = rng() % 64;
    c = r == 0 ? '\0' : r == 1 ? '\xff' : static_cast<char>('a' + r % 3);
  }
  return k;
}

// prefix + the decimal i (Numbered("k", i) trips a false -Wrestrict in GCC 12).
std::string Numbered(std::string prefix, uint64_t i) { return prefix.append(std::to_string(i)); }

std::string RandomValue(std::mt19937& rng, size_t max_len) {
  std::string v(rng() % (max_len + 1), '\0');
  for (auto& c : v) c = static_cast<char>(rng());
  return v;
}

std::unique_ptr<Block> BuildBlock(const Model& model, int restart_interval, bool hash,
                                  double util_ratio = 0.75) {
  BlockBuilder builder(restart_interval, hash, util_ratio);
  for (const auto& [k, v] : model) {
    size_t expected = builder.EstimateSizeAfterKV(k, v);
    builder.Add(k, v);
    EXPECT_EQ(builder.CurrentSizeEstimate(), expected);
  }
  EXPECT_EQ(builder.num_entries(), model.size());
  EXPECT_EQ(builder.empty(), model.empty());
  size_t estimate = builder.CurrentSizeEstimate();
  std::string contents(builder.Finish());
  EXPECT_EQ(contents.size(), estimate);
  std::unique_ptr<Block> block;
  Status s = Block::Create(std::move(contents), &block);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return block;
}

// Asserts that `it` is where the model iterator `m` is.
void ExpectAt(const BlockIter& it, const Model& model, Model::const_iterator m) {
  ASSERT_OK(it.status());
  if (m == model.end()) {
    ASSERT_FALSE(it.Valid());
  } else {
    ASSERT_TRUE(it.Valid());
    ASSERT_EQ(it.key(), m->first);
    ASSERT_EQ(it.value(), m->second);
  }
}

// The model's answer to SeekForPrev: last entry <= target, or end().
Model::const_iterator ModelSeekForPrev(const Model& model, const std::string& target) {
  auto m = model.upper_bound(target);
  return m == model.begin() ? model.end() : std::prev(m);
}

void CheckScans(const Block& block, const Comparator* cmp, const Model& model) {
  auto it = block.NewIterator(cmp);
  EXPECT_FALSE(it->Valid());
  it->SeekToFirst();
  for (auto m = model.begin(); m != model.end(); ++m) {
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, m));
    it->Next();
  }
  ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, model.end()));
  it->SeekToLast();
  for (auto m = model.rbegin(); m != model.rend(); ++m) {
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, std::prev(m.base())));
    it->Prev();
  }
  ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, model.end()));
}

// Seek and SeekForPrev to every key, to random keys, and to keys before the first and after
// the last; then a random walk mixing directions.
void CheckSeeks(const Block& block, const Comparator* cmp, const Model& model,
                const std::vector<std::string>& targets, std::mt19937& rng) {
  auto it = block.NewIterator(cmp);
  for (const auto& t : targets) {
    it->Seek(t);
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, model.lower_bound(t)));
    it->SeekForPrev(t);
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, ModelSeekForPrev(model, t)));
  }
  auto m = model.end();
  for (int step = 0; step < 400; step++) {
    uint32_t op = rng() % 6;
    if (m == model.end()) op = op % 4;  // Next/Prev need a valid position
    const std::string& t = targets[rng() % targets.size()];
    switch (op) {
      case 0: it->Seek(t); m = model.lower_bound(t); break;
      case 1: it->SeekForPrev(t); m = ModelSeekForPrev(model, t); break;
      case 2: it->SeekToFirst(); m = model.begin(); break;
      case 3: it->SeekToLast(); m = model.empty() ? model.end() : std::prev(model.end()); break;
      case 4: it->Next(); ++m; break;
      case 5: it->Prev(); m = m == model.begin() ? model.end() : std::prev(m); break;
    }
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, m));
  }
}

// ---------------------------------------------------------------------------------------------
// Plain (bytewise) keys.

class BlockBytewiseTest : public testing::TestWithParam<int> {};

TEST_P(BlockBytewiseTest, RoundTripMatchesModel) {
  const int restart_interval = GetParam();
  const Comparator* cmp = BytewiseComparator();
  std::mt19937 rng(100 + restart_interval);
  for (int round = 0; round < 6; round++) {
    Model model(CmpLess{cmp});
    size_t n = round == 0 ? 0 : round == 1 ? 1 : rng() % 300;
    while (model.size() < n) model[RandomKey(rng, 200)] = RandomValue(rng, 2000);
    auto block = BuildBlock(model, restart_interval, false);
    ASSERT_NE(block, nullptr);
    EXPECT_FALSE(block->has_hash_index());
    EXPECT_EQ(block->num_restarts(),
              std::max<size_t>(1, (n + restart_interval - 1) / restart_interval));
    ASSERT_NO_FATAL_FAILURE(CheckScans(*block, cmp, model));
    std::vector<std::string> targets = {"", std::string(201, '\xff')};
    for (const auto& [k, v] : model) targets.push_back(k);
    for (int i = 0; i < 200; i++) targets.push_back(RandomKey(rng, 200));
    ASSERT_NO_FATAL_FAILURE(CheckSeeks(*block, cmp, model, targets, rng));
  }
}

INSTANTIATE_TEST_SUITE_P(RestartIntervals, BlockBytewiseTest, testing::Values(1, 2, 16, 128));

// ---------------------------------------------------------------------------------------------
// Internal keys, with and without the hash index.

class BlockInternalKeyTest : public testing::TestWithParam<std::tuple<int, bool>> {
 protected:
  BlockInternalKeyTest() : icmp_(BytewiseComparator()), model_(CmpLess{&icmp_}) {}

  // Fills the model with user keys (0..192 bytes), each with 1..5 versions at descending
  // sequences (some of them deletions), so versions span restart points. Few enough with
  // restart interval 1 that the block keeps its hash index (at most 253 restarts).
  void Fill(std::mt19937& rng, int restart_interval) {
    size_t n_users = 20 + rng() % (restart_interval == 1 ? 30 : 100);  // <= 49 * 5 entries
    while (user_keys_.size() < n_users) user_keys_[RandomKey(rng, 192)];
    for (auto& [user, seqs] : user_keys_) {
      SequenceNumber seq = 20 + rng() % 1000;
      for (uint32_t v = 0, nv = 1 + rng() % 5; v < nv; v++) {
        seqs.push_back(seq);
        ValueType type = rng() % 4 == 0 ? kTypeDeletion : kTypeValue;
        model_[MakeInternalKey(user, seq, type)] = RandomValue(rng, 2000);
        seq -= 1 + rng() % 3;
      }
    }
  }

  InternalKeyComparator icmp_;
  Model model_;
  std::map<std::string, std::vector<SequenceNumber>> user_keys_;  // user key -> its sequences
};

TEST_P(BlockInternalKeyTest, RoundTripMatchesModel) {
  const auto [restart_interval, hash] = GetParam();
  std::mt19937 rng(7 * restart_interval + hash);
  Fill(rng, restart_interval);
  auto block = BuildBlock(model_, restart_interval, hash);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->has_hash_index(), hash && block->num_restarts() <= kMaxRestartsWithHashIndex);
  ASSERT_NO_FATAL_FAILURE(CheckScans(*block, &icmp_, model_));
  std::vector<std::string> targets = {MakeInternalKey("", kMaxSequenceNumber, kValueTypeForSeek),
                                      MakeInternalKey(std::string(200, '\xff'), 0, kTypeDeletion)};
  for (const auto& [k, v] : model_) targets.push_back(k);
  for (int i = 0; i < 200; i++) {
    targets.push_back(MakeInternalKey(RandomKey(rng, 192), rng() % 1200, kTypeValue));
  }
  ASSERT_NO_FATAL_FAILURE(CheckSeeks(*block, &icmp_, model_, targets, rng));
}

// SeekForGet must land where Seek does for every user key in the block, at every snapshot;
// for absent user keys it may instead return false, which the hash index makes common.
TEST_P(BlockInternalKeyTest, SeekForGetFindsEveryVersion) {
  const auto [restart_interval, hash] = GetParam();
  std::mt19937 rng(11 * restart_interval + hash);
  Fill(rng, restart_interval);
  auto block = BuildBlock(model_, restart_interval, hash);
  ASSERT_NE(block, nullptr);
  ASSERT_EQ(block->has_hash_index(), hash);
  auto it = block->NewIterator(&icmp_);
  for (const auto& [user, seqs] : user_keys_) {
    std::vector<SequenceNumber> snapshots = {kMaxSequenceNumber, 0};
    for (SequenceNumber s : seqs) snapshots.insert(snapshots.end(), {s, s + 1, s - 1});
    for (SequenceNumber s : snapshots) {
      LookupKey lk(user, s);
      std::string target(lk.internal_key());
      ASSERT_TRUE(it->SeekForGet(target)) << "present user key, snapshot " << s;
      ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model_, model_.lower_bound(target)));
    }
  }
  int proved_absent = 0;
  for (int i = 0; i < 1000; i++) {
    std::string user = RandomKey(rng, 192);
    if (user_keys_.count(user) != 0) continue;
    LookupKey lk(user, rng() % 1200);
    std::string target(lk.internal_key());
    if (it->SeekForGet(target)) {
      ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model_, model_.lower_bound(target)));
    } else {
      ASSERT_FALSE(it->Valid());
      ASSERT_OK(it->status());
      proved_absent++;
    }
  }
  if (block->has_hash_index()) {
    EXPECT_GT(proved_absent, 100) << "the hash index should rule out many absent keys";
  } else {
    EXPECT_EQ(proved_absent, 0);
  }
}

// Restart prefixes (kept index blocks) only narrow Seek's binary search: every seek and
// SeekForGet lands where it does without them. The keys share long prefixes, contain 0x00 and
// 0xff bytes and are often shorter than 8 bytes, the cases where a prefix order could disagree
// with the key order.
TEST_P(BlockInternalKeyTest, RestartPrefixesChangeNoSeekResult) {
  const auto [restart_interval, hash] = GetParam();
  std::mt19937 rng(13 * restart_interval + hash);
  Fill(rng, restart_interval);
  for (int i = 0; i < 40; i++) {  // short user keys: zero padding meets real zero bytes
    std::string user = RandomKey(rng, 9);
    model_[MakeInternalKey(user, 5 + rng() % 10, kTypeValue)] = RandomValue(rng, 50);
  }
  auto block = BuildBlock(model_, restart_interval, hash);
  ASSERT_NE(block, nullptr);
  block->BuildRestartPrefixes(&icmp_);
  ASSERT_TRUE(block->has_restart_prefixes());
  ASSERT_NO_FATAL_FAILURE(CheckScans(*block, &icmp_, model_));
  std::vector<std::string> targets = {MakeInternalKey("", kMaxSequenceNumber, kValueTypeForSeek),
                                      MakeInternalKey(std::string(200, '\xff'), 0, kTypeDeletion),
                                      MakeInternalKey(std::string(3, '\0'), 0, kTypeValue)};
  for (const auto& [k, v] : model_) {
    targets.push_back(k);
    // The same user key at the neighbouring sequences, and its 8-byte truncation.
    ParsedInternalKey parsed;
    ASSERT_OK(ParseInternalKey(k, &parsed));
    std::string user(parsed.user_key);
    targets.push_back(MakeInternalKey(user, parsed.sequence + 1, kTypeValue));
    targets.push_back(MakeInternalKey(user.substr(0, 8), parsed.sequence, kTypeValue));
    targets.push_back(MakeInternalKey(user + '\0', kMaxSequenceNumber, kValueTypeForSeek));
  }
  for (int i = 0; i < 300; i++) {
    targets.push_back(MakeInternalKey(RandomKey(rng, rng() % 2 ? 10 : 192), rng() % 1200,
                                      kTypeValue));
  }
  ASSERT_NO_FATAL_FAILURE(CheckSeeks(*block, &icmp_, model_, targets, rng));
}

// Every user key behind one long shared prefix: the prefixes are taken after it, and targets
// without it (before and after the block) are searched in full.
TEST_P(BlockInternalKeyTest, RestartPrefixesAfterALongSharedPrefix) {
  const auto [restart_interval, hash] = GetParam();
  std::mt19937 rng(17 * restart_interval + hash);
  Fill(rng, restart_interval);
  const std::string shared = "user:0000";
  Model prefixed(CmpLess{&icmp_});
  for (const auto& [k, v] : model_) {
    ParsedInternalKey parsed;
    ASSERT_OK(ParseInternalKey(k, &parsed));
    prefixed[MakeInternalKey(shared + std::string(parsed.user_key), parsed.sequence,
                             parsed.type)] = v;
  }
  auto block = BuildBlock(prefixed, restart_interval, hash);
  ASSERT_NE(block, nullptr);
  block->BuildRestartPrefixes(&icmp_);
  ASSERT_TRUE(block->has_restart_prefixes());
  std::vector<std::string> targets = {MakeInternalKey("user:", 0, kTypeValue),
                                      MakeInternalKey("user:0000", kMaxSequenceNumber,
                                                      kValueTypeForSeek),
                                      MakeInternalKey("user:0001", 0, kTypeValue),
                                      MakeInternalKey("a", 0, kTypeValue),
                                      MakeInternalKey("zzz", 0, kTypeValue)};
  for (const auto& [k, v] : prefixed) targets.push_back(k);
  for (int i = 0; i < 300; i++) {
    targets.push_back(MakeInternalKey(shared + RandomKey(rng, rng() % 2 ? 6 : 100),
                                      rng() % 1200, kTypeValue));
  }
  ASSERT_NO_FATAL_FAILURE(CheckSeeks(*block, &icmp_, prefixed, targets, rng));
}

// Bytewise order reversed: prefixes would disagree with it.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    return BytewiseComparator()->Compare(b, a);
  }
  const char* Name() const override { return "test.Reverse"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST(BlockTest, RestartPrefixesOnlyForTheBytewiseOrder) {
  ReverseComparator user;
  InternalKeyComparator reverse(&user);
  Model model(CmpLess{&reverse});
  for (int i = 0; i < 50; i++) model[MakeInternalKey(std::to_string(i), 1, kTypeValue)] = "v";
  auto block = BuildBlock(model, 1, false);
  ASSERT_NE(block, nullptr);
  block->BuildRestartPrefixes(&reverse);
  EXPECT_FALSE(block->has_restart_prefixes());
}

INSTANTIATE_TEST_SUITE_P(IntervalsAndHash, BlockInternalKeyTest,
                         testing::Combine(testing::Values(1, 2, 16, 128), testing::Bool()));

// One user key with many versions across restart intervals, between two neighbours.
TEST(BlockTest, SeekForGetAcrossManyRestartsOfOneUserKey) {
  InternalKeyComparator icmp(BytewiseComparator());
  Model model(CmpLess{&icmp});
  model[MakeInternalKey("a", 5, kTypeValue)] = "a5";
  for (SequenceNumber s = 100; s >= 40; s -= 2) {
    model[MakeInternalKey("m", s, kTypeValue)] = Numbered("m", s);
  }
  model[MakeInternalKey("z", 5, kTypeValue)] = "z5";
  auto block = BuildBlock(model, 4, true);
  ASSERT_TRUE(block->has_hash_index());
  auto it = block->NewIterator(&icmp);
  for (SequenceNumber s = 0; s <= 110; s++) {
    LookupKey lk("m", s);
    std::string target(lk.internal_key());
    ASSERT_TRUE(it->SeekForGet(target));
    ASSERT_NO_FATAL_FAILURE(ExpectAt(*it, model, model.lower_bound(target)));
  }
}

// Blocks with too many restarts for one-byte bucket entries get no hash index.
TEST(BlockTest, HashIndexOnlyUpTo253Restarts) {
  InternalKeyComparator icmp(BytewiseComparator());
  for (int n : {253, 254}) {
    Model model(CmpLess{&icmp});
    for (int i = 0; i < n; i++) {
      model[MakeInternalKey(Numbered("key", 1000 + i), 1, kTypeValue)] = "v";
    }
    auto block = BuildBlock(model, 1, true);
    EXPECT_EQ(block->num_restarts(), static_cast<uint32_t>(n));
    EXPECT_EQ(block->has_hash_index(), n <= 253);
    ASSERT_NO_FATAL_FAILURE(CheckScans(*block, &icmp, model));
  }
}

TEST(BlockTest, EmptyBlock) {
  for (bool hash : {false, true}) {
    BlockBuilder builder(16, hash);
    EXPECT_TRUE(builder.empty());
    EXPECT_EQ(builder.CurrentSizeEstimate(), 8u);  // one restart + footer
    std::unique_ptr<Block> block;
    ASSERT_OK(Block::Create(std::string(builder.Finish()), &block));
    EXPECT_EQ(block->num_restarts(), 1u);
    EXPECT_FALSE(block->has_hash_index());
    auto it = block->NewIterator(BytewiseComparator());
    it->SeekToFirst();
    EXPECT_FALSE(it->Valid());
    it->SeekToLast();
    EXPECT_FALSE(it->Valid());
    it->Seek("x");
    EXPECT_FALSE(it->Valid());
    it->SeekForPrev("x");
    EXPECT_FALSE(it->Valid());
    EXPECT_OK(it->status());
  }
}

TEST(BlockTest, ResetStartsAFreshBlockAndSharesNoPrefix) {
  BlockBuilder builder(16);
  builder.Add("apple", "1");
  builder.Add("apricot", "2");
  std::string first(builder.Finish());
  builder.Reset();
  EXPECT_TRUE(builder.empty());
  builder.Add("apple", "1");
  builder.Add("apricot", "2");
  EXPECT_EQ(builder.Finish(), first);
  // Prefix compression: "apricot" stores shared=2 and the 5 bytes "ricot".
  EXPECT_EQ(first.substr(0, 3), std::string("\x00\x05\x01", 3));
  EXPECT_EQ(first.substr(9, 3), std::string("\x02\x05\x01", 3));
  EXPECT_EQ(first.substr(12, 5), "ricot");
}

TEST(BlockTest, UtilRatioSetsBucketCount) {
  InternalKeyComparator icmp(BytewiseComparator());
  Model model(CmpLess{&icmp});
  for (int i = 0; i < 60; i++) model[MakeInternalKey(Numbered("k", i), 1, kTypeValue)] = "";
  auto sparse = BuildBlock(model, 16, true, 0.25);
  auto dense = BuildBlock(model, 16, true, 1.0);
  // 60 keys: 240 (odd: 241) buckets against 60 (61).
  EXPECT_EQ(sparse->size() - dense->size(), 241u - 61u);
  EXPECT_GT(sparse->ApproximateMemoryUsage(), sparse->size());
}

// ---------------------------------------------------------------------------------------------
// Corruption.

std::string ValidBlock(bool hash) {
  BlockBuilder builder(2, hash);
  for (int i = 0; i < 20; i++) {
    builder.Add(MakeInternalKey(Numbered("key", 100 + i), 9, kTypeValue), "value");
  }
  return std::string(builder.Finish());
}

Status CreateStatus(std::string contents) {
  std::unique_ptr<Block> block;
  return Block::Create(std::move(contents), &block);
}

TEST(BlockCorruptionTest, MalformedFooterOrRestartsFailCreate) {
  EXPECT_TRUE(CreateStatus("").IsCorruption());
  EXPECT_TRUE(CreateStatus("abc").IsCorruption());
  std::string zero_restarts(4, '\0');
  EXPECT_TRUE(CreateStatus(zero_restarts).IsCorruption());

  std::string too_many;
  PutFixed32(&too_many, 0);
  PutFixed32(&too_many, 3);  // 3 restarts in 4 bytes
  EXPECT_TRUE(CreateStatus(too_many).IsCorruption());

  std::string good = ValidBlock(false);
  uint32_t num_restarts = DecodeFixed32(good.data() + good.size() - 4);
  size_t restarts = good.size() - 4 - 4 * num_restarts;
  auto with_restart = [&](uint32_t index, uint32_t offset) {
    std::string b = good;
    EncodeFixed32(b.data() + restarts + 4 * index, offset);
    return b;
  };
  EXPECT_TRUE(CreateStatus(with_restart(0, 1)).IsCorruption());                  // not at 0
  EXPECT_TRUE(CreateStatus(with_restart(1, restarts)).IsCorruption());           // past entries
  EXPECT_TRUE(CreateStatus(with_restart(1, 0xffffffff)).IsCorruption());         // way past
  EXPECT_TRUE(CreateStatus(with_restart(2, DecodeFixed32(good.data() + restarts + 4)))
                  .IsCorruption());                                              // not increasing
  Status s = CreateStatus(with_restart(3, 1u << 30));
  EXPECT_NE(s.message().find("restart 3"), std::string_view::npos) << s.ToString();
}

TEST(BlockCorruptionTest, MalformedHashIndexFailsCreate) {
  std::string good = ValidBlock(true);
  ASSERT_OK(CreateStatus(good));
  size_t num_buckets_at = good.size() - 4 - 2;
  uint16_t num_buckets = DecodeFixed16(good.data() + num_buckets_at);

  std::string zero = good;
  EncodeFixed16(zero.data() + num_buckets_at, 0);
  EXPECT_TRUE(CreateStatus(zero).IsCorruption());

  std::string huge = good;
  EncodeFixed16(huge.data() + num_buckets_at, 60000);
  EXPECT_TRUE(CreateStatus(huge).IsCorruption());

  std::string bad_bucket = good;
  bad_bucket[num_buckets_at - num_buckets] = static_cast<char>(200);  // restart 200 of 10
  EXPECT_TRUE(CreateStatus(bad_bucket).IsCorruption());

  // The flag set on a block that has no hash index: its restart array reads as buckets.
  std::string flagged = ValidBlock(false);
  uint32_t footer = DecodeFixed32(flagged.data() + flagged.size() - 4);
  EncodeFixed32(flagged.data() + flagged.size() - 4, footer | kBlockHashIndexFlag);
  EXPECT_FALSE(CreateStatus(flagged).ok());
}

// Iterates every way the tests above do and returns the first non-OK status (OK if none);
// the point is that nothing reads out of bounds (run under ASan) or loops forever.
Status ExerciseIterator(const Block& block, const Comparator* cmp, std::mt19937& rng) {
  auto it = block.NewIterator(cmp);
  Status first;
  auto note = [&]() {
    EXPECT_TRUE(it->status().ok() || it->status().IsCorruption()) << it->status().ToString();
    if (first.ok() && !it->status().ok()) first = it->status();
    if (!it->status().ok()) {
      EXPECT_FALSE(it->Valid());
    }
  };
  int steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < 10000; it->Next()) steps++;
  note();
  it = block.NewIterator(cmp);
  for (it->SeekToLast(); it->Valid() && steps < 20000; it->Prev()) steps++;
  note();
  for (int i = 0; i < 20; i++) {
    it = block.NewIterator(cmp);
    std::string target = MakeInternalKey(Numbered("key", 95 + rng() % 30), rng() % 20,
                                         kTypeValue);
    switch (i % 3) {
      case 0: it->Seek(target); break;
      case 1: it->SeekForPrev(target); break;
      case 2: (void)it->SeekForGet(target); break;
    }
    for (int j = 0; j < 5 && it->Valid(); j++) (rng() % 2) ? it->Next() : it->Prev();
    note();
  }
  return first;
}

void PutEntryHeader(std::string* b, uint32_t shared, uint32_t non_shared, uint32_t value_len) {
  PutVarint32(b, shared);
  PutVarint32(b, non_shared);
  PutVarint32(b, value_len);
}

TEST(BlockCorruptionTest, GarbageEntriesReportCorruptionWhenRead) {
  InternalKeyComparator icmp(BytewiseComparator());
  std::mt19937 rng(3);
  // One entry whose shared length exceeds the previous key.
  std::string b;
  PutEntryHeader(&b, 0, 9, 0);
  b += MakeInternalKey("a", 1, kTypeValue);
  PutEntryHeader(&b, 50, 9, 0);
  b += MakeInternalKey("b", 1, kTypeValue);
  PutFixed32(&b, 0);
  PutFixed32(&b, 1);
  std::unique_ptr<Block> block;
  ASSERT_OK(Block::Create(b, &block));
  EXPECT_TRUE(ExerciseIterator(*block, &icmp, rng).IsCorruption());

  // A value running past the entries.
  b.clear();
  PutEntryHeader(&b, 0, 9, 1000);
  b += MakeInternalKey("a", 1, kTypeValue);
  PutFixed32(&b, 0);
  PutFixed32(&b, 1);
  ASSERT_OK(Block::Create(b, &block));
  EXPECT_TRUE(ExerciseIterator(*block, &icmp, rng).IsCorruption());

  // A key too short to be an internal key, read with an InternalKeyComparator.
  b.clear();
  PutEntryHeader(&b, 0, 3, 0);
  b += "abc";
  PutFixed32(&b, 0);
  PutFixed32(&b, 1);
  ASSERT_OK(Block::Create(b, &block));
  Status s = ExerciseIterator(*block, &icmp, rng);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("offset 0"), std::string_view::npos) << s.ToString();
  // ... which is fine for a bytewise block.
  EXPECT_OK(ExerciseIterator(*block, BytewiseComparator(), rng));

  // Corruption sticks: a later seek leaves the iterator invalid.
  auto it = block->NewIterator(&icmp);
  it->SeekToFirst();
  EXPECT_TRUE(it->status().IsCorruption());
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption());
}

// Random byte flips and truncations: Create fails or the iterators report Corruption or read
// some entries; never a crash or an out-of-bounds read (this test is meant for ASan too).
TEST(BlockCorruptionTest, RandomFlipsAndTruncationsNeverCrash) {
  InternalKeyComparator icmp(BytewiseComparator());
  std::mt19937 rng(42);
  int create_failed = 0, iteration_failed = 0;
  for (bool hash : {false, true}) {
    const std::string good = ValidBlock(hash);
    for (int round = 0; round < 1500; round++) {
      std::string bad = good;
      if (round % 3 == 0) {
        bad.resize(rng() % bad.size());
      } else {
        for (uint32_t f = 0, nf = 1 + rng() % 3; f < nf; f++) {
          bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
        }
      }
      std::unique_ptr<Block> block;
      Status s = Block::Create(bad, &block);
      if (!s.ok()) {
        ASSERT_TRUE(s.IsCorruption()) << s.ToString();
        create_failed++;
        continue;
      }
      if (!ExerciseIterator(*block, &icmp, rng).ok()) iteration_failed++;
    }
  }
  // Both kinds of detection happen.
  EXPECT_GT(create_failed, 300);
  EXPECT_GT(iteration_failed, 100);
}

}  // namespace
}  // namespace shale
