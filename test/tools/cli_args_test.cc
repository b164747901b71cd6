// The admin CLI's argument parsing and byte formatting.
#include <string>
#include <vector>

#include "cli_args.h"
#include "db_files.h"
#include "gtest/gtest.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::cli {
namespace {

const ArgSpec kScanSpec{{"from", "to", "limit"}, {"hex"}};

TEST(CliArgsTest, PositionalsAndOptionsInAnyOrder) {
  CliArgs args;
  ASSERT_OK(CliArgs::Parse({"--from=a", "/db", "--to", "z", "--hex", "--limit=5"}, kScanSpec,
                           &args));
  EXPECT_EQ(args.positional(), std::vector<std::string>{"/db"});
  EXPECT_EQ(args.Get("from"), "a");
  EXPECT_EQ(args.Get("to"), "z");
  EXPECT_TRUE(args.Has("hex"));
  EXPECT_FALSE(args.help());
  uint64_t limit = 0;
  ASSERT_OK(args.GetUint("limit", 0, &limit));
  EXPECT_EQ(limit, 5u);
  ASSERT_OK(CliArgs::Parse({"/db", "-h"}, kScanSpec, &args));
  EXPECT_TRUE(args.help());
  EXPECT_EQ(args.Get("from", "default"), "default");
}

TEST(CliArgsTest, ErrorsNameTheOption) {
  CliArgs args;
  Status s = CliArgs::Parse({"/db", "--bogus"}, kScanSpec, &args);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--bogus"), std::string::npos);
  s = CliArgs::Parse({"/db", "--from"}, kScanSpec, &args);
  EXPECT_NE(s.ToString().find("--from: needs a value"), std::string::npos) << s.ToString();
  s = CliArgs::Parse({"/db", "--hex=yes"}, kScanSpec, &args);  // a switch takes no value
  EXPECT_TRUE(s.IsInvalidArgument());
  ASSERT_OK(CliArgs::Parse({"/db", "--limit=ten"}, kScanSpec, &args));
  uint64_t limit;
  EXPECT_TRUE(args.GetUint("limit", 0, &limit).IsInvalidArgument());
}

TEST(BytesTest, PrintableEscapesOnlyWhatIsNeeded) {
  EXPECT_EQ(Printable("abc", false), "abc");
  EXPECT_EQ(Printable(std::string("a\0\\\xff", 4), false), "a\\x00\\\\\\xFF");
  EXPECT_EQ(Printable(std::string("\x01\xab", 2), true), "01AB");
}

TEST(BytesTest, HexRoundTrips) {
  Random rnd(5);
  for (int i = 0; i < 200; i++) {
    std::string bytes(rnd.Uniform(20), '\0');
    for (char& c : bytes) c = static_cast<char>(rnd.Uniform(256));
    std::string back;
    ASSERT_OK(ParseHex(Printable(bytes, true), "x", &back));
    EXPECT_EQ(back, bytes);
  }
  std::string out;
  EXPECT_OK(ParseHex("aBcD", "x", &out));
  EXPECT_EQ(out, "\xab\xcd");
  EXPECT_TRUE(ParseHex("abc", "KEY", &out).IsInvalidArgument());
  EXPECT_TRUE(ParseHex("zz", "KEY", &out).IsInvalidArgument());
}

}  // namespace
}  // namespace shale::cli
