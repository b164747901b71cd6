// Index builders: the index of a table maps each data block to its handle, under a key that
// separates the block from the next one (InternalKeyComparator::FindShortestSeparator between
// the block's last key and the next block's first key; FindShortSuccessor of the last key for
// the last block). So for every data block B with index key K:
//   last key of B <= K < first key of the block after B,
// and a Seek(target) on the index lands on the only block that can hold the first entry >=
// target.
//
// Two layouts (TableOptions::IndexType):
// - kBinarySearch: one index block with every entry; it goes in the table's tail.
// - kTwoLevelIndexSearch: index partitions, each cut once it reaches metadata_block_size (the
//   table builder decides when, so that filter partitions are cut at the same entries), and a
//   top-level index mapping each partition's last key to the partition's handle. The
//   partitions are written before the tail; only the top level goes in the tail.
// Index blocks and partitions use index_block_restart_interval; whether they are compressed is
// the writer's business (enable_index_compression).
//
// Thread-safety: used by one thread at a time (the table builder's).
#ifndef SHALE_TABLE_INDEX_BUILDER_H_
#define SHALE_TABLE_INDEX_BUILDER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "base/internal_key.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "table/format.h"

namespace shale {

// Writes one metadata block (an index or filter partition) to the table and returns its handle.
using PartitionWriter = absl::FunctionRef<Status(std::string_view contents, BlockHandle*)>;

class IndexBuilder {
 public:
  // A builder for options.index_type (any other value is taken as kBinarySearch).
  // `comparator` must outlive the builder.
  static std::unique_ptr<IndexBuilder> New(const TableOptions& options,
                                           const InternalKeyComparator* comparator);
  virtual ~IndexBuilder() = default;

  // Adds the entry of a finished data block. `next_first_key` is the first key of the next
  // data block, or empty when this is the last block (internal keys are never empty).
  // REQUIRES: last_key < next_first_key.
  virtual void AddIndexEntry(std::string_view last_key, std::string_view next_first_key,
                             const BlockHandle& handle) = 0;

  // Two-level only (0 otherwise): the size of the partition being filled.
  virtual size_t OpenPartitionSize() const = 0;
  // Two-level only: closes the partition being filled and returns its key (its last entry's
  // key; valid until the next call). REQUIRES: OpenPartitionSize() > 0 entries were added.
  virtual std::string_view CutPartition() = 0;

  // Writes the partitions (two-level) through `write` and sets *tail_block to the block that
  // goes in the table's tail: the whole index, or the top-level index.
  virtual Status Finish(PartitionWriter write, std::string* tail_block) = 0;

  virtual size_t num_partitions() const = 0;

 protected:
  IndexBuilder() = default;
};

}  // namespace shale

#endif  // SHALE_TABLE_INDEX_BUILDER_H_
