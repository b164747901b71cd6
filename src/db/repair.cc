// RepairDB (shale/db.h): rebuilds a DB's MANIFEST and CURRENT from the tables and WALs in its
// directory. The Repairer below does one repair; the public functions make one and run it.
//
// Steps (each logged to the info LOG), all under the directory's LOCK:
//  1. take the LOCK; list the directory (under the LOCK: a DB open before it may change files);
//  2. read every old MANIFEST as far as it decodes, for hints only (ReadManifestHints);
//  3. open and verify every table; note the bad ones (moved to lost/ in step 5);
//  4. replay the WALs into per-family memtables and write those as new tables;
//  5. merge, per family, the tables that break the read invariant (below) into one table
//     each; write the new MANIFEST (every table at level 0), sync it, switch CURRENT; move the
//     bad, obsolete and dropped families' tables to lost/ (synced); delete the old MANIFESTs
//     and the merged tables; move the WALs to lost/ (synced).
//
// The read invariant of level 0 (kept by MergeInterleaved): Version::Get searches level-0
// tables newest first, by largest sequence number, and stops at the first table holding the
// key; so for any two level-0 tables of a family whose user-key ranges overlap, every entry of
// the one searched first must be newer than every entry of the other: their sequence ranges
// must not intersect (one's smallest sequence above the other's largest). Flushes keep this;
// tables gathered from several old levels may not (an L2 table holding x@500 and z@950 beside
// an L1 table holding x@800), nor a table rewritten from a WAL beside the table that already
// held the same entries. MergeInterleaved merges every group of such tables by internal key
// (which does not depend on their order) into one table, repeating until no pair is left.
//
// Thread-safety: a Repairer is used by one thread; the LOCK keeps other processes (and DBs of
// this process) out of the directory while it changes files.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/filename.h"
#include "base/internal_key.h"
#include "db/info_log.h"
#include "db/write_batch_internal.h"
#include "iterator/merging_iterator.h"
#include "memtable/memtable.h"
#include "shale/db.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "version/version_edit.h"
#include "version/version_set.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {
namespace {

constexpr uint32_t kDefaultFamilyId = VersionSet::kDefaultColumnFamilyId;

// Logs the damage a log reader skips (WALs and old MANIFESTs).
class LoggingReporter final : public log::Reader::Reporter {
 public:
  LoggingReporter(InfoLog* log, std::string path) : log_(log), path_(std::move(path)) {}
  void Corruption(size_t bytes, const Status& reason) override {
    log_->Log("repair: %s: %zu bytes skipped: %s", path_.c_str(), bytes,
              reason.ToString().c_str());
  }
  void TornTail(size_t bytes, const Status& reason) override {
    log_->Log("repair: %s: torn tail of %zu bytes dropped: %s", path_.c_str(), bytes,
              reason.ToString().c_str());
  }

 private:
  InfoLog* const log_;
  const std::string path_;
};

// What the old MANIFESTs say, as far as they decode. Never trusted for correctness: used to
// name families, to skip dropped ones, to place tables without a family property, to give an
// ingested table its global sequence number, and to skip WAL records already flushed.
struct ManifestHints {
  std::map<uint32_t, std::string> families;  // live families by id (default included)
  std::set<uint32_t> dropped;                // ids dropped
  std::map<uint32_t, uint64_t> log_numbers;  // per family: WALs below hold nothing unflushed
  struct TableHint {
    uint32_t family = kDefaultFamilyId;
    SequenceNumber global_seqno = 0;
  };
  std::map<uint64_t, TableHint> tables;  // by file number, as last added
  // Tables a MANIFEST edit deleted and none added again: obsolete (a compaction's inputs whose
  // files were not yet deleted). File numbers are never reused, so this stays true whatever
  // the MANIFEST says later. Kept, they could bring back data the compaction removed.
  std::set<uint64_t> obsolete;
  SequenceNumber last_sequence = 0;
  uint32_t max_column_family = 0;
  std::string comparator;  // empty: none read
};

// One table found in the directory, and what repair learned of it.
struct FoundTable {
  uint64_t number = 0;
  FileMetaData meta;
  uint32_t family = kDefaultFamilyId;
  bool bad = false;  // failed to open or verify: moved to lost/
};

// One column family of the repaired DB.
struct RepairFamily {
  std::string name;
  ColumnFamilyOptions options;
  std::vector<const FoundTable*> tables;
  MemTable* mem = nullptr;  // WAL replay's memtable (referenced), or null
  // Given to RepairDB but found nowhere in the DB: created empty, with an id repair chose. A
  // WAL record with that id is another family's (a dropped one, or one whose name is lost).
  bool created = false;
};

// One repair of one directory (see the header comment): Run() does every step once.
// Thread-safety: used by one thread; not reusable.
class Repairer {
 public:
  Repairer(std::string dbname, const DBOptions& db_options,
           const std::vector<ColumnFamilyDescriptor>& descriptors,
           const ColumnFamilyOptions& unknown_cf_options)
      : dbname_(std::move(dbname)),
        db_options_(db_options),
        descriptors_(descriptors),
        unknown_cf_options_(unknown_cf_options),
        fs_holder_(db_options.file_system != nullptr ? db_options.file_system
                                                     : FileSystem::Default()),
        fs_(fs_holder_.get()),
        icmp_(DefaultOptions().comparator) {}

