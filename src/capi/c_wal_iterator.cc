// The C ABI of the WAL iterator (include/shale/c.h, "WAL iterator"): DB::GetUpdatesSince's
// TransactionLogIterator behind an opaque handle that borrows its DB, and the batch accessor
// its users need (shale_writebatch_data).
// Thread-safety: a handle is used by one thread at a time (c.h's rule).
#include <memory>
#include <utility>

#include "capi/c_handles.h"
#include "shale/transaction_log.h"

using shale::capi::SaveError;

struct shale_wal_iterator_t {
  std::unique_ptr<shale::TransactionLogIterator> rep;
};

extern "C" {

shale_wal_iterator_t* shale_get_updates_since(shale_t* db, uint64_t seq_number, char** errptr) {
  std::unique_ptr<shale::TransactionLogIterator> iter;
  if (SaveError(errptr, db->rep->GetUpdatesSince(seq_number, &iter))) return nullptr;
  return new shale_wal_iterator_t{std::move(iter)};
}

unsigned char shale_wal_iter_valid(const shale_wal_iterator_t* iter) {
  return iter->rep->Valid() ? 1 : 0;
}

void shale_wal_iter_next(shale_wal_iterator_t* iter) { iter->rep->Next(); }

void shale_wal_iter_status(const shale_wal_iterator_t* iter, char** errptr) {
  SaveError(errptr, iter->rep->status());
}

shale_writebatch_t* shale_wal_iter_get_batch(const shale_wal_iterator_t* iter, uint64_t* seq) {
  if (seq != nullptr) *seq = 0;
  if (!iter->rep->Valid()) return nullptr;
  shale::BatchResult result = iter->rep->GetBatch();
  if (seq != nullptr) *seq = result.sequence;
  auto* batch = new shale_writebatch_t;
  batch->rep = std::move(*result.writeBatchPtr);
  return batch;
}

void shale_wal_iter_destroy(shale_wal_iterator_t* iter) { delete iter; }

const char* shale_writebatch_data(shale_writebatch_t* batch, size_t* size) {
  *size = batch->rep.Data().size();
  return batch->rep.Data().data();
}

}  // extern "C"
