// The Statistics implementation behind CreateDBStatistics(): tickers and histograms split into
// per-core stripes so that updates from different cores touch different cache lines.
//
// A thread picks its stripe from the CPU it runs on (sched_getcpu, a few nanoseconds), or,
// where that is unavailable, from a per-thread number handed out round-robin. The stripe is
// only a hint for spreading load: a thread that migrates mid-update still updates correctly,
// because every ticker is an atomic and every histogram stripe has its own lock. Reads merge
// all stripes.

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "util/mutex.h"
#include "shale/statistics.h"
#include "util/absl_compat.h"
#include "util/histogram.h"

namespace shale {

namespace {

// ------------------------------------------------------------------ Names

struct TickerEntry {
  Tickers ticker;
  std::string_view name;
};
constexpr TickerEntry kTickerNames[] = {
    {BYTES_WRITTEN, "shale.bytes.written"},
    {BYTES_READ, "shale.bytes.read"},
    {NUMBER_KEYS_WRITTEN, "shale.number.keys.written"},
    {NUMBER_KEYS_READ, "shale.number.keys.read"},
    {NUMBER_DB_GET, "shale.number.db.get"},
    {NUMBER_DB_SEEK, "shale.number.db.seek"},
    {NUMBER_DB_NEXT, "shale.number.db.next"},
    {NUMBER_DB_PREV, "shale.number.db.prev"},
    {MEMTABLE_HIT, "shale.memtable.hit"},
    {MEMTABLE_MISS, "shale.memtable.miss"},
    {WRITE_DONE_BY_SELF, "shale.write.self"},
    {WRITE_DONE_BY_OTHER, "shale.write.other"},
    {WAL_FILE_BYTES, "shale.wal.bytes"},
    {WAL_FILE_SYNCED, "shale.wal.synced"},
    {STALL_MICROS, "shale.stall.micros"},
    {STALL_L0_SLOWDOWN_COUNT, "shale.stall.l0.slowdown.count"},
    {STALL_L0_STOP_COUNT, "shale.stall.l0.stop.count"},
    {STALL_MEMTABLE_LIMIT_COUNT, "shale.stall.memtable.limit.count"},
    {STALL_PENDING_COMPACTION_BYTES_COUNT, "shale.stall.pending.compaction.bytes.count"},
    {FLUSH_WRITE_BYTES, "shale.flush.write.bytes"},
    {COMPACT_READ_BYTES, "shale.compact.read.bytes"},
    {COMPACT_WRITE_BYTES, "shale.compact.write.bytes"},
    {BLOCK_CACHE_HIT, "shale.block.cache.hit"},
    {BLOCK_CACHE_MISS, "shale.block.cache.miss"},
    {BLOCK_CACHE_ADD, "shale.block.cache.add"},
    {BLOCK_CACHE_EVICT, "shale.block.cache.evict"},
    {BLOOM_FILTER_CHECKED, "shale.bloom.filter.checked"},
    {BLOOM_FILTER_USEFUL, "shale.bloom.filter.useful"},
    {NO_FILE_OPENS, "shale.no.file.opens"},
};

struct HistogramEntry {
  Histograms histogram;
  std::string_view name;
};
constexpr HistogramEntry kHistogramNames[] = {
    {DB_GET, "shale.db.get.micros"},
    {DB_MULTIGET, "shale.db.multiget.micros"},
    {DB_WRITE, "shale.db.write.micros"},
    {DB_SEEK, "shale.db.seek.micros"},
    {FLUSH_TIME, "shale.db.flush.micros"},
    {COMPACTION_TIME, "shale.compaction.times.micros"},
    {WRITE_STALL, "shale.db.write.stall"},
    {WAL_FILE_SYNC_MICROS, "shale.wal.file.sync.micros"},
    {SST_READ_MICROS, "shale.sst.read.micros"},
};

// Each table lists every enumerator once, at the index of its value.
constexpr bool TickerTableInOrder() {
  for (size_t i = 0; i < std::size(kTickerNames); ++i) {
    if (kTickerNames[i].ticker != i) return false;
  }
  return std::size(kTickerNames) == TICKER_ENUM_MAX;
}
constexpr bool HistogramTableInOrder() {
  for (size_t i = 0; i < std::size(kHistogramNames); ++i) {
    if (kHistogramNames[i].histogram != i) return false;
  }
  return std::size(kHistogramNames) == HISTOGRAM_ENUM_MAX;
}
static_assert(TickerTableInOrder(), "kTickerNames must list every ticker in enum order");
static_assert(HistogramTableInOrder(), "kHistogramNames must list every histogram in enum order");

// ------------------------------------------------------------------ Stripes

// The smallest power of two >= the number of CPUs, capped at `cap`.
size_t StripeCount(size_t cap) {
  const size_t cpus = std::max<size_t>(1, std::thread::hardware_concurrency());
  size_t n = 1;
  while (n < cpus && n < cap) n <<= 1;
  return n;
}

// A number for the calling thread's stripe: its CPU, or a per-thread number.
size_t StripeHint() {
  const int cpu = sched_getcpu();
  if (cpu >= 0) return static_cast<size_t>(cpu);
  static std::atomic<size_t> next_thread{0};
  thread_local const size_t thread_number = next_thread.fetch_add(1, std::memory_order_relaxed);
  return thread_number;
}

constexpr size_t kCacheLine = 64;
// Ticker stripes are small (one cache line per 8 tickers): one per core up to 64 cores.
constexpr size_t kMaxTickerStripes = 64;
// Histogram stripes are ~10 KiB per histogram: beyond 16, cores share a stripe (and its lock).
constexpr size_t kMaxHistogramStripes = 16;

struct alignas(kCacheLine) TickerStripe {
  std::array<std::atomic<uint64_t>, TICKER_ENUM_MAX> counts{};
};

struct alignas(kCacheLine) HistogramStripe {
  Mutex mu;
  std::array<Histogram, HISTOGRAM_ENUM_MAX> histograms ABSL_GUARDED_BY(mu);
  // Exact sums of the values (Histogram keeps a double).
  std::array<uint64_t, HISTOGRAM_ENUM_MAX> sums ABSL_GUARDED_BY(mu){};
};

// ------------------------------------------------------------------ StatisticsImpl

class StatisticsImpl final : public Statistics {
 public:
  StatisticsImpl()
      : ticker_mask_(StripeCount(kMaxTickerStripes) - 1),
        histogram_mask_(StripeCount(kMaxHistogramStripes) - 1),
        tickers_(new TickerStripe[ticker_mask_ + 1]),
        histograms_(new HistogramStripe[histogram_mask_ + 1]) {}