  ~Repairer() {
    for (auto& [id, family] : families_) {
      if (family.mem != nullptr) family.mem->Unref();
    }
    if (lock_ != nullptr) fs_->UnlockFile(std::move(lock_)).PermitUncheckedError();
  }

  Status Run();

 private:
  // The default family's options (the comparator every family shares).
  ColumnFamilyOptions DefaultOptions() const {
    for (const ColumnFamilyDescriptor& d : descriptors_) {
      if (d.name == kDefaultColumnFamilyName) return d.options;
    }
    return unknown_cf_options_;
  }
  const ColumnFamilyOptions& OptionsFor(const std::string& name) const {
    for (const ColumnFamilyDescriptor& d : descriptors_) {
      if (d.name == name) return d.options;
    }
    return unknown_cf_options_;
  }
  uint64_t NewFileNumber() { return next_file_number_++; }
  // The bytes a family's WAL memtable holds before it is written as a table: its
  // write_buffer_size, raised to 64 KiB as an open raises it.
  static size_t FlushThreshold(const RepairFamily& family) {
    return std::max<size_t>(family.options.write_buffer_size, size_t{64} << 10);
  }

  void ReadManifestHints();
  void ReadOneManifest(uint64_t number);
  Status ScanTable(uint64_t number, FoundTable* table);
  Status ResolveFamilies();
  Status ReplayWals();
  Status ReplayWal(uint64_t number);
  // Writes the family's WAL memtable as a new table, and drops it.
  Status FlushMemTable(uint32_t id, RepairFamily* family);
  // Writes every entry of `mem` as it is (no version dropped, no merge operands combined: an
  // entry repeated from an existing table must stay identical so MergeTables keeps it once)
  // to the table meta->number, filling in *meta.
  Status WriteRawTable(const MemTable& mem, uint32_t id, const RepairFamily& family,
                       FileMetaData* meta);
  // Writes every entry of `points` and every range deletion of `dels` (may be null) as it is
  // to the table meta->number, filling in *meta. Corruption when there is nothing to write.
  Status WriteRawEntries(InternalIterator* points, InternalIterator* dels, uint32_t id,
                         const RepairFamily& family, FileMetaData* meta);
  // Widens *meta to take in the range deletion [start, end_user_key).
  void AddRangeDeletionBounds(std::string_view start, std::string_view end_user_key,
                              FileMetaData* meta) const;
  // Renames DIR/file to DIR/lost/file (made durable by SyncLost).
  Status MoveToLost(const std::string& file);
  // Syncs lost/ and the DB directory: the renames into lost/ survive a power loss.
  Status SyncLost();
  Status WriteManifest();
  // Two tables that break the read invariant of level 0 (see the header comment).
  static bool Interleaved(const Comparator* ucmp, const FileMetaData& a, const FileMetaData& b);
  Status MergeInterleaved(uint32_t id, RepairFamily* family);
  Status MergeTables(uint32_t id, RepairFamily* family, const std::vector<const FoundTable*>& in,
                     const FoundTable** out);

  const std::string dbname_;
  const DBOptions db_options_;
  const std::vector<ColumnFamilyDescriptor> descriptors_;
  const ColumnFamilyOptions unknown_cf_options_;
  const std::shared_ptr<FileSystem> fs_holder_;
  FileSystem* const fs_;
  const InternalKeyComparator icmp_;

