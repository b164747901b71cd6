// Checkpoint: makes an openable copy of a live DB in another directory, cheaply: the table
// files are hard-linked (copied when the target is on another file system), and a fresh
// MANIFEST, CURRENT and OPTIONS file describe exactly those tables. It is how a DB built on
// one machine (by writes or by IngestExternalFile) is shipped to another, and how a
// consistent backup is taken without stopping writes. The shape is RocksDB's.
//
//   std::unique_ptr<shale::Checkpoint> checkpoint;
//   shale::Status s = shale::Checkpoint::Create(db.get(), &checkpoint);
//   s = checkpoint->CreateCheckpoint("/backups/db-2024-05-01");
//   // DB::Open(options, "/backups/db-2024-05-01", &copy) now opens the copy.
//
// What the copy holds: every write acknowledged before CreateCheckpoint was called (see
// log_size_for_flush for how unflushed writes get there); writes made during the call may or
// may not be in it, batches whole or not at all. The copy is an independent DB: writing to
// it, compacting it or deleting the source DB does not affect the other (linked tables are
// immutable, and each DB deletes only its own names).
//
// Atomicity: the copy is built in `checkpoint_dir + ".tmp"` and renamed into place once
// complete and synced, so a failure or a crash never leaves a half-made checkpoint at
// checkpoint_dir (a stale ".tmp" directory left by a crash is removed by the next call). On
// file systems that cannot rename a directory (the in-memory one) the files are moved one by
// one, CURRENT last, so the copy is not openable until it is whole.
//
// Ownership and thread-safety: a Checkpoint borrows its DB, which must outlive it and stay
// open while CreateCheckpoint runs. CreateCheckpoint may be called from any thread, and
// concurrently with reads, writes, flushes and compactions of the DB; calls on one DB to the
// same directory must not race.
#ifndef SHALE_CHECKPOINT_H_
#define SHALE_CHECKPOINT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "shale/db.h"
#include "shale/export.h"
#include "shale/progress.h"
#include "shale/status.h"

namespace shale {

// How CreateCheckpoint works (the two-argument form takes the defaults but log_size_for_flush).
struct SHALE_EXPORT CheckpointOptions {
  // See CreateCheckpoint. Default: 0 (flush the memtables first).
  uint64_t log_size_for_flush = 0;
  // Called with the progress of filling the copy (shale/progress.h): operation "checkpoint",
  // stage "link" or "copy"; bytes are the table files' bytes linked or copied and the WALs'
  // bytes copied, entries the files. Empty: no reports. Default: empty.
  ProgressCallback progress;
  // At most one report per this many seconds (0: every file and every chunk copied). Must be
  // >= 0 (InvalidArgument otherwise). Default: 1.
  double progress_interval_seconds = 1.0;
};

class SHALE_EXPORT Checkpoint {
 public:
  // Makes a Checkpoint of `db` in *checkpoint. InvalidArgument when db is null; NotSupported
  // when db is not a ShaleDB DB (a user's own DB subclass).
  static Status Create(DB* db, std::unique_ptr<Checkpoint>* checkpoint);

  virtual ~Checkpoint();

  // Builds the copy in `checkpoint_dir`, which must not exist (InvalidArgument otherwise) and
  // whose parent directory must exist (the file system's error otherwise).
  //
  // log_size_for_flush (bytes) decides how writes still in memtables reach the copy:
  //  - 0 (the default): the memtables are flushed first, so the copy is tables only;
  //  - > 0: when the live WALs together are smaller than this, nothing is flushed and the
  //    WALs' complete records are copied instead (the copy replays them when opened);
  //    otherwise the memtables are flushed as for 0. Writes made with disableWAL are only in
  //    memtables, so while any exist the memtables are flushed whatever the value.
  // Errors: a failed flush, link, copy or write is returned as it is (the file system's
  // message names the file); the partial copy is removed. While the DB has a background
  // error (read-only until Resume), that error: its WAL may end in a write that failed.
  virtual Status CreateCheckpoint(const std::string& checkpoint_dir,
                                  uint64_t log_size_for_flush = 0) = 0;
  // The same, with options (CheckpointOptions::log_size_for_flush is the argument above).
  virtual Status CreateCheckpoint(const std::string& checkpoint_dir,
                                  const CheckpointOptions& options) = 0;

 protected:
  Checkpoint() = default;
};

}  // namespace shale

#endif  // SHALE_CHECKPOINT_H_
