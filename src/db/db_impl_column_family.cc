// DBImpl: column families (doc/column_families.md). The ColumnFamilyData and handle types,
// creating and dropping families, and the checks that tie a handle to a live family.
#include "absl/strings/str_cat.h"
#include "cache/lru_cache.h"
#include "db/column_family.h"
#include "db/db_impl.h"
#include "options/options_sanitize.h"
#include "options/options_validate.h"
#include "util/absl_compat.h"

namespace shale {

ColumnFamilyHandle::~ColumnFamilyHandle() = default;

ColumnFamilyData::ColumnFamilyData(uint32_t id, std::string name, const Options& opts)
    : options(opts),
      id_(id),
      name_(std::move(name)),
      comparator_(opts.comparator),
      merge_operator_(opts.merge_operator) {}

ColumnFamilyData::~ColumnFamilyData() = default;

Status ColumnFamilyHandleImpl::GetDescriptor(ColumnFamilyDescriptor* descriptor) {
  const bool alive = owner_->WithDbMutex([&](Mutex* db_mutex) {
    MutexLock lock(db_mutex);
    descriptor->name = cfd_->name();
    descriptor->options = static_cast<const ColumnFamilyOptions&>(cfd_->options);
  });
  return alive ? Status::OK()
               : Status::ShutdownInProgress("GetDescriptor: the DB is destroyed");
}

// Every ColumnFamilyHandle a DB hands out is a ColumnFamilyHandleImpl (the class is not meant
// to be implemented by users): the cast is static, as RocksDB's, on the read path; the owner
// check refuses a handle of another DB.
ColumnFamilyData* DBImpl::FamilyOf(ColumnFamilyHandle* column_family) const {
  if (column_family == nullptr) return nullptr;
  auto* impl = static_cast<ColumnFamilyHandleImpl*>(column_family);
  return impl->owner() == handle_owner_.get() ? impl->cfd().get() : nullptr;
}

std::shared_ptr<ColumnFamilyData> DBImpl::SharedFamilyOf(
    ColumnFamilyHandle* column_family) const {
  if (column_family == nullptr) return nullptr;
  auto* impl = static_cast<ColumnFamilyHandleImpl*>(column_family);
  return impl->owner() == handle_owner_.get() ? impl->cfd() : nullptr;
}

Status DBImpl::LiveFamilyLocked(ColumnFamilyHandle* column_family, std::string_view what,
                                ColumnFamilyData** cfd) const {
  ColumnFamilyData* found = FamilyOf(column_family);
  if (found == nullptr) {
    return Status::InvalidArgument(absl::StrCat(ToAbsl(what), ": null or foreign column family handle"));
  }
  if (found->dropped) {
    return Status::InvalidArgument(
        absl::StrCat(ToAbsl(what), ": column family \"", found->name(), "\" was dropped"));
  }
  auto it = column_families_.find(found->id());
  if (it == column_families_.end() || it->second.get() != found) {
    return Status::InvalidArgument(
        absl::StrCat(ToAbsl(what), ": the column family handle is not of this DB"));
  }
  *cfd = found;
  return Status::OK();
}

Status DBImpl::CheckFamilyOptions(const std::string& name, const ColumnFamilyOptions& options,
                                  const ColumnFamilyOptions& default_options) const {
  auto refuse = [&name](std::string_view why) {
    return Status::InvalidArgument(absl::StrCat("column family \"", name, "\": ", ToAbsl(why)));
  };
  if (options.comparator == nullptr ||
      std::string_view(options.comparator->Name()) != default_options.comparator->Name()) {
    return refuse(absl::StrCat("its comparator must be the DB's (", default_options.comparator->Name(),
                               "): per-family comparators are not supported"));
  }
  const TableOptions& t = options.table_options;
  const TableOptions& d = default_options.table_options;
  if (t.block_cache != nullptr && t.block_cache != block_cache_) {
    return refuse(
        "table_options.block_cache must be unset or the DB's block cache (the default "
        "family's): the block cache is shared by all families");
  }
  if (t.no_block_cache != d.no_block_cache ||
      t.cache_index_and_filter_blocks != d.cache_index_and_filter_blocks ||
      t.pin_top_level_index_and_filter != d.pin_top_level_index_and_filter ||
      t.pin_l0_filter_and_index_blocks_in_cache != d.pin_l0_filter_and_index_blocks_in_cache ||
      t.charge_table_reader_memory != d.charge_table_reader_memory) {
    return refuse(
        "table_options no_block_cache, cache_index_and_filter_blocks, "
        "pin_top_level_index_and_filter, pin_l0_filter_and_index_blocks_in_cache and "
        "charge_table_reader_memory must match the default family's (the table cache that reads every family uses them)");
  }
  return Status::OK();
}

std::shared_ptr<ColumnFamilyData> DBImpl::NewFamilyLocked(uint32_t id, const std::string& name,
                                                          const ColumnFamilyOptions& options) {
  Options combined(db_options_, options);
  if (combined.table_options.block_cache == nullptr && !combined.table_options.no_block_cache) {
    combined.table_options.block_cache = block_cache_;
  }
  auto cfd = std::make_shared<ColumnFamilyData>(id, name, combined);
  cfd->picker = NewCompactionPicker(combined.compaction_style, &icmp_);
  cfd->compaction_stats.resize(static_cast<size_t>(versions_->num_levels(id)));
  cfd->mems.SetLogNumber(log_number_);
  return cfd;
}

Status DBImpl::CreateColumnFamily(const ColumnFamilyOptions& user_options,
                                  const std::string& name, ColumnFamilyHandle** handle) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  if (handle == nullptr) return Status::InvalidArgument("CreateColumnFamily: null handle pointer");
  *handle = nullptr;
  if (name.empty()) return Status::InvalidArgument("CreateColumnFamily: empty name");
  // The options as Open checks them, with the DB's part.
  Options options;
  {
    MutexLock lock(&mu_);
    options = Options(db_options_, user_options);
  }
  std::vector<std::string> adjusted;
  SanitizeOptions(&options, &adjusted);
  Status s = ValidateOptions(options);
  if (s.ok()) s = CheckSupportedNow(options);
  if (!s.ok()) return s;

