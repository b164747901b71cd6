// RocksDB's C API for read, write, flush, compact-range and ingestion options, and the helpers
// of read_write_options.h that turn them into ShaleDB's.
//
// prefix_same_as_start and total_order_seek are kept in the handle for iterator creation
// (prefix_iterator.h: an iterator of a family with a prefix extractor stops at the end of the
// seek target's prefix).
// Read options accepted without effect (recorded in accepted_knobs): readahead_size, managed,
// background_purge_on_iterator_cleanup,
// max_skippable_internal_keys, deadline, io_timeout. The last three only let RocksDB give up
// early (Incomplete, TimedOut); ShaleDB always completes the read, with the result RocksDB gives
// when it does not give up.
// Refused when a read uses them (ReadOptionsFor): read_tier != kReadAllTier,
// ignore_range_deletions, timestamp, iter_start_ts, tailing (iterators).
// Write options accepted without effect: no_slowdown (ShaleDB's writes wait out a stall
// instead of failing with Incomplete), low_pri, memtable_insert_hint_per_batch,
// ignore_missing_column_families (a write naming a dropped column family fails instead of
// skipping it: visible, never silent).
#include "rocksdb_capi/read_write_options.h"

#include <string>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/table_knobs.h"

namespace shale::rocksdb_capi {

namespace {

Status Refuse(const char* setter, std::string_view detail) {
  return Status::NotSupported(std::string("Not supported by ShaleDB: ") + setter, detail);
}

}  // namespace

Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                      ReadOptions* out) {
  *out = ReadOptions();
  if (options == nullptr) return Status::OK();
  if (options->read_tier != 0) {
    return Refuse("rocksdb_readoptions_set_read_tier",
                  "only kReadAllTier (0) is supported, read_tier is " +
                      std::to_string(options->read_tier));
  }
  if (options->ignore_range_deletions) {
    return Refuse("rocksdb_readoptions_set_ignore_range_deletions",
                  "reads always apply range deletions");
  }
  if (options->has_timestamp) {
    return Refuse("rocksdb_readoptions_set_timestamp", "no user-defined timestamps");
  }
  if (options->has_iter_start_ts) {
    return Refuse("rocksdb_readoptions_set_iter_start_ts", "no user-defined timestamps");
  }
  if (bounds != nullptr && options->tailing) {
    return Refuse("rocksdb_readoptions_set_tailing",
                  "iterators read a fixed view; no tailing iterators");
  }
  out->snapshot = options->rep.snapshot;
  out->verify_checksums = options->rep.verify_checksums;
  out->fill_cache = options->rep.fill_cache;
  if (bounds != nullptr) {
    if (options->has_lower_bound) {
      bounds->lower_ = options->lower_bound;
      bounds->lower_view_ = bounds->lower_;
      out->iterate_lower_bound = &bounds->lower_view_;
    }
    if (options->has_upper_bound) {
      bounds->upper_ = options->upper_bound;
      bounds->upper_view_ = bounds->upper_;
      out->iterate_upper_bound = &bounds->upper_view_;
    }
  }
  return Status::OK();
}

WriteOptions WriteOptionsFor(const rocksdb_writeoptions_t* options) {
  return options == nullptr ? WriteOptions() : options->rep;
}

FlushOptions FlushOptionsFor(const rocksdb_flushoptions_t* options) {
  return options == nullptr ? FlushOptions() : options->rep;
}

Status CompactRangeOptionsFor(const rocksdb_compactoptions_t* options, CompactRangeOptions* out) {
  *out = RocksDefaultCompactRangeOptions();
  if (options == nullptr) return Status::OK();
  if (options->bottommost_level_compaction > 3) {
    return Status::InvalidArgument(
        "bottommost_level_compaction",
        "must be 0 (kSkip), 1 (kIfHaveCompactionFilter), 2 (kForce) or 3 (kForceOptimized), is " +
            std::to_string(options->bottommost_level_compaction));
  }
  if (options->has_full_history_ts_low) {
    return Refuse("rocksdb_compactoptions_set_full_history_ts_low", "no user-defined timestamps");
  }
  *out = options->rep;
  return Status::OK();
}

IngestExternalFileOptions IngestOptionsFor(const rocksdb_ingestexternalfileoptions_t* options) {
  return options == nullptr ? IngestExternalFileOptions() : options->rep;
}

}  // namespace shale::rocksdb_capi

namespace {

using shale::rocksdb_capi::BoolKnobOr;
using shale::rocksdb_capi::KnobOr;
using shale::rocksdb_capi::SetBoolKnob;
using shale::rocksdb_capi::SetKnob;

unsigned char Bool(bool v) { return v ? 1 : 0; }

}  // namespace

