// Compression settings of rocksdb_options_t: the type of every level and of the bottommost one
// (mapped onto shale::Options), the per-level list (mapped at open, ShaleOptionsFor), and
// RocksDB's CompressionOptions, of which ShaleDB has the level; the rest (window bits,
// strategy, dictionaries, parallel threads, the bottommost level's own options) only tune how
// blocks are compressed and are accepted without effect (knobs).
//
// Thread-safety: as options.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/compression_type.h"
#include "shale/options.h"

using shale::rocksdb_capi::KnobBool;
using shale::rocksdb_capi::KnobInt;
using shale::rocksdb_capi::KnobText;
using shale::rocksdb_capi::KnobTextBool;
using shale::rocksdb_capi::KnobTextUnsigned;
using shale::rocksdb_capi::KnobUint;
using shale::rocksdb_capi::SetKnob;

namespace {

// RocksDB's CompressionOptions::kDefaultCompressionLevel: "the codec's own default".
constexpr int kRocksDbDefaultCompressionLevel = 32767;

// RocksDB's CompressionType values are ShaleDB's (compression_type.h); the engine's validation
// refuses at open the types this build does not compress with. A value outside a byte is kept
// as 0xfe, which no codec has, so that it is refused too instead of wrapping to a valid type.
shale::CompressionType ToCompressionType(int type) {
  if (type < 0 || type > 0xff) return static_cast<shale::CompressionType>(0xfe);
  return static_cast<shale::CompressionType>(type);
}

}  // namespace

extern "C" {

void rocksdb_options_set_compression(rocksdb_options_t* opt, int t) {
  opt->rep.compression = ToCompressionType(t);
}
int rocksdb_options_get_compression(rocksdb_options_t* opt) {
  return static_cast<int>(opt->rep.compression);
}

void rocksdb_options_set_bottommost_compression(rocksdb_options_t* opt, int t) {
  opt->rep.bottommost_compression = ToCompressionType(t);
}
int rocksdb_options_get_bottommost_compression(rocksdb_options_t* opt) {
  return static_cast<int>(opt->rep.bottommost_compression);
}

// RocksDB's compression_per_level: one type per level, overriding `compression`. ShaleDB has
// one type above the bottommost level and one for it: ShaleOptionsFor maps the list onto them.
// num_levels 0 clears the list.
void rocksdb_options_set_compression_per_level(rocksdb_options_t* opt, const int* level_values,
                                               size_t num_levels) {
  if (num_levels == 0) {
    opt->compression_per_level.clear();
  } else {
    opt->compression_per_level.assign(level_values, level_values + num_levels);
  }
}

// RocksDB: levels below `level` uncompressed, the others with `compression` (as set now).
void rocksdb_options_set_min_level_to_compress(rocksdb_options_t* opt, int level) {
  if (level < 0) return;  // RocksDB does nothing for a negative level
  const int levels = opt->rep.num_levels > 0 ? opt->rep.num_levels : 0;
  std::vector<int> values(static_cast<size_t>(levels));
  for (int i = 0; i < levels; i++) {
    values[static_cast<size_t>(i)] =
        i < level ? shale::kNoCompression : static_cast<int>(opt->rep.compression);
  }
  rocksdb_options_set_compression_per_level(opt, values.data(), values.size());
}

// The level maps onto ShaleDB's compression_level (RocksDB's 32767, "the codec's default",
// becomes 0, ShaleDB's spelling of it); window bits, strategy and dictionary size are knobs.
void rocksdb_options_set_compression_options(rocksdb_options_t* opt, int w_bits, int level,
                                             int strategy, int max_dict_bytes) {
  opt->rep.compression_level = level == kRocksDbDefaultCompressionLevel ? 0 : level;
  SetKnob(opt, "compression_opts.window_bits", KnobText(int64_t{w_bits}));
  SetKnob(opt, "compression_opts.strategy", KnobText(int64_t{strategy}));
  SetKnob(opt, "compression_opts.max_dict_bytes", KnobText(int64_t{max_dict_bytes}));
}

void rocksdb_options_set_compression_options_zstd_max_train_bytes(rocksdb_options_t* opt,
                                                                  int zstd_max_train_bytes) {
  // accepted without effect
  SetKnob(opt, "compression_opts.zstd_max_train_bytes", KnobText(int64_t{zstd_max_train_bytes}));
}
int rocksdb_options_get_compression_options_zstd_max_train_bytes(rocksdb_options_t* opt) {
  // accepted without effect
  return static_cast<int>(KnobInt(opt, "compression_opts.zstd_max_train_bytes", 0));
}

void rocksdb_options_set_compression_options_use_zstd_dict_trainer(rocksdb_options_t* opt,
                                                                   unsigned char v) {
  // accepted without effect
  SetKnob(opt, "compression_opts.use_zstd_dict_trainer", KnobTextBool(v != 0));
}
unsigned char rocksdb_options_get_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt) {
  // accepted without effect
  return KnobBool(opt, "compression_opts.use_zstd_dict_trainer", true);
}

