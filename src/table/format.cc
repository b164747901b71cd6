#include "table/format.h"

#include <cstring>

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace shale {

namespace {

// Bytes of the footer covered by its checksum: the two handles and the format version.
constexpr size_t kFooterChecksummedLength = 4 * 8 + 4;

// True for the values a trailer's type byte may hold (RocksDB's compression types).
bool IsKnownCompressionType(unsigned char t) { return t <= kZSTD; }

// Checks the trailer at the end of `raw` (contents + trailer) and returns the stored type.
Status CheckTrailer(std::string_view raw, std::string_view path, const BlockHandle& handle,
                    bool verify_checksums, CompressionType* type) {
  const size_t n = raw.size() - kBlockTrailerSize;
  const char* trailer = raw.data() + n;
  if (verify_checksums) {
    uint32_t stored = DecodeFixed32(trailer + 1);
    uint32_t actual = ChecksumWithLastByte(raw.data(), n, trailer[0]);
    if (stored != actual) return BlockCorruption(path, handle.offset(), "checksum mismatch");
  }
  auto t = static_cast<unsigned char>(trailer[0]);
  if (!IsKnownCompressionType(t)) {
    return BlockCorruption(path, handle.offset(),
                           absl::StrCat("unknown compression type ", static_cast<int>(t)));
  }
  *type = static_cast<CompressionType>(t);
  return Status::OK();
}

// The most that `stored` bytes of `type` can honestly decompress to, so that a size header
// claiming more is a lie that must not size an allocation. A zstd block yields at most 128 KiB
// and takes at least 4 bytes (a 3-byte header and the byte of an RLE block). An LZ4 sequence
// yields at most 255 bytes per stored byte (each length byte of 255 adds 255 bytes of match).
// A Snappy copy yields at most 64 bytes from a 3-byte element (under 22 per byte); 32 is kept.
// A deflate match yields at most 258 bytes from at least 2 bits (a 1-bit length code and a
// 1-bit distance code), so a zlib stream inflates to at most 1032 bytes per stored byte.
size_t MaxHonestUncompressedSize(CompressionType type, size_t stored) {
  // `stored` is a block in memory (at most kMaxBlockSize when read): no product overflows.
  switch (type) {
    case kZSTD: return (stored / 4 + 1) * (size_t{128} << 10);
    case kLZ4Compression:
    case kLZ4HCCompression: return stored * 256 + 64;
    case kSnappyCompression: return stored * 32 + 64;
    case kZlibCompression: return stored * 1032 + 64;
    default: return SIZE_MAX;
  }
}

Status Uncompress(std::string_view stored, CompressionType type, std::string_view path,
                  const BlockHandle& handle, size_t max_uncompressed_size,
                  Decompressor* decompressor, std::string* contents) {
  const size_t limit =
      std::min(max_uncompressed_size, MaxHonestUncompressedSize(type, stored.size()));
  Status s = decompressor->Decompress(type, stored, limit, contents);
  if (!s.ok()) return AnnotateBlockError(s, path, handle.offset());
  return Status::OK();
}

}  // namespace

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset_);
  PutVarint64(dst, size_);
}

std::string BlockHandle::Encode() const {
  std::string r;
  EncodeTo(&r);
  return r;
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return GetVarint64(input, &offset_) && GetVarint64(input, &size_);
}

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  PutFixed64(dst, metaindex_handle.offset());
  PutFixed64(dst, metaindex_handle.size());
  PutFixed64(dst, index_handle.offset());
  PutFixed64(dst, index_handle.size());
  PutFixed32(dst, format_version);
  PutFixed32(dst, Checksum32(dst->data() + start, kFooterChecksummedLength));
  PutFixed64(dst, kTableMagicNumber);
}

Status Footer::DecodeFrom(std::string_view input, std::string_view file, uint64_t offset) {
  auto corruption = [&](std::string_view what) {
    return Status::Corruption(absl::StrCat(ToAbsl(file), ": footer at offset ", offset),
                              what);
  };
  if (input.size() != kEncodedLength) return corruption("footer is truncated");
  const char* p = input.data();
  if (DecodeFixed64(p + kEncodedLength - 8) != kTableMagicNumber) {
    return corruption("bad magic number (not a table file)");
  }
  if (DecodeFixed32(p + kFooterChecksummedLength) != Checksum32(p, kFooterChecksummedLength)) {
    return corruption("footer checksum mismatch");
  }
  metaindex_handle = BlockHandle(DecodeFixed64(p), DecodeFixed64(p + 8));
  index_handle = BlockHandle(DecodeFixed64(p + 16), DecodeFixed64(p + 24));
  format_version = DecodeFixed32(p + 32);
  if (format_version == 0 || format_version > kLatestFormatVersion) {
    return Status::NotSupported(absl::StrCat(ToAbsl(file), ": footer at offset ", offset),
                                absl::StrCat("unsupported format_version ", format_version));
  }
  return Status::OK();
}

