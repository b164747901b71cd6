// BulkLoader::Rep: the state of one bulk load (include/shale/bulk_loader.h), shared by
// bulk_loader.cc (Open, Add, spilling) and bulk_finish.cc (Finish: merge, write, ingest).
//
// The pipeline while pairs are added: `filling` takes Add's pairs. When it is full, Add sorts
// it (meanwhile the spill thread is still writing the previous buffer) and it becomes `held`.
// The first time, held is only kept in memory: if the rest of the load fits beside it, nothing
// is ever spilled. From the second full buffer on, Add waits for the spill thread to have
// written held, swaps the two buffers and hands the full, sorted one to the spill thread while
// it fills the other. Memory: two buffers of memory_budget / 2. (Sorting on Add's thread and
// writing on the spill thread balances the two cores: writing a run costs about three times
// as much as sorting it.)
//
// Run ages: the merge lets the newest entry of a key win, so the runs are ordered by when
// their entries were added: the run files in spill order, then held (when still in memory),
// then filling.
//
// Thread-safety: the loader's caller thread owns everything except the fields under `mu`,
// which the spill thread writes. A buffer handed to the spill thread is not touched by the
// caller until WaitForSpill() returns.
#ifndef SHALE_BULK_LOADER_REP_H_
#define SHALE_BULK_LOADER_REP_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "base/internal_key.h"
#include "bulk/run_file.h"
#include "bulk/sort_buffer.h"
#include "bulk/temp_files.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "util/mutex.h"
#include "util/progress_reporter.h"
#include "util/thread_pool.h"

namespace shale {

namespace bulk {

// A loader's settings, resolved against the DB's options.
struct LoaderSettings {
  // The family the files are ingested into (BulkLoaderOptions::column_family, or the default
  // family's handle).
  ColumnFamilyHandle* column_family = nullptr;
  std::shared_ptr<FileSystem> fs;
  const Comparator* comparator = nullptr;
  TableOptions table_options;
  CompressionType compression = kNoCompression;
  int compression_level = 0;
  uint64_t target_file_size = 0;
  int threads = 1;
  size_t buffer_capacity = 0;  // bytes of each of the two sort buffers
  uint64_t memory_budget = 0;  // BulkLoaderOptions::memory_budget: also Finish's merge buffers
  // BulkLoaderOptions::max_open_files (0: automatic, from the free descriptors when Finish
  // starts, less db_max_open_files).
  uint64_t max_open_files = 0;
  // What the DB's table cache may hold open: its max_open_files, at most half of
  // RLIMIT_NOFILE (with -1 that half; see TableCacheDescriptors in bulk_loader.cc).
  uint64_t db_max_open_files = 0;
  std::string file_prefix;     // "<temp dir>/<pid>-<id>-": every file's path starts so
  // "<pid>-<id>-", registered (fs/bulk_temp_dir.h) from Open until ~Rep.
  std::string file_name_prefix;
  // BulkLoaderOptions::progress and progress_interval_seconds.
  ProgressCallback progress;
  double progress_interval_seconds = 1.0;
};

}  // namespace bulk

using Clock = std::chrono::steady_clock;

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct BulkLoader::Rep {
  Rep(DB* db, bulk::LoaderSettings settings, bool created_dir, std::string temp_dir);
  // Waits for the spill thread, then removes the temporary files.
  ~Rep();

  // ---- bulk_loader.cc
  // Makes room when `filling` is full (see the header comment). REQUIRES: status.ok().
  Status Rotate();
  // Sorts `filling` on the caller's thread, adding the time to sort_seconds.
  void SortFilling();
  // Hands `held` (sorted) to the spill thread to be written to a run file.
  void ScheduleSpill();
  // Waits until the spill thread is idle; its error, if it had one. Adds the wait to `stall`.
  Status WaitForSpill(double* stall);
  // Runs on the spill thread.
  void Spill(const bulk::SortBuffer* buffer);
  std::string NextRunPath() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Records a failure (the first one sticks) and removes the temporary files.
  Status Fail(Status s);
  // Removes the temporary files (errors ignored: the load is over, and what is left goes with
  // the next load, Open or DestroyDB) and ends the registration of the files' prefix
  // (fs/bulk_temp_dir.h): the load makes no more files. REQUIRES: the spill thread is idle.
  void RemoveTempFiles();

  // ---- bulk_finish.cc
  Status Finish(BulkLoadResult* result);
  // IngestExternalFile(files, move_files) when there are files; its error names the loader.
  Status Ingest(const std::vector<std::string>& files);

  DB* const db;
  const bulk::LoaderSettings settings;
  const InternalKeyComparator icmp;
  bulk::TempFiles temp_files;

  std::unique_ptr<bulk::SortBuffer> filling;
  std::unique_ptr<bulk::SortBuffer> held;  // null until the first buffer fills
  bool held_spilled = false;  // held's entries are in a run file (or being written to one)

  Status status;  // sticky: the first error
  bool registered = true;  // the files' prefix is registered (Open did it)
  bool finished = false;
  uint64_t entries_added = 0;
  uint64_t bytes_added = 0;  // key and value bytes of the entries added
  Clock::time_point opened_at;
  double stall_seconds = 0;
  double sort_seconds = 0;

  // Written by the spill thread.
  Mutex mu;
  std::vector<bulk::RunFileInfo> runs ABSL_GUARDED_BY(mu);  // in spill order
  Status spill_status ABSL_GUARDED_BY(mu);
  int runs_started ABSL_GUARDED_BY(mu) = 0;  // numbers the run files
  double spill_seconds ABSL_GUARDED_BY(mu) = 0;

  // Declared last: destroyed (running its queued jobs and joining) before the buffers and
  // fields that the jobs use.
  ThreadPool spill_thread;
};

}  // namespace shale

#endif  // SHALE_BULK_LOADER_REP_H_
