// DBImpl: the write path (see db_impl.h for the protocol).
#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/container/inlined_vector.h"
#include "absl/time/time.h"
#include "base/filename.h"
#include "base/size_limits.h"
#include "db/db_impl.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable_allocator.h"
#include "merge/merge_helper.h"
#include "util/kill_point.h"

namespace shale {

namespace {

// The column families a batch writes, and whether it merges in each.
struct FamilyUse {
  uint32_t id;
  bool merges;
};

// Checks that a batch parses, holds as many records as its header says, and keeps the size
// limits of shale/limits.h as a whole and in every record (a batch made from serialized
// contents was never checked record by record); lists in *families the families it writes
// (checked against the DB by the caller).
using FamilyUses = absl::InlinedVector<FamilyUse, 2>;

Status ValidateBatch(const WriteBatch& batch, FamilyUses* families) {
  std::string_view contents = WriteBatchInternal::Contents(batch);
  if (contents.size() < WriteBatchInternal::kHeader) {
    return Status::Corruption("write batch: shorter than its header");
  }
  Status s = CheckBatchSize("Write", contents.size());
  if (!s.ok()) return s;
  contents.remove_prefix(WriteBatchInternal::kHeader);
  uint32_t found = 0;
  while (!contents.empty()) {
    WriteBatchRecord record;
    s = ReadWriteBatchRecord(&contents, &record);
    if (!s.ok()) return s;
    s = WriteBatchInternal::CheckRecordSizes("Write", record.type, record.key, record.value);
    if (!s.ok()) return s;
    const bool merges = record.type == kTypeMerge;
    if (families->empty() || families->back().id != record.column_family) {
      bool known = false;
      for (FamilyUse& f : *families) {
        if (f.id == record.column_family) {
          f.merges = f.merges || merges;
          known = true;
        }
      }
      if (!known) families->push_back({record.column_family, merges});
    } else {
      families->back().merges = families->back().merges || merges;
    }
    found++;
  }
  if (found != WriteBatchInternal::Count(batch)) {
    return Status::Corruption("write batch: record count does not match its header");
  }
  return Status::OK();
}

}  // namespace

Status DBImpl::Put(const WriteOptions& options, ColumnFamilyHandle* column_family,
                   std::string_view key, std::string_view value) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (FamilyOf(column_family) == nullptr) {
    return Status::InvalidArgument("Put: null or foreign column family handle");
  }
  // Checked before the batch reserves room for the value.
  Status s = WriteBatchInternal::CheckRecordSizes("Put", kTypeValue, key, value);
  if (!s.ok()) return s;
  WriteBatch batch(key.size() + value.size() + 24);
  s = batch.Put(column_family, key, value);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::Delete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                      std::string_view key) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (FamilyOf(column_family) == nullptr) {
    return Status::InvalidArgument("Delete: null or foreign column family handle");
  }
  WriteBatch batch;
  Status s = batch.Delete(column_family, key);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::SingleDelete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                            std::string_view key) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (FamilyOf(column_family) == nullptr) {
    return Status::InvalidArgument("SingleDelete: null or foreign column family handle");
  }
  WriteBatch batch;
  Status s = batch.SingleDelete(column_family, key);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::DeleteRange(const WriteOptions& options, ColumnFamilyHandle* column_family,
                           std::string_view begin_key, std::string_view end_key) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (FamilyOf(column_family) == nullptr) {
    return Status::InvalidArgument("DeleteRange: null or foreign column family handle");
  }
  Status s = CheckRangeKeySizes("DeleteRange", begin_key.size(), end_key.size());
  if (!s.ok()) return s;
  const int c = icmp_.user_comparator()->Compare(begin_key, end_key);
  if (c > 0) return Status::InvalidArgument("DeleteRange: end key is before begin key");
  if (c == 0) return Status::OK();
  WriteBatch batch;
  s = batch.DeleteRange(column_family, begin_key, end_key);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

