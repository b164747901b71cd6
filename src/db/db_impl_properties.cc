// DBImpl: GetProperty / GetIntProperty (the names are listed in shale/db.h).
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/filename.h"
#include "db/db_impl.h"
#include "memtable/memtable_allocator.h"
#include "util/absl_compat.h"
#include "util/clock.h"

namespace shale {
namespace {

constexpr double kMB = 1048576.0;

// Parses the level of "shale.num-files-at-level<N>"; false if it is not such a name.
bool ParseLevelProperty(std::string_view property, int num_levels, int* level) {
  constexpr std::string_view prefix = DB::Properties::kNumFilesAtLevelPrefix;
  if (property.substr(0, prefix.size()) != prefix) return false;
  return absl::SimpleAtoi(ToAbsl(property.substr(prefix.size())), level) && *level >= 0 &&
         *level < num_levels;
}

// The properties RocksDB has under the same name and meaning: "rocksdb.<name>" reads
// "shale.<name>" (num-files-at-level<N> is handled by prefix). Not compaction-pending:
// RocksDB's ignores disable_auto_compactions (it says whether the tree needs compaction),
// ours says whether an automatic compaction is due, so it stays shale.-only.
constexpr std::string_view kRocksDbAliases[] = {
    "stats",
    "levelstats",
    "sstables",
    "cur-size-all-mem-tables",
    "size-all-mem-tables",
    "estimate-num-keys",
    "num-running-compactions",
    "num-running-flushes",
    "estimate-pending-compaction-bytes",
    "actual-delayed-write-rate",
    "is-write-stopped",
    "block-cache-usage",
    "block-cache-pinned-usage",
    "block-cache-capacity",
    "estimate-table-readers-mem",
    "background-errors",
    "num-immutable-mem-table",
    "mem-table-flush-pending",
    "num-entries-active-mem-table",
    "num-deletes-active-mem-table",
    "num-entries-imm-mem-tables",
    "num-deletes-imm-mem-tables",
    "num-snapshots",
};

// The shale. name a property is read under: `property` itself, or for a RocksDB alias the
// shale. name (built in *buf). Unknown rocksdb. names are returned as they are (and then
// match nothing).
std::string_view CanonicalPropertyName(std::string_view property, std::string* buf) {
  constexpr std::string_view kRocksDb = "rocksdb.";
  if (property.substr(0, kRocksDb.size()) != kRocksDb) return property;
  const std::string_view name = property.substr(kRocksDb.size());
  bool known = name.substr(0, std::string_view("num-files-at-level").size()) ==
               "num-files-at-level";
  for (std::string_view alias : kRocksDbAliases) known |= name == alias;
  if (!known) return property;
  *buf = absl::StrCat("shale.", ToAbsl(name));
  return *buf;
}

}  // namespace

bool DBImpl::GetIntProperty(ColumnFamilyHandle* column_family, std::string_view property,
                            uint64_t* value) {
  std::string canonical;
  property = CanonicalPropertyName(property, &canonical);
  ColumnFamilyData* cfd = FamilyOf(column_family);
  MutexLock lock(&mu_);
  if (closed_ || cfd == nullptr || cfd->dropped) return false;
  const MemTableSet& mems = cfd->mems;
  int level;
  if (ParseLevelProperty(property, versions_->num_levels(cfd->id()), &level)) {
    *value = versions_->NumLevelFiles(level, cfd->id());
    return true;
  }
  if (property == Properties::kCurSizeAllMemTables) {
    *value = mems.MemoryUsage();
    return true;
  }
  if (property == Properties::kSizeAllMemTables) {
    *value = mems.MemoryUsage() + mems.FlushedBytesPinned();
    return true;
  }
  if (property == Properties::kBlockCacheUsage) {
    *value = block_cache_ == nullptr ? 0 : block_cache_->GetUsage();
    return true;
  }
  if (property == Properties::kBlockCachePinnedUsage) {
    *value = block_cache_ == nullptr ? 0 : block_cache_->GetPinnedUsage();
    return true;
  }
  if (property == Properties::kBlockCacheCapacity) {
    *value = block_cache_ == nullptr ? 0 : block_cache_->GetCapacity();
    return true;
  }
  if (property == Properties::kEstimateTableReadersMem) {
    *value = table_cache_->ApproximateReadersMemory();
    return true;
  }
  if (property == Properties::kTableReadersMemCharged) {
    *value = table_cache_->charges_readers_memory() ? table_cache_->ApproximateReadersMemory() : 0;
    return true;
  }
  if (property == Properties::kMemoryUsage) {
    // The DB's: every family's memtables.
    uint64_t memtables = 0;
    for (const auto& [id, family] : column_families_) {
      memtables += family->mems.MemoryUsage() + family->mems.FlushedBytesPinned();
    }
    // Readers charged to the block cache are in its usage already.
    *value = memtables + (block_cache_ == nullptr ? 0 : block_cache_->GetUsage()) +
             (table_cache_->charges_readers_memory() ? 0
                                                     : table_cache_->ApproximateReadersMemory());
    return true;
  }
  if (property == Properties::kEstimateNumKeys) {
    *value = EstimateNumKeysLocked(*cfd);
    return true;
  }
  if (property == Properties::kCompactionPending) {
    *value = !cfd->options.disable_auto_compactions && cfd->picker != nullptr &&
             cfd->picker->NeedsCompaction(*versions_->current(cfd->id()), cfd->options,
                                          static_cast<uint64_t>(std::time(nullptr)));
    return true;
  }
  if (property == Properties::kNumImmutableMemTable) {
    *value = mems.immutables().size();
    return true;
  }
  if (property == Properties::kMemTableFlushPending) {
    *value = mems.immutables().empty() ? 0 : 1;
    return true;
  }
  if (property == Properties::kNumEntriesActiveMemTable) {
    *value = mems.mem()->num_entries();
    return true;
  }
  if (property == Properties::kNumDeletesActiveMemTable) {
    *value = mems.mem()->num_deletes();
    return true;
  }
  if (property == Properties::kNumEntriesImmMemTables ||
      property == Properties::kNumDeletesImmMemTables) {
    const bool entries = property == Properties::kNumEntriesImmMemTables;
    *value = 0;
    for (const MemTableSet::Immutable& m : mems.immutables()) {
      *value += entries ? m.mem->num_entries() : m.mem->num_deletes();
    }
    return true;
  }
  if (property == Properties::kNumSnapshots) {
    *value = snapshots_.size();
    return true;
  }
  if (property == Properties::kNumRunningCompactions) {
    *value = static_cast<uint64_t>(compactions_running_);
    return true;
  }
  if (property == Properties::kNumRunningFlushes) {
    *value = flush_scheduled_ ? 1 : 0;
    return true;
  }
  if (property == Properties::kEstimatePendingCompactionBytes) {
    *value = PendingCompactionBytesLocked(*cfd);
    return true;
  }
  if (property == Properties::kActualDelayedWriteRate) {
    *value = write_controller_.state() == WriteController::State::kDelayed
                 ? write_controller_.rate()
                 : 0;
    return true;
  }
  if (property == Properties::kIsWriteStopped) {
    *value = write_controller_.state() == WriteController::State::kStopped;
    return true;
  }
  if (property == Properties::kBackgroundErrors) {
    *value = bg_errors_recorded_;
    return true;
  }
  if (property == Properties::kCompactionRate) {
    *value = static_cast<uint64_t>(DebtFiguresLocked().rate);
    return true;
  }
  if (property == Properties::kEstimateCompactionSecondsLeft) {
    const DebtFigures d = DebtFiguresLocked();
    if (!d.seconds_left_known) return false;
    *value = d.seconds_left;
    return true;
  }
  if (property == Properties::kSustainableWriteRate) {
    *value = static_cast<uint64_t>(DebtFiguresLocked().sustainable_write_rate);
    return true;
  }
  return false;
}

uint64_t DBImpl::PendingCompactionBytesLocked(const ColumnFamilyData& cfd) const {
  return cfd.picker == nullptr ? 0
                               : cfd.picker->EstimatePendingCompactionBytes(
                                     *versions_->current(cfd.id()), cfd.options);
}

DBImpl::DebtFigures DBImpl::DebtFiguresLocked() {
  // The DB's debt: every family's pending bytes, compacted by the one pool.
  DebtFigures d;
  uint64_t flushed = 0, flush_micros = 0;
  for (const auto& [id, cfd] : column_families_) {
    d.pending_bytes += PendingCompactionBytesLocked(*cfd);
    flushed += cfd->flush_stats.bytes_written;
    flush_micros += cfd->flush_stats.micros;
  }
  // Until a compaction is timed, the flush throughput stands in for the compaction rate.
  debt_tracker_.SetFallbackRate(
      flush_micros == 0 ? 0 : static_cast<double>(flushed) * 1e6 / flush_micros);
  d.rate = debt_tracker_.Rate();
  d.rate_measured = debt_tracker_.measured();
  d.seconds_left_known =
      CompactionDebtTracker::SecondsLeft(d.pending_bytes, d.rate, &d.seconds_left);
  d.sustainable_write_rate = CompactionDebtTracker::SustainableWriteRate(
      d.rate, debt_tracker_.total_input_bytes(), d.pending_bytes, user_bytes_written_);
  return d;
}

std::string DBImpl::DebtStringLocked() {
  const DebtFigures d = DebtFiguresLocked();
  std::string rate = "unknown";
  if (d.rate > 0) {
    rate = d.rate_measured
               ? absl::StrFormat("%.2f MB/s (last %d compactions, %.1f s busy)", d.rate / kMB,
                                 debt_tracker_.window_compactions(),
                                 debt_tracker_.window_busy_seconds())
               : absl::StrFormat("%.2f MB/s (flush rate: no compaction timed yet)",
                                 d.rate / kMB);
  }
  return absl::StrFormat(
      "Compaction debt: %.2f MB pending, compaction rate %s, %s s left, sustainable write rate "
      "%s\n",
      d.pending_bytes / kMB, rate,
      d.seconds_left_known ? std::to_string(d.seconds_left) : std::string("unknown"),
      d.sustainable_write_rate > 0 ? absl::StrFormat("%.2f MB/s", d.sustainable_write_rate / kMB)
                                   : std::string("unknown"));
}

void DBImpl::DumpStats() {
  std::string stats;
  {
    MutexLock lock(&mu_);
    if (shutting_down_ || closed_ || info_log_ == nullptr) return;
    for (const auto& [id, cfd] : column_families_) stats += StatsString(*cfd);
  }
  // The LOG takes one line per call (and bounds its length): log the report line by line.
  info_log_->Log("------- DUMPING STATS -------");
  size_t start = 0;
  while (start < stats.size()) {
    size_t end = stats.find('\n', start);
    if (end == std::string::npos) end = stats.size();
    info_log_->Log("%.*s", static_cast<int>(end - start), stats.data() + start);
    start = end + 1;
  }
}

bool DBImpl::GetProperty(ColumnFamilyHandle* column_family, std::string_view property,
                         std::string* value) {
  std::string canonical;
  property = CanonicalPropertyName(property, &canonical);
  uint64_t n;
  if (GetIntProperty(column_family, property, &n)) {
    *value = std::to_string(n);
    return true;
  }
  ColumnFamilyData* cfd = FamilyOf(column_family);
  MutexLock lock(&mu_);
  if (closed_ || cfd == nullptr || cfd->dropped) return false;
  if (property == Properties::kStats) {
    *value = StatsString(*cfd);
  } else if (property == Properties::kLevelStats) {
    *value = LevelStatsString(*cfd);
  } else if (property == Properties::kSSTables) {
    *value = SSTablesString(*cfd);
  } else if (property == Properties::kBackgroundError) {
    *value = bg_error_.ok() ? std::string() : bg_error_.ToString();
  } else if (property == Properties::kMemTableAllocator) {
    MemtableAllocator* a = MemtableAllocator::Get();
    *value = absl::StrCat(a->name(), " (arena ", a->jemalloc_arena_index(), "), ",
                          a->allocated_bytes(), " bytes allocated");
  } else {
    return false;
  }
  return true;
}

uint64_t DBImpl::EstimateNumKeysLocked(const ColumnFamilyData& cfd) const {
  const MemTableSet& mems = cfd.mems;
  // Entries minus what deletions are expected to remove (each deletion hides one entry).
  auto live = [](uint64_t entries, uint64_t deletes) {
    return entries > 2 * deletes ? entries - 2 * deletes : 0;
  };
  uint64_t total = live(mems.mem()->num_entries(), mems.mem()->num_deletes());
  for (const MemTableSet::Immutable& m : mems.immutables()) {
    total += live(m.mem->num_entries(), m.mem->num_deletes());
  }
  Version* v = versions_->current(cfd.id());
  for (int level = 0; level < v->num_levels(); level++) {
    for (const FileMetaData* f : v->files(level)) {
      total += live(f->num_entries - f->num_range_deletions, f->num_deletions);
    }
  }
  return total;
}

std::string DBImpl::LevelStatsString(const ColumnFamilyData& cfd) const {
  return CompactionStatsString(cfd);
}

std::string DBImpl::SSTablesString(const ColumnFamilyData& cfd) const {
  std::string out;
  Version* v = versions_->current(cfd.id());
  for (int level = 0; level < v->num_levels(); level++) {
    if (v->NumFiles(level) == 0) continue;
    absl::StrAppend(&out, "--- level ", level, " ---\n");
    for (const FileMetaData* f : v->files(level)) {
      absl::StrAppend(&out, f->DebugString(), "\n");
    }
  }
  return out;
}

std::string DBImpl::StatsString(const ColumnFamilyData& cfd) {
  const FlushStats& flush_stats = cfd.flush_stats;
  const MemTableSet& mems = cfd.mems;
  const double uptime = (static_cast<double>(NowMicros()) - open_time_micros_) / 1e6;
  std::string out = absl::StrCat("** DB Stats ** (column family \"", cfd.name(), "\" of ",
                                 column_families_.size(), ")\n");
  absl::StrAppend(&out, absl::StrFormat("Uptime(secs): %.1f\n", uptime));
  absl::StrAppend(&out, absl::StrFormat(
                            "Writes: %d writes, %d groups, %.2f MB user data, %.2f MB WAL\n",
                            writes_, write_groups_, user_bytes_written_ / kMB, wal_bytes_ / kMB));
  absl::StrAppend(
      &out, absl::StrFormat("Flushes: %d, %.2f MB written, %.2f s, %d placed below L0\n",
                            flush_stats.flushes, flush_stats.bytes_written / kMB,
                            flush_stats.micros / 1e6, flush_stats.files_to_lower_levels));
  const double write_amp =
      user_bytes_written_ == 0
          ? 0
          : static_cast<double>(wal_bytes_ + flush_stats.bytes_written) / user_bytes_written_;
  absl::StrAppend(&out, absl::StrFormat("Write amplification (WAL + tables): %.2f\n", write_amp));
  absl::StrAppend(&out, absl::StrFormat("Write stalls: %d, %.3f s", stall_count_,
                                        stall_micros_ / 1e6));
  for (int cause = 1; cause < 4; cause++) {
    absl::StrAppend(&out, absl::StrFormat(
                              "; %s %d (%.3f s)",
                              WriteController::CauseName(static_cast<WriteController::Cause>(cause)),
                              stall_count_by_cause_[cause], stall_micros_by_cause_[cause] / 1e6));
  }
  absl::StrAppend(&out, "\n");
  absl::StrAppend(&out, absl::StrFormat("Write stalls caused by column family \"%s\":",
                                        cfd.name()));
  for (int cause = 1; cause < 4; cause++) {
    absl::StrAppend(&out, absl::StrFormat(
                              "%s %s %d (%.3f s)", cause > 1 ? ";" : "",
                              WriteController::CauseName(static_cast<WriteController::Cause>(cause)),
                              cfd.stall_count_by_cause[cause],
                              cfd.stall_micros_by_cause[cause] / 1e6));
  }
  absl::StrAppend(&out, "\n");
  absl::StrAppend(&out, absl::StrFormat(
                            "Write controller: %s%s; pending compaction bytes %d; running "
                            "compactions %d\n",
                            write_controller_.state() == WriteController::State::kNormal
                                ? "normal"
                                : write_controller_.state() == WriteController::State::kDelayed
                                      ? "delayed at "
                                      : "stopped",
                            write_controller_.state() == WriteController::State::kDelayed
                                ? absl::StrFormat("%.2f MB/s", write_controller_.rate() / kMB)
                                : "",
                            PendingCompactionBytesLocked(cfd),
                            compactions_running_));
  absl::StrAppend(&out, DebtStringLocked());
  absl::StrAppend(&out, absl::StrFormat("Memtables: %d immutable, %.2f MB\n", mems.NumImmutable(),
                                        mems.MemoryUsage() / kMB));
  absl::StrAppend(&out, absl::StrFormat(
                            "Table cache: %d tables parsed (at most %s), readers keep %.1f MB; %d "
                            "of %d table files open (peak %d)\n",
                            table_cache_->NumTables(),
                            table_cache_->capacity() == TableCache::kUnlimited
                                ? std::string("all")
                                : std::to_string(table_cache_->capacity()),
                            table_cache_->ApproximateReadersMemory() / kMB,
                            table_cache_->NumOpenFiles(), table_cache_->file_capacity(),
                            table_cache_->PeakOpenFiles()));
  if (block_cache_ != nullptr) {
    absl::StrAppend(&out, absl::StrFormat(
                              "Block cache: %.1f of %.1f MB used, %.1f MB pinned, %d entries\n",
                              block_cache_->GetUsage() / kMB, block_cache_->GetCapacity() / kMB,
                              block_cache_->GetPinnedUsage() / kMB,
                              block_cache_->GetOccupancyCount()));
  } else {
    absl::StrAppend(&out, "Block cache: none (no_block_cache)\n");
  }
  absl::StrAppend(&out, absl::StrFormat("Background error: %s\n", bg_error_.ToString()));
  absl::StrAppend(&out, absl::StrFormat("Background errors since open: %d\n",
                                        bg_errors_recorded_));
  absl::StrAppend(&out, "\n** Compaction **\n", CompactionStatsString(cfd));
  return out;
}

}  // namespace shale

