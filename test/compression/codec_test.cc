#include "compression/codec.h"

#include <gtest/gtest.h>

#include <random>

#include "testutil/status_matchers.h"

namespace shale {
namespace {

std::string CompressibleText(size_t n) {
  std::string s;
  while (s.size() < n) s += "the quick brown fox jumps over the lazy dog ";
  s.resize(n);
  return s;
}

TEST(CodecTest, ZstdRoundTripAndShrinks) {
  Compressor c(kZSTD, 1);
  Decompressor d;
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{4096}, size_t{1} << 20}) {
    std::string in = CompressibleText(n), compressed, out;
    ASSERT_TRUE(c.Compress(in, &compressed));
    if (n >= 4096) {
      EXPECT_LT(compressed.size(), n / 4);
    }
    ASSERT_OK(d.Decompress(kZSTD, compressed, n, &out));
    EXPECT_EQ(out, in);
  }
}

TEST(CodecTest, ContextsAreReusable) {
  Compressor c(kZSTD, 3);
  Decompressor d;
  std::mt19937 rng(3);
  for (int i = 0; i < 50; i++) {
    std::string in = CompressibleText(rng() % 10000);
    std::string compressed, out;
    ASSERT_TRUE(c.Compress(in, &compressed));
    ASSERT_OK(d.Decompress(kZSTD, compressed, in.size(), &out));
    ASSERT_EQ(out, in);
  }
}

TEST(CodecTest, NoCompressionNeverCompresses) {
  Compressor c(kNoCompression, 0);
  std::string out;
  EXPECT_FALSE(c.Compress("abc", &out));
  Decompressor d;
  ASSERT_OK(d.Decompress(kNoCompression, "abc", 3, &out));
  EXPECT_EQ(out, "abc");
  EXPECT_TRUE(d.Decompress(kNoCompression, "abcd", 3, &out).IsCorruption());
}

TEST(CodecTest, SizeOverLimitIsRejectedBeforeAllocating) {
  Compressor c(kZSTD, 1);
  std::string in = CompressibleText(1 << 20), compressed, out;
  ASSERT_TRUE(c.Compress(in, &compressed));
  Status s = Decompressor().Decompress(kZSTD, compressed, 4096, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("over the limit"), std::string::npos);
}

TEST(CodecTest, DamagedInputIsCorruptionNotACrash) {
  Compressor c(kZSTD, 1);
  std::string in = CompressibleText(20000), compressed, out;
  ASSERT_TRUE(c.Compress(in, &compressed));
  Decompressor d;
  EXPECT_TRUE(d.Decompress(kZSTD, "garbage", 1 << 20, &out).IsCorruption());
  for (size_t cut = 0; cut < compressed.size(); cut += 7) {
    EXPECT_FALSE(d.Decompress(kZSTD, compressed.substr(0, cut), 1 << 20, &out).ok());
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 200; i++) {
    std::string bad = compressed;
    bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    Status s = d.Decompress(kZSTD, bad, 1 << 20, &out);
    if (s.ok()) continue;  // a flip in literals can decode; the block checksum catches that
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
}

TEST(CodecTest, UnsupportedTypesSayWhich) {
  std::string out;
  Status s = Decompressor().Decompress(kBZip2Compression, "x", 10, &out);
  EXPECT_TRUE(s.IsNotSupported());
  EXPECT_NE(s.ToString().find("BZip2"), std::string::npos);
  EXPECT_FALSE(CompressionTypeSupported(kXpressCompression));
  EXPECT_TRUE(CompressionTypeSupported(kZSTD));
}

}  // namespace
}  // namespace shale
