// CheckpointJob (see checkpoint_job.h): builds a checkpoint directory from a plan the DB
// captured.
#include "db/checkpoint_job.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "base/filename.h"
#include "fs/path_util.h"
#include "version/version_edit.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {
namespace {

constexpr size_t kCopyChunk = 1 << 20;

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

// Fills src->wals and src->wal_lengths with the WALs of `dbname` the plan needs: numbered
// from src->log_number to src->current_wal, ascending. The older ones are complete (a memtable
// switch closed them) and copied whole; the current one up to src->current_wal_length. Adds
// their total length to *bytes.
Status ListWals(FileSystem* fs, const std::string& dbname, CheckpointPlan* src,
                uint64_t* bytes) {
  std::vector<std::string> names;
  Status s = fs->GetChildren(dbname, &names);
  std::vector<uint64_t> numbers;
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    uint64_t number = 0;
    FileType type;
    if (ParseFileName(names[i], &number, &type) && type == FileType::kWalFile &&
        number >= src->log_number && number <= src->current_wal) {
      numbers.push_back(number);
    }
  }
  std::sort(numbers.begin(), numbers.end());
  for (size_t i = 0; s.ok() && i < numbers.size(); i++) {
    uint64_t size = 0;
    if (numbers[i] == src->current_wal) {
      size = src->current_wal_length;
    } else {
      s = fs->GetFileSize(WalFileName(dbname, numbers[i]), &size);
      if (s.IsNotFound() || s.IsPathNotFound()) {
        s = Status::TryAgain(WalFileName(dbname, numbers[i]), "deleted by a flush");
      }
    }
    if (!s.ok()) break;
    if (size == 0) continue;  // holds nothing (a flush just started it): nothing to copy
    src->wals.push_back(numbers[i]);
    src->wal_lengths.push_back(size);
    *bytes += size;
  }
  return s;
}

// Reads at most `limit` bytes of another SequentialFile: what a WAL held at a moment.
class PrefixSequentialFile final : public SequentialFile {
 public:
  PrefixSequentialFile(std::unique_ptr<SequentialFile> base, uint64_t limit)
      : base_(std::move(base)), remaining_(limit) {}
  Status Read(size_t n, std::string_view* result, char* scratch) override {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
    *result = {};
    if (want == 0) return Status::OK();
    Status s = base_->Read(want, result, scratch);
    if (s.ok()) remaining_ -= result->size();
    return s;
  }
  Status Skip(uint64_t n) override {
    const uint64_t skip = std::min(n, remaining_);
    remaining_ -= skip;
    return base_->Skip(skip);
  }

 private:
  const std::unique_ptr<SequentialFile> base_;
  uint64_t remaining_;
};

// Copies src to dst byte for byte and syncs dst, counting the bytes in *progress (if not
// null); deletes dst on failure.
Status CopyWholeFile(FileSystem* fs, const std::string& src, const std::string& dst,
                     ProgressReporter* progress) {
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
    if (s.ok() && progress != nullptr) progress->Add(chunk.size(), 0);
  }
  if (s.ok()) s = out->Sync();
  Status c = out->Close();
  if (s.ok()) s = c;
  if (!s.ok()) fs->DeleteFile(dst).PermitUncheckedError();
  return s;
}

// Hard-links src (of `size` bytes) to dst, or copies it when linking fails (another file
// system, or none that links). Once a link has failed (*link_failed), copies without trying.
// Counts the file in *progress (if not null).
Status LinkOrCopy(FileSystem* fs, const std::string& src, const std::string& dst, uint64_t size,
                  bool* link_failed, ProgressReporter* progress) {
  if (!*link_failed) {
    if (progress != nullptr) progress->SetStage("link");
    if (fs->LinkFile(src, dst).ok()) {
      if (progress != nullptr) progress->Add(size, 1);
      return Status::OK();
    }
    *link_failed = true;
  }
  if (progress != nullptr) progress->SetStage("copy");
  Status s = CopyWholeFile(fs, src, dst, progress);
  if (s.ok() && progress != nullptr) progress->Add(0, 1);
  return s;
}

