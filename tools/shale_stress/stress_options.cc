// See stress_options.h.
#include "stress_options.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "shale/filter_policy.h"
#include "stress_merge_operator.h"
#include "util/random.h"

namespace shale::stress {
namespace {

// A value of `choices`, uniformly.
template <typename T, size_t N>
T Pick(Random* rnd, const T (&choices)[N]) {
  return choices[rnd->Uniform(N)];
}

void RandomizeShape(Random* rnd, Options* o) {
  const CompactionStyle styles[] = {kCompactionStyleLevel, kCompactionStyleUniversal,
                                    kCompactionStyleFIFO};
  o->compaction_style = Pick(rnd, styles);
  o->write_buffer_size = (64 + rnd->Uniform(193)) << 10;
  o->max_write_buffer_number = 2 + static_cast<int>(rnd->Uniform(3));
  o->target_file_size_base = (64 + rnd->Uniform(961)) << 10;
  o->max_bytes_for_level_base = (256 + rnd->Uniform(3841)) << 10;
  o->level0_file_num_compaction_trigger = 2 + static_cast<int>(rnd->Uniform(7));
  o->level0_slowdown_writes_trigger = o->level0_file_num_compaction_trigger + 12;
  o->level0_stop_writes_trigger = o->level0_slowdown_writes_trigger + 12;
  o->level_compaction_dynamic_level_bytes = rnd->OneIn(2);
  o->num_levels = 3 + static_cast<int>(rnd->Uniform(5));
  o->compaction_options_universal.size_ratio = static_cast<unsigned>(rnd->Uniform(10));
  o->compaction_options_universal.max_size_amplification_percent =
      100 + static_cast<unsigned>(rnd->Uniform(300));
  // Far above what a run writes: FIFO must never drop data the expected state holds.
  o->compaction_options_fifo.max_table_files_size = uint64_t{64} << 30;
  if (o->compaction_style == kCompactionStyleFIFO) {
    // FIFO never merges: every flush stays in L0. Larger buffers keep the file count down and
    // the L0 triggers must never stop writes for good.
    o->write_buffer_size = (1 + rnd->Uniform(4)) << 20;
    o->level0_slowdown_writes_trigger = 1 << 20;
    o->level0_stop_writes_trigger = 1 << 20;
  }
  o->max_background_jobs = 1 + static_cast<int>(rnd->Uniform(4));
  o->max_subcompactions = 1 + static_cast<uint32_t>(rnd->Uniform(4));
  // Mostly 0 (operands pile up until flush or compaction), else merge at write time often.
  o->max_successive_merges = rnd->OneIn(3) ? 1 + rnd->Uniform(8) : 0;
}

void RandomizeTable(Random* rnd, Options* o) {
  TableOptions& t = o->table_options;
  const size_t block_sizes[] = {256, 1024, 4096, 16384};
  t.block_size = Pick(rnd, block_sizes);
  t.block_restart_interval = 1 + static_cast<int>(rnd->Uniform(16));
  t.index_type = rnd->OneIn(2) ? TableOptions::kTwoLevelIndexSearch : TableOptions::kBinarySearch;
  const uint64_t metadata_sizes[] = {256, 1024, 4096};
  t.metadata_block_size = Pick(rnd, metadata_sizes);
  t.data_block_index_type = rnd->OneIn(2) ? TableOptions::kDataBlockBinaryAndHash
                                          : TableOptions::kDataBlockBinarySearch;
  const int filter = static_cast<int>(rnd->Uniform(3));  // none, full, partitioned
  if (filter > 0) t.filter_policy = NewBloomFilterPolicy(1 + rnd->Uniform(16));
  t.partition_filters = filter == 2 && t.index_type == TableOptions::kTwoLevelIndexSearch;
  t.enable_index_compression = rnd->OneIn(2);
  t.no_block_cache = rnd->OneIn(4);
  t.cache_index_and_filter_blocks = !t.no_block_cache && rnd->OneIn(2);
  o->compression = rnd->OneIn(2) ? kZSTD : kNoCompression;
  const CompressionType bottom[] = {kDisableCompressionOption, kNoCompression, kZSTD};
  o->bottommost_compression = Pick(rnd, bottom);
}

}  // namespace

Options MakeStressOptions(uint64_t seed, bool randomize) {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 128 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.level0_file_num_compaction_trigger = 4;
  o.table_options.filter_policy = NewBloomFilterPolicy(10);
  o.merge_operator = NewStressMergeOperator();
  if (randomize) {
    Random rnd(seed);
    RandomizeShape(&rnd, &o);
    RandomizeTable(&rnd, &o);
  }
  return o;
}

std::string SummarizeOptions(const Options& o) {
  const TableOptions& t = o.table_options;
  const char* style = o.compaction_style == kCompactionStyleLevel       ? "level"
                      : o.compaction_style == kCompactionStyleUniversal ? "universal"
                      : o.compaction_style == kCompactionStyleFIFO      ? "fifo"
                                                                        : "none";
  const char* filter = t.filter_policy == nullptr ? "none"
                       : t.partition_filters      ? "partitioned"
                                                  : "full";
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "style=%s write_buffer=%zuK target_file=%lluK l0_trigger=%d filter=%s "
                "index=%s hash_index=%d block=%zu compression=%s jobs=%d subcompactions=%u "
                "block_cache=%s merge_operator=%s max_successive_merges=%zu atomic_flush=%d",
                style, o.write_buffer_size >> 10,
                static_cast<unsigned long long>(o.target_file_size_base >> 10),
                o.level0_file_num_compaction_trigger, filter,
                t.index_type == TableOptions::kTwoLevelIndexSearch ? "two-level" : "binary",
                t.data_block_index_type == TableOptions::kDataBlockBinaryAndHash ? 1 : 0,
                t.block_size, o.compression == kZSTD ? "zstd" : "none", o.max_background_jobs,
                o.max_subcompactions, t.no_block_cache ? "none" : "default",
                o.merge_operator == nullptr ? "none" : o.merge_operator->Name(),
                o.max_successive_merges, o.atomic_flush ? 1 : 0);
  return buf;
}

Status SaveStressOptions(const std::string& path, const Options& options) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << GetStringFromOptions(options) << "\n";
    if (!out.flush()) return Status::IOError(tmp + ": cannot write the options");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::IOError(path + ": cannot rename the options file into place");
  }
  return Status::OK();
}

Status LoadStressOptions(const std::string& path, Options* options) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": no saved options");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  // The base holds the stress operator, so its id in the string keeps it. Options saved before
  // shale_stress had merges say merge_operator=nullptr: such a DB gets the operator too.
  Options base;
  base.merge_operator = NewStressMergeOperator();
  Status st = GetOptionsFromString(base, s, options);
  if (!st.ok()) return Status::InvalidArgument(path + ": " + st.ToString());
  if (options->merge_operator == nullptr) options->merge_operator = base.merge_operator;
  return Status::OK();
}

}  // namespace shale::stress
