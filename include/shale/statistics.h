// Statistics: counters (tickers) and latency histograms that the DB updates as it works, in
// RocksDB's shape, so that tools and dashboards written for RocksDB read ShaleDB the same way.
// The enumerator and method names are RocksDB's (hence ALL_CAPS tickers and lowerCamel
// methods, unlike the rest of the API); the printed names start with "shale." instead of
// "rocksdb.".
//
//   std::shared_ptr<shale::Statistics> stats = shale::CreateDBStatistics();
//   ... hand it to the DB's options, run ...
//   uint64_t hits = stats->getTickerCount(shale::BLOCK_CACHE_HIT);
//   shale::HistogramData get;  stats->histogramData(shale::DB_GET, &get);
//
// Ownership: a Statistics object is shared (std::shared_ptr) by the user and every DB using it;
// several DBs may share one, and then it sums their work.
//
// Thread-safety: every method may be called from any thread concurrently. Updates are cheap
// (a relaxed atomic add on a per-core stripe for a ticker, an uncontended per-core lock for a
// histogram), so the DB records them on its hot paths. Reads sum the stripes: a read that races
// with updates sees each update either entirely or not at all, but not a single instant of the
// whole set. An update that races with Reset() may land before or after it.
#ifndef SHALE_STATISTICS_H_
#define SHALE_STATISTICS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/export.h"
#include "shale/status.h"

namespace shale {

// Counters. Not stored anywhere: values may be renumbered between versions; use the names.
enum Tickers : uint32_t {
  // Bytes of keys and values written by Put/Merge/Write (before any WAL or table framing).
  BYTES_WRITTEN = 0,
  // Bytes of values returned by Get/MultiGet and of keys and values returned by iterators.
  BYTES_READ,
  // Keys written (Put, Merge, Delete, SingleDelete, DeleteRange: one per record).
  NUMBER_KEYS_WRITTEN,
  // Keys looked up by Get/MultiGet.
  NUMBER_KEYS_READ,
  // Get and MultiGet calls.
  NUMBER_DB_GET,
  // Iterator Seek* calls, Next calls and Prev calls.
  NUMBER_DB_SEEK,
  NUMBER_DB_NEXT,
  NUMBER_DB_PREV,
  // Point lookups answered by a memtable, and those that had to go on to the tables.
  MEMTABLE_HIT,
  MEMTABLE_MISS,

  // Write path: writes done by the group-commit leader for itself, and on behalf of others.
  WRITE_DONE_BY_SELF,
  WRITE_DONE_BY_OTHER,
  // Bytes appended to WAL files (record framing included) and WAL syncs (fsync/fdatasync).
  WAL_FILE_BYTES,
  WAL_FILE_SYNCED,

  // Write stalls: total microseconds writers spent delayed or stopped, and how many writes
  // were delayed or stopped by each cause.
  STALL_MICROS,
  STALL_L0_SLOWDOWN_COUNT,                // L0 files reached level0_slowdown_writes_trigger
  STALL_L0_STOP_COUNT,                    // L0 files reached level0_stop_writes_trigger
  STALL_MEMTABLE_LIMIT_COUNT,             // max_write_buffer_number memtables were full
  STALL_PENDING_COMPACTION_BYTES_COUNT,   // pending compaction bytes over a limit

  // Background work: bytes of table files written by flushes; bytes read and written by
  // compactions.
  FLUSH_WRITE_BYTES,
  COMPACT_READ_BYTES,
  COMPACT_WRITE_BYTES,

  // Block cache: lookups that found the block, lookups that missed, blocks inserted, blocks
  // evicted to make room.
  BLOCK_CACHE_HIT,
  BLOCK_CACHE_MISS,
  BLOCK_CACHE_ADD,
  BLOCK_CACHE_EVICT,

  // Bloom filters: probes made, and probes that ruled a key out (saving a block read).
  BLOOM_FILTER_CHECKED,
  BLOOM_FILTER_USEFUL,

  // Table files opened (table cache misses).
  NO_FILE_OPENS,

