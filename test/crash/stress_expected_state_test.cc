// tools/shale_stress's expected-state model: key states and their chain hash, value codec, the
// stress merge operator, expected-state file, durability rules, verification rules; and its
// operation mix and options.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "durability.h"
#include "expected_state.h"
#include "gtest/gtest.h"
#include "key_state.h"
#include "stress_config.h"
#include "stress_merge_operator.h"
#include "stress_options.h"
#include "testutil/status_matchers.h"
#include "value_codec.h"
#include "verifier.h"

namespace shale::stress {
namespace {

constexpr WriteKind kPut = WriteKind::kPut;
constexpr WriteKind kDel = WriteKind::kDelete;
constexpr WriteKind kMerge = WriteKind::kMerge;

std::string TempPath(const std::string& name) {
  return testing::TempDir() + "/stress_expected_state_" + std::to_string(getpid()) + "_" + name;
}

TEST(ValueCodecTest, KeysAreFixedWidthAndOrdered) {
  EXPECT_EQ(KeyString(42), "0000000042");
  EXPECT_LT(KeyString(9), KeyString(10));
  uint32_t k = 0;
  ASSERT_TRUE(ParseKey("0000000042", &k));
  EXPECT_EQ(k, 42u);
  EXPECT_FALSE(ParseKey("000000042", &k));
  EXPECT_FALSE(ParseKey("00000000x2", &k));
}

TEST(ValueCodecTest, RoundTripAndDamage) {
  const std::vector<Member> members = {{3, MakeWord(7, kPut)}, {9, MakeWord(2, kDel)}};
  const std::string v = EncodeValue(3, MakeWord(7, kPut), members, 50);
  DecodedValue d;
  std::string error;
  ASSERT_TRUE(DecodeValue(v, &d, &error)) << error;
  EXPECT_EQ(d.key, 3u);
  EXPECT_EQ(d.word, MakeWord(7, kPut));
  EXPECT_EQ(d.hash, ChainStart(MakeWord(7, kPut)));
  EXPECT_EQ(d.merges, 0u);
  EXPECT_EQ(d.members, members);

  std::string damaged = v;
  damaged.back() = damaged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(DecodeValue(damaged, &d, &error));
  EXPECT_NE(error.find("filler"), std::string::npos);
  EXPECT_FALSE(DecodeValue("S2|3|", &d, &error));
  EXPECT_NE(error.find("malformed"), std::string::npos) << error;
  EXPECT_FALSE(DecodeValue(EncodeValue(3, MakeWord(7, kDel), {}, 0), &d, &error));
  EXPECT_FALSE(DecodeValue(EncodeValue(3, MakeWord(7, kMerge), {}, 0), &d, &error));
  EXPECT_FALSE(DecodeValue("S2|3|28|1:x|", &d, &error));
  // Format 1 values and operands are not values.
  EXPECT_FALSE(DecodeValue("S1|3|14||", &d, &error));
  EXPECT_FALSE(DecodeValue(EncodeOperand(3, MakeWord(7, kMerge), {}, 0), &d, &error));
}

TEST(ValueCodecTest, OperandsAndMergedValuesRoundTrip) {
  const GenWord m = MakeWord(9, kMerge);
  const std::vector<Member> members = {{3, m}, {4, MakeWord(2, kPut)}};
  DecodedOperand op;
  std::string error;
  ASSERT_TRUE(DecodeOperand(EncodeOperand(3, m, members, 20), &op, &error)) << error;
  EXPECT_EQ(op.key, 3u);
  EXPECT_EQ(op.first, m);
  EXPECT_EQ(op.last, m);
  EXPECT_EQ(op.count, 1u);
  EXPECT_EQ(op.seg, MixWord(m));
  EXPECT_EQ(op.members, members);
  EXPECT_EQ(op.filler_len, 20u);
  // A segment must be consistent: one operand is its own seg; n operands fit their gens.
  EXPECT_FALSE(DecodeOperand(EncodeOperand({3, m, m, 1, 12345, {}, 0}), &op, &error));
  EXPECT_FALSE(DecodeOperand(EncodeOperand({3, MakeWord(8, kMerge), m, 3, 1, {}, 0}), &op,
                             &error));
  EXPECT_FALSE(DecodeOperand(EncodeOperand({3, MakeWord(8, kPut), m, 2, 1, {}, 0}), &op, &error));
  EXPECT_TRUE(DecodeOperand(EncodeOperand({3, MakeWord(5, kMerge), m, 3, 1, {}, 4}), &op, &error))
      << error;
  std::string damaged = EncodeOperand(3, m, {}, 10);
  damaged.back() = damaged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(DecodeOperand(damaged, &op, &error));

  const DecodedValue merged = {3, m, 0xdeadbeef, MakeWord(4, kPut), 2, members, 7};
  DecodedValue d;
  ASSERT_TRUE(DecodeValue(EncodeMergedValue(merged), &d, &error)) << error;
  EXPECT_EQ(d.key, 3u);
  EXPECT_EQ(d.word, m);
  EXPECT_EQ(d.hash, 0xdeadbeefu);
  EXPECT_EQ(d.base, MakeWord(4, kPut));
  EXPECT_EQ(d.merges, 2u);
  EXPECT_EQ(d.members, members);
  EXPECT_EQ(d.filler_len, 7u);
  // The base must be an older put (or none) and there must be operands.
  EXPECT_FALSE(DecodeValue(EncodeMergedValue({3, m, 1, MakeWord(4, kDel), 1, {}, 0}), &d, &error));
  EXPECT_FALSE(DecodeValue(EncodeMergedValue({3, m, 1, MakeWord(9, kPut), 1, {}, 0}), &d, &error));
  EXPECT_FALSE(DecodeValue(EncodeMergedValue({3, m, 1, 0, 0, {}, 0}), &d, &error));
  EXPECT_TRUE(DecodeValue(EncodeMergedValue({3, m, 1, 0, 1, {}, 0}), &d, &error)) << error;
}

TEST(KeyStateTest, Words) {
  EXPECT_TRUE(IsAbsentWord(0));
  EXPECT_TRUE(IsAbsentWord(MakeWord(5, kDel)));
  EXPECT_FALSE(IsAbsentWord(MakeWord(5, kPut)));
  EXPECT_FALSE(IsAbsentWord(MakeWord(5, kMerge)));
  EXPECT_EQ(Gen(MakeWord(5, kMerge)), 5u);
  EXPECT_EQ(Kind(MakeWord(5, kMerge)), kMerge);
  EXPECT_FALSE(IsValidWord(MakeWord(5, kMerge) | 1));
  EXPECT_EQ(DescribeWord(MakeWord(5, kDel)), "g5:del");
  EXPECT_EQ(DescribeWord(MakeWord(6, kMerge)), "g6:merge");
}

TEST(KeyStateTest, ChainNamesTheOperandsInOrder) {
  const GenWord put = MakeWord(1, kPut), a = MakeWord(2, kMerge), b = MakeWord(3, kMerge),
                c = MakeWord(5, kMerge);
  const KeyState base = Apply(KeyState(), put);
  EXPECT_EQ(base, (KeyState{put, MixWord(put)}));
  const KeyState abc = Apply(Apply(Apply(base, a), b), c);
  EXPECT_EQ(abc.word, c);
  EXPECT_TRUE(IsPresent(abc));
  // Lost, doubled or reordered operands give other hashes.
  EXPECT_NE(abc.hash, Apply(Apply(base, a), c).hash);
  EXPECT_NE(abc.hash, Apply(Apply(Apply(Apply(base, a), b), b), c).hash);
  EXPECT_NE(abc.hash, Apply(Apply(Apply(base, b), a), c).hash);
  // Another base, or none, too; a deletion or a put starts the chain again.
  EXPECT_NE(abc.hash, Apply(Apply(Apply(KeyState(), a), b), c).hash);
  EXPECT_EQ(Apply(abc, MakeWord(6, kDel)), (KeyState{MakeWord(6, kDel), 0}));
  EXPECT_EQ(Apply(abc, MakeWord(6, kPut)), Apply(KeyState(), MakeWord(6, kPut)));
  // Segments compose: (a) then (b, c) as one segment is a, b, c.
  const uint32_t seg_bc = ChainExtend(MixWord(b), MixWord(c), 1);
  EXPECT_EQ(ChainExtend(ChainExtend(base.hash, MixWord(a), 1), seg_bc, 2), abc.hash);
  EXPECT_EQ(ChainPow(0), 1u);
  EXPECT_EQ(ChainPow(3), kChainPrime * kChainPrime * kChainPrime);
  EXPECT_EQ(DescribeState(base), "g1:put");
  EXPECT_EQ(DescribeState(abc).rfind("g5:merge#", 0), 0u) << DescribeState(abc);
}

// Runs the stress operator's full merge; the result or the error.
bool FullMerge(const MergeOperator& op, uint32_t k, const std::string* existing,
               const std::vector<std::string>& operands, std::string* result) {
  std::vector<std::string_view> views(operands.begin(), operands.end());
  const std::string key = KeyString(k);
  std::string_view existing_view = existing != nullptr ? *existing : std::string_view();
  std::string_view unused;
  MergeOperator::MergeOperationInput in(key, existing != nullptr ? &existing_view : nullptr,
                                        views);
  MergeOperator::MergeOperationOutput out(*result, unused);
  const bool ok = op.FullMergeV2(in, &out);
  if (!ok) *result = out.error_message;
  return ok;
}

TEST(StressMergeOperatorTest, AppliesOperandsAndNamesThem) {
  const std::shared_ptr<MergeOperator> op = NewStressMergeOperator();
  EXPECT_STREQ(op->Name(), kStressMergeOperatorName);
  const GenWord put = MakeWord(1, kPut), a = MakeWord(2, kMerge), b = MakeWord(4, kMerge),
                c = MakeWord(5, kMerge);
  const std::string base = EncodeValue(7, put, {}, 30);
  const std::vector<Member> members = {{7, c}, {8, MakeWord(1, kPut)}};
  const std::vector<std::string> operands = {EncodeOperand(7, a, {}, 3), EncodeOperand(7, b, {}, 0),
                                             EncodeOperand(7, c, members, 12)};
  const KeyState want = Apply(Apply(Apply(Apply(KeyState(), put), a), b), c);
  std::string result;
  ASSERT_TRUE(FullMerge(*op, 7, &base, operands, &result)) << result;
  DecodedValue d;
  std::string error;
  ASSERT_TRUE(DecodeValue(result, &d, &error)) << error;
  EXPECT_EQ((KeyState{d.word, d.hash}), want);
  EXPECT_EQ(d.base, put);
  EXPECT_EQ(d.merges, 3u);
  EXPECT_EQ(d.members, members);
  EXPECT_EQ(d.filler_len, 12u);

  // Over an earlier merge result: the same as all at once.
  std::string first, second;
  ASSERT_TRUE(FullMerge(*op, 7, &base, {operands[0]}, &first)) << first;
  ASSERT_TRUE(FullMerge(*op, 7, &first, {operands[1], operands[2]}, &second)) << second;
  EXPECT_EQ(second, result);

  // With no value: the chain starts from nothing.
  ASSERT_TRUE(FullMerge(*op, 7, nullptr, operands, &result)) << result;
  ASSERT_TRUE(DecodeValue(result, &d, &error)) << error;
  EXPECT_EQ((KeyState{d.word, d.hash}), Apply(Apply(Apply(KeyState(), a), b), c));
  EXPECT_EQ(d.base, 0u);
}

TEST(StressMergeOperatorTest, PartialMergesAreInvisible) {
  const std::shared_ptr<MergeOperator> op = NewStressMergeOperator();
  const std::string key = KeyString(7);
  const std::string base = EncodeValue(7, MakeWord(1, kPut), {}, 5);
  std::vector<std::string> operands;
  for (uint32_t g = 2; g <= 6; ++g) {
    operands.push_back(EncodeOperand(7, MakeWord(g, kMerge), {}, g));
  }
  std::string all;
  ASSERT_TRUE(FullMerge(*op, 7, &base, operands, &all)) << all;
  // Every split into [prefix, PartialMerge(middle...), suffix] gives the same value.
  for (size_t i = 0; i < operands.size(); ++i) {
    for (size_t j = i + 2; j <= operands.size(); ++j) {
      std::deque<std::string_view> middle(operands.begin() + i, operands.begin() + j);
      std::string combined;
      ASSERT_TRUE(op->PartialMergeMulti(key, middle, &combined)) << i << ".." << j;
      std::vector<std::string> split(operands.begin(), operands.begin() + i);
      split.push_back(combined);
      split.insert(split.end(), operands.begin() + j, operands.end());
      std::string result;
      ASSERT_TRUE(FullMerge(*op, 7, &base, split, &result)) << result;
      EXPECT_EQ(result, all) << i << ".." << j;
    }
  }
  // Operands that do not follow each other are not combined.
  std::string out;
  EXPECT_FALSE(op->PartialMerge(key, operands[1], operands[0], &out));
  EXPECT_FALSE(op->PartialMerge(key, operands[0], operands[0], &out));
  EXPECT_FALSE(op->PartialMerge(KeyString(8), operands[0], operands[1], &out));
}

TEST(StressMergeOperatorTest, FailsOnDoubledReorderedOrForeignOperands) {
  const std::shared_ptr<MergeOperator> op = NewStressMergeOperator();
  const std::string base = EncodeValue(7, MakeWord(3, kPut), {}, 5);
  const std::string a = EncodeOperand(7, MakeWord(4, kMerge), {}, 0);
  const std::string b = EncodeOperand(7, MakeWord(5, kMerge), {}, 0);
  std::string result;
  EXPECT_FALSE(FullMerge(*op, 7, &base, {a, a}, &result));
  EXPECT_NE(result.find("applied twice"), std::string::npos) << result;
  EXPECT_FALSE(FullMerge(*op, 7, &base, {b, a}, &result));
  // An operand older than the value under it.
  const std::string newer_base = EncodeValue(7, MakeWord(6, kPut), {}, 0);
  EXPECT_FALSE(FullMerge(*op, 7, &newer_base, {b}, &result));
  // Another key's operand or value; a damaged operand; a key that is not a stress key.
  EXPECT_FALSE(FullMerge(*op, 7, &base, {EncodeOperand(8, MakeWord(4, kMerge), {}, 0)}, &result));
  const std::string other = EncodeValue(8, MakeWord(3, kPut), {}, 0);
  EXPECT_FALSE(FullMerge(*op, 7, &other, {a}, &result));
  std::string damaged = EncodeOperand(7, MakeWord(4, kMerge), {}, 9);
  damaged.back() = damaged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(FullMerge(*op, 7, &base, {damaged}, &result));
  EXPECT_NE(result.find("key 0000000007"), std::string::npos) << result;
}

TEST(ExpectedStateTest, SurvivesReopenAndRejectsOtherMaxKey) {
  const std::string path = TempPath("expected");
  std::remove(path.c_str());
  const KeyState put1 = Apply(KeyState(), MakeWord(1, kPut));
  {
    std::unique_ptr<ExpectedState> s;
    ASSERT_OK(ExpectedState::Open(path, 100, &s));
    EXPECT_EQ(s->Acked(7), KeyState());
    const GenWord w1 = s->NextWord(7, kPut);
    EXPECT_EQ(w1, MakeWord(1, kPut));
    s->MarkPending(7, w1);
    s->Commit(7);
    const GenWord w2 = s->NextWord(7, kDel);
    s->MarkPending(7, w2);  // left in flight, as by a killed process
  }
  std::unique_ptr<ExpectedState> s;
  ASSERT_OK(ExpectedState::Open(path, 100, &s));
  EXPECT_EQ(s->Acked(7), put1);
  EXPECT_EQ(s->Pending(7), MakeWord(2, kDel));
  EXPECT_EQ(s->AllowedAfterCrash(7),
            (std::vector<KeyState>{put1, Apply(put1, MakeWord(2, kDel))}));
  EXPECT_EQ(s->CountPending(), 1u);
  // Verification found the older write: generation 2 is still never reused.
  s->Reset(7, put1);
  EXPECT_EQ(s->Pending(7), 0u);
  EXPECT_EQ(Gen(s->NextWord(7, kPut)), 3u);

  std::unique_ptr<ExpectedState> other;
  Status st = ExpectedState::Open(path, 200, &other);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  std::remove(path.c_str());
}

TEST(ExpectedStateTest, MergesApplyOnceEvenWhenACommitIsTorn) {
  const std::string path = TempPath("expected_merge");
  std::remove(path.c_str());
  std::unique_ptr<ExpectedState> s;
  ASSERT_OK(ExpectedState::Open(path, 10, &s));
  for (WriteKind kind : {kPut, kMerge, kMerge}) {
    s->MarkPending(3, s->NextWord(3, kind));
    s->Commit(3);
  }
  const KeyState acked =
      Apply(Apply(Apply(KeyState(), MakeWord(1, kPut)), MakeWord(2, kMerge)), MakeWord(3, kMerge));
  EXPECT_EQ(s->Acked(3), acked);
  // A merge in flight: the DB holds it once or not at all.
  const GenWord m = s->NextWord(3, kMerge);
  s->MarkPending(3, m);
  EXPECT_EQ(s->AllowedAfterCrash(3), (std::vector<KeyState>{acked, Apply(acked, m)}));
  EXPECT_EQ(s->CountPending(WriteKind::kMerge), 1u);
  s.reset();
  // A process killed inside Commit, after its first store: acked has the operand, pending is
  // still set. The operand must not be applied a second time.
  {
    const int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const KeyState after = Apply(acked, m);
    const uint32_t field[2] = {after.word, after.hash};
    ASSERT_EQ(pwrite(fd, field, sizeof(field), 64 + 3 * 16), static_cast<ssize_t>(sizeof(field)));
    ::close(fd);
  }
  ASSERT_OK(ExpectedState::Open(path, 10, &s));
  EXPECT_EQ(s->Pending(3), 0u);
  EXPECT_EQ(s->CountPending(), 0u);
  EXPECT_EQ(s->AllowedAfterCrash(3), (std::vector<KeyState>{Apply(acked, m)}));
  EXPECT_EQ(Gen(s->NextWord(3, kMerge)), Gen(m) + 1);
  std::remove(path.c_str());
}

TEST(ExpectedStateTest, RefusesFormatOneWithAClearMessage) {
  const std::string path = TempPath("format1");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::string file(64 + 16 * 10, '\0');
    file.replace(0, 8, "SHSTRESS");
    file[8] = 1;   // version 1, little-endian
    file[12] = 10;  // max_key 10
    ASSERT_EQ(std::fwrite(file.data(), 1, file.size(), f), file.size());
    std::fclose(f);
  }
  std::unique_ptr<ExpectedState> s;
  const Status st = ExpectedState::Open(path, 10, &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.ToString().find("format 1"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("wipe"), std::string::npos) << st.ToString();
  std::remove(path.c_str());
}

TEST(ExpectedStateTest, RepairsAHeaderLeftUnwrittenByAKill) {
  const std::string path = TempPath("zero_header");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const std::string zeros(64 + 16 * 10, '\0');  // header + 10 slots, as ftruncate leaves it
    ASSERT_EQ(std::fwrite(zeros.data(), 1, zeros.size(), f), zeros.size());
    std::fclose(f);
  }
  std::unique_ptr<ExpectedState> s;
  ASSERT_OK(ExpectedState::Open(path, 10, &s));
  EXPECT_EQ(s->Acked(3), KeyState());
  s.reset();
  ASSERT_OK(ExpectedState::Open(path, 10, &s));  // now with a real header
  std::remove(path.c_str());
}

KeyState StateOf(GenWord w) { return Apply(KeyState(), w); }

TEST(DurabilityTrackerTest, UnsyncedWritesMayBeLostSyncedOnesAndTheirPastMayNot) {
  const KeyState init = StateOf(MakeWord(1, kPut));
  DurabilityTracker t({init, init, init});
  // Key 0: an acknowledged unsynced write: either state may survive.
  t.Issue(0, MakeWord(2, kPut));
  t.Acknowledge(0, t.NextTicket(), false);
  EXPECT_EQ(t.AllowedAfterPowerLoss(0), (std::vector<KeyState>{init, StateOf(MakeWord(2, kPut))}));
  // A synced write of key 1 issued now makes key 0's write durable.
  const uint64_t clock = t.Clock();
  t.Issue(1, MakeWord(2, kDel));
  // Key 2: acknowledged after the synced write was issued: not covered by it.
  t.Issue(2, MakeWord(2, kPut));
  t.Acknowledge(2, t.NextTicket(), false);
  t.Acknowledge(1, t.NextTicket(), true);
  t.MarkDurable(clock);
  EXPECT_EQ(t.AllowedAfterPowerLoss(0), (std::vector<KeyState>{StateOf(MakeWord(2, kPut))}));
  EXPECT_EQ(t.AllowedAfterPowerLoss(1), (std::vector<KeyState>{StateOf(MakeWord(2, kDel))}));
  EXPECT_EQ(t.AllowedAfterPowerLoss(2), (std::vector<KeyState>{init, StateOf(MakeWord(2, kPut))}));
  // A write never acknowledged may or may not have landed.
  t.Issue(1, MakeWord(3, kPut));
  EXPECT_EQ(t.AllowedAfterPowerLoss(1),
            (std::vector<KeyState>{StateOf(MakeWord(2, kDel)), StateOf(MakeWord(3, kPut))}));
}

TEST(DurabilityTrackerTest, MergesSurviveAsAPrefixOfTheKeysWrites) {
  const KeyState init = StateOf(MakeWord(1, kPut));
  DurabilityTracker t({init});
  const GenWord a = MakeWord(2, kMerge), b = MakeWord(3, kMerge), c = MakeWord(4, kMerge);
  const KeyState sa = Apply(init, a), sab = Apply(sa, b), sabc = Apply(sab, c);
  t.Issue(0, a);
  t.Acknowledge(0, t.NextTicket(), true);  // synced: the base of what may survive
  t.Issue(0, b);
  t.Acknowledge(0, t.NextTicket(), false);
  t.Issue(0, c);  // never acknowledged
  // b may be lost (then c too); c may have landed on top of b, once.
  EXPECT_EQ(t.AllowedAfterPowerLoss(0), (std::vector<KeyState>{sa, sab, sabc}));
  // After a deletion the chain starts again from nothing.
  t.Acknowledge(0, t.NextTicket(), true);
  t.Issue(0, MakeWord(5, kDel));
  t.Acknowledge(0, t.NextTicket(), true);
  t.Issue(0, MakeWord(6, kMerge));
  EXPECT_EQ(t.AllowedAfterPowerLoss(0),
            (std::vector<KeyState>{StateOf(MakeWord(5, kDel)), StateOf(MakeWord(6, kMerge))}));
}

Found Present(const KeyState& s, std::vector<Member> members = {}) {
  Found f;
  f.present = true;
  f.word = s.word;
  f.hash = s.hash;
  f.members = std::move(members);
  return f;
}
Found Present(GenWord w, std::vector<Member> members = {}) {
  return Present(StateOf(w), std::move(members));
}

TEST(CheckStateTest, AcceptsAllowedStatesAndResolvesAbsentKeys) {
  const KeyState put1 = StateOf(MakeWord(1, kPut)), del2 = StateOf(MakeWord(2, kDel));
  const std::vector<std::vector<KeyState>> allowed = {{put1}, {put1, del2}, {KeyState()}};
  const std::vector<Found> found = {Present(put1), Found(), Found()};
  VerifyResult r = CheckState(found, [&](uint32_t k) { return allowed[k]; });
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.keys_checked, 3u);
  EXPECT_EQ(r.keys_present, 1u);
  EXPECT_EQ(r.resolved, (std::vector<KeyState>{put1, del2, KeyState()}));
}

