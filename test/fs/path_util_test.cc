#include "fs/path_util.h"

#include <gtest/gtest.h>

namespace shale {
namespace {

TEST(PathUtilTest, NormalizeCollapsesSlashesAndStripsTheTrailingOne) {
  EXPECT_EQ(NormalizePath("//a//b/"), "/a/b");
  EXPECT_EQ(NormalizePath("/a/b"), "/a/b");
  EXPECT_EQ(NormalizePath("a/"), "a");
  EXPECT_EQ(NormalizePath("a///b"), "a/b");
  EXPECT_EQ(NormalizePath("/"), "/");
  EXPECT_EQ(NormalizePath("///"), "/");
  EXPECT_EQ(NormalizePath(""), "");
}

TEST(PathUtilTest, ParentDirAndBaseName) {
  EXPECT_EQ(ParentDir("/a/b"), "/a");
  EXPECT_EQ(ParentDir("/a"), "/");
  EXPECT_EQ(ParentDir("/"), "/");
  EXPECT_EQ(ParentDir("a"), "");
  EXPECT_EQ(ParentDir("a/b"), "a");
  EXPECT_EQ(BaseName("/a/b"), "b");
  EXPECT_EQ(BaseName("a"), "a");
  EXPECT_EQ(BaseName("/"), "");
}

}  // namespace
}  // namespace shale