// Copies the complete records in the first `length` bytes of WAL src into a new WAL dst.
// TryAgain if src is gone.
Status CopyWalRecords(FileSystem* fs, const std::string& src, uint64_t length,
                      const std::string& dst) {
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(src, &file);
  if (s.IsNotFound() || s.IsPathNotFound()) return Status::TryAgain(src, "deleted by a flush");
  std::unique_ptr<SequentialFile> in;
  if (s.ok()) in = std::make_unique<PrefixSequentialFile>(std::move(file), length);
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
Status WriteMetadata(FileSystem* fs, const std::string& dir, const CheckpointPlan& src) {
  Status s = WriteOptionsFile(fs, OptionsFileName(dir, src.options_number), src.db_options,
                              src.families);
  const std::string manifest = DescriptorFileName(dir, src.manifest_number);
  std::unique_ptr<WritableFile> file;
  if (s.ok()) s = fs->NewWritableFile(manifest, &file);
  if (!s.ok()) return s;
  log::Writer writer(std::move(file));
  for (const std::string& record : src.manifest_records) {
    if (s.ok()) s = writer.AddRecord(record);
  }
  if (s.ok()) s = writer.Sync();
  Status c = writer.Close();
  if (s.ok()) s = c;
  const std::string current = manifest.substr(manifest.rfind('/') + 1) + "\n";
  if (s.ok()) s = WriteStringToFile(fs, current, CurrentFileName(dir), /*sync=*/true);
  return s;
}

// Fills the new directory `dir` with the checkpoint's files and syncs it, counting them in
// *progress (if not null).
Status FillCheckpointDir(FileSystem* fs, const std::string& dbname, const std::string& dir,
                         const CheckpointPlan& src, ProgressReporter* progress) {
  Status s = fs->CreateDir(dir);
  if (!s.ok()) return s;
  if (progress != nullptr) {
    uint64_t bytes = 0, files = src.wals.size();
    for (uint64_t length : src.wal_lengths) bytes += length;
    for (const Version* v : src.versions) {
      for (int level = 0; level < v->num_levels(); level++) {
        files += v->files(level).size();
        for (const FileMetaData* f : v->files(level)) bytes += f->file_size;
      }
    }
    progress->Restart(bytes, files);  // a retry counts from zero again
    progress->SetStage("copy");
  }
  for (size_t i = 0; s.ok() && i < src.wals.size(); i++) {
    s = CopyWalRecords(fs, WalFileName(dbname, src.wals[i]), src.wal_lengths[i],
                       WalFileName(dir, src.wals[i]));
    if (s.ok() && progress != nullptr) progress->Add(src.wal_lengths[i], 1);
  }
  bool link_failed = false;
  for (const Version* v : src.versions) {
    for (int level = 0; s.ok() && level < v->num_levels(); level++) {
      for (const FileMetaData* f : v->files(level)) {
        s = LinkOrCopy(fs, TableFileName(dbname, f->number), TableFileName(dir, f->number),
                       f->file_size, &link_failed, progress);
        if (!s.ok()) break;
      }
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

void CaptureCheckpointVersion(VersionSet* versions, const DBOptions& db_options,
                              const std::vector<ColumnFamilyDescriptor>& families,
                              CheckpointPlan* plan) {
  for (uint32_t id : versions->ColumnFamilyIds()) {
    Version* v = versions->current(id);
    v->Ref();
    plan->versions.push_back(v);
  }
  plan->log_number = versions->MinLogNumber();
  plan->manifest_number = versions->NewFileNumber();
  plan->options_number = versions->NewFileNumber();
  plan->db_options = db_options;
  plan->families = families;
  // The checkpoint's MANIFEST: every family's state, with the WALs it copies from
  // plan->log_number on (no previous log).
  versions->EncodeSnapshot(&plan->manifest_records);
}

CheckpointJob::CheckpointJob(CheckpointJobContext context, std::string checkpoint_dir,
                             uint64_t log_size_for_flush)
    : ctx_(std::move(context)),
      checkpoint_dir_(std::move(checkpoint_dir)),
      log_size_for_flush_(log_size_for_flush) {}

Status CheckpointJob::Run() {
  FileSystem* const fs = ctx_.fs;
  dir_ = NormalizePath(checkpoint_dir_);
  if (dir_.empty()) return Status::InvalidArgument("CreateCheckpoint: empty directory name");
  const std::string tmp = dir_ + ".tmp";
  Status s = PrepareTarget(fs, dir_, tmp);
  // The first attempt flushes as log_size_for_flush says; if a WAL vanishes (it should not:
  // the plan keeps them), the next ones flush first.
  for (int attempt = 0; s.ok() && attempt < 3; attempt++) {
    CheckpointPlan plan;
    s = Plan(attempt == 0 ? log_size_for_flush_ : 0, &plan);
    if (!s.ok()) break;
    planned_ = true;
    s = FillCheckpointDir(fs, ctx_.dbname, tmp, plan, ctx_.progress);
    ctx_.release_plan(&plan);
    if (s.ok()) s = Publish(fs, tmp, dir_);
    if (!s.ok()) RemoveDirTree(fs, tmp).PermitUncheckedError();
    if (!s.IsTryAgain()) break;
    s = Status::OK();
  }
  if (s.IsTryAgain()) s = Status::IOError(dir_, "checkpoint: " + s.ToString());
  return s;
}

Status CheckpointJob::Plan(uint64_t log_size_for_flush, CheckpointPlan* plan) {
  // Flushing before the plan is captured lets writers go on while the memtables are written;
  // what they write meanwhile is in the WALs the plan copies.
  bool flushed = false;
  if (log_size_for_flush == 0) {
    Status s = ctx_.flush();
    if (!s.ok()) return s;
    flushed = true;
  }
  while (true) {
    Status s = ctx_.capture_plan(plan);
    uint64_t bytes = 0;
    if (s.ok()) s = ListWals(ctx_.fs, ctx_.dbname, plan, &bytes);
    if (s.ok() && (flushed || bytes < log_size_for_flush)) return Status::OK();
    ctx_.release_plan(plan);
    if (!s.ok()) return s;
    // The WALs are too large to copy: flush them into tables, then plan again.
    s = ctx_.flush();
    if (!s.ok()) return s;
    flushed = true;
  }
}

}  // namespace shale
