#include "table/data_block_hash_index.h"

#include <cassert>

#include "absl/strings/str_cat.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace shale {

uint16_t HashIndexNumBuckets(size_t num_keys, double util_ratio) {
  if (!(util_ratio > 0)) util_ratio = 0.75;
  double wanted = static_cast<double>(num_keys) / util_ratio;
  size_t n = wanted >= 65535.0 ? 65535 : static_cast<size_t>(wanted);
  n |= 1;  // odd, and at least 1
  return static_cast<uint16_t>(n);
}

void DataBlockHashIndexBuilder::Add(std::string_view user_key, uint32_t restart_index) {
  assert(restart_index < kMaxRestartsWithHashIndex);
  entries_.emplace_back(Hash64(user_key, kDataBlockHashSeed), static_cast<uint8_t>(restart_index));
}

void DataBlockHashIndexBuilder::Finish(std::string* dst) const {
  uint16_t num_buckets = HashIndexNumBuckets(entries_.size(), util_ratio_);
  size_t start = dst->size();
  dst->append(num_buckets, static_cast<char>(kHashIndexNoEntry));
  auto* buckets = reinterpret_cast<uint8_t*>(dst->data() + start);
  for (const auto& [hash, restart] : entries_) {
    uint8_t& b = buckets[hash % num_buckets];
    if (b == kHashIndexNoEntry) {
      b = restart;
    } else if (b != restart) {
      b = kHashIndexCollision;  // keys of two intervals: lookups fall back to binary search
    }
  }
  PutFixed16(dst, num_buckets);
}

Status DataBlockHashIndex::Init(std::string_view region, uint32_t num_restarts,
                                size_t* index_size) {
  if (region.size() < kHashIndexTrailerSize) {
    return Status::Corruption("data block hash index: no room for the bucket count");
  }
  uint16_t num_buckets = DecodeFixed16(region.data() + region.size() - kHashIndexTrailerSize);
  if (num_buckets == 0) return Status::Corruption("data block hash index: zero buckets");
  if (num_restarts > kMaxRestartsWithHashIndex) {
    return Status::Corruption(
        absl::StrCat("data block hash index in a block with ", num_restarts, " restarts"));
  }
  size_t size = size_t{num_buckets} + kHashIndexTrailerSize;
  if (size > region.size()) {
    return Status::Corruption(absl::StrCat("data block hash index: ", num_buckets,
                                           " buckets do not fit in ", region.size(), " bytes"));
  }
  std::string_view buckets = region.substr(region.size() - size, num_buckets);
  for (char c : buckets) {
    auto b = static_cast<uint8_t>(c);
    if (b != kHashIndexNoEntry && b != kHashIndexCollision && b >= num_restarts) {
      return Status::Corruption(absl::StrCat("data block hash index: bucket names restart ", b,
                                             " of ", num_restarts));
    }
  }
  buckets_ = buckets;
  *index_size = size;
  return Status::OK();
}

uint8_t DataBlockHashIndex::Lookup(std::string_view user_key) const {
  assert(!buckets_.empty());
  uint64_t h = Hash64(user_key, kDataBlockHashSeed);
  return static_cast<uint8_t>(buckets_[h % buckets_.size()]);
}

}  // namespace shale
