// CompressionType: how a block is compressed on disk, with RocksDB's numeric values (the value
// is stored in every block trailer). ShaleDB implements kNoCompression, kSnappyCompression,
// kZlibCompression (raw deflate, RocksDB's layout), kLZ4Compression, kLZ4HCCompression (LZ4's
// high-compression compressor; the blocks are LZ4's format and keep type 5 in their trailer)
// and kZSTD. kBZip2Compression and kXpressCompression are refused by options validation with
// InvalidArgument, which names the type and the supported ones; a table holding such a block
// cannot be read (NotSupported).
#ifndef SHALE_COMPRESSION_TYPE_H_
#define SHALE_COMPRESSION_TYPE_H_

namespace shale {

enum CompressionType : unsigned char {
  kNoCompression = 0x0,
  kSnappyCompression = 0x1,
  kZlibCompression = 0x2,
  kBZip2Compression = 0x3,
  kLZ4Compression = 0x4,
  kLZ4HCCompression = 0x5,
  kXpressCompression = 0x6,
  kZSTD = 0x7,
};

}  // namespace shale

#endif  // SHALE_COMPRESSION_TYPE_H_
