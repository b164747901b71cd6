// The built-in operators uint64add, stringappend and max, and CreateMergeOperatorFromString:
// each promise of shale/merge_operator.h, the merge laws on random histories, error messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merge_operators/merge_laws.h"
#include "shale/merge_operator.h"
#include "shale/sorted_set64.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "util/random.h"

namespace shale {
namespace {

std::string U64(uint64_t v) {
  std::string s;
  PutFixed64(&s, v);
  return s;
}

std::string Merged(const MergeOperator& op, const std::optional<std::string>& value,
                   const std::vector<std::string>& operands) {
  std::string out;
  Status s = FullMergeStrings(op, value, operands, &out);
  EXPECT_OK(s);
  return out;
}

Status MergeStatus(const MergeOperator& op, const std::optional<std::string>& value,
                   const std::vector<std::string>& operands) {
  std::string out;
  return FullMergeStrings(op, value, operands, &out);
}

// ---------------------------------------------------------------- uint64add

TEST(UInt64AddTest, SumsModulo2To64) {
  auto op = NewUInt64AddOperator();
  EXPECT_STREQ(op->Name(), "uint64add");
  EXPECT_EQ(op->GetId(), "uint64add");
  EXPECT_EQ(Merged(*op, std::nullopt, {U64(5)}), U64(5));  // no value counts as 0
  EXPECT_EQ(Merged(*op, U64(10), {U64(5), U64(7)}), U64(22));
  EXPECT_EQ(Merged(*op, U64(UINT64_MAX), {U64(3)}), U64(2));
  // The encoding is RocksDB's: little-endian.
  EXPECT_EQ(U64(0x0102), std::string("\x02\x01\0\0\0\0\0\0", 8));
}

TEST(UInt64AddTest, WrongSizeFailsWithAClearMessage) {
  auto op = NewUInt64AddOperator();
  Status s = MergeStatus(*op, std::nullopt, {U64(1), "abc"});
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "merge operator uint64add failed: uint64add: operand of 3 bytes, "
                         "expected 8");
  s = MergeStatus(*op, std::string(9, 'x'), {U64(1)});
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("existing value of 9 bytes, expected 8"), std::string::npos);
  s = MergeStatus(*op, std::nullopt, {""});
  EXPECT_NE(s.message().find("operand of 0 bytes"), std::string::npos);
  // A partial merge of bad operands is refused, not an error.
  std::string out;
  EXPECT_FALSE(op->PartialMerge("k", U64(1), "abc", &out));
  EXPECT_FALSE(op->PartialMergeMulti("k", {U64(1), U64(2), "x"}, &out));
  ASSERT_TRUE(op->PartialMergeMulti("k", {U64(1), U64(2), U64(3)}, &out));
  EXPECT_EQ(out, U64(6));
}

TEST(UInt64AddTest, MergeLawsOnRandomHistories) {
  auto op = NewUInt64AddOperator();
  Random rnd(11);
  int merged = 0;
  for (int iter = 0; iter < 300; iter++) {
    std::optional<std::string> value;
    if (!rnd.OneIn(3)) value = U64(rnd.Next64());
    std::vector<std::string> operands(1 + rnd.Uniform(6));
    for (std::string& o : operands) o = U64(rnd.OneIn(2) ? rnd.Next64() : rnd.Uniform(100));
    merged += CheckMergeLaws(*op, value, operands, 3, &rnd);
  }
  EXPECT_GT(merged, 300);
}

// ---------------------------------------------------------------- stringappend

