// Checksums on XXH3 (xxHash, used header-only).
//
// Every block trailer stores a 32-bit value: Checksum32 of the block contents extended with the
// trailer's compression-type byte. Files that need a stronger check (whole-file verification)
// use the 64-bit value.
#ifndef SHALE_UTIL_CHECKSUM_H_
#define SHALE_UTIL_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace shale {

// XXH3 64-bit hash of the bytes.
uint64_t Checksum64(const char* data, size_t n);
inline uint64_t Checksum64(std::string_view s) { return Checksum64(s.data(), s.size()); }

// The low 32 bits of XXH3-64, folded with the high bits.
uint32_t Checksum32(const char* data, size_t n);
inline uint32_t Checksum32(std::string_view s) { return Checksum32(s.data(), s.size()); }

// The checksum of data followed by one more byte (a block's compression type), computed without
// copying: Checksum32 of data, mixed with the byte.
uint32_t ChecksumWithLastByte(const char* data, size_t n, char last_byte);

// A 64-bit hash for hash tables and bloom filters (XXH3 with a seed).
uint64_t Hash64(const char* data, size_t n, uint64_t seed);
inline uint64_t Hash64(std::string_view s, uint64_t seed = 0) {
  return Hash64(s.data(), s.size(), seed);
}

}  // namespace shale

#endif  // SHALE_UTIL_CHECKSUM_H_