  MutexLock serial(&set_options_mu_);  // the OPTIONS file is written below
  InFlightCall call(this, /*mu_held=*/false);
  if (!call.status().ok()) return call.status();
  std::shared_ptr<ColumnFamilyData> cfd;
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  uint64_t options_number = 0;
  {
    MutexLock lock(&mu_);
    s = CheckFamilyOptions(name, options, default_cf_->options);
    if (!s.ok()) return s;
    uint32_t existing = 0;
    if (versions_->FindColumnFamily(name, &existing)) {
      return Status::InvalidArgument(
          absl::StrCat("CreateColumnFamily: column family \"", name, "\" already exists"));
    }
    // At the write queue's front: the family's first memtable writes to the WAL being written
    // now, and no write group is between its log number and its memtable.
    WriteQueue::Front front(&write_queue_, &mu_);
    if (!bg_error_.ok()) return bg_error_;
    uint32_t id = 0;
    ColumnFamilyConfig config;
    config.name = name;
    config.num_levels = options.num_levels;
    s = versions_->CreateColumnFamily(config, log_number_, &mu_, &id);
    if (!s.ok()) {
      RecordBackgroundErrorLocked(s, "MANIFEST write of a new column family");
      return s;
    }
    cfd = NewFamilyLocked(id, name, options);
    cfd->mems.Init(NewMemTable(*cfd));
    SuperVersion* none = InstallSuperVersionLocked(cfd.get());
    (void)none;
    column_families_[id] = cfd;
    front.Release();
    CollectOptionsLocked(&db_options, &families);
    options_number = versions_->NewFileNumber();
    options_file_writing_ = options_number;
    info_log_->Log("created column family \"%s\" (id %u)", name.c_str(), id);
    for (const std::string& note : adjusted) {
      info_log_->Log("column family \"%s\": option adjusted as RocksDB does: %s", name.c_str(),
                     note.c_str());
    }
  }
  // The family exists (the MANIFEST says so) whatever happens to its OPTIONS file: the next
  // OPTIONS file written (or the next Open's) lists it.
  Status w = WriteOptionsFileNumbered(db_options, families, options_number);
  {
    MutexLock lock(&mu_);
    if (w.ok()) options_file_number_ = options_number;
    options_file_writing_ = 0;
    if (!w.ok()) {
      info_log_->Log("column family \"%s\": writing the OPTIONS file failed: %s", name.c_str(),
                     w.ToString().c_str());
    }
  }
  DeleteObsoleteFiles();
  *handle = NewHandle(cfd);
  return Status::OK();
}

Status DB::CreateColumnFamilies(const ColumnFamilyOptions& options,
                                const std::vector<std::string>& names,
                                std::vector<ColumnFamilyHandle*>* handles) {
  if (handles == nullptr) return Status::InvalidArgument("CreateColumnFamilies: null handles");
  handles->clear();
  for (const std::string& name : names) {
    ColumnFamilyHandle* handle = nullptr;
    Status s = CreateColumnFamily(options, name, &handle);
    if (!s.ok()) return s;
    handles->push_back(handle);
  }
  return Status::OK();
}

Status DB::CreateColumnFamilies(const std::vector<ColumnFamilyDescriptor>& column_families,
                                std::vector<ColumnFamilyHandle*>* handles) {
  if (handles == nullptr) return Status::InvalidArgument("CreateColumnFamilies: null handles");
  handles->clear();
  for (const ColumnFamilyDescriptor& d : column_families) {
    ColumnFamilyHandle* handle = nullptr;
    Status s = CreateColumnFamily(d.options, d.name, &handle);
    if (!s.ok()) return s;
    handles->push_back(handle);
  }
  return Status::OK();
}

