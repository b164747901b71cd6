// DBImpl: the read path (DESIGN.md "Read path") and SuperVersions.
#include <cassert>
#include <chrono>

#include "base/range_tombstones.h"
#include "db/db_impl.h"
#include "db/db_iter.h"
#include "iterator/merging_iterator.h"

namespace shale {
namespace {

TableReadOptions ToTableReadOptions(const ReadOptions& o) {
  TableReadOptions t;
  t.verify_checksums = o.verify_checksums;
  t.fill_cache = o.fill_cache;
  return t;
}

}  // namespace

SuperVersion* DBImpl::RefSuperVersion(ColumnFamilyData* cfd, const ReadOptions& options,
                                      SequenceNumber* sequence) {
  MutexLock lock(&mu_);
  SuperVersion* sv = cfd->super_version;
  if (sv == nullptr) return nullptr;  // closed
  sv->refs.fetch_add(1, std::memory_order_relaxed);
  // Taken together under the mutex: the SuperVersion holds every write up to the sequence,
  // and no flush has yet dropped a version the sequence can see (an explicit snapshot is
  // protected by being registered).
  if (sequence != nullptr) {
    *sequence = options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                            : versions_->LastSequence();
  }
  return sv;
}

namespace {

// The mark a Get leaves in a slot it uses (never a real SuperVersion's address).
SuperVersion* SlotInUse() {
  static char mark;
  return reinterpret_cast<SuperVersion*>(&mark);
}

// This thread's slot index: threads get consecutive numbers, so up to kSuperVersionSlots
// threads never share a slot.
size_t ThreadSlotIndex() {
  static std::atomic<size_t> next{0};
  thread_local const size_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index % ColumnFamilyData::kSuperVersionSlots;
}

}  // namespace

SuperVersion* DBImpl::AcquireSuperVersionForGet(ColumnFamilyData* cfd, const ReadOptions& options,
                                                SequenceNumber* sequence, size_t* slot) {
  const size_t index = ThreadSlotIndex();
  std::atomic<SuperVersion*>& cell = cfd->super_version_slots[index].sv;
  SuperVersion* cached = cell.exchange(SlotInUse(), std::memory_order_acquire);
  if (cached == SlotInUse()) {
    // Another thread (sharing the index) is using the slot: a reference of our own.
    *slot = kNoSuperVersionSlot;
    return RefSuperVersion(cfd, options, sequence);
  }
  *slot = index;
  if (cached != nullptr &&
      cached->version_number == cfd->super_version_number.load(std::memory_order_acquire)) {
    // The current SuperVersion. The read sequence is taken after it: every write up to that
    // sequence is in it, except writes into a memtable made after it, which come after all of
    // its writes -- the read then sees the state as of that switch, a consistent one, and one
    // that was current while this Get ran.
    if (sequence != nullptr) {
      *sequence = options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                              : versions_->LastSequence();
    }
    return cached;
  }
  if (cached != nullptr) UnrefSuperVersion(cached);  // replaced since (kept out by the scrape)
  return RefSuperVersion(cfd, options, sequence);    // kept in the slot by the release
}

void DBImpl::ReleaseSuperVersionForGet(ColumnFamilyData* cfd, SuperVersion* sv, size_t slot) {
  if (slot == kNoSuperVersionSlot) {
    if (sv != nullptr) UnrefSuperVersion(sv);
    return;
  }
  SuperVersion* expected = SlotInUse();
  if (!cfd->super_version_slots[slot].sv.compare_exchange_strong(expected, sv,
                                                                  std::memory_order_release,
                                                                  std::memory_order_relaxed)) {
    // Scraped while this Get used it (the SuperVersion changed, or the DB closed): the
    // reference is this Get's to drop.
    if (sv != nullptr) UnrefSuperVersion(sv);
  }
}

void DBImpl::ScrapeSuperVersionSlotsLocked(ColumnFamilyData* cfd) {
  for (auto& slot : cfd->super_version_slots) {
    SuperVersion* old = slot.sv.exchange(nullptr, std::memory_order_acq_rel);
    if (old == nullptr || old == SlotInUse()) continue;
    // A slot only holds the current SuperVersion, which super_version still references: this
    // never drops the last reference (see ColumnFamilyData::super_version_slots).
    const int before = old->refs.fetch_sub(1, std::memory_order_acq_rel);
    assert(before > 1);
    (void)before;
  }
}

void DBImpl::UnrefSuperVersion(SuperVersion* sv) {
  if (sv->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    MutexLock lock(&mu_);
    sv->current->Unref();  // Versions are guarded by mu_
  }
  // Freeing a memtable purges its arena: done without the mutex.
  sv->mem->Unref();
  for (MemTable* m : sv->imm) m->Unref();
  delete sv;
}

void DBImpl::ReplaceSuperVersionLocked(ColumnFamilyData* cfd) {
  SuperVersion* old = InstallSuperVersionLocked(cfd);
  if (old == nullptr) return;
  mu_.Unlock();
  UnrefSuperVersion(old);
  mu_.Lock();
}

SuperVersion* DBImpl::InstallSuperVersionLocked(ColumnFamilyData* cfd) {
  auto* sv = new SuperVersion;
  cfd->mems.RefAll(&sv->mem, &sv->imm);
  sv->current = versions_->current(cfd->id());
  sv->current->Ref();
  sv->version_number = ++super_version_number_;
  sv->refs.store(1, std::memory_order_relaxed);
  ScrapeSuperVersionSlotsLocked(cfd);
  SuperVersion* old = cfd->super_version;
  cfd->super_version = sv;
  cfd->super_version_number.store(sv->version_number, std::memory_order_release);
  RecalculateWriteStallLocked();
  return old;
}

Status DBImpl::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                   std::string_view key, std::string* value) {
  const auto start = std::chrono::steady_clock::now();
  ColumnFamilyData* cfd = FamilyOf(column_family);
  if (cfd == nullptr) return Status::InvalidArgument("Get: null or foreign column family handle");
  SequenceNumber sequence;
  size_t slot = kNoSuperVersionSlot;
  SuperVersion* sv = AcquireSuperVersionForGet(cfd, options, &sequence, &slot);
  if (sv == nullptr) {
    ReleaseSuperVersionForGet(cfd, sv, slot);
    return Status::ShutdownInProgress("the DB is closed");
  }
  Status s = GetImpl(options, *cfd, sv, sequence, key, value);
  ReleaseSuperVersionForGet(cfd, sv, slot);
  RecordTick(NUMBER_DB_GET);
  RecordTick(NUMBER_KEYS_READ);
  if (s.ok()) RecordTick(BYTES_READ, value->size());
  if (statistics_ != nullptr) {
    statistics_->measureTime(DB_GET, std::chrono::duration_cast<std::chrono::microseconds>(
                                         std::chrono::steady_clock::now() - start)
                                         .count());
  }
  return s;
}

