// BulkLoader: loads key-value pairs given in any order into a DB as sorted table files,
// without the write path (no WAL, no memtable, no compaction): it sorts the pairs in runs
// bounded by a memory budget (spilling sorted runs to a temporary directory when the budget
// fills), merges the runs, writes table files cut at the target file size with several
// threads (each over its own range of keys), and ingests them all with one
// DB::IngestExternalFile(move_files = true). Into an empty DB the files land in the bottom
// level, so the DB is fully compacted when Finish returns.
//
//   std::unique_ptr<shale::BulkLoader> loader;
//   shale::Status s = shale::BulkLoader::Open(db, shale::BulkLoaderOptions(), &loader);
//   s = loader->Add("key2", "v");  s = loader->Add("key1", "v");  s = loader->Add("key2", "w");
//   shale::BulkLoadResult result;
//   s = loader->Finish(&result);  // key1 -> v, key2 -> w
//
// Semantics:
// - Keys come in any order; when a key is added more than once, the last Add wins and the
//   earlier ones are dropped (counted in BulkLoadResult::duplicates_dropped).
// - Nothing is visible in the DB before Finish; Finish ingests everything or nothing, by the
//   rules of DB::IngestExternalFile: the loaded keys overwrite the DB's values of the same
//   keys (they get a sequence number above every existing write when they overlap the DB).
// - If all pairs fit in the memory budget, nothing is spilled.
// - Errors: a clear Status naming what failed. Errors are sticky: after the first failure every
//   later call returns it. The loader's temporary files are removed on failure, by Finish, and
//   by the destructor (which abandons an unfinished load). Files that a crashed process left
//   in "<db>/bulkload.tmp" are removed by the next DB::Open, the next load and DestroyDB; in a
//   temp_dir of the caller's choosing (which other processes may share) a load removes only
//   the leftovers named with its own process id.
//
// Ownership: the loader borrows the DB, which must stay open until Finish returns or the
// loader is destroyed.
// Thread-safety: one thread at a time calls a loader's methods; the loader runs its own
// background threads (a thread that writes the spilled runs while pairs are added, `threads`
// merge threads in Finish). Other threads may use the DB meanwhile.
#ifndef SHALE_BULK_LOADER_H_
#define SHALE_BULK_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/db.h"
#include "shale/export.h"
#include "shale/options.h"
#include "shale/progress.h"
#include "shale/status.h"

namespace shale {

struct SHALE_EXPORT BulkLoaderOptions {
  // Bytes of memory for the sort buffers: two buffers of half this size each, one filled (and
  // sorted) by Add while the other is written to a run file by a background thread once the
  // pairs no longer fit in memory. An entry takes its key
  // and value plus about 34 bytes. Must be at least 64 KiB. Default: 512 MiB.
  // Finish's merge reads the spilled runs through buffers that also fit in this budget
  // (beside the sort buffers, which it still holds): so the load takes about twice this.
  uint64_t memory_budget = 512ull << 20;

  // File descriptors Finish's merge may hold open at once, over all its threads: each merge
  // reads some spilled runs and writes one file. When more runs were spilled than fit in the
  // budget (and in the memory budget, at a read buffer of at least 16 KiB each), Finish
  // merges them in passes: groups of runs into longer runs, then those into table files.
  // 0: automatic: the process's RLIMIT_NOFILE soft limit, less the descriptors open when
  // Finish starts, less what the DB's table cache may open (its max_open_files, but at most
  // half the RLIMIT_NOFILE soft limit, 4096 when that is unlimited; with -1 that half), less
  // a reserve of 32. Otherwise at least 3. Default: 0.
  int max_open_files = 0;

  // Threads that merge the runs and write table files in Finish, each over its own range of
  // keys. 0: the DB's max_background_jobs, at least 2. Default: 0.
  int threads = 0;

  // The column family the pairs are loaded into (a handle of the DB given to Open, which must
  // outlive the loader); null: the default family. The family's options (comparator, table
  // format, compression, target file size) shape the table files.
  ColumnFamilyHandle* column_family = nullptr;