  std::unique_ptr<FileLock> lock_;
  std::unique_ptr<InfoLog> log_;
  std::vector<uint64_t> table_numbers_;
  std::vector<uint64_t> wal_numbers_;
  std::vector<uint64_t> manifest_numbers_;
  uint64_t next_file_number_ = 1;
  SequenceNumber max_sequence_ = 0;
  ManifestHints hints_;
  bool have_hints_ = false;
  // Every table, old and new, by file number (FoundTable addresses stay put in a std::map).
  std::map<uint64_t, FoundTable> tables_;
  // The repaired DB's families by id. Invariant (after ResolveFamilies): holds id 0, named
  // "default"; names are unique.
  std::map<uint32_t, RepairFamily> families_;
  uint32_t max_column_family_ = 0;
  // The family names the tables' properties give, by id.
  std::map<uint32_t, std::string> property_names_;
  // Tables an old MANIFEST says are obsolete: never used; moved to lost/ once CURRENT is
  // switched.
  std::vector<uint64_t> obsolete_tables_;
  // Families (by id) with a bad table, whose WAL records are all replayed, the old MANIFEST's
  // log numbers notwithstanding; replay_every_wal_: a bad table no MANIFEST lists (any family).
  std::set<uint32_t> replay_whole_wals_;
  bool replay_every_wal_ = false;
  // Tables merged into others: deleted once the new MANIFEST is in place.
  std::vector<uint64_t> merged_away_;
};

Status Repairer::Run() {
  if (dbname_.empty()) return Status::InvalidArgument("RepairDB: empty DB name");
  std::vector<std::string> children;
  // Listed once to tell a missing directory (nothing created), and again under the LOCK: a DB
  // opened before the LOCK was taken may have added and removed files since.
  Status s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) {
    return Status::NotFound("RepairDB " + dbname_ + ": no such DB directory", s.ToString());
  }
  s = fs_->LockFile(LockFileName(dbname_), &lock_);
  if (!s.ok()) {
    return Status::IOError("RepairDB " + dbname_ + ": the DB is open (its LOCK is held)",
                           s.ToString());
  }
  children.clear();
  s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  s = InfoLog::Open(fs_, dbname_, &log_);
  if (!s.ok()) return s;
  log_->Log("repair of %s started", dbname_.c_str());
  for (const std::string& child : children) {
    uint64_t number = 0;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    if (type != FileType::kInfoLogFile) next_file_number_ = std::max(next_file_number_, number + 1);
    if (type == FileType::kTableFile) table_numbers_.push_back(number);
    if (type == FileType::kWalFile) wal_numbers_.push_back(number);
    if (type == FileType::kDescriptorFile) manifest_numbers_.push_back(number);
    if (type == FileType::kTempFile) fs_->DeleteFile(dbname_ + "/" + child).PermitUncheckedError();
  }
  std::sort(table_numbers_.begin(), table_numbers_.end());
  std::sort(wal_numbers_.begin(), wal_numbers_.end());
  std::sort(manifest_numbers_.begin(), manifest_numbers_.end());
  ReadManifestHints();
  if (have_hints_ && !hints_.comparator.empty() &&
      hints_.comparator != icmp_.user_comparator()->Name()) {
    return Status::InvalidArgument("RepairDB " + dbname_ + ": the DB was created with comparator " +
                                   hints_.comparator + ", repaired with " +
                                   icmp_.user_comparator()->Name());
  }
  for (uint64_t number : table_numbers_) {
    if (hints_.obsolete.count(number) > 0) {
      // Its data is in the compaction's outputs (or was removed by it): moved aside.
      obsolete_tables_.push_back(number);
      log_->Log("repair: table #%llu is obsolete (an old MANIFEST deleted it): moved to lost/",
                static_cast<unsigned long long>(number));
      continue;
    }
    FoundTable& table = tables_[number];
    table.number = number;
    s = ScanTable(number, &table);
    // A table of another comparator means the wrong options were given: change nothing.
    if (s.IsInvalidArgument() && s.ToString().find("comparator") != std::string::npos) return s;
    if (!s.ok()) {
      table.bad = true;
      log_->Log("repair: table #%llu cannot be used, moved to lost/: %s",
                static_cast<unsigned long long>(number), s.ToString().c_str());
    }
  }
  // A bad table's writes come back from the WALs that still hold them: its family's records
  // are replayed whatever the old MANIFEST says its tables hold (every family's when the
  // MANIFEST does not list the table). The repeats of the good tables merge away.
  for (const auto& [number, table] : tables_) {
    if (!table.bad) continue;
    const auto hint = hints_.tables.find(number);
    if (hint == hints_.tables.end()) {
      replay_every_wal_ = true;
    } else {
      replay_whole_wals_.insert(hint->second.family);
    }
  }
  s = ResolveFamilies();
  if (s.ok()) s = ReplayWals();
  if (!s.ok()) return s;
  for (auto& [number, table] : tables_) {
    if (table.bad) continue;  // moved to lost/ with the obsolete ones, by WriteManifest
    auto it = families_.find(table.family);
    if (it == families_.end()) continue;  // a dropped family's: not in the new MANIFEST
    it->second.tables.push_back(&table);
  }
  for (auto& [id, family] : families_) {
    s = MergeInterleaved(id, &family);
    if (!s.ok()) return s;
    log_->Log("repair: column family \"%s\" (id %u): %zu tables", family.name.c_str(), id,
              family.tables.size());
  }
  s = WriteManifest();
  log_->Log("repair of %s %s", dbname_.c_str(), s.ok() ? "done" : s.ToString().c_str());
  return s;
}

void Repairer::ReadManifestHints() {
  hints_.families[kDefaultFamilyId] = kDefaultColumnFamilyName;
  for (uint64_t number : manifest_numbers_) ReadOneManifest(number);
}

