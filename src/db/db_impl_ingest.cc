// DBImpl: IngestExternalFile. The steps, and what makes the call all-or-nothing:
//   1. Inspect every file (external_file.h): format, comparator, sequence numbers, key order;
//      fail before anything changes.
//   2. Bring each file into the DB directory under a new file number (kept in
//      pending_outputs_, so no obsolete-file sweep removes it): a hard link when move_files
//      asks and the file system allows (then the linked file is synced: its writer may not
//      have), else a synced copy; then sync the directory.
//   3. Take the front of the write queue (as Flush does), so no write runs until the end.
//      Flush the memtables first if they hold keys in a file's range, and under universal
//      compaction flush every memtable before a file enters L0 (FlushForIngestionLocked says
//      why); fail instead when allow_blocking_flush is false.
//   4. Under mu_: pick each file's level and sequence number (below), then one MANIFEST edit
//      adds every file. The edit is the commit point: before it the DB is unchanged and the
//      files in the directory are unreferenced (removed here, or by the next sweep after a
//      crash); after it the DB holds every file. When the MANIFEST write fails, the outcome
//      is unknown until the next Open (the record may be whole on disk): the DB goes
//      read-only (a background error) and keeps the files. The files' sequence number is
//      published (LastSequence) only with the SuperVersion that holds them, so a snapshot
//      taken while the edit is written reads the same before and after it lands.
//   5. With move_files, unlink the originals.
//
// Placement: a file goes to the lowest level whose files, and the files of every level above
// it, overlap none of its keys (and no pending compaction output there either); when L0
// overlaps, to L0. A file that overlaps nothing in the DB keeps sequence 0 (older than
// everything, which is what it then is) unless a snapshot exists and snapshot_consistency asks
// that earlier snapshots not see it; otherwise it gets the next sequence number, which needs
// allow_global_seqno. Files of one call that overlap one another each get their own sequence
// number, in the order given (a later file's keys win), and all go to L0. ingest_behind puts
// every file in the last level (reserved by Options::allow_ingest_behind) at sequence 0,
// below all existing data.
#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "db/db_impl.h"
#include "compaction/reserved_level.h"
#include "db/external_file.h"
#include "util/coding.h"
#include "util/kill_point.h"

namespace shale {

namespace {

Status CheckIngestOptions(const IngestExternalFileOptions& o, const Options& db_options,
                          const std::vector<std::string>& files) {
  if (files.empty()) return Status::InvalidArgument("IngestExternalFile: no files given");
  std::vector<std::string> sorted = files;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return Status::InvalidArgument("IngestExternalFile: a file is named twice");
  }
  if (o.write_global_seqno) {
    return Status::InvalidArgument(
        "IngestExternalFile: write_global_seqno=true is not supported: ShaleDB records an "
        "ingested file's sequence number in the MANIFEST only");
  }
  if (o.ingest_behind && !db_options.allow_ingest_behind) {
    return Status::InvalidArgument(
        "IngestExternalFile: ingest_behind needs Options::allow_ingest_behind");
  }
  if (o.ingest_behind && db_options.compaction_style == kCompactionStyleFIFO) {
    return Status::InvalidArgument(
        "IngestExternalFile: ingest_behind is not supported with FIFO compaction");
  }
  return Status::OK();
}

bool RangesOverlap(const Comparator* ucmp, const ExternalFileInfo& a, const ExternalFileInfo& b) {
  return ucmp->Compare(a.smallest_user_key, b.largest_user_key) <= 0 &&
         ucmp->Compare(b.smallest_user_key, a.largest_user_key) <= 0;
}

// True when the memtable holds a key, or a range deletion, that touches [smallest, largest].
bool MemTableOverlaps(const MemTable* mem, const Comparator* ucmp, std::string_view smallest,
                      std::string_view largest) {
  if (mem->num_entries() == 0) return false;
  std::unique_ptr<InternalIterator> it = mem->NewIterator();
  it->Seek(MakeInternalKey(smallest, kMaxSequenceNumber, kValueTypeForSeek));
  if (it->Valid() && ucmp->Compare(ExtractUserKey(it->key()), largest) <= 0) return true;
  if (mem->num_range_deletes() == 0) return false;
  std::unique_ptr<InternalIterator> dels = mem->NewRangeTombstoneIterator();
  for (dels->SeekToFirst(); dels->Valid(); dels->Next()) {
    // [start, end) touches [smallest, largest] when start <= largest and end > smallest.
    if (ucmp->Compare(ExtractUserKey(dels->key()), largest) <= 0 &&
        ucmp->Compare(dels->value(), smallest) > 0) {
      return true;
    }
  }
  return false;
}

// Rewrites a boundary key stored at sequence 0 to `seqno` (a range deletion's end, at
// kMaxSequenceNumber, stays).
void SetBoundarySequence(std::string* key, SequenceNumber seqno) {
  if (ExtractSequence(*key) != 0) return;
  const ValueType type = ExtractValueType(*key);
  key->resize(key->size() - kInternalKeyTrailerSize);
  std::string trailer;
  PutFixed64(&trailer, PackSequenceAndType(seqno, type));
  key->append(trailer);
}

}  // namespace

