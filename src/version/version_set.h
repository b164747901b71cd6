// VersionSet: the DB's current Version, the Versions still in use, the counters that name files
// and order writes, and the MANIFEST that makes them durable.
//
// The MANIFEST (doc/manifest_format.md) is a log (wal/log_writer.h framing) of VersionEdits.
// CURRENT is a one-line file, "MANIFEST-000123\n", naming the live MANIFEST. Recover() rebuilds
// the state from the MANIFEST that CURRENT names; LogAndApply() applies an edit and appends it to
// the MANIFEST. The first LogAndApply after Recover (or on a new DB, where there is nothing to
// recover), and the first after the live MANIFEST reaches max_manifest_file_size or after a
// failed MANIFEST write, starts a new MANIFEST whose first record is a snapshot of the whole
// state, and then switches CURRENT to it atomically (temp file, Sync, rename, SyncDir). A crash
// at any point leaves CURRENT naming a complete MANIFEST with either the old or the new state.
//
// File lifetime (DESIGN.md "Compaction": obsolete files): AddLiveFiles() reports every table
// file that any live Version lists, and the files of failed edits whose fate on disk is unknown,
// so the DB deletes only tables that nothing refers to. The DB keeps MANIFEST files numbered
// >= ManifestFileNumber() and WALs numbered >= LogNumber() (and PrevLogNumber()).
//
// Thread-safety: one mutex, the DB's (passed to LogAndApply), guards the VersionSet:
//  - NewFileNumber, MarkFileNumberUsed, PeekNextFileNumber and the sequence counters are
//    atomic and may be called without it;
//  - Recover is called once, before any other use, by the thread opening the DB;
//  - everything else requires the DB mutex to be held.
// Single-writer rule: LogAndApply releases the mutex during its I/O. Calls are queued: a call
// made while another is in progress waits for its turn (first come, first served), then applies
// its edit to the current Version of that moment, so edits are logged and installed in one
// order. Nothing but LogAndApply (and Recover, before any other use) changes the current
// Version.
#ifndef SHALE_VERSION_VERSION_SET_H_
#define SHALE_VERSION_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/mutex.h"
#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "version/version.h"
#include "version/version_edit.h"
#include "wal/log_writer.h"

namespace shale {

struct VersionSetOptions {
  // Once the live MANIFEST is this large, the next LogAndApply starts a new one holding only a
  // snapshot of the state. Bytes. Default: 1 GiB.
  uint64_t max_manifest_file_size = uint64_t{1} << 30;
};

class VersionBuilder;

class VersionSet {
 public:
  // Internal: what Recover gathers from the MANIFEST besides the files
  // (version_set_recover.cc).
  struct RecoveredState;

  // `fs` must outlive the VersionSet; `icmp` is copied (its user comparator must outlive it).
  // REQUIRES: 1 <= num_levels <= kMaxNumLevels.
  VersionSet(std::string dbname, FileSystem* fs, const InternalKeyComparator& icmp,
             int num_levels, const VersionSetOptions& options = {});
  // REQUIRES: no LogAndApply in progress; every Version other than current() released.
  ~VersionSet();

  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Reads CURRENT and the MANIFEST it names and installs the state they describe.
  //  - CURRENT missing, empty, or not naming a MANIFEST; the MANIFEST missing; a damaged record
  //    (other than a torn last record, which a crash leaves and which is dropped); an edit that
  //    does not apply; a required field (log number, next file number, last sequence) never
  //    set: Corruption naming the file.
  //  - A comparator name other than this VersionSet's user comparator: InvalidArgument.
  //  - A file at a level >= num_levels: InvalidArgument. A column family other than 0:
  //    NotSupported.
  //  - I/O errors are returned as they are.
  // On success *save_manifest is true: the next LogAndApply writes a new MANIFEST (the DB calls
  // LogAndApply while opening so the new one is in place before it relies on it). On error the
  // VersionSet is unchanged (empty).
  // REQUIRES: called once, before any LogAndApply; the DB directory has a CURRENT file.
  [[nodiscard]] Status Recover(bool* save_manifest);

  // Applies *edit to the current Version, logs it to the MANIFEST (syncing it, and starting a
  // new MANIFEST when needed, see the header comment), and makes the result current.
  // Fills in the edit's next file number and last sequence, and its log numbers when unset.
  // On error nothing is installed and the error is returned (the DB makes it sticky); the edit
  // may or may not be found by a later Recover, so its new files stay in AddLiveFiles until a
  // later LogAndApply writes a new MANIFEST. An edit that does not apply (see
  // version_builder.h), an edit for a column family other than 0 (NotSupported) or with a log
  // number below LogNumber() or not below the next file number (InvalidArgument) fails before
  // any I/O. On a VersionSet that was not recovered, the first call creates the DB; it fails
  // with InvalidArgument, changing nothing, if CURRENT exists (the DB must be recovered first).
  // REQUIRES: *mu held (released during the I/O, held again on return).
  [[nodiscard]] Status LogAndApply(VersionEdit* edit, Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);

  // The current Version (the VersionSet holds a reference). Never null. REQUIRES: mu.
  Version* current() const { return current_; }

  // ---- File numbers (atomic) ----
  // A fresh file number; numbers are never reused.
  uint64_t NewFileNumber() { return next_file_number_.fetch_add(1, std::memory_order_relaxed); }
  // Makes sure NewFileNumber never returns `number` or anything below it.
  void MarkFileNumberUsed(uint64_t number);
  // The number NewFileNumber would return now.
  uint64_t PeekNextFileNumber() const {
    return next_file_number_.load(std::memory_order_relaxed);
  }

