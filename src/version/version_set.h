// VersionSet: for each column family its current Version and the Versions still in use, the
// counters that name files and order writes, and the MANIFEST that makes them durable.
//
// The MANIFEST (doc/manifest_format.md) is a log (wal/log_writer.h framing) of VersionEdits.
// CURRENT is a one-line file, "MANIFEST-000123\n", naming the live MANIFEST. Recover() rebuilds
// the state from the MANIFEST that CURRENT names; LogAndApply() applies an edit and appends it to
// the MANIFEST. The first LogAndApply after Recover (or on a new DB, where there is nothing to
// recover), and the first after the live MANIFEST reaches max_manifest_file_size or after a
// failed MANIFEST write, starts a new MANIFEST whose first records are a snapshot of the whole
// state (one record per live column family), and then switches CURRENT to it atomically (temp
// file, Sync, rename, SyncDir). A crash at any point leaves CURRENT naming a complete MANIFEST
// with either the old or the new state.
//
// Column families: each family has an id (0 is "default", which always exists and cannot be
// dropped), a name unique among the live families, its own num_levels, Versions, compaction
// pointers and log number (WALs below it hold nothing of the family). CreateColumnFamily and
// DropColumnFamily log one edit each; ids come from a persisted counter (the largest id ever
// used), so an id is never reused, even after a drop and a reopen. All families share the
// VersionSet's comparator, file numbers and sequence numbers. An atomic group (LogAndApply of
// several edits) is found whole or not at all by Recover.
//
// File lifetime (DESIGN.md "Compaction": obsolete files): AddLiveFiles() reports every table
// file that any live Version of any family lists (a dropped family's Versions included, while
// referenced), and the files of failed edits whose fate on disk is unknown, so the DB deletes
// only tables that nothing refers to. The DB keeps MANIFEST files numbered >=
// ManifestFileNumber() and WALs numbered >= MinLogNumber() (and PrevLogNumber()).
//
// Thread-safety: one mutex, the DB's (passed to LogAndApply), guards the VersionSet:
//  - NewFileNumber, MarkFileNumberUsed, PeekNextFileNumber and the sequence counters are
//    atomic and may be called without it;
//  - Recover is called once, before any other use, by the thread opening the DB;
//    ListColumnFamilies is static and touches no VersionSet;
//  - everything else requires the DB mutex to be held. The family map (live and dropped
//    families, their Versions, log numbers and compaction pointers) is guarded by it.
// Single-writer rule: LogAndApply, CreateColumnFamily and DropColumnFamily release the mutex
// during their I/O. Calls are queued: a call made while another is in progress waits for its
// turn (first come, first served), then checks and applies its edit(s) against the state of
// that moment (so an edit queued behind the drop of its family fails), and edits are logged and
// installed in one order. Nothing but these calls (and Recover, before any other use) changes a
// current Version or the set of families.
#ifndef SHALE_VERSION_VERSION_SET_H_
#define SHALE_VERSION_VERSION_SET_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
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

