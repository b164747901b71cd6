// The option objects of the universal and FIFO compaction styles
// (rocksdb_universal_compaction_options_t, rocksdb_fifo_compaction_options_t): RocksDB's
// defaults, setters and getters. rocksdb_options_set_universal_compaction_options and
// rocksdb_options_set_fifo_compaction_options (options.cc) copy them into the options.
//
// Thread-safety: a handle is not safe to change from two threads at once.
#include <cstdint>

#include "rocksdb/c.h"
#include "rocksdb_capi/options_internal.h"

extern "C" {

// ---------------------------------------------------------------- Universal

// ShaleDB's defaults are RocksDB's (size_ratio 1, widths 2 and UINT_MAX, 200% amplification;
// compression_size_percent -1, stop_style total size).
rocksdb_universal_compaction_options_t* rocksdb_universal_compaction_options_create(void) {
  return new rocksdb_universal_compaction_options_t;
}

void rocksdb_universal_compaction_options_destroy(rocksdb_universal_compaction_options_t* uco) {
  delete uco;
}

// RocksDB's C API passes these unsigned knobs as int and stores them with a plain conversion;
// so does this one (a negative value becomes a large unsigned one, which reads back as given).
void rocksdb_universal_compaction_options_set_size_ratio(
    rocksdb_universal_compaction_options_t* uco, int ratio) {
  uco->rep.size_ratio = static_cast<unsigned int>(ratio);
}
int rocksdb_universal_compaction_options_get_size_ratio(
    rocksdb_universal_compaction_options_t* uco) {
  return static_cast<int>(uco->rep.size_ratio);
}

void rocksdb_universal_compaction_options_set_min_merge_width(
    rocksdb_universal_compaction_options_t* uco, int w) {
  uco->rep.min_merge_width = static_cast<unsigned int>(w);
}
int rocksdb_universal_compaction_options_get_min_merge_width(
    rocksdb_universal_compaction_options_t* uco) {
  return static_cast<int>(uco->rep.min_merge_width);
}

void rocksdb_universal_compaction_options_set_max_merge_width(
    rocksdb_universal_compaction_options_t* uco, int w) {
  uco->rep.max_merge_width = static_cast<unsigned int>(w);
}
int rocksdb_universal_compaction_options_get_max_merge_width(
    rocksdb_universal_compaction_options_t* uco) {
  return static_cast<int>(uco->rep.max_merge_width);
}

void rocksdb_universal_compaction_options_set_max_size_amplification_percent(
    rocksdb_universal_compaction_options_t* uco, int p) {
  uco->rep.max_size_amplification_percent = static_cast<unsigned int>(p);
}
int rocksdb_universal_compaction_options_get_max_size_amplification_percent(
    rocksdb_universal_compaction_options_t* uco) {
  return static_cast<int>(uco->rep.max_size_amplification_percent);
}

// No counterpart in ShaleDB's universal style (knobs once copied into the options).
void rocksdb_universal_compaction_options_set_compression_size_percent(
    rocksdb_universal_compaction_options_t* uco, int p) {
  uco->compression_size_percent = p;
}
int rocksdb_universal_compaction_options_get_compression_size_percent(
    rocksdb_universal_compaction_options_t* uco) {
  return uco->compression_size_percent;
}

void rocksdb_universal_compaction_options_set_stop_style(
    rocksdb_universal_compaction_options_t* uco, int style) {
  uco->stop_style = style;
}
int rocksdb_universal_compaction_options_get_stop_style(
    rocksdb_universal_compaction_options_t* uco) {
  return uco->stop_style;
}

// ---------------------------------------------------------------- FIFO

// Default max_table_files_size: 1 GiB, as RocksDB.
rocksdb_fifo_compaction_options_t* rocksdb_fifo_compaction_options_create(void) {
  return new rocksdb_fifo_compaction_options_t;
}

void rocksdb_fifo_compaction_options_set_max_table_files_size(
    rocksdb_fifo_compaction_options_t* fifo_opts, uint64_t size) {
  fifo_opts->rep.max_table_files_size = size;
}
uint64_t rocksdb_fifo_compaction_options_get_max_table_files_size(
    rocksdb_fifo_compaction_options_t* fifo_opts) {
  return fifo_opts->rep.max_table_files_size;
}

void rocksdb_fifo_compaction_options_destroy(rocksdb_fifo_compaction_options_t* fifo_opts) {
  delete fifo_opts;
}

}  // extern "C"
