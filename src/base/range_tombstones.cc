#include "base/range_tombstones.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>

namespace shale {

void RangeTombstones::Add(std::string_view start, std::string_view end,
                          SequenceNumber sequence) {
  assert(!finished_);
  if (ucmp_->Compare(start, end) >= 0) return;
  tombstones_.push_back(Tombstone{std::string(start), std::string(end), sequence});
}

Status RangeTombstones::AddAll(InternalIterator* iter) {
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    ParsedInternalKey parsed;
    Status s = ParseInternalKey(iter->key(), &parsed);
    if (!s.ok()) return s;
    if (parsed.type != kTypeRangeDeletion) {
      return Status::Corruption("range tombstone with a type other than range deletion");
    }
    Add(parsed.user_key, iter->value(), parsed.sequence);
  }
  return iter->status();
}

void RangeTombstones::Finish() {
  assert(!finished_);
  finished_ = true;
  if (tombstones_.empty()) return;
  auto less = [this](const std::string& a, const std::string& b) {
    return ucmp_->Compare(a, b) < 0;
  };
  // Every boundary, sorted and unique.
  std::vector<std::string> bounds;
  bounds.reserve(tombstones_.size() * 2);
  for (const Tombstone& t : tombstones_) {
    bounds.push_back(t.start);
    bounds.push_back(t.end);
  }
  std::sort(bounds.begin(), bounds.end(), less);
  bounds.erase(std::unique(bounds.begin(), bounds.end(),
                           [this](const std::string& a, const std::string& b) {
                             return ucmp_->Compare(a, b) == 0;
                           }),
               bounds.end());
  // Sweep the boundaries in order, keeping the sequences of the tombstones open at each one.
  std::sort(tombstones_.begin(), tombstones_.end(),
            [&](const Tombstone& a, const Tombstone& b) { return less(a.start, b.start); });
  std::multimap<std::string, SequenceNumber, decltype(less)> open_by_end(less);
  size_t next = 0;
  for (size_t i = 0; i + 1 < bounds.size(); i++) {
    const std::string& b = bounds[i];
    while (next < tombstones_.size() && ucmp_->Compare(tombstones_[next].start, b) <= 0) {
      open_by_end.emplace(tombstones_[next].end, tombstones_[next].sequence);
      next++;
    }
    while (!open_by_end.empty() && ucmp_->Compare(open_by_end.begin()->first, b) <= 0) {
      open_by_end.erase(open_by_end.begin());
    }
    if (open_by_end.empty()) continue;
    Fragment f{b, bounds[i + 1], {}};
    for (const auto& [end, seq] : open_by_end) f.sequences.push_back(seq);
    std::sort(f.sequences.begin(), f.sequences.end(), std::greater<SequenceNumber>());
    fragments_.push_back(std::move(f));
  }
  tombstones_.clear();
  tombstones_.shrink_to_fit();
}

SequenceNumber RangeTombstones::MaxCoveringSequence(std::string_view user_key,
                                                    SequenceNumber snapshot) const {
  assert(finished_);
  // The last fragment starting at or before user_key.
  auto it = std::upper_bound(fragments_.begin(), fragments_.end(), user_key,
                             [this](std::string_view key, const Fragment& f) {
                               return ucmp_->Compare(key, f.start) < 0;
                             });
  if (it == fragments_.begin()) return 0;
  --it;
  if (ucmp_->Compare(user_key, it->end) >= 0) return 0;
  for (SequenceNumber seq : it->sequences) {
    if (seq <= snapshot) return seq;
  }
  return 0;
}

void RangeTombstones::ForEachFragment(
    std::optional<std::string_view> lo, std::optional<std::string_view> hi,
    const std::function<void(std::string_view, std::string_view,
                             const std::vector<SequenceNumber>&)>& fn) const {
  for (const Fragment& f : fragments_) {
    std::string_view start = f.start;
    std::string_view end = f.end;
    if (lo && ucmp_->Compare(start, *lo) < 0) start = *lo;
    if (hi && ucmp_->Compare(end, *hi) > 0) end = *hi;
    if (ucmp_->Compare(start, end) >= 0) continue;
    fn(start, end, f.sequences);
  }
}

}  // namespace shale
