// Block compression. The only file that includes zstd is codec.cc.
//
// A Compressor and a Decompressor each keep a reusable zstd context, so allocate one per
// thread (one per table builder, one per reading thread) and reuse it: neither is thread-safe.
#ifndef SHALE_COMPRESSION_CODEC_H_
#define SHALE_COMPRESSION_CODEC_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "shale/compression_type.h"
#include "shale/status.h"

namespace shale {

// True for the types this build can compress and decompress (kNoCompression, kZSTD).
bool CompressionTypeSupported(CompressionType type);
// "NoCompression", "ZSTD", ... (RocksDB's spelling, for logs and properties).
const char* CompressionTypeName(CompressionType type);

class Compressor {
 public:
  // REQUIRES: CompressionTypeSupported(type). `level` is zstd's level (1 fastest, 22 best; 0
  // means zstd's default of 3; negative values are zstd's fast modes).
  Compressor(CompressionType type, int level);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  CompressionType type() const { return type_; }

  // Compresses `input` into *output (replacing its contents). Returns false, leaving *output
  // unspecified, when the type is kNoCompression or compression failed.
  bool Compress(std::string_view input, std::string* output);

 private:
  struct Context;
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
  std::unique_ptr<Context> ctx_;
};

}  // namespace shale

#endif  // SHALE_COMPRESSION_CODEC_H_
