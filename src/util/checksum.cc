#include "util/checksum.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace shale {

uint64_t Checksum64(const char* data, size_t n) { return XXH3_64bits(data, n); }

uint32_t Checksum32(const char* data, size_t n) {
  uint64_t h = XXH3_64bits(data, n);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint32_t ChecksumWithLastByte(const char* data, size_t n, char last_byte) {
  // Multiplying the byte by an odd constant and rotating spreads it over all 32 bits, so a
  // flipped type byte changes the checksum as surely as a flipped data byte.
  uint32_t c = Checksum32(data, n);
  uint32_t mix = static_cast<uint32_t>(static_cast<unsigned char>(last_byte) + 1) * 0x9E3779B1u;
  return c ^ ((mix << 13) | (mix >> 19));
}

uint64_t Hash64(const char* data, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(data, n, seed);
}

}  // namespace shale
