// Progress of a long operation, reported to a callback the caller gives in the operation's
// options: BulkLoaderOptions (Finish), CompactRangeOptions (DB::CompactRange),
// IngestExternalFileOptions (bringing the files in), CheckpointOptions and
// VerifyChecksumOptions (DB::VerifyChecksum). A load or a manual
// compaction of a large DB runs for minutes to hours; the callback says how far it has got,
// how fast it goes and when it should end.
//
//   shale::CompactRangeOptions options;
//   options.progress = [](const shale::Progress& p) {
//     std::fprintf(stderr, "%s: %.0f%%, %.0f s left\n", p.operation, 100 * p.fraction(),
//                  p.eta_seconds);
//   };
//   options.progress_interval_seconds = 5;
//   db->CompactRange(options, nullptr, nullptr);
//
// When the callback is called: at most once per progress_interval_seconds while the work goes
// on (0: at every step the operation counts, some thousands of entries or a file, for tests;
// 1e9 seconds or more, infinity included: only the final report), and once more at the end
// with finished = true, whether the operation succeeded or failed once it had started. A call
// refused before it starts (an invalid argument, a closed DB, a background error, a loader
// that already failed) sends no report. The callback is called on one of the operation's
// threads, never twice at once for one operation; it must return quickly, must not call back
// into the DB or loader doing the work (a deadlock or a slowdown otherwise) and must not
// throw (a callback that throws is not called again; the exception is dropped). The
// operation's result does not depend on it.
#ifndef SHALE_PROGRESS_H_
#define SHALE_PROGRESS_H_

#include <cstdint>
#include <functional>

#include "shale/export.h"

namespace shale {

struct SHALE_EXPORT Progress {
  // What runs: "bulk_load", "compact_range", "ingest", "checkpoint" or "verify". Static
  // strings.
  const char* operation = "";
  // The step it is in, where the operation has several ("merge_runs", "write_tables" and
  // "ingest" for a bulk load; "copy" or "link" for an ingestion and a checkpoint); ""
  // otherwise. Static strings.
  const char* stage = "";
  // Work done and the total expected, in bytes (of input: table files a compaction reads, key
  // and value bytes a bulk load merges, file bytes an ingestion or a checkpoint copies or
  // links, live table file bytes a verification reads) and in entries (files, for an
  // ingestion, a checkpoint and a verification). A total is an estimate
  // made at the start (a compaction drops overwritten entries, a load drops duplicates):
  // *_done may end below it; a total the work outgrows is reported as the done count, so
  // *_done never exceeds *_total. 0 when not known.
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
  uint64_t entries_done = 0;
  uint64_t entries_total = 0;
  // Wall-clock seconds since the operation started.
  double elapsed_seconds = 0;
  // bytes_done / elapsed_seconds.
  double bytes_per_second = 0;
  // Estimated seconds left at the rate so far; -1 when not known yet (nothing done, or no
  // total). 0 in the final report.
  double eta_seconds = -1;
  // True in the last report of the operation (sent once, after the work ended).
  bool finished = false;

  // bytes_done / bytes_total (entries when bytes are not counted), clamped to [0, 1]; 1 once
  // finished; 0 when no total is known.
  double fraction() const;
};

// See the header comment for when and where it is called.
using ProgressCallback = std::function<void(const Progress&)>;

}  // namespace shale

#endif  // SHALE_PROGRESS_H_
