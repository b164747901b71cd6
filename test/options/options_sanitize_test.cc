// SanitizeOptions (issue 19, "RocksDB's option strings load"): each value RocksDB adjusts
// instead of refusing is adjusted the same way, with a note naming the option, and the result
// passes validation.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <string>
#include <vector>

#include "options/options_sanitize.h"
#include "options/options_validate.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

struct Adjustment {
  std::string option;                      // the option the note must name
  std::function<void(Options*)> apply;     // the value RocksDB adjusts
  std::function<bool(const Options&)> ok;  // the value after the adjustment
};

std::vector<Adjustment> Adjustments() {
  return {
      {"max_open_files", [](Options* o) { o->max_open_files = 0; },
       [](const Options& o) { return o.max_open_files == 20; }},
      {"max_open_files", [](Options* o) { o->max_open_files = 19; },
       [](const Options& o) { return o.max_open_files == 20; }},
      {"max_open_files", [](Options* o) { o->max_open_files = -2; },
       [](const Options& o) { return o.max_open_files == 20; }},
      {"max_background_jobs", [](Options* o) { o->max_background_jobs = 0; },
       [](const Options& o) { return o.max_background_jobs == 1; }},
      {"max_background_jobs", [](Options* o) { o->max_background_jobs = INT_MIN; },
       [](const Options& o) { return o.max_background_jobs == 1; }},
      {"max_subcompactions", [](Options* o) { o->max_subcompactions = 0; },
       [](const Options& o) { return o.max_subcompactions == 1; }},
      {"delayed_write_rate", [](Options* o) { o->delayed_write_rate = 0; },
       [](const Options& o) { return o.delayed_write_rate == 16ull << 20; }},
      {"write_buffer_size", [](Options* o) { o->write_buffer_size = 0; },
       [](const Options& o) { return o.write_buffer_size == 64 << 10; }},
      {"write_buffer_size", [](Options* o) { o->write_buffer_size = (64 << 10) - 1; },
       [](const Options& o) { return o.write_buffer_size == 64 << 10; }},
      {"write_buffer_size", [](Options* o) { o->write_buffer_size = SIZE_MAX; },
       [](const Options& o) { return o.write_buffer_size == 64ull << 30; }},
      // Issue 19, finding 7: 1 hung every write at the first memtable switch.
      {"max_write_buffer_number", [](Options* o) { o->max_write_buffer_number = 1; },
       [](const Options& o) { return o.max_write_buffer_number == 2; }},
      {"max_write_buffer_number", [](Options* o) { o->max_write_buffer_number = 0; },
       [](const Options& o) { return o.max_write_buffer_number == 2; }},
      {"max_write_buffer_number", [](Options* o) { o->max_write_buffer_number = INT_MIN; },
       [](const Options& o) { return o.max_write_buffer_number == 2; }},
      {"min_write_buffer_number_to_merge",
       [](Options* o) { o->min_write_buffer_number_to_merge = 0; },
       [](const Options& o) { return o.min_write_buffer_number_to_merge == 1; }},
      {"min_write_buffer_number_to_merge",
       [](Options* o) { o->min_write_buffer_number_to_merge = 3; },
       [](const Options& o) { return o.min_write_buffer_number_to_merge == 1; }},
      {"num_levels", [](Options* o) { o->num_levels = 1; },
       [](const Options& o) { return o.num_levels == 2; }},
      {"num_levels",
       [](Options* o) {
         o->num_levels = 0;
         o->compaction_style = kCompactionStyleUniversal;
       },
       [](const Options& o) { return o.num_levels == 1; }},
      {"num_levels",
       [](Options* o) {
         o->num_levels = 2;
         o->compaction_style = kCompactionStyleUniversal;
         o->allow_ingest_behind = true;
       },
       [](const Options& o) { return o.num_levels == 3; }},
      {"max_bytes_for_level_multiplier", [](Options* o) { o->max_bytes_for_level_multiplier = 0; },
       [](const Options& o) { return o.max_bytes_for_level_multiplier == 1; }},
      {"max_bytes_for_level_multiplier",
       [](Options* o) { o->max_bytes_for_level_multiplier = -3; },
       [](const Options& o) { return o.max_bytes_for_level_multiplier == 1; }},
      {"level0_file_num_compaction_trigger",
       [](Options* o) { o->level0_file_num_compaction_trigger = 0; },
       [](const Options& o) { return o.level0_file_num_compaction_trigger == 1; }},
      {"level0_slowdown_writes_trigger",
       [](Options* o) { o->level0_slowdown_writes_trigger = 3; },
       [](const Options& o) {
         return o.level0_slowdown_writes_trigger == 4 && o.level0_stop_writes_trigger == 36;
       }},
      {"level0_stop_writes_trigger", [](Options* o) { o->level0_stop_writes_trigger = 19; },
       [](const Options& o) { return o.level0_stop_writes_trigger == 20; }},
      {"level0_stop_writes_trigger",
       [](Options* o) {
         o->level0_file_num_compaction_trigger = 50;
         o->level0_slowdown_writes_trigger = 10;
         o->level0_stop_writes_trigger = 5;
       },
       [](const Options& o) {
         return o.level0_slowdown_writes_trigger == 50 && o.level0_stop_writes_trigger == 50;
       }},
      {"soft_pending_compaction_bytes_limit",
       [](Options* o) { o->soft_pending_compaction_bytes_limit = (256ull << 30) + 1; },
       [](const Options& o) { return o.soft_pending_compaction_bytes_limit == 256ull << 30; }},
      {"compression_level", [](Options* o) { o->compression_level = 23; },
       [](const Options& o) { return o.compression_level == 22; }},
      {"compression_level", [](Options* o) { o->compression_level = INT_MIN; },
       [](const Options& o) { return o.compression_level == -(1 << 17); }},
      {"block_based_table_factory.block_restart_interval",
       [](Options* o) { o->table_options.block_restart_interval = 0; },
       [](const Options& o) { return o.table_options.block_restart_interval == 1; }},
      {"block_based_table_factory.index_block_restart_interval",
       [](Options* o) { o->table_options.index_block_restart_interval = -5; },
       [](const Options& o) { return o.table_options.index_block_restart_interval == 1; }},
      {"block_based_table_factory.partition_filters",
       [](Options* o) { o->table_options.partition_filters = true; },
       [](const Options& o) { return !o.table_options.partition_filters; }},
  };
}