void Repairer::ReadOneManifest(uint64_t number) {
  const std::string path = DescriptorFileName(dbname_, number);
  std::unique_ptr<SequentialFile> file;
  if (!fs_->NewSequentialFile(path, &file).ok()) return;
  LoggingReporter reporter(log_.get(), path);
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0,
                     log::WalRecoveryMode::kSkipAnyCorruptedRecords, path);
  std::string_view record;
  std::string scratch;
  uint64_t edits = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) {
      log_->Log("repair: %s: an undecodable record skipped", path.c_str());
      continue;
    }
    edits++;
    have_hints_ = true;
    const uint32_t id = edit.column_family();
    if (edit.has_comparator()) hints_.comparator = edit.comparator();
    if (edit.has_last_sequence()) {
      hints_.last_sequence = std::max(hints_.last_sequence, edit.last_sequence());
    }
    if (edit.has_max_column_family()) {
      hints_.max_column_family = std::max(hints_.max_column_family, edit.max_column_family());
    }
    if (edit.is_column_family_add()) {
      hints_.families[id] = edit.column_family_name();
      hints_.max_column_family = std::max(hints_.max_column_family, id);
    }
    if (edit.is_column_family_drop() && id != kDefaultFamilyId) {
      hints_.families.erase(id);
      hints_.dropped.insert(id);
    }
    if (edit.has_log_number()) {
      uint64_t& log_number = hints_.log_numbers[id];
      log_number = std::max(log_number, edit.log_number());
    }
    // As VersionBuilder applies an edit: its deletions, then its additions (a move is both).
    for (const auto& [level, number] : edit.deleted_files()) hints_.obsolete.insert(number);
    for (const auto& [level, f] : edit.new_files()) {
      hints_.tables[f.number] = ManifestHints::TableHint{id, f.global_seqno};
      hints_.obsolete.erase(f.number);
    }
  }
  log_->Log("repair: %s: %llu edits read as hints", path.c_str(),
            static_cast<unsigned long long>(edits));
}

void Repairer::AddRangeDeletionBounds(std::string_view start, std::string_view end_user_key,
                                      FileMetaData* meta) const {
  // As BuildTable does: the table covers [start, end); its largest key is the end key with the
  // largest trailer, which sorts before every real entry of the end key.
  const SequenceNumber seq = ExtractSequence(start);
  const std::string end = MakeInternalKey(end_user_key, kMaxSequenceNumber, kTypeRangeDeletion);
  if (meta->smallest.empty() || icmp_.Compare(start, meta->smallest) < 0) {
    meta->smallest.assign(start);
  }
  if (meta->largest.empty() || icmp_.Compare(end, meta->largest) > 0) meta->largest = end;
  meta->smallest_seqno = std::min(meta->smallest_seqno, seq);
  meta->largest_seqno = std::max(meta->largest_seqno, seq);
}

Status Repairer::ScanTable(uint64_t number, FoundTable* table) {
  const std::string path = TableFileName(dbname_, number);
  uint64_t size = 0;
  Status s = fs_->GetFileSize(path, &size);
  std::unique_ptr<RandomAccessFile> file;
  if (s.ok()) s = fs_->NewRandomAccessFile(path, &file);
  if (!s.ok()) return Status::Corruption(path, s.ToString());
  const auto hint = hints_.tables.find(number);
  TableReaderOptions ropts;
  ropts.use_filter = false;
  if (hint != hints_.tables.end()) ropts.global_seqno = hint->second.global_seqno;
  std::unique_ptr<TableReader> reader;
  s = TableReader::Open(ropts, std::move(file), size, path, number, &icmp_, nullptr, &reader);
  if (s.IsInvalidArgument() && s.ToString().find("comparator") != std::string::npos) return s;
  if (s.ok()) s = reader->VerifyChecksums();
  if (!s.ok()) return Status::Corruption(path, s.ToString());
  FileMetaData& meta = table->meta;
  meta.number = number;
  meta.file_size = size;
  meta.global_seqno = ropts.global_seqno;
  TableReadOptions read;
  read.fill_cache = false;
  std::unique_ptr<InternalIterator> it = reader->NewIterator(read);
  std::string previous;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!previous.empty() && icmp_.Compare(previous, it->key()) >= 0) {
      return Status::Corruption(path, "keys out of order");
    }
    previous.assign(it->key());
    meta.UpdateBoundaries(it->key(), ExtractSequence(it->key()));
  }
  if (!it->status().ok()) return Status::Corruption(path, it->status().ToString());
  it.reset();
  std::unique_ptr<InternalIterator> dels = reader->NewRangeTombstoneIterator();
  for (dels->SeekToFirst(); dels->Valid(); dels->Next()) {
    const std::string_view start = dels->key();
    if (icmp_.user_comparator()->Compare(ExtractUserKey(start), dels->value()) >= 0) continue;
    AddRangeDeletionBounds(start, dels->value(), &meta);
  }
  if (!dels->status().ok()) return Status::Corruption(path, dels->status().ToString());
  if (meta.smallest.empty()) return Status::Corruption(path, "no entries");
  const TableProperties& props = reader->properties();
  meta.num_entries = props.num_entries;
  meta.num_deletions = props.num_deletions;
  meta.num_range_deletions = props.num_range_deletions;
  meta.raw_key_size = props.raw_key_size;
  meta.raw_value_size = props.raw_value_size;
  meta.creation_time = props.creation_time;
  max_sequence_ = std::max(max_sequence_, meta.largest_seqno);
  // The family: the table's own property, else the old MANIFEST's word, else "default".
  if (props.has_column_family() &&
      props.column_family_id < TableProperties::kUnknownColumnFamilyId) {
    table->family = static_cast<uint32_t>(props.column_family_id);
    property_names_[table->family] = props.column_family_name;
  } else if (hint != hints_.tables.end()) {
    table->family = hint->second.family;
  } else {
    table->family = kDefaultFamilyId;
    log_->Log("repair: table #%llu names no column family and no MANIFEST lists it: put in "
              "\"default\"",
              static_cast<unsigned long long>(number));
  }
  return Status::OK();
}

