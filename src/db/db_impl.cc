// DBImpl: construction, Close, snapshots, Flush, options and the calls that belong to later
// issues. Properties are in db_impl_properties.cc.
#include "db/db_impl.h"

#include "options/dynamic_options.h"

#include <sys/resource.h>

#include <algorithm>

#include "base/filename.h"
#include "options/options_sanitize.h"
#include "options/options_validate.h"
#include "util/clock.h"

namespace shale {
namespace {

// The block cache a DB makes for itself when the options name none (RocksDB's size).
constexpr size_t kDefaultBlockCacheBytes = 8 << 20;

// Of max_open_files, what the DB keeps for its own files: WAL, MANIFEST, LOG, LOCK, directory,
// slack (RocksDB's kNumNonTableCacheFiles).
constexpr int kReservedFiles = 10;

// How many tables the table cache keeps parsed at most (their footer, index, filter,
// properties and range deletions in memory): max_open_files minus the DB's reserve, as
// RocksDB's table cache, so the option bounds the readers' memory; -1: every live table stays
// parsed (TableCache::kUnlimited). Not capped by RLIMIT_NOFILE: a parsed table holds no
// descriptor (table_cache.h).
size_t ParsedTableCapacity(int max_open_files) {
  if (max_open_files < 0) return TableCache::kUnlimited;
  return static_cast<size_t>(std::max(max_open_files - kReservedFiles, 1));
}

// How many table file descriptors the table cache's pool keeps open at most: max_open_files
// minus what the DB needs for itself, but never more than half of the process's
// file-descriptor limit (read now), so that flushes, compactions and the WAL always find a
// descriptor. -1: that half.
size_t TableFileDescriptors(int max_open_files) {
  size_t safe_share = 4096;
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    safe_share = std::max<size_t>(limit.rlim_cur / 2, 16);
  }
  if (max_open_files < 0) return safe_share;
  return std::min<size_t>(std::max(max_open_files - kReservedFiles, 1), safe_share);
}


}  // namespace

DBImpl::DBImpl(const Options& options, const std::string& dbname, bool read_only)
    : dbname_(dbname),
      read_only_(read_only),
      icmp_(options.comparator),
      fs_(options.file_system.get()),
      statistics_(options.statistics.get()),
      open_time_micros_(NowMicros()),
      db_options_(options),
      fs_holder_(options.file_system),
      statistics_holder_(options.statistics) {
  // The block cache: the one the options name, else (unless no_block_cache) a private 8 MiB
  // one as RocksDB makes. Options were validated: a named cache is an LRUCache.
  const TableOptions& topts = options.table_options;
  block_cache_ = topts.block_cache;
  if (block_cache_ == nullptr && !topts.no_block_cache) {
    block_cache_ = NewLRUCache(kDefaultBlockCacheBytes);
  }
  uint64_t cache_id_prefix = 0;
  block_source_ = UncachedBlockSource();
  if (LRUCache* lru = LRUCache::FromCache(block_cache_.get())) {
    block_source_ = lru;
    cache_id_prefix = lru->NewCacheIdPrefix();
  }
  TableReaderOptions reader_options;
  reader_options.cache_index_and_filter_blocks = topts.cache_index_and_filter_blocks;
  reader_options.pin_top_level_index_and_filter = topts.pin_top_level_index_and_filter;
  // Two budgets (doc/table_cache.md): parsed tables, bounded by a positive max_open_files (an
  // evicted table that a Get or an iterator holds lives on, without a descriptor, until they
  // let go), all of them with -1; and descriptors, taken only for a block read, bounded by
  // max_open_files and the process's limit (issue 19, finding 11).
  table_cache_ = std::make_unique<TableCache>(
      dbname_, fs_, &icmp_, block_source_, reader_options,
      ParsedTableCapacity(options.max_open_files), cache_id_prefix,
      topts.cache_index_and_filter_blocks && topts.pin_l0_filter_and_index_blocks_in_cache,
      TableFileDescriptors(options.max_open_files),
      // Only a cache the options name: the private 8 MiB one is no budget anyone chose, and
      // the tables of a DB past ~1 GB would leave it no room for a single block.
      topts.charge_table_reader_memory && topts.block_cache != nullptr &&
          block_source_ != UncachedBlockSource());
  VersionSetOptions vopts;
  vopts.max_manifest_file_size = options.max_manifest_file_size;
  versions_ = std::make_unique<VersionSet>(dbname_, fs_, icmp_, options.num_levels, vopts);
  flush_pool_ = std::make_unique<ThreadPool>(1, "shale:flush");
  compaction_pool_ = std::make_unique<ThreadPool>(std::max(1, options.max_background_jobs - 1),
                                                  "shale:compact");
}