namespace shale {

void DBImpl::GetLiveFilesMetaData(std::vector<LiveFileMetaData>* metadata) {
  metadata->clear();
  MutexLock lock(&mu_);
  if (closed_) return;
  for (const auto& [id, family] : column_families_) {
    if (family->dropped) continue;
    Version* v = versions_->current(id);
    for (int level = 0; level < v->num_levels(); level++) {
      for (const FileMetaData* f : v->files(level)) {
        LiveFileMetaData m;
        m.column_family_name = family->name();
        m.level = level;
        const std::string path = TableFileName(dbname_, f->number);
        m.name = path.substr(path.rfind('/'));
        m.db_path = dbname_;
        m.size = f->file_size;
        m.smallestkey = std::string(ExtractUserKey(f->smallest));
        m.largestkey = std::string(ExtractUserKey(f->largest));
        m.smallest_seqno = f->smallest_seqno;
        m.largest_seqno = f->largest_seqno;
        m.num_entries = f->num_entries;
        m.num_deletions = f->num_deletions;
        metadata->push_back(std::move(m));
      }
    }
  }
}

void DBImpl::LogInfo(std::string_view message) {
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call (info_log_ stays)
  if (!call.status().ok() || info_log_ == nullptr) return;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string_view::npos) end = message.size();
    info_log_->Log("%.*s", static_cast<int>(end - start), message.data() + start);
    start = end + 1;
  }
}

}  // namespace shale
