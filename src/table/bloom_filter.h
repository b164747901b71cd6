// The cache-line-local bloom filter on user keys, stored in tables as the full filter or as
// filter partitions (the policy in shale/filter_policy.h selects it).
//
// Filter format (all integers little-endian):
//
//   line[0] ... line[L-1]   64 bytes (512 bits) each
//   num_lines               fixed32 L
//   num_probes              one byte k, 1..24 (kBloomMaxProbes)
//   format                  one byte, 0xC1 (kBloomFormatCacheLocalV1)
//
// A key's 64-bit hash is h = Hash64(user_key, 0x5368616c65426c6f) (util/checksum.h; the seed is
// kBloomHashSeed). Its upper 32 bits pick the line, line = ((h >> 32) * L) >> 32; its lower 32
// bits give the k probes within that line: x = uint32(h), then k times: probe bit = x >> 23 (the
// top 9 bits, 0..511), x = x * 0x9E3779B9 mod 2^32 (kBloomProbeMultiplier). Bit b of a line is
// bit (b & 7) of the line's byte b >> 3. So a query touches one cache line.
// L = ceil(N * bits_per_key / 512) for N distinct keys (L = 0 for an empty filter, which matches
// nothing); k = round(0.69 * bits_per_key) clamped to [1, 24]. (For a cache-local bloom the best
// k is at or a little below that, because the number of keys per line varies.)
//
// Thread-safety: a builder is used by one thread at a time; a reader is immutable and may be
// queried from any number of threads.
#ifndef SHALE_TABLE_BLOOM_FILTER_H_
#define SHALE_TABLE_BLOOM_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/status.h"

namespace shale {

inline constexpr size_t kBloomLineBytes = 64;
inline constexpr size_t kBloomLineBits = kBloomLineBytes * 8;
inline constexpr size_t kBloomTrailerSize = 6;
inline constexpr int kBloomMaxProbes = 24;
inline constexpr uint8_t kBloomFormatCacheLocalV1 = 0xC1;
inline constexpr uint64_t kBloomHashSeed = 0x5368616c65426c6full;  // "ShaleBlo"
inline constexpr uint32_t kBloomProbeMultiplier = 0x9E3779B9u;      // 2^32 / golden ratio, odd
// The name FilterPolicy::Name() returns (and table properties store).
inline constexpr char kBloomFilterPolicyName[] = "shale.CacheLocalBloomFilter";

// bits_per_key as the policy honours it: below 1 raised to 1, above 100 lowered to 100.
double ClampBloomBitsPerKey(double bits_per_key);
// k for (clamped) bits_per_key.
int BloomNumProbes(double bits_per_key);

class BloomFilterBuilder {
 public:
  explicit BloomFilterBuilder(double bits_per_key);

  // Adds a user key; consecutive duplicates (equal hashes) are added once.
  void AddKey(std::string_view user_key);
  size_t num_keys() const { return hashes_.size(); }
  // Bytes Finish() would produce now.
  size_t EstimateSize() const;
  // The filter for the keys added since the last Finish; the builder is then empty again.
  std::string Finish();

  // The lines of a filter of `num_keys` keys at `bits_per_key` (already clamped): enough for
  // bits_per_key, but never more than a block can hold (kMaxBlockSize, table/format.h), so
  // that a filter of any number of keys stays readable; past about 850 million keys at 10
  // bits per key, the false-positive rate rises instead.
  static uint32_t NumLinesFor(size_t num_keys, double bits_per_key);

 private:
  uint32_t NumLines(size_t num_keys) const { return NumLinesFor(num_keys, bits_per_key_); }

  const double bits_per_key_;
  const int num_probes_;
  std::vector<uint64_t> hashes_;  // one per key added, consecutive duplicates dropped
};

class BloomFilterReader {
 public:
  // Corruption if `data` is not a well-formed filter (trailer, format byte, probe count, or a
  // size that disagrees with the line count). Keeps a view of `data`: it must outlive the reader.
  static Status Create(std::string_view data, std::unique_ptr<BloomFilterReader>* result);

  // Only Create can make one (the tag is private): a reader exists only for a valid filter.
  struct PrivateTag {
   private:
    PrivateTag() = default;
    friend class BloomFilterReader;
  };
  BloomFilterReader(PrivateTag, const char* lines, uint32_t num_lines, int num_probes)
      : lines_(lines), num_lines_(num_lines), num_probes_(num_probes) {}

  BloomFilterReader(const BloomFilterReader&) = delete;
  BloomFilterReader& operator=(const BloomFilterReader&) = delete;

  // False means the key was certainly not added.
  bool MayMatch(std::string_view user_key) const;
  // Bytes of the reader itself; the viewed data is charged by whoever holds it.
  size_t ApproximateMemoryUsage() const { return sizeof(*this); }
  uint32_t num_lines() const { return num_lines_; }
  int num_probes() const { return num_probes_; }

 private:
  const char* const lines_;
  const uint32_t num_lines_;
  const int num_probes_;
};

}  // namespace shale

#endif  // SHALE_TABLE_BLOOM_FILTER_H_