  uint64_t getTickerCount(uint32_t ticker) const override {
    if (ticker >= TICKER_ENUM_MAX) return 0;
    uint64_t sum = 0;
    for (size_t i = 0; i <= ticker_mask_; ++i) {
      sum += tickers_[i].counts[ticker].load(std::memory_order_relaxed);
    }
    return sum;
  }

  void recordTick(uint32_t ticker, uint64_t count) override {
    if (ticker >= TICKER_ENUM_MAX) return;
    tickers_[StripeHint() & ticker_mask_].counts[ticker].fetch_add(count,
                                                                    std::memory_order_relaxed);
  }

  uint64_t getAndResetTickerCount(uint32_t ticker) override {
    if (ticker >= TICKER_ENUM_MAX) return 0;
    uint64_t sum = 0;
    for (size_t i = 0; i <= ticker_mask_; ++i) {
      sum += tickers_[i].counts[ticker].exchange(0, std::memory_order_relaxed);
    }
    return sum;
  }

  void measureTime(uint32_t histogram, uint64_t value) override {
    if (histogram >= HISTOGRAM_ENUM_MAX) return;
    HistogramStripe& stripe = histograms_[StripeHint() & histogram_mask_];
    MutexLock lock(&stripe.mu);
    stripe.histograms[histogram].Add(static_cast<double>(value));
    stripe.sums[histogram] += value;
  }

