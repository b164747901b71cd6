// The meta-index and properties blocks of a table: the meta-index maps block names to handles,
// the properties block holds TableProperties. Both are ordinary key/value blocks (block.h) with
// bytewise-sorted keys, stored uncompressed.
//
// Thread-safety: free functions over caller-owned values.
#ifndef SHALE_TABLE_META_BLOCKS_H_
#define SHALE_TABLE_META_BLOCKS_H_

#include <map>
#include <string>
#include <string_view>

#include "shale/status.h"
#include "table/block.h"
#include "table/format.h"
#include "table/table_properties.h"

namespace shale {

// Names in the meta-index (part of the format: never rename one).
inline constexpr char kPropertiesBlockName[] = "shale.properties";
inline constexpr char kFullFilterBlockName[] = "shale.filter";
inline constexpr char kPartitionedFilterBlockName[] = "shale.partitioned_filter";
inline constexpr char kRangeDelBlockName[] = "shale.range_del";

// Meta-index contents: name -> handle (std::map keeps them sorted, as the block needs).
using MetaIndex = std::map<std::string, BlockHandle, std::less<>>;

// The contents of a meta-index block / properties block.
std::string BuildMetaIndexBlock(const MetaIndex& entries);
std::string BuildPropertiesBlock(const TableProperties& props);

// Parse the blocks back. Corruption (naming the entry) for a malformed handle, a property that
// does not decode, keys out of order, or a block iterator error; the caller adds the file and
// offset.
Status ParseMetaIndexBlock(const Block& block, MetaIndex* entries);
Status ParsePropertiesBlock(const Block& block, TableProperties* props);

}  // namespace shale

#endif  // SHALE_TABLE_META_BLOCKS_H_
