// TableBuilder: writes one table file (SST) from internal keys added in sorted order. The format
// is in doc/table_format.md; in file order:
//
//   data blocks                    cut once a block reaches block_size, before an entry that
//                                  would take it past BlockFitTarget() (block_size less what a
//                                  cache adds to a kept block) once it holds 90% of that, or
//                                  before an entry that would take it past kMaxBlockSize (1 GiB)
//   filter partitions              partitioned filters only
//   index partitions               two-level index only
//   --- tail (read in one pread when the table is opened) ---
//   index block                    the whole index, or the top-level index (first in the tail:
//                                  the footer's index handle tells where the tail starts)
//   filter block                   full filter, or top-level filter index (if a filter policy)
//   range-deletion block           if any DeleteRange entry was added
//   properties block
//   meta-index block
//   footer
//
// Entries of type kTypeRangeDeletion (key = start internal key, value = end user key) go to the
// range-deletion block, not to data blocks, and need not be in order with the point entries:
// they are sorted when the table is finished.
//
// Errors are sticky: after the first failure (an I/O error, or keys out of order found by the
// expensive checks), Add does nothing and Finish returns that error.
//
// Ownership: the builder borrows the file and the comparator; both must outlive it. The caller
// syncs and closes the file after Finish (and deletes it after Abandon).
// Thread-safety: one thread at a time.
#ifndef SHALE_TABLE_TABLE_BUILDER_H_
#define SHALE_TABLE_TABLE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/internal_key.h"
#include "compression/codec.h"
#include "shale/compression_type.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "table/block_builder.h"
#include "table/filter_block.h"
#include "table/format.h"
#include "table/index_builder.h"
#include "table/table_properties.h"

namespace shale {

class TableBuilder {
 public:
  // `compression` applies to data blocks (and to index blocks when
  // options.enable_index_compression); `compression_level` is the codec's level. An unsupported
  // compression type, or a block_size or metadata_block_size over kMaxTableBlockSizeOption
  // (shale/limits.h), makes the builder fail with InvalidArgument. partition_filters without a
  // two-level index gives a full filter (RocksDB does the same). `path` names the file in errors.
  TableBuilder(const TableOptions& options, CompressionType compression, int compression_level,
               const InternalKeyComparator* comparator, WritableFile* file, std::string path);
  // REQUIRES: Finish() or Abandon() was called.
  ~TableBuilder();

  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Adds an entry. REQUIRES: Finish/Abandon not called; for point entries, key > every point
  // key added before under the comparator (checked by an assert, and as a Corruption status
  // with SHALE_EXPENSIVE_CHECKS).
  void Add(std::string_view internal_key, std::string_view value);

  // The first error met, or OK.
  Status status() const { return status_; }

  // Writes the rest of the table and the footer. Does not sync or close the file.
  Status Finish();
  // Stops building; the caller deletes the file.
  void Abandon();

  // Records the column family the table is written for in its properties
  // (TableProperties::column_family_id/name). An empty name records nothing.
  // REQUIRES: before Finish.
  void SetColumnFamily(uint32_t id, std::string_view name) {
    props_.column_family_id = id;
    props_.column_family_name.assign(name.data(), name.size());
  }

  // Entries added so far (range deletions included).
  uint64_t NumEntries() const { return props_.num_entries; }
  // Bytes written to the file so far; after Finish, the file size.
  uint64_t FileSize() const { return offset_; }
  // The table's properties; complete after a successful Finish.
  const TableProperties& properties() const { return props_; }

 private:
  void AddPointEntry(std::string_view key, std::string_view value, ValueType type);
  void AddRangeDeletion(std::string_view key, std::string_view value);
  bool CheckOrder(std::string_view key);
  void FlushDataBlock();
  // The size data blocks aim to end within: block_size less what a block cache adds to a kept
  // block's allocation (the LoadedBlock, restart-prefix room, the trailer), so that the
  // allocation fits the allocator's block_size class.
  size_t BlockFitTarget() const;
  // OK, or InvalidArgument when a block of `size` bytes is over kMaxBlockSize (a reader would
  // refuse it): the file fails instead of being written unreadable.
  Status CheckBlockSize(std::string_view what, size_t size) const;
  void AddPendingIndexEntry(std::string_view next_first_key);
  void MaybeCutPartitions();
  // Writes `contents` as a block; `compress` selects the table's compressor.
  // Writes a metadata block; it counts in props_.max_block_size unless told otherwise.
  Status WriteMetaBlock(std::string_view contents, bool compress, BlockHandle* handle,
                        bool counts_in_max_block_size = true);
  // Writes the filter and index partitions and returns the top-level blocks (or the whole
  // index / full filter) that go in the tail.
  Status WritePartitions(std::string* index_tail, std::string* filter_tail);
  Status WriteTail();
  Status WriteRangeDeletions(BlockHandle* handle);
  void FillOptionProperties();

  const TableOptions options_;
  const InternalKeyComparator* const comparator_;
  WritableFile* const file_;
  const std::string path_;
  const bool use_partitioned_filter_;
  std::unique_ptr<Compressor> compressor_;  // null for kNoCompression

  Status status_;   // sticky: the first error
  bool closed_ = false;  // Finish or Abandon was called
  uint64_t offset_ = 0;  // bytes written to the file

  BlockBuilder data_block_;
  std::unique_ptr<IndexBuilder> index_;
  std::unique_ptr<FilterBlockBuilder> filter_;  // null without a filter policy
  std::vector<std::pair<std::string, std::string>> range_deletions_;

  // Invariant: pending_index_entry_ iff a data block was flushed and its index entry waits for
  // the next block's first key (or Finish); pending_handle_ is that block's handle.
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
  std::string last_key_;  // the last point key added
  std::string compressed_;  // scratch for compressed blocks
  TableProperties props_;
};

}  // namespace shale

#endif  // SHALE_TABLE_TABLE_BUILDER_H_
