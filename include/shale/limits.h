// The size limits of keys, values, write batches and table blocks (doc/size_limits.md).
//
// Whatever the engine acknowledges round-trips through the memtable, the WAL, flush,
// compaction, ingestion (SstFileWriter, BulkLoader), checkpoints and reopen; anything larger is
// refused with InvalidArgument before it is acknowledged, and nothing is written then. The
// limits come from the table format: every block of a table file, stored or uncompressed, is
// at most 1 GiB (a reader refuses a larger one as corrupt), and a data block holding a single
// entry must fit in that together with its entry header and restart array. RocksDB's limits
// are larger (4 GiB); a RocksDB workload with a key above 8 MiB or a value above 1008 MiB is
// refused here, with an error naming the limit.
//
// Thread-safety: constants only.
#ifndef SHALE_LIMITS_H_
#define SHALE_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace shale {

// The longest user key (8 MiB), for every key argument: Put, Delete, SingleDelete, Merge, both
// ends of DeleteRange, WriteBatch, SstFileWriter, BulkLoader::Add. An empty key is valid.
inline constexpr size_t kMaxKeySize = size_t{8} << 20;

// The longest value or merge operand (1008 MiB = 1 GiB - 16 MiB). An empty value is valid.
// Merge operands are checked one by one; where their merged result would be longer, flushes
// and compactions keep the operands unmerged (a read still returns the merged value).
inline constexpr size_t kMaxValueSize = (size_t{1} << 30) - (size_t{16} << 20);

// The largest WriteBatch, in serialized bytes (WriteBatch::GetDataSize: a 12-byte header plus
// each record's tag, length prefixes, key and value): 2 GiB. The batch, the WAL reader's copy
// of it at recovery and the memtable each hold it whole.
inline constexpr size_t kMaxWriteBatchSize = size_t{1} << 31;

// The largest TableOptions::block_size and TableOptions::metadata_block_size (256 MiB).
inline constexpr uint64_t kMaxTableBlockSizeOption = uint64_t{256} << 20;

}  // namespace shale

#endif  // SHALE_LIMITS_H_