TEST(CheckStateTest, ReportsLostAndUnknownWrites) {
  const std::vector<std::vector<KeyState>> allowed = {{StateOf(MakeWord(3, kPut))},
                                                      {StateOf(MakeWord(3, kPut))}};
  const std::vector<Found> found = {Found(), Present(MakeWord(2, kPut))};
  VerifyResult r = CheckState(found, [&](uint32_t k) { return allowed[k]; });
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_NE(r.failures[0].find("key 0000000000: found absent, allowed {g3:put}"),
            std::string::npos)
      << r.failures[0];
}

TEST(CheckStateTest, MergedValuesMustHoldExactlyTheAllowedOperands) {
  // Key 0: put g1, merges g2 and g3 acknowledged, merge g4 in flight.
  const KeyState put = StateOf(MakeWord(1, kPut));
  const GenWord m2 = MakeWord(2, kMerge), m3 = MakeWord(3, kMerge), m4 = MakeWord(4, kMerge);
  const KeyState acked = Apply(Apply(put, m2), m3);
  const std::vector<KeyState> allowed = {acked, Apply(acked, m4)};
  auto check = [&](const Found& f) {
    return CheckState({f}, [&](uint32_t) { return allowed; });
  };
  VerifyResult ok = check(Present(acked));
  EXPECT_TRUE(ok.failures.empty());
  EXPECT_EQ(ok.resolved[0], acked);
  EXPECT_TRUE(check(Present(Apply(acked, m4))).failures.empty());
  // The newest word is right but the chain is not: an operand lost, doubled, or over no base.
  EXPECT_EQ(check(Present(Apply(put, m3))).failures.size(), 1u);
  EXPECT_EQ(check(Present(Apply(Apply(acked, m3), m4))).failures.size(), 1u);
  EXPECT_EQ(check(Present(Apply(Apply(KeyState(), m2), m3))).failures.size(), 1u);
  // The base alone (both operands lost) or nothing at all.
  EXPECT_EQ(check(Present(put)).failures.size(), 1u);
  const VerifyResult absent = check(Found());
  ASSERT_EQ(absent.failures.size(), 1u);
  EXPECT_NE(absent.failures[0].find("g3:merge#"), std::string::npos) << absent.failures[0];
}

