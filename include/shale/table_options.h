// TableOptions: the knobs of the block-based table format (RocksDB's BlockBasedTableOptions,
// with its names and defaults). They decide how tables are written; readers take what they
// need from each table's own properties, so tables written with different options coexist.
// None of these can be changed by DB::SetOptions; they apply to tables written after Open.
#ifndef SHALE_TABLE_OPTIONS_H_
#define SHALE_TABLE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "shale/cache.h"
#include "shale/filter_policy.h"
#include "shale/limits.h"

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

  // Uncompressed size of a data block, in bytes. A block is cut once it reaches this, and
  // before an entry that would take it past a target once it holds 90% of that (as RocksDB's
  // block_size_deviation of 10 does). The target is this less what a block cache adds to a
  // kept block's allocation (~250 bytes plus 4 per restart point), so that a cached block of
  // ordinary entries takes block_size bytes of memory rather than the allocator's next size
  // class (5 KiB for 4 KiB); blocks are that much smaller, cache or not. At most
  // kMaxTableBlockSizeOption (256 MiB, shale/limits.h). Default: 4096.
  size_t block_size = 4 * 1024;

  // Keys between restart points in data blocks (prefix compression restarts there). Values
  // below 1 are taken as 1 (as RocksDB). A point read binary-searches the restart points and
  // then scans at most this many entries: 4 instead of RocksDB's 16 made cached reads of
  // 116-byte entries ~20% faster for ~1.6% more bytes (bench/RESULTS.md, issue 21); keys with
  // long shared prefixes lose more of their prefix compression. Default: 4 (RocksDB: 16).
  int block_restart_interval = 4;

  // Keys between restart points in index blocks. Values below 1 are taken as 1 (as RocksDB).
  // Default: 1.
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

  // Partition the filter along the index partitions. Only with
  // index_type == kTwoLevelIndexSearch: otherwise turned off at Open (as RocksDB, noted in the
  // info LOG). Default: false.
  bool partition_filters = false;

  // Target size of index and filter partitions, in bytes. At most kMaxTableBlockSizeOption
  // (256 MiB). Default: 4096.
  uint64_t metadata_block_size = 4096;

  // Compress index blocks (and index partitions) with the table's compression.
  // Default: true.
  bool enable_index_compression = true;

  // Filter on the whole user key. Default: true (the only mode ShaleDB supports).
  bool whole_key_filtering = true;

  // Table format version written. Default: 1 (the only version so far).
  uint32_t format_version = 1;

  // ---- Reading: the block cache (these decide how tables are read, not how they are written)

  // Where data blocks, index partitions and filter partitions are cached (shale/cache.h); may
  // be shared by several DBs. Null: the DB makes its own 8 MiB LRU cache, unless
  // no_block_cache. In option strings: block_cache=<bytes> (e.g. 64M) makes an LRU cache of
  // that capacity. Default: null.
  std::shared_ptr<Cache> block_cache;

  // No block cache at all: every block is read from the file each time it is needed (the OS
  // page cache still helps). Default: false.
  bool no_block_cache = false;

  // Keep each table's index and filter (its top-level ones when partitioned) in the block
  // cache, charged to its capacity, instead of in the table reader's own memory. Bounds the
  // memory of many open tables by the cache size. Default: false.
  bool cache_index_and_filter_blocks = false;

  // Charge the memory each open table keeps in its reader (its index and filter, unless
  // cache_index_and_filter_blocks puts them in the cache) to the block cache's capacity, for
  // as long as the table stays open: the cache evicts data blocks to make room, so the block
  // cache and the open tables together use no more than the cache's capacity, whatever the
  // number of tables. The charge counts as pinned usage (Cache::GetPinnedUsage). When the
  // tables' memory alone exceeds the capacity, no data block stays cached; with
  // strict_capacity_limit, the least recently used open tables are closed to make room for a
  // table whose charge does not fit, and one that does not fit even then is read but not kept
  // open (its index and filter are read again on its next use). Only a cache given in block_cache is
  // charged: the DB's private 8 MiB cache (block_cache null) is no budget anyone chose, and
  // the tables of a DB past ~1 GB would leave it no room for a single block; with
  // no_block_cache there is nothing to charge. RocksDB's equivalent is
  // cache_usage_options' kBlockBasedTableReader role (db_bench's --charge_table_reader), off
  // by default there. Default: true.
  bool charge_table_reader_memory = true;

  // With cache_index_and_filter_blocks, for tables with a partitioned index: the table reader
  // pins its top-level index and filter in the cache while it is open (they count as pinned
  // usage and are never evicted), so lookups never miss on them. Default: true.
  bool pin_top_level_index_and_filter = true;

  // With cache_index_and_filter_blocks: pin the index and filter of level-0 tables (the level
  // at the time the table is opened). Default: false.
  bool pin_l0_filter_and_index_blocks_in_cache = false;
};

}  // namespace shale

#endif  // SHALE_TABLE_OPTIONS_H_
