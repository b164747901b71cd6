// BlockSource: where a table reader gets the blocks it does not keep itself -- data blocks,
// index partitions and filter partitions. The default source loads the block from the file on
// every request; the block cache implements the same interface, so that the blocks of every
// open table share one byte budget.
//
// The protocol: the reader names the block (BlockKey: the table's cache id + the block's
// offset; BlockKind) and passes a loader, a function that reads, verifies, decompresses and
// parses the block from the file. A source returns a block it holds for that key or calls the
// loader (once per miss) and may keep the result, charging LoadedBlock::charge() bytes. Blocks
// are immutable and shared: the returned std::shared_ptr keeps a block alive while a reader or
// iterator uses it, even after a cache evicts it.
//
// Keys: the cache id must be unique among the tables that share one source (the DB uses the
// file number; tables opened outside a DB pass any id unique to that source). A table's blocks
// never change once written, so a key stays valid as long as the file exists.
//
// Thread-safety: implementations must be safe for concurrent use; the loader may be called from
// any thread that asks.
#ifndef SHALE_TABLE_BLOCK_SOURCE_H_
#define SHALE_TABLE_BLOCK_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "base/internal_key.h"
#include "shale/status.h"
#include "table/block.h"

namespace shale {

// (Block is complete: LoadedBlock holds one inline.)
class BloomFilterReader;

enum class BlockKind : uint8_t {
  kData = 0,
  kIndexPartition = 1,
  kFilterPartition = 2,
  // Only with TableReaderOptions::cache_index_and_filter_blocks: the whole index (or the
  // top-level index when partitioned), the full filter, the top-level filter index.
  kIndex = 3,
  kFilter = 4,
  kFilterIndex = 5,
};
const char* BlockKindName(BlockKind kind);
// Index and filter blocks of every kind: a cache keeps them in its high-priority pool.
inline bool IsIndexOrFilter(BlockKind kind) { return kind != BlockKind::kData; }
// Kinds parsed as a bloom filter (LoadedBlock::filter()); the others parse as a Block.
inline bool IsFilterKind(BlockKind kind) {
  return kind == BlockKind::kFilterPartition || kind == BlockKind::kFilter;
}

// Kinds searched by key with Seek on every lookup (an index, an index partition, the top-level
// filter index): they get restart prefixes (Block::BuildRestartPrefixes) when kept.
inline bool IsIndexKind(BlockKind kind) {
  return kind == BlockKind::kIndex || kind == BlockKind::kIndexPartition ||
         kind == BlockKind::kFilterIndex;
}

// Identifies a block among all the blocks a source serves.
struct BlockKey {
  uint64_t cache_id = 0;  // the table's id within the source (its file number in a DB)
  uint64_t offset = 0;    // the block's offset in the table file
  bool operator==(const BlockKey& o) const {
    return cache_id == o.cache_id && offset == o.offset;
  }
};

// One block in parsed, ready-to-use form. Exactly one of block() (data blocks and index
// partitions) and filter() (filter partitions) is set. Immutable once made.
class LoadedBlock {
 public:
  // Where the parsed bytes live: kHeap keeps the given string; kHugePages copies it into
  // huge-page memory (util/huge_page_heap.h), for blocks kept long and read at random (cached
  // or pinned by a table reader), in ONE allocation with this object and its Block: a cache
  // hit then reaches object, Block and bytes with the fewest cache misses.
  enum class Memory { kHeap, kHugePages };

  // Parse `contents` (uncompressed, no trailer) as a block / as a bloom filter. Corruption
  // from the parser, without the file and offset (the caller adds them).
  // With `search_cmp`, the block also gets restart prefixes for iterators with that comparator
  // (Block::BuildRestartPrefixes), placed beside the block with kHugePages.
  static Status MakeBlock(std::string contents, Memory memory,
                          std::unique_ptr<LoadedBlock>* result,
                          const InternalKeyComparator* search_cmp = nullptr);
  static Status MakeFilter(std::string contents, Memory memory,
                           std::unique_ptr<LoadedBlock>* result);

  // MakeBlock(kHugePages) without the copy: `read(buffer, &uncompressed, &contents,
  // &in_buffer)` reads the block's `capacity` stored bytes (ReadBlockInto's contract) straight
  // into the new LoadedBlock's allocation. A block that comes back compressed is made from
  // `uncompressed` as MakeBlock does. `restarts_hint`: how many restarts the block likely has
  // (the most seen in the table's blocks of its kind), to reserve room for its restart prefixes
  // in the same allocation; 0: one per 256 bytes of `capacity`. A block with more restarts
  // than the room holds gets its prefixes allocated on their own.
  using BlockReader = absl::FunctionRef<Status(char* buffer, std::string* uncompressed,
                                               std::string_view* contents, bool* in_buffer)>;
  static Status ReadBlockInPlace(size_t capacity, const InternalKeyComparator* search_cmp,
                                 BlockReader read, std::unique_ptr<LoadedBlock>* result,
                                 size_t restarts_hint = 0);

