// Level-style picking (DESIGN.md "Compaction"): the due levels (score >= 1) are tried in order,
// each compacted into the next one (L0 into the base level). The order (issue 20):
//   - L0 first when it is urgent: its file count + 1 has reached level0_slowdown_writes_trigger,
//     i.e. one more flush would slow writes. That is the L0 condition Flush()/CompactRange()
//     wait on with allow_write_stall = false (DBImpl::WaitUntilFlushWouldNotStallLocked); were
//     L0 not first then, such a Flush would wait for every level outranking L0 to drain.
//   - otherwise by score, highest first (ties keep the shallower level first). L0's score is its
//     file count against level0_file_num_compaction_trigger (or its bytes against the base
//     size); a level's score is its bytes against its target, with no adjustment. (RocksDB
//     also orders by score but damps a level's score by the bytes expected to come down into
//     it and raises L0's score by its size relative to the base level; ShaleDB does neither.)
// L0 is not simply always first: an L0 -> base compaction takes every L0 file and so, with L0
// files spanning the key space, the whole base level; under a steady load L0 is due again by
// the time it ends, and putting it always first would keep the base level from ever being
// compacted down while it grows far over its target.
// Hold-back: when L0 comes before the base level in the order (it is urgent or outranks it) but
// cannot be picked because base-level files it needs are busy, neither the base level's own
// compaction nor a ttl pick from the base level is started, so L0 is not starved by deeper work
// in the files it waits for. A base level that comes before a non-urgent L0 (outranks it) is
// not held back.
// Within a level the file whose overlap with the next level is smallest relative to its own
// size is chosen (least rewriting per byte moved down). With allow_ingest_behind the tree ends
// one level early: nothing is picked from or compacted into the reserved last level
// (compaction/reserved_level.h).
#include <algorithm>
#include <cassert>
#include <limits>

#include "compaction/compaction_picker.h"
#include "compaction/level_targets.h"
#include "compaction/reserved_level.h"

namespace shale {
namespace {

bool AnyBeingCompacted(const std::vector<FileMetaData*>& files) {
  return std::any_of(files.begin(), files.end(),
                     [](const FileMetaData* f) { return f->being_compacted; });
}

class LevelCompactionPicker final : public CompactionPicker {
 public:
  using CompactionPicker::CompactionPicker;

  std::unique_ptr<Compaction> PickCompaction(Version* v, const Options& o,
                                             const std::vector<PendingOutputRange>& pending,
                                             uint64_t now) override {
    if (v->num_levels() < 2) return nullptr;
    const LevelTargets t = ComputeLevelTargets(*v, o);
    std::vector<int> order;
    for (int level = 0; level < LastWritableLevel(o, v->num_levels()); level++) {
      if (t.scores[level] >= 1.0) order.push_back(level);
    }
    // By score, highest first (ties keep the shallower level first); an urgent L0 first.
    // L0 is urgent when one more flush would slow writes: its file count (every L0 file, being
    // compacted or not) + 1 reaches level0_slowdown_writes_trigger. This MUST agree with the L0
    // condition DBImpl::WaitUntilFlushWouldNotStallLocked waits on (Version::NumFiles(0) + 1
    // against the same trigger, through WriteController::Update; the stop trigger is validated
    // to be >= it), so that whenever a Flush waits on L0 files, L0 is compacted before the other
    // levels. Only when the slowdown trigger equals level0_file_num_compaction_trigger is an
    // urgent L0 not due yet; that Flush waits only behind a pending immutable memtable
    // (it returns at once below the compaction trigger otherwise), whose flush makes L0 due.
    const bool l0_urgent =
        static_cast<int64_t>(v->files(0).size()) + 1 >= o.level0_slowdown_writes_trigger;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (l0_urgent && (a == 0) != (b == 0)) return a == 0;
      return t.scores[a] > t.scores[b];
    });
    // Set when L0 was tried and could not be picked although none of its files is busy (it
    // waits on base-level files). Invariant: it is set only on L0's turn, so it holds back only
    // levels after L0 in `order`; an urgent L0 is first, so a blocked urgent L0 always holds the
    // base level back, also when the base level outranks it.
    bool l0_blocked = false;
    for (int level : order) {
      std::unique_ptr<Compaction> c;
      if (level == 0) {
        c = PickL0(v, o, t, pending);
        if (c == nullptr && !AnyBeingCompacted(v->files(0))) l0_blocked = true;
      } else if (!(l0_blocked && level == t.base_level)) {
        // The base level is skipped while L0, ahead of it, waits on it: no more work there.
        c = PickLevel(v, o, t, pending, level);
      }
      if (c != nullptr) return c;
    }
    return PickExpired(v, o, t, pending, now, /*skip_base_level=*/l0_blocked);
  }

