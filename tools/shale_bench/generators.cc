#include "generators.h"

#include <algorithm>
#include <cmath>

#include "absl/flags/flag.h"
#include "flags.h"

namespace shale::bench {

namespace {

// db_bench's buffer size and piece size, and the fixed seed of its buffer.
constexpr size_t kBufferBytes = 1 << 20;
constexpr size_t kPieceBytes = 100;
constexpr uint64_t kBufferSeed = 301;

}  // namespace

std::string_view KeyFormatter::Format(uint64_t v) {
  const size_t n = std::min<size_t>(buf_.size(), 8);
  for (size_t i = 0; i < n; i++) {
    buf_[i] = static_cast<char>((v >> ((n - i - 1) * 8)) & 0xff);
  }
  return buf_;
}

ValueShape ValueShape::FromFlags() {
  ValueShape shape;
  const std::string dist = absl::GetFlag(FLAGS_value_size_distribution_type);
  if (dist == "uniform") shape.distribution = ValueSizeDistribution::kUniform;
  if (dist == "normal") shape.distribution = ValueSizeDistribution::kNormal;
  shape.fixed_size = absl::GetFlag(FLAGS_value_size);
  shape.min_size = absl::GetFlag(FLAGS_value_size_min);
  shape.max_size = absl::GetFlag(FLAGS_value_size_max);
  shape.compression_ratio = absl::GetFlag(FLAGS_compression_ratio);
  return shape;
}

ValueGenerator::ValueGenerator(const ValueShape& shape, uint64_t seed)
    : shape_(shape), size_rng_(seed) {
  Random rnd(kBufferSeed);
  const size_t want = std::max(kBufferBytes, static_cast<size_t>(shape.MaxSize()));
  data_.reserve(want + kPieceBytes);
  while (data_.size() < want) {
    data_.append(CompressibleString(&rnd, shape.compression_ratio, kPieceBytes));
  }
}

std::string_view ValueGenerator::Slice(size_t len) {
  if (pos_ + len > data_.size()) pos_ = 0;
  pos_ += len;
  return std::string_view(data_).substr(pos_ - len, len);
}

size_t ValueGenerator::NextSize() {
  switch (shape_.distribution) {
    case ValueSizeDistribution::kFixed:
      return static_cast<size_t>(shape_.fixed_size);
    case ValueSizeDistribution::kUniform: {
      std::uniform_int_distribution<int> d(shape_.min_size, shape_.max_size);
      return static_cast<size_t>(d(size_rng_));
    }
    case ValueSizeDistribution::kNormal: {
      const double mean = (shape_.min_size + shape_.max_size) / 2.0;
      const double stddev = (shape_.max_size - shape_.min_size) / 5.0;
      std::normal_distribution<double> d(mean, stddev > 0 ? stddev : 1e-9);
      const double v = std::round(d(size_rng_));
      return static_cast<size_t>(std::clamp<double>(v, shape_.min_size, shape_.max_size));
    }
  }
  return static_cast<size_t>(shape_.fixed_size);
}

ZipfGenerator::ZipfGenerator(uint64_t n, double theta) : cdf_(n) {
  double sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    sum += std::pow(static_cast<double>(k + 1), -theta);
    cdf_[k] = sum;
  }
  for (double& c : cdf_) c /= sum;
  cdf_.back() = 1.0;
}

uint64_t ZipfGenerator::Next(Random* rand) const {
  const double u = rand->NextDouble();  // [0, 1): the first rank whose cdf exceeds u
  const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return it == cdf_.end() ? cdf_.size() - 1 : static_cast<uint64_t>(it - cdf_.begin());
}

double ZipfGenerator::Probability(uint64_t k) const {
  return k == 0 ? cdf_[0] : cdf_[k] - cdf_[k - 1];
}

}  // namespace shale::bench