  // LoadedBlocks are made only by MakeBlock/MakeFilter, in memory they choose (see Memory);
  // `delete` gives it back to the right allocator.
  static void operator delete(LoadedBlock* p, std::destroying_delete_t);

  ~LoadedBlock();
  LoadedBlock(const LoadedBlock&) = delete;
  LoadedBlock& operator=(const LoadedBlock&) = delete;

  // Bytes a block kept in huge-page memory (kHugePages: MakeBlock, ReadBlockInPlace) takes in
  // its one allocation beyond its stored bytes: the LoadedBlock and room for `restarts`
  // restart prefixes. A table builder cuts blocks so that this, the block and its trailer fit
  // the allocator's block_size class.
  static constexpr size_t KeptBlockOverhead(size_t restarts) {
    return sizeof(LoadedBlock) + ((restarts * sizeof(uint32_t) + 7) & ~size_t{7});
  }

  const Block* block() const { return block_view_; }
  const BloomFilterReader* filter() const { return filter_.get(); }
  // Heap bytes this object keeps (the allocator's size-class slack included: util/heap_size.h),
  // plus a cache entry's bookkeeping: what a cache charges for it.
  size_t charge() const { return charge_; }

 private:
  LoadedBlock();
  // A new, empty LoadedBlock in `memory`; with kHugePages, followed in the same allocation by
  // `trailing_bytes` bytes for its contents (TrailingBytes()).
  static std::unique_ptr<LoadedBlock> New(Memory memory, size_t trailing_bytes);
  char* TrailingBytes() { return reinterpret_cast<char*>(this + 1); }

  // The block (data, index): inline_block_ (kHugePages, over the trailing bytes) or
  // heap_block_ (kHeap); block_view_ points at it. First: a lookup reads it.
  const Block* block_view_ = nullptr;
  std::optional<Block> inline_block_;
  std::unique_ptr<Block> heap_block_;
  // A filter's bytes: the trailing bytes (kHugePages) or filter_string_ (kHeap).
  std::string filter_string_;
  std::string_view filter_data_;
  std::unique_ptr<BloomFilterReader> filter_;  // views filter_data_
  size_t charge_ = 0;
  bool on_huge_pages_ = false;  // which allocator holds this object
};

// Reads and parses one block; errors name the file and offset.
using BlockLoader = absl::FunctionRef<Status(std::unique_ptr<LoadedBlock>*)>;

struct BlockRequest {
  BlockKey key;
  BlockKind kind = BlockKind::kData;
  // A cache should keep a block it loads for this request (false for scans that would only
  // push out blocks worth keeping). Sources without a cache ignore it.
  bool fill_cache = true;
};

// Memory charged to a source's byte budget for something kept outside it (a table reader's
// index and filter): the source counts it as pinned usage, evicting idle blocks to make room,
// until this object is destroyed. It must not outlive its source.
class MemoryCharge {
 public:
  virtual ~MemoryCharge();
  // The bytes charged.
  virtual size_t bytes() const = 0;
};

class BlockSource {
 public:
  virtual ~BlockSource();
  // Sets *block to the block `request` names, calling `load` if the source does not hold it.
  // On error *block is left null and the loader's error is returned unchanged.
  virtual Status GetBlock(const BlockRequest& request, BlockLoader load,
                          std::shared_ptr<const LoadedBlock>* block) = 0;
  // True when `block` (returned by GetBlock) is charged to this source, false when the source
  // handed it out uncached (a cache refused it, or there is no cache).
  virtual bool IsCharged(const std::shared_ptr<const LoadedBlock>& block) const;
  // Charges `bytes` to the source's budget until *charge is destroyed. A source without a
  // budget (no cache) leaves *charge null and returns OK; a cache with a strict capacity limit
  // that cannot fit the bytes beside what is pinned returns Status::MemoryLimit and charges
  // nothing.
  virtual Status ChargeMemory(size_t bytes, std::unique_ptr<MemoryCharge>* charge);
  // True when ChargeMemory may refuse a charge now (a cache with a strict capacity limit).
  virtual bool MayRefuseCharges() const;
};

// The source without a cache: calls the loader on every request. A process-wide stateless
// singleton.
BlockSource* UncachedBlockSource();

}  // namespace shale

#endif  // SHALE_TABLE_BLOCK_SOURCE_H_
