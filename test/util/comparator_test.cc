#include "shale/comparator.h"

#include <gtest/gtest.h>

#include <random>

namespace shale {
namespace {

TEST(BytewiseComparatorTest, OrdersUnsignedBytes) {
  const Comparator* c = BytewiseComparator();
  EXPECT_LT(c->Compare("a", "b"), 0);
  EXPECT_LT(c->Compare("a", "ab"), 0);
  EXPECT_GT(c->Compare("\xff", "\x01"), 0);
  EXPECT_EQ(c->Compare("abc", "abc"), 0);
  EXPECT_STREQ(c->Name(), "leveldb.BytewiseComparator");
}

TEST(BytewiseComparatorTest, SeparatorStaysInRangeAndShortens) {
  const Comparator* c = BytewiseComparator();
  std::string s = "abcdefgh";
  c->FindShortestSeparator(&s, "abzz");
  EXPECT_EQ(s, "abd");
  std::string prefix = "abc";
  c->FindShortestSeparator(&prefix, "abcdef");
  EXPECT_EQ(prefix, "abc");
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; i++) {
    std::string a(rng() % 6, 'a'), b(rng() % 6, 'a');
    for (auto& ch : a) ch = static_cast<char>(rng() % 4 + 'a' - 1 + (rng() % 2) * 200);
    for (auto& ch : b) ch = static_cast<char>(rng() % 4 + 'a' - 1 + (rng() % 2) * 200);
    if (c->Compare(a, b) >= 0) continue;
    std::string sep = a;
    c->FindShortestSeparator(&sep, b);
    EXPECT_LE(c->Compare(a, sep), 0);
    EXPECT_LT(c->Compare(sep, b), 0);
  }
}

TEST(BytewiseComparatorTest, SuccessorIsNotSmaller) {
  const Comparator* c = BytewiseComparator();
  std::string k = "abc";
  c->FindShortSuccessor(&k);
  EXPECT_EQ(k, "b");
  std::string ff = "\xff\xff";
  c->FindShortSuccessor(&ff);
  EXPECT_EQ(ff, "\xff\xff");
  std::string mid = "\xff" "a";
  c->FindShortSuccessor(&mid);
  EXPECT_EQ(mid, "\xff" "b");
}

}  // namespace
}  // namespace shale