  void histogramData(uint32_t histogram, HistogramData* data) const override;
  std::string getHistogramString(uint32_t histogram) const override;
  std::string ToString() const override;
  Status Reset() override;

 private:
  // The merged histogram of all stripes and its exact sum.
  void Merged(uint32_t histogram, Histogram* merged, uint64_t* sum) const;

  const size_t ticker_mask_;     // stripe count - 1 (a power of two - 1)
  const size_t histogram_mask_;  // stripe count - 1 (a power of two - 1)
  const std::unique_ptr<TickerStripe[]> tickers_;
  const std::unique_ptr<HistogramStripe[]> histograms_;
};

void StatisticsImpl::Merged(uint32_t histogram, Histogram* merged, uint64_t* sum) const {
  merged->Clear();
  *sum = 0;
  for (size_t i = 0; i <= histogram_mask_; ++i) {
    HistogramStripe& stripe = histograms_[i];
    MutexLock lock(&stripe.mu);
    merged->Merge(stripe.histograms[histogram]);
    *sum += stripe.sums[histogram];
  }
}

void StatisticsImpl::histogramData(uint32_t histogram, HistogramData* data) const {
  *data = HistogramData();
  if (histogram >= HISTOGRAM_ENUM_MAX) return;
  Histogram h;
  Merged(histogram, &h, &data->sum);
  data->count = h.Count();
  data->min = h.Min();
  data->max = h.Max();
  data->average = h.Average();
  data->standard_deviation = h.StandardDeviation();
  data->median = h.Percentile(50);
  data->percentile95 = h.Percentile(95);
  data->percentile99 = h.Percentile(99);
  data->percentile999 = h.Percentile(99.9);
}

std::string StatisticsImpl::getHistogramString(uint32_t histogram) const {
  HistogramData d;
  histogramData(histogram, &d);
  return absl::StrFormat("P50 : %f P95 : %f P99 : %f P99.9 : %f P100 : %f COUNT : %d SUM : %d",
                         d.median, d.percentile95, d.percentile99, d.percentile999, d.max,
                         d.count, d.sum);
}

std::string StatisticsImpl::ToString() const {
  std::string out;
  for (const TickerEntry& t : kTickerNames) {
    absl::StrAppend(&out, ToAbsl(t.name), " COUNT : ", getTickerCount(t.ticker), "\n");
  }
  for (const HistogramEntry& h : kHistogramNames) {
    absl::StrAppend(&out, ToAbsl(h.name), " ", getHistogramString(h.histogram), "\n");
  }
  return out;
}

Status StatisticsImpl::Reset() {
  for (size_t i = 0; i <= ticker_mask_; ++i) {
    for (std::atomic<uint64_t>& c : tickers_[i].counts) c.store(0, std::memory_order_relaxed);
  }
  for (size_t i = 0; i <= histogram_mask_; ++i) {
    HistogramStripe& stripe = histograms_[i];
    MutexLock lock(&stripe.mu);
    for (Histogram& h : stripe.histograms) h.Clear();
    stripe.sums.fill(0);
  }
  return Status::OK();
}

}  // namespace

Statistics::~Statistics() = default;

std::string_view TickerName(uint32_t ticker) {
  return ticker < TICKER_ENUM_MAX ? kTickerNames[ticker].name : std::string_view();
}

std::string_view HistogramName(uint32_t histogram) {
  return histogram < HISTOGRAM_ENUM_MAX ? kHistogramNames[histogram].name : std::string_view();
}

std::shared_ptr<Statistics> CreateDBStatistics() { return std::make_shared<StatisticsImpl>(); }

}  // namespace shale
