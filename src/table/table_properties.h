// TableProperties: what a table says about itself, stored in its properties block (a key/value
// block named "shale.properties" in the meta-index). Readers take the table's layout from here
// (index type, partitioned filters, hash index), so tables written with different options
// coexist; tools print it; the version layer uses the key and sequence ranges.
//
// Encoding: one entry per property, keys are the names below ("shale.num.entries", ...) in
// sorted order; numbers are varint64, flags varint64 0/1, strings their raw bytes. A reader
// ignores names it does not know (newer writers may add some) and uses the default for names
// that are missing.
//
// Thread-safety: a plain value.
#ifndef SHALE_TABLE_TABLE_PROPERTIES_H_
#define SHALE_TABLE_TABLE_PROPERTIES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shale/status.h"

namespace shale {

struct TableProperties {
  // Entries of every kind, range deletions included.
  uint64_t num_entries = 0;
  // Point deletions and single deletions (range deletions are counted on their own).
  uint64_t num_deletions = 0;
  uint64_t num_merge_operands = 0;
  uint64_t num_range_deletions = 0;
  // Bytes of the internal keys and values as added (before prefix compression).
  uint64_t raw_key_size = 0;
  uint64_t raw_value_size = 0;

  // Bytes in the file, trailers included: data blocks; every index block (partitions and top
  // level); every filter block (partitions and top-level filter index).
  uint64_t data_size = 0;
  uint64_t index_size = 0;
  uint64_t filter_size = 0;
  uint64_t num_data_blocks = 0;
  // Index partitions (0 for a binary-search index).
  uint64_t index_partitions = 0;
  // Bytes of the top-level index alone (two-level index), trailer included.
  uint64_t top_level_index_size = 0;
  // The largest uncompressed size of any block in the file: readers cap decompression here.
  uint64_t max_block_size = 0;

  // Sequence numbers of the entries (0, 0 when there are none).
  uint64_t smallest_seqno = 0;
  uint64_t largest_seqno = 0;

  // The options the table was written with.
  std::string compression_name;
  std::string comparator_name;     // the user comparator's Name()
  std::string filter_policy_name;  // empty: no filter
  uint64_t index_type = 0;         // TableOptions::IndexType
  bool partitioned_filters = false;
  bool data_block_hash_index = false;
  uint64_t block_size = 0;
  uint64_t block_restart_interval = 0;
  uint64_t index_block_restart_interval = 0;
  uint64_t format_version = 0;
  // Seconds since the Unix epoch when the table was finished.
  uint64_t creation_time = 0;

  // The user-key range of the point entries (empty strings when there are none), and, apart,
  // the range the range deletions cover: the smallest start and the largest (exclusive) end.
  std::string smallest_user_key;
  std::string largest_user_key;
  std::string smallest_range_del_key;
  std::string largest_range_del_key;

  // The column family the table was written for (flush, compaction): its id and name, as
  // RocksDB's rocksdb.column.family.id / rocksdb.column.family.name. RepairDB uses them to put
  // the table back in its family when the MANIFEST is lost. Unknown (tables written by
  // SstFileWriter, or by an engine older than these properties): id kUnknownColumnFamilyId and
  // an empty name. Invariant: both are stored, or neither (a table whose name is empty stores
  // neither property).
  static constexpr uint64_t kUnknownColumnFamilyId = 0xffffffffu;
  uint64_t column_family_id = kUnknownColumnFamilyId;
  std::string column_family_name;
  // True when the table named its column family.
  bool has_column_family() const { return !column_family_name.empty(); }

  // The (name, encoded value) pairs of the properties block, sorted by name.
  std::vector<std::pair<std::string, std::string>> Encode() const;
  // Applies one entry of a properties block. Unknown names are ignored; Corruption (naming the
  // property) when a number does not decode.
  Status DecodeEntry(std::string_view name, std::string_view value);

  // One "name: value" line per property, for tools and test output.
  std::string ToString() const;
};

}  // namespace shale

#endif  // SHALE_TABLE_TABLE_PROPERTIES_H_
