// The C ABI of Options: the general knobs, the presets, statistics and the options string
// (include/shale/c.h); the compaction knobs are in c_compaction.cc. Setters store what they
// are given; DB::Open validates.
#include <memory>
#include <string>

#include "capi/c_handles.h"
#include "shale/statistics.h"

using shale::capi::CopyToMallocString;
using shale::capi::SaveError;

extern "C" {

shale_options_t* shale_options_create(void) { return new shale_options_t; }

void shale_options_destroy(shale_options_t* options) { delete options; }

void shale_options_set_create_if_missing(shale_options_t* options, unsigned char v) {
  options->rep.create_if_missing = v != 0;
}

void shale_options_set_error_if_exists(shale_options_t* options, unsigned char v) {
  options->rep.error_if_exists = v != 0;
}

void shale_options_set_paranoid_checks(shale_options_t* options, unsigned char v) {
  options->rep.paranoid_checks = v != 0;
}

void shale_options_set_write_buffer_size(shale_options_t* options, size_t v) {
  options->rep.write_buffer_size = v;
}

void shale_options_set_max_write_buffer_number(shale_options_t* options, int v) {
  options->rep.max_write_buffer_number = v;
}

void shale_options_set_db_write_buffer_size(shale_options_t* options, size_t v) {
  options->rep.db_write_buffer_size = v;
}

void shale_options_set_max_open_files(shale_options_t* options, int v) {
  options->rep.max_open_files = v;
}

void shale_options_set_compression(shale_options_t* options, int v) {
  options->rep.compression = static_cast<shale::CompressionType>(v);
}

// ---------------------------------------------------------------- Column families (DB options)

void shale_options_set_create_missing_column_families(shale_options_t* options, unsigned char v) {
  options->rep.create_missing_column_families = v != 0;
}

unsigned char shale_options_get_create_missing_column_families(const shale_options_t* options) {
  return options->rep.create_missing_column_families ? 1 : 0;
}

void shale_options_set_max_total_wal_size(shale_options_t* options, uint64_t n) {
  options->rep.max_total_wal_size = n;
}

uint64_t shale_options_get_max_total_wal_size(const shale_options_t* options) {
  return options->rep.max_total_wal_size;
}

void shale_options_set_atomic_flush(shale_options_t* options, unsigned char v) {
  options->rep.atomic_flush = v != 0;
}

unsigned char shale_options_get_atomic_flush(const shale_options_t* options) {
  return options->rep.atomic_flush ? 1 : 0;
}

// ---------------------------------------------------------------- Close

void shale_options_set_avoid_flush_during_shutdown(shale_options_t* options, unsigned char v) {
  options->rep.avoid_flush_during_shutdown = v != 0;
}

unsigned char shale_options_get_avoid_flush_during_shutdown(const shale_options_t* options) {
  return options->rep.avoid_flush_during_shutdown ? 1 : 0;
}

// ---------------------------------------------------------------- Presets

void shale_options_prepare_for_bulk_load(shale_options_t* options) {
  options->rep.PrepareForBulkLoad();
}

void shale_options_optimize_for_point_lookup(shale_options_t* options,
                                             uint64_t block_cache_size_mb) {
  options->rep.OptimizeForPointLookup(block_cache_size_mb);
}

void shale_options_increase_parallelism(shale_options_t* options, int total_threads) {
  options->rep.IncreaseParallelism(total_threads);
}

// ---------------------------------------------------------------- Statistics and strings

void shale_options_set_stats_dump_period_sec(shale_options_t* options, int seconds) {
  options->rep.stats_dump_period_sec = seconds;
}

void shale_options_enable_statistics(shale_options_t* options) {
  options->rep.statistics = shale::CreateDBStatistics();
}

char* shale_options_statistics_get_string(shale_options_t* options) {
  if (options->rep.statistics == nullptr) return nullptr;
  return CopyToMallocString(options->rep.statistics->ToString());
}

void shale_get_options_from_string(const shale_options_t* base, const char* opts_str,
                                   shale_options_t* out, char** errptr) {
  SaveError(errptr, shale::GetOptionsFromString(base->rep, opts_str, &out->rep));
}

}  // extern "C"