Status Repairer::ResolveFamilies() {
  // Candidates: the old MANIFEST's live families, then those only the tables name (unless the
  // MANIFEST says they were dropped).
  std::map<uint32_t, std::string> names = hints_.families;
  for (const auto& [id, name] : property_names_) {
    if (hints_.dropped.count(id) > 0 || names.count(id) > 0) continue;
    names[id] = name;
  }
  names[kDefaultFamilyId] = kDefaultColumnFamilyName;
  // Names are unique among live families and ids never reused: of two ids with one name, the
  // lower was dropped before the higher was created.
  std::map<std::string, uint32_t> by_name;
  for (const auto& [id, name] : names) {
    auto [it, inserted] = by_name.emplace(name, id);
    if (!inserted) {
      log_->Log("repair: column family id %u shares the name \"%s\" with newer id %u: taken "
                "as dropped",
                it->second, name.c_str(), id);
      it->second = id;
    }
  }
  max_column_family_ = hints_.max_column_family;
  for (const auto& [name, id] : by_name) {
    RepairFamily& family = families_[id];
    family.name = name;
    family.options = OptionsFor(name);
    max_column_family_ = std::max(max_column_family_, id);
  }
  for (const ColumnFamilyDescriptor& d : descriptors_) {
    if (d.name.empty()) return Status::InvalidArgument("RepairDB: a column family has no name");
    if (by_name.count(d.name) > 0) continue;
    const uint32_t id = ++max_column_family_;
    RepairFamily& family = families_[id];
    family.name = d.name;
    family.options = d.options;
    family.created = true;
    by_name.emplace(d.name, id);
    log_->Log("repair: column family \"%s\" is not in the DB: created empty (id %u)",
              d.name.c_str(), id);
  }
  for (const auto& [number, table] : tables_) {
    if (!table.bad && families_.count(table.family) == 0) {
      log_->Log("repair: table #%llu belongs to column family id %u, which was dropped: moved "
                "to lost/",
                static_cast<unsigned long long>(number), table.family);
    }
  }
  return Status::OK();
}

Status Repairer::ReplayWals() {
  for (uint64_t number : wal_numbers_) {
    Status s = ReplayWal(number);
    if (!s.ok()) return s;
  }
  for (auto& [id, family] : families_) {
    Status s = FlushMemTable(id, &family);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status Repairer::ReplayWal(uint64_t number) {
  const std::string path = WalFileName(dbname_, number);
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(path, &file);
  if (!s.ok()) {
    log_->Log("repair: %s cannot be read, skipped: %s", path.c_str(), s.ToString().c_str());
    return Status::OK();
  }
  LoggingReporter reporter(log_.get(), path);
  // The most tolerant mode: every record that decodes is kept.
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, 0,
                     log::WalRecoveryMode::kSkipAnyCorruptedRecords, path);
  std::string_view record;
  std::string scratch;
  uint64_t records = 0;
  uint64_t skipped = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    WriteBatch batch;
    if (record.size() < WriteBatchInternal::kHeader ||
        !WriteBatchInternal::SetContents(&batch, record).ok()) {
      skipped++;
      continue;
    }
    // A family's records go to its memtable unless it was dropped, is unknown, or the old
    // MANIFEST says its tables already hold this WAL.
    auto mem_for = [&](uint32_t id) -> MemTable* {
      auto it = families_.find(id);
      if (it == families_.end() || it->second.created) return nullptr;
      auto log_number = hints_.log_numbers.find(id);
      if (!replay_every_wal_ && replay_whole_wals_.count(id) == 0 &&
          log_number != hints_.log_numbers.end() && number < log_number->second) {
        return nullptr;
      }
      RepairFamily& family = it->second;
      if (family.mem == nullptr) {
        // Arena blocks of 1/8 of the write buffer, as the DB's memtables have: one default
        // 1 MiB block would count as a full small buffer, a table per record.
        MemTable::Options mopts;
        mopts.arena_block_size =
            std::clamp<size_t>(FlushThreshold(family) / 8, 4096, Arena::kDefaultBlockSize);
        family.mem = new MemTable(icmp_, mopts);
        family.mem->Ref();
      }
      return family.mem;
    };
    s = WriteBatchInternal::InsertInto(
        batch, mem_for, /*skip_families_without_memtable=*/true,
        [](uint32_t, SequenceNumber, std::string_view, std::string_view, std::string*) {
          return false;
        });
    if (!s.ok()) {
      log_->Log("repair: %s: a bad batch skipped: %s", path.c_str(), s.ToString().c_str());
      skipped++;
      continue;
    }
    records++;
    if (WriteBatchInternal::Count(batch) > 0) {
      max_sequence_ = std::max(max_sequence_, WriteBatchInternal::Sequence(batch) +
                                                  WriteBatchInternal::Count(batch) - 1);
    }
    for (auto& [id, family] : families_) {
      if (family.mem != nullptr &&
          family.mem->ApproximateMemoryUsage() >= FlushThreshold(family)) {
        s = FlushMemTable(id, &family);
        if (!s.ok()) return s;
      }
    }
  }
  log_->Log("repair: %s: %llu records replayed, %llu skipped", path.c_str(),
            static_cast<unsigned long long>(records), static_cast<unsigned long long>(skipped));
  return Status::OK();
}

