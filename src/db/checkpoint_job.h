// CheckpointJob: one Checkpoint::CreateCheckpoint call (shale/checkpoint.h) -- an openable copy
// of the DB in a new directory. DBImpl::CreateCheckpoint (db_impl_checkpoint.cc) runs it and
// lends it, through CheckpointJobContext, the three things that need the DB's internals:
// flushing the memtables, capturing a CheckpointPlan at the write queue's front under the DB
// mutex, and releasing the plan.
//
// Run:
//  1. makes sure the target does not exist (and removes a crashed attempt's ".tmp" dir);
//  2. plans: flushes the memtables first when log_size_for_flush is 0 (or the WALs prove
//     larger than it); then the DB captures the plan (`capture_plan`: at the front of the
//     write queue -- no write in progress, as Flush and IngestExternalFile take it -- and under
//     the DB mutex, it references the current Version, so that obsolete-file deletion keeps
//     its tables, see VersionSet::AddLiveFiles, until the plan is released; encodes it as one
//     MANIFEST record, a snapshot of the whole state as VersionSet writes when it starts a
//     MANIFEST (CaptureCheckpointVersion); and records the WAL being written and its length;
//     writes made without the WAL are flushed there first); the job then lists the WALs to
//     copy;
//  3. without the DB mutex, fills "<dir>.tmp": the WALs' records up to the recorded lengths,
//     hard links to (or copies of) the tables, then OPTIONS, the MANIFEST and, last, CURRENT;
//     every file synced as it is written, then the directory;
//  4. releases the plan, renames "<dir>.tmp" to <dir> and syncs the parent directory.
// Crash-safety order: every file of the copy is synced, then "<dir>.tmp", and only then is it
// renamed to <dir> (then the parent synced): a crash leaves either no <dir> or a complete one
// (a ".tmp" leftover is removed by the next attempt). A failure removes what was written; an
// error syncing the parent removes <dir> (it might vanish after a crash).
//
// The plan's WALs are those numbered from its Version's log number up to the one being
// written: with its tables they hold exactly the writes made before the plan was captured, a
// state the DB had (every write acknowledged before the call, nothing after the capture: an
// ingestion or a write that lands while the files are copied is in none of them). While a
// plan lives, the DB keeps its WALs (DBImpl::checkpoint_wals_). A WAL that vanishes anyway
// (TryAgain) makes the checkpoint start over by flushing, at most three attempts in all.
//
// Thread-safety: a job is run once, by one thread, without the DB mutex (the context's
// functions take what they need). Several jobs of one DB may run at once, into different
// directories.
#ifndef SHALE_DB_CHECKPOINT_JOB_H_
#define SHALE_DB_CHECKPOINT_JOB_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/status.h"
#include "util/progress_reporter.h"
#include "version/version.h"
#include "version/version_set.h"

namespace shale {

// What a checkpoint writes, fixed when it is planned.
struct CheckpointPlan {
  // Every live family's Version (referenced while the plan lives); their tables are copied.
  std::vector<Version*> versions;
  uint64_t log_number = 0;     // WALs from this number on hold writes not in `versions`
  uint64_t manifest_number = 0;
  uint64_t options_number = 0;
  // The MANIFEST's records: a snapshot of every family (VersionSet::EncodeSnapshot).
  std::vector<std::string> manifest_records;
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  uint64_t current_wal = 0;         // the WAL being written when the plan was captured...
  uint64_t current_wal_length = 0;  // ...and its length then (a record boundary)
  std::vector<uint64_t> wals;         // WALs to copy, ascending...
  std::vector<uint64_t> wal_lengths;  // ...and how many bytes of each
};

// Fills the plan's Version part from `versions`: references every live family's current
// Version (the caller releases them with Unref under the DB mutex), takes the smallest log
// number and two new file numbers (MANIFEST and OPTIONS), copies the options and encodes the
// MANIFEST's records.
// REQUIRES: the DB mutex, which guards `versions`.
void CaptureCheckpointVersion(VersionSet* versions, const DBOptions& db_options,
                              const std::vector<ColumnFamilyDescriptor>& families,
                              CheckpointPlan* plan);

// What a CheckpointJob needs of its DB. Each function is called without the DB mutex, from
// the job's thread.
struct CheckpointJobContext {
  std::string dbname;
  FileSystem* fs = nullptr;
  // Flushes the memtables (DB::Flush with default FlushOptions).
  std::function<Status()> flush;
  // At the write queue's front: flushes writes made without the WAL, then fills the plan
  // (CaptureCheckpointVersion, current_wal, current_wal_length) and keeps its WALs from
  // deletion. On error the plan holds nothing to release.
  std::function<Status(CheckpointPlan*)> capture_plan;
  // Undoes capture_plan (if it succeeded) and resets the plan.
  std::function<void(CheckpointPlan*)> release_plan;
  // Counts the bytes and files linked or copied into the copy (may be null). Thread-safe.
  ProgressReporter* progress = nullptr;
};

class CheckpointJob {
 public:
  // `log_size_for_flush`: as Checkpoint::CreateCheckpoint.
  CheckpointJob(CheckpointJobContext context, std::string checkpoint_dir,
                uint64_t log_size_for_flush);
  CheckpointJob(const CheckpointJob&) = delete;
  CheckpointJob& operator=(const CheckpointJob&) = delete;

  // Builds the checkpoint (see the header comment). InvalidArgument for an empty or existing
  // directory; IOError when WALs kept vanishing.
  [[nodiscard]] Status Run();

  // Whether Run captured a plan (the DB then has files that only the plan's Version kept,
  // which may now be obsolete).
  bool planned() const { return planned_; }
  // The checkpoint directory, normalized. Valid after Run.
  const std::string& dir() const { return dir_; }

 private:
  // Flushes (per log_size_for_flush) and captures the plan with the WALs to copy.
  [[nodiscard]] Status Plan(uint64_t log_size_for_flush, CheckpointPlan* plan);

  const CheckpointJobContext ctx_;
  const std::string checkpoint_dir_;
  const uint64_t log_size_for_flush_;
  std::string dir_;
  bool planned_ = false;
};

}  // namespace shale

#endif  // SHALE_DB_CHECKPOINT_JOB_H_
