// The structs behind the opaque handles of RocksDB's C API (include/shale-rocksdb/rocksdb/c.h)
// that more than one file of src/rocksdb_capi/ uses, and the helpers every function uses to report
// errors and return buffers. Built over ShaleDB's public C++ headers only (src/LAYERS:
// public-only rocksdb_capi), like src/capi, which it does not share code with: the two ABIs own
// different handle types and differ in details (RocksDB's names, defaults and ownership rules).
//
// Each handle wraps the C++ object it stands for in a member `rep`; the C functions adapt
// arguments and results. Ownership follows RocksDB's C API documentation: a handle owns its rep,
// except rocksdb_snapshot_t (the DB's until rocksdb_release_snapshot) and the default column
// family's handle (the DB's until rocksdb_close).
//
// Handles used by one file only are defined in that file (or a header beside it named for its
// group); the ones here are shared.
//
// Thread-safety: as the objects they wrap; a handle is not safe to change from two threads at
// once (RocksDB's rule for options and batches).
#ifndef SHALE_ROCKSDB_CAPI_HANDLES_H_
#define SHALE_ROCKSDB_CAPI_HANDLES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/c.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/filter_policy.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "shale/write_batch.h"

struct rocksdb_t {
  std::unique_ptr<shale::DB> rep;
  // rocksdb_disable_manual_compaction calls minus rocksdb_enable_manual_compaction calls
  // (RocksDB's counter, which may go negative): while positive, manual compactions return
  // without compacting.
  std::atomic<int> manual_compaction_disabled{0};
  // The default column family's prefix extractor (RocksDB's prefix_extractor option; null: none),
  // from the options the DB was opened with (the "default" family's, for an open with column
  // families). Set once by the open, read-only afterwards; shares the options' ownership
  // (callbacks.h), so the extractor lives while the DB does. Read by iterator creation
  // (prefix_iterator.h); the other families' are on their handles.
  std::shared_ptr<rocksdb_slicetransform_t> default_prefix_extractor;
};

// A column family handle. rep is owned by the handle and deleted with it
// (rocksdb_column_family_handle_destroy), unless immortal: the default family's handle from
// rocksdb_get_default_column_family_handle, which belongs to the DB.
struct rocksdb_column_family_handle_t {
  shale::ColumnFamilyHandle* rep = nullptr;
  bool immortal = false;
  // The family's prefix extractor (null: none), from the options it was opened or created with;
  // set when the handle is made, read-only afterwards (as rocksdb_t::default_prefix_extractor).
  std::shared_ptr<rocksdb_slicetransform_t> prefix_extractor;
};

// Options and the RocksDB knobs that have no ShaleDB counterpart. A knob in `accepted_knobs`
// was set through a setter that is accepted without effect (it cannot change what a read
// returns; doc/rocksdb_compat.md names each); the open writes each to the info LOG. Keyed by
// the RocksDB option name; the value is what the caller set, as text (getters return it).
//
// The members after accepted_knobs belong to the options group (options_internal.h reads them at
// open): settings of features ShaleDB lacks, kept so the open can refuse them visibly, and the
// RocksDB settings that map onto `rep` only when the DB is opened (ShaleOptionsFor).
struct rocksdb_options_t {
  shale::Options rep;
  std::map<std::string, std::string> accepted_knobs;
  // Settings ShaleDB cannot honour that could change what a read returns (a table format
  // other than block-based, ...): RocksDB option name ->
  // the C function that set it. CheckOptionsForOpen refuses the open while one is present.
  std::map<std::string, std::string> unsupported;
  // Objects RocksDB's C API hands to the options (ownership passes with the setter) that ShaleDB
  // cannot use, keyed by option name; released with the last copy of the options.
  std::map<std::string, std::shared_ptr<void>> owned;
  // rocksdb_options_set_wal_dir / set_db_log_dir; empty: the DB directory (the only place
  // ShaleDB puts its WAL and info LOG; another directory is refused at open).
  std::string wal_dir;
  std::string db_log_dir;
  // rocksdb_options_set_compression_per_level (RocksDB's CompressionType values, one per level;
  // empty: `rep.compression` everywhere). Mapped onto rep by ShaleOptionsFor.
  std::vector<int> compression_per_level;
  // rocksdb_options_set_prefix_extractor's transform (null: none), owned as RocksDB documents:
  // shared by every copy of these options and every DB or family opened with them, destroyed
  // (rocksdb_slicetransform_destroy) with the last. The engine has no prefix extractor; the DB
  // handles keep it for the iterators' prefix_same_as_start (prefix_iterator.h).
  std::shared_ptr<rocksdb_slicetransform_t> prefix_extractor;
};

