#include "table/block_builder.h"

#include <algorithm>
#include <cassert>

#include "base/internal_key.h"
#include "util/coding.h"

namespace shale {

namespace {

// The user key of an internal key; a key too short to be one is taken whole (Add's REQUIRES
// rules that out; this only keeps a misuse from reading out of bounds).
std::string_view UserKeyOf(std::string_view key) {
  return key.size() >= kInternalKeyTrailerSize ? ExtractUserKey(key) : key;
}

size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  return i;
}

size_t EntryLength(size_t shared, size_t non_shared, size_t value_size) {
  return VarintLength(shared) + VarintLength(non_shared) + VarintLength(value_size) + non_shared +
         value_size;
}

}  // namespace

BlockBuilder::BlockBuilder(int restart_interval, bool use_hash_index, double hash_util_ratio)
    : restart_interval_(std::max(restart_interval, 1)),
      use_hash_index_(use_hash_index),
      hash_index_(hash_util_ratio) {
  Reset();
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  num_entries_ = 0;
  finished_ = false;
  last_key_.clear();
  hash_index_.Reset();
}

bool BlockBuilder::StartsNewUserKey(std::string_view key) const {
  return num_entries_ == 0 || UserKeyOf(last_key_) != UserKeyOf(key);
}

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  assert(!use_hash_index_ || key.size() >= kInternalKeyTrailerSize);
  size_t shared = 0;
  if (counter_ >= restart_interval_) {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  } else {
    shared = SharedPrefixLength(last_key_, key);
  }
  // Beyond kMaxRestartsWithHashIndex restarts the block gets no hash index: stop collecting.
  uint32_t restart_index = static_cast<uint32_t>(restarts_.size() - 1);
  if (use_hash_index_ && restart_index < kMaxRestartsWithHashIndex && StartsNewUserKey(key)) {
    hash_index_.Add(UserKeyOf(key), restart_index);
  }
  size_t non_shared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  assert(buffer_.size() <= kBlockNumRestartsMask);  // offsets must fit a fixed32

  last_key_.resize(shared);
  last_key_.append(key.data() + shared, non_shared);
  counter_++;
  num_entries_++;
}

size_t BlockBuilder::SizeFor(size_t entry_bytes, size_t num_restarts,
                             size_t num_user_keys) const {
  size_t size = entry_bytes + num_restarts * sizeof(uint32_t) + kBlockFooterSize;
  if (use_hash_index_ && num_user_keys > 0 && num_restarts <= kMaxRestartsWithHashIndex) {
    size += hash_index_.EstimateSizeForKeys(num_user_keys);
  }
  return size;
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  if (finished_) return buffer_.size();
  return SizeFor(buffer_.size(), restarts_.size(), hash_index_.num_keys());
}

size_t BlockBuilder::EstimateSizeAfterKV(std::string_view key, std::string_view value) const {
  size_t num_restarts = restarts_.size();
  size_t shared = 0;
  if (counter_ >= restart_interval_) {
    num_restarts++;
  } else {
    shared = SharedPrefixLength(last_key_, key);
  }
  size_t num_user_keys = hash_index_.num_keys();
  if (use_hash_index_ && num_restarts <= kMaxRestartsWithHashIndex && StartsNewUserKey(key)) {
    num_user_keys++;
  }
  size_t entry = EntryLength(shared, key.size() - shared, value.size());
  return SizeFor(buffer_.size() + entry, num_restarts, num_user_keys);
}

std::string_view BlockBuilder::Finish() {
  if (finished_) return buffer_;
  for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
  auto footer = static_cast<uint32_t>(restarts_.size());
  if (use_hash_index_ && num_entries_ > 0 && restarts_.size() <= kMaxRestartsWithHashIndex) {
    hash_index_.Finish(&buffer_);
    footer |= kBlockHashIndexFlag;
  }
  PutFixed32(&buffer_, footer);
  finished_ = true;
  return buffer_;
}

}  // namespace shale
