// Figures the benchmarks read from the DB rather than count themselves: the write tickers of
// its Statistics (to measure one benchmark by difference) and its table files per level.
//
// Thread-safety: plain functions and values; the DB and Statistics calls are thread-safe.
#ifndef SHALE_TOOLS_SHALE_BENCH_DB_COUNTERS_H_
#define SHALE_TOOLS_SHALE_BENCH_DB_COUNTERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "report.h"
#include "shale/db.h"
#include "shale/statistics.h"

namespace shale::bench {

// The write tickers of a Statistics at one moment (all zero for a null Statistics).
struct TickerSnapshot {
  uint64_t user_bytes = 0;    // BYTES_WRITTEN: keys, values and record overhead of the writes
  uint64_t table_bytes = 0;   // FLUSH_WRITE_BYTES + COMPACT_WRITE_BYTES
  uint64_t stall_micros = 0;  // STALL_MICROS

  static TickerSnapshot Take(const Statistics* stats);
};

// Sets r->write_amplification (table bytes / user bytes between the snapshots; 0 when nothing
// was written) and r->stall_seconds.
void ApplyTickers(const TickerSnapshot& before, const TickerSnapshot& after, BenchResult* r);

// "L0:3 L1:0 L2:12": the table files of every level down to the deepest non-empty one (L0 at
// least), from the shale.num-files-at-level<N> properties.
std::string FilesPerLevel(DB* db);
// The same summed over `families` (empty: the default family only), level by level.
std::string FilesPerLevel(DB* db, const std::vector<ColumnFamilyHandle*>& families);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_DB_COUNTERS_H_
