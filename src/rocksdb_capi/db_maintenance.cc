// RocksDB's C API, db group: maintenance of an open DB: manual compaction, flushes, dynamic
// options, file deletions, background work, the WAL iterator, and rocksdb_free.
//
// Not in ShaleDB, failing with "Not supported by ShaleDB: <function>" through errptr:
// delete_file. The WAL iterator (get_updates_since, rocksdb_wal_iter_*) is DB::GetUpdatesSince
// (shale/transaction_log.h): ShaleDB has no WAL archive, so sequences whose WAL a flush deleted
// are an error ("NotFound: Requested sequence is older than the oldest WAL: ..."), and
// disableWAL writes are a gap ("Corruption: Gap in sequence numbers: ..."), where RocksDB may
// skip to the next available batch. suggest_compact_range(_cf) compacts
// the range at once (ShaleDB has no marks for a later compaction). Functions without errptr that ShaleDB cannot do
// are documented at their definition (delete_file, cancel_all_background_work).
// Thread-safety: from any thread (as shale::DB); the manual-compaction counter is atomic.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "rocksdb/c.h"
#include "rocksdb_capi/batch.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/db.h"
#include "shale/transaction_log.h"

using shale::ColumnFamilyHandle;
using shale::CompactRangeOptions;
using shale::Status;
using shale::rocksdb_capi::CompactRangeOptionsFor;
using shale::rocksdb_capi::RocksDefaultCompactRangeOptions;
using shale::rocksdb_capi::FamilyOf;
using shale::rocksdb_capi::FlushOptionsFor;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::SaveError;

// The WAL iterator of rocksdb_get_updates_since: DB::GetUpdatesSince's iterator, which
// borrows the DB (destroy it before rocksdb_close). Used by one thread at a time.
struct rocksdb_wal_iterator_t {
  std::unique_ptr<shale::TransactionLogIterator> rep;
};

// RocksDB 7.8's C API declares this handle but has no function that makes one, so a client can
// only pass NULL (RocksDB's defaults: checksums verified). Defined for completeness.
struct rocksdb_wal_readoptions_t {
  shale::TransactionLogIterator::ReadOptions rep;
};

namespace {

// CompactRange, RocksDB's C API way: a NULL start or limit is open-ended, and the result is
// dropped (these functions have no errptr). Does nothing while manual compaction is disabled
// (RocksDB's CompactRange returns Incomplete then).
// `opt` NULL: RocksDB's default CompactRangeOptions; options ShaleDB refuses
// (CompactRangeOptionsFor) compact nothing, as the error has nowhere to go.
void CompactRange(rocksdb_t* db, ColumnFamilyHandle* family, const rocksdb_compactoptions_t* opt,
                  const char* start_key, size_t start_key_len, const char* limit_key,
                  size_t limit_key_len) {
  if (db == nullptr) return;
  if (db->manual_compaction_disabled.load(std::memory_order_acquire) > 0) return;
  CompactRangeOptions options;
  if (!CompactRangeOptionsFor(opt, &options).ok()) return;
  std::string_view begin(start_key == nullptr ? "" : start_key,
                         start_key == nullptr ? 0 : start_key_len);
  std::string_view end(limit_key == nullptr ? "" : limit_key,
                       limit_key == nullptr ? 0 : limit_key_len);
  db->rep->CompactRange(options, family, start_key == nullptr ? nullptr : &begin,
                        limit_key == nullptr ? nullptr : &end)
      .PermitUncheckedError();
}

// DB::DeleteFilesInRange over [start, limit] (RocksDB's include_end), a NULL key being
// unbounded.
void DeleteFilesInRange(rocksdb_t* db, ColumnFamilyHandle* family, const char* start_key,
                        size_t start_key_len, const char* limit_key, size_t limit_key_len,
                        char** errptr) {
  const std::string_view begin(start_key == nullptr ? "" : start_key,
                               start_key == nullptr ? 0 : start_key_len);
  const std::string_view end(limit_key == nullptr ? "" : limit_key,
                             limit_key == nullptr ? 0 : limit_key_len);
  SaveError(errptr, db->rep->DeleteFilesInRange(family, start_key == nullptr ? nullptr : &begin,
                                                limit_key == nullptr ? nullptr : &end));
}

void SetOptions(rocksdb_t* db, ColumnFamilyHandle* family, int count, const char* const keys[],
                const char* const values[], char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  std::unordered_map<std::string, std::string> options;
  for (int i = 0; i < count; i++) {
    if (keys[i] == nullptr || values[i] == nullptr) {
      SaveError(errptr, Status::InvalidArgument("an option name or value is NULL"));
      return;
    }
    options[keys[i]] = values[i];
  }
  SaveError(errptr, db->rep->SetOptions(family, options));
}

// RocksDB marks the files overlapping the range for a background compaction; ShaleDB has no such
// marks, so the suggestion is carried out at once: the range is compacted before the call
// returns (what reads see is the same either way; the caller waits longer). A suggestion made
// while manual compaction is disabled is dropped, as RocksDB's would wait for it.
void SuggestCompactRange(rocksdb_t* db, ColumnFamilyHandle* family, const char* start_key,
                         size_t start_key_len, const char* limit_key, size_t limit_key_len,
                         char** errptr) {
  if (IsNullArgument(db, "db", errptr) || IsNullArgument(family, "column family", errptr)) return;
  if (db->manual_compaction_disabled.load(std::memory_order_acquire) > 0) return;
  const std::string_view begin(start_key == nullptr ? "" : start_key,
                               start_key == nullptr ? 0 : start_key_len);
  const std::string_view end(limit_key == nullptr ? "" : limit_key,
                             limit_key == nullptr ? 0 : limit_key_len);
  SaveError(errptr, db->rep->CompactRange(RocksDefaultCompactRangeOptions(), family,
                                          start_key == nullptr ? nullptr : &begin,
                                          limit_key == nullptr ? nullptr : &end));
}

}  // namespace

