// TableOptions: the knobs of the block-based table format (RocksDB's BlockBasedTableOptions,
// with its names and defaults). They decide how tables are written; readers take what they
// need from each table's own properties, so tables written with different options coexist.
// None of these can be changed by DB::SetOptions; they apply to tables written after Open.
#ifndef SHALE_TABLE_OPTIONS_H_
#define SHALE_TABLE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "shale/filter_policy.h"

namespace shale {

struct TableOptions {
  enum IndexType : int {
    // One index entry per data block, in one block. Default.
    kBinarySearch = 0x00,
    // Index partitions (one per metadata_block_size of index entries) plus a top-level index
    // over them; an open table keeps only the top level in memory.
    kTwoLevelIndexSearch = 0x02,
  };
  enum DataBlockIndexType : int {
    // Binary search over restart points. Default.
    kDataBlockBinarySearch = 0,
    // Plus a hash index in each data block: point lookups find their restart interval
    // without a binary search.
    kDataBlockBinaryAndHash = 1,
  };

  // Uncompressed size of a data block, in bytes (a block is cut once it reaches this).
  // Default: 4096.
  size_t block_size = 4 * 1024;

  // Keys between restart points in data blocks (prefix compression restarts there).
  // Default: 16.
  int block_restart_interval = 16;

  // Keys between restart points in index blocks. Default: 1.
  int index_block_restart_interval = 1;

  // Default: kBinarySearch.
  IndexType index_type = kBinarySearch;

  // Default: kDataBlockBinarySearch.
  DataBlockIndexType data_block_index_type = kDataBlockBinarySearch;

  // Entries per bucket of the data-block hash index (lower: more buckets, fewer collisions).
  // Default: 0.75.
  double data_block_hash_table_util_ratio = 0.75;

  // The filter stored in each table; null for none. Default: null (as RocksDB).
  std::shared_ptr<const FilterPolicy> filter_policy;

  // Partition the filter along the index partitions. Requires
  // index_type == kTwoLevelIndexSearch. Default: false.
  bool partition_filters = false;

  // Target size of index and filter partitions, in bytes. Default: 4096.
  uint64_t metadata_block_size = 4096;

  // Compress index blocks (and index partitions) with the table's compression.
  // Default: true.
  bool enable_index_compression = true;

  // Filter on the whole user key. Default: true (the only mode ShaleDB supports).
  bool whole_key_filtering = true;

  // Table format version written. Default: 1 (the only version so far).
  uint32_t format_version = 1;
};

}  // namespace shale

#endif  // SHALE_TABLE_OPTIONS_H_
