// DBImpl: GetProperty / GetIntProperty (the names are listed in shale/db.h).
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

}  // namespace

bool DBImpl::GetIntProperty(std::string_view property, uint64_t* value) {
  MutexLock lock(&mu_);
  if (closed_) return false;
  int level;
  if (ParseLevelProperty(property, versions_->num_levels(), &level)) {
    *value = versions_->NumLevelFiles(level);
    return true;
  }
  if (property == Properties::kCurSizeAllMemTables) {
    *value = mems_.MemoryUsage();
    return true;
  }
  if (property == Properties::kSizeAllMemTables) {
    *value = mems_.MemoryUsage() + mems_.FlushedBytesPinned();
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
  if (property == Properties::kMemoryUsage) {
    *value = mems_.MemoryUsage() + mems_.FlushedBytesPinned() +
             (block_cache_ == nullptr ? 0 : block_cache_->GetUsage()) +
             table_cache_->ApproximateReadersMemory();
    return true;
  }
  if (property == Properties::kEstimateNumKeys) {
    *value = EstimateNumKeysLocked();
    return true;
  }
  if (property == Properties::kCompactionPending) {
    *value = !options_.disable_auto_compactions &&
             picker_->NeedsCompaction(*versions_->current(), options_,
                                      static_cast<uint64_t>(std::time(nullptr)));
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
    *value = picker_->EstimatePendingCompactionBytes(*versions_->current(), options_);
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
  return false;
}

bool DBImpl::GetProperty(std::string_view property, std::string* value) {
  uint64_t n;
  if (GetIntProperty(property, &n)) {
    *value = std::to_string(n);
    return true;
  }
  MutexLock lock(&mu_);
  if (closed_) return false;
  if (property == Properties::kStats) {
    *value = StatsString();
  } else if (property == Properties::kLevelStats) {
    *value = LevelStatsString();
  } else if (property == Properties::kSSTables) {
    *value = SSTablesString();
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

uint64_t DBImpl::EstimateNumKeysLocked() const {
  // Entries minus what deletions are expected to remove (each deletion hides one entry).
  auto live = [](uint64_t entries, uint64_t deletes) {
    return entries > 2 * deletes ? entries - 2 * deletes : 0;
  };
  uint64_t total = live(mems_.mem()->num_entries(), mems_.mem()->num_deletes());
  for (const MemTableSet::Immutable& m : mems_.immutables()) {
    total += live(m.mem->num_entries(), m.mem->num_deletes());
  }
  Version* v = versions_->current();
  for (int level = 0; level < v->num_levels(); level++) {
    for (const FileMetaData* f : v->files(level)) {
      total += live(f->num_entries - f->num_range_deletions, f->num_deletions);
    }
  }
  return total;
}

std::string DBImpl::LevelStatsString() const { return CompactionStatsString(); }

std::string DBImpl::SSTablesString() const {
  std::string out;
  Version* v = versions_->current();
  for (int level = 0; level < v->num_levels(); level++) {
    if (v->NumFiles(level) == 0) continue;
    absl::StrAppend(&out, "--- level ", level, " ---\n");
    for (const FileMetaData* f : v->files(level)) {
      absl::StrAppend(&out, f->DebugString(), "\n");
    }
  }
  return out;
}

std::string DBImpl::StatsString() {
  const double uptime = (static_cast<double>(NowMicros()) - open_time_micros_) / 1e6;
  std::string out = "** DB Stats **\n";
  absl::StrAppend(&out, absl::StrFormat("Uptime(secs): %.1f\n", uptime));
  absl::StrAppend(&out, absl::StrFormat(
                            "Writes: %d writes, %d groups, %.2f MB user data, %.2f MB WAL\n",
                            writes_, write_groups_, user_bytes_written_ / kMB, wal_bytes_ / kMB));
  absl::StrAppend(
      &out, absl::StrFormat("Flushes: %d, %.2f MB written, %.2f s, %d placed below L0\n",
                            flush_stats_.flushes, flush_stats_.bytes_written / kMB,
                            flush_stats_.micros / 1e6, flush_stats_.files_to_lower_levels));
  const double write_amp =
      user_bytes_written_ == 0
          ? 0
          : static_cast<double>(wal_bytes_ + flush_stats_.bytes_written) / user_bytes_written_;
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
                            picker_->EstimatePendingCompactionBytes(*versions_->current(), options_),
                            compactions_running_));
  absl::StrAppend(&out, absl::StrFormat("Memtables: %d immutable, %.2f MB\n", mems_.NumImmutable(),
                                        mems_.MemoryUsage() / kMB));
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
  absl::StrAppend(&out, "\n** Compaction **\n", CompactionStatsString());
  return out;
}

}  // namespace shale
