// DBImpl: checkpoints (shale/checkpoint.h). CreateCheckpoint
//  1. makes sure the target does not exist (and removes a crashed attempt's ".tmp" dir);
//  2. plans: either flushes the memtables, or (log_size_for_flush > 0, small WALs) lists the
//     live WALs; then, under mu_, references the current Version (so DeleteObsoleteFiles keeps
//     its tables, see VersionSet::AddLiveFiles, until the plan is released) and encodes it as
//     one MANIFEST record, a snapshot of the whole state as VersionSet writes when it starts a
//     MANIFEST;
//  3. without mu_, fills "<dir>.tmp": the WALs' complete records, hard links to (or copies of)
//     the tables, then OPTIONS, the MANIFEST and, last, CURRENT; syncs it;
//  4. renames "<dir>.tmp" to <dir> and syncs the parent directory.
// The plan's WALs are those numbered >= its Version's log number: together with its tables
// they hold every write acknowledged before the call. A WAL may vanish while being copied (a
// flush finished and DeleteObsoleteFiles removed it); the checkpoint then starts over by
// flushing.
#include <algorithm>
#include <utility>

#include "base/filename.h"
#include "db/db_impl.h"
#include "fs/path_util.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {
namespace {

constexpr size_t kCopyChunk = 1 << 20;

// What a checkpoint writes, fixed when it is planned.
struct CheckpointSource {
  Version* version = nullptr;  // referenced while the plan lives; its tables are copied
  uint64_t log_number = 0;     // WALs from this number on hold writes not in `version`
  uint64_t manifest_number = 0;
  uint64_t options_number = 0;
  std::string manifest_record;  // the MANIFEST's only record: a snapshot of `version`
  Options options;
  std::vector<uint64_t> wals;  // WALs to copy, ascending; empty when the memtables were flushed
};

// Ignores what the WAL reader drops: the torn tail of a WAL being written is expected, and
// anything else fails the copy through the reader's status (kAbsoluteConsistency).
class IgnoreReporter final : public log::Reader::Reporter {
 public:
  void Corruption(size_t, const Status&) override {}
};

std::string ParentOf(const std::string& normalized_dir) {
  std::string parent = ParentDir(normalized_dir);
  return parent.empty() ? "." : parent;
}

// Deletes the files of `dir` and then `dir`. OK if `dir` does not exist.
Status RemoveDirTree(FileSystem* fs, const std::string& dir) {
  std::vector<std::string> names;
  Status s = fs->GetChildren(dir, &names);
  if (s.IsNotFound() || s.IsPathNotFound()) return Status::OK();
  for (size_t i = 0; s.ok() && i < names.size(); i++) s = fs->DeleteFile(dir + "/" + names[i]);
  if (s.ok()) s = fs->DeleteDir(dir);
  return s;
}

// InvalidArgument if `dir` exists; removes a leftover `tmp`.
Status PrepareTarget(FileSystem* fs, const std::string& dir, const std::string& tmp) {
  Status s = fs->FileExists(dir);
  if (s.ok()) return Status::InvalidArgument(dir, "checkpoint directory exists already");
  if (!s.IsNotFound() && !s.IsPathNotFound()) return s;
  s = RemoveDirTree(fs, tmp);
  if (!s.ok()) return Status::IOError(tmp + ": removing a stale checkpoint", s.ToString());
  return Status::OK();
}

// The WALs of `dbname` numbered >= min_number, ascending, and their total size.
Status ListWals(FileSystem* fs, const std::string& dbname, uint64_t min_number,
                std::vector<uint64_t>* wals, uint64_t* bytes) {
  std::vector<std::string> names;
  Status s = fs->GetChildren(dbname, &names);
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    uint64_t number = 0, size = 0;
    FileType type;
    if (!ParseFileName(names[i], &number, &type) || type != FileType::kWalFile ||
        number < min_number) {
      continue;
    }
    s = fs->GetFileSize(WalFileName(dbname, number), &size);
    if (s.IsNotFound() || s.IsPathNotFound()) {
      s = Status::OK();  // deleted since the listing: the caller sees the log number move on
      continue;
    }
    wals->push_back(number);
    *bytes += size;
  }
  std::sort(wals->begin(), wals->end());
  return s;
}

// Copies src to dst byte for byte and syncs dst; deletes dst on failure.
Status CopyWholeFile(FileSystem* fs, const std::string& src, const std::string& dst) {
  std::unique_ptr<SequentialFile> in;
  std::unique_ptr<WritableFile> out;
  Status s = fs->NewSequentialFile(src, &in);
  if (s.ok()) s = fs->NewWritableFile(dst, &out);
  if (!s.ok()) return s;
  std::string scratch(kCopyChunk, '\0');
  while (s.ok()) {
    std::string_view chunk;
    s = in->Read(kCopyChunk, &chunk, scratch.data());
    if (s.ok() && chunk.empty()) break;
    if (s.ok()) s = out->Append(chunk);
  }
  if (s.ok()) s = out->Sync();
  Status c = out->Close();
  if (s.ok()) s = c;
  if (!s.ok()) fs->DeleteFile(dst).PermitUncheckedError();
  return s;
}

