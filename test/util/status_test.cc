#include "shale/status.h"

#include <gtest/gtest.h>

namespace shale {
namespace {

TEST(StatusTest, OkIsDefaultAndPrintsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(s.message().empty());
}

TEST(StatusTest, CodesMatchRocksDBNumbers) {
  EXPECT_EQ(static_cast<int>(Status::NotFound().code()), 1);
  EXPECT_EQ(static_cast<int>(Status::Corruption("x").code()), 2);
  EXPECT_EQ(static_cast<int>(Status::InvalidArgument("x").code()), 4);
  EXPECT_EQ(static_cast<int>(Status::IOError("x").code()), 5);
  EXPECT_EQ(static_cast<int>(Status::Busy("x").code()), 11);
  EXPECT_EQ(static_cast<int>(Status::TryAgain("x").code()), 13);
  EXPECT_EQ(static_cast<int>(Status::NoSpace("x").subcode()), 4);
}

TEST(StatusTest, MessagesJoinAndSubcodesShow) {
  Status s = Status::NoSpace("/db/000012.sst", "write failed");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_FALSE(s.IsPathNotFound());
  EXPECT_EQ(s.message(), "/db/000012.sst: write failed");
  EXPECT_EQ(s.ToString(), "IO error: No space left on device: /db/000012.sst: write failed");
  EXPECT_EQ(Status::Corruption("bad block").ToString(), "Corruption: bad block");
  EXPECT_TRUE(Status::PathNotFound("/x").IsPathNotFound());
}

TEST(StatusTest, CopyAndMoveKeepEverything) {
  Status a = Status::InvalidArgument("write_buffer_size", "must be positive");
  Status b = a;
  EXPECT_EQ(b.ToString(), a.ToString());
  Status c;
  c = b;
  EXPECT_TRUE(c.IsInvalidArgument());
  Status d = std::move(c);
  EXPECT_EQ(d.message(), "write_buffer_size: must be positive");
  d = Status::OK();
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a == Status::OK());
}

}  // namespace
}  // namespace shale
