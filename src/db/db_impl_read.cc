// DBImpl: the read path (DESIGN.md "Read path") and SuperVersions.
#include <cassert>
#include <chrono>
#include <cstdint>
#include <functional>

#include "base/range_tombstones.h"
#include "db/db_impl.h"
#include "db/db_iter.h"
#include "iterator/merging_iterator.h"
#include "util/mutex.h"

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

// Slot indices handed to threads: the lowest free one, given back when the thread exits, so
// that up to kSuperVersionSlots live threads never share a slot however many come and go.
// Thread-safe (mu_).
class SlotIndexPool {
 public:
  static SlotIndexPool& Get() {
    static SlotIndexPool* pool = new SlotIndexPool;  // outlives every thread's give-back
    return *pool;
  }
  // A free index, or (all taken) a shared one: correct, as a slot tells its users apart by
  // their marks, only slower.
  size_t Take() {
    MutexLock lock(&mu_);
    for (size_t i = 0; i < ColumnFamilyData::kSuperVersionSlots; i++) {
      if (!taken_[i]) {
        taken_[i] = true;
        return i;
      }
    }
    return kShared + shared_next_++ % ColumnFamilyData::kSuperVersionSlots;
  }
  void GiveBack(size_t index) {
    if (index >= kShared) return;
    MutexLock lock(&mu_);
    taken_[index] = false;
  }
  // Indices from kShared up name a shared slot (index - kShared).
  static constexpr size_t kShared = ColumnFamilyData::kSuperVersionSlots;

 private:
  Mutex mu_;
  bool taken_[ColumnFamilyData::kSuperVersionSlots] ABSL_GUARDED_BY(mu_) = {};
  size_t shared_next_ ABSL_GUARDED_BY(mu_) = 0;
};

// This thread's slot index: kUnassigned before its first point read, kRetired once the thread
// is exiting (its index given back; later Gets, from thread_local destructors, take the mutex
// path). Trivially destructible, so it can be read at any time during the thread's life. Its
// address, tagged odd, is the thread's in-use mark: unique among live threads, and never a
// SuperVersion's address.
constexpr size_t kUnassigned = ~size_t{0};
constexpr size_t kRetired = ~size_t{0} - 1;
constinit thread_local size_t tls_slot_index = kUnassigned;
constinit thread_local size_t tls_slot_override = DBImpl::kNoSuperVersionSlot;

// Gives the thread's index back when the thread exits.
struct SlotGiveBack {
  ~SlotGiveBack() {
    SlotIndexPool::Get().GiveBack(tls_slot_index);
    tls_slot_index = kRetired;
  }
};

// This thread's slot, or kNoSuperVersionSlot (the thread is exiting).
size_t ThisThreadSlot() {
  if (tls_slot_index == kUnassigned) {
    tls_slot_index = SlotIndexPool::Get().Take();
    thread_local SlotGiveBack give_back;  // constructed (and its destructor registered) once
    (void)give_back;
  }
  if (tls_slot_index == kRetired) return DBImpl::kNoSuperVersionSlot;
  const size_t i =
      tls_slot_override != DBImpl::kNoSuperVersionSlot ? tls_slot_override : tls_slot_index;
  return i % ColumnFamilyData::kSuperVersionSlots;
}

SuperVersion* ThisThreadMark() {
  return reinterpret_cast<SuperVersion*>(reinterpret_cast<uintptr_t>(&tls_slot_index) | 1);
}

bool IsMark(const SuperVersion* p) { return (reinterpret_cast<uintptr_t>(p) & 1) != 0; }

}  // namespace

void DBImpl::SetSuperVersionSlotForTesting(size_t index) { tls_slot_override = index; }

namespace {
std::function<void()> after_slot_check_hook;  // DBImpl::TestHookAfterSlotCheck
}  // namespace

std::function<void()>* DBImpl::TestHookAfterSlotCheck() { return &after_slot_check_hook; }

