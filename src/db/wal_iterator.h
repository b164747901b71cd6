// WalIterator: DB::GetUpdatesSince's TransactionLogIterator (shale/transaction_log.h). It reads
// the WAL files of a DB directory with log::Reader, oldest first, and hands out each record as
// a WriteBatch, checking that the sequence numbers follow on from each other.
//
// How it copes with a live DB:
// - Only published writes are read: before each record it compares the next sequence it needs
//   with `last_sequence()` (the DB's published sequence), and stops when that sequence is not
//   published yet. A write is in its WAL file (flushed to the OS) before it is published, so a
//   record read this way is complete; a record still being appended is never read. A torn
//   record at the end of a WAL (log::Reader's torn tail) is the end of that WAL.
// - The WAL being read stays open while it is read (a flush may delete it meanwhile; the open
//   file is still readable). At the end of the newest WAL the reader is dropped and its offset
//   kept; the next poll reopens the file there, or, if it was deleted, goes on with the next
//   WAL, where a lost record shows as a sequence gap.
// - The WAL list is read from the directory each time the iterator needs the next WAL.
//
// Invariants: once started_, last_seq_ is the last sequence of the last batch handed out, and
// every batch handed out began at the previous one's last sequence + 1. offset_ is the end of
// the last record read from WAL #wal_ (0 before any).
//
// Thread-safety: one thread at a time (TransactionLogIterator's rule); it shares nothing with
// the DB but the file system, the directory and the last_sequence callback (which must be
// callable from any thread).
#ifndef SHALE_DB_WAL_ITERATOR_H_
#define SHALE_DB_WAL_ITERATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shale/file_system.h"
#include "shale/status.h"
#include "shale/transaction_log.h"
#include "shale/write_batch.h"
#include "wal/log_reader.h"

namespace shale {

class WalIterator final : public TransactionLogIterator {
 public:
  // The DB's published last sequence number.
  using LastSequenceFn = std::function<uint64_t()>;

  // Finds the batch holding sequence `seq` (0 is taken as 1) in the WALs of directory `dbname`
  // and returns an iterator positioned on it, as DB::GetUpdatesSince documents (NotFound when
  // seq is not written yet or no live WAL holds it any more, Corruption for a gap or damage).
  // `fs` and `last_sequence` must outlive the iterator.
  static Status Create(FileSystem* fs, std::string dbname, LastSequenceFn last_sequence,
                       const ReadOptions& options, uint64_t seq,
                       std::unique_ptr<TransactionLogIterator>* iter);

  ~WalIterator() override;

  bool Valid() override { return valid_; }
  void Next() override;
  Status status() override { return status_; }
  BatchResult GetBatch() override;

 private:
  // A WAL and the sequence of its first batch (0: the WAL holds no batch yet).
  struct WalStart {
    uint64_t number;
    uint64_t first_sequence;
  };

  WalIterator(FileSystem* fs, std::string dbname, LastSequenceFn last_sequence,
              const ReadOptions& options, uint64_t target);

  // The WAL numbers in the directory, ascending.
  Status ListWals(std::vector<uint64_t>* numbers) const;
  // The first batch's sequence of WAL #number in *first (0 when it holds none). NotFound
  // (PathNotFound) when the file is gone.
  Status FirstSequence(uint64_t number, uint64_t* first) const;
  // Chooses the WAL to start reading at for target_: NotFound when no live WAL holds it.
  Status Seek();
  // Opens WAL #wal_ at offset_ into reader_. *gone: the file no longer exists.
  Status OpenReader(bool* gone);
  void CloseReader();
  // The smallest WAL number above wal_ in the directory, into *next (false: none).
  Status NextWal(bool* found, uint64_t* next) const;
  // Reads up to the next batch; sets valid_/status_.
  void Advance();
  void Fail(Status s);

  FileSystem* const fs_;
  const std::string dbname_;
  const LastSequenceFn last_sequence_;
  const ReadOptions options_;
  // The sequence the first batch must hold (>= 1).
  const uint64_t target_;

  // The WAL being read (0: none chosen yet: the start is not written yet), the offset just past
  // the last record read from it, and its open file and reader (null between polls).
  uint64_t wal_ = 0;
  uint64_t offset_ = 0;
  std::unique_ptr<SequentialFile> file_;
  std::unique_ptr<log::Reader::Reporter> reporter_;
  std::unique_ptr<log::Reader> reader_;
  std::string scratch_;

  bool started_ = false;   // a batch was handed out
  uint64_t last_seq_ = 0;  // the last sequence of the last batch handed out
  bool valid_ = false;
  WriteBatch batch_;       // the current batch (valid_)
  uint64_t batch_seq_ = 0;
  Status status_;
};

}  // namespace shale

#endif  // SHALE_DB_WAL_ITERATOR_H_