  bool NeedsCompaction(const Version& v, const Options& o, uint64_t now) const override {
    if (v.num_levels() < 2) return false;
    const LevelTargets t = ComputeLevelTargets(v, o);
    for (int level = 0; level < LastWritableLevel(o, v.num_levels()); level++) {
      if (t.scores[level] >= 1.0) return true;
      for (const FileMetaData* f : v.files(level)) {
        if (Expired(*f, o, now)) return true;
      }
    }
    return false;
  }

  uint64_t EstimatePendingCompactionBytes(const Version& v, const Options& o) const override {
    return EstimateLevelPendingBytes(v, o, ComputeLevelTargets(v, o));
  }

 private:
  // Every L0 file (they usually all overlap) into the base level.
  std::unique_ptr<Compaction> PickL0(Version* v, const Options& o, const LevelTargets& t,
                                     const std::vector<PendingOutputRange>& pending) {
    const std::vector<FileMetaData*>& l0 = v->files(0);
    if (l0.empty() || AnyBeingCompacted(l0)) return nullptr;
    const int out = t.base_level;
    std::vector<CompactionInputLevel> inputs(1);
    inputs[0].level = 0;
    inputs[0].files = l0;
    return Finish(v, o, t, pending, std::move(inputs), out, CompactionReason::kL0FileCount);
  }

  // ttl: a file above the bottom (last writable) level written more than ttl seconds ago
  // (creation_time) moves down one level, so old data keeps flowing to the bottom even without
  // new writes. It moves with the neighbours sharing its boundary user keys (Finish).
  static bool Expired(const FileMetaData& f, const Options& o, uint64_t now) {
    return o.ttl > 0 && f.creation_time > 0 && f.creation_time + o.ttl < now &&
           !f.being_compacted;
  }

  // With `skip_base_level` (a blocked L0 holds the base level back) nothing is picked from the
  // base level.
  std::unique_ptr<Compaction> PickExpired(Version* v, const Options& o, const LevelTargets& t,
                                          const std::vector<PendingOutputRange>& pending,
                                          uint64_t now, bool skip_base_level) {
    if (o.ttl == 0) return nullptr;
    for (int level = 0; level < LastWritableLevel(o, v->num_levels()); level++) {
      if (skip_base_level && level == t.base_level) continue;
      for (FileMetaData* f : v->files(level)) {
        if (!Expired(*f, o, now)) continue;
        std::vector<CompactionInputLevel> inputs(1);
        inputs[0].level = level;
        if (level == 0) {
          if (AnyBeingCompacted(v->files(0))) break;
          inputs[0].files = v->files(0);
          return Finish(v, o, t, pending, std::move(inputs), t.base_level,
                        CompactionReason::kTtl);
        }
        inputs[0].files.push_back(f);  // Finish widens it to a clean cut
        std::unique_ptr<Compaction> c = Finish(v, o, t, pending, std::move(inputs), level + 1,
                                               CompactionReason::kTtl);
        if (c != nullptr) return c;
      }
    }
    return nullptr;
  }