// Hard-links src to dst, or copies it when linking fails (another file system, or none that
// links). Once a link has failed (*link_failed), copies without trying.
Status LinkOrCopy(FileSystem* fs, const std::string& src, const std::string& dst,
                  bool* link_failed) {
  if (!*link_failed) {
    if (fs->LinkFile(src, dst).ok()) return Status::OK();
    *link_failed = true;
  }
  return CopyWholeFile(fs, src, dst);
}

// Copies the complete records of WAL src into a new WAL dst (a record being appended to src
// right now is left out). TryAgain if src is gone.
Status CopyWalRecords(FileSystem* fs, const std::string& src, const std::string& dst) {
  std::unique_ptr<SequentialFile> in;
  Status s = fs->NewSequentialFile(src, &in);
  if (s.IsNotFound() || s.IsPathNotFound()) return Status::TryAgain(src, "deleted by a flush");
  std::unique_ptr<WritableFile> out;
  if (s.ok()) s = fs->NewWritableFile(dst, &out);
  if (!s.ok()) return s;
  log::Writer writer(std::move(out), 0, log::Writer::FlushPolicy::kManual);
  IgnoreReporter reporter;
  log::Reader reader(in.get(), &reporter, /*checksum=*/true, 0,
                     log::WalRecoveryMode::kAbsoluteConsistency, src);
  std::string_view record;
  std::string scratch;
  while (s.ok() && reader.ReadRecord(&record, &scratch)) s = writer.AddRecord(record);
  if (s.ok()) s = reader.status();
  if (s.ok()) s = writer.Sync();
  Status c = writer.Close();
  return s.ok() ? c : s;
}

// OPTIONS, the MANIFEST and, last, CURRENT naming it.
Status WriteMetadata(FileSystem* fs, const std::string& dir, const CheckpointSource& src) {
  Status s = WriteOptionsFile(fs, OptionsFileName(dir, src.options_number), src.options);
  const std::string manifest = DescriptorFileName(dir, src.manifest_number);
  std::unique_ptr<WritableFile> file;
  if (s.ok()) s = fs->NewWritableFile(manifest, &file);
  if (!s.ok()) return s;
  log::Writer writer(std::move(file));
  s = writer.AddRecord(src.manifest_record);
  if (s.ok()) s = writer.Sync();
  Status c = writer.Close();
  if (s.ok()) s = c;
  const std::string current = manifest.substr(manifest.rfind('/') + 1) + "\n";
  if (s.ok()) s = WriteStringToFile(fs, current, CurrentFileName(dir), /*sync=*/true);
  return s;
}

// Fills the new directory `dir` with the checkpoint's files and syncs it.
Status FillCheckpointDir(FileSystem* fs, const std::string& dbname, const std::string& dir,
                         const CheckpointSource& src) {
  Status s = fs->CreateDir(dir);
  if (!s.ok()) return s;
  for (size_t i = 0; s.ok() && i < src.wals.size(); i++) {
    s = CopyWalRecords(fs, WalFileName(dbname, src.wals[i]), WalFileName(dir, src.wals[i]));
  }
  bool link_failed = false;
  for (int level = 0; s.ok() && level < src.version->num_levels(); level++) {
    for (const FileMetaData* f : src.version->files(level)) {
      s = LinkOrCopy(fs, TableFileName(dbname, f->number), TableFileName(dir, f->number),
                     &link_failed);
      if (!s.ok()) break;
    }
  }
  if (s.ok()) s = WriteMetadata(fs, dir, src);
  if (s.ok()) s = fs->SyncDir(dir);
  return s;
}

// Moves the files of `tmp` into the new directory `dir`, CURRENT last, for file systems that
// cannot rename a directory.
Status MoveFilesInto(FileSystem* fs, const std::string& tmp, const std::string& dir) {
  std::vector<std::string> names;
  Status s = fs->GetChildren(tmp, &names);
  if (s.ok()) s = fs->CreateDir(dir);
  if (!s.ok()) return s;
  std::stable_partition(names.begin(), names.end(),
                        [](const std::string& n) { return n != "CURRENT"; });
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    s = fs->RenameFile(tmp + "/" + names[i], dir + "/" + names[i]);
  }
  if (s.ok()) s = fs->SyncDir(dir);
  if (s.ok()) s = fs->DeleteDir(tmp);
  if (!s.ok()) RemoveDirTree(fs, dir).PermitUncheckedError();
  return s;
}

