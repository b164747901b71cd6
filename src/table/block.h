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
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/internal_iterator.h"
#include "shale/comparator.h"
#include "shale/status.h"
#include "base/internal_key.h"
#include "table/data_block_hash_index.h"
#include "util/huge_page_heap.h"

namespace shale {

class BlockIter;

class Block {
 public:
  // Takes the uncompressed contents (no trailer). Corruption, saying what is wrong, if the
  // footer, restart array or hash index is malformed.
  static Status Create(std::string contents, std::unique_ptr<Block>* result);
  // The same in *slot, over `contents` it does not own: the caller keeps the bytes alive and
  // unchanged as long as the Block (LoadedBlock places the block, its bytes and itself in one
  // allocation, so a cache hit reaches all three with the fewest cache misses). On failure
  // *slot is left empty.
  static Status CreateIn(std::string_view contents, std::optional<Block>* slot);

  // Only Create and CreateIn can make one (the tag is private): a Block exists only once
  // parsed.
  struct PrivateTag {
   private:
    PrivateTag() = default;
    friend class Block;
  };
  Block(PrivateTag, std::string contents) : owned_string_(std::move(contents)) {
    contents_ = owned_string_;
  }
  Block(PrivateTag, std::string_view borrowed) : contents_(borrowed) {}

  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  std::string_view contents() const { return contents_; }
  size_t size() const { return contents_.size(); }
  // What a cache should charge for this block.
  size_t ApproximateMemoryUsage() const;
  uint32_t num_restarts() const { return num_restarts_; }
  bool has_hash_index() const { return has_hash_index_; }

  // For blocks that are searched very often and kept long (the index blocks a table reader
  // keeps): records 4 bytes of the user key at each restart point in one small contiguous
  // array, so that Seek narrows its binary search there (a few cache-resident probes) and
  // compares whole keys -- scattered through the block, a cache miss each -- only among the
  // restarts whose 4 bytes equal the target's (usually one or none). The 4 bytes are the ones
  // right after the prefix that the first and last restart keys share (every restart key has
  // it, being between them), so keys with a long common prefix ("user:000...") still differ
  // there. A target without that shared prefix is searched as before.
  // Used only by iterators made with this same `cmp`, and only when its user comparator is the
  // bytewise one (the prefix order must agree with the key order: for bytewise keys with a
  // common prefix, the next 4 bytes padded with zero bytes never decrease as keys increase).
  // Does nothing otherwise, or when a restart key does not decode (Seek then reports the
  // corruption as before). Costs 4 bytes per restart: in `storage` when given (num_restarts()
  // uint32_t the caller keeps alive as long as the block: LoadedBlock places them beside the
  // block), else allocated here.
  // REQUIRES: called before the block is shared with other threads (it writes the block).
  void BuildRestartPrefixes(const InternalKeyComparator* cmp, uint32_t* storage = nullptr);
  bool has_restart_prefixes() const { return restart_prefixes_ != nullptr; }

  // An iterator over the entries, ordered by `cmp` (an InternalKeyComparator for data and index
  // blocks; with one, entries whose key is shorter than an internal key are Corruption).
  std::unique_ptr<BlockIter> NewIterator(const Comparator* cmp) const;
  std::unique_ptr<BlockIter> NewIterator(const InternalKeyComparator* cmp) const;

 private:
  friend class BlockIter;

  Status Parse();
  Status CheckRestarts() const;
  uint32_t RestartPoint(uint32_t index) const;

  // Set once by the constructor, Parse and BuildRestartPrefixes (before the block is shared) and
  // never changed, so readers need no synchronization. The fields a lookup reads come first
  // (one or two cache lines).
  std::string_view contents_;  // owned_string_'s bytes, or borrowed (CreateIn)
  uint32_t entries_end_ = 0;   // entries occupy [0, entries_end_); the restart array follows
  uint32_t num_restarts_ = 0;
  bool has_hash_index_ = false;
  // See BuildRestartPrefixes: the comparator the prefixes were built for (null: none), and
  // num_restarts_ big-endian 4-byte slices of the restart user keys after their shared prefix
  // `restart_shared_prefix_`.
  const Comparator* prefix_cmp_ = nullptr;
  const uint32_t* restart_prefixes_ = nullptr;  // owned_prefixes_, or the caller's storage
  std::unique_ptr<uint32_t[], HugePageHeap::Deleter> owned_prefixes_;
  DataBlockHashIndex hash_index_;  // a view into contents_; meaningful if has_hash_index_
  std::string restart_shared_prefix_;
  std::string owned_string_;
};

// Iterates over a Block's entries. Seek lands on the first entry >= target, SeekForPrev on the
// last entry <= target (InternalIterator's contract).
class BlockIter final : public InternalIterator {
 public:
  BlockIter(const Block* block, const Comparator* cmp);
  // The same without a run-time type check: entries shorter than an internal key are
  // Corruption (a lookup makes two of these per table: no dynamic_cast on that path).
  BlockIter(const Block* block, const InternalKeyComparator* cmp);

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
  friend class Block;  // BuildRestartPrefixes decodes restart keys

  BlockIter(const Block* block, const Comparator* cmp, size_t min_key_size);
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
  const size_t min_key_size_;  // 8 under an InternalKeyComparator, else 0

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