Status Repairer::FlushMemTable(uint32_t id, RepairFamily* family) {
  if (family->mem == nullptr) return Status::OK();
  MemTable* mem = family->mem;
  family->mem = nullptr;
  Status s;
  if (mem->num_entries() > 0) {
    FoundTable table;
    table.number = NewFileNumber();
    table.family = id;
    table.meta.number = table.number;
    s = WriteRawTable(*mem, id, *family, &table.meta);
    if (s.ok()) {
      log_->Log("repair: column family \"%s\": %llu WAL entries -> table #%llu",
                family->name.c_str(), static_cast<unsigned long long>(mem->num_entries()),
                static_cast<unsigned long long>(table.number));
      tables_[table.number] = std::move(table);
    }
  }
  mem->Unref();
  return s;
}

Status Repairer::WriteRawTable(const MemTable& mem, uint32_t id, const RepairFamily& family,
                               FileMetaData* meta) {
  std::unique_ptr<InternalIterator> points = mem.NewIterator();
  std::unique_ptr<InternalIterator> dels;
  if (mem.num_range_deletes() > 0) dels = mem.NewRangeTombstoneIterator();
  return WriteRawEntries(points.get(), dels.get(), id, family, meta);
}

Status Repairer::WriteRawEntries(InternalIterator* points, InternalIterator* dels, uint32_t id,
                                 const RepairFamily& family, FileMetaData* meta) {
  const std::string path = TableFileName(dbname_, meta->number);
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  TableBuilder builder(family.options.table_options, family.options.compression,
                       family.options.compression_level, &icmp_, file.get(), path);
  builder.SetColumnFamily(id, family.name);
  for (points->SeekToFirst(); points->Valid(); points->Next()) {
    builder.Add(points->key(), points->value());
    meta->UpdateBoundaries(points->key(), ExtractSequence(points->key()));
  }
  s = points->status();
  if (s.ok() && dels != nullptr) {
    for (dels->SeekToFirst(); dels->Valid(); dels->Next()) {
      const std::string_view start = dels->key();
      // An empty range deletes nothing (and would make the largest key smaller than the
      // smallest): left out, as BuildTable does.
      if (icmp_.user_comparator()->Compare(ExtractUserKey(start), dels->value()) >= 0) continue;
      builder.Add(start, dels->value());
      AddRangeDeletionBounds(start, dels->value(), meta);
    }
    s = dels->status();
  }
  const bool empty = builder.NumEntries() == 0;
  if (s.ok() && !empty) {
    s = builder.Finish();
  } else {
    builder.Abandon();
  }
  if (s.ok() && !empty) s = file->Sync();
  Status close = file->Close();
  if (s.ok()) s = close;
  if (s.ok() && !empty) s = fs_->SyncDir(dbname_);
  if (!s.ok() || empty) {
    fs_->DeleteFile(path).PermitUncheckedError();
    return s.ok() ? Status::Corruption(path, "no entries to write") : s;
  }
  const TableProperties& props = builder.properties();
  meta->file_size = builder.FileSize();
  meta->num_entries = props.num_entries;
  meta->num_deletions = props.num_deletions;
  meta->num_range_deletions = props.num_range_deletions;
  meta->raw_key_size = props.raw_key_size;
  meta->raw_value_size = props.raw_value_size;
  meta->creation_time = props.creation_time;
  return Status::OK();
}

Status Repairer::MoveToLost(const std::string& file) {
  const std::string lost = dbname_ + "/lost";
  Status s = fs_->CreateDirIfMissing(lost);
  if (s.ok()) s = fs_->RenameFile(dbname_ + "/" + file, lost + "/" + file);
  if (!s.ok()) return Status::IOError("RepairDB: moving " + file + " to " + lost, s.ToString());
  log_->Log("repair: %s moved to lost/", file.c_str());
  return Status::OK();
}

