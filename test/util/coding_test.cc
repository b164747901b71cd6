#include "util/coding.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

namespace shale {
namespace {

TEST(CodingTest, FixedRoundTripIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  PutFixed64(&s, 0x0807060504030201ull);
  PutFixed16(&s, 0x0201);
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(s[0], 1);
  EXPECT_EQ(s[3], 4);
  EXPECT_EQ(s[4], 1);
  EXPECT_EQ(s[11], 8);
  EXPECT_EQ(DecodeFixed32(s.data()), 0x04030201u);
  EXPECT_EQ(DecodeFixed64(s.data() + 4), 0x0807060504030201ull);
  EXPECT_EQ(DecodeFixed16(s.data() + 12), 0x0201);
}

TEST(CodingTest, Varint64RoundTripsEdgesAndRandom) {
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, (1ull << 32) - 1, 1ull << 32,
                                  std::numeric_limits<uint64_t>::max()};
  std::mt19937_64 rng(301);
  for (int i = 0; i < 2000; i++) values.push_back(rng() >> (rng() % 64));
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  std::string_view in(s);
  for (uint64_t v : values) {
    uint64_t got;
    size_t before = in.size();
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
    EXPECT_EQ(before - in.size(), static_cast<size_t>(VarintLength(v)));
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, Varint32RoundTrip) {
  std::string s;
  for (uint32_t v = 0; v < 100000; v += 7) PutVarint32(&s, v * 37);
  PutVarint32(&s, std::numeric_limits<uint32_t>::max());
  std::string_view in(s);
  for (uint32_t v = 0; v < 100000; v += 7) {
    uint32_t got;
    ASSERT_TRUE(GetVarint32(&in, &got));
    EXPECT_EQ(got, v * 37);
  }
  uint32_t got;
  ASSERT_TRUE(GetVarint32(&in, &got));
  EXPECT_EQ(got, std::numeric_limits<uint32_t>::max());
}

TEST(CodingTest, TruncatedVarintsAreRejected) {
  std::string s;
  PutVarint64(&s, std::numeric_limits<uint64_t>::max());
  for (size_t len = 0; len < s.size(); len++) {
    std::string_view in(s.data(), len);
    uint64_t v;
    EXPECT_FALSE(GetVarint64(&in, &v)) << len;
  }
  std::string s32;
  PutVarint32(&s32, std::numeric_limits<uint32_t>::max());
  for (size_t len = 0; len < s32.size(); len++) {
    std::string_view in(s32.data(), len);
    uint32_t v;
    EXPECT_FALSE(GetVarint32(&in, &v)) << len;
  }
}

TEST(CodingTest, OverlongVarintsAreRejected) {
  std::string eleven(11, '\xff');
  std::string_view in(eleven);
  uint64_t v;
  EXPECT_FALSE(GetVarint64(&in, &v));
  // A 5-byte varint32 whose last byte carries more than 4 bits overflows 32 bits.
  std::string over = "\xff\xff\xff\xff\x1f";
  std::string_view in32(over);
  uint32_t v32;
  EXPECT_FALSE(GetVarint32(&in32, &v32));
}

TEST(CodingTest, LengthPrefixed) {
  std::string s;
  PutLengthPrefixed(&s, "");
  PutLengthPrefixed(&s, "foo");
  PutLengthPrefixed(&s, std::string(300, 'x'));
  std::string_view in(s), v;
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, "");
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, "foo");
  ASSERT_TRUE(GetLengthPrefixed(&in, &v));
  EXPECT_EQ(v, std::string(300, 'x'));
  EXPECT_TRUE(in.empty());
  // A length that claims more bytes than remain.
  std::string bad;
  PutVarint32(&bad, 10);
  bad += "abc";
  std::string_view bin(bad);
  EXPECT_FALSE(GetLengthPrefixed(&bin, &v));
}

TEST(CodingTest, FixedGettersRejectShortInput) {
  std::string_view in("abc");
  uint32_t v32;
  uint64_t v64;
  EXPECT_FALSE(GetFixed32(&in, &v32));
  EXPECT_FALSE(GetFixed64(&in, &v64));
}

}  // namespace
}  // namespace shale
