// The per-call option objects of RocksDB's C API -- read, write, flush, compact-range and
// ingestion options -- and the helpers with which the DB, iterator and batch functions turn a
// handle into ShaleDB's options (shale/options.h). rocksdb_readoptions_t and
// rocksdb_writeoptions_t are in handles.h; the others are here.
//
// Use the helpers rather than a handle's rep: they refuse the settings ShaleDB cannot honour
// (which would change what a read returns) with a NotSupported status naming the setter, and
// they give RocksDB's defaults for a NULL handle.
//
// Thread-safety: a handle is changed by one thread at a time (handles.h); the helpers only read
// it, so several threads may read with one handle at once (as RocksDB allows).
#ifndef SHALE_ROCKSDB_CAPI_READ_WRITE_OPTIONS_H_
#define SHALE_ROCKSDB_CAPI_READ_WRITE_OPTIONS_H_

#include <map>
#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::rocksdb_capi {

// RocksDB's default CompactRangeOptions, which differ from ShaleDB's in one field:
// exclusive_manual_compaction is false (automatic compactions go on beside a manual one).
// Use it where RocksDB's C API compacts without a rocksdb_compactoptions_t
// (rocksdb_compact_range and its variants).
inline CompactRangeOptions RocksDefaultCompactRangeOptions() {
  CompactRangeOptions options;
  options.exclusive_manual_compaction = false;
  return options;
}

}  // namespace shale::rocksdb_capi

struct rocksdb_flushoptions_t {
  shale::FlushOptions rep;
};

// `bottommost_level_compaction` is RocksDB's enum value as set (BottommostLevelCompaction:
// 0 kSkip, 1 kIfHaveCompactionFilter, 2 kForce, 3 kForceOptimized); rep holds its mapping when
// it is one of those. A full_history_ts_low (user-defined timestamps, which ShaleDB does not
// have) is refused by CompactRangeOptionsFor. Starts with RocksDB's defaults.
struct rocksdb_compactoptions_t {
  shale::CompactRangeOptions rep = shale::rocksdb_capi::RocksDefaultCompactRangeOptions();
  unsigned char bottommost_level_compaction = 1;
  bool has_full_history_ts_low = false;
};

struct rocksdb_ingestexternalfileoptions_t {
  shale::IngestExternalFileOptions rep;
};

namespace shale::rocksdb_capi {

// Copies of an iterator's bounds, which the ReadOptions that ReadOptionsFor fills point into.
// Keep one beside each iterator for the iterator's whole life; it must not move (hence not
// copyable or movable: put it in the iterator's heap-allocated handle). Not thread-safe.
class ReadBounds {
 public:
  ReadBounds() = default;
  ReadBounds(const ReadBounds&) = delete;
  ReadBounds& operator=(const ReadBounds&) = delete;

 private:
  friend Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                               ReadOptions* out);
  std::string lower_;
  std::string upper_;
  std::string_view lower_view_;
  std::string_view upper_view_;
};

// ShaleDB's read options for one read with `options` (NULL: RocksDB's defaults): snapshot,
// verify_checksums, fill_cache and, when `bounds` is not null (an iterator), the iterate bounds,
// copied into *bounds. Point reads (get, multi_get, key_may_exist, get_pinned) pass bounds =
// nullptr: RocksDB applies the bounds to iterators only.
// Fails with NotSupported ("Not supported by ShaleDB: <setter>") when `options` asks for what
// ShaleDB cannot do and what would change the result: a read_tier other than kReadAllTier,
// ignore_range_deletions, a timestamp or iter_start_ts, and (iterators only) tailing.
// Knobs that cannot change a result are in options->accepted_knobs and have no effect.
Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                      ReadOptions* out);

// ShaleDB's write options for `options` (NULL: RocksDB's defaults). Every setting is either
// mapped (sync, disableWAL) or accepted without effect (accepted_knobs).
WriteOptions WriteOptionsFor(const rocksdb_writeoptions_t* options);

// ShaleDB's flush options for `options` (NULL: RocksDB's defaults).
FlushOptions FlushOptionsFor(const rocksdb_flushoptions_t* options);

// ShaleDB's compact-range options for `options` (NULL: RocksDB's defaults,
// RocksDefaultCompactRangeOptions). Fails with
// InvalidArgument for a bottommost_level_compaction RocksDB does not define, and with
// NotSupported for a full_history_ts_low.
Status CompactRangeOptionsFor(const rocksdb_compactoptions_t* options, CompactRangeOptions* out);

// ShaleDB's ingestion options for `options` (NULL: RocksDB's defaults).
IngestExternalFileOptions IngestOptionsFor(const rocksdb_ingestexternalfileoptions_t* options);

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_READ_WRITE_OPTIONS_H_
