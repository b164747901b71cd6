// The physical layer of the table format (doc/table_format.md): block handles, the block
// trailer, the footer, and writing and reading one block.
//
// A table file is a sequence of blocks, each followed by a 5-byte trailer, and a fixed-size
// footer at the end:
//
//   block     = contents (possibly compressed) + type (1 byte) + checksum (fixed32)
//   checksum  = ChecksumWithLastByte(contents, type)     (util/checksum.h)
//   footer    = metaindex handle, index handle, format_version, footer checksum, magic
//
// Errors: every Corruption names the file and the offset of the block (or footer) at fault:
// "<file>: block at offset N: checksum mismatch". Sizes read from the file are checked against
// the file size and kMaxBlockSize before any allocation they would drive.
//
// Thread-safety: the functions are thread-safe as long as each thread passes its own
// Compressor/Decompressor (those keep per-thread contexts).
#ifndef SHALE_TABLE_FORMAT_H_
#define SHALE_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "compression/codec.h"
#include "shale/file_system.h"
#include "shale/status.h"

namespace shale {

// Compression type byte + fixed32 checksum after every block.
inline constexpr size_t kBlockTrailerSize = 5;

// No block, stored or uncompressed, may be larger than this (1 GiB): a corrupt size field can
// make a reader allocate at most this much (and never more than the file holds, for stored
// bytes).
inline constexpr uint64_t kMaxBlockSize = uint64_t{1} << 30;

// Where a block sits in the file: its offset and the size of its stored contents, without the
// trailer. Encoded as two varint64s.
class BlockHandle {
 public:
  static constexpr size_t kMaxEncodedLength = 20;

  BlockHandle() = default;
  BlockHandle(uint64_t offset, uint64_t size) : offset_(offset), size_(size) {}

  uint64_t offset() const { return offset_; }
  uint64_t size() const { return size_; }
  // The offset just past the block's trailer.
  uint64_t end() const { return offset_ + size_ + kBlockTrailerSize; }

  void EncodeTo(std::string* dst) const;
  std::string Encode() const;
  // Consumes a handle from the front of *input; false when it is truncated or malformed.
  [[nodiscard]] bool DecodeFrom(std::string_view* input);

  bool operator==(const BlockHandle& o) const { return offset_ == o.offset_ && size_ == o.size_; }

 private:
  uint64_t offset_ = 0;
  uint64_t size_ = 0;
};

// The last bytes of every table. Fixed layout (little-endian):
//   metaindex offset, metaindex size, index offset, index size   4 x fixed64
//   format_version                                               fixed32
//   checksum                                                     fixed32, Checksum32 of the
//                                                                 36 bytes before it
//   magic                                                        fixed64 kTableMagicNumber
// The index block is the first block of the table's tail (see table_builder.h), so its offset
// also tells a reader where the tail starts.
struct Footer {
  static constexpr size_t kEncodedLength = 48;

  BlockHandle metaindex_handle;
  BlockHandle index_handle;
  uint32_t format_version = 0;

  void EncodeTo(std::string* dst) const;
  // Decodes the footer in `input` (exactly kEncodedLength bytes read at `offset` of `file`).
  // Corruption naming the file and offset on a bad magic number or checksum.
  Status DecodeFrom(std::string_view input, std::string_view file, uint64_t offset);
};

// "shaleSST" read as a little-endian fixed64: the last 8 bytes of a table are 's','h','a','l',
// 'e','S','S','T'.
inline constexpr uint64_t kTableMagicNumber = 0x545353656c616873ull;
// The only format version so far.
inline constexpr uint32_t kLatestFormatVersion = 1;

// Appends `contents` as one block to `file` at *offset (the bytes written to the file so far),
// then advances *offset and sets *handle. When `compressor` is non-null and its output is at
// least 1/8 smaller, the compressed bytes are stored; otherwise the raw bytes. `scratch` is
// reusable space for the compressed bytes. IOError from the file names `path`.
Status WriteBlock(WritableFile* file, std::string_view path, std::string_view contents,
                  Compressor* compressor, std::string* scratch, uint64_t* offset,
                  BlockHandle* handle);

// Limits for reading one block.
struct BlockReadLimits {
  uint64_t file_size = 0;  // the handle must end inside the file (before its footer)
  size_t max_uncompressed_size = kMaxBlockSize;
};

// Reads the block at `handle` (one pread of contents + trailer), verifies its checksum if asked,
// and returns the uncompressed contents in *contents. Corruption (naming `path` and the offset)
// when the handle lies outside the file, the checksum does not match, or the contents do not
// decompress; IOError when the read fails or comes back short.
Status ReadBlock(const RandomAccessFile* file, std::string_view path, const BlockHandle& handle,
                 const BlockReadLimits& limits, bool verify_checksums, Decompressor* decompressor,
                 std::string* contents);

// The checks ReadBlock makes of a handle before it reads: Corruption when the block cannot lie
// inside the file (or exceeds kMaxBlockSize). A caller sizing a buffer from a handle checks
// first.
Status CheckBlockHandle(std::string_view path, const BlockHandle& handle,
                        const BlockReadLimits& limits);

// ReadBlock into memory the caller provides, so that a block stored uncompressed is read
// straight to where it will live (no copy): `buffer` has room for handle.size() +
// kBlockTrailerSize bytes. On success *contents views the uncompressed contents: the first
// handle.size() bytes of `buffer` (*in_buffer true), or, for a compressed block, *uncompressed
// (*in_buffer false). Errors as ReadBlock.
Status ReadBlockInto(const RandomAccessFile* file, std::string_view path,
                     const BlockHandle& handle, const BlockReadLimits& limits,
                     bool verify_checksums, Decompressor* decompressor, char* buffer,
                     std::string* uncompressed, std::string_view* contents, bool* in_buffer);

// The second half of ReadBlock, for bytes already in memory: `raw` holds the block's stored
// contents followed by its trailer (handle.size() + kBlockTrailerSize bytes).
Status DecodeRawBlock(std::string_view raw, std::string_view path, const BlockHandle& handle,
                      size_t max_uncompressed_size, bool verify_checksums,
                      Decompressor* decompressor, std::string* contents);

// "<path>: block at offset N: " + what (as a Corruption).
Status BlockCorruption(std::string_view path, uint64_t offset, std::string_view what);

// `s` (an error) with "<path>: block at offset N" put in front of its message, keeping its code
// and subcode.
Status AnnotateBlockError(const Status& s, std::string_view path, uint64_t offset);

// The calling thread's Decompressor, for readers that have no per-thread object of their own.
Decompressor* ThreadLocalDecompressor();

}  // namespace shale

#endif  // SHALE_TABLE_FORMAT_H_
