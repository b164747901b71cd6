#include "table/bloom_filter.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "shale/filter_policy.h"
#include "table/format.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace shale {

namespace {

// The line of `hash` among `num_lines`: its upper 32 bits scaled to [0, num_lines) by a
// multiply-shift, which needs no division.
inline uint32_t LineOf(uint64_t hash, uint32_t num_lines) {
  return static_cast<uint32_t>(((hash >> 32) * num_lines) >> 32);
}

// Sets the probes of `hash` in `line`.
void SetProbes(uint64_t hash, int num_probes, char* line) {
  auto x = static_cast<uint32_t>(hash);
  for (int i = 0; i < num_probes; i++) {
    uint32_t bit = x >> 23;
    line[bit >> 3] = static_cast<char>(line[bit >> 3] | (1 << (bit & 7)));
    x *= kBloomProbeMultiplier;
  }
}

// True if every probe of `hash` is set in `line`.
bool TestProbes(uint64_t hash, int num_probes, const char* line) {
  auto x = static_cast<uint32_t>(hash);
  for (int i = 0; i < num_probes; i++) {
    uint32_t bit = x >> 23;
    if ((line[bit >> 3] & (1 << (bit & 7))) == 0) return false;
    x *= kBloomProbeMultiplier;
  }
  return true;
}

class CacheLocalBloomPolicy final : public FilterPolicy {
 public:
  explicit CacheLocalBloomPolicy(double bits_per_key) : bits_per_key_(bits_per_key) {}
  const char* Name() const override { return kBloomFilterPolicyName; }
  double bits_per_key() const override { return bits_per_key_; }

 private:
  const double bits_per_key_;
};

}  // namespace

FilterPolicy::~FilterPolicy() = default;

std::shared_ptr<const FilterPolicy> NewBloomFilterPolicy(double bits_per_key) {
  return std::make_shared<CacheLocalBloomPolicy>(ClampBloomBitsPerKey(bits_per_key));
}

double ClampBloomBitsPerKey(double bits_per_key) {
  if (!(bits_per_key >= 1.0)) return 1.0;  // also NaN
  return bits_per_key > 100.0 ? 100.0 : bits_per_key;
}

int BloomNumProbes(double bits_per_key) {
  long k = std::lround(ClampBloomBitsPerKey(bits_per_key) * 0.69);
  if (k < 1) return 1;
  return k > kBloomMaxProbes ? kBloomMaxProbes : static_cast<int>(k);
}

// ---------------------------------------------------------------------------------------------
// BloomFilterBuilder

BloomFilterBuilder::BloomFilterBuilder(double bits_per_key)
    : bits_per_key_(ClampBloomBitsPerKey(bits_per_key)),
      num_probes_(BloomNumProbes(bits_per_key)) {}

void BloomFilterBuilder::AddKey(std::string_view user_key) {
  uint64_t h = Hash64(user_key, kBloomHashSeed);
  if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
}

uint32_t BloomFilterBuilder::NumLinesFor(size_t num_keys, double bits_per_key) {
  double lines = std::ceil(static_cast<double>(num_keys) * bits_per_key / kBloomLineBits);
  // The filter (lines and trailer) is one block: a reader refuses a block over kMaxBlockSize.
  constexpr double kMax = static_cast<double>((kMaxBlockSize - kBloomTrailerSize) /
                                              kBloomLineBytes);
  static_assert(kMax < std::numeric_limits<uint32_t>::max());
  return static_cast<uint32_t>(lines < kMax ? lines : kMax);
}

size_t BloomFilterBuilder::EstimateSize() const {
  return size_t{NumLines(hashes_.size())} * kBloomLineBytes + kBloomTrailerSize;
}

std::string BloomFilterBuilder::Finish() {
  uint32_t num_lines = NumLines(hashes_.size());
  std::string out(size_t{num_lines} * kBloomLineBytes, '\0');
  for (uint64_t h : hashes_) {
    SetProbes(h, num_probes_, out.data() + size_t{LineOf(h, num_lines)} * kBloomLineBytes);
  }
  PutFixed32(&out, num_lines);
  out.push_back(static_cast<char>(num_probes_));
  out.push_back(static_cast<char>(kBloomFormatCacheLocalV1));
  hashes_.clear();
  return out;
}

// ---------------------------------------------------------------------------------------------
// BloomFilterReader

Status BloomFilterReader::Create(std::string_view data,
                                 std::unique_ptr<BloomFilterReader>* result) {
  if (data.size() < kBloomTrailerSize) {
    return Status::Corruption(absl::StrCat("bloom filter of ", data.size(), " bytes is too short"));
  }
  const char* trailer = data.data() + data.size() - kBloomTrailerSize;
  uint32_t num_lines = DecodeFixed32(trailer);
  int num_probes = static_cast<uint8_t>(trailer[4]);
  auto format = static_cast<uint8_t>(trailer[5]);
  if (format != kBloomFormatCacheLocalV1) {
    return Status::Corruption(absl::StrCat("bloom filter has unknown format ", format));
  }
  if (num_probes < 1 || num_probes > kBloomMaxProbes) {
    return Status::Corruption(absl::StrCat("bloom filter has ", num_probes, " probes"));
  }
  if (data.size() - kBloomTrailerSize != uint64_t{num_lines} * kBloomLineBytes) {
    return Status::Corruption(absl::StrCat("bloom filter of ", data.size(), " bytes claims ",
                                           num_lines, " lines"));
  }
  *result = std::make_unique<BloomFilterReader>(PrivateTag(), data.data(), num_lines, num_probes);
  return Status::OK();
}

bool BloomFilterReader::MayMatch(std::string_view user_key) const {
  if (num_lines_ == 0) return false;  // no keys were added
  uint64_t h = Hash64(user_key, kBloomHashSeed);
  return TestProbes(h, num_probes_, lines_ + size_t{LineOf(h, num_lines_)} * kBloomLineBytes);
}

}  // namespace shale
