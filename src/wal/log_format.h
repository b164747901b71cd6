// The framing shared by log::Writer and log::Reader: the physical layout of WAL and MANIFEST
// files. doc/wal_format.md specifies it in full; keep the two in step.
//
// A log file is a sequence of 32 KiB blocks (the last one may be short). A block holds physical
// records, each a 7-byte header followed by `length` payload bytes:
//
//   +----------+--------+------+-----------------+
//   | checksum | length | type | payload         |
//   | fixed32  | fixed16| 1 B  | `length` bytes  |
//   +----------+--------+------+-----------------+
//
//   checksum = ChecksumWithLastByte(payload, length, type)   (util/checksum.h)
//
// A physical record never crosses a block boundary. A logical record (what AddRecord was given)
// is one kFullType physical record, or kFirstType, zero or more kMiddleType and one kLastType
// fragments in consecutive positions. When fewer than kHeaderSize bytes remain in a block, they
// are a zero-filled trailer and the next fragment starts in the next block.
#ifndef SHALE_WAL_LOG_FORMAT_H_
#define SHALE_WAL_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/checksum.h"

namespace shale::log {

enum RecordType : uint8_t {
  // Never written: a header of zeros is preallocated or never-written space.
  kZeroType = 0,
  kFullType = 1,
  // Fragments of a logical record that did not fit in the rest of a block.
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
};
inline constexpr uint8_t kMaxRecordType = kLastType;

inline constexpr size_t kBlockSize = 32768;

// checksum (4) + length (2) + type (1).
inline constexpr size_t kHeaderSize = 4 + 2 + 1;

// The largest payload one physical record can carry (a fragment filling a whole block).
inline constexpr size_t kMaxFragmentPayload = kBlockSize - kHeaderSize;

// The checksum stored in a physical record's header.
inline uint32_t RecordChecksum(RecordType type, std::string_view payload) {
  return ChecksumWithLastByte(payload.data(), payload.size(), static_cast<char>(type));
}

}  // namespace shale::log

#endif  // SHALE_WAL_LOG_FORMAT_H_
