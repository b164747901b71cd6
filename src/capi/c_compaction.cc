// The C ABI of compaction (include/shale/c.h): the compaction and write-stall knobs of
// Options, the universal and FIFO option handles, and manual compaction with
// shale_compactoptions_t. Setters store what they are given (a negative int becomes a huge
// unsigned value); DB::Open validates.
#include <string_view>
#include <utility>

#include "capi/c_handles.h"

using shale::capi::SaveError;
using shale::capi::View;

extern "C" {

// ---------------------------------------------------------------- Options: style and triggers

void shale_options_set_compaction_style(shale_options_t* options, int v) {
  options->rep.compaction_style = static_cast<shale::CompactionStyle>(v);
}

void shale_options_set_disable_auto_compactions(shale_options_t* options, int v) {
  options->rep.disable_auto_compactions = v != 0;
}

void shale_options_set_level0_file_num_compaction_trigger(shale_options_t* options, int v) {
  options->rep.level0_file_num_compaction_trigger = v;
}

void shale_options_set_level0_slowdown_writes_trigger(shale_options_t* options, int v) {
  options->rep.level0_slowdown_writes_trigger = v;
}

void shale_options_set_level0_stop_writes_trigger(shale_options_t* options, int v) {
  options->rep.level0_stop_writes_trigger = v;
}

void shale_options_set_ttl(shale_options_t* options, uint64_t seconds) {
  options->rep.ttl = seconds;
}

void shale_options_set_allow_ingest_behind(shale_options_t* options, unsigned char v) {
  options->rep.allow_ingest_behind = v != 0;
}

void shale_options_set_bottommost_compression(shale_options_t* options, int v) {
  options->rep.bottommost_compression = static_cast<shale::CompressionType>(v);
}

// ---------------------------------------------------------------- Options: level sizes

void shale_options_set_target_file_size_base(shale_options_t* options, uint64_t v) {
  options->rep.target_file_size_base = v;
}

void shale_options_set_target_file_size_multiplier(shale_options_t* options, int v) {
  options->rep.target_file_size_multiplier = v;
}

void shale_options_set_max_bytes_for_level_base(shale_options_t* options, uint64_t v) {
  options->rep.max_bytes_for_level_base = v;
}

void shale_options_set_max_bytes_for_level_multiplier(shale_options_t* options, double v) {
  options->rep.max_bytes_for_level_multiplier = v;
}

void shale_options_set_level_compaction_dynamic_level_bytes(shale_options_t* options,
                                                           unsigned char v) {
  options->rep.level_compaction_dynamic_level_bytes = v != 0;
}

// ---------------------------------------------------------------- Options: threads and stalls

void shale_options_set_max_background_jobs(shale_options_t* options, int v) {
  options->rep.max_background_jobs = v;
}

void shale_options_set_max_subcompactions(shale_options_t* options, uint32_t v) {
  options->rep.max_subcompactions = v;
}

void shale_options_set_soft_pending_compaction_bytes_limit(shale_options_t* options, size_t v) {
  options->rep.soft_pending_compaction_bytes_limit = v;
}

void shale_options_set_hard_pending_compaction_bytes_limit(shale_options_t* options, size_t v) {
  options->rep.hard_pending_compaction_bytes_limit = v;
}

void shale_options_set_delayed_write_rate(shale_options_t* options, uint64_t v) {
  options->rep.delayed_write_rate = v;
}

// ---------------------------------------------------------------- Universal and FIFO knobs

shale_universal_compaction_options_t* shale_universal_compaction_options_create(void) {
  return new shale_universal_compaction_options_t;
}

void shale_universal_compaction_options_set_size_ratio(
    shale_universal_compaction_options_t* uco, int v) {
  uco->rep.size_ratio = static_cast<unsigned int>(v);
}

void shale_universal_compaction_options_set_min_merge_width(
    shale_universal_compaction_options_t* uco, int v) {
  uco->rep.min_merge_width = static_cast<unsigned int>(v);
}

void shale_universal_compaction_options_set_max_merge_width(
    shale_universal_compaction_options_t* uco, int v) {
  uco->rep.max_merge_width = static_cast<unsigned int>(v);
}

void shale_universal_compaction_options_set_max_size_amplification_percent(
    shale_universal_compaction_options_t* uco, int v) {
  uco->rep.max_size_amplification_percent = static_cast<unsigned int>(v);
}

void shale_universal_compaction_options_destroy(shale_universal_compaction_options_t* uco) {
  delete uco;
}

void shale_options_set_universal_compaction_options(shale_options_t* options,
                                                    shale_universal_compaction_options_t* uco) {
  options->rep.compaction_options_universal = uco->rep;
}

shale_fifo_compaction_options_t* shale_fifo_compaction_options_create(void) {
  return new shale_fifo_compaction_options_t;
}

void shale_fifo_compaction_options_set_max_table_files_size(
    shale_fifo_compaction_options_t* fifo_opts, uint64_t size) {
  fifo_opts->rep.max_table_files_size = size;
}

void shale_fifo_compaction_options_destroy(shale_fifo_compaction_options_t* fifo_opts) {
  delete fifo_opts;
}

void shale_options_set_fifo_compaction_options(shale_options_t* options,
                                               shale_fifo_compaction_options_t* fifo) {
  options->rep.compaction_options_fifo = fifo->rep;
}

// ---------------------------------------------------------------- Manual compaction

shale_compactoptions_t* shale_compactoptions_create(void) { return new shale_compactoptions_t; }

void shale_compactoptions_destroy(shale_compactoptions_t* opt) { delete opt; }

void shale_compactoptions_set_exclusive_manual_compaction(shale_compactoptions_t* opt,
                                                          unsigned char v) {
  opt->rep.exclusive_manual_compaction = v != 0;
}

void shale_compactoptions_set_bottommost_level_compaction(shale_compactoptions_t* opt,
                                                          unsigned char v) {
  opt->rep.bottommost_level_compaction = static_cast<shale::BottommostLevelCompaction>(v);
}

void shale_compactoptions_set_change_level(shale_compactoptions_t* opt, unsigned char v) {
  opt->rep.change_level = v != 0;
}

void shale_compactoptions_set_target_level(shale_compactoptions_t* opt, int n) {
  opt->rep.target_level = n;
}

void shale_compactoptions_set_progress(shale_compactoptions_t* opt,
                                       shale_progress_callback callback, void* arg,
                                       double interval_seconds, char** errptr) {
  shale::ProgressCallback progress;
  if (SaveError(errptr, shale::capi::MakeProgressCallback(
                            callback, arg, interval_seconds,
                            "shale_compactoptions_set_progress", &progress))) {
    return;
  }
  opt->rep.progress = std::move(progress);
  opt->rep.progress_interval_seconds = interval_seconds;
}

void shale_compact_range_opt(shale_t* db, shale_compactoptions_t* opt, const char* start_key,
                             size_t start_key_len, const char* limit_key, size_t limit_key_len) {
  // A NULL key is an open end, whatever its length says.
  const std::string_view start =
      start_key == nullptr ? std::string_view() : View(start_key, start_key_len);
  const std::string_view limit =
      limit_key == nullptr ? std::string_view() : View(limit_key, limit_key_len);
  db->rep
      ->CompactRange(opt->rep, start_key == nullptr ? nullptr : &start,
                     limit_key == nullptr ? nullptr : &limit)
      .PermitUncheckedError();
}

void shale_compact_range(shale_t* db, const char* start_key, size_t start_key_len,
                         const char* limit_key, size_t limit_key_len) {
  shale_compactoptions_t defaults;
  shale_compact_range_opt(db, &defaults, start_key, start_key_len, limit_key, limit_key_len);
}

}  // extern "C"
