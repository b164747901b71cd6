// DBSecondary: a secondary instance of a DB (DB::OpenAsSecondary, RocksDB's secondary mode).
//
// What it is: a DB whose state is a "generation", a read-only DBImpl (DB::OpenForReadOnly's
// engine) opened on the primary's directory, with every table file of its versions parsed and
// its descriptor open (DBImpl::OpenTableFiles). TryCatchUpWithPrimary builds a new generation
// the same way (reading the MANIFEST and replaying the live WALs from scratch) and swaps it in
// under mu_. A read uses the current generation; an iterator and a snapshot hold the
// generation they were made from (shared_ptr), so they keep their view across catch-ups, and
// a generation is closed when the last of them lets go.
//
// Consistency of a generation: the primary deletes a table or a WAL only after the MANIFEST
// edit that makes it obsolete is written. A generation is taken only if CURRENT named the same
// MANIFEST with the same size before the read-only open began and after its tables were opened;
// so no file the generation needs was deleted meanwhile (every WAL from its log number on was
// replayed, every table was opened). Otherwise (the primary changed its MANIFEST meanwhile, or
// rolled it over) the attempt is dropped and repeated, up to kMaxAttempts times (then TryAgain).
// A batch is never applied twice: each generation replays the WALs into fresh memtables.
//
// Cost of a catch-up: a full read-only open (the whole MANIFEST, every live WAL replayed, every
// table's index and filter parsed again by the new generation's table cache, whose block cache
// starts empty unless Options::table_options shares one); while an old generation is held
// (iterators, snapshots) both are in memory.
//
// Column family handles are the secondary's own (SecondaryFamilyHandle); each maps to the
// family's handle in whatever generation a call uses. A family the primary dropped makes the
// catch-up fail (InvalidArgument "Column family not found"), and the secondary keeps its state.
//
// Thread-safety: every method may be called from any thread (DB's contract). mu_ guards the
// current generation and the closed flag; catch_up_mu_ serializes catch-ups (lock order:
// catch_up_mu_, then mu_). Neither is held across I/O except catch_up_mu_.
#ifndef SHALE_DB_DB_SECONDARY_H_
#define SHALE_DB_DB_SECONDARY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/info_log.h"
#include "shale/db.h"
#include "shale/options.h"
#include "util/mutex.h"

namespace shale {

class DBSecondary final : public DB {
 public:
  // Catch-up attempts before giving up with TryAgain while the primary keeps changing its
  // MANIFEST.
  static constexpr int kMaxAttempts = 16;

  // Opens the secondary (the work of DB::OpenAsSecondary after argument checks). On success
  // *handles gets one handle per family, in order.
  [[nodiscard]] static Status Open(const DBOptions& db_options, const std::string& name,
                                   const std::string& secondary_path,
                                   const std::vector<ColumnFamilyDescriptor>& families,
                                   std::vector<ColumnFamilyHandle*>* handles,
                                   std::unique_ptr<DB>* db);
  ~DBSecondary() override;

