// Little-endian fixed-width and varint encodings used by every on-disk format.
//
// Put* append to a std::string; Encode* write into a buffer of the right size; Get* consume
// from the front of a std::string_view and return false (leaving it unspecified) when the input
// is truncated or malformed. Decoders never read past the bounds they are given.
#ifndef SHALE_UTIL_CODING_H_
#define SHALE_UTIL_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace shale {

// The longest varint64 encoding.
inline constexpr int kMaxVarint64Length = 10;
inline constexpr int kMaxVarint32Length = 5;

inline void EncodeFixed16(char* dst, uint16_t v) { std::memcpy(dst, &v, 2); }
inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, 4); }
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, 8); }
inline uint16_t DecodeFixed16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "formats assume a little-endian host");

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// A varint32 length followed by the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view value);

// Writes the varint at dst and returns the byte after it. REQUIRES: room for 5 (10) bytes.
char* EncodeVarint32(char* dst, uint32_t v);
char* EncodeVarint64(char* dst, uint64_t v);
// Bytes that the varint encoding of v takes.
int VarintLength(uint64_t v);

bool GetFixed32(std::string_view* input, uint32_t* value);
bool GetFixed64(std::string_view* input, uint64_t* value);
bool GetVarint32(std::string_view* input, uint32_t* value);
bool GetVarint64(std::string_view* input, uint64_t* value);
bool GetLengthPrefixed(std::string_view* input, std::string_view* result);

// Pointer forms for hot loops: decode a varint in [p, limit); return the byte after it, or
// nullptr when the varint is truncated or overlong.
const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* value);
const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* value);

}  // namespace shale

#endif  // SHALE_UTIL_CODING_H_
