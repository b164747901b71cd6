// TableReader: reads one table file (the layout is in table_builder.h and
// doc/table_format.md).
//
// Open costs two reads: the footer, then the table's tail in one pread (index or top-level
// index, full filter or top-level filter index, range deletions, properties, meta-index), all
// checksum-verified. The reader keeps those in memory and nothing else: data blocks, index
// partitions and filter partitions come through the BlockSource on every use (the block cache,
// or the file each time). With TableReaderOptions::cache_index_and_filter_blocks (and a real
// cache as the source) the index and filter go into the source too, pinned there for the
// reader's life or fetched on every use (and re-read from the file after an eviction).
// ApproximateMemoryUsage() says what an open reader keeps outside the source.
//
// Lookups (Get) check the filter first (the full filter, or the partition the key falls in),
// then walk index -> data block, using the data block's hash index when it has one, and go on
// into the next data block while the key's versions continue there.
//
// Errors: Corruption names the file and the offset of the block at fault ("<file>: block at
// offset N: checksum mismatch"); I/O errors keep their code and gain the same prefix.
//
// Ownership: the reader owns its file object; it borrows the comparator and the block source,
// which must outlive it. In a DB the file is a pooled one (cache/table_file_pool.h) that holds
// a descriptor only during each read, so a reader, and its iterators, keep no file open. Iterators borrow the reader: destroy them before it.
// Thread-safety: every const method may be called concurrently; each iterator is used by one
// thread at a time.
#ifndef SHALE_TABLE_TABLE_READER_H_
#define SHALE_TABLE_TABLE_READER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "table/block.h"
#include "table/block_source.h"
#include "table/bloom_filter.h"
#include "table/format.h"
#include "table/table_properties.h"

namespace shale {

// How a reader is set up (fixed for its life).
struct TableReaderOptions {
  // Load and use the table's filter. False: lookups skip the filter and the reader keeps no
  // filter in memory. Default: true.
  bool use_filter = true;
  // Keep the index and the filter (the top-level ones when partitioned) in the block source,
  // charged to the cache, instead of in the reader. Open still reads them (with the rest of
  // the tail) and inserts them. Default: false (the reader keeps them).
  bool cache_index_and_filter_blocks = false;
  // With cache_index_and_filter_blocks, and only for a table with a partitioned index: the
  // reader holds its top-level index and filter in the cache for its whole life (pinned), so
  // lookups never miss on them. Default: true (RocksDB's pin_top_level_index_and_filter).
  bool pin_top_level_index_and_filter = true;
  // With cache_index_and_filter_blocks, for any table: pin its index and filter for the
  // reader's life. The table cache sets it for L0 tables when
  // TableOptions::pin_l0_filter_and_index_blocks_in_cache asks. Default: false.
  bool pin_index_and_filter = false;
  // Non-zero for a table ingested with a global sequence number (FileMetaData::global_seqno):
  // every entry, stored with sequence 0, is read with this sequence instead (iterators, Get,
  // range deletions). Default: 0 (the stored sequences).
  SequenceNumber global_seqno = 0;
};

// Per-read choices.
struct TableReadOptions {
  // Verify the checksum of every block read from the file. Default: true.
  bool verify_checksums = true;
  // Let the block source (cache) keep the blocks this read loads. Default: true.
  bool fill_cache = true;
};

// Receives the entries of a Get, newest first; returns false to stop.
using TableGetCallback =
    absl::FunctionRef<bool(std::string_view internal_key, std::string_view value)>;

class TableReader {
 public:
  // Opens the table in `file` (of `file_size` bytes; `path` names it in errors). `cache_id`
  // identifies the table within `block_source` (the file number in a DB). `block_source` null
  // means UncachedBlockSource(). Corruption when the file is not a well-formed table;
  // InvalidArgument when it was written with a different comparator.
  static Status Open(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file,
                     uint64_t file_size, std::string path, uint64_t cache_id,
                     const InternalKeyComparator* comparator, BlockSource* block_source,
                     std::unique_ptr<TableReader>* result);

  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  // Point lookup of `internal_key` (a user key + the reader's snapshot, as a LookupKey gives
  // it): calls `callback` for each entry of that user key at or below the snapshot, newest
  // first, until it returns false or the versions end. With a global sequence number the
  // entries are passed with it, and none when it is above the snapshot. OK when the lookup finished, whether or
  // not anything matched. REQUIRES: internal_key is at least 8 bytes (a LookupKey's is).
  Status Get(const TableReadOptions& options, std::string_view internal_key,
             TableGetCallback callback) const;

  // An iterator over the point entries, both directions.
  std::unique_ptr<InternalIterator> NewIterator(const TableReadOptions& options) const;

  // An iterator over the range deletions (key: start internal key, value: end user key), in
  // start order; empty when there are none.
  std::unique_ptr<InternalIterator> NewRangeTombstoneIterator() const;

  // About where in the file the entries >= `internal_key` start, scaled so that the offset
  // past the last key is the file size.
  uint64_t ApproximateOffsetOf(std::string_view internal_key) const;

  // Up to `max_keys` internal keys spread evenly over the file, taken from the (top-level)
  // index without reading any data block: split points for parallel work on the table. Each
  // is a separator between data blocks or index partitions (>= the last key before it).
  // An error reading or parsing the index is returned (and *keys is then empty): the
  // caller does not go on as if the table were empty.
  [[nodiscard]] Status SampleKeys(size_t max_keys, std::vector<std::string>* keys) const;

