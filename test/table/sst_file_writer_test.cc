// SstFileWriter: files written outside a DB, read back with TableReader.
#include "shale/sst_file_writer.h"

#include <gtest/gtest.h>

#include "shale/filter_policy.h"
#include "table/table_test_util.h"

namespace shale {
namespace {

class SstFileWriterTest : public ::testing::Test {
 protected:
  SstFileWriterTest() : fs_(NewMemFileSystem()), cmp_(BytewiseComparator()) {
    options_.filter_policy = NewBloomFilterPolicy(10);
  }

  bool Exists(const std::string& path) { return fs_->FileExists(path).ok(); }

  std::shared_ptr<FileSystem> fs_;
  InternalKeyComparator cmp_;
  TableOptions options_;
};

TEST_F(SstFileWriterTest, WritesAReadableTable) {
  SstFileWriter writer(options_, kZSTD, BytewiseComparator(), fs_);
  ASSERT_OK(writer.Open("/ext.sst"));
  ASSERT_OK(writer.Put("apple", "1"));
  ASSERT_OK(writer.Delete("banana"));
  ASSERT_OK(writer.DeleteRange("x", "z"));
  ASSERT_OK(writer.Put("cherry", std::string(5000, 'c')));
  ASSERT_OK(writer.DeleteRange("c", "d"));
  ASSERT_OK(writer.DeleteRange("q", "q"));  // empty: ignored
  ExternalSstFileInfo info;
  ASSERT_OK(writer.Finish(&info));
  EXPECT_EQ(info.file_path, "/ext.sst");
  EXPECT_EQ(info.smallest_key, "apple");
  EXPECT_EQ(info.largest_key, "cherry");
  EXPECT_EQ(info.smallest_range_del_key, "c");
  EXPECT_EQ(info.largest_range_del_key, "z");
  EXPECT_EQ(info.num_entries, 3u);
  EXPECT_EQ(info.num_range_del_entries, 2u);
  EXPECT_EQ(info.sequence_number, 0u);
  EXPECT_EQ(info.version, 1);
  uint64_t size;
  ASSERT_OK(fs_->GetFileSize("/ext.sst", &size));
  EXPECT_EQ(info.file_size, size);
  EXPECT_EQ(writer.FileSize(), size);

  std::unique_ptr<TableReader> reader;
  ASSERT_OK(OpenTable(fs_.get(), "/ext.sst", &cmp_, &reader));
  std::vector<Entry> got;
  ASSERT_OK(ScanAll(reader->NewIterator(TableReadOptions()).get(), &got));
  std::vector<Entry> want = {{MakeInternalKey("apple", 0, kTypeValue), "1"},
                             {MakeInternalKey("banana", 0, kTypeDeletion), ""},
                             {MakeInternalKey("cherry", 0, kTypeValue), std::string(5000, 'c')}};
  EXPECT_TRUE(got == want);
  ASSERT_OK(ScanAll(reader->NewRangeTombstoneIterator().get(), &got));
  want = {{MakeInternalKey("c", 0, kTypeRangeDeletion), "d"},
          {MakeInternalKey("x", 0, kTypeRangeDeletion), "z"}};
  EXPECT_TRUE(got == want);
  EXPECT_EQ(reader->properties().compression_name, "ZSTD");
}

TEST_F(SstFileWriterTest, OutOfOrderKeyIsInvalidArgumentAndNoFileIsLeft) {
  SstFileWriter writer(options_, kNoCompression, BytewiseComparator(), fs_);
  ASSERT_OK(writer.Open("/ext.sst"));
  ASSERT_OK(writer.Put("b", "1"));
  Status s = writer.Put("a", "2");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("'a'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("/ext.sst"), std::string::npos) << s.ToString();
  // Sticky: later calls fail the same way, Finish too, and the file is gone.
  EXPECT_TRUE(writer.Put("c", "3").IsInvalidArgument());
  EXPECT_TRUE(writer.Finish().IsInvalidArgument());
  EXPECT_FALSE(Exists("/ext.sst"));
}

TEST_F(SstFileWriterTest, DuplicateKeyIsInvalidArgument) {
  SstFileWriter writer(options_, kNoCompression, BytewiseComparator(), fs_);
  ASSERT_OK(writer.Open("/ext.sst"));
  ASSERT_OK(writer.Put("k1", "1"));
  Status s = writer.Delete("k1");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("duplicate key 'k1'"), std::string::npos) << s.ToString();
  EXPECT_TRUE(writer.Finish().IsInvalidArgument());
  EXPECT_FALSE(Exists("/ext.sst"));
}

TEST_F(SstFileWriterTest, BadRangeAndEmptyFileAndMisuse) {
  {
    SstFileWriter writer(options_, kNoCompression, BytewiseComparator(), fs_);
    EXPECT_TRUE(writer.Put("a", "1").IsInvalidArgument());  // not open
    ASSERT_OK(writer.Open("/ext.sst"));
    EXPECT_TRUE(writer.Open("/other.sst").IsInvalidArgument());
    EXPECT_TRUE(writer.DeleteRange("z", "a").IsInvalidArgument());
    EXPECT_TRUE(writer.Finish().IsInvalidArgument());
    EXPECT_FALSE(Exists("/ext.sst"));
  }
  {
    SstFileWriter writer(options_, kNoCompression, BytewiseComparator(), fs_);
    ASSERT_OK(writer.Open("/ext.sst"));
    Status s = writer.Finish();
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_FALSE(Exists("/ext.sst"));
  }
  {
    SstFileWriter writer(options_, kBZip2Compression, BytewiseComparator(), fs_);
    EXPECT_TRUE(writer.Open("/ext.sst").IsInvalidArgument());
    EXPECT_FALSE(Exists("/ext.sst"));
  }
  {
    // Destroyed unfinished: the partial file is removed.
    SstFileWriter writer(options_, kNoCompression, BytewiseComparator(), fs_);
    ASSERT_OK(writer.Open("/ext.sst"));
    ASSERT_OK(writer.Put("a", "1"));
  }
  EXPECT_FALSE(Exists("/ext.sst"));
}

TEST_F(SstFileWriterTest, DefaultFileSystemIsPosix) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/shale_sst_file_writer_test.sst";
  SstFileWriter writer(options_);
  ASSERT_OK(writer.Open(path));
  ASSERT_OK(writer.Put("k", "v"));
  ExternalSstFileInfo info;
  ASSERT_OK(writer.Finish(&info));
  std::shared_ptr<FileSystem> posix = FileSystem::Default();
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(OpenTable(posix.get(), path, &cmp_, &reader));
  std::vector<Entry> got;
  ASSERT_OK(GetAll(*reader, "k", kMaxSequenceNumber, &got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, "v");
  reader.reset();
  ASSERT_OK(posix->DeleteFile(path));
}

}  // namespace
}  // namespace shale
