#include "compression/codec.h"

#include <lz4.h>
#include <lz4hc.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "util/coding.h"

namespace shale {

namespace {

// Reads the varint32 uncompressed size of an LZ4 form and checks it against the limit; on
// success *block is the LZ4 block that follows it.
Status ReadLz4Header(std::string_view input, size_t max_output_size, std::string_view* block,
                     uint32_t* size) {
  *block = input;
  if (!GetVarint32(block, size)) return Status::Corruption("lz4 block has no valid size header");
  if (*size > max_output_size) {
    return Status::Corruption(absl::StrCat("lz4 block claims ", *size,
                                           " uncompressed bytes, over the limit of ",
                                           max_output_size));
  }
  if (block->size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corruption("lz4 block larger than LZ4 can decode");
  }
  return Status::OK();
}

// LZ4 and LZ4HC (one decoder): LZ4_decompress_safe never reads past the input nor writes past
// the output's capacity, which is the recorded size exactly.
Status DecompressLz4(std::string_view input, size_t max_output_size, std::string* output) {
  std::string_view block;
  uint32_t size = 0;
  Status s = ReadLz4Header(input, max_output_size, &block, &size);
  if (!s.ok()) return s;
  output->resize(size);
  int n = LZ4_decompress_safe(block.data(), output->data(), static_cast<int>(block.size()),
                              static_cast<int>(size));
  if (n < 0) return Status::Corruption("lz4 decompression failed (malformed block)");
  if (static_cast<uint32_t>(n) != size) {
    return Status::Corruption(absl::StrCat("lz4 block decompressed to ", n,
                                           " bytes, not the ", size, " its header records"));
  }
  return Status::OK();
}

// Snappy: its raw format starts with the uncompressed size; RawUncompress checks every copy
// against the input and the output and that the output is filled exactly.
Status DecompressSnappy(std::string_view input, size_t max_output_size, std::string* output) {
  size_t size = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &size)) {
    return Status::Corruption("snappy block has no valid size header");
  }
  if (size > max_output_size) {
    return Status::Corruption(absl::StrCat("snappy block claims ", size,
                                           " uncompressed bytes, over the limit of ",
                                           max_output_size));
  }
  output->resize(size);
  if (!snappy::RawUncompress(input.data(), input.size(), output->data())) {
    return Status::Corruption("snappy decompression failed (malformed block)");
  }
  return Status::OK();
}

// zlib's parameters for the deflate stream of a kZlibCompression block: raw deflate (negative
// window bits: no zlib header or Adler-32, the block has its own checksum) with a 16 KiB window
// and memLevel 8, as RocksDB writes it. Inflate uses the largest window (32 KiB), which reads
// any raw stream, including one written with a smaller window.
constexpr int kZlibDeflateWindowBits = -14;
constexpr int kZlibInflateWindowBits = -15;
constexpr int kZlibMemLevel = 8;

}  // namespace

bool CompressionTypeSupported(CompressionType type) {
  switch (type) {
    case kNoCompression:
    case kSnappyCompression:
    case kZlibCompression:
    case kLZ4Compression:
    case kLZ4HCCompression:
    case kZSTD:
      return true;
    case kBZip2Compression:
    case kXpressCompression:
      return false;
  }
  return false;
}

std::string_view SupportedCompressionTypeNames() {
  return "kNoCompression, kSnappyCompression, kZlibCompression, kLZ4Compression, "
         "kLZ4HCCompression, kZSTD";
}

const char* CompressionTypeName(CompressionType type) {
  switch (type) {
    case kNoCompression: return "NoCompression";
    case kSnappyCompression: return "Snappy";
    case kZlibCompression: return "Zlib";
    case kBZip2Compression: return "BZip2";
    case kLZ4Compression: return "LZ4";
    case kLZ4HCCompression: return "LZ4HC";
    case kXpressCompression: return "Xpress";
    case kZSTD: return "ZSTD";
  }
  return "Unknown";
}