Status DBImpl::IngestExternalFile(const std::vector<std::string>& paths,
                                  const IngestExternalFileOptions& options) {
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  Options db_options;
  {
    MutexLock lock(&mu_);
    if (!bg_error_.ok()) return bg_error_;
    db_options = options_;
  }
  Status s = CheckIngestOptions(options, db_options, paths);
  if (!s.ok()) return s;

  // 1. Inspect.
  std::vector<IngestedFile> files(paths.size());
  s = InspectExternalFiles(paths, options, &files);
  if (!s.ok()) return s;

  // 2. Bring the files in.
  s = AddExternalFilesToDir(options, &files);
  if (s.ok()) SHALE_KILL_POINT("ingest.files_in_dir");
  if (s.ok()) {
    // 3 and 4.
    s = InstallExternalFiles(options, &files);
  }
  if (!s.ok()) {
    for (const IngestedFile& f : files) {
      if (f.in_dir && !f.maybe_logged) {
        fs_->DeleteFile(TableFileName(dbname_, f.number)).PermitUncheckedError();
      }
    }
    MutexLock lock(&mu_);
    for (const IngestedFile& f : files) {
      if (!f.maybe_logged) pending_outputs_.erase(f.number);
    }
    if (info_log_) info_log_->Log("ingestion of %zu files failed: %s", files.size(),
                                  s.ToString().c_str());
    return s;
  }

  // 5. The originals of moved files.
  SHALE_KILL_POINT("ingest.manifest_written");
  if (options.move_files) {
    for (const IngestedFile& f : files) {
      Status d = fs_->DeleteFile(f.info.path);
      if (!d.ok() && info_log_) {
        info_log_->Log("ingestion: could not remove the moved file %s: %s", f.info.path.c_str(),
                       d.ToString().c_str());
      }
    }
  }
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::InspectExternalFiles(const std::vector<std::string>& paths,
                                    const IngestExternalFileOptions& options,
                                    std::vector<IngestedFile>* files) {
  // Files are read whole (every key is checked), so inspect up to two at a time.
  const size_t threads = std::min<size_t>(paths.size(), 2);
  std::vector<Status> results(paths.size());
  auto work = [&](size_t first) {
    for (size_t i = first; i < paths.size(); i += threads) {
      results[i] = InspectExternalFile(fs_, icmp_, paths[i],
                                       options.verify_checksums_before_ingest,
                                       &(*files)[i].info);
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; t++) helpers.emplace_back(work, t);
  work(0);
  for (std::thread& t : helpers) t.join();
  for (const Status& r : results) {
    if (!r.ok()) return Status(r.code(), r.subcode(), "IngestExternalFile", r.message());
  }
  for (const IngestedFile& f : *files) {
    if (f.info.has_merge_operands && merge_operator_ == nullptr) {
      return Status::InvalidArgument(absl::StrCat(
          "IngestExternalFile: ", f.info.path,
          " holds merge operands, and the DB has no merge operator (Options::merge_operator)"));
    }
  }
  return Status::OK();
}

Status DBImpl::AddExternalFilesToDir(const IngestExternalFileOptions& options,
                                     std::vector<IngestedFile>* files) {
  {
    MutexLock lock(&mu_);
    for (IngestedFile& f : *files) {
      f.number = versions_->NewFileNumber();
      pending_outputs_.insert(f.number);
    }
  }
  for (IngestedFile& f : *files) {
    const std::string target = TableFileName(dbname_, f.number);
    Status s;
    f.linked = false;
    if (options.move_files) {
      s = fs_->LinkFile(f.info.path, target);
      f.linked = s.ok();
      // Not linkable (another file system, no hard links): copy instead.
    }
    if (f.linked) {
      f.in_dir = true;
      // The link shares data that its writer may never have synced: make it durable before
      // the MANIFEST edit refers to it (a copy is synced as it is written).
      s = SyncExistingFile(fs_, target);
    } else {
      s = CopyFileSynced(fs_, f.info.path, target);
    }
    if (!s.ok()) return Status(s.code(), s.subcode(), "IngestExternalFile", s.message());
    f.in_dir = true;
    uint64_t size = 0;
    s = fs_->GetFileSize(target, &size);
    if (s.ok() && size != f.info.meta.file_size) {
      s = Status::Corruption(absl::StrCat("IngestExternalFile: ", f.info.path,
                                          " changed size while it was ingested"));
    }
    if (!s.ok()) return s;
  }
  return fs_->SyncDir(dbname_);
}

Status DBImpl::InstallExternalFiles(const IngestExternalFileOptions& options,
                                    std::vector<IngestedFile>* files) {
  MutexLock lock(&mu_);
  WriteQueue::Front front(&write_queue_, &mu_);
  Status s = FlushForIngestionLocked(options, *files);
  if (s.ok()) s = PlaceExternalFilesLocked(options, files);
  if (s.ok()) {
    VersionEdit edit;
    SequenceNumber last = versions_->LastSequence();
    bool sequence_zero = false;
    for (IngestedFile& f : *files) {
      FileMetaData meta = f.info.meta;
      meta.number = f.number;
      meta.global_seqno = f.seqno;
      meta.smallest_seqno = meta.largest_seqno = f.seqno;
      SetBoundarySequence(&meta.smallest, f.seqno);
      SetBoundarySequence(&meta.largest, f.seqno);
      edit.AddFile(f.level, meta);
      last = std::max(last, f.seqno);
      sequence_zero = sequence_zero || f.seqno == 0;
    }
    // The files' sequence numbers are allocated before the edit is logged, so the MANIFEST
    // records them (after a restart new writes are numbered above the files), but published
    // only once the SuperVersion holds the files (below): LogAndApply releases mu_, and a
    // snapshot taken meanwhile must read below the files both before and after they land.
    const SequenceNumber allocated = versions_->LastAllocatedSequence();
    if (last > allocated) versions_->AllocateSequences(last - allocated);
    // A file at sequence 0 is visible at every sequence, so no sequence can keep it from a
    // snapshot taken before it lands. When snapshot_consistency asks that earlier snapshots
    // not see the files (and there were none as they were placed), GetSnapshot waits until
    // they are in (ingest_behind files are below everything by definition, and visible to
    // every snapshot).
    const bool hold_snapshots =
        sequence_zero && options.snapshot_consistency && !options.ingest_behind;
    if (hold_snapshots) snapshot_blocking_ingestions_++;
    // LogAndApply releases mu_ while it writes: until the files are in the Version, their
    // ranges are pending outputs, so no compaction or flush picked meanwhile puts an
    // overlapping file into their levels.
    std::vector<uint64_t> range_ids;
    for (const IngestedFile& f : *files) {
      range_ids.push_back(
          AddPendingRangeLocked(f.level, f.info.smallest_user_key, f.info.largest_user_key));
    }
    SHALE_KILL_POINT("ingest.before_manifest");
    s = versions_->LogAndApply(&edit, &mu_);
    for (uint64_t id : range_ids) RemovePendingRangeLocked(id);
    if (!s.ok()) {
      // The edit may have reached the MANIFEST anyway (a failed sync after the write): the
      // files stay, listed as pending outputs until the DB closes; the next Open keeps them
      // if the MANIFEST lists them and deletes them otherwise. Their sequence numbers are
      // used up: no later write may reuse them.
      if (last > versions_->LastSequence()) versions_->SetLastSequence(last);
      for (IngestedFile& f : *files) f.maybe_logged = true;
      RecordBackgroundErrorLocked(s, "ingestion MANIFEST write");
    } else {
      // Readers take the SuperVersion and the last sequence together under mu_: both change
      // here without releasing it.
      SuperVersion* old = InstallSuperVersionLocked();
      if (last > versions_->LastSequence()) versions_->SetLastSequence(last);
      if (old != nullptr) {
        mu_.Unlock();
        UnrefSuperVersion(old);
        mu_.Lock();
      }
      RecalculateWriteStallLocked();
      MaybeScheduleCompactionLocked();
      for (const IngestedFile& f : *files) {
        pending_outputs_.erase(f.number);
        if (info_log_) {
          info_log_->Log("ingested %s as table #%llu at L%d, sequence %llu, %llu bytes",
                         f.info.path.c_str(), static_cast<unsigned long long>(f.number), f.level,
                         static_cast<unsigned long long>(f.seqno),
                         static_cast<unsigned long long>(f.info.meta.file_size));
        }
      }
    }
    if (hold_snapshots && --snapshot_blocking_ingestions_ == 0) ingestion_cv_.SignalAll();
  }
  front.Release();
  return s;
}

Status DBImpl::FlushForIngestionLocked(const IngestExternalFileOptions& options,
                                       const std::vector<IngestedFile>& files) {
  if (!bg_error_.ok()) return bg_error_;
  if (options.ingest_behind) return Status::OK();  // below everything: memtables may overlap
  const bool mem_holds = mems_.mem()->num_entries() > 0;
  if (!mem_holds && mems_.NumImmutable() == 0) return Status::OK();
  const Comparator* ucmp = icmp_.user_comparator();
  bool mem_overlaps = false;
  bool imm_overlaps = false;
  for (const IngestedFile& f : files) {
    const std::string& lo = f.info.smallest_user_key;
    const std::string& hi = f.info.largest_user_key;
    mem_overlaps = mem_overlaps || MemTableOverlaps(mems_.mem(), ucmp, lo, hi);
    for (const MemTableSet::Immutable& m : mems_.immutables()) {
      imm_overlaps = imm_overlaps || MemTableOverlaps(m.mem, ucmp, lo, hi);
    }
  }
  // Universal compaction merges neighbouring L0 files into one L0 file that takes the largest
  // sequence number of its inputs, and L0 is read newest first by that number (a Get stops at
  // the first file holding the key). A file entering L0 at a global sequence number is newer
  // than the writes still in the memtables (on other keys). Merged with an older L0 file, it
  // would lift that file's values above the memtables' flush -- or their replay from the WAL
  // after a crash -- which lands behind the merge: reads would return the older values. So
  // there, every memtable is flushed before a file enters L0 (and whenever a flush is due
  // anyway, since the file may then land in L0 above the flushed data): every later L0 file
  // holds only writes made after the ingestion.
  bool flush_all = false;
  if (options_.compaction_style == kCompactionStyleUniversal) {
    flush_all = mem_overlaps || imm_overlaps;
    std::vector<IngestedFile> trial;
    if (!flush_all) trial = files;
    // A placement that fails now fails again after any flush: nothing to flush for then.
    if (!flush_all && PlaceExternalFilesLocked(options, &trial).ok()) {
      flush_all = std::any_of(trial.begin(), trial.end(), [](const IngestedFile& f) {
        return f.level == 0 && f.seqno != 0;
      });
    }
  }
  if (!mem_overlaps && !imm_overlaps && !flush_all) return Status::OK();
  if (!options.allow_blocking_flush) {
    return Status::InvalidArgument(
        mem_overlaps || imm_overlaps
            ? "IngestExternalFile: the files overlap keys in the memtable, and "
              "allow_blocking_flush is false"
            : "IngestExternalFile: under universal compaction a file going to L0 needs the "
              "memtables flushed first, and allow_blocking_flush is false");
  }
  Status s;
  if (mem_holds && (mem_overlaps || flush_all)) s = MakeRoomForWrite(/*force=*/true);
  if (s.ok()) s = WaitForFlushLocked(mems_.log_number());
  return s;
}

Status DBImpl::PlaceExternalFilesLocked(const IngestExternalFileOptions& options,
                                        std::vector<IngestedFile>* files) {
  const Comparator* ucmp = icmp_.user_comparator();
  Version* v = versions_->current();
  const int n = v->num_levels();
  // Files of this call that overlap one another.
  bool batch_overlaps = false;
  for (size_t i = 0; i < files->size() && !batch_overlaps; i++) {
    for (size_t j = i + 1; j < files->size(); j++) {
      if (RangesOverlap(ucmp, (*files)[i].info, (*files)[j].info)) {
        batch_overlaps = true;
        break;
      }
    }
  }
  const std::vector<PendingOutputRange> pending = PendingRangesLocked();
  auto overlaps_level = [&](int level, const ExternalFileInfo& info) {
    if (v->OverlapInLevel(level, info.smallest_user_key, info.largest_user_key)) return true;
    for (const PendingOutputRange& p : pending) {
      if (p.level == level && ucmp->Compare(info.smallest_user_key, p.largest_user_key) <= 0 &&
          ucmp->Compare(p.smallest_user_key, info.largest_user_key) <= 0) {
        return true;
      }
    }
    return false;
  };

  if (options.ingest_behind) {
    if (batch_overlaps) {
      return Status::InvalidArgument(
          "IngestExternalFile: files ingested behind must not overlap one another");
    }
    for (IngestedFile& f : *files) {
      if (overlaps_level(n - 1, f.info)) {
        return Status::InvalidArgument(absl::StrCat(
            "IngestExternalFile: ", f.info.path,
            " overlaps files already ingested behind in the last level (L", n - 1, ")"));
      }
      f.level = n - 1;
      f.seqno = 0;
    }
    return Status::OK();
  }

  const bool hide_from_snapshots = options.snapshot_consistency && !snapshots_.empty();
  const SequenceNumber next = versions_->LastSequence() + 1;
  const int bottom = LastWritableLevel(options_, n);
  // FIFO keeps every file in L0 and drops the oldest first: ingested data counts as new.
  const bool fifo = options_.compaction_style == kCompactionStyleFIFO;
  const bool lower_levels = !fifo && !batch_overlaps;
  bool need_global = false;
  for (size_t i = 0; i < files->size(); i++) {
    IngestedFile& f = (*files)[i];
    bool overlaps_db = false;
    int level = 0;
    for (int l = 0; l < n; l++) {
      if (overlaps_level(l, f.info)) {
        overlaps_db = true;
        break;
      }
      if (l <= bottom) level = l;
    }
    f.level = lower_levels ? level : 0;
    if (batch_overlaps) {
      f.seqno = next + i;  // in the order given: a later file's keys win
      need_global = true;
    } else if (overlaps_db || hide_from_snapshots || fifo) {
      f.seqno = next;
      need_global = true;
    } else {
      f.seqno = 0;
    }
  }
  if (need_global && !options.allow_global_seqno) {
    return Status::InvalidArgument(
        "IngestExternalFile: the files overlap keys in the DB (or a snapshot must not see "
        "them), so they need a sequence number, and allow_global_seqno is false");
  }
  return Status::OK();
}

}  // namespace shale
