// VersionEdit: one change to the set of table files of the LSM tree and to the DB's bookkeeping
// numbers. Each MANIFEST record is one encoded VersionEdit; a Version is the empty state with
// every edit of the MANIFEST applied in order. doc/manifest_format.md specifies the encoding;
// keep the two in step.
//
// The encoding is a sequence of fields, each a varint32 tag followed by its payload. A reader
// meets tags it does not know only in a MANIFEST written by a newer version of the engine:
// tags with kTagSafeToIgnoreBit set carry a length-prefixed payload and are skipped; any other
// unknown tag is Corruption (the newer field changes the meaning of the state, so ignoring it
// would be wrong). File records use the same rule for their optional fields.
//
// Every edit names the column family it applies to (default 0, the "default" family). An edit
// may add a family (AddColumnFamily: the family with the edit's id is created, named) or drop
// one (DropColumnFamily). The VersionSet also records the largest family id ever used
// (SetMaxColumnFamily) so ids are never reused, and marks the edits of an atomic group
// (MarkAtomicGroup: how many edits of the group follow this one), which a reader applies all or
// none of.
//
// Thread-safety: a VersionEdit is a plain value; no internal synchronisation.
#ifndef SHALE_VERSION_VERSION_EDIT_H_
#define SHALE_VERSION_VERSION_EDIT_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/internal_key.h"
#include "shale/status.h"
#include "version/file_metadata.h"

namespace shale {

// The largest number of levels an edit may name (levels are 0 .. kMaxNumLevels - 1). A
// VersionSet further limits them to its own num_levels. Options validation refuses num_levels
// above this (options_validate.cc keeps the same number).
inline constexpr int kMaxNumLevels = 64;

class VersionEdit {
 public:
  // Set in a tag (of an edit field or of a file-record field) whose payload is length-prefixed
  // and may be skipped by a reader that does not know the tag.
  static constexpr uint32_t kTagSafeToIgnoreBit = 1u << 13;

  VersionEdit() = default;

  // Back to the empty edit (column family 0, nothing set).
  void Clear();

  // ---- Setters ----
  // The user comparator's name; written in the first record of every MANIFEST.
  void SetComparatorName(std::string_view name) {
    has_comparator_ = true;
    comparator_.assign(name.data(), name.size());
  }
  // WALs numbered below `num` are no longer needed (their data is in tables).
  void SetLogNumber(uint64_t num) {
    has_log_number_ = true;
    log_number_ = num;
  }
  // Kept for compatibility with LevelDB's recovery; 0 when unused.
  void SetPrevLogNumber(uint64_t num) {
    has_prev_log_number_ = true;
    prev_log_number_ = num;
  }
  // The next file number to hand out (every number below it may be in use).
  void SetNextFile(uint64_t num) {
    has_next_file_number_ = true;
    next_file_number_ = num;
  }
  // Every entry in every table (and every WAL below log_number) has a sequence <= this.
  void SetLastSequence(SequenceNumber seq) {
    has_last_sequence_ = true;
    last_sequence_ = seq;
  }
  void SetColumnFamily(uint32_t id) { column_family_ = id; }
  // This edit creates the column family column_family(), named `name`.
  void AddColumnFamily(std::string_view name) {
    is_column_family_add_ = true;
    column_family_name_.assign(name.data(), name.size());
  }
  // This edit drops the column family column_family().
  void DropColumnFamily() { is_column_family_drop_ = true; }
  // The largest column family id ever used in the DB (ids above it are fresh).
  void SetMaxColumnFamily(uint32_t id) {
    has_max_column_family_ = true;
    max_column_family_ = id;
  }
  // This edit belongs to an atomic group; `remaining` edits of the group follow it (0: the last).
  void MarkAtomicGroup(uint32_t remaining) {
    is_in_atomic_group_ = true;
    remaining_entries_ = remaining;
  }
  // This edit is not part of an atomic group.
  void ClearAtomicGroup() {
    is_in_atomic_group_ = false;
    remaining_entries_ = 0;
  }
  // Where the next compaction of `level` should start (an internal key). A later pointer for the
  // same level in one edit replaces the earlier one.
  void SetCompactPointer(int level, std::string_view internal_key);
  // Adds a file to a level. Only the persistent fields of `f` are kept.
  void AddFile(int level, const FileMetaData& f);
  // Removes file `number` from `level`.
  void DeleteFile(int level, uint64_t number) { deleted_files_.emplace(level, number); }

  // ---- Accessors ----
  bool has_comparator() const { return has_comparator_; }
  const std::string& comparator() const { return comparator_; }
  bool has_log_number() const { return has_log_number_; }
  uint64_t log_number() const { return log_number_; }
  bool has_prev_log_number() const { return has_prev_log_number_; }
  uint64_t prev_log_number() const { return prev_log_number_; }
  bool has_next_file_number() const { return has_next_file_number_; }
  uint64_t next_file_number() const { return next_file_number_; }
  bool has_last_sequence() const { return has_last_sequence_; }
  SequenceNumber last_sequence() const { return last_sequence_; }
  uint32_t column_family() const { return column_family_; }
  bool is_column_family_add() const { return is_column_family_add_; }
  // The added family's name (empty unless is_column_family_add()).
  const std::string& column_family_name() const { return column_family_name_; }
  bool is_column_family_drop() const { return is_column_family_drop_; }
  bool has_max_column_family() const { return has_max_column_family_; }
  uint32_t max_column_family() const { return max_column_family_; }
  bool is_in_atomic_group() const { return is_in_atomic_group_; }
  // How many edits of the atomic group follow this one (0 unless is_in_atomic_group()).
  uint32_t remaining_entries() const { return remaining_entries_; }
  // (level, internal key) in the order they were set, one per level.
  const std::vector<std::pair<int, std::string>>& compact_pointers() const {
    return compact_pointers_;
  }
  // (level, file number), sorted.
  const std::set<std::pair<int, uint64_t>>& deleted_files() const { return deleted_files_; }
  // (level, file) in the order they were added.
  const std::vector<std::pair<int, FileMetaData>>& new_files() const { return new_files_; }

  // ---- Encoding ----
  // Appends the encoding of this edit to *dst.
  void EncodeTo(std::string* dst) const;
  // Replaces this edit with the one encoded in `src`. Never reads outside `src`. On failure
  // returns Corruption saying which field was wrong, and the edit is unspecified.
  [[nodiscard]] Status DecodeFrom(std::string_view src);

  // A multi-line description of every field that is set.
  std::string DebugString() const;

 private:
  // Decodes the field with tag `tag` at the front of *input.
  [[nodiscard]] Status DecodeField(uint32_t tag, std::string_view* input);

  bool has_comparator_ = false;
  bool has_log_number_ = false;
  bool has_prev_log_number_ = false;
  bool has_next_file_number_ = false;
  bool has_last_sequence_ = false;
  std::string comparator_;
  uint64_t log_number_ = 0;
  uint64_t prev_log_number_ = 0;
  uint64_t next_file_number_ = 0;
  SequenceNumber last_sequence_ = 0;
  uint32_t column_family_ = 0;
  bool is_column_family_add_ = false;
  bool is_column_family_drop_ = false;
  bool has_max_column_family_ = false;
  bool is_in_atomic_group_ = false;
  std::string column_family_name_;
  uint32_t max_column_family_ = 0;
  uint32_t remaining_entries_ = 0;
  std::vector<std::pair<int, std::string>> compact_pointers_;
  std::set<std::pair<int, uint64_t>> deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
};

}  // namespace shale

#endif  // SHALE_VERSION_VERSION_EDIT_H_
