#include "options/options_test_util.h"

#include <limits>

namespace shale {

// A new Options field changes this size: add the field to ExpectOptionsEqual, RandomOptions,
// the field table (src/options/option_fields.cc) and the per-field parse test, then update it.
static_assert(sizeof(Options) == 400 && sizeof(TableOptions) == 96,
              "Options changed: update the options tests and src/options/option_fields.cc");

#define EXPECT_FIELD_EQ(field) EXPECT_EQ(a.field, b.field) << "field " #field

void ExpectOptionsEqual(const Options& a, const Options& b) {
  EXPECT_FIELD_EQ(create_if_missing);
  EXPECT_FIELD_EQ(error_if_exists);
  EXPECT_FIELD_EQ(paranoid_checks);
  EXPECT_FIELD_EQ(create_missing_column_families);
  EXPECT_FIELD_EQ(max_total_wal_size);
  EXPECT_FIELD_EQ(atomic_flush);
  EXPECT_FIELD_EQ(avoid_flush_during_shutdown);
  EXPECT_FIELD_EQ(statistics);
  EXPECT_FIELD_EQ(comparator);
  // Runtime objects no options string or OPTIONS file holds (shale/compaction_filter.h): kept
  // from the base options by a parse, so equal by identity.
  EXPECT_FIELD_EQ(compaction_filter);
  EXPECT_FIELD_EQ(compaction_filter_factory);
  // Operators made from the same options string are distinct objects: compare their ids.
  EXPECT_EQ(a.merge_operator == nullptr ? "nullptr" : a.merge_operator->GetId(),
            b.merge_operator == nullptr ? "nullptr" : b.merge_operator->GetId())
      << "field merge_operator";
  EXPECT_FIELD_EQ(write_buffer_size);
  EXPECT_FIELD_EQ(max_write_buffer_number);
  EXPECT_FIELD_EQ(min_write_buffer_number_to_merge);
  EXPECT_FIELD_EQ(db_write_buffer_size);
  EXPECT_FIELD_EQ(max_successive_merges);
  EXPECT_FIELD_EQ(compression);
  EXPECT_FIELD_EQ(bottommost_compression);
  EXPECT_FIELD_EQ(compression_level);
  EXPECT_FIELD_EQ(num_levels);
  EXPECT_FIELD_EQ(level0_file_num_compaction_trigger);
  EXPECT_FIELD_EQ(level0_slowdown_writes_trigger);
  EXPECT_FIELD_EQ(level0_stop_writes_trigger);
  EXPECT_FIELD_EQ(target_file_size_base);
  EXPECT_FIELD_EQ(target_file_size_multiplier);
  EXPECT_FIELD_EQ(max_bytes_for_level_base);
  EXPECT_FIELD_EQ(max_bytes_for_level_multiplier);
  EXPECT_FIELD_EQ(level_compaction_dynamic_level_bytes);
  EXPECT_FIELD_EQ(compaction_style);
  EXPECT_FIELD_EQ(disable_auto_compactions);
  EXPECT_FIELD_EQ(compaction_options_universal.size_ratio);
  EXPECT_FIELD_EQ(compaction_options_universal.min_merge_width);
  EXPECT_FIELD_EQ(compaction_options_universal.max_merge_width);
  EXPECT_FIELD_EQ(compaction_options_universal.max_size_amplification_percent);
  EXPECT_FIELD_EQ(compaction_options_fifo.max_table_files_size);
  EXPECT_FIELD_EQ(compaction_options_fifo.allow_compaction);
  EXPECT_FIELD_EQ(ttl);
  EXPECT_FIELD_EQ(max_background_jobs);
  EXPECT_FIELD_EQ(stats_dump_period_sec);
  EXPECT_FIELD_EQ(max_subcompactions);
  EXPECT_FIELD_EQ(soft_pending_compaction_bytes_limit);
  EXPECT_FIELD_EQ(hard_pending_compaction_bytes_limit);
  EXPECT_FIELD_EQ(delayed_write_rate);
  EXPECT_FIELD_EQ(max_open_files);
  EXPECT_FIELD_EQ(wal_recovery_mode);
  EXPECT_FIELD_EQ(use_fsync);
  EXPECT_FIELD_EQ(max_manifest_file_size);
  EXPECT_FIELD_EQ(allow_ingest_behind);
  EXPECT_FIELD_EQ(skip_checking_sst_file_sizes_on_db_open);
  EXPECT_FIELD_EQ(table_options.block_size);
  EXPECT_FIELD_EQ(table_options.block_restart_interval);
  EXPECT_FIELD_EQ(table_options.index_block_restart_interval);
  EXPECT_FIELD_EQ(table_options.index_type);
  EXPECT_FIELD_EQ(table_options.data_block_index_type);
  EXPECT_FIELD_EQ(table_options.data_block_hash_table_util_ratio);
  EXPECT_FIELD_EQ(table_options.partition_filters);
  EXPECT_FIELD_EQ(table_options.metadata_block_size);
  EXPECT_FIELD_EQ(table_options.enable_index_compression);
  EXPECT_FIELD_EQ(table_options.whole_key_filtering);
  EXPECT_FIELD_EQ(table_options.format_version);
  EXPECT_FIELD_EQ(table_options.no_block_cache);
  EXPECT_FIELD_EQ(table_options.cache_index_and_filter_blocks);
  EXPECT_FIELD_EQ(table_options.pin_top_level_index_and_filter);
  EXPECT_FIELD_EQ(table_options.pin_l0_filter_and_index_blocks_in_cache);
  const Cache* ca = a.table_options.block_cache.get();
  const Cache* cb = b.table_options.block_cache.get();
  ASSERT_EQ(ca == nullptr, cb == nullptr) << "field table_options.block_cache";
  if (ca != nullptr) {
    EXPECT_EQ(ca->GetCapacity(), cb->GetCapacity()) << "field table_options.block_cache";
  }
  const FilterPolicy* fa = a.table_options.filter_policy.get();
  const FilterPolicy* fb = b.table_options.filter_policy.get();
  ASSERT_EQ(fa == nullptr, fb == nullptr) << "field table_options.filter_policy";
  if (fa != nullptr) {
    EXPECT_STREQ(fa->Name(), fb->Name()) << "field table_options.filter_policy";
    EXPECT_EQ(fa->bits_per_key(), fb->bits_per_key()) << "field table_options.filter_policy";
  }
}

#undef EXPECT_FIELD_EQ

namespace {

// Any value of an integer type, small values more often (they exercise other digits).
template <typename T>
T RandomInt(Random* rnd) {
  uint64_t bits = rnd->OneIn(2) ? rnd->Skewed(20) : rnd->Next64();
  if constexpr (std::is_signed_v<T>) {
    if (rnd->OneIn(3)) return static_cast<T>(-static_cast<T>(bits & 0xffff));
  }
  return static_cast<T>(bits);
}

// A finite double of any magnitude and sign, sometimes a short decimal.
double RandomDouble(Random* rnd) {
  if (rnd->OneIn(3)) return static_cast<double>(rnd->Uniform(1000)) / 4;
  double d = rnd->NextDouble() * static_cast<double>(rnd->Skewed(60) + 1);
  return rnd->OneIn(4) ? -d : d;
}

template <typename T>
T Pick(Random* rnd, std::initializer_list<T> values) {
  return values.begin()[rnd->Uniform(values.size())];
}

void RandomizeTableOptions(Random* rnd, TableOptions* t) {
  t->block_size = RandomInt<size_t>(rnd);
  t->block_restart_interval = RandomInt<int>(rnd);
  t->index_block_restart_interval = RandomInt<int>(rnd);
  t->index_type = Pick(rnd, {TableOptions::kBinarySearch, TableOptions::kTwoLevelIndexSearch});
  t->data_block_index_type = Pick(
      rnd, {TableOptions::kDataBlockBinarySearch, TableOptions::kDataBlockBinaryAndHash});
  t->data_block_hash_table_util_ratio = RandomDouble(rnd);
  t->filter_policy = rnd->OneIn(3) ? nullptr : NewBloomFilterPolicy(1 + rnd->NextDouble() * 99);
  t->partition_filters = rnd->OneIn(2);
  t->metadata_block_size = RandomInt<uint64_t>(rnd);
  t->enable_index_compression = rnd->OneIn(2);
  t->whole_key_filtering = rnd->OneIn(2);
  t->format_version = RandomInt<uint32_t>(rnd);
  t->block_cache = rnd->OneIn(3) ? nullptr : NewLRUCache(RandomInt<uint32_t>(rnd));
  t->no_block_cache = rnd->OneIn(2);
  t->cache_index_and_filter_blocks = rnd->OneIn(2);
  t->pin_top_level_index_and_filter = rnd->OneIn(2);
  t->pin_l0_filter_and_index_blocks_in_cache = rnd->OneIn(2);
}

}  // namespace

Options RandomOptions(Random* rnd) {
  Options o;
  o.create_if_missing = rnd->OneIn(2);
  o.error_if_exists = rnd->OneIn(2);
  o.paranoid_checks = rnd->OneIn(2);
  o.create_missing_column_families = rnd->OneIn(2);
  o.max_total_wal_size = RandomInt<uint64_t>(rnd);
  o.atomic_flush = rnd->OneIn(2);
  o.avoid_flush_during_shutdown = rnd->OneIn(2);
  o.comparator = rnd->OneIn(2) ? BytewiseComparator() : TestReverseComparator();
  o.write_buffer_size = RandomInt<size_t>(rnd);
  o.max_write_buffer_number = RandomInt<int>(rnd);
  o.min_write_buffer_number_to_merge = RandomInt<int>(rnd);
  o.db_write_buffer_size = RandomInt<size_t>(rnd);
  o.max_successive_merges = RandomInt<size_t>(rnd);
  const auto merge_operators = {"", "uint64add", "max", "stringappend", "stringappend:|",
                                "sortedset64", "sortedset64:64"};
  CreateMergeOperatorFromString(Pick(rnd, merge_operators), &o.merge_operator)
      .PermitUncheckedError();
  const auto compressions = {kNoCompression,    kSnappyCompression, kZlibCompression,
                             kBZip2Compression, kLZ4Compression,    kLZ4HCCompression,
                             kXpressCompression, kZSTD,             kDisableCompressionOption};
  o.compression = Pick(rnd, compressions);
  o.bottommost_compression = Pick(rnd, compressions);
  o.compression_level = RandomInt<int>(rnd);
  o.num_levels = RandomInt<int>(rnd);
  o.level0_file_num_compaction_trigger = RandomInt<int>(rnd);
  o.level0_slowdown_writes_trigger = RandomInt<int>(rnd);
  o.level0_stop_writes_trigger = RandomInt<int>(rnd);
  o.target_file_size_base = RandomInt<uint64_t>(rnd);
  o.target_file_size_multiplier = RandomInt<int>(rnd);
  o.max_bytes_for_level_base = RandomInt<uint64_t>(rnd);
  o.max_bytes_for_level_multiplier = RandomDouble(rnd);
  o.level_compaction_dynamic_level_bytes = rnd->OneIn(2);
  o.compaction_style = Pick(rnd, {kCompactionStyleLevel, kCompactionStyleUniversal,
                                  kCompactionStyleFIFO, kCompactionStyleNone});
  o.disable_auto_compactions = rnd->OneIn(2);
  o.compaction_options_universal.size_ratio = RandomInt<unsigned>(rnd);
  o.compaction_options_universal.min_merge_width = RandomInt<unsigned>(rnd);
  o.compaction_options_universal.max_merge_width = RandomInt<unsigned>(rnd);
  o.compaction_options_universal.max_size_amplification_percent = RandomInt<unsigned>(rnd);
  o.compaction_options_fifo.max_table_files_size = RandomInt<uint64_t>(rnd);
  o.compaction_options_fifo.allow_compaction = rnd->OneIn(2);
  o.ttl = RandomInt<uint64_t>(rnd);
  o.max_background_jobs = RandomInt<int>(rnd);
  o.stats_dump_period_sec = RandomInt<int>(rnd);
  o.max_subcompactions = RandomInt<uint32_t>(rnd);
  o.soft_pending_compaction_bytes_limit = RandomInt<uint64_t>(rnd);
  o.hard_pending_compaction_bytes_limit = RandomInt<uint64_t>(rnd);
  o.delayed_write_rate = RandomInt<uint64_t>(rnd);
  o.max_open_files = RandomInt<int>(rnd);
  o.wal_recovery_mode = Pick(rnd, {WALRecoveryMode::kTolerateCorruptedTailRecords,
                                   WALRecoveryMode::kAbsoluteConsistency,
                                   WALRecoveryMode::kPointInTimeRecovery,
                                   WALRecoveryMode::kSkipAnyCorruptedRecords});
  o.use_fsync = rnd->OneIn(2);
  o.max_manifest_file_size = RandomInt<uint64_t>(rnd);
  o.allow_ingest_behind = rnd->OneIn(2);
  o.skip_checking_sst_file_sizes_on_db_open = rnd->OneIn(2);
  RandomizeTableOptions(rnd, &o.table_options);
  return o;
}

}  // namespace shale
