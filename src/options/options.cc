// Options presets and validation entry point; Snapshot's out-of-line destructor; the default
// column family's name.
#include "shale/options.h"

#include <algorithm>

#include "options/options_sanitize.h"
#include "options/options_validate.h"

namespace shale {

const std::string kDefaultColumnFamilyName = "default";

Snapshot::~Snapshot() = default;

void Options::PrepareForBulkLoad() {
  // Writers never stall on compaction: L0 may grow without limit until the final CompactRange.
  level0_file_num_compaction_trigger = 1 << 30;
  level0_slowdown_writes_trigger = 1 << 30;
  level0_stop_writes_trigger = 1 << 30;
  soft_pending_compaction_bytes_limit = 0;
  hard_pending_compaction_bytes_limit = 0;
  // Nothing compacts by itself; the application compacts once, after the load.
  disable_auto_compactions = true;
  // Two levels: the final compaction merges all of L0 into the bottom level in one pass
  // instead of cascading through the levels between.
  num_levels = 2;
  target_file_size_base = 256ull << 20;
  // More and larger memtables so flushes run in parallel and produce fewer, larger L0 files.
  // (RocksDB leaves write_buffer_size alone; DESIGN.md asks for larger buffers.)
  write_buffer_size = std::max<size_t>(write_buffer_size, 256ull << 20);
  max_write_buffer_number = 6;
  min_write_buffer_number_to_merge = 1;
  // RocksDB runs 4 flush + 2 compaction threads here; ShaleDB has one pool of jobs.
  max_background_jobs = std::max(max_background_jobs, 6);
}

void ColumnFamilyOptions::OptimizeForPointLookup(uint64_t block_cache_size_mb) {
  table_options.data_block_index_type = TableOptions::kDataBlockBinaryAndHash;
  table_options.data_block_hash_table_util_ratio = 0.75;
  table_options.filter_policy = NewBloomFilterPolicy(10);
  if (block_cache_size_mb != 0) {
    table_options.block_cache = NewLRUCache(static_cast<size_t>(block_cache_size_mb << 20));
    table_options.no_block_cache = false;
  }
}

void DBOptions::IncreaseParallelism(int total_threads) { max_background_jobs = total_threads; }

Status Options::Validate() const {
  // What DB::Open checks: the options after RocksDB's adjustments.
  Options sanitized = *this;
  SanitizeOptions(&sanitized, nullptr);
  return ValidateOptions(sanitized);
}

}  // namespace shale