  TICKER_ENUM_MAX  // the number of tickers; not a ticker
};

// Histograms, in microseconds unless the name says otherwise.
enum Histograms : uint32_t {
  DB_GET = 0,          // one Get call
  DB_MULTIGET,         // one MultiGet call
  DB_WRITE,            // one Put/Delete/Merge/Write call, stalls included
  DB_SEEK,             // one iterator Seek* call
  FLUSH_TIME,          // one flush job
  COMPACTION_TIME,     // one compaction job
  WRITE_STALL,         // the delay of one stalled write
  WAL_FILE_SYNC_MICROS,  // one WAL sync
  SST_READ_MICROS,     // one block read from a table file (cache misses only)

  HISTOGRAM_ENUM_MAX  // the number of histograms; not a histogram
};

// The printed name ("shale.bytes.written", "shale.db.get.micros"); empty when out of range.
SHALE_EXPORT std::string_view TickerName(uint32_t ticker);
SHALE_EXPORT std::string_view HistogramName(uint32_t histogram);

// A summary of one histogram. All zero when nothing was recorded.
struct HistogramData {
  uint64_t count = 0;
  uint64_t sum = 0;
  double min = 0;
  double max = 0;
  double average = 0;
  double standard_deviation = 0;
  // Percentiles, interpolated within buckets at most ~3% wide (exact for values below 32).
  double median = 0;  // p50
  double percentile95 = 0;
  double percentile99 = 0;
  double percentile999 = 0;
};

// How much the DB measures. Timers (clock reads around operations) cost more than counters.
enum StatsLevel : uint8_t {
  kDisableAll,                // nothing
  kExceptHistogramOrTimers,   // tickers only
  kExceptTimers,              // tickers and non-timing histograms
  kExceptDetailedTimers,      // everything but per-call timers on the hottest paths
  kAll,                       // everything
};

class SHALE_EXPORT Statistics {
 public:
  virtual ~Statistics();

  // The current value of a ticker; 0 for an unknown ticker.
  virtual uint64_t getTickerCount(uint32_t ticker) const = 0;
  // Adds `count` to a ticker (ignored for an unknown ticker).
  virtual void recordTick(uint32_t ticker, uint64_t count = 1) = 0;
  // Returns a ticker's value and sets it to 0, without losing a concurrent recordTick (each
  // is either in the returned value or left in the ticker).
  virtual uint64_t getAndResetTickerCount(uint32_t ticker) = 0;

  // Records one value (usually microseconds) in a histogram (ignored for an unknown one).
  virtual void measureTime(uint32_t histogram, uint64_t value) = 0;
  // RocksDB's newer name for measureTime.
  void recordInHistogram(uint32_t histogram, uint64_t value) { measureTime(histogram, value); }
  // The summary of a histogram; all zero for an unknown one.
  virtual void histogramData(uint32_t histogram, HistogramData* data) const = 0;
  // One line: "P50 : ... P95 : ... P99 : ... P99.9 : ... P100 : ... COUNT : ... SUM : ...".
  virtual std::string getHistogramString(uint32_t histogram) const = 0;

  // Every ticker ("shale.bytes.written COUNT : 12\n") then every histogram
  // ("shale.db.get.micros P50 : ... COUNT : ... SUM : ...\n"), RocksDB's layout.
  virtual std::string ToString() const = 0;

  // Sets every ticker and histogram to zero.
  virtual Status Reset() = 0;

  // How much the DB measures. Default: kExceptDetailedTimers. Changeable at any time.
  StatsLevel get_stats_level() const { return stats_level_.load(std::memory_order_relaxed); }
  void set_stats_level(StatsLevel level) {
    stats_level_.store(level, std::memory_order_relaxed);
  }

 private:
  std::atomic<StatsLevel> stats_level_{kExceptDetailedTimers};
};

// A new thread-safe Statistics with every ticker and histogram at zero.
SHALE_EXPORT std::shared_ptr<Statistics> CreateDBStatistics();

}  // namespace shale

#endif  // SHALE_STATISTICS_H_