DBImpl::~DBImpl() {
  // Handles released from now on (or after the DB is gone) do not call back into it; one
  // releasing now is waited for.
  handle_owner_->Detach();
  CloseImpl(/*check_snapshots=*/false).PermitUncheckedError();
  table_cache_.reset();  // before versions_ (see CloseImpl)
}

Status DBImpl::Close() { return CloseImpl(/*check_snapshots=*/true); }

DBImpl::InFlightCall::InFlightCall(DBImpl* db, bool mu_held) : db_(db), mu_held_(mu_held) {
  if (!mu_held_) db_->mu_.Lock();
  db_->mu_.AssertHeld();
  if (db_->shutting_down_ || db_->closed_) {
    status_ = Status::ShutdownInProgress(db_->closed_ ? "the DB is closed" : "the DB is closing");
  } else {
    db_->calls_in_flight_++;
  }
  if (!mu_held_) db_->mu_.Unlock();
}

DBImpl::InFlightCall::~InFlightCall() {
  if (!status_.ok()) return;
  if (!mu_held_) db_->mu_.Lock();
  db_->mu_.AssertHeld();
  // Close waits on bg_cv_ for the last call to end.
  if (--db_->calls_in_flight_ == 0 && db_->shutting_down_) db_->bg_cv_.SignalAll();
  if (!mu_held_) db_->mu_.Unlock();
}

Status DBImpl::FlushAllForCloseLocked() {
  mu_.AssertHeld();
  Status s;
  std::vector<ColumnFamilyData*> families;
  for (const auto& [id, cfd] : column_families_) families.push_back(cfd.get());
  for (ColumnFamilyData* cfd : families) {
    if (s.ok() && cfd->mems.mem()->num_entries() > 0) s = SwitchMemTable(cfd);
  }
  while (s.ok()) {
    ColumnFamilyData* cfd = NextFamilyToFlushLocked();
    if (cfd == nullptr) break;
    std::vector<MemTable*> to_unref;
    std::vector<SuperVersion*> old_svs;
    s = FlushLocked(FlushGroupLocked(cfd), &to_unref, &old_svs);
    if (!s.ok()) {
      RecordBackgroundErrorLocked(s, "flush at Close");
      break;
    }
    mu_.Unlock();
    for (SuperVersion* sv : old_svs) UnrefSuperVersion(sv);
    for (MemTable* m : to_unref) m->Unref();
    mu_.Lock();
  }
  return s;
}