extern "C" {

// ------------------------------------------------------------------------------ Read options

rocksdb_readoptions_t* rocksdb_readoptions_create(void) { return new rocksdb_readoptions_t; }

void rocksdb_readoptions_destroy(rocksdb_readoptions_t* opt) { delete opt; }

void rocksdb_readoptions_set_verify_checksums(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->rep.verify_checksums = v != 0;
}

unsigned char rocksdb_readoptions_get_verify_checksums(rocksdb_readoptions_t* opt) {
  return Bool(opt->rep.verify_checksums);
}

void rocksdb_readoptions_set_fill_cache(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->rep.fill_cache = v != 0;
}

unsigned char rocksdb_readoptions_get_fill_cache(rocksdb_readoptions_t* opt) {
  return Bool(opt->rep.fill_cache);
}

// NULL reads the latest state again. The snapshot stays the DB's (rocksdb_release_snapshot).
void rocksdb_readoptions_set_snapshot(rocksdb_readoptions_t* opt,
                                      const rocksdb_snapshot_t* snap) {
  opt->rep.snapshot = snap == nullptr ? nullptr : snap->rep;
}

// The bound's bytes are copied (RocksDB borrows them; a copy is what every binding keeps
// anyway). NULL removes the bound; a non-NULL key of length 0 is the empty key.
void rocksdb_readoptions_set_iterate_upper_bound(rocksdb_readoptions_t* opt, const char* key,
                                                 size_t keylen) {
  opt->has_upper_bound = key != nullptr;
  opt->upper_bound = key == nullptr ? std::string() : std::string(key, keylen);
}

void rocksdb_readoptions_set_iterate_lower_bound(rocksdb_readoptions_t* opt, const char* key,
                                                 size_t keylen) {
  opt->has_lower_bound = key != nullptr;
  opt->lower_bound = key == nullptr ? std::string() : std::string(key, keylen);
}

void rocksdb_readoptions_set_read_tier(rocksdb_readoptions_t* opt, int v) { opt->read_tier = v; }

int rocksdb_readoptions_get_read_tier(rocksdb_readoptions_t* opt) { return opt->read_tier; }

void rocksdb_readoptions_set_tailing(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->tailing = v != 0;
}

unsigned char rocksdb_readoptions_get_tailing(rocksdb_readoptions_t* opt) {
  return Bool(opt->tailing);
}

// Deprecated in RocksDB, where it has no effect either.
void rocksdb_readoptions_set_managed(rocksdb_readoptions_t* opt, unsigned char v) {
  // accepted without effect
  SetBoolKnob(&opt->accepted_knobs, "managed", v != 0, false);
}

void rocksdb_readoptions_set_readahead_size(rocksdb_readoptions_t* opt, size_t v) {
  // accepted without effect
  SetKnob(&opt->accepted_knobs, "readahead_size", v, 0);
}

size_t rocksdb_readoptions_get_readahead_size(rocksdb_readoptions_t* opt) {
  // accepted without effect
  return static_cast<size_t>(KnobOr(opt->accepted_knobs, "readahead_size", 0));
}

// Takes effect in iterators of families with a prefix extractor (prefix_iterator.h).
void rocksdb_readoptions_set_prefix_same_as_start(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->prefix_same_as_start = v != 0;
}

unsigned char rocksdb_readoptions_get_prefix_same_as_start(rocksdb_readoptions_t* opt) {
  return Bool(opt->prefix_same_as_start);
}

void rocksdb_readoptions_set_pin_data(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->pin_data = v != 0;
}

unsigned char rocksdb_readoptions_get_pin_data(rocksdb_readoptions_t* opt) {
  return Bool(opt->pin_data);
}

// True turns prefix_same_as_start off (ShaleDB's iterators are always in total order).
void rocksdb_readoptions_set_total_order_seek(rocksdb_readoptions_t* opt, unsigned char v) {
  opt->total_order_seek = v != 0;
}

unsigned char rocksdb_readoptions_get_total_order_seek(rocksdb_readoptions_t* opt) {
  return Bool(opt->total_order_seek);
}

void rocksdb_readoptions_set_max_skippable_internal_keys(rocksdb_readoptions_t* opt,
                                                         uint64_t v) {
  // accepted without effect
  SetKnob(&opt->accepted_knobs, "max_skippable_internal_keys", v, 0);
}

uint64_t rocksdb_readoptions_get_max_skippable_internal_keys(rocksdb_readoptions_t* opt) {
  // accepted without effect
  return KnobOr(opt->accepted_knobs, "max_skippable_internal_keys", 0);
}

void rocksdb_readoptions_set_background_purge_on_iterator_cleanup(rocksdb_readoptions_t* opt,
                                                                  unsigned char v) {
  // accepted without effect
  SetBoolKnob(&opt->accepted_knobs, "background_purge_on_iterator_cleanup", v != 0, false);
}

unsigned char rocksdb_readoptions_get_background_purge_on_iterator_cleanup(
    rocksdb_readoptions_t* opt) {
  // accepted without effect
  return Bool(BoolKnobOr(opt->accepted_knobs, "background_purge_on_iterator_cleanup", false));
}

void rocksdb_readoptions_set_ignore_range_deletions(rocksdb_readoptions_t* opt,
                                                    unsigned char v) {
  opt->ignore_range_deletions = v != 0;
}

unsigned char rocksdb_readoptions_get_ignore_range_deletions(rocksdb_readoptions_t* opt) {
  return Bool(opt->ignore_range_deletions);
}

void rocksdb_readoptions_set_deadline(rocksdb_readoptions_t* opt, uint64_t microseconds) {
  // accepted without effect
  SetKnob(&opt->accepted_knobs, "deadline", microseconds, 0);
}

uint64_t rocksdb_readoptions_get_deadline(rocksdb_readoptions_t* opt) {
  // accepted without effect
  return KnobOr(opt->accepted_knobs, "deadline", 0);
}

void rocksdb_readoptions_set_io_timeout(rocksdb_readoptions_t* opt, uint64_t microseconds) {
  // accepted without effect
  SetKnob(&opt->accepted_knobs, "io_timeout", microseconds, 0);
}

uint64_t rocksdb_readoptions_get_io_timeout(rocksdb_readoptions_t* opt) {
  // accepted without effect
  return KnobOr(opt->accepted_knobs, "io_timeout", 0);
}

// ShaleDB has no user-defined timestamps: a timestamp makes every read with these options fail
// (ReadOptionsFor); NULL removes it.
void rocksdb_readoptions_set_timestamp(rocksdb_readoptions_t* opt, const char* ts,
                                       size_t /*tslen*/) {
  opt->has_timestamp = ts != nullptr;
}

void rocksdb_readoptions_set_iter_start_ts(rocksdb_readoptions_t* opt, const char* ts,
                                           size_t /*tslen*/) {
  opt->has_iter_start_ts = ts != nullptr;
}

// ------------------------------------------------------------------------------ Write options

rocksdb_writeoptions_t* rocksdb_writeoptions_create(void) { return new rocksdb_writeoptions_t; }

void rocksdb_writeoptions_destroy(rocksdb_writeoptions_t* opt) { delete opt; }

void rocksdb_writeoptions_set_sync(rocksdb_writeoptions_t* opt, unsigned char v) {
  opt->rep.sync = v != 0;
}

unsigned char rocksdb_writeoptions_get_sync(rocksdb_writeoptions_t* opt) {
  return Bool(opt->rep.sync);
}

void rocksdb_writeoptions_disable_WAL(rocksdb_writeoptions_t* opt, int disable) {
  opt->rep.disableWAL = disable != 0;
}

unsigned char rocksdb_writeoptions_get_disable_WAL(rocksdb_writeoptions_t* opt) {
  return Bool(opt->rep.disableWAL);
}

void rocksdb_writeoptions_set_ignore_missing_column_families(rocksdb_writeoptions_t* opt,
                                                             unsigned char v) {
  SetBoolKnob(&opt->accepted_knobs, "ignore_missing_column_families", v != 0, false);
}

unsigned char rocksdb_writeoptions_get_ignore_missing_column_families(
    rocksdb_writeoptions_t* opt) {
  return Bool(BoolKnobOr(opt->accepted_knobs, "ignore_missing_column_families", false));
}

void rocksdb_writeoptions_set_no_slowdown(rocksdb_writeoptions_t* opt, unsigned char v) {
  // accepted without effect
  SetBoolKnob(&opt->accepted_knobs, "no_slowdown", v != 0, false);
}

unsigned char rocksdb_writeoptions_get_no_slowdown(rocksdb_writeoptions_t* opt) {
  // accepted without effect
  return Bool(BoolKnobOr(opt->accepted_knobs, "no_slowdown", false));
}

void rocksdb_writeoptions_set_low_pri(rocksdb_writeoptions_t* opt, unsigned char v) {
  // accepted without effect
  SetBoolKnob(&opt->accepted_knobs, "low_pri", v != 0, false);
}

unsigned char rocksdb_writeoptions_get_low_pri(rocksdb_writeoptions_t* opt) {
  // accepted without effect
  return Bool(BoolKnobOr(opt->accepted_knobs, "low_pri", false));
}

void rocksdb_writeoptions_set_memtable_insert_hint_per_batch(rocksdb_writeoptions_t* opt,
                                                             unsigned char v) {
  // accepted without effect
  SetBoolKnob(&opt->accepted_knobs, "memtable_insert_hint_per_batch", v != 0, false);
}

unsigned char rocksdb_writeoptions_get_memtable_insert_hint_per_batch(
    rocksdb_writeoptions_t* opt) {
  // accepted without effect
  return Bool(BoolKnobOr(opt->accepted_knobs, "memtable_insert_hint_per_batch", false));
}

// ------------------------------------------------------------------------------ Flush options

rocksdb_flushoptions_t* rocksdb_flushoptions_create(void) { return new rocksdb_flushoptions_t; }

void rocksdb_flushoptions_destroy(rocksdb_flushoptions_t* opt) { delete opt; }

void rocksdb_flushoptions_set_wait(rocksdb_flushoptions_t* opt, unsigned char v) {
  opt->rep.wait = v != 0;
}

unsigned char rocksdb_flushoptions_get_wait(rocksdb_flushoptions_t* opt) {
  return Bool(opt->rep.wait);
}

// ------------------------------------------------------------------------------ Compact options

rocksdb_compactoptions_t* rocksdb_compactoptions_create(void) {
  return new rocksdb_compactoptions_t;
}

void rocksdb_compactoptions_destroy(rocksdb_compactoptions_t* opt) { delete opt; }

void rocksdb_compactoptions_set_exclusive_manual_compaction(rocksdb_compactoptions_t* opt,
                                                            unsigned char v) {
  opt->rep.exclusive_manual_compaction = v != 0;
}

unsigned char rocksdb_compactoptions_get_exclusive_manual_compaction(
    rocksdb_compactoptions_t* opt) {
  return Bool(opt->rep.exclusive_manual_compaction);
}

void rocksdb_compactoptions_set_bottommost_level_compaction(rocksdb_compactoptions_t* opt,
                                                            unsigned char v) {
  using shale::BottommostLevelCompaction;
  opt->bottommost_level_compaction = v;
  switch (v) {
    case 0: opt->rep.bottommost_level_compaction = BottommostLevelCompaction::kSkip; break;
    case 1:
      opt->rep.bottommost_level_compaction = BottommostLevelCompaction::kIfHaveCompactionFilter;
      break;
    case 2: opt->rep.bottommost_level_compaction = BottommostLevelCompaction::kForce; break;
    case 3:
      opt->rep.bottommost_level_compaction = BottommostLevelCompaction::kForceOptimized;
      break;
    default: break;  // CompactRangeOptionsFor refuses it
  }
}

unsigned char rocksdb_compactoptions_get_bottommost_level_compaction(
    rocksdb_compactoptions_t* opt) {
  return opt->bottommost_level_compaction;
}

void rocksdb_compactoptions_set_change_level(rocksdb_compactoptions_t* opt, unsigned char v) {
  opt->rep.change_level = v != 0;
}

unsigned char rocksdb_compactoptions_get_change_level(rocksdb_compactoptions_t* opt) {
  return Bool(opt->rep.change_level);
}

void rocksdb_compactoptions_set_target_level(rocksdb_compactoptions_t* opt, int n) {
  opt->rep.target_level = n;
}

int rocksdb_compactoptions_get_target_level(rocksdb_compactoptions_t* opt) {
  return opt->rep.target_level;
}

// ShaleDB has no user-defined timestamps: a compaction with one fails (CompactRangeOptionsFor);
// NULL removes it.
void rocksdb_compactoptions_set_full_history_ts_low(rocksdb_compactoptions_t* opt, char* ts,
                                                    size_t /*tslen*/) {
  opt->has_full_history_ts_low = ts != nullptr;
}

// ------------------------------------------------------------------------------ Ingest options

rocksdb_ingestexternalfileoptions_t* rocksdb_ingestexternalfileoptions_create(void) {
  return new rocksdb_ingestexternalfileoptions_t;
}

void rocksdb_ingestexternalfileoptions_set_move_files(rocksdb_ingestexternalfileoptions_t* opt,
                                                      unsigned char move_files) {
  opt->rep.move_files = move_files != 0;
}

void rocksdb_ingestexternalfileoptions_set_snapshot_consistency(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char snapshot_consistency) {
  opt->rep.snapshot_consistency = snapshot_consistency != 0;
}

void rocksdb_ingestexternalfileoptions_set_allow_global_seqno(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char allow_global_seqno) {
  opt->rep.allow_global_seqno = allow_global_seqno != 0;
}

void rocksdb_ingestexternalfileoptions_set_allow_blocking_flush(
    rocksdb_ingestexternalfileoptions_t* opt, unsigned char allow_blocking_flush) {
  opt->rep.allow_blocking_flush = allow_blocking_flush != 0;
}

void rocksdb_ingestexternalfileoptions_set_ingest_behind(rocksdb_ingestexternalfileoptions_t* opt,
                                                         unsigned char ingest_behind) {
  opt->rep.ingest_behind = ingest_behind != 0;
}

void rocksdb_ingestexternalfileoptions_destroy(rocksdb_ingestexternalfileoptions_t* opt) {
  delete opt;
}

}  // extern "C"
