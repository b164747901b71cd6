#include "table/block.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/internal_key.h"
#include "table/block_builder.h"
#include "util/absl_compat.h"
#include "util/coding.h"
#include "util/heap_size.h"

namespace shale {

// ---------------------------------------------------------------------------------------------
// Block

Status Block::Create(std::string contents, std::unique_ptr<Block>* result) {
  auto block = std::unique_ptr<Block>(new Block(PrivateTag(), std::move(contents)));
  Status s = block->Parse();
  if (s.ok()) *result = std::move(block);
  return s;
}

Status Block::CreateIn(std::string_view contents, std::optional<Block>* slot) {
  slot->emplace(PrivateTag(), contents);
  Status s = (*slot)->Parse();
  if (!s.ok()) slot->reset();
  return s;
}

Status Block::Parse() {
  size_t size = contents_.size();
  if (size < kBlockFooterSize) {
    return Status::Corruption(absl::StrCat("block of ", size, " bytes has no room for a footer"));
  }
  if (size > std::numeric_limits<uint32_t>::max()) {
    return Status::Corruption(absl::StrCat("block of ", size, " bytes exceeds 4 GiB"));
  }
  uint32_t footer = DecodeFixed32(contents_.data() + size - kBlockFooterSize);
  num_restarts_ = footer & kBlockNumRestartsMask;
  has_hash_index_ = (footer & kBlockHashIndexFlag) != 0;
  if (num_restarts_ == 0) return Status::Corruption("block has no restart points");
  size_t avail = size - kBlockFooterSize;  // bytes before the footer
  if (has_hash_index_) {
    size_t index_size = 0;
    Status s = hash_index_.Init(std::string_view(contents_).substr(0, avail), num_restarts_,
                                &index_size);
    if (!s.ok()) return s;
    avail -= index_size;
  }
  if (num_restarts_ > avail / sizeof(uint32_t)) {
    return Status::Corruption(absl::StrCat("block restart array of ", num_restarts_,
                                           " entries does not fit in ", avail, " bytes"));
  }
  entries_end_ = static_cast<uint32_t>(avail - num_restarts_ * sizeof(uint32_t));
  return CheckRestarts();
}

Status Block::CheckRestarts() const {
  if (RestartPoint(0) != 0) {
    return Status::Corruption(absl::StrCat("block restart 0 is at offset ", RestartPoint(0)));
  }
  uint32_t prev = 0;
  for (uint32_t i = 1; i < num_restarts_; i++) {
    uint32_t r = RestartPoint(i);
    if (r <= prev || r >= entries_end_) {
      return Status::Corruption(absl::StrCat("block restart ", i, " at offset ", r,
                                             " is out of order or past the entries (",
                                             entries_end_, " bytes)"));
    }
    prev = r;
  }
  // Restart 0 is at offset 0; unless the block is empty, an entry must start there.
  if (entries_end_ == 0 && num_restarts_ != 1) {
    return Status::Corruption("empty block with more than one restart point");
  }
  return Status::OK();
}

uint32_t Block::RestartPoint(uint32_t index) const {
  return DecodeFixed32(contents_.data() + entries_end_ + index * sizeof(uint32_t));
}

size_t Block::ApproximateMemoryUsage() const {
  // Borrowed bytes are charged by their owner (LoadedBlock).
  return sizeof(Block) + StringHeapBytes(owned_string_) +
         (owned_prefixes_ != nullptr ? AllocationFootprint(num_restarts_ * sizeof(uint32_t)) : 0) +
         StringHeapBytes(restart_shared_prefix_);
}

std::unique_ptr<BlockIter> Block::NewIterator(const Comparator* cmp) const {
  return std::make_unique<BlockIter>(this, cmp);
}

std::unique_ptr<BlockIter> Block::NewIterator(const InternalKeyComparator* cmp) const {
  return std::make_unique<BlockIter>(this, cmp);
}

// ---------------------------------------------------------------------------------------------
// BlockIter

namespace {

// Decodes an entry header in [p, limit); returns the key delta's start, or nullptr if the
// header is malformed or the delta and value run past limit.
const char* DecodeEntry(const char* p, const char* limit, uint32_t* shared,
                        uint32_t* non_shared, uint32_t* value_len) {
  if (limit - p >= 3 && ((p[0] | p[1] | p[2]) & 0x80) == 0) {
    // Fast path: all three varints are one byte.
    *shared = static_cast<uint8_t>(p[0]);
    *non_shared = static_cast<uint8_t>(p[1]);
    *value_len = static_cast<uint8_t>(p[2]);
    p += 3;
  } else {
    if ((p = GetVarint32Ptr(p, limit, shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, non_shared)) == nullptr) return nullptr;
    if ((p = GetVarint32Ptr(p, limit, value_len)) == nullptr) return nullptr;
  }
  if (static_cast<uint64_t>(*non_shared) + *value_len > static_cast<uint64_t>(limit - p)) {
    return nullptr;
  }
  return p;
}

}  // namespace

BlockIter::BlockIter(const Block* block, const Comparator* cmp)
    : BlockIter(block, cmp,
                dynamic_cast<const InternalKeyComparator*>(cmp) != nullptr
                    ? kInternalKeyTrailerSize
                    : 0) {}

BlockIter::BlockIter(const Block* block, const InternalKeyComparator* cmp)
    : BlockIter(block, cmp, kInternalKeyTrailerSize) {}

BlockIter::BlockIter(const Block* block, const Comparator* cmp, size_t min_key_size)
    : block_(block),
      cmp_(cmp),
      data_(block->contents_.data()),
      entries_end_(block->entries_end_),
      num_restarts_(block->num_restarts_),
      min_key_size_(min_key_size),
      current_(entries_end_),
      next_(entries_end_),
      restart_index_(num_restarts_) {}

void BlockIter::MarkInvalid() {
  current_ = next_ = entries_end_;
  restart_index_ = num_restarts_;
  key_ = {};
  value_ = {};
}

void BlockIter::Corrupt(std::string_view what, uint32_t offset) {
  if (status_.ok()) {
    status_ =
        Status::Corruption(absl::StrCat("block entry at offset ", offset, ": ", ToAbsl(what)));
  }
  MarkInvalid();
}

void BlockIter::SeekToRestartPoint(uint32_t index) {
  key_ = {};
  restart_index_ = index;
  next_ = block_->RestartPoint(index);
  current_ = entries_end_;  // invalid until ParseNextKey
}

bool BlockIter::ParseNextKey() {
  uint32_t offset = next_;
  if (offset >= entries_end_) {
    MarkInvalid();
    return false;
  }
  const char* limit = data_ + entries_end_;
  uint32_t shared, non_shared, value_len;
  const char* p = DecodeEntry(data_ + offset, limit, &shared, &non_shared, &value_len);
  if (p == nullptr) {
    Corrupt("malformed or overruns the entries", offset);
    return false;
  }
  if (shared > key_.size()) {
    Corrupt("shares more bytes than the previous key has", offset);
    return false;
  }
  while (restart_index_ + 1 < num_restarts_ && block_->RestartPoint(restart_index_ + 1) <= offset) {
    restart_index_++;
  }
  if (shared == 0) {
    key_ = std::string_view(p, non_shared);
  } else {
    if (key_.data() != key_buf_.data()) {
      key_buf_.assign(key_.data(), shared);
    } else {
      key_buf_.resize(shared);
    }
    key_buf_.append(p, non_shared);
    key_ = key_buf_;
  }
  if (key_.size() < min_key_size_) {
    Corrupt("key is shorter than an internal key", offset);
    return false;
  }
  value_ = std::string_view(p + non_shared, value_len);
  current_ = offset;
  next_ = static_cast<uint32_t>(p + non_shared + value_len - data_);
  return true;
}

bool BlockIter::ParseKeyAt(uint32_t offset, std::string_view* key) {
  uint32_t shared, non_shared, value_len;
  const char* p = DecodeEntry(data_ + offset, data_ + entries_end_, &shared, &non_shared,
                              &value_len);
  if (p == nullptr || shared != 0) {
    Corrupt("restart entry is malformed or shares a prefix", offset);
    return false;
  }
  if (non_shared < min_key_size_) {
    Corrupt("key is shorter than an internal key", offset);
    return false;
  }
  *key = std::string_view(p, non_shared);
  return true;
}

namespace {

// The 4 bytes of `user_key` from `skip` on, as a big-endian number padded with zero bytes: for
// bytewise keys that share their first `skip` bytes, a <= b implies the same of these numbers.
uint32_t RestartPrefix(std::string_view user_key, size_t skip) {
  unsigned char bytes[4] = {0, 0, 0, 0};
  if (user_key.size() > skip) {
    std::memcpy(bytes, user_key.data() + skip, std::min<size_t>(user_key.size() - skip, 4));
  }
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

}  // namespace

void Block::BuildRestartPrefixes(const InternalKeyComparator* cmp, uint32_t* storage) {
  if (cmp->user_comparator() != BytewiseComparator() || num_restarts_ == 0) return;
  BlockIter it(this, cmp);
  std::string_view first, last;
  if (!it.ParseKeyAt(RestartPoint(0), &first) || first.size() < kInternalKeyTrailerSize) return;
  const std::string first_user(ExtractUserKey(first));  // the iterator's view moves on
  if (!it.ParseKeyAt(RestartPoint(num_restarts_ - 1), &last) ||
      last.size() < kInternalKeyTrailerSize) {
    return;
  }
  const std::string_view last_user = ExtractUserKey(last);
  size_t shared = 0;
  while (shared < first_user.size() && shared < last_user.size() &&
         first_user[shared] == last_user[shared]) {
    shared++;
  }
  std::unique_ptr<uint32_t[], HugePageHeap::Deleter> owned;
  uint32_t* prefixes = storage;
  if (prefixes == nullptr) {
    owned.reset(static_cast<uint32_t*>(HugePageHeap::Allocate(num_restarts_ * sizeof(uint32_t))));
    if (owned == nullptr) return;  // only an accelerator: do without
    prefixes = owned.get();
  }
  for (uint32_t i = 0; i < num_restarts_; i++) {
    std::string_view key;
    if (!it.ParseKeyAt(RestartPoint(i), &key) || key.size() < kInternalKeyTrailerSize) return;
    const std::string_view user = ExtractUserKey(key);
    // Sorted restarts between first and last all share their prefix; a block where one does
    // not, or where the slices go down, is corrupt: no accelerator (Seek reports it).
    if (user.substr(0, shared) != std::string_view(first_user).substr(0, shared)) return;
    prefixes[i] = RestartPrefix(user, shared);
    if (i > 0 && prefixes[i] < prefixes[i - 1]) return;
  }
  owned_prefixes_ = std::move(owned);
  restart_prefixes_ = prefixes;
  restart_shared_prefix_ = first_user.substr(0, shared);
  prefix_cmp_ = cmp;
}

bool BlockIter::FindRestartBefore(std::string_view target, uint32_t* index) {
  uint32_t left = 0;
  uint32_t right = num_restarts_ - 1;
  if (block_->prefix_cmp_ == cmp_ && cmp_ != nullptr &&
      target.size() >= kInternalKeyTrailerSize) {
    const std::string_view user = ExtractUserKey(target);
    const std::string& shared = block_->restart_shared_prefix_;
    if (user.substr(0, shared.size()) == shared) {
      // Restarts whose slice is below the target's hold keys < target; those above, keys >
      // target. Only the restarts with an equal slice need whole-key comparisons.
      const uint32_t* prefixes = block_->restart_prefixes_;
      const uint32_t p = RestartPrefix(user, shared.size());
      const uint32_t* lo = std::lower_bound(prefixes, prefixes + num_restarts_, p);
      const uint32_t* hi = std::upper_bound(lo, prefixes + num_restarts_, p);
      left = lo > prefixes ? static_cast<uint32_t>(lo - prefixes) - 1 : 0;
      right = hi > prefixes ? static_cast<uint32_t>(hi - prefixes) - 1 : 0;
    }
  }
  // Invariant: every restart before `left` has a key < target; every one after `right`, >=.
  while (left < right) {
    uint32_t mid = left + (right - left + 1) / 2;
    std::string_view key;
    if (!ParseKeyAt(block_->RestartPoint(mid), &key)) return false;
    if (cmp_->Compare(key, target) < 0) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  *index = left;
  return true;
}

void BlockIter::SeekToFirst() {
  if (!status_.ok()) return;
  SeekToRestartPoint(0);
  ParseNextKey();
}

void BlockIter::SeekToLast() {
  if (!status_.ok()) return;
  SeekToRestartPoint(num_restarts_ - 1);
  while (ParseNextKey() && next_ < entries_end_) {
  }
}

void BlockIter::Seek(std::string_view target) {
  if (!status_.ok()) return;
  uint32_t index = 0;
  if (!FindRestartBefore(target, &index)) return;
  SeekToRestartPoint(index);
  while (ParseNextKey()) {
    if (cmp_->Compare(key_, target) >= 0) return;
  }
}

void BlockIter::SeekForPrev(std::string_view target) {
  if (!status_.ok()) return;
  Seek(target);
  if (!Valid()) {
    if (!status_.ok()) return;
    SeekToLast();
  }
  // Seek landed on the first entry >= target: at most one step back.
  while (Valid() && cmp_->Compare(key_, target) > 0) Prev();
}

void BlockIter::Next() {
  assert(Valid());
  ParseNextKey();
}

void BlockIter::Prev() {
  assert(Valid());
  const uint32_t original = current_;
  // Back to the last restart point before the current entry, then forward to its predecessor.
  while (block_->RestartPoint(restart_index_) >= original) {
    if (restart_index_ == 0) {  // the current entry is the first
      MarkInvalid();
      return;
    }
    restart_index_--;
  }
  SeekToRestartPoint(restart_index_);
  while (ParseNextKey() && next_ < original) {
  }
  if (Valid() && next_ != original) Corrupt("entries do not chain to the next entry", current_);
}

bool BlockIter::KeyHasUserKey(std::string_view user_key) const {
  return key_.size() >= kInternalKeyTrailerSize && ExtractUserKey(key_) == user_key;
}

bool BlockIter::SeekForGet(std::string_view target) {
  if (!status_.ok()) return true;
  if (!block_->has_hash_index_ || target.size() < kInternalKeyTrailerSize) {
    Seek(target);
    return true;
  }
  std::string_view user_key = ExtractUserKey(target);
  uint8_t bucket = block_->hash_index_.Lookup(user_key);
  if (bucket == kHashIndexNoEntry) {
    MarkInvalid();
    return false;
  }
  if (bucket == kHashIndexCollision) {
    Seek(target);
    return true;
  }
  // If the user key is in the block, `bucket` is the interval of its first version; every
  // entry before that is smaller than target, so scanning from there finds Seek's entry.
  SeekToRestartPoint(bucket);
  bool passed_smaller = false;
  while (ParseNextKey()) {
    if (cmp_->Compare(key_, target) >= 0) break;
    passed_smaller = true;
  }
  // Having passed an entry < target, the scan is where Seek would be (every earlier entry is
  // smaller still), found or not, at the end of the block or not. Stopping on the interval's
  // first entry with another user key means the bucket belongs to other keys only: a key that
  // is in the block would start in that interval, at or after its first entry, and no later
  // than the first entry >= target.
  if (Valid() && !passed_smaller && !KeyHasUserKey(user_key)) {
    MarkInvalid();
    return false;
  }
  return true;
}

}  // namespace shale
