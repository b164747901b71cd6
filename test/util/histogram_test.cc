#include "util/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/random.h"

namespace shale {
namespace {

// The exact p-th percentile of `values` (sorted), by the nearest-rank rule.
double ExactPercentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(values.size())));
  return values[std::max<size_t>(rank, 1) - 1];
}

// Checks the histogram's percentiles against the exact ones: within one bucket width (1/32 of
// the value) plus one unit for the width-1 buckets below 32.
void ExpectPercentilesMatch(const std::vector<double>& values) {
  Histogram h;
  for (double v : values) h.Add(v);
  for (double p : {1.0, 10.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99}) {
    const double exact = ExactPercentile(values, p);
    EXPECT_NEAR(h.Percentile(p), exact, exact / 32 + 1) << "P" << p;
  }
}

TEST(HistogramTest, EmptyReportsZeros) {
  Histogram h;
  EXPECT_EQ(h.Count(), 0u);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.Average(), 0);
  EXPECT_EQ(h.StandardDeviation(), 0);
  EXPECT_EQ(h.Percentile(99), 0);
  EXPECT_EQ(h.Median(), 0);
  EXPECT_NE(h.ToString().find("Count: 0 "), std::string::npos);
}

TEST(HistogramTest, UniformOneToTenThousand) {
  Histogram h;
  Random r(1);
  std::vector<double> values;
  for (int i = 1; i <= 10000; i++) values.push_back(i);
  // Order must not matter.
  for (size_t i = values.size() - 1; i > 0; i--) std::swap(values[i], values[r.Uniform(i + 1)]);
  for (double v : values) h.Add(v);

  EXPECT_EQ(h.Count(), 10000u);
  EXPECT_EQ(h.Min(), 1);
  EXPECT_EQ(h.Max(), 10000);
  EXPECT_DOUBLE_EQ(h.Average(), 5000.5);
  EXPECT_NEAR(h.StandardDeviation(), std::sqrt((1e8 - 1) / 12), 0.01);
  EXPECT_NEAR(h.Median(), 5000, 5000 * 0.02);
  EXPECT_NEAR(h.Percentile(75), 7500, 7500 * 0.02);
  EXPECT_NEAR(h.Percentile(99), 9900, 9900 * 0.01);
  EXPECT_NEAR(h.Percentile(99.9), 9990, 9990 * 0.01);
  EXPECT_EQ(h.Percentile(100), 10000);
  EXPECT_EQ(h.Percentile(0), 1);
}

TEST(HistogramTest, PercentilesOfSkewedDistributions) {
  Random r(2);
  std::vector<double> exponential, wide, sub_microsecond;
  for (int i = 0; i < 100000; i++) {
    // Latency-like: exponential with a 1 ms mean.
    exponential.push_back(-1000 * std::log(1 - r.NextDouble()));
    // Spanning nine orders of magnitude.
    wide.push_back(std::pow(10.0, 9 * r.NextDouble()));
    sub_microsecond.push_back(r.NextDouble());
  }
  ExpectPercentilesMatch(exponential);
  ExpectPercentilesMatch(wide);
  ExpectPercentilesMatch(sub_microsecond);
}

TEST(HistogramTest, ConstantValueIsExact) {
  Histogram h;
  for (int i = 0; i < 1000; i++) h.Add(4242);
  EXPECT_EQ(h.Median(), 4242);
  EXPECT_EQ(h.Percentile(99.99), 4242);
  EXPECT_EQ(h.StandardDeviation(), 0);
}

TEST(HistogramTest, HugeAndNegativeValues) {
  Histogram h;
  h.Add(1e15);  // beyond the last bucket boundary (2^41)
  h.Add(3e15);
  EXPECT_EQ(h.Max(), 3e15);
  EXPECT_EQ(h.Percentile(100), 3e15);
  EXPECT_GE(h.Median(), 1e15);
  EXPECT_LE(h.Median(), 3e15);

  Histogram n;
  n.Add(-5);
  n.Add(5);
  EXPECT_EQ(n.Min(), -5);
  EXPECT_EQ(n.Average(), 0);
  EXPECT_GE(n.Percentile(0), -5);
}

// Integer values keep every sum exact, so merged and directly built histograms are identical.
TEST(HistogramTest, MergeEqualsAddingEverything) {
  Random r(3);
  Histogram a, b, all;
  for (int i = 0; i < 5000; i++) {
    const double v = static_cast<double>(r.Skewed(20));
    (r.OneIn(3) ? a : b).Add(v);
    all.Add(v);
  }
  b.Add(1e7);  // only b has the max
  all.Add(1e7);

  Histogram merged;
  merged.Merge(a);
  merged.Merge(b);
  merged.Merge(Histogram());  // merging an empty one changes nothing
  EXPECT_EQ(merged.Count(), all.Count());
  EXPECT_EQ(merged.Min(), all.Min());
  EXPECT_EQ(merged.Max(), 1e7);
  EXPECT_EQ(merged.Average(), all.Average());
  EXPECT_EQ(merged.StandardDeviation(), all.StandardDeviation());
  for (double p = 0; p <= 100; p += 0.5) EXPECT_EQ(merged.Percentile(p), all.Percentile(p)) << p;
  EXPECT_EQ(merged.ToString(), all.ToString());
}

TEST(HistogramTest, ClearForgetsEverything) {
  Histogram h;
  for (int i = 0; i < 100; i++) h.Add(i * 1000);
  h.Clear();
  EXPECT_EQ(h.ToString(), Histogram().ToString());
  h.Add(7);
  EXPECT_EQ(h.Min(), 7);
  EXPECT_EQ(h.Max(), 7);
  EXPECT_EQ(h.Median(), 7);
}

TEST(HistogramTest, ToStringLayout) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  const std::string s = h.ToString();
  EXPECT_EQ(s.rfind("Count: 100 Average: 50.5000  StdDev: 28.87\n", 0), 0u) << s;
  // Interpolation treats integer v as spread over [v, v+1) (and [v, v+2) from 64 on, where
  // buckets are 2 wide), so P50 is the top of 50's bucket; results clamp to Max.
  EXPECT_NE(s.find("\nMin: 1.0000  Median: 51.0000  Max: 100.0000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\nPercentiles: P50: 51.00 P75: 76.00 P99: 100.00 P99.9: 100.00 "
                   "P99.99: 100.00\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("\n------"), std::string::npos);
  // One row per group of 8 buckets: [0,8) holds 1..7, then [8,16), [16,24), ... [96,104).
  EXPECT_NE(s.find("[       0,       8 )       7   7.000%   7.000% #\n"), std::string::npos) << s;
  EXPECT_NE(s.find("100.000% "), std::string::npos) << s;
}

}  // namespace
}  // namespace shale