TEST(OptionsSanitizeTest, AdjustsWhatRocksDBAdjustsWithANote) {
  for (const Adjustment& a : Adjustments()) {
    SCOPED_TRACE(a.option);
    Options o;
    a.apply(&o);
    std::vector<std::string> notes;
    SanitizeOptions(&o, &notes);
    EXPECT_TRUE(a.ok(o)) << GetStringFromOptions(o);
    bool named = false;
    for (const std::string& note : notes) {
      if (note.rfind(a.option + ": ", 0) == 0) named = true;
    }
    EXPECT_TRUE(named) << (notes.empty() ? "no notes" : notes[0]);
    EXPECT_OK(ValidateOptions(o));
    // Idempotent: a second pass changes nothing.
    Options again = o;
    std::vector<std::string> more;
    SanitizeOptions(&again, &more);
    EXPECT_TRUE(more.empty()) << more[0];
    // Options::Validate answers for what DB::Open opens: the adjusted options.
    Options raw;
    a.apply(&raw);
    EXPECT_OK(raw.Validate());
  }
}

TEST(OptionsSanitizeTest, NoteFormat) {
  Options o;
  o.max_write_buffer_number = 1;
  std::vector<std::string> notes;
  SanitizeOptions(&o, &notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "max_write_buffer_number: 1 -> 2 (at least 2, as RocksDB: one memtable takes writes "
            "while another is flushed)");
}

TEST(OptionsSanitizeTest, DefaultsAreLeftAlone) {
  Options o;
  std::vector<std::string> notes;
  SanitizeOptions(&o, &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  o.PrepareForBulkLoad();
  SanitizeOptions(&o, &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
}

}  // namespace
}  // namespace shale
