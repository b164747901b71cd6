#include "util/checksum.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace shale {
namespace {

TEST(ChecksumTest, DeterministicAndSensitiveToEveryByte) {
  std::string data(4096, '\0');
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 7);
  uint32_t base = Checksum32(data);
  EXPECT_EQ(base, Checksum32(data.data(), data.size()));
  for (size_t i = 0; i < data.size(); i += 97) {
    for (int bit = 0; bit < 8; bit++) {
      std::string flipped = data;
      flipped[i] ^= static_cast<char>(1 << bit);
      EXPECT_NE(Checksum32(flipped), base) << i << " " << bit;
      EXPECT_NE(Checksum64(flipped), Checksum64(data));
    }
  }
}

TEST(ChecksumTest, LastByteChangesTheChecksum) {
  std::string data = "block contents";
  std::set<uint32_t> seen;
  for (int b = 0; b < 256; b++) {
    seen.insert(ChecksumWithLastByte(data.data(), data.size(), static_cast<char>(b)));
  }
  EXPECT_EQ(seen.size(), 256u);
  EXPECT_NE(ChecksumWithLastByte(data.data(), data.size(), 0), Checksum32(data));
}

TEST(ChecksumTest, HashSeedMatters) {
  EXPECT_NE(Hash64("key", 0), Hash64("key", 1));
  EXPECT_EQ(Hash64("key", 5), Hash64(std::string_view("key"), 5));
}

}  // namespace
}  // namespace shale