SuperVersion* DBImpl::AcquireSuperVersionForGet(ColumnFamilyData* cfd, const ReadOptions& options,
                                                SequenceNumber* sequence, SlotHold* hold) {
  hold->index = ThisThreadSlot();
  hold->mark = ThisThreadMark();
  if (hold->index == kNoSuperVersionSlot) return RefSuperVersion(cfd, options, sequence);
  std::atomic<SuperVersion*>& cell = cfd->super_version_slots[hold->index].sv;
  SuperVersion* cached = cell.load(std::memory_order_acquire);
  if (IsMark(cached) || !cell.compare_exchange_strong(cached, hold->mark,
                                                      std::memory_order_acquire,
                                                      std::memory_order_relaxed)) {
    // Another Get uses the slot (a thread sharing the index, or this thread's own Get nested
    // in a merge operator), or the content changed under us (a scrape, another thread's
    // release): a reference of our own, and the slot is left alone.
    hold->index = kNoSuperVersionSlot;
    return RefSuperVersion(cfd, options, sequence);
  }
  if (cached != nullptr &&
      cached->version_number == cfd->super_version_number.load(std::memory_order_acquire)) {
    if (sequence == nullptr) return cached;
    if (options.snapshot != nullptr) {
      *sequence = options.snapshot->GetSequenceNumber();
      return cached;
    }
    if (after_slot_check_hook) after_slot_check_hook();
    // The read sequence is taken after the SuperVersion, so it may include writes made after a
    // newer SuperVersion was installed -- on top of state this one lacks (an ingestion's files
    // share the memtable that takes those writes: a merge operand written after them must not
    // be applied to the value below them). So the SuperVersion must still be the current one
    // once the sequence is read: an install publishes its number before the sequence of any
    // write made after it, so the number read here differs whenever the sequence is that
    // late. (Reading the sequence first would not do: a flush could meanwhile drop what that
    // older sequence sees.)
    const SequenceNumber last = versions_->LastSequence();
    if (cached->version_number == cfd->super_version_number.load(std::memory_order_acquire)) {
      *sequence = last;
      return cached;
    }
  }
  if (cached != nullptr) UnrefSuperVersion(cached);  // replaced since it was put in the slot
  return RefSuperVersion(cfd, options, sequence);    // kept in the slot by the release
}

void DBImpl::ReleaseSuperVersionForGet(ColumnFamilyData* cfd, SuperVersion* sv,
                                       const SlotHold& hold) {
  if (hold.index == kNoSuperVersionSlot) {
    if (sv != nullptr) UnrefSuperVersion(sv);
    return;
  }
  // Only this Get's own mark is replaced: had a scrape taken it out, a mark another thread
  // put in since must not be taken for ours (the slot would keep a replaced SuperVersion).
  SuperVersion* expected = hold.mark;
  if (!cfd->super_version_slots[hold.index].sv.compare_exchange_strong(
          expected, sv, std::memory_order_release, std::memory_order_relaxed)) {
    // Scraped while this Get used it (the SuperVersion changed, or the DB closed): the
    // reference is this Get's to drop.
    if (sv != nullptr) UnrefSuperVersion(sv);
  }
}

void DBImpl::ScrapeSuperVersionSlotsLocked(ColumnFamilyData* cfd) {
  for (auto& slot : cfd->super_version_slots) {
    SuperVersion* old = slot.sv.exchange(nullptr, std::memory_order_acq_rel);
    if (old == nullptr || IsMark(old)) continue;  // a Get using the slot drops its own
    // A slot only holds the current SuperVersion, which super_version still references: this
    // never drops the last reference (see ColumnFamilyData::super_version_slots).
    const int before = old->refs.fetch_sub(1, std::memory_order_acq_rel);
    assert(before > 1);
    (void)before;
  }
}

void DBImpl::UnrefSuperVersion(SuperVersion* sv) {
  if (sv->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::vector<std::shared_ptr<const CachedTable>> unpinned;  // let go of after the lock
  {
    MutexLock lock(&mu_);
    // After Close, the last reader of a file lets go of the table a Get pinned (Close kept
    // it for this reader), so that no table, nor its descriptor, outlives Close and its
    // readers; unpinned before the Version goes, so that its files do not free them here.
    if (closed_) versions_->ReleaseTablePinsOfUnreadFiles(sv->current, &unpinned);
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
  SlotHold hold;
  SuperVersion* sv = AcquireSuperVersionForGet(cfd, options, &sequence, &hold);
  Status s;
  {
    // Released also when GetImpl throws (an allocation, a merge operator): a slot left with
    // this thread's mark would stay unusable, and its reference lost.
    struct Release {
      DBImpl* db;
      ColumnFamilyData* cfd;
      SuperVersion* sv;
      const SlotHold& hold;
      ~Release() { db->ReleaseSuperVersionForGet(cfd, sv, hold); }
    } release{this, cfd, sv, hold};
    if (sv == nullptr) return Status::ShutdownInProgress("the DB is closed");
    s = GetImpl(options, *cfd, sv, sequence, key, value);
  }
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