Status DBImpl::Merge(const WriteOptions& options, ColumnFamilyHandle* column_family,
                     std::string_view key, std::string_view value) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  ColumnFamilyData* cfd = FamilyOf(column_family);
  if (cfd == nullptr) return Status::InvalidArgument("Merge: null or foreign column family handle");
  if (cfd->merge_operator() == nullptr) {
    return Status::InvalidArgument(
        "Merge: no merge operator is configured (Options::merge_operator) for column family \"" +
        cfd->name() + "\"");
  }
  Status s = WriteBatchInternal::CheckRecordSizes("Merge", kTypeMerge, key, value);
  if (!s.ok()) return s;
  WriteBatch batch(key.size() + value.size() + 24);
  s = batch.Merge(column_family, key, value);
  if (!s.ok()) return s;
  return Write(options, &batch);
}

bool DBImpl::MergeAtWriteTime(ColumnFamilyData* cfd, MemTable* mem,
                              size_t max_successive_merges, SequenceNumber sequence,
                              std::string_view key,
                              std::string_view operand, std::string* value) {
  if (max_successive_merges == 0 ||
      mem->CountSuccessiveMerges(key, max_successive_merges) < max_successive_merges) {
    return false;
  }
  // Everything before `sequence` is in `mem` or older sources (this writer is the memtable's
  // only writer, and the SuperVersion's active memtable is `mem`).
  ReadOptions ropts;
  SuperVersion* sv = RefSuperVersion(cfd, ropts, nullptr);
  std::string existing;
  Status s = GetImpl(ropts, *cfd, sv, sequence - 1, key, &existing);
  UnrefSuperVersion(sv);
  if (!s.ok() && !s.IsNotFound()) return false;  // keep the operand; the read will tell
  std::string_view existing_view(existing);
  s = FullMerge(cfd->merge_operator(), key, s.ok() ? &existing_view : nullptr, {operand}, value);
  // A merged value over the value limit could not be flushed: keep the operand instead.
  return s.ok() && value->size() <= kMaxValueSize;
}

