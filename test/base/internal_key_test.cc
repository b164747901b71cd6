#include "base/internal_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "testutil/status_matchers.h"

namespace shale {
namespace {

TEST(InternalKeyTest, EncodeDecodeRoundTrip) {
  for (std::string user : {std::string(""), std::string("k"), std::string(1000, 'z')}) {
    for (SequenceNumber seq : {SequenceNumber{0}, SequenceNumber{1}, kMaxSequenceNumber}) {
      for (ValueType t : {kTypeValue, kTypeDeletion, kTypeMerge, kTypeSingleDeletion,
                          kTypeRangeDeletion}) {
        std::string ikey = MakeInternalKey(user, seq, t);
        ParsedInternalKey parsed;
        ASSERT_OK(ParseInternalKey(ikey, &parsed));
        EXPECT_EQ(parsed.user_key, user);
        EXPECT_EQ(parsed.sequence, seq);
        EXPECT_EQ(parsed.type, t);
        EXPECT_EQ(ExtractSequence(ikey), seq);
        EXPECT_EQ(ExtractValueType(ikey), t);
      }
    }
  }
}

TEST(InternalKeyTest, BadKeysAreCorruption) {
  ParsedInternalKey parsed;
  EXPECT_TRUE(ParseInternalKey("short", &parsed).IsCorruption());
  std::string bad = "user";
  PutFixed64(&bad, (uint64_t{5} << 8) | 0x55);  // unknown type
  EXPECT_TRUE(ParseInternalKey(bad, &parsed).IsCorruption());
}

TEST(InternalKeyComparatorTest, UserKeyAscendingThenNewestFirst) {
  InternalKeyComparator icmp(BytewiseComparator());
  EXPECT_LT(icmp.Compare(MakeInternalKey("a", 1, kTypeValue), MakeInternalKey("b", 9, kTypeValue)), 0);
  EXPECT_LT(icmp.Compare(MakeInternalKey("a", 9, kTypeValue), MakeInternalKey("a", 1, kTypeValue)), 0);
  EXPECT_LT(icmp.Compare(MakeInternalKey("a", 5, kTypeValue), MakeInternalKey("a", 5, kTypeDeletion)), 0);
  // A lookup key at sequence 5 sorts before every entry of its user key with sequence <= 5.
  LookupKey lk("a", 5);
  EXPECT_LT(icmp.Compare(lk.internal_key(), MakeInternalKey("a", 5, kTypeValue)), 0);
  EXPECT_GT(icmp.Compare(lk.internal_key(), MakeInternalKey("a", 6, kTypeValue)), 0);
  EXPECT_EQ(lk.user_key(), "a");
}

TEST(InternalKeyComparatorTest, SeparatorsAndSuccessorsKeepOrder) {
  InternalKeyComparator icmp(BytewiseComparator());
  std::mt19937 rng(11);
  for (int i = 0; i < 3000; i++) {
    std::string ua(1 + rng() % 8, 'a'), ub(1 + rng() % 8, 'a');
    for (auto& c : ua) c = static_cast<char>('a' + rng() % 3);
    for (auto& c : ub) c = static_cast<char>('a' + rng() % 3);
    std::string a = MakeInternalKey(ua, rng() % 100, kTypeValue);
    std::string b = MakeInternalKey(ub, rng() % 100, kTypeValue);
    if (icmp.Compare(a, b) >= 0) std::swap(a, b);
    if (icmp.Compare(a, b) == 0) continue;
    std::string sep = a;
    icmp.FindShortestSeparator(&sep, b);
    EXPECT_LE(icmp.Compare(a, sep), 0);
    EXPECT_LT(icmp.Compare(sep, b), 0);
    std::string succ = a;
    icmp.FindShortSuccessor(&succ);
    EXPECT_LE(icmp.Compare(a, succ), 0);
  }
}

TEST(LookupKeyTest, MemtableKeyHasLengthPrefix) {
  LookupKey lk("hello", 42);
  std::string_view mk = lk.memtable_key();
  uint32_t len;
  ASSERT_TRUE(GetVarint32(&mk, &len));
  EXPECT_EQ(len, 5u + 8u);
  EXPECT_EQ(mk, lk.internal_key());
  EXPECT_EQ(ExtractSequence(lk.internal_key()), 42u);
}

}  // namespace
}  // namespace shale