Status Repairer::WriteManifest() {
  const uint64_t manifest_number = NewFileNumber();
  // Above every old WAL: the new MANIFEST needs none of them.
  const uint64_t log_number = NewFileNumber();
  const SequenceNumber last_sequence = std::max(max_sequence_, hints_.last_sequence);
  std::vector<std::string> records;
  for (const auto& [id, family] : families_) {
    VersionEdit edit;
    edit.SetColumnFamily(id);
    if (id == kDefaultFamilyId) {
      edit.SetComparatorName(icmp_.user_comparator()->Name());
      edit.SetPrevLogNumber(0);
      edit.SetNextFile(next_file_number_);
      edit.SetLastSequence(last_sequence);
      if (max_column_family_ > 0) edit.SetMaxColumnFamily(max_column_family_);
    } else {
      edit.AddColumnFamily(family.name);
    }
    edit.SetLogNumber(log_number);
    for (const FoundTable* table : family.tables) edit.AddFile(0, table->meta);
    edit.EncodeTo(&records.emplace_back());
  }
  const std::string path = DescriptorFileName(dbname_, manifest_number);
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  log::Writer writer(std::move(file));
  for (const std::string& record : records) {
    if (s.ok()) s = writer.AddRecord(record);
  }
  if (s.ok()) s = writer.Sync();
  Status close = writer.Close();
  if (s.ok()) s = close;
  bool renamed = false;
  if (s.ok()) s = VersionSet::SetCurrentFile(fs_, dbname_, manifest_number, &renamed);
  if (!s.ok()) {
    if (!renamed) fs_->DeleteFile(path).PermitUncheckedError();
    return s;
  }
  log_->Log("repair: wrote %s: %zu column families, last sequence %llu", path.c_str(),
            families_.size(), static_cast<unsigned long long>(last_sequence));
  // CURRENT names the new MANIFEST. Only now do the obsolete and bad tables leave the
  // directory (a repair that fails before this leaves every file where the old MANIFEST
  // expects it), and durably before the old MANIFESTs go: those are what says an obsolete
  // table is obsolete, and a later repair must not find the table back in the directory.
  // A dropped family's tables go too: left here, a later repair with no MANIFEST that says
  // the family was dropped would bring it back from their properties.
  std::vector<uint64_t> set_aside = obsolete_tables_;
  for (const auto& [number, table] : tables_) {
    if (table.bad || families_.count(table.family) == 0) set_aside.push_back(number);
  }
  for (uint64_t number : set_aside) {
    s = MoveToLost(TableFileName(dbname_, number).substr(dbname_.size() + 1));
    if (!s.ok()) return s;
  }
  if (!set_aside.empty()) {
    s = SyncLost();
    if (!s.ok()) return s;
  }
  // The old MANIFESTs, and the WALs replayed, are not needed.
  for (uint64_t number : manifest_numbers_) {
    fs_->DeleteFile(DescriptorFileName(dbname_, number)).PermitUncheckedError();
  }
  for (uint64_t number : merged_away_) {
    fs_->DeleteFile(TableFileName(dbname_, number)).PermitUncheckedError();
  }
  for (uint64_t number : wal_numbers_) {
    s = MoveToLost(WalFileName(dbname_, number).substr(dbname_.size() + 1));
    if (!s.ok()) return s;
  }
  return wal_numbers_.empty() ? fs_->SyncDir(dbname_) : SyncLost();
}

Status Repairer::SyncLost() {
  // A rename is durable once the target's directory is synced; the DB directory's sync makes
  // lost/'s own entry and the sources' removal durable.
  Status s = fs_->SyncDir(dbname_ + "/lost");
  if (s.ok()) s = fs_->SyncDir(dbname_);
  return s;
}

bool Repairer::Interleaved(const Comparator* ucmp, const FileMetaData& a,
                           const FileMetaData& b) {
  const bool keys_overlap =
      ucmp->Compare(ExtractUserKey(a.smallest), ExtractUserKey(b.largest)) <= 0 &&
      ucmp->Compare(ExtractUserKey(b.smallest), ExtractUserKey(a.largest)) <= 0;
  return keys_overlap && a.smallest_seqno <= b.largest_seqno &&
         b.smallest_seqno <= a.largest_seqno;
}

