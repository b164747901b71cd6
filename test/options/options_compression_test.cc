// The compression types RocksDB clients set (issue 24): Snappy, zlib, LZ4 and LZ4HC are valid for
// compression and bottommost_compression and survive the option string and the OPTIONS file by
// RocksDB's names; bzip2 and xpress are refused with InvalidArgument naming the option,
// the type and the supported ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr const char* kSupported =
    "(supported: kNoCompression, kSnappyCompression, kZlibCompression, kLZ4Compression, "
    "kLZ4HCCompression, kZSTD";

struct Named {
  CompressionType type;
  const char* name;
};
constexpr Named kBuilt[] = {{kSnappyCompression, "kSnappyCompression"},
                            {kZlibCompression, "kZlibCompression"},
                            {kLZ4Compression, "kLZ4Compression"},
                            {kLZ4HCCompression, "kLZ4HCCompression"},
                            {kZSTD, "kZSTD"},
                            {kNoCompression, "kNoCompression"}};
constexpr Named kUnbuilt[] = {{kBZip2Compression, "kBZip2Compression"},
                              {kXpressCompression, "kXpressCompression"}};

TEST(OptionsCompressionTest, BuiltTypesAreValidEverywhere) {
  for (const Named& t : kBuilt) {
    SCOPED_TRACE(t.name);
    Options o;
    o.compression = t.type;
    EXPECT_OK(o.Validate());
    o = Options();
    o.bottommost_compression = t.type;
    EXPECT_OK(o.Validate());
    o.compression = t.type;
    o.compression_level = 0;
    EXPECT_OK(o.Validate());
  }
}

TEST(OptionsCompressionTest, UnbuiltTypesAreRefusedNamingTypeAndSupportedOnes) {
  for (const Named& t : kUnbuilt) {
    SCOPED_TRACE(t.name);
    Options o;
    o.compression = t.type;
    EXPECT_EQ(o.Validate().ToString(),
              std::string("Invalid argument: compression: not supported by this build ") +
                  kSupported + "); got " + t.name);
    o = Options();
    o.bottommost_compression = t.type;
    EXPECT_EQ(o.Validate().ToString(),
              std::string("Invalid argument: bottommost_compression: not supported by this "
                          "build ") +
                  kSupported + ", kDisableCompressionOption); got " + t.name);
  }
}

TEST(OptionsCompressionTest, OptionStringRoundTrip) {
  for (const Named& upper : kBuilt) {
    for (const Named& bottom : kBuilt) {
      const std::string text =
          std::string("compression=") + upper.name + ";bottommost_compression=" + bottom.name;
      SCOPED_TRACE(text);
      Options parsed;
      ASSERT_OK(GetOptionsFromString(Options(), text, &parsed));
      EXPECT_EQ(parsed.compression, upper.type);
      EXPECT_EQ(parsed.bottommost_compression, bottom.type);
      EXPECT_OK(parsed.Validate());
      const std::string printed = GetStringFromOptions(parsed);
      EXPECT_NE(printed.find(std::string("compression=") + upper.name + ";"), std::string::npos)
          << printed;
      Options again;
      ASSERT_OK(GetOptionsFromString(Options(), printed, &again));
      EXPECT_EQ(again.compression, upper.type);
      EXPECT_EQ(again.bottommost_compression, bottom.type);
      EXPECT_EQ(GetStringFromOptions(again), printed);
    }
  }
  // The unbuilt names parse (they are RocksDB's) and fail validation, not parsing.
  for (const Named& t : kUnbuilt) {
    Options parsed;
    ASSERT_OK(GetOptionsFromString(Options(), std::string("compression=") + t.name, &parsed));
    EXPECT_EQ(parsed.compression, t.type);
    EXPECT_TRUE(parsed.Validate().IsInvalidArgument());
  }
}

TEST(OptionsCompressionTest, ColumnFamilyOptionsStringTakesTheNames) {
  ColumnFamilyOptions cf;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      ColumnFamilyOptions(), "compression=kLZ4HCCompression;bottommost_compression=kLZ4Compression",
      &cf));
  EXPECT_EQ(cf.compression, kLZ4HCCompression);
  EXPECT_EQ(cf.bottommost_compression, kLZ4Compression);
  std::string printed;
  ASSERT_OK(GetStringFromColumnFamilyOptions(&printed, cf));
  EXPECT_NE(printed.find("compression=kLZ4HCCompression;"), std::string::npos) << printed;
  EXPECT_NE(printed.find("bottommost_compression=kLZ4Compression;"), std::string::npos) << printed;
}

TEST(OptionsCompressionTest, OptionsFileRoundTrip) {
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  for (const Named& upper : kBuilt) {
    SCOPED_TRACE(upper.name);
    Options options;
    options.compression = upper.type;
    options.bottommost_compression = kLZ4HCCompression;
    ASSERT_OK(WriteOptionsFile(fs.get(), "/OPTIONS", options));
    std::string text;
    ASSERT_OK(ReadFileToString(fs.get(), "/OPTIONS", &text));
    EXPECT_NE(text.find(std::string("compression=") + upper.name + "\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("bottommost_compression=kLZ4HCCompression\n"), std::string::npos) << text;
    Options loaded;
    std::vector<std::string> warnings;
    ASSERT_OK(LoadOptionsFromFile(fs.get(), "/OPTIONS", &loaded, &warnings));
    EXPECT_TRUE(warnings.empty()) << testing::PrintToString(warnings);
    EXPECT_EQ(loaded.compression, upper.type);
    EXPECT_EQ(loaded.bottommost_compression, kLZ4HCCompression);
    EXPECT_OK(loaded.Validate());
  }
}

}  // namespace
}  // namespace shale
