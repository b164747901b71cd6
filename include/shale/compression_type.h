// CompressionType: how a block is compressed on disk, with RocksDB's numeric values (the value
// is stored in every block trailer). ShaleDB implements kNoCompression and kZSTD; the other
// RocksDB values are rejected by options validation with InvalidArgument.
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
