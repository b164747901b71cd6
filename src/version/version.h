// Version: one immutable snapshot of the LSM tree's shape, the table files of each level.
//
// Level order:
//  - L0 files may overlap each other. They are ordered newest first: by largest sequence number
//    descending, then by file number descending. A read consults them in that order.
//  - In L1 and below, files are ordered by smallest key and do not overlap: each file's largest
//    internal key is below the next file's smallest. FindFile() (iterator/level_iterator.h, over
//    a VersionLevelFiles) binary-searches them. (So one user key may continue from a file into
//    the next, with older entries there; range queries by user key, like GetOverlappingInputs,
//    return both files.)
// The VersionBuilder keeps these orders; CheckConsistency() verifies them.
//
// Reads over the files: Get() is the point lookup through the levels (the part of DB::Get
// after the memtables); AddIterators() and AddRangeTombstones() give what a DB iterator merges.
// They open the tables through the DB's TableCache.
//
// Lifetime: a Version is reference-counted. The VersionSet holds a reference to its current
// Version; readers, iterators and compactions take one (Ref) while they use a Version and drop
// it (Unref) when done; the last Unref deletes it and drops its references to its files
// (FileMetaData), so a file stays alive, and is reported live by VersionSet::AddLiveFiles,
// while any Version listing it is referenced. Every Version must be released before its
// VersionSet is destroyed.
//
// Thread-safety: Ref and Unref require the DB mutex (the mutex passed to
// VersionSet::LogAndApply). Everything else is const and may be called without a lock, from any
// thread, by a holder of a reference (the reads over the files included).
#ifndef SHALE_VERSION_VERSION_H_
#define SHALE_VERSION_VERSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/status.h"
#include "version/file_metadata.h"

namespace shale {

class GetContext;
class InternalIterator;
class RangeTombstones;
class TableCache;
class VersionSet;
struct TableReadOptions;

class Version {
 public:
  // An empty version with no reference. `icmp` must outlive it. The creator takes the first
  // reference; a VersionSet links the versions it installs into its list of live versions.
  Version(const InternalKeyComparator* icmp, int num_levels);

  Version(const Version&) = delete;
  Version& operator=(const Version&) = delete;

  // REQUIRES: the DB mutex (see the header comment).
  void Ref() { ++refs_; }
  // Drops a reference; deletes this version when it was the last one. REQUIRES: the DB mutex.
  void Unref();

  int num_levels() const { return static_cast<int>(files_.size()); }
  // The files of `level`, in the level's order (see the header comment).
  const std::vector<FileMetaData*>& files(int level) const { return files_[level]; }
  int NumFiles(int level) const { return static_cast<int>(files_[level].size()); }
  // The sum of the file sizes of `level`.
  uint64_t NumLevelBytes(int level) const;

  // The point lookup of key.user_key(), at the snapshot `key` carries (its sequence), over the
  // files, newest first: the L0 files whose key range holds the user key, in L0's order; then,
  // in each lower level, the file FindFile picks and the next ones as long as they may hold
  // the user key (its entries may continue into the next file).
  // Each table is found through `table_cache` (its parsed copy: bloom filter, index, range
  // deletions) and read with `options` (checksums, block cache fill). Per table, the newest
  // range deletion covering the key at the snapshot goes to context->AddCoveringTombstone();
  // then the key's entries not hidden by it go to context->Save(), newest first, until the
  // context is done; a lookup still undecided after a table with a covering tombstone ends as
  // a deletion (Save(kTypeRangeDeletion)). Returns OK when every file needed was searched
  // (the context then is done, or needs Finish() for what is left, e.g. only merge operands
  // or no entry); an error finding or reading a table is returned as is and ends the lookup.
  // REQUIRES: !context->done(); `table_cache` holds this version's tables.
  [[nodiscard]] Status Get(const TableReadOptions& options, TableCache* table_cache,
                           const LookupKey& key, GetContext* context) const;

  // Appends to *iterators the iterators over the point entries of every file, newest source
  // first: one per L0 file (L0's order), then one per non-empty lower level (a level iterator,
  // NewLevelFilesIterator, that opens a file only when reached). They read with `options` and
  // borrow this version's file lists and `table_cache`: the caller keeps a reference to the
  // version while they live.
  void AddIterators(const TableReadOptions& options, TableCache* table_cache,
                    std::vector<std::unique_ptr<InternalIterator>>* iterators) const;

  // Appends to *tombstones the fragmented range deletions of every file that has some (as the
  // table cache parsed them; each shared pointer also keeps its table parsed). A table that
  // cannot be found is skipped and the first such error returned, after the other files.
  [[nodiscard]] Status AddRangeTombstones(
      TableCache* table_cache,
      std::vector<std::shared_ptr<const RangeTombstones>>* tombstones) const;

  // Whether some file of `level` holds a user key in [smallest_user_key, largest_user_key]. A
  // missing bound is unbounded on that side.
  bool OverlapInLevel(int level, std::optional<std::string_view> smallest_user_key,
                      std::optional<std::string_view> largest_user_key) const;

  // Stores in *inputs the files of `level` that overlap the user-key range of the internal keys
  // [begin, end] (a missing bound is unbounded; only the user-key parts are compared). In L0,
  // where files overlap, the range is widened by every file it takes in, until it is closed
  // under overlap: a compaction of the result leaves no older version of its keys behind.
  void GetOverlappingInputs(int level, std::optional<std::string_view> begin,
                            std::optional<std::string_view> end,
                            std::vector<FileMetaData*>* inputs) const;

  // The level a flushed memtable holding user keys [smallest_user_key, largest_user_key] is
  // written to. The file must go above every file that holds any of its keys (those are older),
  // so it goes to the lowest level L such that no level 0..L overlaps the range: the bottom
  // level when nothing overlaps anywhere (sorted input is never rewritten), L0 when L0 overlaps.
  // With allow_lower_levels false, always 0.
  // The caller must also make sure no running compaction is writing an overlapping range into
  // the chosen level.
  int PickLevelForMemTableOutput(std::string_view smallest_user_key,
                                 std::string_view largest_user_key,
                                 bool allow_lower_levels = true) const;

  // Checks every invariant of the level order (each file's smallest <= largest, L0 newest
  // first, L1+ sorted and non-overlapping). Corruption naming the level and files otherwise.
  [[nodiscard]] Status CheckConsistency() const;
  // Corruption if `level`'s files break the level order.
  [[nodiscard]] Status CheckLevel(int level) const;

  // One line per file, grouped by level.
  std::string DebugString() const;

 private:
  friend class VersionSet;
  friend class VersionBuilder;

  // Deleted only by the last Unref: drops the references to the files.
  ~Version();

  const InternalKeyComparator* const icmp_;
  // The VersionSet's circular list of live versions (a version alone is linked to itself).
  Version* next_ = this;
  Version* prev_ = this;
  // References held; guarded by the DB mutex.
  int refs_ = 0;
  // files_[level], each file referenced once by this version.
  std::vector<std::vector<FileMetaData*>> files_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_H_
