// DBImpl::VerifyChecksum (shale/db.h): reads every block of every live table file through the
// table cache's parsed reader (TableReader::VerifyChecksums, which reads straight from the
// file and never fills the block cache), reporting progress by file bytes and files.
//
// The current Version is pinned (a reference taken under mu_) for the whole call, so a
// compaction that replaces the files meanwhile leaves them on disk until it is released; the
// files are read without mu_, and the progress callback never runs under it.
#include <vector>

#include "db/db_impl.h"

namespace shale {

Status DBImpl::VerifyChecksum(const ReadOptions& options) {
  VerifyChecksumOptions verify_options;
  verify_options.read_options = options;
  return VerifyChecksum(verify_options);
}

Status DBImpl::VerifyChecksum(const VerifyChecksumOptions& options) {
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Status s = ProgressReporter::ValidateInterval(
      options.progress_interval_seconds, "VerifyChecksumOptions::progress_interval_seconds");
  if (!s.ok()) return s;
  // Declared before any lock below, so that its final report (from its destructor, on every
  // return) runs after mu_ is released: the callback never runs under the DB mutex.
  ProgressReporter progress("verify", options.progress, options.progress_interval_seconds);

  // One live table file of the pinned Version.
  struct LiveTable {
    uint64_t number;
    uint64_t file_size;
    SequenceNumber global_seqno;
    int level;
  };
  std::vector<LiveTable> tables;
  uint64_t total_bytes = 0;
  // Every live family's Version, referenced so that its files are not deleted until the end.
  std::vector<Version*> pinned;
  {
    MutexLock lock(&mu_);
    for (const auto& [id, cfd] : column_families_) {
      Version* version = versions_->current(id);
      version->Ref();
      pinned.push_back(version);
      for (int level = 0; level < version->num_levels(); level++) {
        for (const FileMetaData* f : version->files(level)) {
          tables.push_back({f->number, f->file_size, f->global_seqno, level});
          total_bytes += f->file_size;
        }
      }
    }
  }
  progress.SetTotals(total_bytes, tables.size());
  for (const LiveTable& t : tables) {
    // Close stops the call at the next file instead of waiting for all of them.
    if (stop_compactions_.load(std::memory_order_relaxed)) {
      s = Status::ShutdownInProgress("VerifyChecksum: the DB is closing");
      break;
    }
    std::shared_ptr<const CachedTable> table;
    s = table_cache_->Find(t.number, t.file_size, &table, t.level, t.global_seqno);
    if (s.ok()) s = table->reader->VerifyChecksums();
    if (!s.ok()) break;
    progress.Add(t.file_size, 1);
  }
  {
    MutexLock lock(&mu_);
    for (Version* version : pinned) version->Unref();
  }
  // The Version may have been the last to hold files that compactions replaced meanwhile.
  DeleteObsoleteFiles();
  if (!s.ok()) info_log_->Log("VerifyChecksum: %s", s.ToString().c_str());
  return s;
}

}  // namespace shale