Status DBImpl::CloseImpl(bool check_snapshots) {
  Status result;
  bool opened = false;  // opened_, read under mu_ for the steps below that run without it
  bool flushed_at_close = false;  // Close flushed every memtable (below)
  std::string kept_in_wal;        // why Close left logged writes in the WAL, for the info LOG
  {
    MutexLock lock(&mu_);
    opened = opened_;
    if (shutting_down_) {
      // Closed, or another Close is under way: done when it has finished, LOCK released (a
      // caller may reopen the DB as soon as this returns).
      while (!close_finished_) bg_cv_.Wait(&mu_);
      return Status::OK();
    }
    if (check_snapshots && !snapshots_.empty()) {
      return Status::Aborted("Close: " + std::to_string(snapshots_.size()) +
                             " snapshots are still held; release them first");
    }
    // From here on: new calls are refused (InFlightCall); stalled writers, Flush and
    // CompactRange calls waiting for background work, and queued writers give up with
    // ShutdownInProgress; running compactions stop within a few thousand entries and discard
    // their output; queued ones end at once; no background work is scheduled. Nothing waits
    // for a backlog.
    shutting_down_ = true;
    stop_compactions_.store(true, std::memory_order_relaxed);
    // A compaction whose input reads wait for file descriptors held outside the table file
    // pool (up to 3 s for each input) fails at once instead, as a descriptor shortage, which
    // is no background error (issue 19, pool review 2, finding 2).
    table_cache_->CancelWaits();
    bg_cv_.SignalAll();
    while (calls_in_flight_ > 0 || flush_scheduled_ || bg_compactions_scheduled_ > 0 ||
           manual_compactions_ > 0) {
      bg_cv_.Wait(&mu_);
    }
    // Invariant from here: nothing else touches the DB's state. No call is in flight, so the
    // write queue is empty (every writer is an in-flight call) and stays so; no background job
    // is scheduled or can be. Close still takes the queue's front (at once) for its switch.
    //
    // Writes made with disableWAL live only in memtables: they are flushed (with every memtable
    // before them, oldest first) in this thread, whatever it takes. Unless
    // avoid_flush_during_shutdown, logged writes are flushed too while the memtables hold at
    // most kCloseFlushBytes, so that the next open has no WAL to replay however large the last
    // session's backlog, and Close stays prompt (issue 20). A read-only DB (a secondary's
    // generations included) writes nothing. A failed flush leaves the WALs in place (only a
    // successful flush moves a family's log number past them, and only then are they
    // deleted below): every write is still in a WAL, and Close returns the error.
    bool unlogged = false;
    bool has_writes = false;
    size_t memtable_bytes = 0;
    if (opened_) {  // a failed open may have families without memtables
      for (const auto& [id, cfd] : column_families_) {
        unlogged = unlogged || cfd->mems.HasUnloggedWrites();
        has_writes =
            has_writes || cfd->mems.mem()->num_entries() > 0 || cfd->mems.NumImmutable() > 0;
        memtable_bytes += cfd->mems.MemoryUsage();
      }
    }
    const bool flush_logged = !read_only_ && !db_options_.avoid_flush_during_shutdown &&
                              has_writes && memtable_bytes <= kCloseFlushBytes;
    if (opened_ && (unlogged || flush_logged) && bg_error_.ok()) {
      WriteQueue::Front front(&write_queue_, &mu_);
      result = FlushAllForCloseLocked();
      flushed_at_close = result.ok();
    } else if (opened_ && has_writes && !read_only_) {
      kept_in_wal =
          std::to_string(memtable_bytes) + " bytes of memtables stay in the WAL: " +
          (!bg_error_.ok() ? "the DB is in an error state"
           : db_options_.avoid_flush_during_shutdown
               ? "avoid_flush_during_shutdown is set"
               : "more than Close flushes (" + std::to_string(kCloseFlushBytes) + " bytes)");
    }
    if (result.ok() && !bg_error_.ok()) result = bg_error_;
  }
  if (!kept_in_wal.empty() && info_log_ != nullptr) {
    info_log_->Log("Close: %s", kept_in_wal.c_str());
  }
  // The WALs the flush left obsolete go now, so that the next open does not even list them.
  if (flushed_at_close) DeleteObsoleteFiles();
  // The stats dump takes mu_: stopped without it. It wakes at once, whatever the period.
  if (stats_dumper_ != nullptr) stats_dumper_->Stop();
  flush_pool_.reset();  // joins the threads
  compaction_pool_.reset();
  if (log_ != nullptr) {
    // The WAL holds the memtables' writes: make it durable before letting go.
    Status s = log_->Sync();
    Status c = log_->Close();
    if (s.ok()) s = c;
    if (result.ok() && opened) result = s;
    log_.reset();
  }
  std::vector<SuperVersion*> svs;
  std::vector<MemTable*> mems;
  {
    MutexLock lock(&mu_);
    auto release = [&](ColumnFamilyData* cfd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      ScrapeSuperVersionSlotsLocked(cfd);
      cfd->super_version_number.store(0, std::memory_order_release);
      if (cfd->super_version != nullptr) svs.push_back(cfd->super_version);
      cfd->super_version = nullptr;
      cfd->mems.ReleaseAll(&mems);
    };
    for (const auto& [id, cfd] : column_families_) release(cfd.get());
    for (const auto& cfd : dropped_families_) release(cfd.get());
    closed_ = true;
  }
  for (SuperVersion* sv : svs) UnrefSuperVersion(sv);
  for (MemTable* m : mems) m->Unref();
  {
    // The tables point reads pinned (FileMetaData::table_pin) go with the table cache's
    // below, but for files a read in progress or an iterator can still reach (those go as the
    // last such reader lets go: UnrefSuperVersion). A Get in progress may still pin a table
    // until the table cache closes; that pin, too, goes with its last reader. (A Version an
    // iterator holds keeps the pins of all its files, so with an iterator alive at Close the
    // table file pool keeps the descriptors of those tables until the iterator goes.)
    std::vector<std::shared_ptr<const CachedTable>> unpinned;  // let go of after the lock
    MutexLock lock(&mu_);
    versions_->ReleaseTablePinsOfUnreadFiles(/*dropping=*/nullptr, &unpinned);
  }
  // The table cache itself stays until the destructor: a read that took its SuperVersion
  // before Close (a Get, or an iterator not yet destroyed) still reads the tables it holds.
  // Closed before the LOCK is released: the cached tables are let go (with their descriptors),
  // the tables readers hold keep theirs (opened now if need be) until the last holder lets go,
  // so they stay readable even if another instance deletes the files; and no table is opened
  // from now on (Find: ShutdownInProgress), so no descriptor outlives Close and its readers.
  table_cache_->Close();
  if (info_log_ != nullptr) {
    info_log_->Log("closed: %s", result.ToString().c_str());
  }
  if (db_lock_ != nullptr) {
    Status s = fs_->UnlockFile(std::move(db_lock_));
    if (result.ok() && opened) result = s;
  }
  MutexLock lock(&mu_);
  close_finished_ = true;
  bg_cv_.SignalAll();  // concurrent Close calls
  return result;
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock lock(&mu_);
  // A snapshot taken now would see a sequence-0 ingested file appear (db_impl_ingest.cc).
  while (snapshot_blocking_ingestions_ > 0) ingestion_cv_.Wait(&mu_);
  return snapshots_.New(versions_->LastSequence());
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  MutexLock lock(&mu_);
  snapshots_.Delete(static_cast<const SnapshotImpl*>(snapshot));
}

