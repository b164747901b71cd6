// Block compression. The only file that includes zstd, LZ4, Snappy and zlib is codec.cc.
//
// The compressed forms (what a block stores before its trailer; doc/table_format.md):
//   kZSTD              a zstd frame that records its content size (the uncompressed size).
//   kSnappyCompression Snappy's raw format, which starts with varint32 uncompressed size.
//   kZlibCompression   varint32 uncompressed size, then one raw deflate stream (no zlib header
//                      or checksum; window bits 14; RocksDB's layout since its format_version
//                      2). The stream must end exactly at the recorded size and at the input's
//                      end.
//   kLZ4Compression    varint32 uncompressed size, then one LZ4 block (RocksDB's layout for
//   kLZ4HCCompression  LZ4 since its format_version 2). LZ4HC writes the same LZ4 block format
//                      with LZ4's high-compression compressor; the type stays 5 so a reader
//                      knows how it was made, and LZ4's one decoder reads both.
// Every form records the uncompressed size, which the Decompressor checks against a limit
// before it allocates, and every decoder is bounds-checked: damaged input gives Corruption,
// never an over-read or an oversized allocation.
//
// A Compressor and a Decompressor each keep reusable codec state (a zstd context, LZ4 streams,
// zlib's deflate and inflate streams, reset between blocks),
// so allocate one per thread (one per table builder, one per reading thread) and reuse it:
// neither is thread-safe. The free functions are thread-safe.
#ifndef SHALE_COMPRESSION_CODEC_H_
#define SHALE_COMPRESSION_CODEC_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "shale/compression_type.h"
#include "shale/status.h"

namespace shale {

// True for the types this build can compress and decompress: kNoCompression,
// kSnappyCompression, kZlibCompression, kLZ4Compression, kLZ4HCCompression and kZSTD (not
// bzip2, xpress).
bool CompressionTypeSupported(CompressionType type);
// "NoCompression", "ZSTD", ... (RocksDB's spelling, for logs and properties).
const char* CompressionTypeName(CompressionType type);
// The supported types by their option names, for error messages: "kNoCompression,
// kSnappyCompression, kZlibCompression, kLZ4Compression, kLZ4HCCompression, kZSTD".
std::string_view SupportedCompressionTypeNames();

// The LZ4HC level a Compressor of kLZ4HCCompression uses for a ShaleDB compression_level: 0
// (the codec's default, RocksDB's kDefaultCompressionLevel) gives LZ4HC's default, 9; any other
// value is clamped to LZ4HC's levels [3, 12] (3 fastest, 12 smallest), so ShaleDB's default of 1
// ("the fastest level") gives 3 and a negative (zstd's fast modes) gives 3 too.
int Lz4hcLevel(int compression_level);

// The zlib level a Compressor of kZlibCompression uses for a ShaleDB compression_level: 0 (the
// codec's default, RocksDB's kDefaultCompressionLevel) gives Z_DEFAULT_COMPRESSION (-1, which
// zlib runs as its level 6); any other value is clamped to zlib's levels [1, 9] (1 fastest, 9
// smallest), so ShaleDB's default of 1 gives 1, a negative (zstd's fast modes) gives 1 and
// zstd's 22 gives 9.
int ZlibLevel(int compression_level);

class Compressor {
 public:
  // REQUIRES: CompressionTypeSupported(type). `level` is Options::compression_level: zstd's
  // level for kZSTD (1 fastest, 22 best; 0 means zstd's default of 3; negative values are zstd's
  // fast modes), Lz4hcLevel(level) for kLZ4HCCompression, ZlibLevel(level) for
  // kZlibCompression, unused by Snappy and LZ4.
  Compressor(CompressionType type, int level);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  CompressionType type() const { return type_; }

  // Compresses `input` into *output (replacing its contents) in the type's compressed form
  // (above). Returns false, leaving *output unspecified, when the type is kNoCompression,
  // the input is too large for the codec (2 GiB for LZ4, 4 GiB for Snappy and zlib) or
  // compression failed; the caller then stores the block uncompressed.
  bool Compress(std::string_view input, std::string* output);

 private:
  struct Context;
  bool CompressZstd(std::string_view input, std::string* output);
  bool CompressSnappy(std::string_view input, std::string* output);
  bool CompressLz4(std::string_view input, std::string* output);
  bool CompressZlib(std::string_view input, std::string* output);

  CompressionType type_;
  int level_;
  std::unique_ptr<Context> ctx_;
};

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Decompresses `input` of the given type into *output (replacing its contents). The
  // decompressed size is read from the input and checked against max_output_size before any
  // allocation, so a corrupt or hostile input cannot make it allocate more. Corruption when the
  // input is damaged; NotSupported for a type this build cannot decompress.
  Status Decompress(CompressionType type, std::string_view input, size_t max_output_size,
                    std::string* output);

 private:
  struct Context;
  Status DecompressZstd(std::string_view input, size_t max_output_size, std::string* output);
  Status DecompressZlib(std::string_view input, size_t max_output_size, std::string* output);

  std::unique_ptr<Context> ctx_;
};

}  // namespace shale

#endif  // SHALE_COMPRESSION_CODEC_H_
