// Block: one parsed, immutable, uncompressed block (the format is in block_builder.h), and
// BlockIter, the iterator over its entries.
//
// Ownership: a Block owns its contents. Iterators borrow the Block and the Comparator: both must
// outlive every iterator. Views returned by an iterator point into the Block (or into the
// iterator, for prefix-compressed keys) and stay valid until the iterator moves.
//
// Corruption: Create checks the footer, the restart array (in bounds, starting at 0, strictly
// increasing) and the hash index. Entries are checked as they are read: a malformed entry makes
// the iterator invalid with a Corruption status, which then sticks (later seeks leave it invalid).
// No input makes a Block or an iterator read outside the contents.
//
// Thread-safety: a Block is immutable, so any number of threads may read it and create and use
// iterators concurrently; each BlockIter is used by one thread at a time.
#ifndef SHALE_TABLE_BLOCK_H_
#define SHALE_TABLE_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/internal_iterator.h"
#include "shale/comparator.h"
#include "shale/status.h"
#include "table/data_block_hash_index.h"
#include "util/huge_page_heap.h"

namespace shale {

class BlockIter;

class Block {
 public:
  // Takes the uncompressed contents (no trailer). Corruption, saying what is wrong, if the
  // footer, restart array or hash index is malformed.
  static Status Create(std::string contents, std::unique_ptr<Block>* result);
  // The same over a copy of `contents` in huge-page memory (util/huge_page_heap.h): for blocks
  // kept long and read at random (cached or pinned), where TLB misses dominate a lookup.
  static Status CreateOnHugePages(std::string_view contents, std::unique_ptr<Block>* result);

  // Only Create can make one (the tag is private): a Block exists only once parsed.
  struct PrivateTag {
   private:
    PrivateTag() = default;
    friend class Block;
  };
  Block(PrivateTag, std::string contents)
      : owned_string_(std::move(contents)), contents_(owned_string_) {}
  Block(PrivateTag, HugePageBuffer contents, size_t size)
      : owned_buffer_(std::move(contents)), contents_(owned_buffer_.get(), size) {}

  // Block objects live in huge-page memory too: a cached lookup reads them on every hit.
  static void* operator new(size_t size);
  static void operator delete(void* p);

  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  std::string_view contents() const { return contents_; }
  size_t size() const { return contents_.size(); }
  // What a cache should charge for this block.
  size_t ApproximateMemoryUsage() const;
  uint32_t num_restarts() const { return num_restarts_; }
  bool has_hash_index() const { return has_hash_index_; }

  // An iterator over the entries, ordered by `cmp` (an InternalKeyComparator for data and index
  // blocks; with one, entries whose key is shorter than an internal key are Corruption).
  std::unique_ptr<BlockIter> NewIterator(const Comparator* cmp) const;

 private:
  friend class BlockIter;

  Status Parse();
  Status CheckRestarts() const;
  uint32_t RestartPoint(uint32_t index) const;

  // The bytes are in one of the two owners; contents_ views them. Set once by the constructor
  // and Parse and never changed, so readers need no synchronization.
  std::string owned_string_;
  HugePageBuffer owned_buffer_;
  std::string_view contents_;
  uint32_t entries_end_ = 0;  // entries occupy [0, entries_end_); the restart array follows
  uint32_t num_restarts_ = 0;
  bool has_hash_index_ = false;
  DataBlockHashIndex hash_index_;  // a view into contents_; meaningful if has_hash_index_
};

// Iterates over a Block's entries. Seek lands on the first entry >= target, SeekForPrev on the
// last entry <= target (InternalIterator's contract).
class BlockIter final : public InternalIterator {
 public:
  BlockIter(const Block* block, const Comparator* cmp);

  bool Valid() const override { return current_ < entries_end_; }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void Next() override;
  void Prev() override;
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return status_; }

  // Point lookup for internal key `target`. With a hash index, finds the restart interval of
  // target's user key without a binary search, and returns false when the hash index proves
  // that the block holds no entry of that user key (the iterator is then !Valid() with OK
  // status; the caller must still look at the next block, because versions of a user key may
  // continue there). Otherwise the iterator is where Seek(target) would put it (possibly on another
  // user key, or past the end) and the result is true. Without a hash index, on a hash
  // collision, or for a target shorter than an internal key, it is Seek(target) and true.
  // On corruption: true, !Valid(), status() says what is wrong.
  // REQUIRES: cmp is an InternalKeyComparator over a bytewise-equal user order (see
  // data_block_hash_index.h).
  bool SeekForGet(std::string_view target);

 private:
  void SeekToRestartPoint(uint32_t index);
  // Decodes the entry at next_; false at the end of the entries or on corruption.
  bool ParseNextKey();
  bool ParseKeyAt(uint32_t offset, std::string_view* key);
  // Sets index to the last restart whose key is < target (0 if none). False on corruption.
  bool FindRestartBefore(std::string_view target, uint32_t* index);
  void MarkInvalid();
  void Corrupt(std::string_view what, uint32_t offset);
  bool KeyHasUserKey(std::string_view user_key) const;

  const Block* const block_;
  const Comparator* const cmp_;
  const char* const data_;
  const uint32_t entries_end_;
  const uint32_t num_restarts_;
  size_t min_key_size_ = 0;  // 8 under an InternalKeyComparator, else 0

  // Iteration state. Invariants: Valid() iff current_ < entries_end_; when Valid(),
  // restart_index_ is the interval holding current_, key_ and value_ are the current entry and
  // next_ is the offset just past it; !status_.ok() implies !Valid().
  uint32_t current_;
  uint32_t next_;
  uint32_t restart_index_;
  std::string_view key_;  // into data_ (restart entries) or key_buf_
  std::string key_buf_;
  std::string_view value_;
  Status status_;
};

}  // namespace shale

#endif  // SHALE_TABLE_BLOCK_H_
