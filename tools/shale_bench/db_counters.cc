#include "db_counters.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace shale::bench {

TickerSnapshot TickerSnapshot::Take(const Statistics* stats) {
  TickerSnapshot t;
  if (stats == nullptr) return t;
  t.user_bytes = stats->getTickerCount(BYTES_WRITTEN);
  t.table_bytes =
      stats->getTickerCount(FLUSH_WRITE_BYTES) + stats->getTickerCount(COMPACT_WRITE_BYTES);
  t.stall_micros = stats->getTickerCount(STALL_MICROS);
  return t;
}

void ApplyTickers(const TickerSnapshot& before, const TickerSnapshot& after, BenchResult* r) {
  const uint64_t user = after.user_bytes - before.user_bytes;
  const uint64_t table = after.table_bytes - before.table_bytes;
  r->write_amplification = user > 0 ? static_cast<double>(table) / static_cast<double>(user) : 0;
  r->stall_seconds = static_cast<double>(after.stall_micros - before.stall_micros) * 1e-6;
}

std::string FilesPerLevel(DB* db) { return FilesPerLevel(db, {}); }

std::string FilesPerLevel(DB* db, const std::vector<ColumnFamilyHandle*>& families) {
  const std::vector<ColumnFamilyHandle*> targets =
      families.empty() ? std::vector<ColumnFamilyHandle*>{db->DefaultColumnFamily()} : families;
  std::vector<uint64_t> files;
  for (ColumnFamilyHandle* family : targets) {
    const int levels = db->GetOptions(family).num_levels;
    for (int level = 0; level < levels; level++) {
      uint64_t n = 0;
      const std::string name = absl::StrCat(
          std::string(DB::Properties::kNumFilesAtLevelPrefix), level);
      if (!db->GetIntProperty(family, name, &n)) break;
      if (files.size() <= static_cast<size_t>(level)) files.resize(level + 1, 0);
      files[level] += n;
    }
  }
  while (files.size() > 1 && files.back() == 0) files.pop_back();
  std::string out;
  for (size_t level = 0; level < files.size(); level++) {
    absl::StrAppend(&out, level == 0 ? "" : " ", "L", level, ":", files[level]);
  }
  return out;
}

}  // namespace shale::bench