std::vector<Status> DBImpl::MultiGet(const ReadOptions& options,
                                     const std::vector<ColumnFamilyHandle*>& column_families,
                                     const std::vector<std::string_view>& keys,
                                     std::vector<std::string>* values) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Status> result(keys.size());
  values->resize(keys.size());
  if (column_families.size() != keys.size()) {
    for (Status& s : result) {
      s = Status::InvalidArgument("MultiGet: one column family per key is needed");
    }
    return result;
  }
  // One SuperVersion per family, all taken with one read sequence under the mutex: the reads
  // see one state of the DB across families.
  std::vector<std::pair<ColumnFamilyData*, SuperVersion*>> pinned;
  SequenceNumber sequence = 0;
  bool closed = false;
  {
    MutexLock lock(&mu_);
    sequence = options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                           : versions_->LastSequence();
    for (ColumnFamilyHandle* h : column_families) {
      ColumnFamilyData* cfd = FamilyOf(h);
      if (cfd == nullptr) continue;
      bool seen = false;
      for (const auto& [c, sv] : pinned) seen = seen || c == cfd;
      if (seen) continue;
      SuperVersion* sv = cfd->super_version;
      if (sv == nullptr) {
        closed = true;
        break;
      }
      sv->refs.fetch_add(1, std::memory_order_relaxed);
      pinned.emplace_back(cfd, sv);
    }
  }
  uint64_t bytes = 0;
  for (size_t i = 0; i < keys.size(); i++) {
    ColumnFamilyData* cfd = FamilyOf(column_families[i]);
    SuperVersion* sv = nullptr;
    for (const auto& [c, pinned_sv] : pinned) {
      if (c == cfd) sv = pinned_sv;
    }
    if (cfd == nullptr) {
      result[i] = Status::InvalidArgument("MultiGet: null or foreign column family handle");
    } else if (closed || sv == nullptr) {
      result[i] = Status::ShutdownInProgress("the DB is closed");
    } else {
      result[i] = GetImpl(options, *cfd, sv, sequence, keys[i], &(*values)[i]);
      if (result[i].ok()) bytes += (*values)[i].size();
    }
  }
  for (const auto& [c, sv] : pinned) UnrefSuperVersion(sv);
  RecordTick(NUMBER_DB_GET);
  RecordTick(NUMBER_KEYS_READ, keys.size());
  RecordTick(BYTES_READ, bytes);
  if (statistics_ != nullptr) {
    statistics_->measureTime(DB_MULTIGET, std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count());
  }
  return result;
}

