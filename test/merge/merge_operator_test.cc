// The default behaviour of MergeOperator and AssociativeMergeOperator, and merge_helper.h's
// FullMerge / TryPartialMerge, with small test operators.
#include "shale/merge_operator.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "merge/merge_helper.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// Concatenates operands onto the value; PartialMerge concatenates unless an operand is "x".
// Counts calls so tests can see which entry point the helper used.
class ConcatOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    if (in.existing_value != nullptr) out->new_value.assign(*in.existing_value);
    for (std::string_view o : in.operand_list) {
      if (o == "bad") {
        out->error_message = "operand is bad";
        return false;
      }
      out->new_value.append(o);
    }
    return true;
  }
  bool PartialMerge(std::string_view, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    partial_calls++;
    if (left == "x" || right == "x") return false;
    *new_value = std::string(left) + std::string(right);
    return true;
  }
  const char* Name() const override { return "concat"; }

  mutable int partial_calls = 0;
};

// Only FullMergeV2: every other member keeps its default.
class MinimalOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput&, MergeOperationOutput* out) const override {
    out->new_value = "full";
    return true;
  }
  const char* Name() const override { return "minimal"; }
};

// Points at its last operand instead of writing new_value; fails silently on "silent".
class PointingOperator : public MinimalOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    if (in.operand_list.back() == "silent") return false;
    out->existing_operand = in.operand_list.back();
    return true;
  }
  bool AllowSingleOperand() const override { return true; }
  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operands,
                         std::string* new_value) const override {
    multi_calls++;
    new_value->assign("multi" + std::to_string(operands.size()));
    return true;
  }
  mutable int multi_calls = 0;
};

// Associative: comma-joins; "bad" fails with a message, "quiet" fails without one.
class JoinOperator : public AssociativeMergeOperator {
 public:
  bool Merge(std::string_view, const std::string_view* existing, std::string_view value,
             std::string* new_value, std::string* error_message) const override {
    if (value == "bad" || value == "quiet") {
      if (value == "bad" && error_message != nullptr) *error_message = "bad operand";
      return false;
    }
    *new_value = existing == nullptr ? std::string(value)
                                     : std::string(*existing) + "," + std::string(value);
    return true;
  }
  const char* Name() const override { return "join"; }
};

TEST(MergeOperatorTest, DefaultsOfTheBaseClass) {
  MinimalOperator op;
  std::string out = "untouched";
  EXPECT_FALSE(op.PartialMerge("k", "a", "b", &out));
  EXPECT_FALSE(op.PartialMergeMulti("k", {"a", "b", "c"}, &out));
  EXPECT_EQ(out, "untouched");
  EXPECT_EQ(op.GetId(), "minimal");
  EXPECT_FALSE(op.AllowSingleOperand());
  EXPECT_FALSE(op.ShouldMerge({"a", "b"}));
}

TEST(MergeOperatorTest, PartialMergeMultiFoldsFromTheOldest) {
  ConcatOperator op;
  std::string out;
  ASSERT_TRUE(op.PartialMergeMulti("k", {"a", "b", "c", "d"}, &out));
  EXPECT_EQ(out, "abcd");
  EXPECT_EQ(op.partial_calls, 3);
  // Fewer than two operands: nothing to combine.
  EXPECT_FALSE(op.PartialMergeMulti("k", {"a"}, &out));
  EXPECT_FALSE(op.PartialMergeMulti("k", {}, &out));
  // One failing step fails the whole fold and leaves the output alone.
  out = "keep";
  EXPECT_FALSE(op.PartialMergeMulti("k", {"a", "b", "x", "d"}, &out));
  EXPECT_EQ(out, "keep");
}

TEST(MergeOperatorTest, AssociativeFullMergeFoldsValueAndOperands) {
  JoinOperator op;
  std::string out;
  std::string_view v = "v";
  ASSERT_OK(FullMerge(&op, "k", &v, {"a", "b"}, &out));
  EXPECT_EQ(out, "v,a,b");
  ASSERT_OK(FullMerge(&op, "k", nullptr, {"a", "b"}, &out));
  EXPECT_EQ(out, "a,b");
  std::string pm;
  ASSERT_TRUE(op.PartialMerge("k", "a", "b", &pm));
  EXPECT_EQ(pm, "a,b");
  EXPECT_FALSE(op.PartialMerge("k", "a", "bad", &pm));
  ASSERT_TRUE(op.PartialMergeMulti("k", {"a", "b", "c"}, &pm));
  EXPECT_EQ(pm, "a,b,c");
}

TEST(MergeOperatorTest, AssociativeFailureCarriesTheMessage) {
  JoinOperator op;
  std::string out;
  Status s = FullMerge(&op, "k", nullptr, {"a", "bad"}, &out);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.message(), "merge operator join failed: bad operand");
  // A Merge that gives no reason gets a generic one naming the operator.
  s = FullMerge(&op, "k", nullptr, {"a", "quiet"}, &out);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "merge operator join failed: join: merge failed");
}

TEST(MergeHelperTest, FullMergeResultAndErrors) {
  ConcatOperator concat;
  std::string out = "stale";
  std::string_view v = "v";
  ASSERT_OK(FullMerge(&concat, "k", &v, {"1", "2"}, &out));
  EXPECT_EQ(out, "v12");
  Status s = FullMerge(&concat, "k", &v, {"1", "bad"}, &out);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "merge operator concat failed: operand is bad");

  // A result pointing at an input is copied out (the input may die with the call's caller).
  PointingOperator pointing;
  std::vector<std::string> owned = {"first", "last"};
  std::vector<std::string_view> operands(owned.begin(), owned.end());
  ASSERT_OK(FullMerge(&pointing, "k", nullptr, operands, &out));
  owned[1] = "XXXX";
  EXPECT_EQ(out, "last");
  // A failure without a message still names the operator.
  s = FullMerge(&pointing, "k", nullptr, {"silent"}, &out);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "merge operator minimal failed");
}

TEST(MergeHelperTest, TryPartialMergePicksTheEntryPoint) {
  ConcatOperator concat;  // AllowSingleOperand() is false
  std::string out;
  EXPECT_FALSE(TryPartialMerge(&concat, "k", {}, &out));
  EXPECT_FALSE(TryPartialMerge(&concat, "k", {"a"}, &out));
  EXPECT_EQ(concat.partial_calls, 0);
  ASSERT_TRUE(TryPartialMerge(&concat, "k", {"a", "b"}, &out));
  EXPECT_EQ(out, "ab");
  EXPECT_EQ(concat.partial_calls, 1);
  ASSERT_TRUE(TryPartialMerge(&concat, "k", {"a", "b", "c"}, &out));
  EXPECT_EQ(out, "abc");
  EXPECT_FALSE(TryPartialMerge(&concat, "k", {"a", "x"}, &out));

  PointingOperator pointing;  // AllowSingleOperand() is true
  ASSERT_TRUE(TryPartialMerge(&pointing, "k", {"a"}, &out));
  EXPECT_EQ(out, "multi1");
  ASSERT_TRUE(TryPartialMerge(&pointing, "k", {"a", "b", "c"}, &out));
  EXPECT_EQ(out, "multi3");
  EXPECT_EQ(pointing.multi_calls, 2);
  EXPECT_FALSE(TryPartialMerge(&pointing, "k", {}, &out));
}

}  // namespace
}  // namespace shale