Status Repairer::MergeInterleaved(uint32_t id, RepairFamily* family) {
  const Comparator* ucmp = icmp_.user_comparator();
  for (;;) {
    // The groups of the relation's transitive closure (union-find over the family's tables).
    std::vector<const FoundTable*>& tables = family->tables;
    std::vector<size_t> parent(tables.size());
    for (size_t i = 0; i < parent.size(); i++) parent[i] = i;
    auto root = [&](size_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    bool any = false;
    for (size_t i = 0; i < tables.size(); i++) {
      for (size_t j = i + 1; j < tables.size(); j++) {
        if (Interleaved(ucmp, tables[i]->meta, tables[j]->meta)) {
          parent[root(i)] = root(j);
          any = true;
        }
      }
    }
    // Invariant holds: no pair left.
    if (!any) return Status::OK();
    std::map<size_t, std::vector<const FoundTable*>> groups;
    for (size_t i = 0; i < tables.size(); i++) groups[root(i)].push_back(tables[i]);
    std::vector<const FoundTable*> kept;
    for (auto& [r, group] : groups) {
      if (group.size() == 1) {
        kept.push_back(group[0]);
        continue;
      }
      const FoundTable* merged = nullptr;
      Status s = MergeTables(id, family, group, &merged);
      if (!s.ok()) return s;
      if (merged != nullptr) kept.push_back(merged);
    }
    // A merged table spans its group's key and sequence ranges: it may now interleave with
    // another table, so look again (each round has fewer tables: this ends).
    tables = std::move(kept);
  }
}

// Forward and backward over `input`, showing one entry of each run of equal internal keys:
// a table rewritten from a WAL may repeat entries of a table that already held them, and a
// merge operand must not count twice. Thread-safety: one thread at a time.
class SkipRepeatsIterator final : public InternalIterator {
 public:
  explicit SkipRepeatsIterator(std::unique_ptr<InternalIterator> input)
      : input_(std::move(input)) {}
  bool Valid() const override { return input_->Valid(); }
  void SeekToFirst() override { input_->SeekToFirst(); }
  void SeekToLast() override { input_->SeekToLast(); }
  void Seek(std::string_view target) override { input_->Seek(target); }
  void SeekForPrev(std::string_view target) override { input_->SeekForPrev(target); }
  void Next() override {
    const std::string current(input_->key());
    do {
      input_->Next();
    } while (input_->Valid() && input_->key() == current);
  }
  void Prev() override {
    const std::string current(input_->key());
    do {
      input_->Prev();
    } while (input_->Valid() && input_->key() == current);
  }
  std::string_view key() const override { return input_->key(); }
  std::string_view value() const override { return input_->value(); }
  Status status() const override { return input_->status(); }

 private:
  const std::unique_ptr<InternalIterator> input_;
};

Status Repairer::MergeTables(uint32_t id, RepairFamily* family,
                             const std::vector<const FoundTable*>& in, const FoundTable** out) {
  *out = nullptr;
  std::vector<std::unique_ptr<TableReader>> readers;
  std::vector<std::unique_ptr<InternalIterator>> points;
  std::vector<std::unique_ptr<InternalIterator>> dels;
  TableReadOptions read;
  read.fill_cache = false;
  for (const FoundTable* table : in) {
    const std::string path = TableFileName(dbname_, table->number);
    std::unique_ptr<RandomAccessFile> file;
    Status s = fs_->NewRandomAccessFile(path, &file);
    TableReaderOptions ropts;
    ropts.use_filter = false;
    ropts.global_seqno = table->meta.global_seqno;
    std::unique_ptr<TableReader> reader;
    if (s.ok()) {
      s = TableReader::Open(ropts, std::move(file), table->meta.file_size, path, table->number,
                            &icmp_, nullptr, &reader);
    }
    if (!s.ok()) return s;
    points.push_back(reader->NewIterator(read));
    dels.push_back(reader->NewRangeTombstoneIterator());
    readers.push_back(std::move(reader));
  }
  std::unique_ptr<InternalIterator> merged_points = std::make_unique<SkipRepeatsIterator>(
      NewMergingIterator(&icmp_, std::move(points)));
  // Every range deletion (a repeat deletes nothing more; two with one start and sequence but
  // different ends, as a compaction may cut them, are both kept).
  std::unique_ptr<InternalIterator> merged_dels = NewMergingIterator(&icmp_, std::move(dels));
  FoundTable table;
  table.number = NewFileNumber();
  table.family = id;
  table.meta.number = table.number;
  // The union of the inputs, every entry as it is (no version dropped, no operand combined):
  // a later repair that finds this table beside its inputs (their deletion failed, or a crash
  // came first) makes the same union again, where a combined entry (x@6 "base,b" from x@4
  // "base" and the operand x@6 "b") would take the operand a second time.
  Status s = WriteRawEntries(merged_points.get(), merged_dels.get(), id, *family, &table.meta);
  if (!s.ok()) return s;
  std::string numbers;
  for (const FoundTable* t : in) {
    merged_away_.push_back(t->number);
    numbers += " #" + std::to_string(t->number);
  }
  log_->Log("repair: column family \"%s\": tables%s overlap with interleaved sequence "
            "numbers: merged into table #%llu",
            family->name.c_str(), numbers.c_str(),
            static_cast<unsigned long long>(table.number));
  auto [it, inserted] = tables_.emplace(table.number, std::move(table));
  *out = &it->second;
  return Status::OK();
}

}  // namespace

Status RepairDB(const std::string& name, const DBOptions& db_options,
                const std::vector<ColumnFamilyDescriptor>& column_families,
                const ColumnFamilyOptions& unknown_cf_options) {
  Repairer repairer(name, db_options, column_families, unknown_cf_options);
  return repairer.Run();
}

Status RepairDB(const std::string& name, const Options& options) {
  const ColumnFamilyOptions& cf_options = options;
  return RepairDB(name, static_cast<const DBOptions&>(options),
                  {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options)}, cf_options);
}

}  // namespace shale