Status DBImpl::GetImpl(const ReadOptions& options, const ColumnFamilyData& cfd,
                       SuperVersion* sv, SequenceNumber sequence, std::string_view key,
                       std::string* value) {
  LookupKey lkey(key, sequence);
  GetContext context(cfd.merge_operator(), key, value);
  // Memtables decide on their own range deletions: a covering tombstone there is newer than
  // anything in older sources, so it ends the lookup (as a deletion).
  bool done = sv->mem->Get(lkey, &context);
  for (size_t i = 0; !done && i < sv->imm.size(); i++) done = sv->imm[i]->Get(lkey, &context);
  if (done && context.num_operands() == 0) {
    RecordTick(MEMTABLE_HIT);
    return context.status();
  }
  RecordTick(MEMTABLE_MISS);
  if (!done) {
    Status s = sv->current->Get(ToTableReadOptions(options), table_cache_.get(), lkey, &context);
    if (!s.ok()) return s;
  }
  return context.Finish();
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options,
                                              ColumnFamilyHandle* column_family) {
  DBIterOptions iopts;
  ColumnFamilyData* cfd = FamilyOf(column_family);
  if (cfd == nullptr) {
    return NewDBIterator(icmp_.user_comparator(),
                         NewEmptyInternalIterator(Status::InvalidArgument(
                             "NewIterator: null or foreign column family handle")),
                         {}, std::move(iopts), [] {});
  }
  SuperVersion* sv = RefSuperVersion(cfd, options, &iopts.sequence);
  return NewIteratorOver(options, SharedFamilyOf(column_family), sv, std::move(iopts));
}

Status DBImpl::NewIterators(const ReadOptions& options,
                            const std::vector<ColumnFamilyHandle*>& column_families,
                            std::vector<std::unique_ptr<Iterator>>* iterators) {
  if (iterators == nullptr) return Status::InvalidArgument("NewIterators: null result vector");
  iterators->clear();
  std::vector<std::shared_ptr<ColumnFamilyData>> families;
  for (ColumnFamilyHandle* h : column_families) {
    std::shared_ptr<ColumnFamilyData> cfd = SharedFamilyOf(h);
    if (cfd == nullptr) {
      return Status::InvalidArgument("NewIterators: null or foreign column family handle");
    }
    families.push_back(cfd);
  }
  // Every SuperVersion and the one sequence taken together under the mutex.
  std::vector<SuperVersion*> svs;
  SequenceNumber sequence = 0;
  {
    MutexLock lock(&mu_);
    sequence = options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                           : versions_->LastSequence();
    for (const auto& cfd : families) {
      SuperVersion* sv = cfd->super_version;
      if (sv != nullptr) sv->refs.fetch_add(1, std::memory_order_relaxed);
      svs.push_back(sv);
    }
  }
  for (size_t i = 0; i < families.size(); i++) {
    if (svs[i] == nullptr) {
      for (size_t j = i; j < families.size(); j++) {
        if (svs[j] != nullptr) UnrefSuperVersion(svs[j]);
      }
      iterators->clear();
      return Status::ShutdownInProgress("the DB is closed");
    }
    DBIterOptions iopts;
    iopts.sequence = sequence;
    iterators->push_back(NewIteratorOver(options, families[i], svs[i], std::move(iopts)));
  }
  return Status::OK();
}

std::unique_ptr<Iterator> DBImpl::NewIteratorOver(const ReadOptions& options,
                                                  std::shared_ptr<ColumnFamilyData> cfd,
                                                  SuperVersion* sv, DBIterOptions iopts) {
  if (sv == nullptr) {
    return NewDBIterator(icmp_.user_comparator(),
                         NewEmptyInternalIterator(Status::ShutdownInProgress("the DB is closed")),
                         {}, std::move(iopts), [] {});
  }
  if (options.iterate_lower_bound != nullptr) {
    iopts.lower_bound = std::string(*options.iterate_lower_bound);
  }
  if (options.iterate_upper_bound != nullptr) {
    iopts.upper_bound = std::string(*options.iterate_upper_bound);
  }
  iopts.statistics = statistics_;
  iopts.merge_operator = cfd->merge_operator();

  const Comparator* ucmp = icmp_.user_comparator();
  RangeTombstoneSources tombstones;
  std::vector<std::unique_ptr<InternalIterator>> children;
  Status status;
  auto add_memtable = [&](MemTable* m) {
    children.push_back(m->NewIterator());
    if (m->num_range_deletes() > 0) {
      auto t = std::make_shared<RangeTombstones>(ucmp);
      std::unique_ptr<InternalIterator> iter = m->NewRangeTombstoneIterator();
      Status s = t->AddAll(iter.get());
      t->Finish();
      if (status.ok()) status = s;
      tombstones.push_back(std::move(t));
    }
  };
  add_memtable(sv->mem);
  for (MemTable* m : sv->imm) add_memtable(m);

  const TableReadOptions topts = ToTableReadOptions(options);
  Version* v = sv->current;
  Status s = v->AddRangeTombstones(table_cache_.get(), &tombstones);
  if (status.ok()) status = s;
  v->AddIterators(topts, table_cache_.get(), &children);
  std::unique_ptr<InternalIterator> merged;
  if (status.ok()) {
    merged = NewMergingIterator(&icmp_, std::move(children));
  } else {
    merged = NewEmptyInternalIterator(status);
  }
  return NewDBIterator(ucmp, std::move(merged), std::move(tombstones), std::move(iopts),
                       // The family (its merge operator) lives as long as the iterator; a
                       // dropped one may be freed once the iterator lets go of it.
                       [this, sv, cfd]() mutable {
                         UnrefSuperVersion(sv);
                         const bool dropped = cfd->dropped.load();
                         cfd.reset();
                         if (dropped) ReleaseDroppedFamilies();
                       });
}

}  // namespace shale