Status DBImpl::Flush(const FlushOptions& options, ColumnFamilyHandle* column_family) {
  return Flush(options, std::vector<ColumnFamilyHandle*>{column_family});
}

Status DBImpl::Flush(const FlushOptions& options,
                     const std::vector<ColumnFamilyHandle*>& column_families) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  MutexLock lock(&mu_);
  InFlightCall call(this, /*mu_held=*/true);
  if (!call.status().ok()) return call.status();
  std::vector<std::shared_ptr<ColumnFamilyData>> families;
  for (ColumnFamilyHandle* h : column_families) {
    ColumnFamilyData* cfd = nullptr;
    Status s = LiveFamilyLocked(h, "Flush", &cfd);
    if (!s.ok()) return s;
    families.push_back(column_families_.at(cfd->id()));
  }
  if (db_options_.atomic_flush) {
    // Every family is flushed together (RocksDB's atomic_flush): the first switch retires all
    // those holding writes (SwitchMemTable).
    families.clear();
    for (const auto& [id, cfd] : column_families_) families.push_back(cfd);
  }
  // Each family's memtable is retired (at the write queue's front), then the flushes are
  // waited for together.
  std::vector<std::pair<ColumnFamilyData*, uint64_t>> waits;
  for (const auto& cfd : families) {
    if (cfd->dropped) continue;
    if (!options.allow_write_stall) {
      bool flush_needed = true;
      Status s = WaitUntilFlushWouldNotStallLocked(cfd.get(), &flush_needed);
      if (!s.ok()) return s;
      if (!flush_needed) continue;
    }
    WriteQueue::Front front(&write_queue_, &mu_);
    if (cfd->dropped) continue;
    Status s = MakeRoomForWrite(/*force=*/cfd.get());
    const uint64_t up_to = cfd->mems.log_number();
    front.Release();
    if (!s.ok()) return s;
    waits.emplace_back(cfd.get(), up_to);
  }
  if (!options.wait) return Status::OK();
  for (const auto& [cfd, up_to] : waits) {
    Status s = WaitForFlushLocked(cfd, up_to);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DBImpl::SetOptions(ColumnFamilyHandle* column_family,
                          const std::unordered_map<std::string, std::string>& changes) {
  if (changes.empty()) return Status::InvalidArgument("SetOptions: no options given");
  return ChangeOptions(column_family, changes);
}

Status DBImpl::SetDBOptions(const std::unordered_map<std::string, std::string>& changes) {
  if (changes.empty()) return Status::InvalidArgument("SetDBOptions: no options given");
  return ChangeOptions(nullptr, changes);
}

Status DBImpl::ChangeOptions(ColumnFamilyHandle* column_family,
                             const std::unordered_map<std::string, std::string>& changes) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  const char* what = column_family != nullptr ? "SetOptions" : "SetDBOptions";
  std::string text;
  for (const auto& [name, value] : changes) text += name + "=" + value + ";";
  // One change at a time: the options cannot change between the validation below and the
  // install, while the new OPTIONS file is written without mu_ held. Lock order:
  // set_options_mu_, then mu_.
  MutexLock serial(&set_options_mu_);
  // Registered for the whole call, the unlocked file write included: Close waits for it.
  InFlightCall call(this, /*mu_held=*/false);
  if (!call.status().ok()) return call.status();
  // The new options of every family they change (one for SetOptions, all for SetDBOptions),
  // and the DB's.
  std::map<uint32_t, Options> updated;
  DBOptions db_updated;
  DBOptions file_db_options;
  std::vector<ColumnFamilyDescriptor> file_families;
  uint64_t number = 0;
  std::vector<std::string> adjusted;
  {
    MutexLock lock(&mu_);
    if (closed_ || shutting_down_) return Status::ShutdownInProgress("the DB is closing");
    Status s;
    if (column_family != nullptr) {
      ColumnFamilyData* cfd = nullptr;
      s = LiveFamilyLocked(column_family, what, &cfd);
      if (!s.ok()) return s;
      ColumnFamilyOptions cf_updated;
      s = ApplyColumnFamilyOptionChanges(cfd->options, changes, &cf_updated);
      if (!s.ok()) return s;
      updated[cfd->id()] = Options(db_options_, cf_updated);
      db_updated = db_options_;
    } else {
      s = ApplyDBOptionChanges(db_options_, changes, &db_updated);
      if (!s.ok()) return s;
      for (const auto& [id, cfd] : column_families_) {
        updated[id] = Options(db_updated, cfd->options);
      }
    }
    for (auto& [id, options] : updated) {
      SanitizeOptions(&options, &adjusted);
      s = ValidateOptions(options);
      if (s.ok()) s = CheckSupportedNow(options);
      if (!s.ok()) return s;
    }
    // Sanitizing may adjust the DB's part (the same way in every family).
    db_updated = updated.begin()->second;
    CollectOptionsLocked(&file_db_options, &file_families);
    file_db_options = db_updated;
    for (ColumnFamilyDescriptor& d : file_families) {
      uint32_t id = 0;
      if (versions_->FindColumnFamily(d.name, &id) && updated.count(id) > 0) {
        d.options = updated[id];
      }
    }
    number = versions_->NewFileNumber();
    options_file_writing_ = number;
  }
  // All or none: the new values go live only once their OPTIONS file is durable; a failed
  // write leaves the old values live and the old file the latest.
  Status s = WriteOptionsFileNumbered(file_db_options, file_families, number);
  if (!s.ok()) {
    info_log_->Log("%s: %s not applied: writing the OPTIONS file failed: %s", what, text.c_str(),
                   s.ToString().c_str());
    {
      MutexLock lock(&mu_);
      options_file_writing_ = 0;
    }
    // WriteOptionsFileNumbered could not remove the file if it was renamed (say the directory
    // sync and then the removal failed): it must not stay the latest OPTIONS file.
    DeleteObsoleteFiles();
    return s;
  }
  {
    MutexLock lock(&mu_);
    db_options_ = db_updated;
    for (const auto& [id, options] : updated) {
      auto it = column_families_.find(id);
      if (it != column_families_.end()) it->second->options = options;  // not dropped meanwhile
    }
    options_file_number_ = number;
    options_file_writing_ = 0;
    info_log_->Log("%s: %s", what, text.c_str());
    for (const std::string& note : adjusted) {
      info_log_->Log("option adjusted as RocksDB does: %s", note.c_str());
    }
    RecalculateWriteStallLocked();
    MaybeScheduleCompactionLocked();
  }
  DeleteObsoleteFiles();  // the previous OPTIONS file
  return Status::OK();
}