Status DBImpl::Write(const WriteOptions& options, WriteBatch* updates) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (updates == nullptr) return Status::InvalidArgument("Write: null batch");
  if (options.sync && options.disableWAL) {
    return Status::InvalidArgument("Write: sync and disableWAL cannot both be set");
  }
  FamilyUses uses;
  Status s = ValidateBatch(*updates, &uses);
  if (!s.ok()) return s;
  if (updates->Count() == 0) return Status::OK();

  // The non-default families the batch names, held until the write is done (see below).
  // Declared before the lock, so released after it: a dropped family this write was the last
  // to hold is then freed (review 2, finding 4).
  struct NamedFamilies {
    DBImpl* db;
    absl::InlinedVector<std::shared_ptr<ColumnFamilyData>, 1> families;
    ~NamedFamilies() {
      bool dropped = false;
      for (const auto& f : families) dropped = dropped || f->dropped.load();
      families.clear();
      if (dropped) db->ReleaseDroppedFamilies();
    }
  } named{this, {}};
  MutexLock lock(&mu_);
  InFlightCall call(this, /*mu_held=*/true);
  if (!call.status().ok()) return call.status();
  // Checked before the batch is queued. A family dropped after this (DropColumnFamily waits
  // for the write queue's front) still takes the write: the write is ordered before the drop.
  // The families named are held until the write is done, so a dropped one is not freed (its
  // memtable still takes the records) even if its last handle goes meanwhile. (The default
  // family is never dropped.)
  for (const FamilyUse& use : uses) {
    auto it = column_families_.find(use.id);
    if (it == column_families_.end()) {
      return Status::InvalidArgument("Write: the batch writes column family id " +
                                     std::to_string(use.id) +
                                     ", which this DB does not have (or has dropped)");
    }
    if (use.id != 0) named.families.push_back(it->second);
    if (use.merges && it->second->merge_operator() == nullptr) {
      return Status::InvalidArgument("write batch: Merge needs a merge operator "
                                     "(Options::merge_operator is not set) in column family \"" +
                                     it->second->name() + "\"");
    }
  }
  WriteQueue::Front front(&write_queue_, &mu_, updates, options);
  if (!front.held()) {
    RecordTick(WRITE_DONE_BY_OTHER);
    return front.status();
  }
  RecordTick(WRITE_DONE_BY_SELF);

  s = MakeRoomForWrite(/*force=*/nullptr);
  if (s.ok()) {
    WriteBatch* group = front.BuildGroup();
    DelayWriteLocked(WriteBatchInternal::ByteSize(*group));
    const SequenceNumber first = versions_->LastSequence() + 1;
    WriteBatchInternal::SetSequence(group, first);
    const uint32_t count = WriteBatchInternal::Count(*group);
    const size_t bytes = WriteBatchInternal::ByteSize(*group);
    // Each family's active memtable, and what merging at write time needs of it. Families
    // are created and dropped at the write queue's front, so none changes while the group is
    // inserted. A batch checked before a drop of its family was queued may come after it: its
    // records go to the dropped family's memtable, which is discarded (the write is ordered
    // before the drop; recovery skips a dropped family's records). The shared_ptrs keep the
    // families (and so their memtables) alive while the mutex is released.
    // Live families cannot go while this writer holds the queue's front (a drop needs it);
    // dropped ones could be swept meanwhile, so they are held.
    struct Target {
      uint32_t id;
      ColumnFamilyData* cfd;
      MemTable* mem;
      size_t max_merges;
    };
    absl::InlinedVector<Target, 4> targets;
    absl::InlinedVector<std::shared_ptr<ColumnFamilyData>, 1> held;
    bool any_merge_at_write = false;
    auto add_target = [&](ColumnFamilyData* cfd) {
      if (cfd->mems.mem() == nullptr) return;  // a dropped family already released
      targets.push_back(
          Target{cfd->id(), cfd, cfd->mems.mem(), cfd->options.max_successive_merges});
      any_merge_at_write = any_merge_at_write || (cfd->options.max_successive_merges > 0 &&
                                                  cfd->merge_operator() != nullptr);
    };
    for (const auto& [id, cfd] : column_families_) add_target(cfd.get());
    for (const auto& cfd : dropped_families_) {
      held.push_back(cfd);
      add_target(cfd.get());
    }
    auto find_target = [&targets](uint32_t id) -> const Target* {
      for (const Target& t : targets) {
        if (t.id == id) return &t;
      }
      return nullptr;
    };
    const bool use_wal = !options.disableWAL;
    if (!use_wal) {
      // Conservative: every family may hold writes no WAL holds (Close flushes them).
      for (const auto& [id, cfd] : column_families_) cfd->mems.MarkUnloggedWrite();
    }
    {
      mu_.Unlock();
      Status wal_status;
      if (use_wal) wal_status = WriteGroupToWal(*group, options.sync);
      if (use_wal && wal_status.ok()) SHALE_KILL_POINT("wal.written");
      if (wal_status.ok()) {
        auto mem_for = [&find_target](uint32_t id) -> MemTable* {
          const Target* t = find_target(id);
          return t == nullptr ? nullptr : t->mem;
        };
        const bool merge_at_write = any_merge_at_write && group->HasMerge();
        s = WriteBatchInternal::InsertInto(
            *group, mem_for, /*skip_families_without_memtable=*/false,
            [&](uint32_t id, SequenceNumber seq, std::string_view key, std::string_view operand,
                std::string* value) {
              if (!merge_at_write) return false;
              const Target* t = find_target(id);
              if (t == nullptr || t->max_merges == 0 || t->cfd->merge_operator() == nullptr) {
                return false;
              }
              return MergeAtWriteTime(t->cfd, t->mem, t->max_merges, seq, key, operand, value);
            });
      }
      mu_.Lock();
      if (!wal_status.ok()) {
        // The WAL may hold part of the group: nothing more may be appended after it.
        RecordBackgroundErrorLocked(wal_status, "WAL write");
        s = wal_status;
        // The group's sequence numbers are used up: its record may be in the WAL, and a later
        // write replayed after it must not reuse them.
        versions_->SetLastSequence(first + count - 1);
      } else if (!s.ok() && use_wal) {
        // The group is in the WAL but not in the memtable (InsertInto refuses a batch only
        // before adding any of it, and Write validated it, so this should not happen): its
        // sequence numbers are used up as above, and the DB stops writing so the memtable and
        // the WAL cannot disagree further; reopening replays the group.
        RecordBackgroundErrorLocked(s, "memtable insert after the WAL write");
        versions_->SetLastSequence(first + count - 1);
      }
    }
    if (s.ok()) {
      versions_->SetLastSequence(first + count - 1);
      writes_ += 1;
      write_groups_ += 1;
      user_bytes_written_ += bytes - WriteBatchInternal::kHeader;
      if (use_wal) wal_bytes_ += bytes;
      RecordTick(NUMBER_KEYS_WRITTEN, count);
      RecordTick(BYTES_WRITTEN, bytes - WriteBatchInternal::kHeader);
    }
  }

  // Hand the outcome to every writer of the group and wake the next leader.
  front.Release(s);
  return s;
}

