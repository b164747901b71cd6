// The structs behind the opaque handles of include/shale/c.h, and the helpers every C ABI
// function uses to report errors and return buffers. Built over the public C++ headers only.
//
// Each handle wraps the C++ object it stands for in a member `rep`, as RocksDB's c.cc does;
// the C functions are one-line adapters. Ownership is as c.h describes: a handle owns its rep,
// except shale_snapshot_t, whose rep belongs to the DB until shale_release_snapshot.
//
// Thread-safety: as the objects they wrap (see c.h).
#ifndef SHALE_CAPI_C_HANDLES_H_
#define SHALE_CAPI_C_HANDLES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/c.h"
#include "shale/cache.h"
#include "shale/db.h"
#include "shale/filter_policy.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/progress.h"
#include "shale/sst_file_writer.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "shale/write_batch.h"

struct shale_t {
  std::unique_ptr<shale::DB> rep;
};

struct shale_options_t {
  shale::Options rep;
};

struct shale_filterpolicy_t {
  std::shared_ptr<const shale::FilterPolicy> rep;
};

struct shale_cache_t {
  std::shared_ptr<shale::Cache> rep;
};

struct shale_lru_cache_options_t {
  shale::LRUCacheOptions rep;
};

struct shale_block_based_table_options_t {
  shale::TableOptions rep;
  // The policy handle given to set_filter_policy (owned, as RocksDB's C API owns it);
  // rep.filter_policy shares its policy.
  std::unique_ptr<shale_filterpolicy_t> filter_policy;
};

// Owns copies of the bound bytes; rep's bound pointers are set only when an iterator is made
// (from the iterator's own copies), so a readoptions handle holds no pointers into itself.
struct shale_readoptions_t {
  shale::ReadOptions rep;
  bool has_lower_bound = false;
  bool has_upper_bound = false;
  std::string lower_bound;
  std::string upper_bound;
};

struct shale_writeoptions_t {
  shale::WriteOptions rep;
};

struct shale_flushoptions_t {
  shale::FlushOptions rep;
};

struct shale_universal_compaction_options_t {
  shale::CompactionOptionsUniversal rep;
};

struct shale_fifo_compaction_options_t {
  shale::CompactionOptionsFIFO rep;
};

struct shale_compactoptions_t {
  shale::CompactRangeOptions rep;
};

struct shale_ingestexternalfileoptions_t {
  shale::IngestExternalFileOptions rep;
};

struct shale_writebatch_t {
  shale::WriteBatch rep;
  // The first update that could not be added (see c.h); shale_write fails with it.
  shale::Status error;
};

struct shale_snapshot_t {
  const shale::Snapshot* rep = nullptr;  // owned by the DB until released
};

// The iterate bounds of one or more iterators (shale_create_iterators makes several over one
// set of bounds): copies of the read options' bound bytes, and the views the engine's
// iterators borrow. Immutable once made; shared by the iterators that read it.
struct shale_iterator_bounds_t {
  bool has_lower_bound = false;
  bool has_upper_bound = false;
  std::string lower_bound;
  std::string upper_bound;
  std::string_view lower_view;  // views lower_bound
  std::string_view upper_view;  // views upper_bound
};

// An iterator and the bounds it reads: the DB iterator borrows bounds->lower_view/upper_view,
// so `bounds` is declared before rep and outlives it.
struct shale_iterator_t {
  std::shared_ptr<const shale_iterator_bounds_t> bounds;
  std::unique_ptr<shale::Iterator> rep;
};

// A column family handle (shale_open_column_families, shale_create_column_family,
// shale_get_default_column_family_handle). rep is owned by the handle and deleted with it,
// unless immortal: the default family's handle, which belongs to the DB (as RocksDB's c.cc).
struct shale_column_family_handle_t {
  shale::ColumnFamilyHandle* rep = nullptr;
  bool immortal = false;
};

struct shale_sstfilewriter_t {
  std::unique_ptr<shale::SstFileWriter> rep;
};

namespace shale::capi {

// Frees a message already in *errptr and sets it to NULL (c.h's rule for every errptr
// function). Does nothing when errptr is NULL.
void ClearError(char** errptr);

// ClearError, then, when `s` is an error, stores a malloc'd copy of s.ToString() in *errptr.
// Returns true when `s` is an error.
bool SaveError(char** errptr, const Status& s);

// A malloc'd copy of `bytes` (at least one byte is allocated, so an empty copy is not NULL).
char* CopyToMalloc(std::string_view bytes);

// A malloc'd, NUL-terminated copy of `text`.
char* CopyToMallocString(std::string_view text);

// A ProgressCallback calling the C callback with `arg` (an empty one for a NULL callback); with
// the interval checked: an error for a negative or NaN interval.
Status MakeProgressCallback(shale_progress_callback callback, void* arg, double interval_seconds,
                            const char* what, ProgressCallback* out);

// Copies of the bounds of `options`, for iterators made with them.
std::shared_ptr<const shale_iterator_bounds_t> CopyBounds(const shale_readoptions_t* options);

// options->rep with its iterate bounds pointing into `bounds` (which must outlive the
// iterators made with the result).
ReadOptions WithBounds(const shale_readoptions_t* options,
                       const shale_iterator_bounds_t& bounds);

// A view of the caller's bytes; NULL with length 0 is the empty string.
inline std::string_view View(const char* data, size_t len) {
  return len == 0 ? std::string_view() : std::string_view(data, len);
}

}  // namespace shale::capi

#endif  // SHALE_CAPI_C_HANDLES_H_
