// The filter of a table: bloom filters (bloom_filter.h) over the user keys of its point entries,
// so a lookup skips a table -- or a part of it -- that cannot hold its key.
//
// Two layouts:
// - Full filter: one filter over every user key, stored as one block in the table's tail
//   (meta-index name "shale.filter"); an open reader keeps it in memory.
// - Partitioned (TableOptions::partition_filters with a two-level index): a filter partition
//   per index partition, cut at the same data block, so partition i filters exactly the user
//   keys of the data blocks that index partition i covers. Partitions are written before the
//   tail; the tail holds a top-level filter index (meta-index name
//   "shale.partitioned_filter") mapping each partition's key -- the same key as the matching
//   top-level index entry -- to the partition's handle. A reader keeps only the top level and
//   gets partitions through its BlockSource.
// A user key whose versions span a partition boundary is added to both partitions.
// Filter blocks are never compressed (their bits do not compress).
//
// Thread-safety: used by one thread at a time (the table builder's).
#ifndef SHALE_TABLE_FILTER_BLOCK_H_
#define SHALE_TABLE_FILTER_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shale/status.h"
#include "table/bloom_filter.h"
#include "table/index_builder.h"

namespace shale {

class FilterBlockBuilder {
 public:
  // index_restart_interval: restart interval of the top-level filter index.
  FilterBlockBuilder(double bits_per_key, bool partitioned, int index_restart_interval);

  bool partitioned() const { return partitioned_; }

  // Adds the user key of a point entry (consecutive duplicates count once).
  void AddKey(std::string_view user_key);
  // Keys added so far (over all partitions), consecutive duplicates counted once per partition.
  uint64_t num_keys() const { return num_keys_; }

  // Partitioned only: the size of the partition being filled.
  size_t OpenPartitionSize() const { return bloom_.EstimateSize(); }
  // Partitioned only: closes the partition being filled under `partition_key` (the key of the
  // index partition cut at the same time).
  void CutPartition(std::string_view partition_key);

  // Full filter: *tail_block = the filter. Partitioned: writes the partitions through `write`
  // and sets *tail_block to the top-level filter index. REQUIRES for partitioned: every key was
  // followed by a CutPartition.
  Status Finish(PartitionWriter write, std::string* tail_block);

  size_t num_partitions() const { return partitions_.size(); }

 private:
  struct Partition {
    std::string key;
    std::string contents;  // until written
  };

  const bool partitioned_;
  const int index_restart_interval_;
  BloomFilterBuilder bloom_;  // the whole filter, or the partition being filled
  uint64_t num_keys_ = 0;
  std::vector<Partition> partitions_;
};

}  // namespace shale

#endif  // SHALE_TABLE_FILTER_BLOCK_H_
