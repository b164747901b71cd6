// TableFileSink: a sorted stream becomes table files cut near the target size, each one
// ingestible (InspectExternalFile: the DB's comparator, sequence 0, keys in order), in key order
// without overlap; an unsupported compression fails the first Add.
#include "bulk/table_sink.h"

#include <cstdio>
#include <string>

#include "db/external_file.h"
#include "gtest/gtest.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::bulk {
namespace {

class TableSinkTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_->CreateDirIfMissing("/out")); }

  // Printable bytes that zstd cannot shrink much, so files fill up with or without it.
  static std::string RandomString(Random* rnd, size_t n) {
    std::string s(n, ' ');
    for (char& c : s) c = static_cast<char>(' ' + rnd->Uniform(95));
    return s;
  }

  TableSinkOptions Options(CompressionType compression) {
    TableSinkOptions o;
    o.file_system = fs_.get();
    o.compression = compression;
    o.compression_level = 1;
    o.comparator = &icmp_;
    o.target_file_size = 64 << 10;
    o.path_prefix = "/out/t-";
    return o;
  }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  InternalKeyComparator icmp_{BytewiseComparator()};
};

TEST_F(TableSinkTest, CutsIngestibleFilesInKeyOrder) {
  for (CompressionType compression :
       {kNoCompression, kZSTD, kSnappyCompression, kLZ4Compression, kLZ4HCCompression}) {
    TableFileSink sink(Options(compression));
    Random rnd(17);
    const int n = 20000;
    for (int i = 0; i < n; i++) {
      char key[16];
      std::snprintf(key, sizeof(key), "key%08d", i);
      ASSERT_OK(sink.Add(key, RandomString(&rnd, 30)));
    }
    ASSERT_OK(sink.Finish());
    EXPECT_EQ(sink.entries(), static_cast<uint64_t>(n));
    ASSERT_GT(sink.files().size(), 2u);
    EXPECT_EQ(sink.files(), sink.created_files());
    uint64_t entries = 0, bytes = 0;
    std::string previous_largest;
    for (size_t i = 0; i < sink.files().size(); i++) {
      const std::string& path = sink.files()[i];
      char expected[32];
      std::snprintf(expected, sizeof(expected), "/out/t-%06zu.sst", i + 1);
      EXPECT_EQ(path, expected);
      ExternalFileInfo info;
      ASSERT_OK(InspectExternalFile(fs_.get(), icmp_, path, true, &info));
      entries += info.meta.num_entries;
      bytes += info.meta.file_size;
      EXPECT_LT(previous_largest, info.smallest_user_key);
      previous_largest = info.largest_user_key;
      // Cut once the target is reached: every file but the last one is at least that big and
      // at most a block or so more.
      if (i + 1 < sink.files().size()) {
        EXPECT_GE(info.meta.file_size, 64u << 10);
        EXPECT_LT(info.meta.file_size, (64u << 10) + 16384);
      }
    }
    EXPECT_EQ(entries, static_cast<uint64_t>(n));
    EXPECT_EQ(bytes, sink.file_bytes());
    EXPECT_EQ(previous_largest, "key00019999");
    for (const std::string& path : sink.files()) ASSERT_OK(fs_->DeleteFile(path));
  }
}

TEST_F(TableSinkTest, UnsupportedCompressionFailsTheFirstAdd) {
  TableFileSink sink(Options(kXpressCompression));
  Status s = sink.Add("a", "1");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(sink.Add("b", "2").ToString(), s.ToString());  // sticky
  EXPECT_EQ(sink.Finish().ToString(), s.ToString());
  EXPECT_TRUE(sink.files().empty());
  EXPECT_EQ(sink.created_files().size(), 1u);  // left for the caller to delete
}

TEST_F(TableSinkTest, NothingAddedWritesNoFile) {
  TableFileSink sink(Options(kNoCompression));
  ASSERT_OK(sink.Finish());
  EXPECT_TRUE(sink.created_files().empty());
}

}  // namespace
}  // namespace shale::bulk