Status DBImpl::Resume() {
  MutexLock lock(&mu_);
  InFlightCall call(this, /*mu_held=*/true);
  if (!call.status().ok()) return call.status();
  if (bg_error_.ok()) return Status::OK();
  // Only the write queue's front may replace log_ and the memtable.
  WriteQueue::Front front(&write_queue_, &mu_);
  Status s = shutting_down_ ? Status::ShutdownInProgress("the DB is closing")
                            : ResumeAtFrontLocked();
  // Writers stay out (this call keeps the queue's front) until every memtable retired so far
  // is flushed, as RocksDB flushes before it clears the error. Above all the one retired with
  // a failed WAL: its writes may exist only in that unsynced WAL, and a synced write to the new
  // WAL acknowledged before the flush could survive a power loss that loses them (the
  // recovered state would not be a prefix of the acknowledged writes). If the flush fails,
  // the error is back and the waiting writers fail with it.
  if (s.ok()) {
    std::vector<std::shared_ptr<ColumnFamilyData>> families;
    for (const auto& [id, cfd] : column_families_) families.push_back(cfd);
    for (const auto& cfd : families) {
      if (s.ok()) s = WaitForFlushLocked(cfd.get(), cfd->mems.log_number());
    }
  }
  front.Release();
  return s;
}

