// Keys and values the way db_bench makes them, so the same flags give the same data shape.
//
// Keys: key number v as `key_size` bytes: the low min(key_size, 8) bytes of v in big-endian
// order (so numeric order is key order), then '0' characters up to key_size.
//
// Values: slices of a 1 MiB (or one value, if larger) buffer of printable text built from
// 100-byte pieces that each compress to about --compression_ratio of their size; successive
// values are successive slices. Their sizes follow --value_size_distribution_type: fixed
// (--value_size), uniform in [--value_size_min, --value_size_max], or normal with mean
// (min + max) / 2 and standard deviation (max - min) / 5, clamped to [min, max].
//
// Zipf-distributed numbers (ZipfGenerator): rank k in [0, n) with probability proportional to
// 1 / (k + 1)^theta, drawn exactly by inverting the cumulative distribution.
//
// Thread-safety: none for KeyFormatter and ValueGenerator (each benchmark thread owns its
// generators); a ZipfGenerator is immutable after construction and may be shared.
#ifndef SHALE_TOOLS_SHALE_BENCH_GENERATORS_H_
#define SHALE_TOOLS_SHALE_BENCH_GENERATORS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "util/random.h"

namespace shale::bench {

// Formats key numbers into one reusable buffer.
class KeyFormatter {
 public:
  explicit KeyFormatter(int key_size) : buf_(static_cast<size_t>(key_size), '0') {}

  // The key of number v. The view is valid until the next call.
  std::string_view Format(uint64_t v);

 private:
  std::string buf_;
};

enum class ValueSizeDistribution { kFixed, kUniform, kNormal };

struct ValueShape {
  ValueSizeDistribution distribution = ValueSizeDistribution::kFixed;
  int fixed_size = 100;
  int min_size = 100;
  int max_size = 102400;
  double compression_ratio = 0.5;

  // The shape --value_size, --value_size_distribution_type, --value_size_min/max and
  // --compression_ratio describe.
  static ValueShape FromFlags();
  // The largest value this shape makes.
  int MaxSize() const {
    return distribution == ValueSizeDistribution::kFixed ? fixed_size : max_size;
  }
};

class ValueGenerator {
 public:
  ValueGenerator(const ValueShape& shape, uint64_t seed);

  // The next value, sized per the shape. Valid until the generator is destroyed.
  std::string_view Next() { return Slice(NextSize()); }
  // The next `len` bytes of the buffer. REQUIRES: len <= the shape's MaxSize().
  std::string_view Slice(size_t len);

 private:
  size_t NextSize();

  const ValueShape shape_;
  std::string data_;
  size_t pos_ = 0;
  std::mt19937_64 size_rng_;
};

// Ranks [0, n) with P(k) = (1 / (k + 1)^theta) / H(n, theta), H being the sum of the weights.
// theta 0 is uniform; the larger theta, the more the low ranks dominate.
class ZipfGenerator {
 public:
  // REQUIRES: n >= 1, theta >= 0. Takes O(n) time and 8 * n bytes.
  ZipfGenerator(uint64_t n, double theta);

  // A rank drawn with `rand`. O(log n).
  uint64_t Next(Random* rand) const;
  // The probability of rank k.
  double Probability(uint64_t k) const;

 private:
  // cdf_[k]: the probability of a rank <= k; cdf_.back() is 1.
  std::vector<double> cdf_;
};

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_GENERATORS_H_