TEST(StringAppendTest, JoinsWithTheDelimiter) {
  auto op = NewStringAppendOperator();
  EXPECT_STREQ(op->Name(), "stringappend");
  EXPECT_EQ(op->GetId(), "stringappend");
  EXPECT_EQ(Merged(*op, std::string("v"), {"a", "b"}), "v,a,b");
  EXPECT_EQ(Merged(*op, std::nullopt, {"a", "b"}), "a,b");  // no leading delimiter
  EXPECT_EQ(Merged(*op, std::nullopt, {"a"}), "a");
  EXPECT_EQ(Merged(*op, std::string(), {"a"}), ",a");  // an empty value is still a value

  auto pipes = NewStringAppendOperator("||");
  EXPECT_EQ(pipes->GetId(), "stringappend:||");
  EXPECT_EQ(Merged(*pipes, std::string("v"), {"a", "b"}), "v||a||b");
  auto none = NewStringAppendOperator("");
  EXPECT_EQ(none->GetId(), "stringappend:");
  EXPECT_EQ(Merged(*none, std::string("v"), {"a", "b"}), "vab");

  std::string out;
  ASSERT_TRUE(pipes->PartialMerge("k", "a", "b", &out));
  EXPECT_EQ(out, "a||b");
  ASSERT_TRUE(pipes->PartialMergeMulti("k", {"a", "b", "c"}, &out));
  EXPECT_EQ(out, "a||b||c");
}

TEST(StringAppendTest, MergeLawsOnRandomHistories) {
  Random rnd(12);
  for (std::string_view delim : {",", "", "::"}) {
    auto op = NewStringAppendOperator(delim);
    int merged = 0;
    for (int iter = 0; iter < 200; iter++) {
      std::optional<std::string> value;
      if (!rnd.OneIn(3)) value = RandomString(&rnd, rnd.Uniform(5));
      std::vector<std::string> operands(1 + rnd.Uniform(6));
      for (std::string& o : operands) o = RandomString(&rnd, rnd.Uniform(4));
      merged += CheckMergeLaws(*op, value, operands, 3, &rnd);
    }
    EXPECT_GT(merged, 200) << "delimiter \"" << delim << "\"";
  }
}

// ---------------------------------------------------------------- max

TEST(MaxTest, KeepsTheBytewiseLargest) {
  auto op = NewMaxOperator();
  EXPECT_STREQ(op->Name(), "max");
  EXPECT_EQ(op->GetId(), "max");
  EXPECT_EQ(Merged(*op, std::string("b"), {"a", "c", "ab"}), "c");
  EXPECT_EQ(Merged(*op, std::string("z"), {"a"}), "z");
  EXPECT_EQ(Merged(*op, std::nullopt, {"a", "ab"}), "ab");  // a prefix is smaller
  EXPECT_EQ(Merged(*op, std::nullopt, {""}), "");
  // Bytes compare as unsigned: 0xff is above 'z'.
  EXPECT_EQ(Merged(*op, std::string("z"), {"\xff"}), "\xff");
  std::string out;
  ASSERT_TRUE(op->PartialMerge("k", "b", "a", &out));
  EXPECT_EQ(out, "b");
  ASSERT_TRUE(op->PartialMergeMulti("k", {"a", "\x80", "b"}, &out));
  EXPECT_EQ(out, "\x80");
}

TEST(MaxTest, MergeLawsOnRandomHistories) {
  auto op = NewMaxOperator();
  Random rnd(13);
  int merged = 0;
  for (int iter = 0; iter < 300; iter++) {
    auto random_bytes = [&rnd] {
      std::string s(rnd.Uniform(4), '\0');
      for (char& c : s) c = static_cast<char>(rnd.Uniform(4) == 0 ? 0xf0 : 'a' + rnd.Uniform(3));
      return s;
    };
    std::optional<std::string> value;
    if (!rnd.OneIn(3)) value = random_bytes();
    std::vector<std::string> operands(1 + rnd.Uniform(6));
    for (std::string& o : operands) o = random_bytes();
    merged += CheckMergeLaws(*op, value, operands, 3, &rnd);
  }
  EXPECT_GT(merged, 300);
}

// ---------------------------------------------------------------- the registry

TEST(MergeOperatorRegistryTest, NoOperator) {
  std::shared_ptr<MergeOperator> op = NewMaxOperator();
  ASSERT_OK(CreateMergeOperatorFromString("", &op));
  EXPECT_EQ(op, nullptr);
  op = NewMaxOperator();
  ASSERT_OK(CreateMergeOperatorFromString("nullptr", &op));
  EXPECT_EQ(op, nullptr);
}

