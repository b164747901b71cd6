// Turns shale_bench's flags into the DB's Options, and rejects flags for features ShaleDB does
// not have yet (with a message naming the flag) before anything runs.
//
// The mapping is db_bench's: each flag sets the RocksDB option of the same meaning (the
// universal and FIFO knobs only when non-zero, as db_bench does; --merge_operator by the names
// of merge_operator_flag.h). Options that only DB::Open
// can judge (a block cache size, a TTL with universal compaction, inconsistent L0 triggers) are
// passed through, and Open's InvalidArgument is what the user sees.
#ifndef SHALE_TOOLS_SHALE_BENCH_OPTIONS_FROM_FLAGS_H_
#define SHALE_TOOLS_SHALE_BENCH_OPTIONS_FROM_FLAGS_H_

#include <string>
#include <string_view>

#include "shale/compression_type.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::bench {

// OK, or InvalidArgument naming the first flag that is malformed (an unknown compression type,
// value size distribution or merge operator, a compaction style outside 0..3, a non-positive
// size, a negative universal knob, a bad posting-list flag) or that asks for a feature ShaleDB
// has not built yet ("--use_fsync: not supported yet ..."; likewise
// min_write_buffer_number_to_merge, fifo_compaction_allow_compaction and RocksDB's merge
// operators that ShaleDB lacks).
Status CheckFlags();

// db_bench's compression names: none, snappy, zlib, bzip2, lz4, lz4hc, xpress, zstd.
// InvalidArgument for any other name.
Status ParseCompressionType(std::string_view name, CompressionType* type);

// The name db_bench prints for a compression type ("NoCompression", "ZSTD", ...).
std::string_view CompressionName(CompressionType type);

// The options the flags describe: from --options_file if set (then the flags that set DB
// options are ignored, as in db_bench), else from the individual flags. create_if_missing is
// !--use_existing_db. REQUIRES: CheckFlags() returned OK.
Status OptionsFromFlags(Options* options);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_OPTIONS_FROM_FLAGS_H_