Options DBImpl::GetOptions(ColumnFamilyHandle* column_family) const {
  MutexLock lock(&mu_);
  ColumnFamilyData* cfd = FamilyOf(column_family);
  return cfd != nullptr ? cfd->options : default_cf_->options;
}

DBOptions DBImpl::GetDBOptions() const {
  MutexLock lock(&mu_);
  return db_options_;
}

Status DBImpl::GetApproximateSizes(ColumnFamilyHandle* column_family, const Range* ranges, int n,
                                   uint64_t* sizes) {
  ColumnFamilyData* cfd = FamilyOf(column_family);
  if (cfd == nullptr) {
    return Status::InvalidArgument("GetApproximateSizes: null or foreign column family handle");
  }
  SuperVersion* sv = RefSuperVersion(cfd, ReadOptions(), nullptr);
  if (sv == nullptr) return Status::ShutdownInProgress("the DB is closed");
  const Comparator* ucmp = icmp_.user_comparator();
  Status s;
  for (int i = 0; i < n && s.ok(); i++) {
    const std::string start = MakeInternalKey(ranges[i].start, kMaxSequenceNumber,
                                              kValueTypeForSeek);
    const std::string limit = MakeInternalKey(ranges[i].limit, kMaxSequenceNumber,
                                              kValueTypeForSeek);
    uint64_t total = 0;
    for (int level = 0; level < sv->current->num_levels() && s.ok(); level++) {
      for (const FileMetaData* f : sv->current->files(level)) {
        if (ucmp->Compare(ExtractUserKey(f->largest), ranges[i].start) < 0 ||
            ucmp->Compare(ExtractUserKey(f->smallest), ranges[i].limit) >= 0) {
          continue;
        }
        std::shared_ptr<const CachedTable> table;
        s = table_cache_->Find(f->number, f->file_size, &table, -1, f->global_seqno);
        if (!s.ok()) break;
        const uint64_t a = table->reader->ApproximateOffsetOf(start);
        const uint64_t b = table->reader->ApproximateOffsetOf(limit);
        if (b > a) total += b - a;
      }
    }
    sizes[i] = total;
  }
  UnrefSuperVersion(sv);
  return s;
}

}  // namespace shale