// Owns copies of the iterate bounds; rep's bound pointers are set only when an iterator is made
// (the iterator keeps its own copies), so a readoptions handle holds no pointers into itself.
// Knobs accepted without effect, as in rocksdb_options_t.
struct rocksdb_readoptions_t {
  shale::ReadOptions rep;
  bool has_lower_bound = false;
  bool has_upper_bound = false;
  std::string lower_bound;
  std::string upper_bound;
  bool pin_data = false;  // keys returned by iterators stay valid (iterator.h)
  std::map<std::string, std::string> accepted_knobs;
  // Settings that change what a read returns and that ShaleDB cannot honour; kept as set (the
  // getters return them) and refused by shale::rocksdb_capi::ReadOptionsFor
  // (read_write_options.h) when a read uses them. Defaults are RocksDB's.
  int read_tier = 0;  // RocksDB's ReadTier; only kReadAllTier (0) is supported
  bool tailing = false;
  bool ignore_range_deletions = false;
  bool has_timestamp = false;       // rocksdb_readoptions_set_timestamp with a timestamp
  bool has_iter_start_ts = false;   // rocksdb_readoptions_set_iter_start_ts with a timestamp
  // Prefix seek settings (RocksDB's defaults): an iterator of a family with a prefix extractor,
  // made with prefix_same_as_start and without total_order_seek, stops at the end of the seek
  // target's prefix (prefix_iterator.h). Without an extractor both have no effect, as in RocksDB.
  bool prefix_same_as_start = false;
  bool total_order_seek = false;
};

struct rocksdb_writeoptions_t {
  shale::WriteOptions rep;
  std::map<std::string, std::string> accepted_knobs;
};

struct rocksdb_snapshot_t {
  const shale::Snapshot* rep = nullptr;  // the DB's until rocksdb_release_snapshot
};

struct rocksdb_cache_t {
  std::shared_ptr<shale::Cache> rep;
};

struct rocksdb_filterpolicy_t {
  std::shared_ptr<const shale::FilterPolicy> rep;
};

// rep.filter_policy, when set through rocksdb_block_based_options_set_filter_policy, also owns
// the rocksdb_filterpolicy_t handle (RocksDB's rule: the table options take it), so the handle
// lives as long as any copy of rep holds the policy.
struct rocksdb_block_based_table_options_t {
  shale::TableOptions rep;
  std::map<std::string, std::string> accepted_knobs;
  // The cache given to rocksdb_block_based_options_set_block_cache. rep.block_cache is this
  // unless rep.no_block_cache, which (as in RocksDB) drops any block cache.
  std::shared_ptr<shale::Cache> requested_block_cache;
};

namespace shale::rocksdb_capi {

// Frees a message already in *errptr and sets it to NULL. Does nothing when errptr is NULL.
void ClearError(char** errptr);

// When `s` is an error: frees a message already in *errptr and stores a malloc'd copy of
// s.ToString() there (RocksDB's C API leaves *errptr alone on success). Returns true when `s`
// is an error. Does nothing but return when errptr is NULL.
bool SaveError(char** errptr, const Status& s);

// Reports that `function` names a feature ShaleDB does not have yet: stores
// "Not supported by ShaleDB: <function>" in *errptr (as SaveError). For functions without an
// errptr the caller returns NULL (or the documented failure value) instead.
void NotSupported(char** errptr, const char* function);

// A malloc'd copy of `bytes` (at least one byte is allocated, so an empty copy is not NULL).
char* CopyToMalloc(std::string_view bytes);

// A malloc'd, NUL-terminated copy of `text`.
char* CopyToMallocString(std::string_view text);

// A view of the caller's bytes; NULL with length 0 is the empty string.
inline std::string_view View(const char* data, size_t len) {
  return len == 0 ? std::string_view() : std::string_view(data, len);
}

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_HANDLES_H_
