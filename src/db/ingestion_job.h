// IngestionJob: one DB::IngestExternalFile call -- checking the external files, bringing them
// into the DB directory, choosing each file's level and sequence number, and the MANIFEST edit
// that adds them. DBImpl::IngestExternalFile runs the steps in order (db_impl_ingest.cc) and
// keeps what needs the DB's internals: the DB mutex, the write queue, the memtables' flush and
// installing the edit (LogAndApply, the SuperVersion, the pending outputs).
//
// The steps, and what makes the call all-or-nothing:
//   1. Prepare (no DB mutex, no DB state): check the options, then inspect every file
//      (external_file.h): format, comparator, sequence numbers, key order, merge operands.
//      Fails before anything changes.
//   2. AddFilesToDir (no DB mutex; I/O): the caller has reserved a file number for each file,
//      listed in the DB's pending outputs so that no obsolete-file sweep removes it. Each file
//      comes in as a hard link when move_files asks and the file system allows (then the linked
//      file is synced: its writer may not have), else as a synced copy; its size is checked
//      against the inspected one; then the DB directory is synced.
//   3. At the write queue's front, under the DB mutex (DBImpl::InstallExternalFiles): no write
//      runs until the end. DBImpl flushes the memtables first if they hold keys in a file's
//      range (OverlapsMemTable), and under universal compaction flushes every memtable before a
//      file enters L0 (CheckFlush says why); CheckFlush fails instead when
//      allow_blocking_flush is false.
//   4. Still there: Place picks each file's level and sequence number (below) from a DbView
//      taken after the flush; AddToEdit writes the files into one VersionEdit, which DBImpl
//      logs. The edit is the commit point: before it the DB is unchanged and the files in the
//      directory are unreferenced (removed by RemoveFilesFromDir, or by the next sweep after a
//      crash); after it the DB holds every file. When the MANIFEST write fails the outcome is
//      unknown until the next Open (the record may be whole on disk): DBImpl marks the files
//      maybe-logged (MarkMaybeLogged; they stay, as pending outputs) and sets a background
//      error. The files' sequence numbers are allocated before the edit is logged and
//      published with the SuperVersion that holds them.
//   5. With move_files, RemoveOriginals unlinks the originals (no DB mutex).
// Crash-safety order: each file's data is synced (the copy as it is written, a link
// explicitly), then the DB directory, and only then does the MANIFEST edit name the files.
//
// Placement: a file goes to the lowest level whose files, and the files of every level above
// it, overlap none of its keys (and no pending compaction output there either); when L0
// overlaps, to L0. A file that overlaps nothing in the DB keeps sequence 0 (older than
// everything, which is what it then is) unless a snapshot exists and snapshot_consistency asks
// that earlier snapshots not see it; otherwise it gets the next sequence number, which needs
// allow_global_seqno. Files of one call that overlap one another each get their own sequence
// number, in the order given (a later file's keys win), and all go to L0. ingest_behind puts
// every file in the last level (reserved by Options::allow_ingest_behind) at sequence 0,
// below all existing data.
//
// Thread-safety: one job is used by one thread at a time (the caller's; Prepare inspects up
// to two files at once in a helper thread). The job holds no lock and reads no DB state of its
// own: what it needs under the DB mutex (the Version, the pending outputs, whether snapshots
// exist, the memtables) is handed to CheckFlush, Place and OverlapsMemTable by DBImpl, which
// holds the mutex (and the write queue's front) while it calls them and while it uses the
// DbView.
#ifndef SHALE_DB_INGESTION_JOB_H_
#define SHALE_DB_INGESTION_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/internal_key.h"
#include "compaction/compaction.h"
#include "db/external_file.h"
#include "db/info_log.h"
#include "memtable/memtable.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/status.h"
#include "version/version.h"
#include "version/version_edit.h"

namespace shale {

// What an IngestionJob borrows from its DB for its whole life (set at construction, then
// constant; each must outlive the job).
struct IngestionJobContext {
  std::string dbname;
  FileSystem* fs = nullptr;
  const InternalKeyComparator* icmp = nullptr;
  // Options::merge_operator is set (a file holding merge operands needs one).
  bool has_merge_operator = false;
  InfoLog* info_log = nullptr;  // may be null
};

class IngestionJob {
 public:
  // One file of the call as it goes through the steps.
  struct File {
    ExternalFileInfo info;      // what inspection found
    uint64_t number = 0;        // its number in the DB (0 until assigned)
    bool in_dir = false;        // the DB directory holds it (linked or copied)
    bool linked = false;        // hard-linked rather than copied
    bool maybe_logged = false;  // a failed MANIFEST write may still have recorded it
    int level = 0;              // where it goes
    SequenceNumber seqno = 0;   // its global sequence number (0: none)
  };

