// Compaction: one unit of compaction work as a picker chose it: the input files per level, the
// level the output goes to, and how the output is cut. A CompactionJob runs it; the DB installs
// its result with one VersionEdit (inputs deleted, outputs added).
//
// Kinds:
//  - a merge: the inputs are read through one merging iterator and rewritten into new files of
//    output_level (cut at target_file_size and at grandparent overlap);
//  - a trivial move (IsTrivialMove): the inputs overlap nothing in the output level, so the
//    files change level in the MANIFEST only, no byte is rewritten;
//  - a deletion (deletion_only, FIFO): the inputs are dropped.
//
// Invariants (kept by the pickers, relied on by the job and the install):
//  1. inputs[0].level is the start level; the other input levels follow in increasing order and
//     the last one may be output_level. In every level but L0 the inputs are contiguous files of
//     that level; no input file is being compacted by another compaction.
//  1b. Clean cuts: in every level but L0 the inputs of a level share no user key with the files
//     of that level left out (the file before the first input and the file after the last do
//     not continue its boundary user keys; compaction_picker.h ExpandToCleanCut, RocksDB's
//     ExpandInputsToCleanCut). Otherwise an input's newer entries of a key (a deletion) would be
//     rewritten, or dropped as bottommost, while the key's older entries stay behind in the
//     neighbour, and a read could find those again. Outputs are cut only between user keys
//     (compaction_job.cc), so a level's boundary keys are split only by a range deletion's end
//     (exclusive) or by files written before this rule.
//  2. Every file in a level <= output_level that overlaps the inputs' user-key span and is older
//     than the inputs is itself an input, so the output, placed at output_level, sits below
//     everything newer and above everything older.
//  3. `bottommost`: no file outside the inputs holds an older version of any key in the span, so
//     deletions visible to every reader may be dropped with what they hide. Never set with
//     Options::allow_ingest_behind: older versions may be ingested behind later
//     (compaction/reserved_level.h).
//
// Lifetime and thread-safety: created by a picker under the DB mutex, which marks the inputs
// being_compacted (MarkFilesBeingCompacted) and references input_version. The job reads the
// Compaction without a lock (it is not changed while the job runs). ReleaseInputs (under the DB
// mutex) clears the marks and drops the Version reference; the destructor requires it was done.
#ifndef SHALE_COMPACTION_COMPACTION_H_
#define SHALE_COMPACTION_COMPACTION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/compression_type.h"
#include "version/file_metadata.h"
#include "version/version.h"
#include "version/version_edit.h"

namespace shale {

enum class CompactionReason {
  kL0FileCount,          // L0 reached level0_file_num_compaction_trigger (or its byte target)
  kLevelMaxBytes,        // a level outgrew its target size
  kUniversalSizeAmp,     // universal: space amplification over max_size_amplification_percent
  kUniversalSizeRatio,   // universal: runs of similar size
  kUniversalRunCount,    // universal: too many sorted runs
  kFifoMaxSize,          // FIFO: the tables outgrew max_table_files_size
  kFifoTtl,              // FIFO: tables older than ttl
  kTtl,                  // level: a file above the bottom older than ttl moves down
  kManual,               // DB::CompactRange
};
const char* CompactionReasonName(CompactionReason reason);

struct CompactionInputLevel {
  int level = 0;
  std::vector<FileMetaData*> files;  // in the level's order
};

// A key range that a running flush or compaction will add to `level` but that is not in the
// current Version yet. Pickers must not send another output into an overlapping range of the
// same level, and a flush must land above it (DESIGN.md "Compaction").
struct PendingOutputRange {
  int level = 0;
  std::string smallest_user_key;
  std::string largest_user_key;
};

class Compaction {
 public:
  // Takes a reference to `input_version`. REQUIRES: the DB mutex.
  Compaction(Version* input_version, const InternalKeyComparator* icmp, CompactionReason reason,
             std::vector<CompactionInputLevel> inputs, int output_level);
  // REQUIRES: ReleaseInputs was called.
  ~Compaction();

  Compaction(const Compaction&) = delete;
  Compaction& operator=(const Compaction&) = delete;

  // ---- What the picker decided (set before the job starts, then constant).
  CompactionReason reason() const { return reason_; }
  int start_level() const { return inputs_.front().level; }
  int output_level() const { return output_level_; }
  const std::vector<CompactionInputLevel>& inputs() const { return inputs_; }
  Version* input_version() const { return input_version_; }
  const InternalKeyComparator& icmp() const { return *icmp_; }

  // Output files are cut once this large (bytes; 0: never).
  uint64_t target_file_size = 0;
  // Files of output_level + 1, to cut outputs that would overlap too many of them.
  std::vector<FileMetaData*> grandparents;
  uint64_t max_grandparent_overlap_bytes = 0;  // 0: no limit
  CompressionType compression = kNoCompression;
  int compression_level = 1;
  bool bottommost = false;
  bool deletion_only = false;
  uint32_t max_subcompactions = 1;

  // ---- Derived from the inputs.
  // The user-key span of all inputs.
  std::string_view smallest_user_key() const { return smallest_user_key_; }
  std::string_view largest_user_key() const { return largest_user_key_; }
  size_t NumInputFiles() const;
  uint64_t InputBytes() const;
  // Bytes of the inputs that come from `level`.
  uint64_t InputBytesAt(int level) const;
  // The inputs move to output_level unchanged: one input level, not the output level, and
  // (for L0) no two of its files share a user key (compared by user key: two L0 files holding
  // different versions of one key do not move side by side into a sorted level).
  bool IsTrivialMove() const;
  // "3@0 + 2@1 -> L1" for logs.
  std::string InputSummary() const;

  // Adds the deletion of every input file to `edit`.
  void AddInputDeletions(VersionEdit* edit) const;

  // Sets or clears being_compacted on every input. REQUIRES: the DB mutex.
  void MarkFilesBeingCompacted(bool value);
  // Clears the marks and drops the Version reference. REQUIRES: the DB mutex.
  void ReleaseInputs();

 private:
  const CompactionReason reason_;
  const InternalKeyComparator* const icmp_;
  const std::vector<CompactionInputLevel> inputs_;
  const int output_level_;
  Version* input_version_;
  std::string smallest_user_key_;
  std::string largest_user_key_;
};

}  // namespace shale

#endif  // SHALE_COMPACTION_COMPACTION_H_
