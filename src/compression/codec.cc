#include "compression/codec.h"

#include <zstd.h>

#include "absl/strings/str_cat.h"

namespace shale {

bool CompressionTypeSupported(CompressionType type) {
  return type == kNoCompression || type == kZSTD;
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

struct Compressor::Context {
  ZSTD_CCtx* cctx = nullptr;
  ~Context() { ZSTD_freeCCtx(cctx); }
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
  if (type_ != kZSTD || ctx_->cctx == nullptr) return false;
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

struct Decompressor::Context {
  ZSTD_DCtx* dctx = nullptr;
  ~Context() { ZSTD_freeDCtx(dctx); }
};

Decompressor::Decompressor() : ctx_(std::make_unique<Context>()) {}
Decompressor::~Decompressor() = default;

Status Decompressor::Decompress(CompressionType type, std::string_view input,
                                size_t max_output_size, std::string* output) {
  if (type == kNoCompression) {
    if (input.size() > max_output_size) {
      return Status::Corruption("uncompressed block larger than the limit");
    }
    output->assign(input.data(), input.size());
    return Status::OK();
  }
  if (type != kZSTD) {
    return Status::NotSupported(
        absl::StrCat("compression type ", CompressionTypeName(type), " (",
                     static_cast<int>(type), ") is not supported by this build"));
  }
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

}  // namespace shale
