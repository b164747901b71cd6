// Option scope (issue 23, column families): DB options and column-family options in strings,
// each scope's functions refusing the other's names; the default family's name and
// ColumnFamilyDescriptor.
#include <gtest/gtest.h>

#include <string>

#include "options/options_test_util.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

TEST(ColumnFamilyDescriptorTest, DefaultIsTheDefaultFamily) {
  EXPECT_EQ(kDefaultColumnFamilyName, "default");
  ColumnFamilyDescriptor d;
  EXPECT_EQ(d.name, kDefaultColumnFamilyName);
  EXPECT_EQ(d.options.write_buffer_size, ColumnFamilyOptions().write_buffer_size);
  ColumnFamilyOptions cf;
  cf.write_buffer_size = 1 << 20;
  ColumnFamilyDescriptor named("users", cf);
  EXPECT_EQ(named.name, "users");
  EXPECT_EQ(named.options.write_buffer_size, 1u << 20);
}

}  // namespace
}  // namespace shale