TEST(MergeOperatorRegistryTest, MakesEachBuiltIn) {
  struct Case {
    const char* id;
    const char* name;
    const char* canonical_id;
  };
  for (const Case& c : {Case{"uint64add", "uint64add", "uint64add"}, Case{"max", "max", "max"},
                        Case{"stringappend", "stringappend", "stringappend"},
                        Case{"stringappend:,", "stringappend", "stringappend"},
                        Case{"stringappend:", "stringappend", "stringappend:"},
                        Case{"stringappend::", "stringappend", "stringappend::"},
                        Case{"stringappend:a:b", "stringappend", "stringappend:a:b"},
                        Case{"sortedset64", "sortedset64", "sortedset64"},
                        Case{"sortedset64:128", "sortedset64", "sortedset64"},
                        Case{"sortedset64:8", "sortedset64", "sortedset64:8"},
                        Case{"sortedset64:65536", "sortedset64", "sortedset64:65536"}}) {
    std::shared_ptr<MergeOperator> op;
    ASSERT_OK(CreateMergeOperatorFromString(c.id, &op));
    ASSERT_NE(op, nullptr) << c.id;
    EXPECT_STREQ(op->Name(), c.name) << c.id;
    EXPECT_EQ(op->GetId(), c.canonical_id) << c.id;
  }
  std::shared_ptr<MergeOperator> op;
  ASSERT_OK(CreateMergeOperatorFromString("stringappend:a:b", &op));
  EXPECT_EQ(Merged(*op, std::string("x"), {"y"}), "xa:by");
}

TEST(MergeOperatorRegistryTest, GetIdRoundTripsToAnEqualOperator) {
  const std::vector<std::shared_ptr<MergeOperator>> ops = {
      NewUInt64AddOperator(),        NewMaxOperator(),
      NewStringAppendOperator(),     NewStringAppendOperator(""),
      NewStringAppendOperator(":"),  NewStringAppendOperator("; ="),
      NewSortedSet64Operator(),      NewSortedSet64Operator(8),
      NewSortedSet64Operator(1000),  NewSortedSet64Operator(65536)};
  for (const auto& op : ops) {
    std::shared_ptr<MergeOperator> again;
    ASSERT_OK(CreateMergeOperatorFromString(op->GetId(), &again));
    ASSERT_NE(again, nullptr);
    EXPECT_STREQ(again->Name(), op->Name());
    EXPECT_EQ(again->GetId(), op->GetId());
    // Equal means merging alike: compare on histories that some built-ins accept and others
    // reject (the sortedset64 value records the operator's index_interval).
    for (const auto& [value, operands] :
         {std::pair<std::optional<std::string>, std::vector<std::string>>{
              U64(3), {U64(1), U64(2)}},
          {std::nullopt, {SortedSet64AddOperand({1, 2, 3, 500, 7000}), "12345678"}},
          {std::nullopt, {SortedSet64AddOperand({1, 2, 3, 500, 7000})}}}) {
      std::string a, b;
      Status sa = FullMergeStrings(*op, value, operands, &a);
      Status sb = FullMergeStrings(*again, value, operands, &b);
      EXPECT_EQ(sa.ToString(), sb.ToString()) << op->GetId();
      EXPECT_EQ(a, b) << op->GetId();
    }
  }
}

TEST(MergeOperatorRegistryTest, RejectsUnknownNamesAndBadParameters) {
  std::shared_ptr<MergeOperator> op = NewMaxOperator();
  Status s = CreateMergeOperatorFromString("uint64sub", &op);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(op, nullptr);
  EXPECT_NE(s.message().find("\"uint64sub\""), std::string::npos) << s.ToString();
  for (const char* known : {"uint64add", "max", "stringappend", "sortedset64"}) {
    EXPECT_NE(s.message().find(known), std::string::npos) << s.ToString();
  }
  for (const char* bad : {"sortedset64:7", "sortedset64:65537", "sortedset64:", "sortedset64:x",
                          "sortedset64:+128", "sortedset64: 128", "sortedset64:1e3",
                          "sortedset64:99999999999", "max:1", "uint64add:", "Max", " max",
                          "stringappendx", ":"}) {
    s = CreateMergeOperatorFromString(bad, &op);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace shale
