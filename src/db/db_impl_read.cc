// DBImpl: the read path (DESIGN.md "Read path") and SuperVersions.
#include <chrono>

#include "base/range_tombstones.h"
#include "db/db_impl.h"
#include "db/db_iter.h"
#include "iterator/level_iterator.h"
#include "iterator/merging_iterator.h"
#include "version/version_level_files.h"

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
    Status s = GetFromVersion(options, sv->current, lkey, sequence, &context);
    if (!s.ok()) return s;
  }
  return context.Finish();
}

Status DBImpl::GetFromVersion(const ReadOptions& options, Version* v, const LookupKey& lkey,
                              SequenceNumber sequence, GetContext* context) {
  const Comparator* ucmp = icmp_.user_comparator();
  const std::string_view user_key = lkey.user_key();
  const TableReadOptions topts = ToTableReadOptions(options);
  // The newest range deletion covering the key in the files searched so far: it hides every
  // entry older than it, in this file and in all older ones.
  SequenceNumber max_tombstone = 0;
  // Feeds *context the key's entries in one file.
  auto search_file = [&](const FileMetaData* f, int level) -> Status {
    std::shared_ptr<const CachedTable> table;
    Status s = table_cache_->Find(f->number, f->file_size, &table, level, f->global_seqno);
    if (!s.ok()) return s;
    if (!table->tombstones->empty()) {
      max_tombstone =
          std::max(max_tombstone, table->tombstones->MaxCoveringSequence(user_key, sequence));
    }
    s = table->reader->Get(topts, lkey.internal_key(),
                           [&](std::string_view ikey, std::string_view entry_value) {
                             if (ucmp->Compare(ExtractUserKey(ikey), user_key) != 0) {
                               return false;  // past the key's entries
                             }
                             if (ExtractSequence(ikey) < max_tombstone) return false;
                             return context->Save(ExtractValueType(ikey), entry_value);
                           });
    if (!s.ok()) return s;
    // Older entries, here and in older files, are hidden by the range deletion.
    if (!context->done() && max_tombstone > 0) context->Save(kTypeRangeDeletion, {});
    return Status::OK();
  };

  for (const FileMetaData* f : v->files(0)) {  // newest first
    if (ucmp->Compare(user_key, ExtractUserKey(f->smallest)) < 0 ||
        ucmp->Compare(user_key, ExtractUserKey(f->largest)) > 0) {
      continue;
    }
    Status s = search_file(f, 0);
    if (!s.ok()) return s;
    if (context->done()) return Status::OK();
  }
  for (int level = 1; level < v->num_levels(); level++) {
    const std::vector<FileMetaData*>& files = v->files(level);
    if (files.empty()) continue;
    // The key's entries may continue from one file into the next (see version.h).
    for (size_t i = FindFile(icmp_, VersionLevelFiles(&files), lkey.internal_key());
         i < files.size(); i++) {
      const FileMetaData* f = files[i];
      if (ucmp->Compare(user_key, ExtractUserKey(f->smallest)) < 0) break;
      Status s = search_file(f, level);
      if (!s.ok()) return s;
      if (context->done()) return Status::OK();
    }
  }
  return Status::OK();
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
  for (int level = 0; level < v->num_levels(); level++) {
    for (const FileMetaData* f : v->files(level)) {
      if (f->num_range_deletions == 0) continue;
      std::shared_ptr<const CachedTable> table;
      Status s = table_cache_->Find(f->number, f->file_size, &table, level, f->global_seqno);
      if (!s.ok()) {
        if (status.ok()) status = s;
        continue;
      }
      // Shares the table's fragmented deletions and keeps the table open with them.
      tombstones.emplace_back(table, table->tombstones.get());
    }
  }
  for (const FileMetaData* f : v->files(0)) {
    children.push_back(table_cache_->NewIterator(topts, f->number, f->file_size, /*level=*/0,
                                                 f->global_seqno));
  }
  TableCache* cache = table_cache_.get();
  for (int level = 1; level < v->num_levels(); level++) {
    const std::vector<FileMetaData*>* files = &v->files(level);
    if (files->empty()) continue;
    children.push_back(NewLevelIterator(
        &icmp_, std::make_unique<VersionLevelFiles>(files),
        [cache, files, topts, level](size_t i, Status*) {
          const FileMetaData* f = (*files)[i];
          return cache->NewIterator(topts, f->number, f->file_size, level, f->global_seqno);
        }));
  }
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
