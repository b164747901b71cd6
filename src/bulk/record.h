// Record: how the bulk loader stores one key-value pair, in a sort buffer's memory and in a
// spilled run file alike (so spilling a record is a memcpy):
//
//   varint32 key length | varint32 value length | key bytes | value bytes
//
// KeyPrefix gives the 8-byte sort prefix of a key: its first 8 bytes, big-endian, padded with
// zero bytes. Under the bytewise order, a < b implies KeyPrefix(a) <= KeyPrefix(b), so keys
// sort by prefix first and compare whole only when prefixes tie.
//
// Thread-safety: plain functions over bytes.
#ifndef SHALE_BULK_RECORD_H_
#define SHALE_BULK_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "util/coding.h"

namespace shale::bulk {

// The most bytes the two length varints of a record take.
inline constexpr size_t kMaxRecordHeader = 10;

// Bytes of the varint of a length (inline: Add runs this for every pair).
inline size_t LengthSize(size_t n) { return n < 128 ? 1 : static_cast<size_t>(VarintLength(n)); }

inline char* EncodeLength(char* dst, size_t n) {
  if (n < 128) {
    *dst = static_cast<char>(n);
    return dst + 1;
  }
  return EncodeVarint32(dst, static_cast<uint32_t>(n));
}

inline size_t RecordSize(size_t key_size, size_t value_size) {
  return LengthSize(key_size) + LengthSize(value_size) + key_size + value_size;
}

// Writes the record at dst and returns the byte after it.
// REQUIRES: room for RecordSize(key.size(), value.size()) bytes; both sizes < 2^32.
inline char* EncodeRecord(char* dst, std::string_view key, std::string_view value) {
  dst = EncodeLength(dst, key.size());
  dst = EncodeLength(dst, value.size());
  std::memcpy(dst, key.data(), key.size());
  dst += key.size();
  std::memcpy(dst, value.data(), value.size());
  return dst + value.size();
}

// Decodes one varint32 in [p, limit); nullptr when truncated or overlong.
inline const char* DecodeLength(const char* p, const char* limit, uint32_t* v) {
  if (p < limit && static_cast<unsigned char>(*p) < 0x80) {
    *v = static_cast<unsigned char>(*p);
    return p + 1;
  }
  return GetVarint32Ptr(p, limit, v);
}

// Decodes the record at p, which must end by `limit`; returns the byte after it, or nullptr
// when the record is truncated or its header is corrupt.
inline const char* DecodeRecord(const char* p, const char* limit, std::string_view* key,
                                std::string_view* value) {
  uint32_t klen = 0, vlen = 0;
  p = DecodeLength(p, limit, &klen);
  if (p == nullptr) return nullptr;
  p = DecodeLength(p, limit, &vlen);
  if (p == nullptr || static_cast<uint64_t>(limit - p) < uint64_t{klen} + vlen) return nullptr;
  *key = std::string_view(p, klen);
  *value = std::string_view(p + klen, vlen);
  return p + klen + vlen;
}

// DecodeRecord for a record known to be whole (one the loader wrote into its own memory).
inline const char* DecodeTrustedRecord(const char* p, std::string_view* key,
                                       std::string_view* value) {
  uint32_t klen = 0, vlen = 0;
  // A varint of more than one byte belongs to a length >= 128, so 5 bytes are readable.
  p = DecodeLength(p, p + 5, &klen);
  p = DecodeLength(p, p + 5, &vlen);
  *key = std::string_view(p, klen);
  *value = std::string_view(p + klen, vlen);
  return p + klen + vlen;
}

// The key alone of a record known to be whole.
inline std::string_view TrustedRecordKey(const char* p) {
  std::string_view key, value;
  DecodeTrustedRecord(p, &key, &value);
  return key;
}

inline uint64_t KeyPrefix(std::string_view key) {
  uint64_t v = 0;
  if (key.size() >= 8) {
    std::memcpy(&v, key.data(), 8);
  } else {
    std::memcpy(&v, key.data(), key.size());
  }
  return __builtin_bswap64(v);
}

}  // namespace shale::bulk

#endif  // SHALE_BULK_RECORD_H_