// What the VersionSet needs to know of a column family (the rest of its options are the DB's
// business).
struct ColumnFamilyConfig {
  std::string name;
  int num_levels = 7;  // 1 .. kMaxNumLevels
};

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

  // The id and name of the family that always exists.
  static constexpr uint32_t kDefaultColumnFamilyId = 0;
  static constexpr std::string_view kDefaultColumnFamilyName = "default";

  // `fs` must outlive the VersionSet; `icmp` is copied (its user comparator must outlive it).
  // The default family (id 0, "default") exists from construction with `num_levels` levels.
  // REQUIRES: 1 <= num_levels <= kMaxNumLevels.
  VersionSet(std::string dbname, FileSystem* fs, const InternalKeyComparator& icmp,
             int num_levels, const VersionSetOptions& options = {});
  // REQUIRES: no LogAndApply in progress; every Version other than the live families'
  // current() released (those of dropped families included).
  ~VersionSet();

  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Reads CURRENT and the MANIFEST it names and installs the state they describe, for the
  // families the DB opens (`families`, which must include "default" with the constructor's
  // num_levels; names unique; num_levels in [1, kMaxNumLevels]: InvalidArgument otherwise).
  //  - CURRENT missing, empty, or not naming a MANIFEST; the MANIFEST missing; a damaged record
  //    (other than a torn last record, which a crash leaves and which is dropped); an edit that
  //    does not apply; a required field (log number of the default family, next file number,
  //    last sequence) never set: Corruption naming the file.
  //  - Column-family structure: an edit for a family never added, or for one dropped earlier;
  //    an add of an id used before or of a name that is live; a drop of id 0; an atomic group
  //    interrupted by another record: Corruption naming the file and record. An atomic group cut
  //    short by the end of the MANIFEST (a crash while writing it) is dropped whole.
  //  - A live family of the MANIFEST that is not in `families`: InvalidArgument
  //    "Column families not opened: a, b" (names in id order). A family in `families` that the
  //    MANIFEST lacks is not created (the DB decides to create it or fail).
  //  - A comparator name other than this VersionSet's user comparator: InvalidArgument.
  //  - A file (or compaction pointer) at a level >= its family's num_levels: InvalidArgument.
  //  - I/O errors are returned as they are.
  // On success *save_manifest is true: the next LogAndApply writes a new MANIFEST (the DB calls
  // LogAndApply while opening so the new one is in place before it relies on it). On error the
  // VersionSet is unchanged (empty), so Recover may be called again (e.g. with the families
  // the error named).
  // REQUIRES: no successful Recover and no LogAndApply before; the DB directory has a CURRENT
  // file.
  // allow_unopened_families (a read-only open, DB::OpenForReadOnly): a live family of the
  // MANIFEST that is not in `families` is not an error; it is replayed (damage in it is still
  // found) but not installed, so the VersionSet knows only the opened families. Such a
  // VersionSet must never write a MANIFEST (it would drop those families): the read-only DB
  // never calls LogAndApply.
  [[nodiscard]] Status Recover(const std::vector<ColumnFamilyConfig>& families,
                               bool* save_manifest, bool allow_unopened_families = false);
  // Recover({{"default", num_levels given to the constructor}}, save_manifest).
  [[nodiscard]] Status Recover(bool* save_manifest);

  // The names of the live families of the MANIFEST that CURRENT names in `dbname`: "default"
  // first, then the others in id order. Builds no Version and needs no comparator. Errors as
  // Recover's for CURRENT and MANIFEST problems (damage, column-family structure).
  // Thread-safety: static; touches no VersionSet.
  [[nodiscard]] static Status ListColumnFamilies(FileSystem* fs, const std::string& dbname,
                                                 std::vector<std::string>* names);

  // Applies *edit to the current Version of its family (edit->column_family()), logs it to the
  // MANIFEST (syncing it, and starting a new MANIFEST when needed, see the header comment), and
  // makes the result current.
  // Fills in the edit's next file number and last sequence, and its log numbers when unset (the
  // family's log number, the DB's prev log number).
  // On error nothing is installed and the error is returned (the DB makes it sticky); the edit
  // may or may not be found by a later Recover, so its new files stay in AddLiveFiles until a
  // later LogAndApply writes a new MANIFEST. These fail before any I/O: an edit that does not
  // apply (see version_builder.h); an edit for a family that is not live (InvalidArgument
  // naming the id); a log number below the family's LogNumber() or not below the next file
  // number (InvalidArgument); an edit that adds or drops a family, or sets the max column
  // family (InvalidArgument: the VersionSet writes those itself; an atomic-group mark is
  // cleared). On a
  // VersionSet that was not recovered, the first call creates the DB; it fails with
  // InvalidArgument, changing nothing, if CURRENT exists (the DB must be recovered first).
  // REQUIRES: *mu held (released during the I/O, held again on return).
  [[nodiscard]] Status LogAndApply(VersionEdit* edit, Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);

  // An atomic group: applies several edits, each to its own family (e.g. an atomic flush), as
  // LogAndApply does one, so that after any crash Recover finds all of them or none; installs
  // them together. Each edit is checked as by LogAndApply, before any I/O; one failing check
  // fails the whole group. InvalidArgument if `edits` is empty or two edits name one family.
  // REQUIRES: *mu held (released during the I/O, held again on return).
  [[nodiscard]] Status LogAndApply(const std::vector<VersionEdit*>& edits, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);

  // Creates a column family durably: one MANIFEST record (the add, its id, `log_number` and the
  // new max column family). Its id, returned in *id, is one above the largest id ever used in
  // this DB. `log_number` is the WAL its first memtable writes to (WALs below it hold nothing of
  // it). The family starts with an empty Version of config.num_levels levels.
  // InvalidArgument, before any I/O: a live family has the name; the name is empty;
  // config.num_levels outside [1, kMaxNumLevels]; log_number not below the next file number.
  // On an I/O error nothing is installed, but the id counts as used (a later Recover may find
  // the record).
  // REQUIRES: *mu held; queued with LogAndApply (released during the I/O).
  [[nodiscard]] Status CreateColumnFamily(const ColumnFamilyConfig& config, uint64_t log_number,
                                          Mutex* mu, uint32_t* id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);

  // Drops a live family durably (one MANIFEST record). InvalidArgument for id 0 or an id that
  // is not live. Afterwards the family is not listed, not recovered, and LogAndApply for it
  // fails with InvalidArgument; its Versions stay valid while referenced (their files stay in
  // AddLiveFiles until the last reference goes, which frees them); the family's remaining
  // bookkeeping is freed by the next queued call or the destructor after that.
  // REQUIRES: *mu held; queued with LogAndApply (released during the I/O).
  [[nodiscard]] Status DropColumnFamily(uint32_t id, Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);

  // Points CURRENT in `dbname` at MANIFEST-<manifest_number> atomically: writes and syncs a
  // temp file, renames it over CURRENT, syncs the directory (which also makes the MANIFEST's
  // own entry durable). *renamed: CURRENT was replaced (even if the SyncDir then failed).
  // REQUIRES: the MANIFEST is complete and synced. Used by LogAndApply and by RepairDB.
  // Thread-safety: static; the caller keeps other writers of CURRENT out (the DB's LOCK).
  [[nodiscard]] static Status SetCurrentFile(FileSystem* fs, const std::string& dbname,
                                             uint64_t manifest_number, bool* renamed);

  // ---- Column families (REQUIRES: mu) ----
  // Whether the family is live (created and not dropped).
  bool ColumnFamilyExists(uint32_t id) const { return column_families_.count(id) > 0; }
  // The id of the live family named `name`.
  bool FindColumnFamily(std::string_view name, uint32_t* id) const;
  // The live families' ids, ascending (0 first).
  std::vector<uint32_t> ColumnFamilyIds() const;
  // REQUIRES: ColumnFamilyExists(id).
  const std::string& ColumnFamilyName(uint32_t id) const { return Family(id)->name; }

  // The current Version of a live family (the VersionSet holds a reference). Never null.
  // REQUIRES: mu; ColumnFamilyExists(cf).
  Version* current(uint32_t cf = kDefaultColumnFamilyId) const { return Family(cf)->current; }

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

  // ---- Bookkeeping (REQUIRES: mu; `cf` must be live) ----
  // The family's log number: WALs numbered below it hold nothing of the family (0 on a new
  // DB).
  uint64_t LogNumber(uint32_t cf = kDefaultColumnFamilyId) const {
    return Family(cf)->log_number;
  }
  // The smallest log number of the live families: WALs numbered below it are obsolete.
  uint64_t MinLogNumber() const;
  uint64_t PrevLogNumber() const { return prev_log_number_; }
  // The MANIFEST that CURRENT is known to name durably (0 before Recover on a new DB).
  uint64_t ManifestFileNumber() const { return manifest_file_number_; }
  // Where the next compaction of `level` starts (an internal key; empty: at the beginning).
  const std::string& CompactPointer(int level, uint32_t cf = kDefaultColumnFamilyId) const {
    return Family(cf)->compact_pointers[level];
  }
  int num_levels(uint32_t cf = kDefaultColumnFamilyId) const { return Family(cf)->num_levels; }
  const InternalKeyComparator& icmp() const { return icmp_; }
  int NumLevelFiles(int level, uint32_t cf = kDefaultColumnFamilyId) const {
    return current(cf)->NumFiles(level);
  }
  uint64_t NumLevelBytes(int level, uint32_t cf = kDefaultColumnFamilyId) const {
    return current(cf)->NumLevelBytes(level);
  }

  // Adds to *live the number of every table file that a live Version of any family lists
  // (dropped families' Versions still referenced included), and of every file added by a
  // failed LogAndApply that no new MANIFEST has settled yet. REQUIRES: mu.
  void AddLiveFiles(std::set<uint64_t>* live) const;

  // The DB is closing (no new read starts): unpins the parsed tables the files of the live
  // Versions pin (FileMetaData::table_pin), except those of files a referenced Version lists
  // (one a Get in progress or an iterator still holds: the VersionSet's own reference to a
  // family's current Version does not count, nor one reference to `dropping`, which the caller
  // is about to drop, or null), and appends them to *released for the caller to let go of
  // without mu. So the table cache, once closed, lets go of every table no reader holds, with
  // its descriptor; called again as each later reader lets go, before its Version is
  // unreferenced, so that no table is freed under mu with the Version. REQUIRES: mu, and
  // every read that could use a pin holds a reference to a Version listing the file.
  void ReleaseTablePinsOfUnreadFiles(const Version* dropping,
                                     std::vector<std::shared_ptr<const CachedTable>>* released);
  // "files[ 4 2 0 0 0 0 0 ]": the number of files per level of the family's current Version.
  std::string LevelSummary(uint32_t cf = kDefaultColumnFamilyId) const;
  // Appends the whole current state, one MANIFEST record per live family (the default
  // family's first, with the DB's counters): the start of a new MANIFEST, or a checkpoint's
  // whole MANIFEST. REQUIRES: mu.
  void EncodeSnapshot(std::vector<std::string>* records) const;

 private:
  // One column family's state. Live families are in column_families_; a dropped one moves to
  // dropped_families_ (current == nullptr) until its last Version is released.
  struct ColumnFamilyData {
    ColumnFamilyData(uint32_t id, std::string name, int num_levels,
                     const InternalKeyComparator* icmp);
    ~ColumnFamilyData();
    ColumnFamilyData(const ColumnFamilyData&) = delete;
    ColumnFamilyData& operator=(const ColumnFamilyData&) = delete;

    const uint32_t id;
    const std::string name;
    const int num_levels;
    uint64_t log_number = 0;
    std::vector<std::string> compact_pointers;  // per level
    // The head of the circular list of the family's live versions (holds no files itself).
    // Heap-allocated so that it never moves while versions point at it.
    Version* const dummy_versions;
    // Invariant (live family): never null, referenced by the VersionSet, the newest version in
    // the list. Null once dropped.
    Version* current = nullptr;
  };

  // Waits in LogAndApply's queue.
  struct ManifestWriter {
    CondVar cv;  // signalled when this writer reaches the front of the queue
  };
  // What LogAndApply writes while the mutex is released.
  struct ManifestWrite {
    bool new_manifest = false;
    bool new_db = false;               // no Recover: CURRENT must not exist yet
    uint64_t manifest_number = 0;      // of the new MANIFEST
    std::vector<std::string> snapshot;  // its first records, one per live family
    std::vector<std::string> records;   // the edits
  };

  // REQUIRES: mu; ColumnFamilyExists(id).
  ColumnFamilyData* Family(uint32_t id) const;

  // Waits for the front of the queue, runs at_front() there (with *mu held; it may release it
  // for I/O) and hands the front to the next caller. REQUIRES: *mu held.
  template <typename F>
  Status RunQueued(Mutex* mu, F&& at_front) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  // The work of the LogAndApply overloads at the front of the queue; `atomic_group` marks the
  // edits as one group.
  Status LogAndApplyAtFront(const std::vector<VersionEdit*>& edits, bool atomic_group,
                            Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  Status CreateColumnFamilyAtFront(const ColumnFamilyConfig& config, uint64_t log_number,
                                   Mutex* mu, uint32_t* id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  Status DropColumnFamilyAtFront(uint32_t id, Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  // Fills in the counters of the edits, encodes them (and the snapshot of a new MANIFEST),
  // writes them with *mu released, and on success records the new MANIFEST; on failure counts
  // their new files as uncertain. REQUIRES: *mu held, at the front of the queue.
  Status WriteEdits(const std::vector<VersionEdit*>& edits, Mutex* mu)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(*mu);
  // Checks the edit against its (live) family and fills in its log numbers.
  Status PrepareEdit(ColumnFamilyData* cfd, VersionEdit* edit);
  // Builds (and references) the Version that the edit makes of the family's current Version.
  Status BuildVersion(ColumnFamilyData* cfd, const VersionEdit& edit, Version** result);
  // The I/O of LogAndApply, run without the mutex.
  Status WriteManifest(const ManifestWrite& w);
  Status WriteNewManifest(const ManifestWrite& w);
  // Points CURRENT at MANIFEST-<number>. *renamed: CURRENT was replaced (even if the SyncDir
  // that makes it durable then failed).
  Status InstallCurrentFile(uint64_t number, bool* renamed);
  // Makes v the family's current Version and applies the edit's bookkeeping. REQUIRES: mu.
  void Install(ColumnFamilyData* cfd, Version* v, const VersionEdit& edit);
  void AppendVersion(ColumnFamilyData* cfd, Version* v);
  // Frees the dropped families whose Versions have all been released. REQUIRES: mu.
  void FreeReleasedFamilies();

  // Recovery (version_set_recover.cc).
  Status ReplayManifest(const std::string& path, uint64_t manifest_number,
                        const std::vector<ColumnFamilyConfig>& families,
                        bool allow_unopened_families);
  void InstallRecovered(RecoveredState* state, uint64_t manifest_number);

  const std::string dbname_;
  FileSystem* const fs_;
  const InternalKeyComparator icmp_;
  const int num_levels_;  // the default family's
  const VersionSetOptions options_;

  std::atomic<uint64_t> next_file_number_{1};
  std::atomic<SequenceNumber> last_allocated_sequence_{0};
  std::atomic<SequenceNumber> last_sequence_{0};

  // Guarded by the DB mutex (the one passed to LogAndApply):
  uint64_t prev_log_number_ = 0;
  uint64_t manifest_file_number_ = 0;
  // The live families by id. Invariant: holds id 0 ("default"); names are unique; every id is
  // <= max_column_family_.
  std::map<uint32_t, std::unique_ptr<ColumnFamilyData>> column_families_;
  // Dropped families whose Versions may still be referenced (their lists are not yet empty, or
  // were emptied since the last FreeReleasedFamilies).
  std::vector<std::unique_ptr<ColumnFamilyData>> dropped_families_;
  // The largest family id ever used (persisted in the MANIFEST): the next family gets one more.
  uint32_t max_column_family_ = 0;
  // LogAndApply callers in arrival order; the front one is running.
  std::deque<ManifestWriter*> manifest_writers_;
  // Files added by failed LogAndApply calls; cleared when a new MANIFEST is installed.
  std::set<uint64_t> uncertain_files_;

  // Used only by the call at the front of the queue (with or without the mutex): the live
  // MANIFEST's writer, or null when the next LogAndApply must start a new MANIFEST.
  std::unique_ptr<log::Writer> descriptor_log_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_SET_H_
