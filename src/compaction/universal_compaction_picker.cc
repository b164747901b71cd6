// Universal (tiered) picking, with RocksDB's knobs (compaction_options_universal). The tree is
// a list of sorted runs, newest first: each L0 file is a run, then each non-empty level below.
// Once there are at least level0_file_num_compaction_trigger runs, in this order:
//  1. size amplification: when the runs other than the oldest add up to more than
//     max_size_amplification_percent of the oldest, everything is merged into the bottom level;
//  2. size ratio: starting from the newest run, neighbours join while the runs gathered so far
//     are within (100 + size_ratio)% of the next one's size; min_merge_width..max_merge_width
//     runs are merged;
//  3. run count: failing both, the newest runs are merged so the count falls below the trigger.
// The merged runs are consecutive, so their output goes just above the next older run (or to
// the bottom level when the oldest run is included) and the order of runs stays the order of
// age. One universal compaction runs at a time. A run below L0 is always taken whole, so the
// inputs of each level are a clean cut (compaction.h invariant 1b) and the output level holds
// nothing but inputs in the span, or is empty.
//
// With allow_ingest_behind the reserved last level is not a run at all: its files are never
// picked, the bottom level is num_levels - 2, and no merge counts as bottommost
// (compaction/reserved_level.h).
#include <algorithm>
#include <climits>

#include "compaction/compaction_picker.h"
#include "compaction/reserved_level.h"

namespace shale {
namespace {

struct SortedRun {
  int level = 0;
  std::vector<FileMetaData*> files;
  uint64_t bytes = 0;
};

// The runs of L0..LastWritableLevel, newest first.
std::vector<SortedRun> SortedRuns(const Version& v, const Options& o) {
  std::vector<SortedRun> runs;
  for (FileMetaData* f : v.files(0)) {
    runs.push_back(SortedRun{0, {f}, f->file_size});
  }
  for (int level = 1; level <= LastWritableLevel(o, v.num_levels()); level++) {
    if (v.files(level).empty()) continue;
    SortedRun r;
    r.level = level;
    r.files = v.files(level);
    for (const FileMetaData* f : r.files) r.bytes += f->file_size;
    runs.push_back(std::move(r));
  }
  return runs;
}

class UniversalCompactionPicker final : public CompactionPicker {
 public:
  using CompactionPicker::CompactionPicker;

  std::unique_ptr<Compaction> PickCompaction(Version* v, const Options& o,
                                             const std::vector<PendingOutputRange>& pending,
                                             uint64_t) override {
    const std::vector<SortedRun> runs = SortedRuns(*v, o);
    if (!Due(runs, o)) return nullptr;
    for (const SortedRun& r : runs) {
      for (const FileMetaData* f : r.files) {
        if (f->being_compacted) return nullptr;  // one universal compaction at a time
      }
    }
    const CompactionOptionsUniversal& u = o.compaction_options_universal;
    const size_t n = runs.size();
    // 1. Space amplification.
    uint64_t newer = 0;
    for (size_t i = 0; i + 1 < n; i++) newer += runs[i].bytes;
    if (n >= 2 && static_cast<double>(newer) * 100.0 >
                      static_cast<double>(u.max_size_amplification_percent) *
                          static_cast<double>(runs.back().bytes)) {
      return Make(v, o, pending, runs, 0, n, CompactionReason::kUniversalSizeAmp);
    }
    // 2. Size ratio.
    const size_t min_width = std::max<unsigned>(2, u.min_merge_width);
    const size_t max_width = std::max<size_t>(min_width, u.max_merge_width);
    for (size_t start = 0; start + 1 < n; start++) {
      double gathered = static_cast<double>(runs[start].bytes);
      size_t end = start + 1;
      while (end < n && end - start < max_width) {
        if (gathered * (100.0 + u.size_ratio) / 100.0 < static_cast<double>(runs[end].bytes)) {
          break;
        }
        gathered += static_cast<double>(runs[end].bytes);
        end++;
      }
      if (end - start >= min_width) {
        return Make(v, o, pending, runs, start, end, CompactionReason::kUniversalSizeRatio);
      }
    }
    // 3. Too many runs: merge the newest ones, whatever their sizes, so the count falls below
    // the trigger (Due() holds, so n >= trigger: something is always picked here).
    const size_t trigger = static_cast<size_t>(std::max(1, o.level0_file_num_compaction_trigger));
    size_t width = std::max(min_width, n + 2 - std::min(n, trigger));
    width = std::min({width, max_width, n});
    if (width >= 2) return Make(v, o, pending, runs, 0, width, CompactionReason::kUniversalRunCount);
    return nullptr;
  }

  bool NeedsCompaction(const Version& v, const Options& o, uint64_t) const override {
    return Due(SortedRuns(v, o), o);
  }

  uint64_t EstimatePendingCompactionBytes(const Version& v, const Options& o) const override {
    const std::vector<SortedRun> runs = SortedRuns(v, o);
    if (!Due(runs, o)) return 0;
    // Everything but the oldest run will be rewritten at least once more.
    uint64_t bytes = 0;
    for (size_t i = 0; i + 1 < runs.size(); i++) bytes += runs[i].bytes;
    return bytes;
  }

 private:
  static bool Due(const std::vector<SortedRun>& runs, const Options& o) {
    return runs.size() >= 2 &&
           static_cast<int>(runs.size()) >= o.level0_file_num_compaction_trigger;
  }

  // Merges runs [start, end).
  std::unique_ptr<Compaction> Make(Version* v, const Options& o,
                                   const std::vector<PendingOutputRange>& pending,
                                   const std::vector<SortedRun>& runs, size_t start, size_t end,
                                   CompactionReason reason) {
    const int bottom = LastWritableLevel(o, v->num_levels());
    int out;
    if (end == runs.size()) {
      out = bottom;
    } else {
      out = runs[end].level == 0 ? 0 : runs[end].level - 1;
    }
    std::vector<CompactionInputLevel> inputs;
    for (size_t i = start; i < end; i++) {
      if (inputs.empty() || inputs.back().level != runs[i].level) {
        inputs.push_back(CompactionInputLevel{runs[i].level, {}});
      }
      for (FileMetaData* f : runs[i].files) inputs.back().files.push_back(f);
    }
    auto c = std::make_unique<Compaction>(v, icmp_, reason, std::move(inputs), out);
    const Comparator* ucmp = icmp_->user_comparator();
    bool older_overlap = false;
    for (size_t i = end; i < runs.size() && !older_overlap; i++) {
      for (const FileMetaData* f : runs[i].files) {
        if (ucmp->Compare(ExtractUserKey(f->largest), c->smallest_user_key()) >= 0 &&
            ucmp->Compare(ExtractUserKey(f->smallest), c->largest_user_key()) <= 0) {
          older_overlap = true;
          break;
        }
      }
    }
    c->MarkFilesBeingCompacted(true);
    if (OverlapsPending(pending, out, c->smallest_user_key(), c->largest_user_key())) {
      c->ReleaseInputs();
      return nullptr;
    }
    // With a reserved last level, older data may be ingested behind at any time.
    c->bottommost = !ReservesLastLevel(o, v->num_levels()) && !older_overlap;
    // An L0 output stays one file, so its sequence range keeps L0's newest-first order simple.
    SetOutputOptions(*v, o, out == 0 ? 0 : o.target_file_size_base, c.get());
    return c;
  }
};

}  // namespace

std::unique_ptr<CompactionPicker> NewUniversalCompactionPicker(const InternalKeyComparator* icmp) {
  return std::make_unique<UniversalCompactionPicker>(icmp);
}

}  // namespace shale
