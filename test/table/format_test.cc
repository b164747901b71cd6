// Block handles, the footer, and writing and reading single blocks.
#include "table/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "testutil/status_matchers.h"
#include "util/checksum.h"
#include "util/coding.h"
#include "util/random.h"

namespace shale {
namespace {

TEST(BlockHandleTest, RoundTripAndTruncation) {
  for (uint64_t offset : {uint64_t{0}, uint64_t{300}, uint64_t{1} << 40, ~uint64_t{0}}) {
    BlockHandle h(offset, offset / 3 + 7);
    std::string enc = h.Encode();
    EXPECT_LE(enc.size(), BlockHandle::kMaxEncodedLength);
    std::string_view in = enc;
    BlockHandle d;
    ASSERT_TRUE(d.DecodeFrom(&in));
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(d, h);
    for (size_t n = 0; n < enc.size(); n++) {
      std::string_view cut(enc.data(), n);
      EXPECT_FALSE(d.DecodeFrom(&cut)) << n;
    }
  }
}

TEST(FooterTest, RoundTrip) {
  Footer f;
  f.metaindex_handle = BlockHandle(1000, 50);
  f.index_handle = BlockHandle(900, 95);
  f.format_version = kLatestFormatVersion;
  std::string enc;
  f.EncodeTo(&enc);
  ASSERT_EQ(enc.size(), Footer::kEncodedLength);
  EXPECT_EQ(enc.substr(enc.size() - 8), "shaleSST");
  Footer d;
  ASSERT_OK(d.DecodeFrom(enc, "t.sst", 4242));
  EXPECT_EQ(d.metaindex_handle, f.metaindex_handle);
  EXPECT_EQ(d.index_handle, f.index_handle);
  EXPECT_EQ(d.format_version, kLatestFormatVersion);
}

TEST(FooterTest, EveryFlippedByteIsCorruptionNamingFileAndOffset) {
  Footer f;
  f.metaindex_handle = BlockHandle(1000, 50);
  f.index_handle = BlockHandle(900, 95);
  f.format_version = kLatestFormatVersion;
  std::string enc;
  f.EncodeTo(&enc);
  for (size_t i = 0; i < enc.size(); i++) {
    std::string bad = enc;
    bad[i] ^= 0x10;
    Footer d;
    Status s = d.DecodeFrom(bad, "/db/000007.sst", 1234);
    ASSERT_TRUE(s.IsCorruption()) << i << " " << s.ToString();
    EXPECT_NE(s.ToString().find("/db/000007.sst: footer at offset 1234"), std::string::npos)
        << s.ToString();
  }
  Footer d;
  EXPECT_TRUE(d.DecodeFrom(std::string_view(enc).substr(1), "f", 0).IsCorruption());
}

TEST(FooterTest, UnknownFormatVersionIsNotSupported) {
  Footer f;
  f.format_version = kLatestFormatVersion + 1;
  std::string enc;
  f.EncodeTo(&enc);
  Footer d;
  EXPECT_TRUE(d.DecodeFrom(enc, "f", 0).IsNotSupported());
}

// A RandomAccessFile over a string, counting the bytes it was asked for.
class StringFile final : public RandomAccessFile {
 public:
  explicit StringFile(std::string data) : data_(std::move(data)) {}
  Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
    max_request_ = std::max(max_request_, n);
    if (offset > data_.size()) offset = data_.size();
    n = std::min<size_t>(n, data_.size() - offset);
    std::memcpy(scratch, data_.data() + offset, n);
    *result = std::string_view(scratch, n);
    return Status::OK();
  }
  Status GetSize(uint64_t* size) const override {
    *size = data_.size();
    return Status::OK();
  }
  std::string& data() { return data_; }
  size_t max_request() const { return max_request_; }

 private:
  std::string data_;
  mutable size_t max_request_ = 0;
};

// A WritableFile appending to a string.
class StringSink final : public WritableFile {
 public:
  Status Append(std::string_view data) override {
    data_.append(data);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return data_.size(); }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

class BlockIoTest : public ::testing::Test {
 protected:
  // Writes the blocks and returns their handles.
  std::vector<BlockHandle> WriteAll(const std::vector<std::string>& blocks, Compressor* c) {
    std::vector<BlockHandle> handles;
    std::string scratch;
    uint64_t offset = 0;
    for (const std::string& b : blocks) {
      BlockHandle h;
      EXPECT_OK(WriteBlock(&sink_, "f.sst", b, c, &scratch, &offset, &h));
      handles.push_back(h);
    }
    EXPECT_EQ(offset, sink_.data().size());
    return handles;
  }
  Status Read(StringFile* file, const BlockHandle& h, std::string* out,
              size_t max = kMaxBlockSize) {
    BlockReadLimits limits;
    limits.file_size = file->data().size();
    limits.max_uncompressed_size = max;
    return ReadBlock(file, "f.sst", h, limits, true, &decompressor_, out);
  }