extern "C" {

void rocksdb_compact_range(rocksdb_t* db, const char* start_key, size_t start_key_len,
                           const char* limit_key, size_t limit_key_len) {
  if (db == nullptr) return;
  CompactRange(db, db->rep->DefaultColumnFamily(), nullptr, start_key, start_key_len, limit_key,
               limit_key_len);
}

void rocksdb_compact_range_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                              const char* start_key, size_t start_key_len,
                              const char* limit_key, size_t limit_key_len) {
  CompactRange(db, FamilyOf(column_family), nullptr, start_key, start_key_len, limit_key,
               limit_key_len);
}

void rocksdb_compact_range_opt(rocksdb_t* db, rocksdb_compactoptions_t* opt,
                               const char* start_key, size_t start_key_len,
                               const char* limit_key, size_t limit_key_len) {
  if (db == nullptr) return;
  CompactRange(db, db->rep->DefaultColumnFamily(), opt, start_key, start_key_len, limit_key,
               limit_key_len);
}

void rocksdb_compact_range_cf_opt(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                  rocksdb_compactoptions_t* opt, const char* start_key,
                                  size_t start_key_len, const char* limit_key,
                                  size_t limit_key_len) {
  CompactRange(db, FamilyOf(column_family), opt, start_key, start_key_len, limit_key,
               limit_key_len);
}

void rocksdb_suggest_compact_range(rocksdb_t* db, const char* start_key, size_t start_key_len,
                                   const char* limit_key, size_t limit_key_len, char** errptr) {
  SuggestCompactRange(db, db == nullptr ? nullptr : db->rep->DefaultColumnFamily(), start_key,
                      start_key_len, limit_key, limit_key_len, errptr);
}

void rocksdb_suggest_compact_range_cf(rocksdb_t* db,
                                      rocksdb_column_family_handle_t* column_family,
                                      const char* start_key, size_t start_key_len,
                                      const char* limit_key, size_t limit_key_len,
                                      char** errptr) {
  SuggestCompactRange(db, FamilyOf(column_family), start_key, start_key_len, limit_key,
                      limit_key_len, errptr);
}

void rocksdb_disable_manual_compaction(rocksdb_t* db) {
  if (db != nullptr) db->manual_compaction_disabled.fetch_add(1, std::memory_order_acq_rel);
}

// RocksDB's counter arithmetic exactly (a release build of RocksDB 7.8): enabling more often
// than disabling makes the counter negative, and the disables that follow first bring it back
// to zero. Bindings rely on it: grocksdb's tests enable, then disable once, and expect manual
// compaction to work.
void rocksdb_enable_manual_compaction(rocksdb_t* db) {
  if (db != nullptr) db->manual_compaction_disabled.fetch_sub(1, std::memory_order_acq_rel);
}

void rocksdb_flush(rocksdb_t* db, const rocksdb_flushoptions_t* options, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Flush(FlushOptionsFor(options),
                                   db->rep->DefaultColumnFamily()));
}

void rocksdb_flush_cf(rocksdb_t* db, const rocksdb_flushoptions_t* options,
                      rocksdb_column_family_handle_t* column_family, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->Flush(FlushOptionsFor(options),
                                   FamilyOf(column_family)));
}