Status DBImpl::FlushWAL(bool sync) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  MutexLock lock(&mu_);
  InFlightCall call(this, /*mu_held=*/true);
  if (!call.status().ok()) return call.status();
  // WriteGroupToWal flushes every group to the file before the write is acknowledged: only
  // the sync is left to do.
  if (!sync) return Status::OK();
  // At the front no write is appending to log_ (the front owns it), and every write
  // acknowledged before this call is in it; an older WAL was synced when it was switched.
  WriteQueue::Front front(&write_queue_, &mu_);
  Status s = bg_error_;
  if (s.ok()) {
    mu_.Unlock();
    s = log_->Sync();
    RecordTick(WAL_FILE_SYNCED);
    mu_.Lock();
    // A failed sync leaves the WAL's durable contents unknown, as for a synced write.
    if (!s.ok()) RecordBackgroundErrorLocked(s, "WAL sync (FlushWAL)");
  }
  front.Release();
  return s;
}

Status DBImpl::WriteGroupToWal(const WriteBatch& group, bool sync) {
  Status s = log_->AddRecord(WriteBatchInternal::Contents(group));
  if (s.ok()) SHALE_KILL_POINT("wal.record_added");
  if (s.ok()) s = log_->Flush();
  if (s.ok() && sync) {
    const auto start = std::chrono::steady_clock::now();
    s = log_->Sync();
    RecordTick(WAL_FILE_SYNCED);
    if (statistics_ != nullptr) {
      statistics_->measureTime(
          WAL_FILE_SYNC_MICROS,
          std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - start)
              .count());
    }
  }
  RecordTick(WAL_FILE_BYTES, WriteBatchInternal::ByteSize(group));
  return s;
}

size_t DBImpl::MemTableBudgetLocked() const {
  if (db_options_.db_write_buffer_size == 0) return 0;
  return std::max(db_options_.db_write_buffer_size, kMinMemTableBudget);
}

MemTable* DBImpl::NewMemTable(const ColumnFamilyData& cfd) const {
  const Options& cf_options = cfd.options;
  MemTable::Options mopts;
  mopts.allocator = MemtableAllocator::Get();
  // Blocks of 1/8 of the write buffer (RocksDB's choice), so a small buffer is not one block;
  // the same for the global budget when it is smaller, so that an empty memtable's first
  // block never fills the budget by itself (every write would then cost a flush).
  size_t buffer = cf_options.write_buffer_size;
  const size_t budget = MemTableBudgetLocked();
  if (budget > 0) buffer = std::min(buffer, budget);
  mopts.arena_block_size = std::clamp<size_t>(buffer / 8, 4096, Arena::kDefaultBlockSize);
  mopts.earliest_sequence = versions_->LastSequence() + 1;
  mopts.track_successive_merges =
      cfd.merge_operator() != nullptr && cf_options.max_successive_merges > 0;
  auto* mem = new MemTable(icmp_, mopts);
  mem->Ref();
  return mem;
}

