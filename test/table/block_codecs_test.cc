// Blocks written and read with Snappy, zlib, LZ4 and LZ4HC (issue 24): the trailer's type byte says
// which codec made the block (LZ4HC keeps 5), the 1/8 saving rule holds for each, and a block
// whose size header lies (with a valid checksum, so only the codec layer can catch it) is
// Corruption before any allocation the lie would size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "table/format.h"
#include "testutil/status_matchers.h"
#include "util/checksum.h"
#include "util/coding.h"
#include "util/random.h"

namespace shale {
namespace {

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

// `stored` followed by a trailer of `type` with a matching checksum.
std::string RawBlock(std::string_view stored, CompressionType type) {
  std::string raw(stored);
  raw.push_back(static_cast<char>(type));
  PutFixed32(&raw, ChecksumWithLastByte(stored.data(), stored.size(), static_cast<char>(type)));
  return raw;
}

class BlockCodecsTest : public ::testing::TestWithParam<CompressionType> {
 protected:
  CompressionType type() const { return GetParam(); }
  Decompressor decompressor_;
};

TEST_P(BlockCodecsTest, TypeByteNamesTheCodecAndRawBlocksStayRaw) {
  Random rnd(31);
  std::string noise(5000, '\0');
  for (char& c : noise) c = static_cast<char>(rnd.Next32());
  // Values as the benchmarks make them (each a random piece repeated): every codec finds the
  // repeats within a value. (One 20 KB value of a 10 KB random piece twice is a case Snappy's
  // skipping heuristic leaves raw.)
  std::string values;
  while (values.size() < 20000) values += CompressibleString(&rnd, 0.5, 100);
  const std::vector<std::string> blocks = {"", "x", noise, std::string(100000, 'a'), values};
  Compressor compressor(type(), 0);
  StringSink sink;
  std::string scratch;
  uint64_t offset = 0;
  for (const std::string& block : blocks) {
    BlockHandle h;
    ASSERT_OK(WriteBlock(&sink, "f.sst", block, &compressor, &scratch, &offset, &h));
    const std::string raw = sink.data().substr(h.offset(), h.size() + kBlockTrailerSize);
    const auto stored_type = static_cast<CompressionType>(raw[h.size()]);
    if (block == noise || block.size() < 2) {
      EXPECT_EQ(stored_type, kNoCompression) << block.size();  // saves less than 1/8
    } else {
      EXPECT_EQ(stored_type, type()) << block.size();
      EXPECT_LE(h.size(), block.size() - block.size() / 8);
    }
    std::string out;
    ASSERT_OK(DecodeRawBlock(raw, "f.sst", h, kMaxBlockSize, true, &decompressor_, &out));
    EXPECT_EQ(out, block);
  }
}

TEST_P(BlockCodecsTest, LyingSizeHeaderIsCorruptionBeforeAllocating) {
  // A size header claiming 200 MB in front of a few bytes of body: a real block of 16 stored
  // bytes cannot decode to more than a few tens of KB (zlib's 1032x), so the claim is refused
  // even under the 1 GiB block limit, and nothing of its size is allocated.
  std::string stored;
  PutVarint32(&stored, 200u << 20);
  stored.append("0123456789abcdef");
  const std::string raw = RawBlock(stored, type());
  const BlockHandle h(0, stored.size());
  std::string out;
  Status s = DecodeRawBlock(raw, "f.sst", h, kMaxBlockSize, true, &decompressor_, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("f.sst: block at offset 0"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("over the limit"), std::string::npos) << s.ToString();
  EXPECT_LT(out.capacity(), size_t{1} << 20);
}

TEST_P(BlockCodecsTest, DamagedBodyWithAValidChecksumIsCorruption) {
  Random rnd(37);
  const std::string block = CompressibleString(&rnd, 0.3, 16384);
  Compressor compressor(type(), 0);
  std::string compressed;
  ASSERT_TRUE(compressor.Compress(block, &compressed));
  int corruptions = 0;
  for (size_t cut = 1; cut < compressed.size(); cut += 97) {
    const std::string stored = compressed.substr(0, cut);
    const std::string raw = RawBlock(stored, type());
    std::string out;
    Status s = DecodeRawBlock(raw, "f.sst", BlockHandle(0, stored.size()), kMaxBlockSize, true,
                              &decompressor_, &out);
    EXPECT_TRUE(s.IsCorruption()) << cut << ": " << s.ToString();
    corruptions += s.IsCorruption() ? 1 : 0;
  }
  EXPECT_GT(corruptions, 0);
}

INSTANTIATE_TEST_SUITE_P(Built, BlockCodecsTest,
                         ::testing::Values(kSnappyCompression, kZlibCompression, kLZ4Compression,
                                           kLZ4HCCompression),
                         [](const ::testing::TestParamInfo<CompressionType>& info) {
                           return std::string(CompressionTypeName(info.param));
                         });

}  // namespace
}  // namespace shale