TEST(CheckStateTest, MultiKeyWritesAreAllOrNothing) {
  // A batch wrote key 0 (put g2), key 1 (merge g2) and key 2 (delete g2). Every key may hold
  // its old state (put g1) or its batch generation.
  const std::vector<Member> batch = {
      {0, MakeWord(2, kPut)}, {1, MakeWord(2, kMerge)}, {2, MakeWord(2, kDel)}};
  const KeyState old = StateOf(MakeWord(1, kPut));
  const KeyState merged = Apply(old, MakeWord(2, kMerge));
  auto allowed = [&](uint32_t k) {
    return std::vector<KeyState>{old, Apply(old, batch[k].word)};
  };
  // All of it: fine.
  EXPECT_TRUE(CheckState({Present(MakeWord(2, kPut), batch), Present(merged, batch), Found()},
                         allowed)
                  .failures.empty());
  // None of it: fine.
  EXPECT_TRUE(CheckState({Present(old), Present(old), Present(old)}, allowed).failures.empty());
  // Half of it: key 1 and key 2 miss the batch.
  VerifyResult r = CheckState({Present(MakeWord(2, kPut), batch), Present(old), Present(old)},
                              allowed);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_NE(r.failures[0].find("not all or nothing"), std::string::npos) << r.failures[0];
  // The merged key shows the batch, the put key does not.
  r = CheckState({Present(old), Present(merged, batch), Found()}, allowed);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("member 0000000000"), std::string::npos) << r.failures[0];
}

