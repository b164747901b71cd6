#include "compaction/compaction_picker.h"

#include <algorithm>
#include <cassert>
#include <cstddef>

#include "compaction/level_targets.h"
#include "compaction/reserved_level.h"

namespace shale {

std::string FirstInternalKeyOf(std::string_view user_key) {
  return MakeInternalKey(user_key, kMaxSequenceNumber, kValueTypeForSeek);
}

std::string LastInternalKeyOf(std::string_view user_key) {
  return MakeInternalKey(user_key, 0, static_cast<ValueType>(0));
}

bool SharesBoundaryUserKey(const Comparator* ucmp, const FileMetaData& left,
                           const FileMetaData& right) {
  return ucmp->Compare(ExtractUserKey(left.largest), ExtractUserKey(right.smallest)) == 0;
}

void WidenToCleanCut(const Comparator* ucmp, const std::vector<FileMetaData*>& files,
                     size_t* first, size_t* last) {
  assert(*first <= *last && *last < files.size());
  while (*first > 0 && SharesBoundaryUserKey(ucmp, *files[*first - 1], *files[*first])) (*first)--;
  while (*last + 1 < files.size() && SharesBoundaryUserKey(ucmp, *files[*last], *files[*last + 1])) {
    (*last)++;
  }
}

void CompactionPicker::ExpandToCleanCut(const Version& v, int level,
                                        std::vector<FileMetaData*>* files) const {
  if (level == 0 || files->empty()) return;
  const std::vector<FileMetaData*>& all = v.files(level);
  auto it = std::find(all.begin(), all.end(), files->front());
  assert(it != all.end());
  if (it == all.end()) return;
  size_t first = static_cast<size_t>(it - all.begin());
  size_t last = first + files->size() - 1;
  assert(last < all.size() && all[last] == files->back());
  WidenToCleanCut(icmp_->user_comparator(), all, &first, &last);
  files->assign(all.begin() + static_cast<std::ptrdiff_t>(first),
                all.begin() + static_cast<std::ptrdiff_t>(last) + 1);
}

bool CompactionPicker::OverlapsPending(const std::vector<PendingOutputRange>& pending, int level,
                                       std::string_view lo, std::string_view hi) const {
  const Comparator* ucmp = icmp_->user_comparator();
  for (const PendingOutputRange& p : pending) {
    if (p.level != level) continue;
    if (ucmp->Compare(hi, p.smallest_user_key) < 0 || ucmp->Compare(lo, p.largest_user_key) > 0) {
      continue;
    }
    return true;
  }
  return false;
}

bool CompactionPicker::OverlapsBelow(const Version& v, int level, std::string_view lo,
                                     std::string_view hi) const {
  for (int l = level + 1; l < v.num_levels(); l++) {
    if (v.OverlapInLevel(l, lo, hi)) return true;
  }
  return false;
}

void CompactionPicker::SetOutputOptions(const Version& v, const Options& o,
                                        uint64_t target_file_size, Compaction* c) const {
  c->target_file_size = target_file_size;
  const int out = c->output_level();
  const int last = LastWritableLevel(o, v.num_levels());
  // Reserved-level files are never compacted: no reason to cut outputs at their boundaries.
  if (out > 0 && out + 1 <= last) {
    v.GetOverlappingInputs(out + 1, FirstInternalKeyOf(c->smallest_user_key()),
                           LastInternalKeyOf(c->largest_user_key()), &c->grandparents);
    c->max_grandparent_overlap_bytes = target_file_size * 10;
  }
  c->compression = o.compression;
  c->compression_level = o.compression_level;
  // Bottommost compression goes where the bulk of the data sits: the bottommost output, or, with
  // a reserved last level (where nothing counts as bottommost), the last writable level.
  const bool bottom_data = c->bottommost || (ReservesLastLevel(o, v.num_levels()) && out == last);
  if (bottom_data && o.bottommost_compression != kDisableCompressionOption) {
    c->compression = o.bottommost_compression;
  }
  c->max_subcompactions = std::max<uint32_t>(1, o.max_subcompactions);
}

std::unique_ptr<Compaction> CompactionPicker::PickManualCompaction(
    Version* v, const Options& o, const std::vector<PendingOutputRange>& pending,
    std::optional<std::string_view> begin, std::optional<std::string_view> end,
    bool force_bottommost, uint32_t max_subcompactions, bool* conflict) {
  *conflict = false;
  const Comparator* ucmp = icmp_->user_comparator();
  // The output level; with a reserved last level (never an input, never written) the level
  // above it.
  const int bottom = LastWritableLevel(o, v->num_levels());
  std::optional<std::string> lo, hi;
  if (begin) lo = std::string(*begin);
  if (end) hi = std::string(*end);
  std::vector<CompactionInputLevel> inputs;
  // Widen the range until it is closed: no file outside the inputs overlaps it anywhere.
  for (bool widened = true; widened;) {
    widened = false;
    inputs.clear();
    for (int level = 0; level <= bottom; level++) {
      CompactionInputLevel in;
      in.level = level;
      std::optional<std::string_view> b, e;
      std::string bk, ek;
      if (lo) b = bk = FirstInternalKeyOf(*lo);
      if (hi) e = ek = LastInternalKeyOf(*hi);
      v->GetOverlappingInputs(level, b, e, &in.files);
      for (const FileMetaData* f : in.files) {
        std::string_view fl = ExtractUserKey(f->smallest);
        std::string_view fh = ExtractUserKey(f->largest);
        if (lo && ucmp->Compare(fl, *lo) < 0) {
          lo = std::string(fl);
          widened = true;
        }
        if (hi && ucmp->Compare(fh, *hi) > 0) {
          hi = std::string(fh);
          widened = true;
        }
      }
      if (!in.files.empty()) inputs.push_back(std::move(in));
    }
  }
  if (inputs.empty()) return nullptr;
  if (inputs.size() == 1 && inputs[0].level == bottom && !force_bottommost) return nullptr;
  for (const CompactionInputLevel& in : inputs) {
    for (const FileMetaData* f : in.files) {
      if (f->being_compacted) {
        *conflict = true;
        return nullptr;
      }
    }
  }
  auto c = std::make_unique<Compaction>(v, icmp_, CompactionReason::kManual, std::move(inputs),
                                        bottom);
  c->MarkFilesBeingCompacted(true);
  if (OverlapsPending(pending, bottom, c->smallest_user_key(), c->largest_user_key())) {
    *conflict = true;
    c->ReleaseInputs();
    return nullptr;
  }
  // Every older version of the span is an input, unless a reserved last level lies below (it
  // may hold, or later receive, older data).
  c->bottommost = !ReservesLastLevel(o, v->num_levels());
  const LevelTargets targets = ComputeLevelTargets(*v, o);
  SetOutputOptions(*v, o,
                   TargetFileSizeForLevel(o, bottom, std::min(targets.base_level, bottom)),
                   c.get());
  c->max_subcompactions = std::max<uint32_t>(1, max_subcompactions);
  return c;
}

namespace {

class NoCompactionPicker final : public CompactionPicker {
 public:
  using CompactionPicker::CompactionPicker;
  std::unique_ptr<Compaction> PickCompaction(Version*, const Options&,
                                             const std::vector<PendingOutputRange>&,
                                             uint64_t) override {
    return nullptr;
  }
  bool NeedsCompaction(const Version&, const Options&, uint64_t) const override { return false; }
  uint64_t EstimatePendingCompactionBytes(const Version&, const Options&) const override {
    return 0;
  }
};

}  // namespace

std::unique_ptr<CompactionPicker> NewNoCompactionPicker(const InternalKeyComparator* icmp) {
  return std::make_unique<NoCompactionPicker>(icmp);
}

std::unique_ptr<CompactionPicker> NewCompactionPicker(CompactionStyle style,
                                                      const InternalKeyComparator* icmp) {
  switch (style) {
    case kCompactionStyleLevel: return NewLevelCompactionPicker(icmp);
    case kCompactionStyleUniversal: return NewUniversalCompactionPicker(icmp);
    case kCompactionStyleFIFO: return NewFifoCompactionPicker(icmp);
    case kCompactionStyleNone: return NewNoCompactionPicker(icmp);
  }
  return NewNoCompactionPicker(icmp);
}

}  // namespace shale