Status DBImpl::MakeRoomForWrite(ColumnFamilyData* force) {
  bool stalled = false;
  WriteController::Cause stall_cause = WriteController::Cause::kMemtableLimit;
  uint32_t stall_family = 0;  // the family whose state the writers waited on
  const auto stall_start = std::chrono::steady_clock::now();
  Status s;
  while (true) {
    if (!bg_error_.ok()) {
      s = bg_error_;
      break;
    }
    if (shutting_down_) {
      // No flush is scheduled any more: a wait for room (or a Flush's switch) would not end.
      s = Status::ShutdownInProgress("the DB is closing");
      break;
    }
    // The global budget spans every family: over it, the family with the largest active
    // memtable is retired for flushing (a flush frees memory), or, when that one is empty,
    // writers wait for a flush under way. Nothing waits for memory no flush can free: an
    // empty active memtable with nothing to flush goes ahead.
    const size_t budget = MemTableBudgetLocked();
    bool over_total = false;
    ColumnFamilyData* largest = nullptr;
    if (budget > 0) {
      size_t total = 0;
      for (const auto& [id, cfd] : column_families_) {
        total += cfd->mems.MemoryUsage();
        if (largest == nullptr || cfd->mems.mem()->ApproximateMemoryUsage() >
                                      largest->mems.mem()->ApproximateMemoryUsage()) {
          largest = cfd.get();
        }
      }
      over_total = total >= budget;
    }
    // The first family that needs something done (families are checked in id order; each
    // action releases the mutex, so everything is checked again after it).
    ColumnFamilyData* cfd = nullptr;
    MemTableSet::Room room = MemTableSet::Room::kReady;
    for (const auto& [id, candidate] : column_families_) {
      room = candidate->mems.RoomForWrite(candidate->options.write_buffer_size,
                                          over_total && candidate.get() == largest,
                                          candidate.get() == force);
      if (room != MemTableSet::Room::kReady) {
        cfd = candidate.get();
        break;
      }
    }
    if (cfd == nullptr) {
      // max_total_wal_size: a family whose unflushed writes keep the oldest WAL alive.
      cfd = FamilyPinningOldestWalLocked();
      if (cfd != nullptr) {
        room = MemTableSet::Room::kSwitch;
        if (info_log_) {
          info_log_->Log("live WALs over max_total_wal_size (%llu bytes): flushing column "
                         "family \"%s\"",
                         static_cast<unsigned long long>(MaxTotalWalSizeLocked()),
                         cfd->name().c_str());
        }
      }
    }
    if (cfd == nullptr) break;  // room everywhere, or (force) nothing to flush
    if (room == MemTableSet::Room::kWaitForFlush) {
      RecordTick(STALL_MEMTABLE_LIMIT_COUNT, stalled ? 0 : 1);
      stall_family = cfd->id();
      stalled = true;
      bg_cv_.Wait(&mu_);
      continue;
    }
    if (cfd != force && write_controller_.state() == WriteController::State::kStopped &&
        write_controller_.cause() != WriteController::Cause::kMemtableLimit) {
      // Too many L0 files or too many pending compaction bytes: wait for compaction.
      const WriteController::Cause cause = write_controller_.cause();
      if (!stalled) {
        RecordTick(cause == WriteController::Cause::kL0Files ? STALL_L0_STOP_COUNT
                                                             : STALL_PENDING_COMPACTION_BYTES_COUNT);
        if (info_log_) {
          info_log_->Log("write stall: writes stopped (%s)", WriteController::CauseName(cause));
        }
      }
      stall_cause = cause;
      stall_family = write_stall_family_;
      stalled = true;
      bg_cv_.Wait(&mu_);
      continue;
    }
    if (!cfd->mems.CanSwitch(cfd->options.max_write_buffer_number)) {
      // Every memtable of the family is full: wait for its oldest to be flushed.
      RecordTick(STALL_MEMTABLE_LIMIT_COUNT, stalled ? 0 : 1);
      if (!stalled && info_log_) {
        info_log_->Log("write stall: %zu immutable memtables of column family \"%s\" wait for "
                       "flush",
                       cfd->mems.NumImmutable(), cfd->name().c_str());
      }
      stall_family = cfd->id();
      stalled = true;
      bg_cv_.Wait(&mu_);
      continue;
    }
    if (cfd == force) force = nullptr;
    s = SwitchMemTable(cfd);
    if (!s.ok()) break;
  }
  if (stalled) {
    const uint64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::steady_clock::now() - stall_start)
                                .count();
    stall_micros_ += micros;
    stall_count_ += 1;
    stall_count_by_cause_[static_cast<int>(stall_cause)]++;
    stall_micros_by_cause_[static_cast<int>(stall_cause)] += micros;
    CountFamilyStallLocked(stall_family, stall_cause, micros);
    RecordTick(STALL_MICROS, micros);
    if (statistics_ != nullptr) statistics_->measureTime(WRITE_STALL, micros);
  }
  return s;
}

