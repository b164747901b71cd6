// The data-block hash index: an optional map, stored inside a data block, from a user key to the
// restart interval where its first version sits, so a point lookup skips the binary search over
// restart points. The block format (block_builder.h) places it between the restart array and the
// block footer:
//
//   bucket[0] ... bucket[num_buckets - 1]   one byte each (below)
//   num_buckets                             fixed16, >= 1
//
// A bucket holds the index of a restart interval (0..kMaxRestartIndex), kNoEntry when no user key
// of the block hashes to it, or kCollision when user keys of different restart intervals do.
// bucket = Hash64(user_key, kDataBlockHashSeed) % num_buckets. Blocks with more than
// kMaxRestartsWithHashIndex restarts get no hash index. The index hashes the user key's bytes, so
// it REQUIRES a user comparator under which keys are equal only when their bytes are.
//
// Thread-safety: the builder is not thread-safe; a DataBlockHashIndex is immutable after Create
// and may be read from any number of threads.
#ifndef SHALE_TABLE_DATA_BLOCK_HASH_INDEX_H_
#define SHALE_TABLE_DATA_BLOCK_HASH_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shale/status.h"

namespace shale {

inline constexpr uint8_t kHashIndexNoEntry = 255;
inline constexpr uint8_t kHashIndexCollision = 254;
// Restart indexes 0..252 fit below the two markers.
inline constexpr uint32_t kMaxRestartsWithHashIndex = 253;
// Bytes after the buckets: the fixed16 bucket count.
inline constexpr size_t kHashIndexTrailerSize = 2;
// Seed of Hash64 for bucket selection (distinct from the bloom filter's, so the two do not fail
// together on the same keys).
inline constexpr uint64_t kDataBlockHashSeed = 0x5368616c65484958ull;  // "ShaleHIX"

// The number of buckets for `num_keys` distinct user keys at `util_ratio` keys per bucket: at
// least 1, odd (a modulus with no small factors spreads poor hashes better), at most 65535.
// A util_ratio that is not positive is taken as 0.75.
uint16_t HashIndexNumBuckets(size_t num_keys, double util_ratio);

// Collects (user key hash, restart index) pairs while a block is built, and appends the index.
class DataBlockHashIndexBuilder {
 public:
  explicit DataBlockHashIndexBuilder(double util_ratio = 0.75) : util_ratio_(util_ratio) {}

  // Records that `user_key` starts in restart interval `restart_index`. The caller adds each
  // distinct user key once, with the interval of its first (newest) version: a lookup scans
  // forward from there, across interval boundaries, through the key's later versions.
  void Add(std::string_view user_key, uint32_t restart_index);
  size_t num_keys() const { return entries_.size(); }
  // Bytes Finish() appends now.
  size_t EstimateSize() const { return EstimateSizeForKeys(entries_.size()); }
  size_t EstimateSizeForKeys(size_t num_keys) const {
    return HashIndexNumBuckets(num_keys, util_ratio_) + kHashIndexTrailerSize;
  }
  // Appends the buckets and the bucket count to *dst. REQUIRES: every restart index added is
  // < kMaxRestartsWithHashIndex.
  void Finish(std::string* dst) const;
  void Reset() { entries_.clear(); }

 private:
  double util_ratio_;
  // (hash of a distinct user key, restart index of its first version), in key order.
  std::vector<std::pair<uint64_t, uint8_t>> entries_;
};

// A parsed hash index: a view into the block that holds it.
class DataBlockHashIndex {
 public:
  DataBlockHashIndex() = default;

  // Parses the index that ends at the end of `region` (the bytes between the restart array and
  // the block footer, with anything before the index). On success *index_size is the number of
  // bytes the index takes at the end of `region`. Corruption if the bucket count is zero, does
  // not fit, or a bucket names a restart >= num_restarts.
  Status Init(std::string_view region, uint32_t num_restarts, size_t* index_size);

  // The bucket of `user_key`: a restart index, kHashIndexNoEntry or kHashIndexCollision.
  uint8_t Lookup(std::string_view user_key) const;
  uint16_t num_buckets() const { return static_cast<uint16_t>(buckets_.size()); }

 private:
  std::string_view buckets_;
};

}  // namespace shale

#endif  // SHALE_TABLE_DATA_BLOCK_HASH_INDEX_H_