Status DB::DropColumnFamilies(const std::vector<ColumnFamilyHandle*>& column_families) {
  for (ColumnFamilyHandle* h : column_families) {
    Status s = DropColumnFamily(h);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status DBImpl::DropColumnFamily(ColumnFamilyHandle* column_family) {
  if (Status ro = CheckWritable(); !ro.ok()) return ro;  // read-only DB
  MutexLock serial(&set_options_mu_);  // the OPTIONS file is written below
  InFlightCall call(this, /*mu_held=*/false);
  if (!call.status().ok()) return call.status();
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  uint64_t options_number = 0;
  SuperVersion* old_sv = nullptr;
  {
    MutexLock lock(&mu_);
    ColumnFamilyData* cfd = nullptr;
    Status s = LiveFamilyLocked(column_family, "DropColumnFamily", &cfd);
    if (!s.ok()) return s;
    if (cfd->id() == 0) {
      return Status::InvalidArgument("DropColumnFamily: the default column family cannot be dropped");
    }
    // At the write queue's front: no write group is inserting into the family meanwhile.
    WriteQueue::Front front(&write_queue_, &mu_);
    if (cfd->dropped) {
      return Status::InvalidArgument(
          absl::StrCat("DropColumnFamily: column family \"", cfd->name(), "\" was dropped"));
    }
    s = versions_->DropColumnFamily(cfd->id(), &mu_);
    if (!s.ok()) {
      RecordBackgroundErrorLocked(s, "MANIFEST write of a column family drop");
      return s;
    }
    cfd->dropped = true;
    // Out of the map; its SuperVersion stays (readers holding a handle still read it) until
    // only dropped_families_ holds it (SweepDroppedFamiliesLocked).
    auto it = column_families_.find(cfd->id());
    dropped_families_.push_back(it->second);
    num_dropped_families_.fetch_add(1, std::memory_order_release);
    column_families_.erase(it);
    front.Release();
    RecalculateWriteStallLocked();
    CollectOptionsLocked(&db_options, &families);
    options_number = versions_->NewFileNumber();
    options_file_writing_ = options_number;
    info_log_->Log("dropped column family \"%s\" (id %u)", cfd->name().c_str(), cfd->id());
    bg_cv_.SignalAll();
  }
  (void)old_sv;
  Status w = WriteOptionsFileNumbered(db_options, families, options_number);
  {
    MutexLock lock(&mu_);
    if (w.ok()) options_file_number_ = options_number;
    options_file_writing_ = 0;
  }
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::DestroyColumnFamilyHandle(ColumnFamilyHandle* column_family) {
  if (column_family == nullptr || column_family == default_handle_.get()) return Status::OK();
  if (FamilyOf(column_family) == nullptr) {
    return Status::InvalidArgument("DestroyColumnFamilyHandle: a handle of another DB");
  }
  delete column_family;  // its destructor calls ReleaseDroppedFamilies
  return Status::OK();
}

ColumnFamilyHandle* DBImpl::NewHandle(std::shared_ptr<ColumnFamilyData> cfd) {
  return new ColumnFamilyHandleImpl(std::move(cfd), handle_owner_, /*notify_owner=*/true);
}

void DBImpl::ReleaseDroppedFamilies() {
  if (num_dropped_families_.load(std::memory_order_acquire) == 0) return;
  // Registered, so that Close (which releases them itself) waits for the file deletion below
  // rather than racing it past the LOCK's release; refused once Close has begun.
  InFlightCall call(this, /*mu_held=*/false);
  if (!call.status().ok()) return;
  DeleteObsoleteFiles();  // sweeps, then deletes the dropped families' tables
}

void DBImpl::SweepDroppedFamiliesLocked(std::vector<SuperVersion*>* svs,
                                        std::vector<MemTable*>* mems,
                                        std::vector<std::shared_ptr<ColumnFamilyData>>* freed) {
  for (auto it = dropped_families_.begin(); it != dropped_families_.end();) {
    // Only this list holds it: no handle, no SuperVersion reader (they hold the family through
    // their handle), no write group.
    if (it->use_count() > 1) {
      ++it;
      continue;
    }
    ColumnFamilyData* cfd = it->get();
    ScrapeSuperVersionSlotsLocked(cfd);
    cfd->super_version_number.store(0, std::memory_order_release);
    if (cfd->super_version != nullptr) svs->push_back(cfd->super_version);
    cfd->super_version = nullptr;
    cfd->mems.ReleaseAll(mems);
    // Freed by the caller after it releases the mutex: the family's options (a merge
    // operator's destructor runs user code) must not run under it (review 2, finding 2).
    freed->push_back(std::move(*it));
    it = dropped_families_.erase(it);
    num_dropped_families_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace shale
