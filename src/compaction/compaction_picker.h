// CompactionPicker: decides what to compact next, one implementation per compaction style
// (DESIGN.md "Compaction"):
//   kCompactionStyleLevel      LevelCompactionPicker     (level_compaction_picker.cc)
//   kCompactionStyleUniversal  UniversalCompactionPicker (universal_compaction_picker.cc)
//   kCompactionStyleFIFO       FifoCompactionPicker      (fifo_compaction_picker.cc)
//   kCompactionStyleNone       nothing is ever picked by itself
// and, for every style, the manual compaction of DB::CompactRange (PickManualCompaction).
//
// A pick marks its input files being_compacted and references the Version; files already being
// compacted are never picked, and an output is never sent into a range of a level where a
// running flush or compaction will add files (PendingOutputRange), so compactions may run
// side by side. With Options::allow_ingest_behind no picker reads from or writes to the last
// level, and no pick is bottommost (compaction/reserved_level.h).
//
// Thread-safety: stateless apart from construction; call under the DB mutex.
#ifndef SHALE_COMPACTION_COMPACTION_PICKER_H_
#define SHALE_COMPACTION_COMPACTION_PICKER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "compaction/compaction.h"
#include "shale/options.h"
#include "version/version.h"

namespace shale {

class CompactionPicker {
 public:
  explicit CompactionPicker(const InternalKeyComparator* icmp) : icmp_(icmp) {}
  virtual ~CompactionPicker() = default;

  // The most urgent automatic compaction of `v`, or null when nothing is due or what is due
  // conflicts with running work. `now` is the time in seconds since the Unix epoch (FIFO ttl).
  // REQUIRES: the DB mutex.
  virtual std::unique_ptr<Compaction> PickCompaction(
      Version* v, const Options& options, const std::vector<PendingOutputRange>& pending,
      uint64_t now) = 0;

  // Whether some automatic compaction is due (ignoring conflicts with running work).
  virtual bool NeedsCompaction(const Version& v, const Options& options, uint64_t now) const = 0;

  // RocksDB's estimate of the bytes compaction owes (the write controller's pending-bytes
  // limits). 0 for styles that have none.
  virtual uint64_t EstimatePendingCompactionBytes(const Version& v,
                                                  const Options& options) const = 0;

  // DB::CompactRange over user keys [begin, end] (a missing bound is open): every file that
  // overlaps the range, widened until no file outside the set overlaps it, merged in one pass
  // into the bottom level (with allow_ingest_behind: num_levels - 2; the reserved last level
  // is never an input, see compaction/reserved_level.h). Null with *conflict = false when there is nothing to do (no file
  // overlaps, or only bottom-level files do and !force_bottommost); null with *conflict = true
  // when a file it needs is being compacted or a pending output lands in its way (wait and
  // retry). FIFO picks its deletions instead.
  virtual std::unique_ptr<Compaction> PickManualCompaction(
      Version* v, const Options& options, const std::vector<PendingOutputRange>& pending,
      std::optional<std::string_view> begin, std::optional<std::string_view> end,
      bool force_bottommost, uint32_t max_subcompactions, bool* conflict);

 protected:
  // Whether [smallest, largest] overlaps a pending output of `level`.
  bool OverlapsPending(const std::vector<PendingOutputRange>& pending, int level,
                       std::string_view smallest_user_key, std::string_view largest_user_key) const;
  // Whether any file in levels > level of `v` overlaps [smallest, largest] (user keys).
  bool OverlapsBelow(const Version& v, int level, std::string_view smallest_user_key,
                     std::string_view largest_user_key) const;
  // Widens `files`, contiguous files of `level` (>= 1) of `v` in the level's order, to a clean
  // cut (compaction.h invariant 1b): while the file just before the first (after the last)
  // shares a boundary user key with it, that file joins. Empty input or L0: unchanged.
  void ExpandToCleanCut(const Version& v, int level, std::vector<FileMetaData*>* files) const;
  // Fills the output settings common to merges: target size, grandparents, compression.
  void SetOutputOptions(const Version& v, const Options& options, uint64_t target_file_size,
                        Compaction* c) const;

  const InternalKeyComparator* const icmp_;
};

// Whether `left` and `right`, neighbours of a sorted level (left first), may both hold entries
// of one user key: left's largest and right's smallest user keys are equal. (A largest key that
// is a range deletion's exclusive end counts too: conservative, a cut there is taken as unclean.)
bool SharesBoundaryUserKey(const Comparator* ucmp, const FileMetaData& left,
                           const FileMetaData& right);
// Widens the index range [*first, *last] of `files`, the files of a sorted level, to a clean
// cut: neighbours sharing a boundary user key join, transitively.
void WidenToCleanCut(const Comparator* ucmp, const std::vector<FileMetaData*>& files,
                     size_t* first, size_t* last);

std::unique_ptr<CompactionPicker> NewLevelCompactionPicker(const InternalKeyComparator* icmp);
std::unique_ptr<CompactionPicker> NewUniversalCompactionPicker(const InternalKeyComparator* icmp);
std::unique_ptr<CompactionPicker> NewFifoCompactionPicker(const InternalKeyComparator* icmp);
// kCompactionStyleNone: picks nothing by itself; PickManualCompaction works as for the others.
std::unique_ptr<CompactionPicker> NewNoCompactionPicker(const InternalKeyComparator* icmp);

// The picker for options.compaction_style.
std::unique_ptr<CompactionPicker> NewCompactionPicker(CompactionStyle style,
                                                      const InternalKeyComparator* icmp);

// The internal keys that bound every entry of a user key (for Version range queries).
std::string FirstInternalKeyOf(std::string_view user_key);
std::string LastInternalKeyOf(std::string_view user_key);

}  // namespace shale

#endif  // SHALE_COMPACTION_COMPACTION_PICKER_H_
