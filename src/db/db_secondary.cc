// DBSecondary (db/db_secondary.h): secondary instances, DB::OpenAsSecondary and
// TryCatchUpWithPrimary; and DBImpl::OpenTableFiles, which a generation's DBImpl runs.
#include "db/db_secondary.h"

#include <utility>

#include "base/filename.h"
#include "db/db_impl.h"
#include "fs/path_util.h"

namespace shale {
namespace {

constexpr std::string_view kSecondaryText = "Not supported operation in secondary mode.";

Status NotSupportedInSecondary() { return Status::NotSupported(kSecondaryText); }

// An iterator that holds only an error (a closed DB, a bad handle).
class ErrorIterator final : public Iterator {
 public:
  explicit ErrorIterator(Status status) : status_(std::move(status)) {}
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Seek(std::string_view) override {}
  void SeekForPrev(std::string_view) override {}
  void Next() override {}
  void Prev() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  const Status status_;
};

std::unique_ptr<Iterator> NewErrorIterator(Status status) {
  return std::make_unique<ErrorIterator>(std::move(status));
}

}  // namespace

// ---- DBImpl's part

Status DBImpl::OpenTableFiles() {
  struct Table {
    uint64_t number;
    uint64_t file_size;
    int level;
    SequenceNumber global_seqno;
  };
  std::vector<Table> tables;
  {
    MutexLock lock(&mu_);
    for (uint32_t id : versions_->ColumnFamilyIds()) {
      const Version* v = versions_->current(id);
      for (int level = 0; level < v->num_levels(); level++) {
        for (const FileMetaData* f : v->files(level)) {
          tables.push_back({f->number, f->file_size, level, f->global_seqno});
        }
      }
    }
  }
  // Without mu_: parsing reads the files.
  for (const Table& t : tables) {
    std::shared_ptr<const CachedTable> table;
    Status s = table_cache_->Find(t.number, t.file_size, &table, t.level, t.global_seqno);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// ---- The generation, the handles, snapshots and iterators of a secondary

// A read-only DBImpl of the primary's directory with its tables open, and its family handles
// (families_ order). Immutable once built; closed when the last holder lets go.
struct DBSecondary::Generation {
  std::unique_ptr<DB> db;
  std::vector<ColumnFamilyHandle*> handles;  // owned
  uint64_t number = 0;                       // 1 for the open's, then one more per catch-up

  Generation() = default;
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;
  ~Generation() {
    if (db == nullptr) return;
    for (ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db->Close().PermitUncheckedError();
  }
};

// A family of the secondary: the same family in every generation. Immutable; destroyed by
// DestroyColumnFamilyHandle (or with the DB for the default one).
class DBSecondary::FamilyHandle final : public ColumnFamilyHandle {
 public:
  FamilyHandle(const DBSecondary* owner, size_t index, std::string name, uint32_t id,
               const Comparator* comparator)
      : owner_(owner), index_(index), name_(std::move(name)), id_(id), comparator_(comparator) {}
  const std::string& GetName() const override { return name_; }
  uint32_t GetID() const override { return id_; }
  Status GetDescriptor(ColumnFamilyDescriptor* descriptor) override {
    std::shared_ptr<Generation> gen = owner_->Current();
    if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
    return gen->handles[index_]->GetDescriptor(descriptor);
  }
  const Comparator* GetComparator() const override { return comparator_; }
  const DBSecondary* owner() const { return owner_; }
  size_t index() const { return index_; }

 private:
  const DBSecondary* const owner_;
  const size_t index_;
  const std::string name_;
  const uint32_t id_;
  const Comparator* const comparator_;
};

// A snapshot of one generation: reads with it use that generation (so it keeps its view
// across catch-ups). Immutable.
class DBSecondary::SnapshotImpl final : public Snapshot {
 public:
  SnapshotImpl(const DBSecondary* owner, std::shared_ptr<Generation> gen, const Snapshot* inner)
      : owner_(owner), gen_(std::move(gen)), inner_(inner) {}
  ~SnapshotImpl() override { gen_->db->ReleaseSnapshot(inner_); }
  uint64_t GetSequenceNumber() const override { return inner_->GetSequenceNumber(); }
  const DBSecondary* owner() const { return owner_; }
  const std::shared_ptr<Generation>& gen() const { return gen_; }
  const Snapshot* inner() const { return inner_; }

 private:
  const DBSecondary* const owner_;
  const std::shared_ptr<Generation> gen_;
  const Snapshot* const inner_;
};

// An iterator of one generation, keeping it alive. Thread-safety: as any Iterator.
class DBSecondary::GenerationIterator final : public Iterator {
 public:
  GenerationIterator(std::shared_ptr<Generation> gen, std::unique_ptr<Iterator> inner)
      : gen_(std::move(gen)), inner_(std::move(inner)) {}
  ~GenerationIterator() override { inner_.reset(); }  // before the generation goes
  bool Valid() const override { return inner_->Valid(); }
  void SeekToFirst() override { inner_->SeekToFirst(); }
  void SeekToLast() override { inner_->SeekToLast(); }
  void Seek(std::string_view target) override { inner_->Seek(target); }
  void SeekForPrev(std::string_view target) override { inner_->SeekForPrev(target); }
  void Next() override { inner_->Next(); }
  void Prev() override { inner_->Prev(); }
  std::string_view key() const override { return inner_->key(); }
  std::string_view value() const override { return inner_->value(); }
  Status status() const override { return inner_->status(); }

 private:
  const std::shared_ptr<Generation> gen_;
  std::unique_ptr<Iterator> inner_;
};

// ---- Opening

Status DB::OpenAsSecondary(const Options& options, const std::string& name,
                           const std::string& secondary_path, std::unique_ptr<DB>* db) {
  std::vector<ColumnFamilyHandle*> handles;
  Status s = OpenAsSecondary(static_cast<const DBOptions&>(options), name, secondary_path,
                             {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                                                     static_cast<const ColumnFamilyOptions&>(
                                                         options))},
                             &handles, db);
  for (ColumnFamilyHandle* h : handles) {
    if (*db != nullptr) (*db)->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  return s;
}

Status DB::OpenAsSecondary(const DBOptions& db_options, const std::string& name,
                           const std::string& secondary_path,
                           const std::vector<ColumnFamilyDescriptor>& column_families,
                           std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db) {
  return DBSecondary::Open(db_options, name, secondary_path, column_families, handles, db);
}

Status DB::TryCatchUpWithPrimary() {
  return Status::NotSupported("Supported only by secondary instance");
}

DBSecondary::DBSecondary(const DBOptions& db_options, std::string dbname,
                         std::vector<ColumnFamilyDescriptor> families,
                         std::unique_ptr<InfoLog> info_log)
    : dbname_(std::move(dbname)),
      db_options_(db_options),
      families_(std::move(families)),
      info_log_(std::move(info_log)) {}

DBSecondary::~DBSecondary() { Close().PermitUncheckedError(); }

Status DBSecondary::Open(const DBOptions& db_options, const std::string& name,
                         const std::string& secondary_path,
                         const std::vector<ColumnFamilyDescriptor>& families,
                         std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db) {
  if (db == nullptr || handles == nullptr) {
    return Status::InvalidArgument("DB::OpenAsSecondary: null result pointer");
  }
  db->reset();
  handles->clear();
  if (name.empty()) return Status::InvalidArgument("DB::OpenAsSecondary: empty DB name");
  if (secondary_path.empty()) {
    return Status::InvalidArgument("DB::OpenAsSecondary: empty secondary_path");
  }
  if (NormalizePath(secondary_path) == NormalizePath(name)) {
    return Status::InvalidArgument(
        "DB::OpenAsSecondary: secondary_path must differ from the DB's directory " + name);
  }
  DBOptions options = db_options;
  if (options.file_system == nullptr) options.file_system = FileSystem::Default();
  // The secondary's own directory and info LOG (nothing of the primary's directory).
  Status s = options.file_system->CreateDirIfMissing(secondary_path);
  if (!s.ok()) {
    return Status::IOError("creating the secondary's directory " + secondary_path, s.ToString());
  }
  std::unique_ptr<InfoLog> info_log;
  s = InfoLog::Open(options.file_system.get(), secondary_path, &info_log);
  if (!s.ok()) return s;
  info_log->Log("opening %s as a secondary instance", name.c_str());
  std::unique_ptr<DBSecondary> impl(
      new DBSecondary(options, name, families, std::move(info_log)));
  std::shared_ptr<Generation> gen;
  s = impl->BuildGeneration(&gen);
  if (!s.ok()) {
    impl->info_log_->Log("open failed: %s", s.ToString().c_str());
    return s;
  }
  gen->number = 1;
  // The secondary's handles mirror the first generation's.
  for (size_t i = 0; i < gen->handles.size(); i++) {
    ColumnFamilyHandle* h = gen->handles[i];
    auto handle = std::make_unique<FamilyHandle>(impl.get(), i, h->GetName(), h->GetID(),
                                                 h->GetComparator());
    if (h->GetName() == kDefaultColumnFamilyName) {
      impl->default_handle_ = std::make_unique<FamilyHandle>(impl.get(), i, h->GetName(),
                                                             h->GetID(), h->GetComparator());
    }
    handles->push_back(handle.release());
  }
  {
    MutexLock lock(&impl->mu_);
    impl->current_ = std::move(gen);
  }
  *db = std::move(impl);
  return Status::OK();
}

Status DBSecondary::BuildGeneration(std::shared_ptr<Generation>* result) {
  DBOptions options = db_options_;
  options.stats_dump_period_sec = 0;  // the generation's info LOG discards everything
  // The primary may be writing the last WAL: its tail is an incomplete record, not damage
  // (and, as the primary copies records into space allocated ahead, possibly zeros with data
  // after them, which kTolerateCorruptedTailRecords would refuse).
  if (options.wal_recovery_mode == WALRecoveryMode::kAbsoluteConsistency ||
      options.wal_recovery_mode == WALRecoveryMode::kTolerateCorruptedTailRecords) {
    options.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
  }
  FileSystem* fs = options.file_system.get();
  Status s;
  for (int attempt = 1; attempt <= kMaxAttempts; attempt++) {
    std::string before;
    std::string after;
    const Status before_status = ReadManifestState(fs, dbname_, &before);
    auto gen = std::make_shared<Generation>();
    s = DB::OpenForReadOnly(options, dbname_, families_, &gen->handles, &gen->db);
    if (s.ok()) s = static_cast<DBImpl*>(gen->db.get())->OpenTableFiles();
    const Status after_status = ReadManifestState(fs, dbname_, &after);
    // Stable: the primary did not change its MANIFEST during the attempt, so no file the
    // generation needs was deleted meanwhile; the result (or the error) is the DB's.
    const bool stable = before_status.ok() == after_status.ok() &&
                        (!before_status.ok() || before == after);
    if (stable) {
      if (s.ok() && !before_status.ok()) s = before_status;
      if (!s.ok()) return s;
      *result = std::move(gen);
      info_log_->Log("state of the primary read (%s), attempt %d, last sequence %llu",
                     before.c_str(), attempt,
                     static_cast<unsigned long long>((*result)->db->GetLatestSequenceNumber()));
      return Status::OK();
    }
    info_log_->Log("the primary changed its MANIFEST while it was read (%s -> %s): %s; again",
                   before.c_str(), after.c_str(), s.ToString().c_str());
  }
  return Status::TryAgain("DB::TryCatchUpWithPrimary: the primary changed its MANIFEST during " +
                              std::to_string(kMaxAttempts) + " attempts to read it",
                          s.ToString());
}

Status DBSecondary::TryCatchUpWithPrimary() {
  MutexLock catch_up(&catch_up_mu_);
  uint64_t number = 0;
  {
    MutexLock lock(&mu_);
    if (current_ == nullptr) return Status::ShutdownInProgress("the DB is closed");
    number = current_->number;
  }
  std::shared_ptr<Generation> gen;
  Status s = BuildGeneration(&gen);
  if (!s.ok()) {
    info_log_->Log("catch-up failed, the previous state is kept: %s", s.ToString().c_str());
    return s;
  }
  gen->number = number + 1;
  std::shared_ptr<Generation> old;
  {
    MutexLock lock(&mu_);
    old = std::move(current_);
    current_ = std::move(gen);
  }
  info_log_->Log("caught up with the primary: generation %llu",
                 static_cast<unsigned long long>(number + 1));
  old.reset();  // closed here unless an iterator or a snapshot holds it (without mu_)
  return Status::OK();
}

Status DBSecondary::Close() {
  MutexLock catch_up(&catch_up_mu_);
  std::shared_ptr<Generation> old;
  {
    MutexLock lock(&mu_);
    if (current_ == nullptr) return Status::OK();
    if (live_snapshots_ > 0) {
      return Status::Aborted("Close: " + std::to_string(live_snapshots_) +
                             " snapshots are still unreleased");
    }
    old = std::move(current_);
  }
  info_log_->Log("closing the secondary instance");
  old.reset();
  return Status::OK();
}

// ---- Lookups

std::shared_ptr<DBSecondary::Generation> DBSecondary::Current() const {
  MutexLock lock(&mu_);
  return current_;
}

bool DBSecondary::IndexOf(ColumnFamilyHandle* column_family, size_t* index) const {
  auto* handle = dynamic_cast<FamilyHandle*>(column_family);
  if (handle == nullptr || handle->owner() != this) return false;
  *index = handle->index();
  return true;
}

ColumnFamilyHandle* DBSecondary::InnerHandle(const Generation& gen,
                                             ColumnFamilyHandle* column_family) const {
  size_t index = 0;
  if (!IndexOf(column_family, &index)) return nullptr;
  return gen.handles[index];
}

std::shared_ptr<DBSecondary::Generation> DBSecondary::ForRead(const ReadOptions& options,
                                                              ReadOptions* inner) const {
  *inner = options;
  auto* snapshot = dynamic_cast<const SnapshotImpl*>(options.snapshot);
  if (snapshot != nullptr && snapshot->owner() == this) {
    inner->snapshot = snapshot->inner();
    return snapshot->gen();
  }
  return Current();
}

namespace {
Status BadHandle(std::string_view what) {
  return Status::InvalidArgument(std::string(what) +
                                 ": null column family handle, or one of another DB");
}
}  // namespace

// ---- Reads

Status DBSecondary::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                        std::string_view key, std::string* value) {
  ReadOptions inner;
  std::shared_ptr<Generation> gen = ForRead(options, &inner);
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  ColumnFamilyHandle* h = InnerHandle(*gen, column_family);
  if (h == nullptr) return BadHandle("Get");
  return gen->db->Get(inner, h, key, value);
}

std::vector<Status> DBSecondary::MultiGet(const ReadOptions& options,
                                          const std::vector<ColumnFamilyHandle*>& column_families,
                                          const std::vector<std::string_view>& keys,
                                          std::vector<std::string>* values) {
  ReadOptions inner;
  std::shared_ptr<Generation> gen = ForRead(options, &inner);
  if (gen == nullptr) {
    if (values != nullptr) values->assign(keys.size(), std::string());
    return std::vector<Status>(keys.size(), Status::ShutdownInProgress("the DB is closed"));
  }
  std::vector<ColumnFamilyHandle*> handles;
  for (ColumnFamilyHandle* cf : column_families) {
    ColumnFamilyHandle* h = InnerHandle(*gen, cf);
    if (h == nullptr) {
      if (values != nullptr) values->assign(keys.size(), std::string());
      return std::vector<Status>(keys.size(), BadHandle("MultiGet"));
    }
    handles.push_back(h);
  }
  return gen->db->MultiGet(inner, handles, keys, values);
}

std::unique_ptr<Iterator> DBSecondary::NewIterator(const ReadOptions& options,
                                                   ColumnFamilyHandle* column_family) {
  ReadOptions inner;
  std::shared_ptr<Generation> gen = ForRead(options, &inner);
  if (gen == nullptr) return NewErrorIterator(Status::ShutdownInProgress("the DB is closed"));
  ColumnFamilyHandle* h = InnerHandle(*gen, column_family);
  if (h == nullptr) return NewErrorIterator(BadHandle("NewIterator"));
  std::unique_ptr<Iterator> it = gen->db->NewIterator(inner, h);
  return std::make_unique<GenerationIterator>(std::move(gen), std::move(it));
}

Status DBSecondary::NewIterators(const ReadOptions& options,
                                 const std::vector<ColumnFamilyHandle*>& column_families,
                                 std::vector<std::unique_ptr<Iterator>>* iterators) {
  if (iterators == nullptr) return Status::InvalidArgument("NewIterators: null result pointer");
  iterators->clear();
  ReadOptions inner;
  std::shared_ptr<Generation> gen = ForRead(options, &inner);
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  std::vector<ColumnFamilyHandle*> handles;
  for (ColumnFamilyHandle* cf : column_families) {
    ColumnFamilyHandle* h = InnerHandle(*gen, cf);
    if (h == nullptr) return BadHandle("NewIterators");
    handles.push_back(h);
  }
  std::vector<std::unique_ptr<Iterator>> inner_iterators;
  Status s = gen->db->NewIterators(inner, handles, &inner_iterators);
  if (!s.ok()) return s;
  for (std::unique_ptr<Iterator>& it : inner_iterators) {
    iterators->push_back(std::make_unique<GenerationIterator>(gen, std::move(it)));
  }
  return Status::OK();
}

const Snapshot* DBSecondary::GetSnapshot() {
  MutexLock lock(&mu_);
  if (current_ == nullptr) return nullptr;
  const Snapshot* inner = current_->db->GetSnapshot();
  if (inner == nullptr) return nullptr;
  live_snapshots_++;
  return new SnapshotImpl(this, current_, inner);
}

void DBSecondary::ReleaseSnapshot(const Snapshot* snapshot) {
  auto* s = dynamic_cast<const SnapshotImpl*>(snapshot);
  if (s == nullptr || s->owner() != this) return;
  {
    MutexLock lock(&mu_);
    live_snapshots_--;
  }
  delete s;  // releases the inner snapshot; may close its generation (without mu_)
}

bool DBSecondary::GetProperty(ColumnFamilyHandle* column_family, std::string_view property,
                              std::string* value) {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return false;
  ColumnFamilyHandle* h = InnerHandle(*gen, column_family);
  return h != nullptr && gen->db->GetProperty(h, property, value);
}

bool DBSecondary::GetIntProperty(ColumnFamilyHandle* column_family, std::string_view property,
                                 uint64_t* value) {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return false;
  ColumnFamilyHandle* h = InnerHandle(*gen, column_family);
  return h != nullptr && gen->db->GetIntProperty(h, property, value);
}

Status DBSecondary::GetApproximateSizes(ColumnFamilyHandle* column_family, const Range* ranges,
                                        int n, uint64_t* sizes) {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  ColumnFamilyHandle* h = InnerHandle(*gen, column_family);
  if (h == nullptr) return BadHandle("GetApproximateSizes");
  return gen->db->GetApproximateSizes(h, ranges, n, sizes);
}

namespace {

// A WAL iterator of one generation's read-only DB that owns a reference to the generation, so
// that a catch-up swapping the generation out cannot destroy the DB the iterator reads.
// Thread-safety: as the iterator it wraps (one thread at a time).
class GenerationWalIterator final : public TransactionLogIterator {
 public:
  GenerationWalIterator(std::shared_ptr<DBSecondary::Generation> generation,
                        std::unique_ptr<TransactionLogIterator> inner)
      : generation_(std::move(generation)), inner_(std::move(inner)) {}
  bool Valid() override { return inner_->Valid(); }
  void Next() override { inner_->Next(); }
  Status status() override { return inner_->status(); }
  BatchResult GetBatch() override { return inner_->GetBatch(); }

 private:
  std::shared_ptr<DBSecondary::Generation> generation_;  // first: outlives inner_, its borrower
  std::unique_ptr<TransactionLogIterator> inner_;
};

}  // namespace

Status DBSecondary::GetUpdatesSince(uint64_t seq, std::unique_ptr<TransactionLogIterator>* iter,
                                    const TransactionLogIterator::ReadOptions& read_options) {
  if (iter == nullptr) return Status::InvalidArgument("GetUpdatesSince: iter is null");
  iter->reset();
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  std::unique_ptr<TransactionLogIterator> inner;
  Status s = gen->db->GetUpdatesSince(seq, &inner, read_options);
  if (!s.ok()) return s;
  *iter = std::make_unique<GenerationWalIterator>(std::move(gen), std::move(inner));
  return Status::OK();
}

void DBSecondary::GetLiveFilesMetaData(std::vector<LiveFileMetaData>* metadata) {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) {
    if (metadata != nullptr) metadata->clear();
    return;
  }
  gen->db->GetLiveFilesMetaData(metadata);
}

Status DBSecondary::VerifyChecksum(const ReadOptions& options) {
  ReadOptions inner;
  std::shared_ptr<Generation> gen = ForRead(options, &inner);
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  return gen->db->VerifyChecksum(inner);
}

Status DBSecondary::VerifyChecksum(const VerifyChecksumOptions& options) {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return Status::ShutdownInProgress("the DB is closed");
  return gen->db->VerifyChecksum(options);
}

void DBSecondary::LogInfo(std::string_view message) {
  info_log_->Log("%.*s", static_cast<int>(message.size()), message.data());
}

Options DBSecondary::GetOptions(ColumnFamilyHandle* column_family) const {
  std::shared_ptr<Generation> gen = Current();
  size_t index = 0;
  if (!IndexOf(column_family, &index)) index = 0;
  if (gen == nullptr) return Options(db_options_, families_.at(index).options);
  return gen->db->GetOptions(gen->handles[index]);
}

DBOptions DBSecondary::GetDBOptions() const {
  std::shared_ptr<Generation> gen = Current();
  if (gen == nullptr) return db_options_;
  return gen->db->GetDBOptions();
}

uint64_t DBSecondary::GetLatestSequenceNumber() const {
  std::shared_ptr<Generation> gen = Current();
  return gen == nullptr ? 0 : gen->db->GetLatestSequenceNumber();
}

// ---- Handles

ColumnFamilyHandle* DBSecondary::DefaultColumnFamily() const { return default_handle_.get(); }

Status DBSecondary::DestroyColumnFamilyHandle(ColumnFamilyHandle* column_family) {
  if (column_family == nullptr || column_family == default_handle_.get()) return Status::OK();
  size_t index = 0;
  if (!IndexOf(column_family, &index)) {
    return Status::InvalidArgument("DestroyColumnFamilyHandle: a handle of another DB");
  }
  delete column_family;
  return Status::OK();
}

// ---- Refused: a secondary never writes

Status DBSecondary::CreateColumnFamily(const ColumnFamilyOptions&, const std::string&,
                                       ColumnFamilyHandle** handle) {
  if (handle != nullptr) *handle = nullptr;
  return NotSupportedInSecondary();
}
Status DBSecondary::DropColumnFamily(ColumnFamilyHandle*) { return NotSupportedInSecondary(); }
Status DBSecondary::Put(const WriteOptions&, ColumnFamilyHandle*, std::string_view,
                        std::string_view) {
  return NotSupportedInSecondary();
}
Status DBSecondary::Delete(const WriteOptions&, ColumnFamilyHandle*, std::string_view) {
  return NotSupportedInSecondary();
}
Status DBSecondary::SingleDelete(const WriteOptions&, ColumnFamilyHandle*, std::string_view) {
  return NotSupportedInSecondary();
}
Status DBSecondary::DeleteRange(const WriteOptions&, ColumnFamilyHandle*, std::string_view,
                                std::string_view) {
  return NotSupportedInSecondary();
}
Status DBSecondary::Merge(const WriteOptions&, ColumnFamilyHandle*, std::string_view,
                          std::string_view) {
  return NotSupportedInSecondary();
}
Status DBSecondary::Write(const WriteOptions&, WriteBatch*) { return NotSupportedInSecondary(); }
Status DBSecondary::Flush(const FlushOptions&, ColumnFamilyHandle*) {
  return NotSupportedInSecondary();
}
Status DBSecondary::Flush(const FlushOptions&, const std::vector<ColumnFamilyHandle*>&) {
  return NotSupportedInSecondary();
}
Status DBSecondary::CompactRange(const CompactRangeOptions&, ColumnFamilyHandle*,
                                 const std::string_view*, const std::string_view*) {
  return NotSupportedInSecondary();
}
Status DBSecondary::DeleteFilesInRange(ColumnFamilyHandle*, const std::string_view*,
                                       const std::string_view*) {
  return NotSupportedInSecondary();
}
Status DBSecondary::IngestExternalFile(ColumnFamilyHandle*, const std::vector<std::string>&,
                                       const IngestExternalFileOptions&) {
  return NotSupportedInSecondary();
}
Status DBSecondary::FlushWAL(bool) { return NotSupportedInSecondary(); }
Status DBSecondary::DisableFileDeletions() { return NotSupportedInSecondary(); }
Status DBSecondary::EnableFileDeletions(bool) { return NotSupportedInSecondary(); }
Status DBSecondary::SetOptions(ColumnFamilyHandle*,
                               const std::unordered_map<std::string, std::string>&) {
  return NotSupportedInSecondary();
}
Status DBSecondary::SetDBOptions(const std::unordered_map<std::string, std::string>&) {
  return NotSupportedInSecondary();
}
Status DBSecondary::Resume() { return Status::OK(); }  // a secondary has no background error

}  // namespace shale
