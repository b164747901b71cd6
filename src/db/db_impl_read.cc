// DBImpl: the read path (DESIGN.md "Read path") and SuperVersions.
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

SuperVersion* DBImpl::RefSuperVersion(const ReadOptions& options, SequenceNumber* sequence) {
  MutexLock lock(&mu_);
  SuperVersion* sv = super_version_;
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

void DBImpl::ReplaceSuperVersionLocked() {
  SuperVersion* old = InstallSuperVersionLocked();
  if (old == nullptr) return;
  mu_.Unlock();
  UnrefSuperVersion(old);
  mu_.Lock();
}

SuperVersion* DBImpl::InstallSuperVersionLocked() {
  auto* sv = new SuperVersion;
  mems_.RefAll(&sv->mem, &sv->imm);
  sv->current = versions_->current();
  sv->current->Ref();
  sv->version_number = ++super_version_number_;
  sv->refs.store(1, std::memory_order_relaxed);
  SuperVersion* old = super_version_;
  super_version_ = sv;
  RecalculateWriteStallLocked();
  return old;
}

Status DBImpl::Get(const ReadOptions& options, std::string_view key, std::string* value) {
  const auto start = std::chrono::steady_clock::now();
  SequenceNumber sequence;
  SuperVersion* sv = RefSuperVersion(options, &sequence);
  if (sv == nullptr) return Status::ShutdownInProgress("the DB is closed");
  Status s = GetImpl(options, sv, sequence, key, value);
  UnrefSuperVersion(sv);
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
                                     const std::vector<std::string_view>& keys,
                                     std::vector<std::string>* values) {
  const auto start = std::chrono::steady_clock::now();
  SequenceNumber sequence;
  SuperVersion* sv = RefSuperVersion(options, &sequence);
  std::vector<Status> result(keys.size());
  values->resize(keys.size());
  if (sv == nullptr) {
    for (Status& s : result) s = Status::ShutdownInProgress("the DB is closed");
    return result;
  }
  uint64_t bytes = 0;
  for (size_t i = 0; i < keys.size(); i++) {
    result[i] = GetImpl(options, sv, sequence, keys[i], &(*values)[i]);
    if (result[i].ok()) bytes += (*values)[i].size();
  }
  UnrefSuperVersion(sv);
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

Status DBImpl::GetImpl(const ReadOptions& options, SuperVersion* sv, SequenceNumber sequence,
                       std::string_view key, std::string* value) {
  LookupKey lkey(key, sequence);
  GetContext context(merge_operator_.get(), key, value);
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

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  DBIterOptions iopts;
  SuperVersion* sv = RefSuperVersion(options, &iopts.sequence);
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
  iopts.merge_operator = merge_operator_.get();

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
                       [this, sv] { UnrefSuperVersion(sv); });
}

}  // namespace shale