void rocksdb_options_set_compression_options_parallel_threads(rocksdb_options_t* opt, int v) {
  // accepted without effect
  SetKnob(opt, "compression_opts.parallel_threads", KnobText(int64_t{v}));
}
int rocksdb_options_get_compression_options_parallel_threads(rocksdb_options_t* opt) {
  // accepted without effect
  return static_cast<int>(KnobInt(opt, "compression_opts.parallel_threads", 1));
}

void rocksdb_options_set_compression_options_max_dict_buffer_bytes(rocksdb_options_t* opt,
                                                                   uint64_t v) {
  // accepted without effect
  SetKnob(opt, "compression_opts.max_dict_buffer_bytes", KnobTextUnsigned(v));
}
uint64_t rocksdb_options_get_compression_options_max_dict_buffer_bytes(
    rocksdb_options_t* opt) {
  // accepted without effect
  return KnobUint(opt, "compression_opts.max_dict_buffer_bytes", 0);
}

// The bottommost level's own CompressionOptions: ShaleDB uses compression_level at every level,
// so all of them are knobs (the bottommost level is compressed with the same level).
void rocksdb_options_set_bottommost_compression_options(rocksdb_options_t* opt, int w_bits,
                                                        int level, int strategy,
                                                        int max_dict_bytes,
                                                        unsigned char enabled) {
  // accepted without effect
  SetKnob(opt, "bottommost_compression_opts.window_bits", KnobText(int64_t{w_bits}));
  SetKnob(opt, "bottommost_compression_opts.level", KnobText(int64_t{level}));
  SetKnob(opt, "bottommost_compression_opts.strategy", KnobText(int64_t{strategy}));
  SetKnob(opt, "bottommost_compression_opts.max_dict_bytes", KnobText(int64_t{max_dict_bytes}));
  SetKnob(opt, "bottommost_compression_opts.enabled", KnobTextBool(enabled != 0));
}

void rocksdb_options_set_bottommost_compression_options_zstd_max_train_bytes(
    rocksdb_options_t* opt, int zstd_max_train_bytes, unsigned char enabled) {
  // accepted without effect
  SetKnob(opt, "bottommost_compression_opts.zstd_max_train_bytes",
          KnobText(int64_t{zstd_max_train_bytes}));
  SetKnob(opt, "bottommost_compression_opts.enabled", KnobTextBool(enabled != 0));
}

void rocksdb_options_set_bottommost_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt, unsigned char use_zstd_dict_trainer, unsigned char enabled) {
  // accepted without effect
  SetKnob(opt, "bottommost_compression_opts.use_zstd_dict_trainer",
          KnobTextBool(use_zstd_dict_trainer != 0));
  SetKnob(opt, "bottommost_compression_opts.enabled", KnobTextBool(enabled != 0));
}
unsigned char rocksdb_options_get_bottommost_compression_options_use_zstd_dict_trainer(
    rocksdb_options_t* opt) {
  // accepted without effect
  return KnobBool(opt, "bottommost_compression_opts.use_zstd_dict_trainer", true);
}

void rocksdb_options_set_bottommost_compression_options_max_dict_buffer_bytes(
    rocksdb_options_t* opt, uint64_t max_dict_buffer_bytes, unsigned char enabled) {
  // accepted without effect
  SetKnob(opt, "bottommost_compression_opts.max_dict_buffer_bytes",
          KnobTextUnsigned(max_dict_buffer_bytes));
  SetKnob(opt, "bottommost_compression_opts.enabled", KnobTextBool(enabled != 0));
}

// The WAL is never compressed here (it cannot change what a read returns): a knob.
void rocksdb_options_set_wal_compression(rocksdb_options_t* opt, int t) {
  // accepted without effect
  SetKnob(opt, "wal_compression", KnobText(int64_t{t}));
}
int rocksdb_options_get_wal_compression(rocksdb_options_t* opt) {
  // accepted without effect
  return static_cast<int>(KnobInt(opt, "wal_compression", shale::kNoCompression));
}

// Blob files are not built; their compression is a knob like the other blob settings.
void rocksdb_options_set_blob_compression_type(rocksdb_options_t* opt, int val) {
  // accepted without effect
  SetKnob(opt, "blob_compression_type", KnobText(int64_t{val}));
}
int rocksdb_options_get_blob_compression_type(rocksdb_options_t* opt) {
  // accepted without effect
  return static_cast<int>(KnobInt(opt, "blob_compression_type", shale::kNoCompression));
}

}  // extern "C"