// Gives `tmp` the name `dir`, durably. On failure `dir` does not exist.
Status Publish(FileSystem* fs, const std::string& tmp, const std::string& dir) {
  Status s = fs->RenameFile(tmp, dir);
  if (s.IsNotSupported()) s = MoveFilesInto(fs, tmp, dir);
  if (!s.ok()) return s;
  s = fs->SyncDir(ParentOf(dir));
  // Not known to be durable: an error must not leave a checkpoint that may vanish later.
  if (!s.ok()) RemoveDirTree(fs, dir).PermitUncheckedError();
  return s;
}

}  // namespace

struct DBImpl::CheckpointPlan : CheckpointSource {};

Status DBImpl::CreateCheckpoint(const std::string& checkpoint_dir, uint64_t log_size_for_flush) {
  InFlightCall call(this, /*mu_held=*/false);  // Close waits for this call
  if (!call.status().ok()) return call.status();
  const std::string dir = NormalizePath(checkpoint_dir);
  if (dir.empty()) return Status::InvalidArgument("CreateCheckpoint: empty directory name");
  const std::string tmp = dir + ".tmp";
  Status s = PrepareTarget(fs_, dir, tmp);
  bool planned = false;
  // The first attempt may copy WALs; if one vanishes, the second flushes instead.
  for (int attempt = 0; s.ok() && attempt < 2; attempt++) {
    CheckpointPlan plan;
    s = PlanCheckpoint(attempt == 0 ? log_size_for_flush : 0, &plan);
    if (!s.ok()) break;
    planned = true;
    s = FillCheckpointDir(fs_, dbname_, tmp, plan);
    ReleasePlan(&plan);
    if (s.ok()) s = Publish(fs_, tmp, dir);
    if (!s.ok()) RemoveDirTree(fs_, tmp).PermitUncheckedError();
    if (!s.IsTryAgain()) break;
    s = Status::OK();
  }
  if (s.IsTryAgain()) s = Status::IOError(dir, "checkpoint: " + s.ToString());
  if (!planned) return s;
  DeleteObsoleteFiles();  // tables that only the plan's Version kept
  info_log_->Log("checkpoint to %s: %s", dir.c_str(), s.ToString().c_str());
  return s;
}

Status DBImpl::PlanCheckpoint(uint64_t log_size_for_flush, CheckpointPlan* plan) {
  bool flush = log_size_for_flush == 0;
  {
    MutexLock lock(&mu_);
    if (closed_ || shutting_down_) return Status::ShutdownInProgress("the DB is closed");
    if (HasUnloggedWritesLocked()) flush = true;  // those writes are in no WAL
    if (!flush) CapturePlanLocked(plan);
  }
  if (!flush) {
    uint64_t bytes = 0;
    Status s = ListWals(fs_, dbname_, plan->log_number, &plan->wals, &bytes);
    bool complete = false;  // no WAL the plan needs was deleted before the listing
    {
      MutexLock lock(&mu_);
      complete = versions_->LogNumber() == plan->log_number;
    }
    if (s.ok() && complete && bytes < log_size_for_flush) return Status::OK();
    ReleasePlan(plan);
    if (!s.ok()) return s;
  }
  Status s = Flush(FlushOptions());
  if (!s.ok()) return s;
  MutexLock lock(&mu_);
  CapturePlanLocked(plan);
  return Status::OK();
}

void DBImpl::CapturePlanLocked(CheckpointPlan* plan) {
  Version* v = versions_->current();
  v->Ref();
  plan->version = v;
  plan->log_number = versions_->LogNumber();
  plan->manifest_number = versions_->NewFileNumber();
  plan->options_number = versions_->NewFileNumber();
  plan->options = options_;
  VersionEdit snapshot;
  snapshot.SetComparatorName(icmp_.user_comparator()->Name());
  snapshot.SetLogNumber(plan->log_number);
  snapshot.SetPrevLogNumber(0);
  snapshot.SetNextFile(versions_->PeekNextFileNumber());
  snapshot.SetLastSequence(versions_->LastAllocatedSequence());
  for (int level = 0; level < v->num_levels(); level++) {
    const std::string& pointer = versions_->CompactPointer(level);
    if (!pointer.empty()) snapshot.SetCompactPointer(level, pointer);
    for (const FileMetaData* f : v->files(level)) snapshot.AddFile(level, *f);
  }
  snapshot.EncodeTo(&plan->manifest_record);
}

void DBImpl::ReleasePlan(CheckpointPlan* plan) {
  if (plan->version != nullptr) {
    MutexLock lock(&mu_);
    plan->version->Unref();
  }
  *plan = CheckpointPlan();
}

}  // namespace shale
