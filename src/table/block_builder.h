// BlockBuilder: builds one block of a table (data block, index block, meta-index block) from
// keys added in increasing order.
//
// Block format (all integers little-endian):
//
//   entry[0] ... entry[N-1]
//   restart[0] ... restart[R-1]     fixed32 offsets of the entries that start restart intervals
//   [hash index]                    only when the footer's flag is set; data_block_hash_index.h
//   footer                          fixed32: R in the low 31 bits, "has hash index" in bit 31
//
//   entry = varint32 shared       bytes of the key shared with the previous entry's key
//           varint32 non_shared   bytes of the key that follow
//           varint32 value_len
//           key delta             the non_shared bytes
//           value                 value_len bytes
//
// Keys are prefix-compressed against the previous key, except at restart points, where shared is
// 0 and the full key is stored; every restart_interval-th entry starts a restart interval, so a
// seek binary-searches the restart points and then scans at most one interval. restart[0] = 0,
// restart offsets increase strictly and R >= 1 (an empty block has N = 0, R = 1, restart[0] = 0).
//
// The hash index (use_hash_index, for data blocks whose keys are internal keys) maps each user
// key to the restart interval of its first (newest) version:
//
//   hash index = bucket[0] ... bucket[B-1]   one byte each: a restart index (0..252),
//                                            255 = empty, 254 = collision (keys of two intervals)
//                num_buckets                 fixed16 B >= 1
//
// A user key's bucket is Hash64(user_key, 0x5368616c65484958) % B (util/checksum.h; the seed
// is kDataBlockHashSeed in data_block_hash_index.h). B = distinct user keys / hash_util_ratio,
// rounded down, made odd (| 1), at most 65535. A block gets a hash index only if it has at least
// one entry and at most 253 (kMaxRestartsWithHashIndex) restarts; else the flag stays clear.
//
// Thread-safety: a BlockBuilder is used by one thread at a time.
#ifndef SHALE_TABLE_BLOCK_BUILDER_H_
#define SHALE_TABLE_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "table/data_block_hash_index.h"

namespace shale {

// The footer's flag bit and the mask of its restart count.
inline constexpr uint32_t kBlockHashIndexFlag = uint32_t{1} << 31;
inline constexpr uint32_t kBlockNumRestartsMask = kBlockHashIndexFlag - 1;
inline constexpr size_t kBlockFooterSize = 4;

class BlockBuilder {
 public:
  // restart_interval < 1 is taken as 1. hash_util_ratio: distinct user keys per hash bucket.
  explicit BlockBuilder(int restart_interval, bool use_hash_index = false,
                        double hash_util_ratio = 0.75);

  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  // Starts a new, empty block; views returned by Finish() become invalid.
  void Reset();

  // REQUIRES: Finish() has not been called since Reset(); key > every key added since Reset
  // (not checked). With use_hash_index, keys are internal keys (>= 8 bytes) and the hash index
  // maps the user key part to its restart interval.
  void Add(std::string_view key, std::string_view value);

  // Appends the restart array, hash index and footer, and returns the block contents, valid
  // until Reset() or the builder's destruction.
  std::string_view Finish();

  // Exactly the bytes Finish() would return now.
  size_t CurrentSizeEstimate() const;
  // Exactly the bytes Finish() would return after Add(key, value).
  size_t EstimateSizeAfterKV(std::string_view key, std::string_view value) const;

  bool empty() const { return num_entries_ == 0; }
  // Restart points so far (at least 1).
  size_t num_restarts() const { return restarts_.size(); }
  size_t num_entries() const { return num_entries_; }

 private:
  // Block size for the given entry bytes, restart count and distinct user keys.
  size_t SizeFor(size_t entry_bytes, size_t num_restarts, size_t num_user_keys) const;
  bool StartsNewUserKey(std::string_view key) const;

  const int restart_interval_;
  const bool use_hash_index_;

  std::string buffer_;              // entries, then (after Finish) the block's tail
  std::vector<uint32_t> restarts_;  // restart offsets; restarts_[0] == 0
  int counter_ = 0;                 // entries since the last restart point
  size_t num_entries_ = 0;
  bool finished_ = false;
  std::string last_key_;
  DataBlockHashIndexBuilder hash_index_;
};

}  // namespace shale

#endif  // SHALE_TABLE_BLOCK_BUILDER_H_
