// The pieces of tools/shale_stress: value codec, expected-state file, durability rules,
// verification rules, operation mix and options.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "durability.h"
#include "expected_state.h"
#include "gtest/gtest.h"
#include "stress_config.h"
#include "stress_options.h"
#include "testutil/status_matchers.h"
#include "value_codec.h"
#include "verifier.h"

namespace shale::stress {
namespace {

std::string TempPath(const std::string& name) {
  return testing::TempDir() + "/stress_pieces_" + std::to_string(getpid()) + "_" + name;
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
  const std::vector<Member> members = {{3, MakeWord(7, false)}, {9, MakeWord(2, true)}};
  const std::string v = EncodeValue(3, MakeWord(7, false), members, 50);
  DecodedValue d;
  std::string error;
  ASSERT_TRUE(DecodeValue(v, &d, &error)) << error;
  EXPECT_EQ(d.key, 3u);
  EXPECT_EQ(d.word, MakeWord(7, false));
  EXPECT_EQ(d.members, members);

  std::string damaged = v;
  damaged.back() = damaged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(DecodeValue(damaged, &d, &error));
  EXPECT_NE(error.find("filler"), std::string::npos);
  EXPECT_FALSE(DecodeValue("S1|3|", &d, &error));
  EXPECT_FALSE(DecodeValue(EncodeValue(3, MakeWord(7, true), {}, 0), &d, &error));
  EXPECT_FALSE(DecodeValue("S1|3|14|1:x|", &d, &error));
}

TEST(ValueCodecTest, Words) {
  EXPECT_TRUE(IsAbsentWord(0));
  EXPECT_TRUE(IsAbsentWord(MakeWord(5, true)));
  EXPECT_FALSE(IsAbsentWord(MakeWord(5, false)));
  EXPECT_EQ(Gen(MakeWord(5, true)), 5u);
  EXPECT_EQ(DescribeWord(MakeWord(5, true)), "g5:del");
}

TEST(ExpectedStateTest, SurvivesReopenAndRejectsOtherMaxKey) {
  const std::string path = TempPath("expected");
  std::remove(path.c_str());
  {
    std::unique_ptr<ExpectedState> s;
    ASSERT_OK(ExpectedState::Open(path, 100, &s));
    EXPECT_EQ(s->Acked(7), 0u);
    const GenWord w1 = s->NextWord(7, false);
    EXPECT_EQ(Gen(w1), 1u);
    s->MarkPending(7, w1);
    s->Commit(7);
    const GenWord w2 = s->NextWord(7, true);
    s->MarkPending(7, w2);  // left in flight, as by a killed process
  }
  std::unique_ptr<ExpectedState> s;
  ASSERT_OK(ExpectedState::Open(path, 100, &s));
  EXPECT_EQ(s->Acked(7), MakeWord(1, false));
  EXPECT_EQ(s->Pending(7), MakeWord(2, true));
  EXPECT_EQ(s->AllowedAfterCrash(7), (std::vector<GenWord>{MakeWord(1, false), MakeWord(2, true)}));
  EXPECT_EQ(s->CountPending(), 1u);
  // Verification found the older write: generation 2 is still never reused.
  s->Reset(7, MakeWord(1, false));
  EXPECT_EQ(s->Pending(7), 0u);
  EXPECT_EQ(Gen(s->NextWord(7, false)), 3u);

  std::unique_ptr<ExpectedState> other;
  Status st = ExpectedState::Open(path, 200, &other);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
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
  EXPECT_EQ(s->Acked(3), 0u);
  s.reset();
  ASSERT_OK(ExpectedState::Open(path, 10, &s));  // now with a real header
  std::remove(path.c_str());
}

TEST(DurabilityTrackerTest, UnsyncedWritesMayBeLostSyncedOnesAndTheirPastMayNot) {
  const GenWord init = MakeWord(1, false);
  DurabilityTracker t({init, init, init});
  // Key 0: an acknowledged unsynced write: either state may survive.
  t.Issue(0, MakeWord(2, false));
  t.Acknowledge(0, t.NextTicket(), false);
  EXPECT_EQ(t.AllowedAfterPowerLoss(0), (std::vector<GenWord>{init, MakeWord(2, false)}));
  // A synced write of key 1 issued now makes key 0's write durable.
  const uint64_t clock = t.Clock();
  t.Issue(1, MakeWord(2, true));
  // Key 2: acknowledged after the synced write was issued: not covered by it.
  t.Issue(2, MakeWord(2, false));
  t.Acknowledge(2, t.NextTicket(), false);
  t.Acknowledge(1, t.NextTicket(), true);
  t.MarkDurable(clock);
  EXPECT_EQ(t.AllowedAfterPowerLoss(0), (std::vector<GenWord>{MakeWord(2, false)}));
  EXPECT_EQ(t.AllowedAfterPowerLoss(1), (std::vector<GenWord>{MakeWord(2, true)}));
  EXPECT_EQ(t.AllowedAfterPowerLoss(2), (std::vector<GenWord>{init, MakeWord(2, false)}));
  // A write never acknowledged may or may not have landed.
  t.Issue(1, MakeWord(3, false));
  EXPECT_EQ(t.AllowedAfterPowerLoss(1),
            (std::vector<GenWord>{MakeWord(2, true), MakeWord(3, false)}));
}

Found Present(GenWord w, std::vector<Member> members = {}) {
  Found f;
  f.present = true;
  f.word = w;
  f.members = std::move(members);
  return f;
}

TEST(CheckStateTest, AcceptsAllowedStatesAndResolvesAbsentKeys) {
  const std::vector<std::vector<GenWord>> allowed = {
      {MakeWord(1, false)}, {MakeWord(1, false), MakeWord(2, true)}, {0}};
  const std::vector<Found> found = {Present(MakeWord(1, false)), Found(), Found()};
  VerifyResult r = CheckState(found, [&](uint32_t k) { return allowed[k]; });
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.keys_checked, 3u);
  EXPECT_EQ(r.keys_present, 1u);
  EXPECT_EQ(r.resolved, (std::vector<GenWord>{MakeWord(1, false), MakeWord(2, true), 0}));
}

TEST(CheckStateTest, ReportsLostAndUnknownWrites) {
  const std::vector<std::vector<GenWord>> allowed = {{MakeWord(3, false)}, {MakeWord(3, false)}};
  const std::vector<Found> found = {Found(), Present(MakeWord(2, false))};
  VerifyResult r = CheckState(found, [&](uint32_t k) { return allowed[k]; });
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_NE(r.failures[0].find("key 0000000000: found absent, allowed {g3:put}"),
            std::string::npos)
      << r.failures[0];
}

TEST(CheckStateTest, MultiKeyWritesAreAllOrNothing) {
  // A batch wrote key 0 (put g2), key 1 (put g2) and key 2 (delete g2). Every key may hold its
  // old or its batch generation.
  const std::vector<Member> batch = {
      {0, MakeWord(2, false)}, {1, MakeWord(2, false)}, {2, MakeWord(2, true)}};
  auto allowed = [](uint32_t k) {
    return std::vector<GenWord>{MakeWord(1, false), MakeWord(2, k == 2)};
  };
  // All of it: fine.
  EXPECT_TRUE(CheckState({Present(MakeWord(2, false), batch), Present(MakeWord(2, false), batch),
                          Found()},
                         allowed)
                  .failures.empty());
  // None of it: fine.
  EXPECT_TRUE(CheckState({Present(MakeWord(1, false)), Present(MakeWord(1, false)),
                          Present(MakeWord(1, false))},
                         allowed)
                  .failures.empty());
  // Half of it: key 1 and key 2 miss the batch.
  VerifyResult r = CheckState({Present(MakeWord(2, false), batch), Present(MakeWord(1, false)),
                               Present(MakeWord(1, false))},
                              allowed);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_NE(r.failures[0].find("not all or nothing"), std::string::npos) << r.failures[0];
}

TEST(OpMixTest, ParsesAndRejects) {
  OpWeights w{};
  ASSERT_OK(ParseOpMix(kDefaultOpMix, &w));
  EXPECT_EQ(w[static_cast<int>(OpType::kPut)], 400u);
  ASSERT_OK(ParseOpMix("get=1", &w));
  EXPECT_EQ(w[static_cast<int>(OpType::kPut)], 0u);
  EXPECT_TRUE(ParseOpMix("gets=1", &w).IsInvalidArgument());
  EXPECT_TRUE(ParseOpMix("put=x", &w).IsInvalidArgument());
  EXPECT_TRUE(ParseOpMix("put=0", &w).IsInvalidArgument());
}

TEST(StressOptionsTest, RandomOptionsAreValidAndRoundTrip) {
  const std::string path = TempPath("options");
  int styles_seen[3] = {0, 0, 0};
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Options o = MakeStressOptions(seed, true);
    ASSERT_OK(o.Validate());
    ++styles_seen[static_cast<int>(o.compaction_style)];
    if (o.compaction_style == kCompactionStyleFIFO) {
      EXPECT_GE(o.compaction_options_fifo.max_table_files_size, uint64_t{1} << 30);
    }
    ASSERT_OK(SaveStressOptions(path, o));
    Options loaded;
    ASSERT_OK(LoadStressOptions(path, &loaded));
    EXPECT_EQ(GetStringFromOptions(loaded), GetStringFromOptions(o));
  }
  for (int n : styles_seen) EXPECT_GT(n, 0);
  std::remove(path.c_str());
  Options o;
  EXPECT_TRUE(LoadStressOptions(path, &o).IsNotFound());
}

}  // namespace
}  // namespace shale::stress
