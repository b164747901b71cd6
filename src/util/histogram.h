// A latency histogram for benchmarks and statistics, in the style of LevelDB's and RocksDB's.
//
// Values are latencies in microseconds (any non-negative double). They are counted in
// log-linear buckets: width 1 below 32, then 32 equal buckets per power of two, so every bucket
// above 32 is at most 1/32 (3.1%) of its lower bound wide. Percentile() interpolates linearly
// inside the bucket that holds the rank and clamps to the observed min and max, so a percentile
// is never off by more than one bucket width (3.1% relative) and usually by much less.
// Values of 2^41 us (25 days) and more share the last bucket.
//
// Thread-safety: none. Keep one Histogram per thread and Merge() them when reporting.
#ifndef SHALE_UTIL_HISTOGRAM_H_
#define SHALE_UTIL_HISTOGRAM_H_

#include <array>
#include <cstdint>
#include <string>

namespace shale {

class Histogram {
 public:
  Histogram() { Clear(); }

  // Forgets every value.
  void Clear();
  // Counts one value. Negative values count as 0 in the buckets but keep their sign in
  // Min/Average.
  void Add(double value);
  // Adds every value counted by `other`, as if each had been Add()ed here.
  void Merge(const Histogram& other);

  uint64_t Count() const { return count_; }
  // Min, Max, Average, StandardDeviation, Percentile and Median return 0 when Count() is 0.
  double Min() const;
  double Max() const;
  double Average() const;
  double StandardDeviation() const;
  // The value below which p percent of the values fall, p in [0, 100].
  double Percentile(double p) const;
  double Median() const { return Percentile(50); }

  // db_bench's report: count, average, standard deviation, min, median, max, the P50 to P99.99
  // percentiles, then a table of the non-empty buckets (grouped 8 to a row, so a row spans
  // about a quarter of a power of two) with their share, the cumulative share and a bar.
  std::string ToString() const;

 private:
  // Buckets [0,1), [1,2), ... [31,32) of width 1, then kSubBuckets per power of two from 2^5
  // up to 2^kMaxLog; the last bucket also holds everything larger.
  static constexpr int kSubBucketBits = 5;
  static constexpr int kSubBuckets = 1 << kSubBucketBits;
  static constexpr int kMaxLog = 40;
  static constexpr int kNumBuckets = kSubBuckets + (kMaxLog - kSubBucketBits + 1) * kSubBuckets;

  static int BucketFor(double value);
  static double BucketLow(int b);
  static double BucketHigh(int b);
  // The bucket table of ToString().
  void AppendBucketTable(std::string* out) const;

  double min_;
  double max_;
  uint64_t count_;
  double sum_;
  double sum_squares_;
  std::array<uint64_t, kNumBuckets> buckets_;
};

}  // namespace shale

#endif  // SHALE_UTIL_HISTOGRAM_H_
