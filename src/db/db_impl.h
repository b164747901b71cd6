// DBImpl: the DB (shale/db.h) over a VersionSet, memtables, WALs and a table cache.
// Its files and the modules around it: doc/architecture.md.
//
// Write path (DESIGN.md "Write path"): writers queue in write_queue_ (db/write_queue.h); the
// one at the front (the leader) takes the followers behind it into one group, appends the
// group to the WAL as one record, inserts it into the active memtable and publishes its last
// sequence; then it wakes the followers with their status. Only the queue's front touches log_
// and the active memtable's contents, and only the front switches memtables (Flush, Resume,
// ingestion, checkpoints and Close take the front with a WriteQueue::Front too), so the
// memtable has one writer at a time, as MemTable requires.
//
// Column families (db/column_family.h, doc/column_families.md): each live family is a
// ColumnFamilyData in column_families_ with its options, memtables (MemTableSet), SuperVersion,
// picker and stats; its table files are its Version in versions_. Everything else here is the
// DB's and shared by the families.
//
// Memtables and WALs: one WAL (log_, number log_number_) takes the writes of every family. A
// family's switch retires its active memtable and starts a new WAL (synced first, so no later
// synced write can survive a crash that an earlier write does not); the other families go on
// writing into the new WAL. An immutable memtable is flushed to one table file by the
// background thread, oldest first; the MANIFEST edit that adds the file also raises the
// family's log number past its WALs. A WAL is deleted once every live family's log number is
// above it (VersionSet::MinLogNumber).
//
// Locking: mu_ guards the fields marked ABSL_GUARDED_BY(mu_) and the VersionSet (see
// version_set.h). Never held across I/O: the leader releases it while writing the WAL and the
// memtable, the flush while building the table. Lock order: mu_, then any module's own lock
// (table cache, info log, statistics); never the reverse.
// Condition variables: each writer's cv (it reached the queue's front or its group is done);
// bg_cv_ (a flush or compaction finished or failed: room in the memtables, fewer L0 files, or a
// state change to look at).
//
// Compactions (DESIGN.md "Compaction"): the picker for the style chooses work under mu_; jobs
// run in compaction_pool_ (max_background_jobs minus the flush thread) or, for CompactRange, in
// the caller's thread, with mu_ released; each result is installed with one MANIFEST edit.
// While a flush or compaction is writing files that its edit will add to a level, the key
// range is listed in the family's pending_ranges, so no other flush or compaction places overlapping
// files in that level before the edit lands.
#ifndef SHALE_DB_DB_IMPL_H_
#define SHALE_DB_DB_IMPL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "util/mutex.h"
#include "base/internal_key.h"
#include "cache/lru_cache.h"
#include "cache/table_cache.h"
#include "compaction/compaction.h"
#include "compaction/compaction_job.h"
#include "compaction/compaction_picker.h"
#include "db/checkpoint_job.h"
#include "db/column_family.h"
#include "db/compaction_debt.h"
#include "db/db_iter.h"
#include "shale/checkpoint.h"
#include "db/info_log.h"
#include "db/ingestion_job.h"
#include "db/periodic_task.h"
#include "db/snapshot_list.h"
#include "db/super_version.h"
#include "db/write_controller.h"
#include "db/write_queue.h"
#include "memtable/memtable.h"
#include "memtable/memtable_set.h"
#include "shale/db.h"
#include "util/thread_pool.h"
#include "version/version_set.h"
#include "wal/log_writer.h"

namespace shale {

class DBImpl final : public DB {
 public:
  // `read_only`: a DB opened by DB::OpenForReadOnly (see read_only_).
  DBImpl(const Options& options, const std::string& dbname, bool read_only = false);
  ~DBImpl() override;

  // Opens or creates the DB (the work of DB::Open after option checks) with the column
  // families `families` (validated, sanitized options each; the constructor's options are
  // the DB's and the default family's); on success *handles gets one handle per family, in
  // order. `option_notes`: the adjustments DB::Open made to the options (SanitizeOptions),
  // logged once the info LOG is open.
  // Read-only (read_only_): opens the existing DB without writing any of its files; the
  // families may be a subset of the DB's; error_if_wal_file_exists refuses a live WAL
  // (Corruption) instead of replaying it (DB::OpenForReadOnly).
  [[nodiscard]] Status OpenDB(const std::vector<ColumnFamilyDescriptor>& families,
                              std::vector<ColumnFamilyHandle*>* handles,
                              const std::vector<std::string>& option_notes,
                              bool error_if_wal_file_exists = false);