  // One file of `level` (widened to whole user keys) and what it overlaps in level + 1.
  std::unique_ptr<Compaction> PickLevel(Version* v, const Options& o, const LevelTargets& t,
                                        const std::vector<PendingOutputRange>& pending,
                                        int level) {
    const std::vector<FileMetaData*>& files = v->files(level);
    const Comparator* ucmp = icmp_->user_comparator();
    double best_ratio = std::numeric_limits<double>::max();
    size_t best_lo = 0, best_hi = 0;
    bool found = false;
    std::vector<FileMetaData*> overlap;
    for (size_t i = 0; i < files.size(); i++) {
      // Widen to a clean cut: neighbours sharing a boundary user key come along.
      size_t lo = i, hi = i;
      WidenToCleanCut(ucmp, files, &lo, &hi);
      bool busy = false;
      uint64_t size = 0;
      for (size_t j = lo; j <= hi; j++) {
        busy |= files[j]->being_compacted;
        size += files[j]->file_size;
      }
      if (busy) continue;
      v->GetOverlappingInputs(level + 1, files[lo]->smallest, files[hi]->largest, &overlap);
      if (AnyBeingCompacted(overlap)) continue;
      uint64_t overlap_bytes = 0;
      for (const FileMetaData* f : overlap) overlap_bytes += f->file_size;
      const double ratio =
          static_cast<double>(overlap_bytes) / static_cast<double>(std::max<uint64_t>(1, size));
      if (ratio < best_ratio) {
        std::string_view s = ExtractUserKey(files[lo]->smallest);
        std::string_view l = ExtractUserKey(files[hi]->largest);
        if (!overlap.empty()) {
          if (ucmp->Compare(ExtractUserKey(overlap.front()->smallest), s) < 0) {
            s = ExtractUserKey(overlap.front()->smallest);
          }
          if (ucmp->Compare(ExtractUserKey(overlap.back()->largest), l) > 0) {
            l = ExtractUserKey(overlap.back()->largest);
          }
        }
        if (OverlapsPending(pending, level + 1, s, l)) continue;
        best_ratio = ratio;
        best_lo = lo;
        best_hi = hi;
        found = true;
      }
      i = hi;
    }
    if (!found) return nullptr;
    std::vector<CompactionInputLevel> inputs(1);
    inputs[0].level = level;
    inputs[0].files.assign(files.begin() + best_lo, files.begin() + best_hi + 1);
    return Finish(v, o, t, pending, std::move(inputs), level + 1,
                  CompactionReason::kLevelMaxBytes);
  }

  // Widens the start level's files to a clean cut, adds the overlapping files of the output
  // level (widened to a clean cut too) and the output settings; null if they are busy or the
  // output range collides with a pending output. Both cuts matter: a start-level file moved or
  // merged down without its neighbour sharing a user key would put the key's newer entries
  // below its older ones; an output-level neighbour left out would keep older entries of a key
  // the merge treats as bottommost (and may drop the deletion hiding them).
  std::unique_ptr<Compaction> Finish(Version* v, const Options& o, const LevelTargets& t,
                                     const std::vector<PendingOutputRange>& pending,
                                     std::vector<CompactionInputLevel> inputs, int out,
                                     CompactionReason reason) {
    assert(out <= LastWritableLevel(o, v->num_levels()));
    const Comparator* ucmp = icmp_->user_comparator();
    ExpandToCleanCut(*v, inputs[0].level, &inputs[0].files);
    if (AnyBeingCompacted(inputs[0].files)) return nullptr;
    std::string lo, hi;
    bool first = true;
    for (const FileMetaData* f : inputs[0].files) {
      std::string_view fl = ExtractUserKey(f->smallest), fh = ExtractUserKey(f->largest);
      if (first || ucmp->Compare(fl, lo) < 0) lo.assign(fl);
      if (first || ucmp->Compare(fh, hi) > 0) hi.assign(fh);
      first = false;
    }
    CompactionInputLevel next;
    next.level = out;
    v->GetOverlappingInputs(out, FirstInternalKeyOf(lo), LastInternalKeyOf(hi), &next.files);
    ExpandToCleanCut(*v, out, &next.files);
    if (AnyBeingCompacted(next.files)) return nullptr;
    for (const FileMetaData* f : next.files) {
      if (ucmp->Compare(ExtractUserKey(f->smallest), lo) < 0) lo.assign(ExtractUserKey(f->smallest));
      if (ucmp->Compare(ExtractUserKey(f->largest), hi) > 0) hi.assign(ExtractUserKey(f->largest));
    }
    if (OverlapsPending(pending, out, lo, hi)) return nullptr;
    // An L0 -> base compaction skipping levels must find them empty in its range.
    for (int l = inputs[0].level + 1; l < out; l++) {
      if (v->OverlapInLevel(l, lo, hi)) return nullptr;
    }
    if (!next.files.empty()) inputs.push_back(std::move(next));
    auto c = std::make_unique<Compaction>(v, icmp_, reason, std::move(inputs), out);
    // With a reserved last level, older data may be ingested behind at any time.
    c->bottommost = !ReservesLastLevel(o, v->num_levels()) && !OverlapsBelow(*v, out, lo, hi);
    SetOutputOptions(*v, o, TargetFileSizeForLevel(o, out, t.base_level), c.get());
    c->MarkFilesBeingCompacted(true);
    return c;
  }
};

}  // namespace

std::unique_ptr<CompactionPicker> NewLevelCompactionPicker(const InternalKeyComparator* icmp) {
  return std::make_unique<LevelCompactionPicker>(icmp);
}

}  // namespace shale