int Lz4hcLevel(int compression_level) {
  if (compression_level == 0) return LZ4HC_CLEVEL_DEFAULT;
  return std::clamp(compression_level, LZ4HC_CLEVEL_MIN, LZ4HC_CLEVEL_MAX);
}

int ZlibLevel(int compression_level) {
  if (compression_level == 0) return Z_DEFAULT_COMPRESSION;
  return std::clamp(compression_level, 1, 9);  // Z_BEST_SPEED .. Z_BEST_COMPRESSION
}

// Codec state reused across blocks; each member is created on first use.
struct Compressor::Context {
  ZSTD_CCtx* cctx = nullptr;
  LZ4_stream_t* lz4 = nullptr;       // kLZ4Compression
  LZ4_streamHC_t* lz4hc = nullptr;   // kLZ4HCCompression
  // kZlibCompression: deflate state, initialized (deflateInit2) iff deflate_ready; reset
  // (deflateReset) before each block, so that every block is a stream of its own.
  z_stream zdeflate{};
  bool deflate_ready = false;
  ~Context() {
    ZSTD_freeCCtx(cctx);
    LZ4_freeStream(lz4);
    LZ4_freeStreamHC(lz4hc);
    if (deflate_ready) deflateEnd(&zdeflate);
  }
};

Compressor::Compressor(CompressionType type, int level)
    : type_(type), level_(level), ctx_(std::make_unique<Context>()) {
  if (type_ == kZSTD) {
    ctx_->cctx = ZSTD_createCCtx();
    // The frame records the content size, which the decompressor checks before allocating.
    ZSTD_CCtx_setParameter(ctx_->cctx, ZSTD_c_compressionLevel, level_);
    ZSTD_CCtx_setParameter(ctx_->cctx, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(ctx_->cctx, ZSTD_c_checksumFlag, 0);  // blocks have their own
  }
}

Compressor::~Compressor() = default;

bool Compressor::Compress(std::string_view input, std::string* output) {
  switch (type_) {
    case kZSTD: return CompressZstd(input, output);
    case kSnappyCompression: return CompressSnappy(input, output);
    case kLZ4Compression:
    case kLZ4HCCompression: return CompressLz4(input, output);
    case kZlibCompression: return CompressZlib(input, output);
    default: return false;
  }
}

bool Compressor::CompressZstd(std::string_view input, std::string* output) {
  if (ctx_->cctx == nullptr) return false;
  size_t bound = ZSTD_compressBound(input.size());
  output->resize(bound);
  size_t n = ZSTD_compress2(ctx_->cctx, output->data(), bound, input.data(), input.size());
  if (ZSTD_isError(n)) {
    ZSTD_CCtx_reset(ctx_->cctx, ZSTD_reset_session_only);
    return false;
  }
  output->resize(n);
  return true;
}

bool Compressor::CompressSnappy(std::string_view input, std::string* output) {
  if (input.size() > std::numeric_limits<uint32_t>::max()) return false;
  output->resize(snappy::MaxCompressedLength(input.size()));
  size_t n = 0;
  snappy::RawCompress(input.data(), input.size(), output->data(), &n);
  output->resize(n);
  return true;
}

// Each block is a stream of its own (reset before it), so a block never refers to another and
// LZ4_decompress_safe decodes it alone. The streams are reused so that a block costs no
// allocation and no full-table clear.
bool Compressor::CompressLz4(std::string_view input, std::string* output) {
  if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return false;
  const int src_size = static_cast<int>(input.size());
  const int bound = LZ4_compressBound(src_size);
  output->clear();
  PutVarint32(output, static_cast<uint32_t>(input.size()));
  const size_t header = output->size();
  output->resize(header + static_cast<size_t>(bound));
  char* dst = output->data() + header;
  int n = 0;
  if (type_ == kLZ4HCCompression) {
    if (ctx_->lz4hc == nullptr && (ctx_->lz4hc = LZ4_createStreamHC()) == nullptr) return false;
    LZ4_resetStreamHC_fast(ctx_->lz4hc, Lz4hcLevel(level_));
    n = LZ4_compress_HC_continue(ctx_->lz4hc, input.data(), dst, src_size, bound);
  } else {
    if (ctx_->lz4 == nullptr && (ctx_->lz4 = LZ4_createStream()) == nullptr) return false;
    LZ4_resetStream_fast(ctx_->lz4);
    // Acceleration 1, LZ4's default (RocksDB's too): LZ4 has no levels.
    n = LZ4_compress_fast_continue(ctx_->lz4, input.data(), dst, src_size, bound, 1);
  }
  if (n <= 0) {
    // LZ4 does not promise a usable stream after a failure: start afresh next time.
    LZ4_freeStream(ctx_->lz4);
    LZ4_freeStreamHC(ctx_->lz4hc);
    ctx_->lz4 = nullptr;
    ctx_->lz4hc = nullptr;
    return false;
  }
  output->resize(header + static_cast<size_t>(n));
  return true;
}

// The form is varint32 uncompressed size + one raw deflate stream. deflateBound is an upper
// bound for the stream with this state's parameters, so Z_FINISH always completes in one call.
bool Compressor::CompressZlib(std::string_view input, std::string* output) {
  if (input.size() > std::numeric_limits<uint32_t>::max()) return false;  // varint32, uInt
  z_stream* z = &ctx_->zdeflate;
  if (!ctx_->deflate_ready) {
    *z = z_stream{};  // zalloc, zfree, opaque: Z_NULL, zlib's allocator
    if (deflateInit2(z, ZlibLevel(level_), Z_DEFLATED, kZlibDeflateWindowBits, kZlibMemLevel,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return false;
    }
    ctx_->deflate_ready = true;
  } else if (deflateReset(z) != Z_OK) {
    return false;
  }
  const uLong bound = deflateBound(z, static_cast<uLong>(input.size()));
  output->clear();
  PutVarint32(output, static_cast<uint32_t>(input.size()));
  const size_t header = output->size();
  if (bound > std::numeric_limits<uInt>::max()) return false;
  output->resize(header + static_cast<size_t>(bound));
  // zlib's API is not const-correct: it never writes through next_in.
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z->avail_in = static_cast<uInt>(input.size());
  z->next_out = reinterpret_cast<Bytef*>(output->data() + header);
  z->avail_out = static_cast<uInt>(bound);
  const int ret = deflate(z, Z_FINISH);
  if (ret != Z_STREAM_END) return false;  // the next block resets the state
  output->resize(header + static_cast<size_t>(z->total_out));
  return true;
}

// Codec state reused across blocks; each member is created on first use.
struct Decompressor::Context {
  ZSTD_DCtx* dctx = nullptr;
  // kZlibCompression: inflate state, initialized (inflateInit2) iff inflate_ready; reset
  // (inflateReset) before each block, so a damaged block leaves nothing behind.
  z_stream zinflate{};
  bool inflate_ready = false;
  ~Context() {
    ZSTD_freeDCtx(dctx);
    if (inflate_ready) inflateEnd(&zinflate);
  }
};

Decompressor::Decompressor() : ctx_(std::make_unique<Context>()) {}
Decompressor::~Decompressor() = default;

Status Decompressor::Decompress(CompressionType type, std::string_view input,
                                size_t max_output_size, std::string* output) {
  switch (type) {
    case kNoCompression:
      if (input.size() > max_output_size) {
        return Status::Corruption("uncompressed block larger than the limit");
      }
      output->assign(input.data(), input.size());
      return Status::OK();
    case kZSTD: return DecompressZstd(input, max_output_size, output);
    case kSnappyCompression: return DecompressSnappy(input, max_output_size, output);
    case kLZ4Compression:
    case kLZ4HCCompression: return DecompressLz4(input, max_output_size, output);
    case kZlibCompression: return DecompressZlib(input, max_output_size, output);
    default:
      return Status::NotSupported(
          absl::StrCat("compression type ", CompressionTypeName(type), " (",
                       static_cast<int>(type), ") is not supported by this build"));
  }
}

Status Decompressor::DecompressZstd(std::string_view input, size_t max_output_size,
                                    std::string* output) {
  unsigned long long size = ZSTD_getFrameContentSize(input.data(), input.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::Corruption("zstd block has no valid frame header");
  }
  if (size > max_output_size) {
    return Status::Corruption(absl::StrCat("zstd block claims ", size,
                                           " uncompressed bytes, over the limit of ",
                                           max_output_size));
  }
  if (ctx_->dctx == nullptr) ctx_->dctx = ZSTD_createDCtx();
  output->resize(size);
  size_t n = ZSTD_decompressDCtx(ctx_->dctx, output->data(), size, input.data(), input.size());
  if (ZSTD_isError(n)) {
    return Status::Corruption("zstd decompression failed", ZSTD_getErrorName(n));
  }
  if (n != size) {
    return Status::Corruption("zstd block decompressed to a size other than its header's");
  }
  return Status::OK();
}

// inflate reads the raw deflate stream into exactly the recorded number of bytes: it never
// reads past avail_in nor writes past avail_out. The block is whole only when the stream ends
// (Z_STREAM_END) with the output full and the input consumed.
Status Decompressor::DecompressZlib(std::string_view input, size_t max_output_size,
                                    std::string* output) {
  std::string_view stream = input;
  uint32_t size = 0;
  if (!GetVarint32(&stream, &size)) {
    return Status::Corruption("zlib block has no valid size header");
  }
  if (size > max_output_size) {
    return Status::Corruption(absl::StrCat("zlib block claims ", size,
                                           " uncompressed bytes, over the limit of ",
                                           max_output_size));
  }
  if (stream.size() > std::numeric_limits<uInt>::max()) {
    return Status::Corruption("zlib block larger than zlib can decode");
  }
  z_stream* z = &ctx_->zinflate;
  if (!ctx_->inflate_ready) {
    *z = z_stream{};  // zalloc, zfree, opaque, next_in: Z_NULL
    if (inflateInit2(z, kZlibInflateWindowBits) != Z_OK) {
      return Status::Aborted("zlib could not allocate its inflate state");
    }
    ctx_->inflate_ready = true;
  } else if (inflateReset(z) != Z_OK) {
    return Status::Aborted("zlib could not reset its inflate state");
  }
  output->resize(size);
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z->avail_in = static_cast<uInt>(stream.size());
  z->next_out = reinterpret_cast<Bytef*>(output->data());
  z->avail_out = size;
  const int ret = inflate(z, Z_FINISH);
  switch (ret) {
    case Z_STREAM_END:
      if (z->avail_out != 0) {
        return Status::Corruption(absl::StrCat("zlib block inflated to ", z->total_out,
                                               " bytes, not the ", size,
                                               " its header records"));
      }
      if (z->avail_in != 0) {
        return Status::Corruption(absl::StrCat("zlib block has ", z->avail_in,
                                               " bytes after the end of its deflate stream"));
      }
      return Status::OK();
    case Z_OK:
    case Z_BUF_ERROR:
      // Z_FINISH stopped short of the stream's end: either the output is full with input left
      // (the stream holds more than the header records) or the input ran out (a truncated
      // stream).
      if (z->avail_out == 0 && z->avail_in != 0) {
        return Status::Corruption(absl::StrCat("zlib block inflates to more than the ", size,
                                               " bytes its header records"));
      }
      return Status::Corruption("zlib block's deflate stream is truncated");
    case Z_NEED_DICT:
      return Status::Corruption("zlib block asks for a preset dictionary, which no block has");
    case Z_MEM_ERROR:
      return Status::Aborted("zlib ran out of memory inflating a block");
    default:  // Z_DATA_ERROR, Z_STREAM_ERROR
      return Status::Corruption("zlib decompression failed (malformed stream)",
                                z->msg != nullptr ? z->msg : "");
  }
}

}  // namespace shale
