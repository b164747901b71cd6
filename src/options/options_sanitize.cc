#include "options/options_sanitize.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "options/option_fields.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

constexpr size_t kMinWriteBufferSize = 64ull << 10;
// RocksDB's upper clamp of write_buffer_size on 64-bit builds.
constexpr size_t kMaxWriteBufferSize = 64ull << 30;
constexpr int kMinMaxOpenFiles = 20;
constexpr uint64_t kDefaultDelayedWriteRate = 16ull << 20;
// zstd's level range (ZSTD_minCLevel() and ZSTD_maxCLevel() of zstd 1.5); zstd clamps a level
// outside it, so RocksDB, which hands the level to zstd, accepts any.
constexpr int kMinZstdLevel = -(1 << 17);
constexpr int kMaxZstdLevel = 22;

// Applies one rule: when the value of `option` changes from `before`, records the note.
// Usage: Sanitizer s(options, notes); s.Adjust("name", [&]{ ...change... }, "why");
class Sanitizer {
 public:
  Sanitizer(Options* options, std::vector<std::string>* notes)
      : options_(options), notes_(notes) {}

  // Runs `change` on the options; if the printed value of `option` differs afterwards, notes
  // it with `why`.
  template <typename Change>
  void Adjust(std::string_view option, Change change, std::string_view why) {
    const std::string before = PrintOptionByName(*options_, option);
    change(*options_);
    const std::string after = PrintOptionByName(*options_, option);
    if (before != after && notes_ != nullptr) {
      notes_->push_back(absl::StrCat(ToAbsl(option), ": ", before, " -> ", after, " (",
                                     ToAbsl(why), ")"));
    }
  }

 private:
  Options* const options_;
  std::vector<std::string>* const notes_;
};

}  // namespace

void SanitizeOptions(Options* options, std::vector<std::string>* notes) {
  Sanitizer s(options, notes);

  // ---- DB options (RocksDB's SanitizeOptions in db_impl_open.cc).
  s.Adjust(
      "max_open_files",
      [](Options& o) {
        if (o.max_open_files != -1 && o.max_open_files < kMinMaxOpenFiles) {
          o.max_open_files = kMinMaxOpenFiles;
        }
      },
      "below 20, as RocksDB");
  s.Adjust(
      "max_background_jobs", [](Options& o) { o.max_background_jobs = std::max(o.max_background_jobs, 1); },
      "RocksDB runs at least one flush and one compaction whatever the value");
  s.Adjust(
      "max_subcompactions",
      [](Options& o) { o.max_subcompactions = std::max<uint32_t>(o.max_subcompactions, 1); },
      "0 means no subcompactions, as RocksDB");
  s.Adjust(
      "max_subcompactions",
      [](Options& o) {
        o.max_subcompactions = std::min<uint32_t>(o.max_subcompactions, Options::kMaxSubcompactions);
      },
      "above the most threads one compaction runs (RocksDB accepts any value)");
  s.Adjust(
      "delayed_write_rate",
      [](Options& o) {
        if (o.delayed_write_rate == 0) o.delayed_write_rate = kDefaultDelayedWriteRate;
      },
      "0 means 16 MiB/s, as RocksDB without a rate limiter");

  // ---- Column-family options (RocksDB's SanitizeOptions in column_family.cc).
  s.Adjust(
      "write_buffer_size",
      [](Options& o) {
        o.write_buffer_size = std::clamp(o.write_buffer_size, kMinWriteBufferSize,
                                         kMaxWriteBufferSize);
      },
      "clamped to [64 KiB, 64 GiB], as RocksDB");
  s.Adjust(
      "max_write_buffer_number",
      [](Options& o) { o.max_write_buffer_number = std::max(o.max_write_buffer_number, 2); },
      "at least 2, as RocksDB: one memtable takes writes while another is flushed");
  s.Adjust(
      "min_write_buffer_number_to_merge",
      [](Options& o) {
        o.min_write_buffer_number_to_merge =
            std::max(1, std::min(o.min_write_buffer_number_to_merge,
                                 o.max_write_buffer_number - 1));
      },
      "between 1 and max_write_buffer_number - 1, as RocksDB");
  s.Adjust(
      "num_levels",
      [](Options& o) {
        o.num_levels = std::max(o.num_levels, 1);
        if (o.compaction_style == kCompactionStyleLevel) o.num_levels = std::max(o.num_levels, 2);
        // The last level is reserved for ingest_behind files: L0 and a sorted level remain.
        // RocksDB raises it under universal compaction only; other styles are refused by
        // validation as before.
        if (o.allow_ingest_behind && o.compaction_style == kCompactionStyleUniversal) {
          o.num_levels = std::max(o.num_levels, 3);
        }
      },
      "at least 1, at least 2 with level compaction, at least 3 with universal compaction and "
      "allow_ingest_behind, as RocksDB");
  s.Adjust(
      "max_bytes_for_level_multiplier",
      [](Options& o) {
        if (!(o.max_bytes_for_level_multiplier > 0)) o.max_bytes_for_level_multiplier = 1;
      },
      "not above 0, as RocksDB");
  s.Adjust(
      "level0_file_num_compaction_trigger",
      [](Options& o) {
        if (o.level0_file_num_compaction_trigger == 0) o.level0_file_num_compaction_trigger = 1;
      },
      "0, as RocksDB");
  s.Adjust(
      "level0_slowdown_writes_trigger",
      [](Options& o) {
        o.level0_slowdown_writes_trigger =
            std::max(o.level0_slowdown_writes_trigger, o.level0_file_num_compaction_trigger);
      },
      "below level0_file_num_compaction_trigger, as RocksDB");
  s.Adjust(
      "level0_stop_writes_trigger",
      [](Options& o) {
        o.level0_stop_writes_trigger =
            std::max(o.level0_stop_writes_trigger, o.level0_slowdown_writes_trigger);
      },
      "below level0_slowdown_writes_trigger, as RocksDB");
  s.Adjust(
      "soft_pending_compaction_bytes_limit",
      [](Options& o) {
        if (o.hard_pending_compaction_bytes_limit > 0 &&
            o.soft_pending_compaction_bytes_limit > o.hard_pending_compaction_bytes_limit) {
          o.soft_pending_compaction_bytes_limit = o.hard_pending_compaction_bytes_limit;
        }
      },
      "above hard_pending_compaction_bytes_limit, as RocksDB");
  s.Adjust(
      "compression_level",
      [](Options& o) {
        o.compression_level = std::clamp(o.compression_level, kMinZstdLevel, kMaxZstdLevel);
      },
      "outside zstd's levels; zstd clamps it the same way under RocksDB");

  // ---- Table options (RocksDB's BlockBasedTableFactory::InitializeOptions).
  s.Adjust(
      "block_based_table_factory.block_restart_interval",
      [](Options& o) {
        o.table_options.block_restart_interval =
            std::max(o.table_options.block_restart_interval, 1);
      },
      "below 1, as RocksDB");
  s.Adjust(
      "block_based_table_factory.index_block_restart_interval",
      [](Options& o) {
        o.table_options.index_block_restart_interval =
            std::max(o.table_options.index_block_restart_interval, 1);
      },
      "below 1, as RocksDB");
  s.Adjust(
      "block_based_table_factory.partition_filters",
      [](Options& o) {
        if (o.table_options.index_type != TableOptions::kTwoLevelIndexSearch) {
          o.table_options.partition_filters = false;
        }
      },
      "partitioned filters need index_type=kTwoLevelIndexSearch; RocksDB turns them off");
}

}  // namespace shale