TEST(OpMixTest, ParsesAndRejects) {
  OpWeights w{};
  ASSERT_OK(ParseOpMix(kDefaultOpMix, &w));
  EXPECT_EQ(w[static_cast<int>(OpType::kPut)], 400u);
  EXPECT_EQ(w[static_cast<int>(OpType::kMerge)], 80u);
  ASSERT_OK(ParseOpMix("get=1,merge=3", &w));
  EXPECT_EQ(w[static_cast<int>(OpType::kPut)], 0u);
  EXPECT_EQ(w[static_cast<int>(OpType::kMerge)], 3u);
  EXPECT_STREQ(OpName(OpType::kMerge), "merge");
  EXPECT_TRUE(ParseOpMix("gets=1", &w).IsInvalidArgument());
  EXPECT_TRUE(ParseOpMix("put=x", &w).IsInvalidArgument());
  EXPECT_TRUE(ParseOpMix("put=0", &w).IsInvalidArgument());
}

TEST(StressOptionsTest, RandomOptionsAreValidAndRoundTrip) {
  const std::string path = TempPath("options");
  int styles_seen[3] = {0, 0, 0};
  int successive_merges_set = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Options o = MakeStressOptions(seed, true);
    ASSERT_OK(o.Validate());
    ++styles_seen[static_cast<int>(o.compaction_style)];
    if (o.compaction_style == kCompactionStyleFIFO) {
      EXPECT_GE(o.compaction_options_fifo.max_table_files_size, uint64_t{1} << 30);
    }
    ASSERT_NE(o.merge_operator, nullptr);
    EXPECT_STREQ(o.merge_operator->Name(), kStressMergeOperatorName);
    EXPECT_LE(o.max_successive_merges, 8u);
    successive_merges_set += o.max_successive_merges > 0 ? 1 : 0;
    ASSERT_OK(SaveStressOptions(path, o));
    Options loaded;
    ASSERT_OK(LoadStressOptions(path, &loaded));
    EXPECT_EQ(GetStringFromOptions(loaded), GetStringFromOptions(o));
    ASSERT_NE(loaded.merge_operator, nullptr);
    EXPECT_STREQ(loaded.merge_operator->Name(), kStressMergeOperatorName);
  }
  for (int n : styles_seen) EXPECT_GT(n, 0);
  // Mostly 0, sometimes set.
  EXPECT_GT(successive_merges_set, 0);
  EXPECT_LT(successive_merges_set, 20);
  ASSERT_NE(MakeStressOptions(1, false).merge_operator, nullptr);
  std::remove(path.c_str());
  Options o;
  EXPECT_TRUE(LoadStressOptions(path, &o).IsNotFound());
}

TEST(StressOptionsTest, OptionsSavedBeforeMergesGetTheOperator) {
  const std::string path = TempPath("old_options");
  Options old = MakeStressOptions(5, true);
  old.merge_operator = nullptr;
  old.max_successive_merges = 0;
  ASSERT_OK(SaveStressOptions(path, old));
  Options loaded;
  ASSERT_OK(LoadStressOptions(path, &loaded));
  ASSERT_NE(loaded.merge_operator, nullptr);
  EXPECT_STREQ(loaded.merge_operator->Name(), kStressMergeOperatorName);
  EXPECT_EQ(loaded.max_successive_merges, 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace shale::stress