void rocksdb_flush_wal(rocksdb_t* db, unsigned char sync, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->FlushWAL(sync != 0));
}

void rocksdb_set_options(rocksdb_t* db, int count, const char* const keys[],
                         const char* const values[], char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SetOptions(db, db->rep->DefaultColumnFamily(), count, keys, values, errptr);
}

void rocksdb_set_options_cf(rocksdb_t* db, rocksdb_column_family_handle_t* handle, int count,
                            const char* const keys[], const char* const values[],
                            char** errptr) {
  SetOptions(db, FamilyOf(handle), count, keys, values, errptr);
}

void rocksdb_disable_file_deletions(rocksdb_t* db, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->DisableFileDeletions());
}

void rocksdb_enable_file_deletions(rocksdb_t* db, unsigned char force, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  SaveError(errptr, db->rep->EnableFileDeletions(force != 0));
}

// RocksDB's DeleteFile drops one table file (of the last level, or an L0 file no other
// depends on). ShaleDB has no such call and this function no errptr: the file is not
// deleted, as RocksDB also leaves it when it refuses (its status is dropped by its C API).
void rocksdb_delete_file(rocksdb_t*, const char*) {
  // not supported: DeleteFile (no errptr: the file stays)
}

void rocksdb_delete_file_in_range(rocksdb_t* db, const char* start_key, size_t start_key_len,
                                  const char* limit_key, size_t limit_key_len, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  DeleteFilesInRange(db, db->rep->DefaultColumnFamily(), start_key, start_key_len, limit_key,
                     limit_key_len, errptr);
}

void rocksdb_delete_file_in_range_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                     const char* start_key, size_t start_key_len,
                                     const char* limit_key, size_t limit_key_len,
                                     char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  DeleteFilesInRange(db, FamilyOf(column_family), start_key, start_key_len, limit_key,
                     limit_key_len, errptr);
}

// RocksDB stops its flushes and compactions here, ahead of closing the DB. ShaleDB's close
// already stops a running compaction at its next safe point (shale/db.h, Close), so nothing
// is needed here; background work goes on until then and the DB stays fully usable.
void rocksdb_cancel_all_background_work(rocksdb_t*, unsigned char) {
  // accepted without effect
}

rocksdb_wal_iterator_t* rocksdb_get_updates_since(rocksdb_t* db, uint64_t seq_number,
                                                  const rocksdb_wal_readoptions_t* options,
                                                  char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return nullptr;
  shale::TransactionLogIterator::ReadOptions read_options;
  if (options != nullptr) read_options = options->rep;
  std::unique_ptr<shale::TransactionLogIterator> iter;
  if (SaveError(errptr, db->rep->GetUpdatesSince(seq_number, &iter, read_options))) {
    return nullptr;
  }
  return new rocksdb_wal_iterator_t{std::move(iter)};
}

// RocksDB dereferences the handle in these; NULL is taken as an iterator with nothing left.
void rocksdb_wal_iter_next(rocksdb_wal_iterator_t* iter) {
  if (iter != nullptr) iter->rep->Next();
}

unsigned char rocksdb_wal_iter_valid(const rocksdb_wal_iterator_t* iter) {
  return iter != nullptr && iter->rep->Valid() ? 1 : 0;
}

void rocksdb_wal_iter_status(const rocksdb_wal_iterator_t* iter, char** errptr) {
  if (IsNullArgument(iter, "iter", errptr)) return;
  SaveError(errptr, iter->rep->status());
}

// A new batch the caller destroys (rocksdb_writebatch_destroy) holding the current batch, and
// its first sequence in *seq. Not valid (or NULL): RocksDB's GetBatch has nothing to give; an
// empty batch and *seq 0.
rocksdb_writebatch_t* rocksdb_wal_iter_get_batch(const rocksdb_wal_iterator_t* iter,
                                                 uint64_t* seq) {
  auto* batch = new rocksdb_writebatch_t;
  if (seq != nullptr) *seq = 0;
  if (iter == nullptr || !iter->rep->Valid()) return batch;
  shale::BatchResult result = iter->rep->GetBatch();
  batch->rep = std::move(*result.writeBatchPtr);
  if (seq != nullptr) *seq = result.sequence;
  return batch;
}

void rocksdb_wal_iter_destroy(const rocksdb_wal_iterator_t* iter) { delete iter; }

void rocksdb_free(void* ptr) { std::free(ptr); }

}  // extern "C"