  StringSink sink_;
  Decompressor decompressor_;
};

TEST_F(BlockIoTest, RoundTripRawAndCompressed) {
  Random rnd(301);
  std::string noise(5000, '\0');
  for (char& c : noise) c = static_cast<char>(rnd.Next32());
  std::vector<std::string> blocks = {"", "x", noise,
                                     std::string(100000, 'a'),
                                     CompressibleString(&rnd, 0.5, 20000)};
  Compressor zstd(kZSTD, 1);
  for (Compressor* c : {static_cast<Compressor*>(nullptr), &zstd}) {
    sink_ = StringSink();
    std::vector<BlockHandle> handles = WriteAll(blocks, c);
    StringFile file(sink_.data());
    for (size_t i = 0; i < blocks.size(); i++) {
      std::string out;
      ASSERT_OK(Read(&file, handles[i], &out));
      EXPECT_EQ(out, blocks[i]);
      // Same through DecodeRawBlock on the bytes in memory.
      std::string raw = file.data().substr(handles[i].offset(),
                                           handles[i].size() + kBlockTrailerSize);
      ASSERT_OK(DecodeRawBlock(raw, "f.sst", handles[i], kMaxBlockSize, true, &decompressor_,
                               &out));
      EXPECT_EQ(out, blocks[i]);
    }
    if (c != nullptr) {
      // Random bytes do not compress by 1/8: stored raw; repetitive ones are compressed.
      EXPECT_EQ(handles[2].size(), blocks[2].size());
      EXPECT_LT(handles[3].size(), blocks[3].size() / 8);
      EXPECT_EQ(static_cast<CompressionType>(file.data()[handles[3].end() - 5]), kZSTD);
    }
  }
}

TEST_F(BlockIoTest, ChecksumMismatchNamesFileAndOffset) {
  Random rnd(7);
  std::vector<BlockHandle> handles =
      WriteAll({RandomString(&rnd, 100), RandomString(&rnd, 200)}, nullptr);
  for (uint64_t pos = handles[1].offset(); pos < handles[1].end(); pos++) {
    StringFile file(sink_.data());
    file.data()[pos] ^= 1;
    std::string out;
    Status s = Read(&file, handles[1], &out);
    ASSERT_TRUE(s.IsCorruption()) << pos;
    EXPECT_NE(s.ToString().find(
                  "f.sst: block at offset " + std::to_string(handles[1].offset()) +
                  ": checksum mismatch"),
              std::string::npos)
        << s.ToString();
    // The other block is untouched.
    ASSERT_OK(Read(&file, handles[0], &out));
  }
}

TEST_F(BlockIoTest, HandleOutsideTheFileIsCorruptionWithoutAllocating) {
  WriteAll({"hello"}, nullptr);
  StringFile file(sink_.data());
  std::string out;
  for (BlockHandle h : {BlockHandle(0, uint64_t{1} << 40), BlockHandle(1 << 20, 3),
                        BlockHandle(~uint64_t{0} - 2, 5), BlockHandle(1, 5)}) {
    Status s = Read(&file, h, &out);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("block at offset " + std::to_string(h.offset())),
              std::string::npos);
  }
  EXPECT_LE(file.max_request(), sink_.data().size());
}

TEST_F(BlockIoTest, DecompressedSizeIsCapped) {
  Compressor zstd(kZSTD, 1);
  std::vector<BlockHandle> handles = WriteAll({std::string(1 << 20, 'z')}, &zstd);
  StringFile file(sink_.data());
  std::string out;
  Status s = Read(&file, handles[0], &out, /*max=*/1000);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("f.sst: block at offset 0"), std::string::npos);
  ASSERT_OK(Read(&file, handles[0], &out, 1 << 20));
  EXPECT_EQ(out.size(), size_t{1} << 20);
}

TEST_F(BlockIoTest, UnknownCompressionTypeIsCorruption) {
  std::vector<BlockHandle> handles = WriteAll({"abcdef"}, nullptr);
  StringFile file(sink_.data());
  // Type byte 0x42, with a checksum that matches it.
  char type = 0x42;
  file.data()[handles[0].size()] = type;
  EncodeFixed32(file.data().data() + handles[0].size() + 1,
                ChecksumWithLastByte(file.data().data(), handles[0].size(), type));
  std::string out;
  Status s = Read(&file, handles[0], &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace shale