  // The DB state that placement reads, taken by DBImpl under the DB mutex at the write
  // queue's front. `version` is borrowed: valid while the mutex is held.
  struct DbView {
    const Version* version = nullptr;
    std::vector<PendingOutputRange> pending_ranges;  // compaction and flush outputs in flight
    bool has_snapshots = false;
    SequenceNumber last_sequence = 0;  // the last published sequence number
    CompactionStyle compaction_style = kCompactionStyleLevel;
    int last_writable_level = 0;  // LastWritableLevel (compaction/reserved_level.h)
  };

  IngestionJob(IngestionJobContext context, std::vector<std::string> paths,
               const IngestExternalFileOptions& options);
  IngestionJob(const IngestionJob&) = delete;
  IngestionJob& operator=(const IngestionJob&) = delete;

  // Step 1: checks the options against `db_options` (the DB's options at the call) and
  // inspects every file. InvalidArgument names the option or file at fault. No DB mutex.
  [[nodiscard]] Status Prepare(const Options& db_options);

  // Step 2: brings file i in as table `numbers[i]` (numbers reserved by the caller, one per
  // path) and syncs the DB directory. No DB mutex.
  [[nodiscard]] Status AddFilesToDir(const std::vector<uint64_t>& numbers);

  // Step 3. Whether `mem` holds a key, or a range deletion, that touches a file's keys.
  // REQUIRES: the caller keeps `mem` from changing (the write queue's front).
  bool OverlapsMemTable(const MemTable& mem) const;
  // Sets *flush when the memtables must be flushed before placement: when
  // `memtables_overlap` (as OverlapsMemTable found for any of them), or -- then *flush_all
  // too: every memtable, not only the overlapping ones -- under universal compaction when a
  // file would enter L0 at a global sequence number (see ingestion_job.cc). InvalidArgument
  // when a flush is needed and allow_blocking_flush is false. Never asks for a flush with
  // ingest_behind (the files go below everything). REQUIRES: the DB mutex (for `db`).
  [[nodiscard]] Status CheckFlush(bool memtables_overlap, const DbView& db, bool* flush,
                                  bool* flush_all) const;

  // Step 4: chooses each file's level and sequence number (see the header comment).
  // REQUIRES: the DB mutex (for `db`).
  [[nodiscard]] Status Place(const DbView& db);
  // Adds every placed file to `edit`, its boundaries at its sequence number. Returns the
  // largest sequence number of the files (0 when all keep sequence 0).
  SequenceNumber AddToEdit(VersionEdit* edit) const;
  // Whether GetSnapshot must wait while the edit is written: a file at sequence 0 is visible
  // at every sequence, so when snapshot_consistency asks that earlier snapshots not see the
  // files (and there were none as they were placed) no snapshot may be taken until they are in
  // (ingest_behind files are below everything by definition, and visible to every snapshot).
  bool BlocksSnapshots() const;
  // After a failed MANIFEST write: the edit may have reached the MANIFEST, so the files stay.
  void MarkMaybeLogged();
  // After the edit is installed: one info-LOG line per file.
  void LogInstalled() const;

  // On failure before the edit: deletes the files brought into the DB directory that no
  // MANIFEST edit may name. No DB mutex.
  void RemoveFilesFromDir() const;
  // The numbers the caller reserved for files no MANIFEST edit may name (to drop from the
  // pending outputs after a failure).
  std::vector<uint64_t> UnloggedNumbers() const;
  // Step 5: with move_files, unlinks the originals (a failure is logged). No DB mutex.
  void RemoveOriginals() const;

  size_t num_files() const { return files_.size(); }
  const std::vector<File>& files() const { return files_; }
  const IngestExternalFileOptions& options() const { return options_; }

 private:
  [[nodiscard]] Status InspectFiles();
  [[nodiscard]] Status AddFileToDir(File* f);

  const IngestionJobContext ctx_;
  const std::vector<std::string> paths_;
  const IngestExternalFileOptions options_;
  // Counts the files' bytes as AddFilesToDir brings them in; its final report goes when the
  // job is destroyed (after DBImpl released the DB mutex).
  ProgressReporter progress_;
  std::vector<File> files_;  // one per path, in the order given
};

}  // namespace shale

#endif  // SHALE_DB_INGESTION_JOB_H_
