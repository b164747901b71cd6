#include "util/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace shale {

void Histogram::Clear() {
  min_ = std::numeric_limits<double>::infinity();
  max_ = -std::numeric_limits<double>::infinity();
  count_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  buckets_.fill(0);
}

int Histogram::BucketFor(double value) {
  // The negated test also sends NaN to bucket 0.
  if (!(value >= kSubBuckets)) return value > 0 ? static_cast<int>(value) : 0;
  if (value >= std::ldexp(1.0, kMaxLog + 1)) return kNumBuckets - 1;
  const uint64_t v = static_cast<uint64_t>(value);
  const int log = std::bit_width(v) - 1;  // >= kSubBucketBits, <= kMaxLog
  const int sub = static_cast<int>(v >> (log - kSubBucketBits)) & (kSubBuckets - 1);
  return kSubBuckets + (log - kSubBucketBits) * kSubBuckets + sub;
}

double Histogram::BucketLow(int b) {
  if (b < kSubBuckets) return b;
  const int log = (b - kSubBuckets) / kSubBuckets + kSubBucketBits;
  const int sub = (b - kSubBuckets) % kSubBuckets;
  return std::ldexp(kSubBuckets + sub, log - kSubBucketBits);
}

double Histogram::BucketHigh(int b) {
  if (b < kSubBuckets) return b + 1;
  const int log = (b - kSubBuckets) / kSubBuckets + kSubBucketBits;
  const int sub = (b - kSubBuckets) % kSubBuckets;
  return std::ldexp(kSubBuckets + sub + 1, log - kSubBucketBits);
}

void Histogram::Add(double value) {
  buckets_[BucketFor(value)]++;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  count_++;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::Merge(const Histogram& other) {
  for (int b = 0; b < kNumBuckets; b++) buckets_[b] += other.buckets_[b];
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

double Histogram::Min() const { return count_ == 0 ? 0 : min_; }
double Histogram::Max() const { return count_ == 0 ? 0 : max_; }

double Histogram::Average() const {
  return count_ == 0 ? 0 : sum_ / static_cast<double>(count_);
}

double Histogram::StandardDeviation() const {
  if (count_ == 0) return 0;
  const double n = static_cast<double>(count_);
  const double variance = (sum_squares_ * n - sum_ * sum_) / (n * n);
  // Rounding can push the variance of near-equal values slightly below zero.
  return std::sqrt(std::max(variance, 0.0));
}

double Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  const double threshold = static_cast<double>(count_) * (std::clamp(p, 0.0, 100.0) / 100.0);
  double below = 0;  // values in the buckets before b
  for (int b = 0; b < kNumBuckets; b++) {
    if (buckets_[b] == 0) continue;
    const double in_bucket = static_cast<double>(buckets_[b]);
    if (below + in_bucket >= threshold) {
      // The last bucket is open-ended: its values reach max_.
      const double low = BucketLow(b);
      const double high = b == kNumBuckets - 1 ? std::max(BucketHigh(b), max_) : BucketHigh(b);
      const double r = low + (high - low) * ((threshold - below) / in_bucket);
      return std::clamp(r, min_, max_);
    }
    below += in_bucket;
  }
  return max_;  // unreachable: the buckets hold count_ values
}

std::string Histogram::ToString() const {
  std::string r = absl::StrFormat("Count: %d Average: %.4f  StdDev: %.2f\n", count_, Average(),
                                  StandardDeviation());
  absl::StrAppendFormat(&r, "Min: %.4f  Median: %.4f  Max: %.4f\n", Min(), Median(), Max());
  absl::StrAppendFormat(&r, "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n",
                        Percentile(50), Percentile(75), Percentile(99), Percentile(99.9),
                        Percentile(99.99));
  AppendBucketTable(&r);
  return r;
}

void Histogram::AppendBucketTable(std::string* out) const {
  constexpr int kPerRow = 8;
  static_assert(kNumBuckets % kPerRow == 0);
  out->append("------------------------------------------------------\n");
  if (count_ == 0) return;
  const double total = static_cast<double>(count_);
  uint64_t cumulative = 0;
  for (int first = 0; first < kNumBuckets; first += kPerRow) {
    uint64_t n = 0;
    for (int b = first; b < first + kPerRow; b++) n += buckets_[b];
    if (n == 0) continue;
    cumulative += n;
    const double share = static_cast<double>(n) / total;
    absl::StrAppendFormat(out, "[ %7.0f, %7.0f ) %7d %7.3f%% %7.3f%% ", BucketLow(first),
                          BucketHigh(first + kPerRow - 1), n, 100 * share,
                          100 * static_cast<double>(cumulative) / total);
    out->append(static_cast<size_t>(20 * share + 0.5), '#');
    out->push_back('\n');
  }
}

}  // namespace shale