void DBImpl::DelayWriteLocked(size_t bytes) {
  if (write_controller_.state() != WriteController::State::kDelayed) return;
  const uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
  const uint64_t delay = write_controller_.DelayMicros(bytes, now);
  if (delay == 0) return;
  const WriteController::Cause cause = write_controller_.cause();
  switch (cause) {
    case WriteController::Cause::kL0Files:
      RecordTick(STALL_L0_SLOWDOWN_COUNT);
      break;
    case WriteController::Cause::kPendingCompactionBytes:
      RecordTick(STALL_PENDING_COMPACTION_BYTES_COUNT);
      break;
    default:
      RecordTick(STALL_MEMTABLE_LIMIT_COUNT);
      break;
  }
  // The leader sleeps holding its place at the front of the queue (the group waits with it),
  // but not the mutex: background work goes on. It sleeps in slices of at most 1 ms (as
  // RocksDB) and stops once Close began: Close waits for this call, and at the minimum rate a
  // large write delays the next one by minutes. The write then completes.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(delay);
  while (!shutting_down_) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) break;
    mu_.Unlock();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        left, std::chrono::milliseconds(1)));
    mu_.Lock();
  }
  stall_micros_ += delay;
  stall_count_ += 1;
  stall_count_by_cause_[static_cast<int>(cause)]++;
  stall_micros_by_cause_[static_cast<int>(cause)] += delay;
  CountFamilyStallLocked(write_stall_family_, cause, delay);
  RecordTick(STALL_MICROS, delay);
  if (statistics_ != nullptr) statistics_->measureTime(WRITE_STALL, delay);
}