  Status TryCatchUpWithPrimary() override ABSL_LOCKS_EXCLUDED(mu_, catch_up_mu_);

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
  // Refused: NotSupported("Not supported operation in secondary mode.").
  Status CreateColumnFamily(const ColumnFamilyOptions& options, const std::string& name,
                            ColumnFamilyHandle** handle) override;
  Status DropColumnFamily(ColumnFamilyHandle* column_family) override;
  Status DestroyColumnFamilyHandle(ColumnFamilyHandle* column_family) override;
  ColumnFamilyHandle* DefaultColumnFamily() const override;
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
  Status DeleteFilesInRange(ColumnFamilyHandle* column_family, const std::string_view* begin,
                            const std::string_view* end) override;
  Status IngestExternalFile(ColumnFamilyHandle* column_family,
                            const std::vector<std::string>& files,
                            const IngestExternalFileOptions& options) override;
  Status FlushWAL(bool sync) override;
  Status DisableFileDeletions() override;
  Status EnableFileDeletions(bool force) override;
  Status SetOptions(ColumnFamilyHandle* column_family,
                    const std::unordered_map<std::string, std::string>& options) override;
  Status SetDBOptions(const std::unordered_map<std::string, std::string>& options) override;
  Status VerifyChecksum(const ReadOptions& options) override;
  Status VerifyChecksum(const VerifyChecksumOptions& options) override;
  Status Resume() override;
  Status Close() override ABSL_LOCKS_EXCLUDED(mu_);
  bool GetProperty(ColumnFamilyHandle* column_family, std::string_view property,
                   std::string* value) override;
  bool GetIntProperty(ColumnFamilyHandle* column_family, std::string_view property,
                      uint64_t* value) override;
  Status GetApproximateSizes(ColumnFamilyHandle* column_family, const Range* ranges, int n,
                             uint64_t* sizes) override;
  void GetLiveFilesMetaData(std::vector<LiveFileMetaData>* metadata) override;
  // The current generation's WAL iterator; the iterator keeps that generation (and the WAL
  // files it holds open) alive across catch-ups, so it reads the WALs as of its creation.
  Status GetUpdatesSince(uint64_t seq, std::unique_ptr<TransactionLogIterator>* iter,
                         const TransactionLogIterator::ReadOptions& read_options) override;
  void LogInfo(std::string_view message) override;
  Options GetOptions(ColumnFamilyHandle* column_family) const override;
  DBOptions GetDBOptions() const override;
  const std::string& GetName() const override { return dbname_; }
  uint64_t GetLatestSequenceNumber() const override;

  // One state of the secondary (see the header comment); defined in db_secondary.cc.
  struct Generation;

 private:
  class FamilyHandle;
  class SnapshotImpl;
  class GenerationIterator;

  DBSecondary(const DBOptions& db_options, std::string dbname,
              std::vector<ColumnFamilyDescriptor> families, std::unique_ptr<InfoLog> info_log);

  // Builds a consistent generation (see the header comment), retrying while the primary
  // changes its MANIFEST. No lock held (I/O).
  [[nodiscard]] Status BuildGeneration(std::shared_ptr<Generation>* gen);
  // The current generation (null after Close).
  std::shared_ptr<Generation> Current() const ABSL_LOCKS_EXCLUDED(mu_);
  // The family index of a handle of this DB (its position in families_); false for a null
  // handle or one of another DB.
  bool IndexOf(ColumnFamilyHandle* column_family, size_t* index) const;
  // The generation a read with `options` uses (its snapshot's, or the current one), with
  // *inner set to `options` adjusted for it. Null after Close.
  std::shared_ptr<Generation> ForRead(const ReadOptions& options, ReadOptions* inner) const;
  // The handle of `column_family`'s family in `gen`, or null (null handle, another DB's).
  ColumnFamilyHandle* InnerHandle(const Generation& gen, ColumnFamilyHandle* column_family) const;

  const std::string dbname_;
  const DBOptions db_options_;                        // as given, with the file system set
  const std::vector<ColumnFamilyDescriptor> families_;  // what each generation opens
  const std::unique_ptr<InfoLog> info_log_;           // <secondary_path>/LOG; thread-safe
  // The secondary's handles, one per family (families_ order); the default one is owned here.
  std::unique_ptr<FamilyHandle> default_handle_;

  Mutex catch_up_mu_;  // serializes TryCatchUpWithPrimary and Close (held across I/O)
  mutable Mutex mu_;
  // The generation reads use; null once closed. Replaced (never modified) by a catch-up.
  std::shared_ptr<Generation> current_ ABSL_GUARDED_BY(mu_);
  // Snapshots handed out and not released (Close refuses while any is).
  int live_snapshots_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace shale

#endif  // SHALE_DB_DB_SECONDARY_H_
