// CompactionJob: runs one merge Compaction (compaction.h): reads the inputs through one merging
// iterator, keeps what CompactionIterator keeps, and writes new table files for the output
// level, cut at the compaction's target file size and wherever the output would overlap too
// many grandparent bytes (so a later compaction of it stays small). A user key is never split
// between two output files.
//
// Subcompactions: with max_subcompactions > 1 the key span is split into that many ranges of
// about equal input bytes (split points sampled from the input tables' indexes) and the ranges
// run in parallel threads, each with its own iterator and output files; ranges do not overlap,
// so their outputs together form one sorted run. At most Options::kMaxSubcompactions ranges
// (threads, the caller's included) run, whatever max_subcompactions asks for.
//
// Range deletions: the inputs' tombstones are fragmented once; each output file carries the
// fragments of its own key interval (from its first key, or its subcompaction's start, up to the
// next file's first key, or its subcompaction's end), clipped to that interval, so output files
// never overlap. A tombstone older than every snapshot is dropped at the bottommost level, where
// it can hide nothing outside the compaction.
//
// Stopping: the job checks `shutting_down` between entries (every few thousand) and at every
// output-file boundary; once set, it stops, deletes what it wrote and returns
// ShutdownInProgress. On any error the output files written so far are deleted.
//
// Durability: each output is synced and closed, and the directory synced once at the end, so
// the caller may name the outputs in a MANIFEST edit once Run returns OK.
//
// Thread-safety: Run is called once, without the DB mutex; the Compaction must not change
// meanwhile. new_file_number must be thread-safe (subcompactions call it concurrently).
#ifndef SHALE_COMPACTION_COMPACTION_JOB_H_
#define SHALE_COMPACTION_COMPACTION_JOB_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cache/table_cache.h"
#include "compaction/compaction.h"
#include "shale/compaction_filter.h"
#include "shale/file_system.h"
#include "shale/merge_operator.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "util/progress_reporter.h"
#include "version/file_metadata.h"

namespace shale {

struct CompactionJobContext {
  std::string dbname;
  // The family compacted, recorded in each output's properties (empty name: none).
  uint32_t column_family_id = 0;
  std::string column_family_name;
  FileSystem* fs = nullptr;
  TableCache* table_cache = nullptr;
  TableOptions table_options;
  // Live snapshots, ascending.
  std::vector<SequenceNumber> snapshots;
  // Combines merge operands (may be null).
  const MergeOperator* merge_operator = nullptr;
  // The family's compaction filter (shale/compaction_filter.h; may be null; borrowed, used by
  // every subcompaction at once). When null and compaction_filter_factory is set, each
  // subcompaction makes its own filter with filter_context (called without the DB mutex).
  const CompactionFilter* compaction_filter = nullptr;
  std::shared_ptr<CompactionFilterFactory> compaction_filter_factory;
  CompactionFilter::Context filter_context;
  // A fresh file number for an output, registered with the DB so the file is not mistaken for
  // an obsolete one. Thread-safe.
  std::function<uint64_t()> new_file_number;
  // Set when the DB is closing.
  const std::atomic<bool>* shutting_down = nullptr;
  // Counts the input entries read, and their share of the input bytes (may be null: a manual
  // compaction with a progress callback sets it). Thread-safe.
  ProgressReporter* progress = nullptr;
};

struct CompactionJobStats {
  uint64_t bytes_read = 0;       // input file bytes
  uint64_t bytes_written = 0;    // output file bytes
  uint64_t entries_read = 0;
  uint64_t entries_dropped = 0;
  uint64_t filter_removed = 0;  // values the compaction filter removed
  uint64_t filter_changed = 0;  // values the compaction filter changed
  uint64_t micros = 0;
  int subcompactions = 1;
};

class CompactionJob {
 public:
  // Borrows `c`, which must outlive the job.
  CompactionJob(const Compaction* c, CompactionJobContext context);

  // Runs the compaction (see the header comment).
  [[nodiscard]] Status Run();

  // The output files, in key order. Valid after Run returned OK.
  const std::vector<FileMetaData>& outputs() const { return outputs_; }
  const CompactionJobStats& stats() const { return stats_; }

 private:
  struct Subcompaction;
  class OutputWriter;

  // Split points (user keys) for `n` ranges of about equal input bytes into *points; fewer
  // when the inputs do not spread enough. An input table that cannot be opened, or whose index
  // cannot be read, fails the compaction here (a read error is never skipped).
  [[nodiscard]] Status SplitPoints(size_t n, std::vector<std::string>* points) const;
  [[nodiscard]] Status BuildTombstones();
  std::unique_ptr<InternalIterator> NewInputIterator() const;
  void RunSubcompaction(Subcompaction* sub) const;
  void DeleteOutputs(const std::vector<FileMetaData>& files) const;

  const Compaction* const c_;
  const CompactionJobContext ctx_;
  std::unique_ptr<RangeTombstones> tombstones_;
  std::vector<FileMetaData> outputs_;
  CompactionJobStats stats_;
  // The inputs' file bytes per entry, for ctx_.progress (set by Run when it is not null).
  double bytes_per_entry_ = 0;
};

}  // namespace shale

#endif  // SHALE_COMPACTION_COMPACTION_JOB_H_