Status WriteBlock(WritableFile* file, std::string_view path, std::string_view contents,
                  Compressor* compressor, std::string* scratch, uint64_t* offset,
                  BlockHandle* handle) {
  std::string_view stored = contents;
  CompressionType type = kNoCompression;
  if (compressor != nullptr && compressor->type() != kNoCompression && !contents.empty() &&
      compressor->Compress(contents, scratch) &&
      scratch->size() <= contents.size() - contents.size() / 8) {
    stored = *scratch;
    type = compressor->type();
  }
  char trailer[kBlockTrailerSize];
  trailer[0] = static_cast<char>(type);
  EncodeFixed32(trailer + 1, ChecksumWithLastByte(stored.data(), stored.size(), trailer[0]));
  Status s = file->Append(stored);
  if (s.ok()) s = file->Append(std::string_view(trailer, sizeof(trailer)));
  if (!s.ok()) return s;
  *handle = BlockHandle(*offset, stored.size());
  *offset += stored.size() + kBlockTrailerSize;
  return Status::OK();
}

Status CheckBlockHandle(std::string_view path, const BlockHandle& handle,
                        const BlockReadLimits& limits) {
  const uint64_t size = handle.size();
  if (size > kMaxBlockSize || handle.offset() > limits.file_size ||
      size + kBlockTrailerSize > limits.file_size - handle.offset()) {
    return BlockCorruption(path, handle.offset(),
                           absl::StrCat("block of ", size, " bytes extends past the end of the "
                                        "file (", limits.file_size, " bytes)"));
  }
  return Status::OK();
}

Status ReadBlockInto(const RandomAccessFile* file, std::string_view path,
                     const BlockHandle& handle, const BlockReadLimits& limits,
                     bool verify_checksums, Decompressor* decompressor, char* buffer,
                     std::string* uncompressed, std::string_view* contents, bool* in_buffer) {
  Status s = CheckBlockHandle(path, handle, limits);
  if (!s.ok()) return s;
  const size_t size = static_cast<size_t>(handle.size());
  const size_t n = size + kBlockTrailerSize;
  std::string_view raw;
  s = file->Read(handle.offset(), n, &raw, buffer);
  if (!s.ok()) return AnnotateBlockError(s, path, handle.offset());
  if (raw.size() != n) {
    return BlockCorruption(path, handle.offset(),
                           absl::StrCat("truncated read: ", raw.size(), " of ", n, " bytes"));
  }
  // A file system may hand back its own memory (a memory file system, a mapping): the bytes
  // must end up in `buffer` all the same.
  if (raw.data() != buffer) {
    std::memcpy(buffer, raw.data(), n);
    raw = std::string_view(buffer, n);
  }
  CompressionType type = kNoCompression;
  s = CheckTrailer(raw, path, handle, verify_checksums, &type);
  if (!s.ok()) return s;
  const std::string_view stored = raw.substr(0, size);
  if (type != kNoCompression) {
    s = Uncompress(stored, type, path, handle, limits.max_uncompressed_size, decompressor,
                   uncompressed);
    if (!s.ok()) return s;
    *contents = *uncompressed;
    *in_buffer = false;
    return Status::OK();
  }
  if (size > limits.max_uncompressed_size) {
    return BlockCorruption(path, handle.offset(), "block larger than the limit");
  }
  *contents = stored;
  *in_buffer = true;
  return Status::OK();
}

Status ReadBlock(const RandomAccessFile* file, std::string_view path, const BlockHandle& handle,
                 const BlockReadLimits& limits, bool verify_checksums, Decompressor* decompressor,
                 std::string* contents) {
  Status s = CheckBlockHandle(path, handle, limits);
  if (!s.ok()) return s;
  const size_t size = static_cast<size_t>(handle.size());
  std::string buf;
  buf.resize(size + kBlockTrailerSize);
  std::string uncompressed;
  std::string_view view;
  bool in_buffer = false;
  s = ReadBlockInto(file, path, handle, limits, verify_checksums, decompressor, buf.data(),
                    &uncompressed, &view, &in_buffer);
  if (!s.ok()) return s;
  if (in_buffer) {
    buf.resize(size);  // the read landed in buf: hand it over without a copy
    *contents = std::move(buf);
  } else {
    *contents = std::move(uncompressed);
  }
  return Status::OK();
}

Status DecodeRawBlock(std::string_view raw, std::string_view path, const BlockHandle& handle,
                      size_t max_uncompressed_size, bool verify_checksums,
                      Decompressor* decompressor, std::string* contents) {
  if (raw.size() != handle.size() + kBlockTrailerSize) {
    return BlockCorruption(path, handle.offset(), "block does not fit its region");
  }
  CompressionType type = kNoCompression;
  Status s = CheckTrailer(raw, path, handle, verify_checksums, &type);
  if (!s.ok()) return s;
  std::string_view stored = raw.substr(0, handle.size());
  if (type != kNoCompression) {
    return Uncompress(stored, type, path, handle, max_uncompressed_size, decompressor,
                      contents);
  }
  if (stored.size() > max_uncompressed_size) {
    return BlockCorruption(path, handle.offset(), "block larger than the limit");
  }
  contents->assign(stored.data(), stored.size());
  return Status::OK();
}

Status BlockCorruption(std::string_view path, uint64_t offset, std::string_view what) {
  return Status::Corruption(absl::StrCat(ToAbsl(path), ": block at offset ", offset), what);
}

Status AnnotateBlockError(const Status& s, std::string_view path, uint64_t offset) {
  return Status(s.code(), s.subcode(), absl::StrCat(ToAbsl(path), ": block at offset ", offset),
                s.message());
}

Decompressor* ThreadLocalDecompressor() {
  thread_local Decompressor decompressor;
  return &decompressor;
}

}  // namespace shale