  // ---- Sequence numbers (atomic) ----
  // The last sequence published to readers: every write up to it is visible.
  SequenceNumber LastSequence() const { return last_sequence_.load(std::memory_order_acquire); }
  // Publishes writes up to `s` (and counts them as allocated). REQUIRES: s >= LastSequence().
  void SetLastSequence(SequenceNumber s);
  // The last sequence handed out to a writer (>= LastSequence()).
  SequenceNumber LastAllocatedSequence() const {
    return last_allocated_sequence_.load(std::memory_order_acquire);
  }
  // Hands out `n` consecutive sequence numbers and returns the first. They become visible when
  // a SetLastSequence covers them. The MANIFEST records the last allocated sequence.
  SequenceNumber AllocateSequences(uint64_t n) {
    return last_allocated_sequence_.fetch_add(n, std::memory_order_acq_rel) + 1;
  }

  // ---- Bookkeeping (REQUIRES: mu) ----
  // WALs numbered below LogNumber() are obsolete (0 on a new DB).
  uint64_t LogNumber() const { return log_number_; }
  uint64_t PrevLogNumber() const { return prev_log_number_; }
  // The MANIFEST that CURRENT is known to name durably (0 before Recover on a new DB).
  uint64_t ManifestFileNumber() const { return manifest_file_number_; }
  // Where the next compaction of `level` starts (an internal key; empty: at the beginning).
  const std::string& CompactPointer(int level) const { return compact_pointers_[level]; }
  int num_levels() const { return num_levels_; }
  const InternalKeyComparator& icmp() const { return icmp_; }
  int NumLevelFiles(int level) const { return current_->NumFiles(level); }
  uint64_t NumLevelBytes(int level) const { return current_->NumLevelBytes(level); }

  // Adds to *live the number of every table file that a live Version lists, and of every file
  // added by a failed LogAndApply that no new MANIFEST has settled yet. REQUIRES: mu.
  void AddLiveFiles(std::set<uint64_t>* live) const;
  // "files[ 4 2 0 0 0 0 0 ]": the number of files per level of the current Version.
  std::string LevelSummary() const;

 private:
  // Waits in LogAndApply's queue.
  struct ManifestWriter {
    CondVar cv;  // signalled when this writer reaches the front of the queue
  };
  // What LogAndApply writes while the mutex is released.
  struct ManifestWrite {
    bool new_manifest = false;
    bool new_db = false;           // no Recover: CURRENT must not exist yet
    uint64_t manifest_number = 0;  // of the new MANIFEST
    std::string snapshot;          // its first record
    std::string record;            // the edit
  };

  // LogAndApply's work, once the caller is at the front of the queue.
  // REQUIRES: *mu held; released during the MANIFEST write, held again on return.
  Status LogAndApplyAtFront(VersionEdit* edit, Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  // Fills in and checks the edit's bookkeeping fields.
  Status PrepareEdit(VersionEdit* edit);
  // Builds (and references) the Version that the edit makes of current_.
  Status BuildVersion(const VersionEdit& edit, Version** result);
  // Encodes the whole current state as one edit.
  void EncodeSnapshot(std::string* dst) const;
  // The I/O of LogAndApply, run without the mutex.
  Status WriteManifest(const ManifestWrite& w);
  Status WriteNewManifest(const ManifestWrite& w);
  // Points CURRENT at MANIFEST-<number>. *renamed: CURRENT was replaced (even if the SyncDir
  // that makes it durable then failed).
  Status InstallCurrentFile(uint64_t number, bool* renamed);
  // Makes v current and applies the edit's bookkeeping. REQUIRES: mu.
  void Install(Version* v, const VersionEdit& edit);
  void AppendVersion(Version* v);

  // Recovery (version_set_recover.cc).
  Status ReadCurrentFile(std::string* manifest_name, uint64_t* manifest_number);
  Status ReplayManifest(const std::string& path, uint64_t manifest_number);
  // Applies every record of the MANIFEST to the builder and the state.
  Status ReadManifest(SequentialFile* file, const std::string& path, VersionBuilder* builder,
                      RecoveredState* state);
  void InstallRecovered(Version* v, RecoveredState* state, uint64_t manifest_number);

  const std::string dbname_;
  FileSystem* const fs_;
  const InternalKeyComparator icmp_;
  const int num_levels_;
  const VersionSetOptions options_;

  std::atomic<uint64_t> next_file_number_{1};
  std::atomic<SequenceNumber> last_allocated_sequence_{0};
  std::atomic<SequenceNumber> last_sequence_{0};

  // Guarded by the DB mutex (the one passed to LogAndApply):
  uint64_t log_number_ = 0;
  uint64_t prev_log_number_ = 0;
  uint64_t manifest_file_number_ = 0;
  std::vector<std::string> compact_pointers_;  // per level
  // The head of the circular list of live versions (holds no files itself).
  Version dummy_versions_;
  // Invariant: never null, referenced by the VersionSet, the newest version in the list.
  Version* current_ = nullptr;
  // LogAndApply callers in arrival order; the front one is running.
  std::deque<ManifestWriter*> manifest_writers_;
  // Files added by failed LogAndApply calls; cleared when a new MANIFEST is installed.
  std::set<uint64_t> uncertain_files_;

  // Used only by the LogAndApply at the front of the queue (with or without the mutex):
  // the live MANIFEST's writer, or null when the next LogAndApply must start a new MANIFEST.
  std::unique_ptr<log::Writer> descriptor_log_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_SET_H_
