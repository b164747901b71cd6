// VersionBuilder: applies a sequence of VersionEdits to a base Version and produces the
// resulting Version, without making the intermediate ones. LogAndApply uses it for one edit,
// recovery for every edit of a MANIFEST.
//
// Every edit is checked against the state it applies to, so a bad edit (a bug in the caller, or
// a damaged MANIFEST) is an error and never a broken tree:
//  - every level named must be below the base's num_levels (InvalidArgument otherwise: the DB
//    was opened with fewer levels than the MANIFEST uses);
//  - a deleted file must be in that level (Corruption);
//  - an added file must not already be in any level (Corruption); within one edit deletions
//    apply before additions, so an edit may move a file by deleting and re-adding it;
//  - SaveTo checks the level order (Version::CheckLevel) of every level the edits added files
//    to, or of all levels with SHALE_EXPENSIVE_CHECKS or in debug builds (Corruption).
// Compaction pointers are not part of a Version: the VersionSet keeps them.
//
// Thread-safety: not thread-safe. The builder holds a reference to the base version and copies
// of the added files; construct, use and destroy it under the DB mutex.
#ifndef SHALE_VERSION_VERSION_BUILDER_H_
#define SHALE_VERSION_VERSION_BUILDER_H_

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/internal_key.h"
#include "shale/status.h"
#include "version/file_metadata.h"
#include "version/version.h"
#include "version/version_edit.h"

namespace shale {

class VersionBuilder {
 public:
  // `icmp` must outlive the builder. REQUIRES: the DB mutex (takes a reference to base).
  VersionBuilder(const InternalKeyComparator* icmp, Version* base);
  // REQUIRES: the DB mutex (drops the reference to base).
  ~VersionBuilder();

  VersionBuilder(const VersionBuilder&) = delete;
  VersionBuilder& operator=(const VersionBuilder&) = delete;

  // Applies the file changes of `edit` (see the header comment for the checks). On error the
  // builder is unchanged by the failing deletion or addition but may hold earlier parts of the
  // edit; discard it.
  [[nodiscard]] Status Apply(const VersionEdit& edit);

  // Fills `v` (empty, with the base's num_levels) with the base's files plus the applied edits,
  // each level in its order. On error `v` holds part of the result; Unref it.
  [[nodiscard]] Status SaveTo(Version* v) const;

 private:
  struct LevelState {
    std::set<uint64_t> deleted;                  // base files removed from this level
    std::map<uint64_t, FileMetaData> added;      // files added to this level
  };

  [[nodiscard]] Status CheckLevel(int level, const char* what) const;
  [[nodiscard]] Status ApplyDeletion(int level, uint64_t number);
  [[nodiscard]] Status ApplyAddition(int level, const FileMetaData& f);
  // The level holding file `number` in the current state, or -1.
  int LevelOf(uint64_t number) const;
  // Sorts one level's files into the level's order.
  void SortLevel(int level, std::vector<FileMetaData*>* files) const;

  const InternalKeyComparator* const icmp_;
  Version* const base_;
  // The level of every base file.
  std::unordered_map<uint64_t, int> base_level_;
  // The level of every added file still present.
  std::unordered_map<uint64_t, int> added_level_;
  std::vector<LevelState> levels_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_BUILDER_H_
