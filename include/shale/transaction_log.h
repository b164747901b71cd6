// TransactionLogIterator: the updates of a DB read back from its write-ahead logs, in sequence
// order, as RocksDB's DB::GetUpdatesSince hands them to replication tools (RocksDB wiki,
// "Replication Helpers"). DB::GetUpdatesSince (shale/db.h) makes one.
//
//   std::unique_ptr<shale::TransactionLogIterator> it;
//   shale::Status s = db->GetUpdatesSince(next_sequence, &it);
//   for (; s.ok() && it->Valid(); it->Next()) {
//     shale::BatchResult r = it->GetBatch();   // r.sequence: the batch's first sequence
//     Apply(*r.writeBatchPtr);
//     next_sequence = r.sequence + r.writeBatchPtr->Count();
//   }
//   if (s.ok()) s = it->status();              // OK at the end of what is written so far
//
// What it yields: every WAL record (one write group: one DB::Write, or several concurrent
// writes that group commit wrote together) whose sequence range ends at or after the requested
// sequence, in order, starting with the one that holds it (so the first batch may start before
// it), each as a WriteBatch whose contents (Data()) are the record's bytes and whose header
// holds its first sequence. Consecutive batches are contiguous: each starts at the sequence
// after the previous one's last (sequence + Count() - 1).
//
// What it cannot yield, reported through status() (the iterator is then not Valid) rather
// than skipped: sequences no WAL holds any more. ShaleDB deletes a WAL once its memtables are
// flushed and has no WAL archive (RocksDB's WAL_ttl_seconds / WAL_size_limit_MB), so updates
// older than the oldest live WAL are gone; writes made with WriteOptions::disableWAL and
// sequences taken by IngestExternalFile are in no WAL. Either leaves a gap in the sequence
// numbers, which is Corruption "Gap in sequence numbers: ...".
//
// The end: when every published write has been read, Valid() is false and status() OK. The
// iterator can be polled: a later Next() reads the writes made since (from the same WAL or
// newer ones), as RocksDB's does within its last WAL file.
//
// Thread-safety: one iterator is used by one thread at a time; several iterators may run
// concurrently with each other and with writes, flushes and WAL deletions of the DB. It borrows
// the DB: destroy it before the DB.
#ifndef SHALE_TRANSACTION_LOG_H_
#define SHALE_TRANSACTION_LOG_H_

#include <cstdint>
#include <memory>

#include "shale/export.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale {

// One batch read from the WAL: its first sequence number and its contents (RocksDB's
// BatchResult). Move-only; the caller owns writeBatchPtr.
struct BatchResult {
  uint64_t sequence = 0;
  std::unique_ptr<WriteBatch> writeBatchPtr;
};

// A TransactionLogIterator borrows its DB: destroy it before the DB is closed or deleted (as
// RocksDB requires); a secondary's iterator keeps its generation alive instead.
class SHALE_EXPORT TransactionLogIterator {
 public:
  // How the WAL is read (RocksDB's TransactionLogIterator::ReadOptions).
  struct ReadOptions {
    // Verify each record's checksum (a mismatch is Corruption naming the WAL and offset).
    bool verify_checksums = true;
  };

  TransactionLogIterator() = default;
  TransactionLogIterator(const TransactionLogIterator&) = delete;
  TransactionLogIterator& operator=(const TransactionLogIterator&) = delete;
  virtual ~TransactionLogIterator();

  // Whether GetBatch() has a batch. False at the end of the written data (status() OK) and
  // after an error (status() says which).
  virtual bool Valid() = 0;
  // Moves to the next batch. At the end (Valid() false, status() OK) it looks again for
  // batches written since. After an error it does nothing.
  virtual void Next() = 0;
  // OK, or why the iterator stopped (Corruption for a damaged WAL record or a sequence gap,
  // IOError for a read error).
  virtual Status status() = 0;
  // The current batch, a copy the caller owns. REQUIRES: Valid().
  virtual BatchResult GetBatch() = 0;
};

}  // namespace shale

#endif  // SHALE_TRANSACTION_LOG_H_
