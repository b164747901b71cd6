#include "base/filename.h"

#include <gtest/gtest.h>

namespace shale {
namespace {

TEST(FileNameTest, MakesTheDocumentedNames) {
  EXPECT_EQ(TableFileName("/db", 123), "/db/000123.sst");
  EXPECT_EQ(WalFileName("/db", 124), "/db/000124.log");
  EXPECT_EQ(DescriptorFileName("/db", 5), "/db/MANIFEST-000005");
  EXPECT_EQ(OptionsFileName("/db", 7), "/db/OPTIONS-000007");
  EXPECT_EQ(CurrentFileName("/db"), "/db/CURRENT");
  EXPECT_EQ(LockFileName("/db"), "/db/LOCK");
  EXPECT_EQ(InfoLogFileName("/db"), "/db/LOG");
  EXPECT_EQ(TempFileName("/db", 8), "/db/000008.dbtmp");
  EXPECT_EQ(TableFileName("/db", 12345678), "/db/12345678.sst");
}

TEST(FileNameTest, ParsesWhatItMakes) {
  struct Case {
    const char* name;
    uint64_t number;
    FileType type;
  } cases[] = {
      {"000123.sst", 123, FileType::kTableFile},
      {"18446744073709551615.log", 18446744073709551615ull, FileType::kWalFile},
      {"MANIFEST-000005", 5, FileType::kDescriptorFile},
      {"OPTIONS-000007", 7, FileType::kOptionsFile},
      {"CURRENT", 0, FileType::kCurrentFile},
      {"LOCK", 0, FileType::kLockFile},
      {"LOG", 0, FileType::kInfoLogFile},
      {"LOG.old.3", 3, FileType::kInfoLogFile},
      {"000008.dbtmp", 8, FileType::kTempFile},
  };
  for (const Case& c : cases) {
    uint64_t number = 99;
    FileType type;
    ASSERT_TRUE(ParseFileName(c.name, &number, &type)) << c.name;
    EXPECT_EQ(number, c.number) << c.name;
    EXPECT_EQ(type, c.type) << c.name;
  }
}

TEST(FileNameTest, RejectsForeignNames) {
  for (const char* name : {"", "foo", "foo-dx-100.log", ".log", "100", "100.", "100.sstx",
                           "MANIFEST", "MANIFEST-", "MANIFEST-3x", "CURRENTX", "LOG.old.",
                           "-1.sst", "+1.sst", "99999999999999999999999.log"}) {
    uint64_t number;
    FileType type;
    EXPECT_FALSE(ParseFileName(name, &number, &type)) << name;
  }
}

}  // namespace
}  // namespace shale