  // Reads every block of the file, checking its checksum and that it parses.
  Status VerifyChecksums() const;

  const TableProperties& properties() const { return props_; }
  // Bytes this reader keeps outside the block source: top-level (or whole) index, full filter
  // or top-level filter index (unless they live in the block source), range deletions,
  // properties.
  size_t ApproximateMemoryUsage() const;

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }

 private:
  class Opener;
  friend class Opener;

  TableReader(std::unique_ptr<RandomAccessFile> file, uint64_t file_size, std::string path,
              uint64_t cache_id, const InternalKeyComparator* comparator,
              BlockSource* block_source);

  // The iterator over the index's entries (data block handles): over the index block, or over
  // the top-level index and its partitions.
  std::unique_ptr<InternalIterator> NewIndexIterator(const TableReadOptions& options) const;
  // The whole (or top-level) index block. *holder keeps it alive when it was fetched from the
  // block source; null with *status set on error.
  const Block* IndexBlock(const TableReadOptions& options,
                          std::shared_ptr<const LoadedBlock>* holder, Status* status) const;
  // The full filter or the top-level filter index, as IndexBlock. Null (status OK) when the
  // table has no filter or it is not used.
  const LoadedBlock* FilterBlock(const TableReadOptions& options,
                                 std::shared_ptr<const LoadedBlock>* holder,
                                 Status* status) const;
  // Gets a block through the block source. `kind` decides how it is parsed.
  Status GetBlock(const TableReadOptions& options, BlockKind kind, const BlockHandle& handle,
                  std::shared_ptr<const LoadedBlock>* block) const;
  // Reads and parses a block from the file (no block source). `max_size` caps its
  // uncompressed size; `memory` says where the parsed block lives (kHugePages for a block a
  // cache may keep).
  Status LoadBlock(BlockKind kind, const BlockHandle& handle, bool verify_checksums,
                   size_t max_size, std::unique_ptr<LoadedBlock>* block,
                   LoadedBlock::Memory memory = LoadedBlock::Memory::kHeap) const;
  // False when the filter proves that `internal_key`'s user key is not in the table.
  bool KeyMayMatch(const TableReadOptions& options, std::string_view internal_key,
                   Status* status) const;
  // Get over the stored keys (no global sequence applied).
  Status GetStored(const TableReadOptions& options, std::string_view internal_key,
                   TableGetCallback callback) const;
  // GetStored's walk over the index (an iterator over the index block, or the two-level one).
  Status SearchIndex(const TableReadOptions& options, InternalIterator* index,
                     std::string_view internal_key, TableGetCallback callback) const;
  // Searches one data block; *done when the versions of the key cannot continue past it.
  Status SearchDataBlock(const TableReadOptions& options, const BlockHandle& handle,
                         std::string_view internal_key, TableGetCallback callback,
                         bool* done) const;
  // Decodes an index entry's value; Corruption naming the index block at `block_offset`.
  Status DecodeHandle(std::string_view value, uint64_t block_offset, BlockHandle* handle) const;
  Status VerifyDataBlocks(const Block& index, uint64_t index_offset) const;
  Status VerifyIndexAndData() const;
  Status VerifyFilterPartitions() const;
  // The largest uncompressed block this table may hold (its property, capped at kMaxBlockSize).
  size_t MaxBlockSize() const;

  enum class FilterKind { kNone, kFull, kPartitioned };

  const std::unique_ptr<RandomAccessFile> file_;
  const uint64_t file_size_;
  const std::string path_;
  const uint64_t cache_id_;
  const InternalKeyComparator* const comparator_;
  BlockSource* const block_source_;

  // Set by Open, then immutable (so concurrent readers need no lock).
  TableProperties props_;
  bool two_level_index_ = false;
  BlockHandle metaindex_handle_;
  BlockHandle index_handle_;
  // Index and filter: held here (owned, or pinned in the block source) unless
  // fetch_index_and_filter_, when they are asked of the block source on every use (and
  // index_ and filter_ stay null).
  bool fetch_index_and_filter_ = false;
  bool index_and_filter_in_source_ = false;  // charged to the block source, pinned or not
  size_t uncharged_pinned_bytes_ = 0;  // pinned index/filter the source refused to charge
  std::shared_ptr<const LoadedBlock> index_;   // the whole index, or the top-level index
  FilterKind filter_kind_ = FilterKind::kNone;  // what the table has (used or not)
  bool use_filter_ = true;                      // false: the filter is never consulted
  BlockHandle filter_handle_;                 // of the full filter / top-level filter index
  // The full filter (filter()) or the top-level filter index (block()).
  std::shared_ptr<const LoadedBlock> filter_;
  BlockHandle range_del_handle_;
  std::unique_ptr<Block> range_del_block_;    // null when the table has no range deletions
  BlockHandle properties_handle_;
  SequenceNumber global_seqno_ = 0;  // TableReaderOptions::global_seqno

  // The most restarts seen so far in a block of this table read in place (data blocks;
  // index and filter-index blocks), 0 before the first: the room LoadBlock reserves for the
  // next one's restart prefixes (LoadedBlock::ReadBlockInPlace's restarts_hint), so blocks
  // of any restart interval get theirs in the same allocation. Only ever raised (relaxed: a
  // stale value costs one separate allocation).
  mutable std::atomic<uint32_t> data_block_restarts_{0};
  mutable std::atomic<uint32_t> index_block_restarts_{0};
};

}  // namespace shale

#endif  // SHALE_TABLE_TABLE_READER_H_