  // DB interface. The overloads without a column family are DB's (default family).
  using DB::CompactRange;
  using DB::Delete;
  using DB::DeleteRange;
  using DB::Flush;
  using DB::Get;
  using DB::GetApproximateSizes;
  using DB::GetIntProperty;
  using DB::GetOptions;
  using DB::GetProperty;
  using DB::IngestExternalFile;
  using DB::Merge;
  using DB::MultiGet;
  using DB::NewIterator;
  using DB::Put;
  using DB::SetOptions;
  using DB::SingleDelete;
  // ---- db_impl_column_family.cc
  Status CreateColumnFamily(const ColumnFamilyOptions& options, const std::string& name,
                            ColumnFamilyHandle** handle) override ABSL_LOCKS_EXCLUDED(mu_);
  Status DropColumnFamily(ColumnFamilyHandle* column_family) override ABSL_LOCKS_EXCLUDED(mu_);
  Status DestroyColumnFamilyHandle(ColumnFamilyHandle* column_family) override;
  ColumnFamilyHandle* DefaultColumnFamily() const override { return default_handle_.get(); }
  // ---- writes and reads
  Status Put(const WriteOptions& options, ColumnFamilyHandle* column_family, std::string_view key,
             std::string_view value) override;
  Status Delete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                std::string_view key) override;
  Status SingleDelete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                      std::string_view key) override;
  Status DeleteRange(const WriteOptions& options, ColumnFamilyHandle* column_family,
                     std::string_view begin_key, std::string_view end_key) override;
  Status Merge(const WriteOptions& options, ColumnFamilyHandle* column_family,
               std::string_view key, std::string_view value) override;
  Status Write(const WriteOptions& options, WriteBatch* updates) override;
  Status Get(const ReadOptions& options, ColumnFamilyHandle* column_family, std::string_view key,
             std::string* value) override;
  std::vector<Status> MultiGet(const ReadOptions& options,
                               const std::vector<ColumnFamilyHandle*>& column_families,
                               const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                        ColumnFamilyHandle* column_family) override;
  Status NewIterators(const ReadOptions& options,
                      const std::vector<ColumnFamilyHandle*>& column_families,
                      std::vector<std::unique_ptr<Iterator>>* iterators) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status Flush(const FlushOptions& options, ColumnFamilyHandle* column_family) override;
  Status Flush(const FlushOptions& options,
               const std::vector<ColumnFamilyHandle*>& column_families) override;
  Status CompactRange(const CompactRangeOptions& options, ColumnFamilyHandle* column_family,
                      const std::string_view* begin, const std::string_view* end) override;
  Status IngestExternalFile(ColumnFamilyHandle* column_family,
                            const std::vector<std::string>& files,
                            const IngestExternalFileOptions& options) override;
  Status SetOptions(ColumnFamilyHandle* column_family,
                    const std::unordered_map<std::string, std::string>& options) override;
  Status SetDBOptions(const std::unordered_map<std::string, std::string>& options) override;
  Status Resume() override;
  // db_impl_verify.cc.
  Status VerifyChecksum(const ReadOptions& options) override ABSL_LOCKS_EXCLUDED(mu_);
  Status VerifyChecksum(const VerifyChecksumOptions& options) override ABSL_LOCKS_EXCLUDED(mu_);
  Status Close() override;
  bool GetProperty(ColumnFamilyHandle* column_family, std::string_view property,
                   std::string* value) override;
  bool GetIntProperty(ColumnFamilyHandle* column_family, std::string_view property,
                      uint64_t* value) override;
  Status GetApproximateSizes(ColumnFamilyHandle* column_family, const Range* ranges, int n,
                             uint64_t* sizes) override;
  void GetLiveFilesMetaData(std::vector<LiveFileMetaData>* metadata) override
      ABSL_LOCKS_EXCLUDED(mu_);
  void LogInfo(std::string_view message) override ABSL_LOCKS_EXCLUDED(mu_);
  // db_impl_compaction.cc.
  Status DeleteFilesInRange(ColumnFamilyHandle* column_family, const std::string_view* begin,
                            const std::string_view* end) override ABSL_LOCKS_EXCLUDED(mu_);
  // db_impl_write.cc.
  Status FlushWAL(bool sync) override ABSL_LOCKS_EXCLUDED(mu_);
  // db_impl_background.cc (beside DeleteObsoleteFiles).
  Status DisableFileDeletions() override ABSL_LOCKS_EXCLUDED(mu_);
  Status EnableFileDeletions(bool force) override ABSL_LOCKS_EXCLUDED(mu_);
  Options GetOptions(ColumnFamilyHandle* column_family) const override;
  DBOptions GetDBOptions() const override;
  const std::string& GetName() const override { return dbname_; }
  uint64_t GetLatestSequenceNumber() const override { return versions_->LastSequence(); }
  // Over the WAL files of the directory (db/wal_iterator.h); mu_ is not taken.
  Status GetUpdatesSince(uint64_t seq, std::unique_ptr<TransactionLogIterator>* iter,
                         const TransactionLogIterator::ReadOptions& read_options) override;

  // ---- db_impl_checkpoint.cc (what Checkpoint, shale/checkpoint.h, needs of the DB)
  // Builds an openable copy of the DB in checkpoint_dir: Checkpoint::CreateCheckpoint. Runs a
  // CheckpointJob (db/checkpoint_job.h) with the two functions below.
  [[nodiscard]] Status CreateCheckpoint(const std::string& checkpoint_dir,
                                        const CheckpointOptions& options)
      ABSL_LOCKS_EXCLUDED(mu_);

  // ---- db_secondary.cc (what a secondary instance, db/db_secondary.h, needs of its DBs)
  // Parses every table file of each family's current version into the table cache (opening
  // its descriptor), so reads keep working after another instance deletes the files. The
  // first error (e.g. a file already deleted) is returned.
  [[nodiscard]] Status OpenTableFiles() ABSL_LOCKS_EXCLUDED(mu_);

  // The calling thread's point reads use SuperVersion slot `index` (modulo the slot count)
  // from now on, whichever index the thread was given; kNoSuperVersionSlot undoes it. For
  // tests that make threads share a slot.
  static constexpr size_t kNoSuperVersionSlot = ~size_t{0};
  static void SetSuperVersionSlotForTesting(size_t index);
  // Called (when set) by a point read that found the current SuperVersion in its slot, before
  // it reads the read sequence. For tests that make a write land in between. Set it while no
  // Get runs.
  static std::function<void()>* TestHookAfterSlotCheck();

 private:
  // CheckpointJobContext::capture_plan: at the write queue's front, flushes writes made
  // without the WAL, then captures the plan (CaptureCheckpointVersion) with the WAL being
  // written and its length, and keeps the plan's WALs.
  [[nodiscard]] Status CapturePlanAtFront(CheckpointPlan* plan) ABSL_LOCKS_EXCLUDED(mu_);
  // CheckpointJobContext::release_plan.
  void ReleasePlan(CheckpointPlan* plan) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // ---- db_impl_open.cc
  [[nodiscard]] Status CheckOrCreateDir();
  // Corruption when the directory holds a DB's data (a table or a non-empty WAL) but no
  // CURRENT. Otherwise lists in *leftovers the MANIFESTs and empty WALs a creation interrupted
  // by a crash leaves (to be removed before creating the DB again).
  [[nodiscard]] Status CheckNoDBFilesLocked(std::vector<std::string>* leftovers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Creates the DB with its default family (the others named are created by OpenDB).
  [[nodiscard]] Status NewDBLocked(const std::vector<ColumnFamilyDescriptor>& families)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Recovers the DB and the named families (InvalidArgument for a family the DB has that is
  // not named); lists in *missing the named families the DB does not have (refused unless
  // create_missing_column_families).
  // Read-only: a subset of the families may be named (one the DB lacks is InvalidArgument),
  // the replayed WALs stay in the families' memtables, and nothing is written;
  // error_if_wal_file_exists makes a live WAL a Corruption.
  [[nodiscard]] Status RecoverLocked(const std::vector<ColumnFamilyDescriptor>& families,
                                     std::vector<const ColumnFamilyDescriptor*>* missing,
                                     bool error_if_wal_file_exists)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status CheckTableFileSizesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What recovery gathers per family: the memtable being replayed into and the edit that
  // records the tables flushed from it.
  struct RecoveredFamily {
    MemTable* mem = nullptr;  // referenced; null until a record of the family is replayed
    VersionEdit edit;
  };
  using RecoveredFamilies = std::map<uint32_t, RecoveredFamily>;
  [[nodiscard]] Status ReplayWals(const std::vector<uint64_t>& wals, RecoveredFamilies* families)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Replays one WAL into the families' memtables, skipping the records of families whose log
  // number is above `number` (their tables hold them); `last`: no newer WAL follows it.
  [[nodiscard]] Status ReplayWal(uint64_t number, bool last, RecoveredFamilies* families,
                                 bool* stop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status FlushRecoveredMemTable(ColumnFamilyData* cfd, MemTable* mem,
                                              VersionEdit* edit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status StartNewWal(uint64_t number);
  [[nodiscard]] Status WriteOptionsFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The options of every live family (default first) and of the DB, as an OPTIONS file holds
  // them.
  void CollectOptionsLocked(DBOptions* db_options, std::vector<ColumnFamilyDescriptor>* families)
      const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the options durably as OPTIONS-<number> (a temp file, renamed, the directory
  // synced); on failure leaves neither file. Touches no DB state: called with or without mu_.
  [[nodiscard]] Status WriteOptionsFileNumbered(const DBOptions& db_options,
                                                const std::vector<ColumnFamilyDescriptor>& families,
                                                uint64_t number);

  // ---- db_impl_write.cc
  // Makes room in the active memtable for a write: waits while writes are stopped (too many
  // L0 files or pending compaction bytes), while the DB is over db_write_buffer_size with a
  // flush under way, or while max_write_buffer_number memtables exist, and switches the
  // memtable when it is full or over the budget (`force`: switches unless it is empty, for
  // Flush). Returns the background error, or ShutdownInProgress once Close began.
  // REQUIRES: mu_ held, and the caller holds the write queue's front. Releases and re-takes
  // mu_ (waiting on bg_cv_, and in SwitchMemTable): on return the caller must re-read
  // everything it read from the families, versions_ and the options before the call; bg_error_ and
  // shutting_down_ were checked at its last step.
  // With column families: every live family is checked (a write group may touch any), and
  // `force` names the family whose memtable Flush retires (null for writes).
  [[nodiscard]] Status MakeRoomForWrite(ColumnFamilyData* force)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Syncs and closes the WAL, starts a new one, and retires the active memtable for flushing
  // of the family (cfd->mems.Switch), then schedules the flush and installs the family's new
  // SuperVersion. On failure
  // records the background error and leaves the memtables and the old WAL as they were.
  // REQUIRES: mu_ held, and the caller holds the write queue's front (nothing else touches
  // log_ or the active memtable). Releases mu_ for the WAL I/O and re-takes it (and again to
  // release the replaced SuperVersion): the caller must re-check bg_error_ and
  // shutting_down_, and re-read the families and versions_, afterwards.
  // The other families keep their memtables and write into the new WAL too.
  [[nodiscard]] Status SwitchMemTable(ColumnFamilyData* cfd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts a write stall (or delay) against the family whose state caused it, for its stats.
  void CountFamilyStallLocked(uint32_t id, WriteController::Cause cause, uint64_t micros)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // DBOptions::max_total_wal_size as applied (0: RocksDB's rule, see options.h).
  uint64_t MaxTotalWalSizeLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // With more than one family and the live WALs over MaxTotalWalSizeLocked(): a family whose
  // non-empty active memtable keeps the oldest WAL alive (to be switched, so its flush lets
  // the WAL go); else null. REQUIRES: the write queue's front (it reads log_).
  ColumnFamilyData* FamilyPinningOldestWalLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Paces the write leader while the write controller delays writes (releases mu_ to sleep).
  void DelayWriteLocked(size_t bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status WriteGroupToWal(const WriteBatch& group, bool sync);
  // The smallest global memtable budget honoured: RocksDB's smallest write_buffer_size, what
  // one memtable needs to hold more than a handful of writes. A smaller
  // db_write_buffer_size is raised to it (and the info LOG says so at Open): below it every
  // write would cost a flush.
  static constexpr size_t kMinMemTableBudget = size_t{64} << 10;
  // Options::db_write_buffer_size as applied: 0 (no budget) or at least kMinMemTableBudget.
  size_t MemTableBudgetLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  MemTable* NewMemTable(const ColumnFamilyData& cfd) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Options::max_successive_merges: when `mem` already holds that many operands on top of
  // `key`, reads the key as of sequence - 1, merges `operand` onto it and returns true with the
  // value to add instead. False (add the operand) below the bound, or when the read or merge
  // fails (the operand then keeps the failure for readers to see). REQUIRES: the caller is the
  // write leader inserting into `mem`, without mu_.
  bool MergeAtWriteTime(ColumnFamilyData* cfd, MemTable* mem, size_t max_successive_merges,
                        SequenceNumber sequence,
                        std::string_view key, std::string_view operand, std::string* value)
      ABSL_LOCKS_EXCLUDED(mu_);

  // ---- db_impl_read.cc
  // References the current SuperVersion and, with `sequence`, sets it to the read sequence
  // of `options` (its snapshot, or the last published sequence, read with the SuperVersion
  // under mu_; a point read through the slots reads it after the SuperVersion, without mu_).
  // Null once the DB is closed (the caller returns ShutdownInProgress).
  SuperVersion* RefSuperVersion(ColumnFamilyData* cfd, const ReadOptions& options,
                                SequenceNumber* sequence) ABSL_LOCKS_EXCLUDED(mu_);
  void UnrefSuperVersion(SuperVersion* sv) ABSL_LOCKS_EXCLUDED(mu_);
  // RefSuperVersion for a point read, through the family's SuperVersion slots (see
  // ColumnFamilyData::super_version_slots): usually no lock and no shared write. *hold says
  // which slot the Get holds and with which mark (index kNoSuperVersionSlot: it took a
  // reference of its own). Release with ReleaseSuperVersionForGet (also when the result is
  // null: the DB is closed).
  struct SlotHold {
    size_t index = kNoSuperVersionSlot;
    SuperVersion* mark = nullptr;
  };
  SuperVersion* AcquireSuperVersionForGet(ColumnFamilyData* cfd, const ReadOptions& options,
                                          SequenceNumber* sequence, SlotHold* hold)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ReleaseSuperVersionForGet(ColumnFamilyData* cfd, SuperVersion* sv, const SlotHold& hold)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Empties the family's SuperVersion slots, dropping their references (which never are the
  // last: super_version still holds its own). Called before super_version changes.
  void ScrapeSuperVersionSlotsLocked(ColumnFamilyData* cfd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes a SuperVersion of the current state and returns the one it replaces (to be
  // released with UnrefSuperVersion after mu_ is released), or null.
  SuperVersion* InstallSuperVersionLocked(ColumnFamilyData* cfd)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // InstallSuperVersionLocked, then releases the replaced one with mu_ dropped briefly.
  // REQUIRES: mu_ held; it is released and retaken.
  void ReplaceSuperVersionLocked(ColumnFamilyData* cfd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // An iterator over the family's SuperVersion `sv` (referenced by the caller, released when
  // the iterator is destroyed; null: the DB is closed) at iopts.sequence.
  std::unique_ptr<Iterator> NewIteratorOver(const ReadOptions& options,
                                            std::shared_ptr<ColumnFamilyData> cfd,
                                            SuperVersion* sv, DBIterOptions iopts);
  [[nodiscard]] Status GetImpl(const ReadOptions& options, const ColumnFamilyData& cfd,
                               SuperVersion* sv,
                               SequenceNumber sequence, std::string_view key,
                               std::string* value);

  // ---- db_impl_background.cc
  void MaybeScheduleFlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The live family to flush next (see db_impl_background.cc), or null when none waits.
  ColumnFamilyData* NextFamilyToFlushLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BackgroundFlushCall() ABSL_LOCKS_EXCLUDED(mu_);
  // Flushes the oldest immutable memtable of each of `families` to a table file and logs,
  // in one MANIFEST write (an atomic group when there are several), the edits that add the
  // files and raise the families' log numbers (and those of idle families); removes the
  // memtables from their sets; hands back in *to_unref the memtables and in *old_svs the
  // replaced SuperVersions, all to be released after mu_ is (Unref frees memory). A family
  // dropped meanwhile is skipped (its table is obsolete). On failure nothing is installed and
  // the memtables stay listed (the caller records the error).
  // REQUIRES: mu_ held; each family has an immutable memtable; no other flush runs (the flush
  // thread, or Close with nothing else running): only this removes from the sets. Releases
  // mu_ while it builds the tables and while LogAndApply writes the MANIFEST, and re-takes
  // it: afterwards the caller must re-check bg_error_ and shutting_down_ and re-read the
  // families (new memtables may have been retired meanwhile) and the current Versions.
  [[nodiscard]] Status FlushLocked(const std::vector<ColumnFamilyData*>& families,
                                   std::vector<MemTable*>* to_unref,
                                   std::vector<SuperVersion*>* old_svs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The families the next flush takes with `next` (NextFamilyToFlushLocked): `next` alone, or
  // with atomic_flush every family whose oldest immutable memtable was retired with next's.
  std::vector<ColumnFamilyData*> FlushGroupLocked(ColumnFamilyData* next) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FlushOptions::allow_write_stall = false (RocksDB's meaning): before Flush switches the
  // memtable, waits while one more immutable memtable and one more L0 file would make the write
  // controller delay or stop writers, so the flush does not stall them. Does not wait when no
  // memtable is waiting for a flush and L0 is below level0_file_num_compaction_trigger, nor
  // while no flush or compaction is scheduled or running (no background work would lift the
  // condition, so waiting would never end). Sets *flush_needed = false if the
  // memtable that was active at the call got flushed meanwhile (by a flush of someone else).
  // Returns the background error, or ShutdownInProgress once Close began.
  [[nodiscard]] Status WaitUntilFlushWouldNotStallLocked(ColumnFamilyData* cfd,
                                                         bool* flush_needed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits until every memtable retired before this call is flushed (or an error).
  [[nodiscard]] Status WaitForFlushLocked(ColumnFamilyData* cfd, uint64_t up_to_log_number)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The level a flushed file with user keys [smallest, largest] goes to: the lowest level it
  // fits in the current Version, raised above any pending output range it overlaps.
  int PickFlushLevelLocked(const ColumnFamilyData& cfd, std::string_view smallest,
                           std::string_view largest) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordBackgroundErrorLocked(const Status& s, const char* where)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Resume's work once it is at the write queue's front: replaces a failed WAL (see
  // ReplaceFailedWalLocked), then clears the background error and restarts background work.
  [[nodiscard]] Status ResumeAtFrontLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After the WAL failed: starts a new WAL and retires the memtable for flushing, marked as
  // holding unlogged writes (its writes may not all be durable in the old WAL). On failure
  // nothing changes (the background error stays).
  // REQUIRES: mu_ held, and the caller holds the write queue's front. Releases mu_ while it
  // creates the WAL file and syncs the directory, and re-takes it (and again to release the
  // replaced SuperVersion): the caller must re-check shutting_down_ and bg_error_ afterwards
  // and wait for the retired memtable's flush before letting writers in (Resume does).
  [[nodiscard]] Status ReplaceFailedWalLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteObsoleteFiles() ABSL_LOCKS_EXCLUDED(mu_);
  // DeleteObsoleteFiles' loop over the directory, without mu_: deletes the files the snapshot
  // of what is live (taken under mu_ by the caller) no longer needs. The caller counts the pass
  // in deletion_passes_running_ around it.
  void DeleteObsoleteFilesUnlocked(const std::set<uint64_t>& live, uint64_t log_number,
                                   uint64_t manifest_number, uint64_t options_number,
                                   uint64_t options_writing, uint64_t next_number)
      ABSL_LOCKS_EXCLUDED(mu_);

  // ---- db_impl_compaction.cc
  void MaybeScheduleCompactionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BackgroundCompactionCall() ABSL_LOCKS_EXCLUDED(mu_);
  // Runs (or, for moves and deletions, applies) the compaction and installs its result.
  // Releases mu_ while the job runs. Does not release the compaction's inputs. The job counts
  // its input in *progress when not null (it reports without mu_).
  [[nodiscard]] Status RunCompactionLocked(ColumnFamilyData* cfd, Compaction* c,
                                           ProgressReporter* progress = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  [[nodiscard]] Status InstallCompactionLocked(ColumnFamilyData* cfd, Compaction* c,
                                               const CompactionJob* job,
                                               bool trivial_move)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // CompactRange(change_level): moves the files of the finished manual compaction `c` in its
  // output level (the bottom) up to `target`, in one MANIFEST edit. Aborted (nothing moved,
  // the data stays correct in the output level) if a level between holds data of the span.
  [[nodiscard]] Status RefitCompactionOutputLocked(ColumnFamilyData* cfd, const Compaction& c,
                                                   int target)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Registers a pending output range; returns its id for RemovePendingRangeLocked.
  uint64_t AddPendingRangeLocked(ColumnFamilyData* cfd, int level, std::string_view smallest,
                                 std::string_view largest) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemovePendingRangeLocked(ColumnFamilyData* cfd, uint64_t id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<PendingOutputRange> PendingRangesLocked(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Recomputes the write controller's state from every family's tree (the most severe state
  // wins).
  void RecalculateWriteStallLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The next live family (round robin after last_compacted_family_) whose picker says a
  // compaction is due, or null.
  ColumnFamilyData* FamilyNeedingCompactionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Threads for compactions: max_background_jobs minus the flush thread, at least 1.
  int MaxCompactionThreadsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string CompactionStatsString(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_ingest.cc (what an IngestionJob, db/ingestion_job.h, needs of the DB)
  // Takes the write queue's front, flushes as needed, places the files and logs the edit.
  [[nodiscard]] Status InstallExternalFiles(ColumnFamilyData* cfd, IngestionJob* job)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Flushes the memtables that hold keys in the job's files' ranges, and under universal
  // compaction every memtable before a file enters L0 (IngestionJob::CheckFlush). REQUIRES:
  // the writer queue's front; mu_ held, released and retaken while it waits for the flush.
  [[nodiscard]] Status FlushForIngestionLocked(ColumnFamilyData* cfd, const IngestionJob& job)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The state IngestionJob::Place reads; its Version is valid while mu_ is held.
  IngestionJob::DbView IngestionViewLocked(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- db_impl_column_family.cc
  // The family of a handle this DB handed out; null for a null handle or one of another DB.
  // Live or
  // dropped (cfd->dropped says).
  ColumnFamilyData* FamilyOf(ColumnFamilyHandle* column_family) const;
  std::shared_ptr<ColumnFamilyData> SharedFamilyOf(ColumnFamilyHandle* column_family) const;
  // FamilyOf, refusing (InvalidArgument naming `what`) a null handle and a dropped family.
  [[nodiscard]] Status LiveFamilyLocked(ColumnFamilyHandle* column_family, std::string_view what,
                                        ColumnFamilyData** cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes the ColumnFamilyData of a family the VersionSet has (Open, CreateColumnFamily):
  // its picker, stats and first memtable (writing to log_number_), and its SuperVersion once
  // `install` (after Open's recovery).
  std::shared_ptr<ColumnFamilyData> NewFamilyLocked(uint32_t id, const std::string& name,
                                                    const ColumnFamilyOptions& options)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Releases the SuperVersion and memtables of each dropped family only dropped_families_
  // holds, appending them to *svs and *mems, and the families to *freed, for the caller to
  // release without mu_.
  void SweepDroppedFamiliesLocked(std::vector<SuperVersion*>* svs, std::vector<MemTable*>* mems,
                                  std::vector<std::shared_ptr<ColumnFamilyData>>* freed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sweeps the dropped families nothing holds any more and deletes their files: called when a
  // handle or an iterator lets go of a family. Cheap when no family was dropped.
  void ReleaseDroppedFamilies() ABSL_LOCKS_EXCLUDED(mu_);
  // A handle the caller owns, whose destruction calls ReleaseDroppedFamilies.
  ColumnFamilyHandle* NewHandle(std::shared_ptr<ColumnFamilyData> cfd);
  // OK, or InvalidArgument when a family's options cannot live beside the DB's (another
  // comparator, another block cache, other reader-side table options: doc/column_families.md).
  [[nodiscard]] Status CheckFamilyOptions(const std::string& name,
                                          const ColumnFamilyOptions& options,
                                          const ColumnFamilyOptions& default_options) const;

  // ---- db_impl.cc
  // NotSupported("Not supported operation in read only mode.") (RocksDB's text) in a read-only
  // DB, else OK: the first check of every call that would write a file of the DB.
  [[nodiscard]] Status CheckWritable() const {
    if (!read_only_) return Status::OK();
    return Status::NotSupported("Not supported operation in read only mode.");
  }
  // Registers a public call that uses the write queue, the WAL, the memtables, the background
  // pools or the DB directory, so that Close waits for it to end before it frees any of them;
  // refused once Close has begun (status() is then ShutdownInProgress and the call must return
  // it). Taken at the start of Write, Flush, CompactRange, IngestExternalFile,
  // CreateCheckpoint, SetOptions and Resume. (Reads need no registration: they hold a
  // SuperVersion, which Close does not free, and the table cache lives until destruction.)
  // Thread-safety: with mu_held = false it takes mu_ in its constructor and destructor;
  // with true, mu_ must be held at construction and at destruction.
  class InFlightCall {
   public:
    InFlightCall(DBImpl* db, bool mu_held);
    ~InFlightCall();
    InFlightCall(const InFlightCall&) = delete;
    InFlightCall& operator=(const InFlightCall&) = delete;
    const Status& status() const { return status_; }

   private:
    DBImpl* const db_;
    const bool mu_held_;
    Status status_;  // OK: registered (and unregistered by the destructor)
  };
  // SetOptions (column_family set) and SetDBOptions (null): applies the changes, writes the
  // OPTIONS file, then installs the new values (all or none).
  [[nodiscard]] Status ChangeOptions(ColumnFamilyHandle* column_family,
                                     const std::unordered_map<std::string, std::string>& changes)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Close: refuses new calls, waits for those in flight and for background work, flushes
  // memtables holding disableWAL writes, then frees the WAL writer, memtables and pools.
  [[nodiscard]] Status CloseImpl(bool check_snapshots);
  // Close's flush of every memtable, oldest first, in the calling thread. REQUIRES: mu_ held;
  // the caller holds the write queue's front; nothing else runs (no call in flight, no
  // background job). Releases and re-takes mu_ (SwitchMemTable, FlushLocked, and to
  // release what each flush replaced).
  [[nodiscard]] Status FlushAllForCloseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Close flushes the memtables of logged writes while they hold at most this many bytes
  // together (see CloseImpl and DBOptions::avoid_flush_during_shutdown): a few hundred
  // milliseconds of writing at disk speed.
  static constexpr size_t kCloseFlushBytes = size_t{256} << 20;
  std::string StatsString(const ColumnFamilyData& cfd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string LevelStatsString(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string SSTablesString(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t EstimateNumKeysLocked(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The compaction debt figures (shale.estimate-pending-compaction-bytes,
  // shale.compaction-rate, shale.estimate-compaction-seconds-left,
  // shale.sustainable-write-rate; see CompactionDebtTracker).
  struct DebtFigures {
    uint64_t pending_bytes = 0;
    double rate = 0;             // compaction input bytes/s; 0: unknown
    bool rate_measured = false;  // from compactions, not the flush fallback
    bool seconds_left_known = false;
    uint64_t seconds_left = 0;
    double sustainable_write_rate = 0;  // user bytes/s; 0: unknown
  };
  DebtFigures DebtFiguresLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The family's estimate of the bytes compaction owes (0 without a picker).
  uint64_t PendingCompactionBytesLocked(const ColumnFamilyData& cfd) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One line of the debt figures, for shale.stats and the periodic LOG dump.
  std::string DebtStringLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Options::stats_dump_period_sec: writes shale.stats (debt figures included) to the info
  // LOG, line by line, with mu_ released while writing. Runs on stats_dumper_'s thread.
  void DumpStats() ABSL_LOCKS_EXCLUDED(mu_);
  void RecordTick(uint32_t ticker, uint64_t n = 1) const {
    if (statistics_ != nullptr) statistics_->recordTick(ticker, n);
  }

  // ---- Set at construction, then constant.
  const std::string dbname_;
  // Opened by DB::OpenForReadOnly. Invariant: a read-only DBImpl never creates, writes,
  // renames or deletes a file of the DB (nor takes its LOCK): OpenDB skips the LOCK, the info
  // LOG (info_log_ discards), the bulk-load cleanup, the new WAL, the MANIFEST write, the
  // OPTIONS file and DeleteObsoleteFiles; recovery keeps the replayed WALs in memtables
  // instead of flushing them; every call that would write refuses (CheckWritable) before it
  // does anything; no flush or compaction is ever scheduled (nothing is written to a memtable,
  // and OpenDB schedules no compaction); log_ stays null, so Close syncs no WAL.
  const bool read_only_;
  const InternalKeyComparator icmp_;
  FileSystem* const fs_;
  Statistics* const statistics_;  // may be null
  const uint64_t open_time_micros_;

  // ---- Set while opening (before any other thread can see the DB), then constant.
  std::unique_ptr<FileLock> db_lock_;
  std::unique_ptr<InfoLog> info_log_;
  // The block cache (null with no_block_cache); it must outlive table_cache_'s readers, so it
  // is declared before it. block_source_ is the cache's BlockSource face, or the uncached one.
  std::shared_ptr<Cache> block_cache_;
  BlockSource* block_source_ = nullptr;
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<VersionSet> versions_;
  std::unique_ptr<ThreadPool> flush_pool_;
  std::unique_ptr<ThreadPool> compaction_pool_;
  // The stats_dump_period_sec timer (null when 0). Started at the end of OpenDB, stopped by
  // CloseImpl before the pools go (Stop is thread-safe; the pointer does not change after Open).
  std::unique_ptr<PeriodicTask> stats_dumper_;

  // Serializes SetOptions calls (held across validating, writing the OPTIONS file and
  // installing the values, so the options cannot change in between), and family creation and
  // drop (which write OPTIONS files too). Lock order: before mu_.
  Mutex set_options_mu_;
  mutable Mutex mu_;
  // The DB's options (the DB part of every family's options too); SetDBOptions changes them.
  DBOptions db_options_ ABSL_GUARDED_BY(mu_);
  // Shared with the Options the user passed (keeps the file system alive).
  std::shared_ptr<FileSystem> fs_holder_;
  std::shared_ptr<Statistics> statistics_holder_;

  // The write queue; its front (WriteQueue::Front) is the only writer of log_ and of the
  // active memtable's contents, and the only one to switch them.
  WriteQueue write_queue_ ABSL_GUARDED_BY(mu_);

  // The live column families by id (the default family, id 0, always). A dropped family leaves
  // the map at once; handles and SuperVersions keep its ColumnFamilyData alive (column_family.h).
  std::map<uint32_t, std::shared_ptr<ColumnFamilyData>> column_families_ ABSL_GUARDED_BY(mu_);
  // Dropped families that a handle, an iterator or a write group in flight may still hold:
  // swept (SuperVersion and memtables released) once only this list holds them
  // (SweepDroppedFamiliesLocked), and at Close.
  std::vector<std::shared_ptr<ColumnFamilyData>> dropped_families_ ABSL_GUARDED_BY(mu_);
  // dropped_families_.size(), readable without mu_ (ReleaseDroppedFamilies' fast path).
  std::atomic<size_t> num_dropped_families_{0};
  // The default family and its DB-owned handle. Set while opening, then constant.
  ColumnFamilyData* default_cf_ = nullptr;
  std::unique_ptr<ColumnFamilyHandleImpl> default_handle_;
  // Shared with every handle; detached by the destructor (column_family.h).
  const std::shared_ptr<HandleOwner> handle_owner_ =
      std::make_shared<HandleOwner>(&mu_, [this] { ReleaseDroppedFamilies(); });
  // The WAL every family writes to, and its number. Only the write queue's front (or
  // Open/Close) touches log_; log_number_ changes with it, under mu_.
  std::unique_ptr<log::Writer> log_;
  uint64_t log_number_ ABSL_GUARDED_BY(mu_) = 0;
  // Bytes of each closed WAL that a family may still need (for max_total_wal_size); entries
  // below versions_->MinLogNumber() are dropped as they are found.
  std::map<uint64_t, uint64_t> closed_wal_bytes_ ABSL_GUARDED_BY(mu_);
  uint64_t super_version_number_ ABSL_GUARDED_BY(mu_) = 0;

  SnapshotList snapshots_ ABSL_GUARDED_BY(mu_);
  // Ingestions writing the MANIFEST edit of a file at sequence 0 that snapshot_consistency
  // must keep from earlier snapshots (db_impl_ingest.cc): GetSnapshot waits while any is.
  int snapshot_blocking_ingestions_ ABSL_GUARDED_BY(mu_) = 0;
  CondVar ingestion_cv_;  // signalled when snapshot_blocking_ingestions_ drops to 0
  // The first WAL (log number) of each checkpoint plan alive: DeleteObsoleteFiles keeps the
  // WALs from the smallest on, so the plan can copy them (db_impl_checkpoint.cc).
  std::multiset<uint64_t> checkpoint_wals_ ABSL_GUARDED_BY(mu_);
  // DisableFileDeletions calls not yet undone (EnableFileDeletions): while positive,
  // DeleteObsoleteFiles deletes nothing.
  int file_deletions_disabled_ ABSL_GUARDED_BY(mu_) = 0;
  // DeleteObsoleteFiles passes past their file_deletions_disabled_ check and still deleting
  // (they delete without mu_). DisableFileDeletions waits (on deletion_passes_cv_) until it is
  // 0, so no file is deleted after it returns. Invariant: a pass counts itself only while
  // file_deletions_disabled_ was 0 at its check.
  int deletion_passes_running_ ABSL_GUARDED_BY(mu_) = 0;
  CondVar deletion_passes_cv_;  // signalled when deletion_passes_running_ drops
  // Table files being written: not obsolete though no Version lists them yet.
  std::set<uint64_t> pending_outputs_ ABSL_GUARDED_BY(mu_);
  uint64_t options_file_number_ ABSL_GUARDED_BY(mu_) = 0;  // the latest OPTIONS file
  // The OPTIONS file a SetOptions is writing (0: none). DeleteObsoleteFiles keeps exactly
  // these two, so a file a failed SetOptions could not remove goes with the next sweep.
  uint64_t options_file_writing_ ABSL_GUARDED_BY(mu_) = 0;

  CondVar bg_cv_;  // signalled when a flush finishes or fails
  bool flush_scheduled_ ABSL_GUARDED_BY(mu_) = false;
  // Background flush jobs that installed their table, and the highest of them whose
  // DeleteObsoleteFiles pass (the WALs and tables the flush left obsolete) has ended. A
  // Flush(wait) returns only once the job that flushed its memtable has swept (RocksDB's
  // BackgroundCallFlush purges before it wakes the waiters): a directory listed after
  // Flush returns no longer holds the WAL that flush made obsolete (WaitForFlushLocked).
  // Invariant: flush_jobs_swept_ <= flush_jobs_installed_.
  uint64_t flush_jobs_installed_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t flush_jobs_swept_ ABSL_GUARDED_BY(mu_) = 0;
  Status bg_error_ ABSL_GUARDED_BY(mu_);
  uint64_t bg_errors_recorded_ ABSL_GUARDED_BY(mu_) = 0;  // shale.background-errors
  // Set when Close begins: new calls are refused, waiting ones give up.
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // InFlightCall registrations; Close waits (on bg_cv_) until it is 0.
  int calls_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // A copy of shutting_down_ that running compaction jobs poll without the mutex.
  std::atomic<bool> stop_compactions_{false};
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Close has ended (the LOCK is released); concurrent Close calls wait on bg_cv_ for it.
  bool close_finished_ ABSL_GUARDED_BY(mu_) = false;
  bool opened_ ABSL_GUARDED_BY(mu_) = false;

  // Compactions. Guarded by mu_.
  int bg_compactions_scheduled_ ABSL_GUARDED_BY(mu_) = 0;  // queued or running in the pool
  int compactions_running_ ABSL_GUARDED_BY(mu_) = 0;       // jobs between pick and install
  int manual_compactions_ ABSL_GUARDED_BY(mu_) = 0;        // CompactRange calls in progress
  int exclusive_manual_compactions_ ABSL_GUARDED_BY(mu_) = 0;  // ... that pause automatic ones
  uint64_t next_pending_range_id_ ABSL_GUARDED_BY(mu_) = 1;
  // The family the last automatic compaction was picked for (round robin).
  uint32_t last_compacted_family_ ABSL_GUARDED_BY(mu_) = 0;
  WriteController write_controller_ ABSL_GUARDED_BY(mu_);
  // The family whose tree set the write controller's state (RecalculateWriteStallLocked).
  uint32_t write_stall_family_ ABSL_GUARDED_BY(mu_) = 0;

  // shale.stats counters. Guarded by mu_.
  // Write stalls by cause (WriteController::Cause as index): count and microseconds.
  uint64_t stall_count_by_cause_[4] ABSL_GUARDED_BY(mu_) = {};
  uint64_t stall_micros_by_cause_[4] ABSL_GUARDED_BY(mu_) = {};
  uint64_t stall_micros_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t stall_count_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t wal_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t user_bytes_written_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t writes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t write_groups_ ABSL_GUARDED_BY(mu_) = 0;
  // Recent compaction throughput, for the debt figures. Fed by RunCompactionLocked.
  CompactionDebtTracker debt_tracker_ ABSL_GUARDED_BY(mu_);
};

// The MANIFEST state of the DB in `dbname` that tells whether a writer changed it: CURRENT's
// text and the size of the MANIFEST it names, as "<MANIFEST name>:<size>" (db_impl_open.cc).
// A writer deletes a WAL or a table only after the MANIFEST edit that makes it obsolete, so a
// read-only open that failed while this state stayed the same did not fail for a file the
// writer deleted meanwhile (OpenForReadOnly's retry, DBSecondary's generations).
// Thread-safe (reads files only).
Status ReadManifestState(FileSystem* fs, const std::string& dbname, std::string* state);

}  // namespace shale

#endif  // SHALE_DB_DB_IMPL_H_
