// IngestionJob (see ingestion_job.h): the steps of IngestExternalFile that need no DB internals.
#include "db/ingestion_job.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "util/coding.h"

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
bool MemTableOverlaps(const MemTable& mem, const Comparator* ucmp, std::string_view smallest,
                      std::string_view largest) {
  if (mem.num_entries() == 0) return false;
  std::unique_ptr<InternalIterator> it = mem.NewIterator();
  it->Seek(MakeInternalKey(smallest, kMaxSequenceNumber, kValueTypeForSeek));
  if (it->Valid() && ucmp->Compare(ExtractUserKey(it->key()), largest) <= 0) return true;
  if (mem.num_range_deletes() == 0) return false;
  std::unique_ptr<InternalIterator> dels = mem.NewRangeTombstoneIterator();
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

// Chooses each file's level and sequence number (see ingestion_job.h) in `db`.
Status PlaceFiles(const IngestExternalFileOptions& options, const Comparator* ucmp,
                  const IngestionJob::DbView& db, std::vector<IngestionJob::File>* files) {
  const Version* v = db.version;
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
  auto overlaps_level = [&](int level, const ExternalFileInfo& info) {
    if (v->OverlapInLevel(level, info.smallest_user_key, info.largest_user_key)) return true;
    for (const PendingOutputRange& p : db.pending_ranges) {
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
    for (IngestionJob::File& f : *files) {
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

  const bool hide_from_snapshots = options.snapshot_consistency && db.has_snapshots;
  const SequenceNumber next = db.last_sequence + 1;
  const int bottom = db.last_writable_level;
  // FIFO keeps every file in L0 and drops the oldest first: ingested data counts as new.
  const bool fifo = db.compaction_style == kCompactionStyleFIFO;
  const bool lower_levels = !fifo && !batch_overlaps;
  bool need_global = false;
  for (size_t i = 0; i < files->size(); i++) {
    IngestionJob::File& f = (*files)[i];
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

}  // namespace

IngestionJob::IngestionJob(IngestionJobContext context, std::vector<std::string> paths,
                           const IngestExternalFileOptions& options)
    : ctx_(std::move(context)),
      paths_(std::move(paths)),
      options_(options),
      progress_("ingest", options.progress, options.progress_interval_seconds) {}

Status IngestionJob::Prepare(const Options& db_options) {
  Status s = ProgressReporter::ValidateInterval(
      options_.progress_interval_seconds, "IngestExternalFileOptions::progress_interval_seconds");
  if (s.ok()) s = CheckIngestOptions(options_, db_options, paths_);
  if (!s.ok()) return s;
  files_.assign(paths_.size(), File());
  return InspectFiles();
}

Status IngestionJob::InspectFiles() {
  // Files are read whole (every key is checked), so inspect up to two at a time.
  const size_t threads = std::min<size_t>(paths_.size(), 2);
  std::vector<Status> results(paths_.size());
  auto work = [&](size_t first) {
    for (size_t i = first; i < paths_.size(); i += threads) {
      results[i] = InspectExternalFile(ctx_.fs, *ctx_.icmp, paths_[i],
                                       options_.verify_checksums_before_ingest, &files_[i].info);
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; t++) helpers.emplace_back(work, t);
  work(0);
  for (std::thread& t : helpers) t.join();
  for (const Status& r : results) {
    if (!r.ok()) return Status(r.code(), r.subcode(), "IngestExternalFile", r.message());
  }
  for (const File& f : files_) {
    if (f.info.has_merge_operands && !ctx_.has_merge_operator) {
      return Status::InvalidArgument(absl::StrCat(
          "IngestExternalFile: ", f.info.path,
          " holds merge operands, and the DB has no merge operator (Options::merge_operator)"));
    }
  }
  return Status::OK();
}

Status IngestionJob::AddFilesToDir(const std::vector<uint64_t>& numbers) {
  uint64_t total_bytes = 0;
  for (size_t i = 0; i < files_.size(); i++) {
    files_[i].number = numbers[i];
    total_bytes += files_[i].info.meta.file_size;
  }
  progress_.SetTotals(total_bytes, files_.size());
  for (File& f : files_) {
    Status s = AddFileToDir(&f);
    if (!s.ok()) return s;
  }
  return ctx_.fs->SyncDir(ctx_.dbname);
}

Status IngestionJob::AddFileToDir(File* f) {
  FileSystem* const fs = ctx_.fs;
  const std::string target = TableFileName(ctx_.dbname, f->number);
  Status s;
  f->linked = false;
  if (options_.move_files) {
    s = fs->LinkFile(f->info.path, target);
    f->linked = s.ok();
    // Not linkable (another file system, no hard links): copy instead.
  }
  if (f->linked) {
    f->in_dir = true;
    progress_.SetStage("link");
    // The link shares data that its writer may never have synced: make it durable before
    // the MANIFEST edit refers to it (a copy is synced as it is written).
    s = SyncExistingFile(fs, target);
    if (s.ok()) progress_.Add(f->info.meta.file_size, 1);
  } else {
    progress_.SetStage("copy");
    s = CopyFileSynced(fs, f->info.path, target, &progress_);
    if (s.ok()) progress_.Add(0, 1);
  }
  if (!s.ok()) return Status(s.code(), s.subcode(), "IngestExternalFile", s.message());
  f->in_dir = true;
  uint64_t size = 0;
  s = fs->GetFileSize(target, &size);
  if (s.ok() && size != f->info.meta.file_size) {
    s = Status::Corruption(absl::StrCat("IngestExternalFile: ", f->info.path,
                                        " changed size while it was ingested"));
  }
  return s;
}

bool IngestionJob::OverlapsMemTable(const MemTable& mem) const {
  const Comparator* ucmp = ctx_.icmp->user_comparator();
  for (const File& f : files_) {
    if (MemTableOverlaps(mem, ucmp, f.info.smallest_user_key, f.info.largest_user_key)) {
      return true;
    }
  }
  return false;
}

Status IngestionJob::CheckFlush(bool memtables_overlap, const DbView& db, bool* flush,
                                bool* flush_all) const {
  *flush = *flush_all = false;
  if (options_.ingest_behind) return Status::OK();  // below everything: memtables may overlap
  // Universal compaction merges neighbouring L0 files into one L0 file that takes the largest
  // sequence number of its inputs, and L0 is read newest first by that number (a Get stops at
  // the first file holding the key). A file entering L0 at a global sequence number is newer
  // than the writes still in the memtables (on other keys). Merged with an older L0 file, it
  // would lift that file's values above the memtables' flush -- or their replay from the WAL
  // after a crash -- which lands behind the merge: reads would return the older values. So
  // there, every memtable is flushed before a file enters L0 (and whenever a flush is due
  // anyway, since the file may then land in L0 above the flushed data): every later L0 file
  // holds only writes made after the ingestion.
  if (db.compaction_style == kCompactionStyleUniversal) {
    *flush_all = memtables_overlap;
    std::vector<File> trial;
    if (!*flush_all) trial = files_;
    // A placement that fails now fails again after any flush: nothing to flush for then.
    if (!*flush_all && PlaceFiles(options_, ctx_.icmp->user_comparator(), db, &trial).ok()) {
      *flush_all = std::any_of(trial.begin(), trial.end(),
                               [](const File& f) { return f.level == 0 && f.seqno != 0; });
    }
  }
  *flush = memtables_overlap || *flush_all;
  if (!*flush) return Status::OK();
  if (!options_.allow_blocking_flush) {
    return Status::InvalidArgument(
        memtables_overlap
            ? "IngestExternalFile: the files overlap keys in the memtable, and "
              "allow_blocking_flush is false"
            : "IngestExternalFile: under universal compaction a file going to L0 needs the "
              "memtables flushed first, and allow_blocking_flush is false");
  }
  return Status::OK();
}

Status IngestionJob::Place(const DbView& db) {
  return PlaceFiles(options_, ctx_.icmp->user_comparator(), db, &files_);
}

SequenceNumber IngestionJob::AddToEdit(VersionEdit* edit) const {
  SequenceNumber largest = 0;
  for (const File& f : files_) {
    FileMetaData meta = f.info.meta;
    meta.number = f.number;
    meta.global_seqno = f.seqno;
    meta.smallest_seqno = meta.largest_seqno = f.seqno;
    SetBoundarySequence(&meta.smallest, f.seqno);
    SetBoundarySequence(&meta.largest, f.seqno);
    edit->AddFile(f.level, meta);
    largest = std::max(largest, f.seqno);
  }
  return largest;
}

bool IngestionJob::BlocksSnapshots() const {
  const bool sequence_zero =
      std::any_of(files_.begin(), files_.end(), [](const File& f) { return f.seqno == 0; });
  return sequence_zero && options_.snapshot_consistency && !options_.ingest_behind;
}

void IngestionJob::MarkMaybeLogged() {
  for (File& f : files_) f.maybe_logged = true;
}

void IngestionJob::LogInstalled() const {
  if (ctx_.info_log == nullptr) return;
  for (const File& f : files_) {
    ctx_.info_log->Log("ingested %s as table #%llu at L%d, sequence %llu, %llu bytes",
                       f.info.path.c_str(), static_cast<unsigned long long>(f.number), f.level,
                       static_cast<unsigned long long>(f.seqno),
                       static_cast<unsigned long long>(f.info.meta.file_size));
  }
}

void IngestionJob::RemoveFilesFromDir() const {
  for (const File& f : files_) {
    if (f.in_dir && !f.maybe_logged) {
      ctx_.fs->DeleteFile(TableFileName(ctx_.dbname, f.number)).PermitUncheckedError();
    }
  }
}

std::vector<uint64_t> IngestionJob::UnloggedNumbers() const {
  std::vector<uint64_t> numbers;
  for (const File& f : files_) {
    if (!f.maybe_logged) numbers.push_back(f.number);
  }
  return numbers;
}

void IngestionJob::RemoveOriginals() const {
  if (!options_.move_files) return;
  for (const File& f : files_) {
    Status d = ctx_.fs->DeleteFile(f.info.path);
    if (!d.ok() && ctx_.info_log != nullptr) {
      ctx_.info_log->Log("ingestion: could not remove the moved file %s: %s",
                         f.info.path.c_str(), d.ToString().c_str());
    }
  }
}

}  // namespace shale
