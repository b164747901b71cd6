// The write batch handle of RocksDB's C API (rocksdb_writebatch_t) and the helpers the batch,
// WriteBatchWithIndex and transaction files share: save points over a shale::WriteBatch, the
// concatenation of the "v" variants' slice arrays, and the C-callback iteration.
//
// A rocksdb_writebatch_t wraps a shale::WriteBatch (`rep`, which rocksdb_write hands to
// DB::Write). Its serialized form (rocksdb_writebatch_data) is ShaleDB's, which is RocksDB's byte
// for byte for the record kinds ShaleDB has (include/shale/write_batch.h): a 12-byte header and
// Put/Delete/SingleDelete/DeleteRange/Merge records, plain or with a column family id, with
// RocksDB's tags. RocksDB's other records (log data, prepare/commit markers, blob indexes, wide
// columns...) are not ShaleDB's: a batch holding them reads as corrupt (Iterate, DB::Write).
//
// Thread-safety: a handle is used by one thread at a time (RocksDB's rule for batches).
#ifndef SHALE_ROCKSDB_CAPI_BATCH_H_
#define SHALE_ROCKSDB_CAPI_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale::rocksdb_capi {

// The state of a batch when a save point was set: its serialized size and record count.
// Invariant: `size` is a record boundary of the batch's serialized form (at least the header).
struct BatchSavePoint {
  size_t size = 0;
  uint32_t count = 0;
};

// The save point for the batch as it is now.
BatchSavePoint MakeSavePoint(const WriteBatch& batch);

// Cuts `batch` back to `point` (which was made from it, and nothing since removed records):
// the records added after it are dropped. The header's sequence is kept.
void TruncateBatch(WriteBatch* batch, const BatchSavePoint& point);

// The concatenation of `n` caller slices (the "v" variants: RocksDB joins the parts of one key
// or value). n <= 0 gives the empty string; a NULL list with n > 0 is treated as empty parts.
std::string Concat(int n, const char* const* list, const size_t* sizes);

// RocksDB's rocksdb_writebatch_iterate: hands the default family's Put records to `put` and its
// Delete records to `deleted`, in order, and skips its SingleDelete and Merge records; it stops
// (silently, as RocksDB does) at the first record of another family, at the first DeleteRange
// record, and at damaged contents. NULL callbacks are skipped.
void IterateWithCallbacks(const WriteBatch& batch, void* state,
                          void (*put)(void*, const char* k, size_t klen, const char* v,
                                      size_t vlen),
                          void (*deleted)(void*, const char* k, size_t klen));

// The column family id of a C handle; NULL is the default family (0).
uint32_t FamilyId(const rocksdb_column_family_handle_t* column_family);

}  // namespace shale::rocksdb_capi

// A WriteBatch of RocksDB's C API. `rep` is what rocksdb_write writes. save_points is the stack
// of rocksdb_writebatch_set_save_point (innermost last); every element is a point of rep
// (BatchSavePoint's invariant): Clear empties the stack, rollback cuts rep back to its top.
struct rocksdb_writebatch_t {
  shale::WriteBatch rep;
  std::vector<shale::rocksdb_capi::BatchSavePoint> save_points;
};

#endif  // SHALE_ROCKSDB_CAPI_BATCH_H_