Status DBImpl::SwitchMemTable(ColumnFamilyData* cfd) {
  // Called at the write queue's front, so no write touches log_ or the memtable meanwhile.
  const uint64_t new_number = versions_->NewFileNumber();
  const uint64_t old_number = log_number_;
  const uint64_t old_bytes = log_->length();
  std::unique_ptr<WritableFile> file;
  mu_.Unlock();
  // The old WAL is synced before the new one exists: a synced write in the new WAL must never
  // survive a crash that loses an earlier write in the old one, and a WAL that a newer one
  // follows thus ends in a complete record unless a write to it failed (ReplayWal relies on
  // this). It is closed only once the new one is created, so a failed create leaves it usable.
  Status old_log = log_->Sync();
  Status s;
  if (old_log.ok()) s = fs_->NewWalFile(WalFileName(dbname_, new_number), &file);
  if (old_log.ok() && s.ok()) {
    old_log = log_->Close();
    if (old_log.ok()) old_log = fs_->SyncDir(dbname_);
  }
  if (s.ok() && old_log.ok()) SHALE_KILL_POINT("wal.switch_new_log_created");
  mu_.Lock();
  if (!old_log.ok()) {
    RecordBackgroundErrorLocked(old_log, "syncing or closing the WAL at a memtable switch");
    if (file != nullptr) {
      file->Close().PermitUncheckedError();
      fs_->DeleteFile(WalFileName(dbname_, new_number)).PermitUncheckedError();
    }
    return old_log;
  }
  if (!s.ok()) {
    RecordBackgroundErrorLocked(s, "creating a WAL at a memtable switch");
    return s;
  }
  log_ = std::make_unique<log::Writer>(std::move(file), 0, log::Writer::FlushPolicy::kManual);
  log_number_ = new_number;
  closed_wal_bytes_[old_number] = old_bytes;
  // With atomic_flush every family holding writes is retired with this one, into the same
  // flush (FlushGroupLocked).
  std::vector<std::shared_ptr<ColumnFamilyData>> switched;
  if (db_options_.atomic_flush) {
    for (const auto& [id, other] : column_families_) {
      if (other.get() == cfd || other->mems.mem()->num_entries() > 0) switched.push_back(other);
    }
  } else {
    switched.push_back(column_families_.at(cfd->id()));
  }
  for (const auto& family : switched) family->mems.Switch(NewMemTable(*family), new_number);
  MaybeScheduleFlushLocked();
  for (const auto& family : switched) {
    if (!family->dropped) ReplaceSuperVersionLocked(family.get());  // releases mu_ briefly
  }
  return Status::OK();
}

void DBImpl::CountFamilyStallLocked(uint32_t id, WriteController::Cause cause, uint64_t micros) {
  auto it = column_families_.find(id);
  if (it == column_families_.end()) return;  // dropped meanwhile
  it->second->stall_count_by_cause[static_cast<int>(cause)]++;
  it->second->stall_micros_by_cause[static_cast<int>(cause)] += micros;
}

uint64_t DBImpl::MaxTotalWalSizeLocked() const {
  if (db_options_.max_total_wal_size > 0) return db_options_.max_total_wal_size;
  uint64_t sum = 0;
  for (const auto& [id, cfd] : column_families_) {
    sum += static_cast<uint64_t>(cfd->options.write_buffer_size) *
           static_cast<uint64_t>(std::max(1, cfd->options.max_write_buffer_number));
  }
  return 4 * sum;
}

ColumnFamilyData* DBImpl::FamilyPinningOldestWalLocked() {
  if (column_families_.size() < 2) return nullptr;  // the WAL follows the one memtable
  const uint64_t oldest = versions_->MinLogNumber();
  // Closed WALs that every family has flushed past are no longer counted.
  closed_wal_bytes_.erase(closed_wal_bytes_.begin(), closed_wal_bytes_.lower_bound(oldest));
  uint64_t total = log_ != nullptr ? log_->length() : 0;
  for (const auto& [number, bytes] : closed_wal_bytes_) total += bytes;
  if (total <= MaxTotalWalSizeLocked()) return nullptr;
  for (const auto& [id, cfd] : column_families_) {
    // Its tables end before the oldest WAL, and its active memtable holds writes from that
    // WAL (it started at or before it): retiring it lets the flush move the family's log
    // number on. A family retired for this already has a younger active memtable and is not
    // picked again while that flush is pending (issue 23 review, finding 4: a switch storm).
    if (versions_->LogNumber(id) == oldest && cfd->mems.mem()->num_entries() > 0 &&
        cfd->mems.log_number() <= oldest) {
      return cfd.get();
    }
  }
  return nullptr;
}

}  // namespace shale