  // Directory for the spilled runs and for the table files until they are ingested; created if
  // missing, and removed at the end if the loader created it and it is empty then. It should be
  // on the DB's file system, where ingestion links the files instead of copying them.
  // Default (empty): "<db>/bulkload.tmp".
  std::string temp_dir;

  // Table files are cut once they reach this size in bytes. 0: the DB's
  // target_file_size_base. Default: 0.
  uint64_t target_file_size = 0;

  // Compression of the table files' data blocks. kDisableCompressionOption: the DB's (its
  // bottommost_compression if set, else its compression), at the DB's compression_level.
  // Default: kDisableCompressionOption.
  CompressionType compression = kDisableCompressionOption;

  // Called with Finish's progress (shale/progress.h): operation "bulk_load", stages
  // "merge_runs" (merging spilled runs into longer ones, when they do not fit in one merge),
  // "write_tables" and "ingest"; bytes are the key and value bytes merged, over all the passes
  // (the total counts every pass the merge plan needs), entries the entries merged. Empty: no
  // reports. Default: empty.
  ProgressCallback progress;
  // At most one report per this many seconds (0: at every counted step). Must be >= 0.
  // Default: 1.
  double progress_interval_seconds = 1.0;
};

// What a load did and where its time went (wall-clock seconds).
struct SHALE_EXPORT BulkLoadResult {
  uint64_t entries_added = 0;       // Add calls that succeeded
  uint64_t entries_loaded = 0;      // distinct keys written to table files
  uint64_t duplicates_dropped = 0;  // entries_added - entries_loaded
  uint64_t runs_spilled = 0;        // sorted runs written to the temporary directory
  uint64_t spilled_bytes = 0;
  uint64_t files = 0;               // table files ingested
  uint64_t file_bytes = 0;
  // Finish's merge (see BulkLoaderOptions::max_open_files): its threads, the most run files
  // one merge read at once, the passes that merged runs into longer runs before the final
  // one, and the most bytes of read and write buffers its merges held at once.
  uint64_t merge_threads = 0;
  uint64_t merge_fan_in = 0;
  uint64_t merge_passes = 0;
  uint64_t merge_buffer_bytes = 0;

  double add_seconds = 0;    // from Open to the start of Finish (the caller's Add loop)
  double stall_seconds = 0;  // part of add_seconds that Add waited for the spill thread
  double sort_seconds = 0;   // sorting the buffers (in Add and Finish)
  double spill_seconds = 0;  // writing the spilled runs (on the spill thread)
  double merge_seconds = 0;  // Finish: merging the runs and writing the table files
  double ingest_seconds = 0; // Finish: DB::IngestExternalFile
  double finish_seconds = 0; // the whole of Finish
};

class SHALE_EXPORT BulkLoader {
 public:
  // Makes a loader into `db`: resolves the options against the DB's (InvalidArgument naming a
  // bad one) and creates the temporary directory (its error if that fails).
  static Status Open(DB* db, const BulkLoaderOptions& options,
                     std::unique_ptr<BulkLoader>* loader);

  // Abandons an unfinished load: waits for the spill thread and removes the temporary files.
  ~BulkLoader();

  BulkLoader(const BulkLoader&) = delete;
  BulkLoader& operator=(const BulkLoader&) = delete;

  // Adds key -> value (copied). InvalidArgument after Finish, when the key is over kMaxKeySize
  // or the value over kMaxValueSize (shale/limits.h; the load goes on without the entry), or
  // when the entry alone is larger than half the memory budget; otherwise an error only from
  // spilling a full buffer.
  Status Add(std::string_view key, std::string_view value);

  // Sorts what is buffered, merges it with the spilled runs, writes the table files, ingests
  // them into the DB and removes the temporary files. With no entries added, ingests nothing
  // and returns OK. Fills *result (if not null) on success. A second call returns
  // InvalidArgument.
  Status Finish(BulkLoadResult* result = nullptr);

 private:
  struct Rep;
  explicit BulkLoader(std::unique_ptr<Rep> rep);

  std::unique_ptr<Rep> rep_;
};

}  // namespace shale

#endif  // SHALE_BULK_LOADER_H_
