// Every codec the build has (Snappy, zlib, LZ4, LZ4HC, zstd; issue 24) through the same contract:
// round trips over empty, tiny, incompressible and large inputs with reused contexts; the size
// recorded in the compressed form bounds the output before any allocation; truncated or
// damaged input gives Corruption (never a crash or an over-read: run under ASan too); the types
// that are not built (bzip2, xpress) are NotSupported.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compression/codec.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"

namespace shale {
namespace {

std::string Text(size_t n, uint32_t seed = 1) {
  static const char* const kWords[] = {"the ",  "quick ", "brown ", "fox ",   "jumps ",
                                       "over ", "lazy ",  "dog ",   "shale ", "block "};
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < n) s += kWords[rng() % 10];
  s.resize(n);
  return s;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

class CodecsTest : public ::testing::TestWithParam<CompressionType> {
 protected:
  CompressionType type() const { return GetParam(); }

  std::string MustCompress(std::string_view in) {
    std::string out;
    EXPECT_TRUE(compressor_.Compress(in, &out)) << in.size();
    return out;
  }

  Compressor compressor_{GetParam(), /*level=*/0};
  Decompressor decompressor_;
};

TEST_P(CodecsTest, IsSupportedAndNamed) {
  EXPECT_TRUE(CompressionTypeSupported(type()));
  EXPECT_EQ(compressor_.type(), type());
}

TEST_P(CodecsTest, RoundTripsEmptySmallIncompressibleAndLargeInputs) {
  std::vector<std::string> inputs = {"",
                                     "x",
                                     "ab",
                                     Text(100),
                                     RandomBytes(100, 2),
                                     Text(4096),
                                     RandomBytes(65536, 3),
                                     Text(4 << 20, 4),
                                     std::string(1 << 20, 'z')};
  for (const std::string& in : inputs) {
    SCOPED_TRACE(in.size());
    std::string compressed = MustCompress(in), out = "junk";
    ASSERT_OK(decompressor_.Decompress(type(), compressed, in.size(), &out));
    EXPECT_EQ(out, in);
  }
}

TEST_P(CodecsTest, CompressibleInputShrinksAndIncompressibleBarelyGrows) {
  const std::string text = Text(1 << 16);
  EXPECT_LT(MustCompress(text).size(), text.size() / 2);
  const std::string noise = RandomBytes(1 << 16, 9);
  // The block writer keeps the raw block then (it must save 1/8); no codec adds more than 1%.
  EXPECT_LT(MustCompress(noise).size(), noise.size() + noise.size() / 100 + 32);
}

TEST_P(CodecsTest, ContextsAreReusableAcrossSizes) {
  std::mt19937 rng(7);
  for (int i = 0; i < 60; i++) {
    const size_t n = rng() % 20000;
    const std::string in = i % 3 == 0 ? RandomBytes(n, i) : Text(n, i);
    const std::string compressed = MustCompress(in);
    std::string out;
    ASSERT_OK(decompressor_.Decompress(type(), compressed, n, &out));
    ASSERT_EQ(out, in);
  }
}

TEST_P(CodecsTest, RecordedSizeOverTheLimitIsRefusedBeforeAllocating) {
  const std::string in = Text(1 << 20);
  const std::string compressed = MustCompress(in);
  std::string out;
  Status s = decompressor_.Decompress(type(), compressed, 4096, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("over the limit of 4096"), std::string::npos) << s.ToString();
  EXPECT_LT(out.capacity(), in.size());
  // One byte short of the real size is refused too; the exact size is enough.
  EXPECT_TRUE(decompressor_.Decompress(type(), compressed, in.size() - 1, &out).IsCorruption());
  ASSERT_OK(decompressor_.Decompress(type(), compressed, in.size(), &out));
}

TEST_P(CodecsTest, TruncatedInputIsCorruption) {
  const std::string in = Text(30000, 11);
  const std::string compressed = MustCompress(in);
  std::string out;
  for (size_t cut = 0; cut < compressed.size(); cut += 1 + cut / 16) {
    // A copy of exactly `cut` bytes, so ASan sees any read past it.
    const std::string prefix = compressed.substr(0, cut);
    Status s = decompressor_.Decompress(type(), prefix, 1 << 20, &out);
    EXPECT_TRUE(s.IsCorruption()) << cut << " of " << compressed.size() << ": " << s.ToString();
  }
  EXPECT_TRUE(decompressor_.Decompress(type(), "", 1 << 20, &out).IsCorruption());
}

TEST_P(CodecsTest, DamagedInputIsCorruptionOrDecodesWithinTheLimit) {
  const std::string in = Text(20000, 13);
  const std::string compressed = MustCompress(in);
  std::mt19937 rng(5);
  int corruptions = 0;
  for (int i = 0; i < 500; i++) {
    std::string bad = compressed;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; f++) {
      bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    std::string out;
    Status s = decompressor_.Decompress(type(), bad, 1 << 16, &out);
    if (s.ok()) {
      // A flip in a literal still decodes (the block checksum catches that), within the limit.
      EXPECT_LE(out.size(), size_t{1} << 16);
      continue;
    }
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    corruptions++;
  }
  EXPECT_GT(corruptions, 0);
  std::string out;
  EXPECT_TRUE(
      decompressor_.Decompress(type(), "garbage that is no block", 1 << 20, &out).IsCorruption());
}

INSTANTIATE_TEST_SUITE_P(Built, CodecsTest,
                         ::testing::Values(kSnappyCompression, kZlibCompression, kLZ4Compression,
                                           kLZ4HCCompression, kZSTD),
                         [](const ::testing::TestParamInfo<CompressionType>& info) {
                           return std::string(CompressionTypeName(info.param));
                         });

TEST(CodecTypesTest, NotBuiltTypesAreNotSupportedAndSayWhich) {
  for (CompressionType t : {kBZip2Compression, kXpressCompression}) {
    EXPECT_FALSE(CompressionTypeSupported(t));
    std::string out;
    Status s = Decompressor().Decompress(t, "x", 10, &out);
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_NE(s.ToString().find(CompressionTypeName(t)), std::string::npos) << s.ToString();
    EXPECT_FALSE(Compressor(t, 0).Compress("xxxxxxxxxxxxxxxx", &out));
  }
  EXPECT_EQ(SupportedCompressionTypeNames(),
            "kNoCompression, kSnappyCompression, kZlibCompression, kLZ4Compression, "
            "kLZ4HCCompression, kZSTD");
}

// LZ4HC writes LZ4's block format: LZ4's decoder reads it under either type.
TEST(CodecTypesTest, Lz4hcBlocksAreLz4Blocks) {
  const std::string in = Text(100000, 17);
  std::string hc, fast, out;
  ASSERT_TRUE(Compressor(kLZ4HCCompression, 0).Compress(in, &hc));
  ASSERT_TRUE(Compressor(kLZ4Compression, 0).Compress(in, &fast));
  EXPECT_LT(hc.size(), fast.size());  // the high-compression mode does compress more
  ASSERT_OK(Decompressor().Decompress(kLZ4Compression, hc, in.size(), &out));
  EXPECT_EQ(out, in);
  ASSERT_OK(Decompressor().Decompress(kLZ4HCCompression, fast, in.size(), &out));
  EXPECT_EQ(out, in);
}

TEST(CodecTypesTest, Lz4hcLevelComesFromTheCompressionLevel) {
  EXPECT_EQ(Lz4hcLevel(0), 9);  // the codec's default
  EXPECT_EQ(Lz4hcLevel(1), 3);  // ShaleDB's default, "the fastest": LZ4HC's fastest
  EXPECT_EQ(Lz4hcLevel(-7), 3);
  EXPECT_EQ(Lz4hcLevel(3), 3);
  EXPECT_EQ(Lz4hcLevel(10), 10);
  EXPECT_EQ(Lz4hcLevel(12), 12);
  EXPECT_EQ(Lz4hcLevel(22), 12);
  const std::string in = Text(200000, 19);
  std::string fastest, best, out;
  ASSERT_TRUE(Compressor(kLZ4HCCompression, 3).Compress(in, &fastest));
  ASSERT_TRUE(Compressor(kLZ4HCCompression, 12).Compress(in, &best));
  EXPECT_LT(best.size(), fastest.size());
  ASSERT_OK(Decompressor().Decompress(kLZ4HCCompression, best, in.size(), &out));
  EXPECT_EQ(out, in);
}

// The LZ4 form is a varint32 uncompressed size, then the block. A size that does not match
// what the block decodes to is Corruption, in either direction.
TEST(CodecTypesTest, Lz4SizeHeaderMustMatchTheBlock) {
  const std::string in = Text(5000, 23);
  std::string compressed, out;
  ASSERT_TRUE(Compressor(kLZ4Compression, 0).Compress(in, &compressed));
  std::string_view rest = compressed;
  uint32_t size = 0;
  ASSERT_TRUE(GetVarint32(&rest, &size));
  ASSERT_EQ(size, in.size());
  for (uint32_t claimed : {size - 1, size + 1, size * 2, uint32_t{0}}) {
    std::string forged;
    PutVarint32(&forged, claimed);
    forged.append(rest.data(), rest.size());
    Status s = Decompressor().Decompress(kLZ4Compression, forged, 1 << 20, &out);
    EXPECT_TRUE(s.IsCorruption()) << claimed << ": " << s.ToString();
  }
  // A header with no end (five continuation bytes) is not a size.
  EXPECT_TRUE(Decompressor()
                  .Decompress(kLZ4Compression, std::string(5, '\xff') + "x", 1 << 20, &out)
                  .IsCorruption());
}

// zlib's level comes from compression_level: 0 (the codec's default) is Z_DEFAULT_COMPRESSION
// (zlib's 6); any other value is clamped to zlib's 1..9, so ShaleDB's default 1 and the
// negative zstd fast modes give 1 and zstd's 22 gives 9. Deflate is deterministic, so a
// clamped level writes exactly the bytes of the level it is clamped to.
TEST(CodecTypesTest, ZlibLevelComesFromTheCompressionLevelClamped) {
  const std::string in = Text(200000, 29);
  auto compress = [&](int level) {
    std::string out;
    EXPECT_TRUE(Compressor(kZlibCompression, level).Compress(in, &out)) << level;
    return out;
  };
  const std::string l1 = compress(1), l6 = compress(6), l9 = compress(9);
  EXPECT_LT(l9.size(), l1.size());
  EXPECT_NE(l6, l1);
  EXPECT_EQ(compress(0), l6);  // the codec's default
  EXPECT_EQ(compress(-7), l1);
  EXPECT_EQ(compress(-131072), l1);
  EXPECT_EQ(compress(22), l9);
  EXPECT_EQ(compress(10), l9);
  std::string out;
  for (const std::string* c : {&l1, &l6, &l9}) {
    ASSERT_OK(Decompressor().Decompress(kZlibCompression, *c, in.size(), &out));
    EXPECT_EQ(out, in);
  }
}

// The zlib form is a varint32 uncompressed size, then a raw deflate stream (no zlib header
// or checksum: RocksDB's layout since its format_version 2). A size that does not match what
// the stream inflates to, or bytes after the stream's end, are Corruption.
TEST(CodecTypesTest, ZlibFormIsASizeThenARawDeflateStream) {
  const std::string in = Text(5000, 31);
  std::string compressed, out;
  ASSERT_TRUE(Compressor(kZlibCompression, 0).Compress(in, &compressed));
  std::string_view rest = compressed;
  uint32_t size = 0;
  ASSERT_TRUE(GetVarint32(&rest, &size));
  ASSERT_EQ(size, in.size());
  // Raw deflate: a zlib header (0x78 ..) would be a block type of 0b00 (stored) with BFINAL 0
  // and a nonzero LEN/NLEN mismatch; check the first block header's BTYPE is a Huffman one.
  ASSERT_FALSE(rest.empty());
  EXPECT_NE((static_cast<unsigned char>(rest[0]) >> 1) & 3, 0) << "not a compressed block";
  EXPECT_NE(static_cast<unsigned char>(rest[0]), 0x78);
  for (uint32_t claimed : {size - 1, size + 1, size * 2, uint32_t{0}}) {
    std::string forged;
    PutVarint32(&forged, claimed);
    forged.append(rest.data(), rest.size());
    Status s = Decompressor().Decompress(kZlibCompression, forged, 1 << 20, &out);
    EXPECT_TRUE(s.IsCorruption()) << claimed << ": " << s.ToString();
  }
  Status s = Decompressor().Decompress(kZlibCompression, compressed + "x", 1 << 20, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Decompressor()
                  .Decompress(kZlibCompression, std::string(5, '\xff') + "x", 1 << 20, &out)
                  .IsCorruption());
}

// One Decompressor reads blocks of every codec in any order, including after a damaged zlib
// block (its inflate state is reset before each block).
TEST(CodecTypesTest, ZlibStateIsResetBetweenBlocks) {
  Compressor zlib(kZlibCompression, 0);
  Decompressor d;
  for (int i = 0; i < 20; i++) {
    const std::string in = Text(1000 + 997 * i, 40 + i);
    std::string compressed, out;
    ASSERT_TRUE(zlib.Compress(in, &compressed));
    if (i % 4 == 3) {
      std::string bad = compressed.substr(0, compressed.size() / 2);
      EXPECT_TRUE(d.Decompress(kZlibCompression, bad, 1 << 20, &out).IsCorruption());
    }
    ASSERT_OK(d.Decompress(kZlibCompression, compressed, in.size(), &out));
    ASSERT_EQ(out, in);
  }
}

}  // namespace
}  // namespace shale
