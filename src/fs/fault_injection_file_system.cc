#include "fs/fault_injection_file_system.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/fault_injection_files.h"
#include "fs/path_util.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// Reads the first n bytes of path (all of it if it is shorter).
Status ReadPrefix(FileSystem* fs, const std::string& path, uint64_t n, std::string* data) {
  data->clear();
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(path, &file);
  if (!s.ok()) return s;
  constexpr size_t kChunk = 64 * 1024;
  std::vector<char> scratch(kChunk);
  while (data->size() < n) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, n - data->size()));
    std::string_view fragment;
    s = file->Read(want, &fragment, scratch.data());
    if (!s.ok()) return s;
    if (fragment.empty()) break;
    data->append(fragment.data(), fragment.size());
  }
  return Status::OK();
}

// `error` with its code and subcode, its message prefixed by the path and the failed call.
Status Decorate(const Status& error, std::string_view path, std::string_view what) {
  return Status(error.code(), error.subcode(),
                absl::StrCat(ToAbsl(path), ": ", ToAbsl(what)), error.message());
}

}  // namespace

Status FaultIOError(std::string_view what) { return Status::IOError(what); }
Status FaultNoSpaceError(std::string_view what) { return Status::NoSpace(what); }

const char* FaultInjectionFileSystem::OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kRead: return "read";
    case OpKind::kWrite: return "write";
    case OpKind::kSync: return "sync";
    case OpKind::kCreate: return "create";
    case OpKind::kRename: return "rename";
    case OpKind::kLink: return "link";
    case OpKind::kDelete: return "delete";
    case OpKind::kSyncDir: return "sync_dir";
    case OpKind::kLock: return "lock";
  }
  return "unknown";
}

FaultInjectionFileSystem::FaultInjectionFileSystem(std::shared_ptr<FileSystem> base)
    : base_(std::move(base)),
      name_(absl::StrCat("fault_injection(", base_->Name(), ")")),
      inactive_error_(FaultIOError("filesystem inactive")) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

// ---- Failures and counting ----

Status FaultInjectionFileSystem::MaybeFailLocked(OpKind kind, std::string_view path) {
  KindState& k = kinds_[static_cast<int>(kind)];
  ++k.count;
  const Status* error = nullptr;
  if (!active_ && kind != OpKind::kRead) {
    error = &inactive_error_;
  } else if (k.countdown > 0 && --k.countdown == 0) {
    error = &k.nth_error;
  } else if (k.one_in > 0 && k.rng() % k.one_in == 0) {
    error = &k.random_error;
  }
  if (error == nullptr || error->ok()) return Status::OK();
  return Decorate(*error, path, OpKindName(kind));
}

Status FaultInjectionFileSystem::MaybeFail(OpKind kind, std::string_view path) {
  MutexLock l(&mu_);
  return MaybeFailLocked(kind, path);
}

Status FaultInjectionFileSystem::ReserveOpenFileLocked(const std::string& path) {
  if (open_files_ >= max_open_files_) {
    return Status::IOError(absl::StrCat(path, ": open"), "Too many open files");
  }
  ++open_files_;
  peak_open_files_ = std::max(peak_open_files_, open_files_);
  return Status::OK();
}

void FaultInjectionFileSystem::ReleaseOpenFile() {
  MutexLock l(&mu_);
  --open_files_;
}

Status FaultInjectionFileSystem::InactiveErrorOnClose(std::string_view path) {
  MutexLock l(&mu_);
  if (active_ || inactive_error_.ok()) return Status::OK();
  return Decorate(inactive_error_, path, "close");
}

void FaultInjectionFileSystem::RecordAppend(FileState* state, uint64_t n) {
  MutexLock l(&mu_);
  state->size += n;
}

void FaultInjectionFileSystem::RecordSync(FileState* state) {
  MutexLock l(&mu_);
  state->synced = state->size;
}

void FaultInjectionFileSystem::SetFilesystemActive(bool active, Status error) {
  MutexLock l(&mu_);
  active_ = active;
  inactive_error_ = std::move(error);
}

bool FaultInjectionFileSystem::IsFilesystemActive() const {
  MutexLock l(&mu_);
  return active_;
}

void FaultInjectionFileSystem::InjectError(OpKind kind, uint64_t nth, Status error) {
  MutexLock l(&mu_);
  KindState& k = kinds_[static_cast<int>(kind)];
  k.countdown = nth;
  k.nth_error = std::move(error);
}

void FaultInjectionFileSystem::SetRandomErrors(OpKind kind, uint32_t one_in, uint64_t seed,
                                               Status error) {
  MutexLock l(&mu_);
  KindState& k = kinds_[static_cast<int>(kind)];
  k.one_in = one_in;
  k.rng.seed(seed);
  k.random_error = std::move(error);
}

void FaultInjectionFileSystem::ClearInjectedErrors() {
  MutexLock l(&mu_);
  for (KindState& k : kinds_) {
    k.countdown = 0;
    k.one_in = 0;
  }
}

uint64_t FaultInjectionFileSystem::OpCount(OpKind kind) const {
  MutexLock l(&mu_);
  return kinds_[static_cast<int>(kind)].count;
}

void FaultInjectionFileSystem::ResetOpCounts() {
  MutexLock l(&mu_);
  for (KindState& k : kinds_) k.count = 0;
}

uint64_t FaultInjectionFileSystem::OpenFiles() const {
  MutexLock l(&mu_);
  return open_files_;
}

uint64_t FaultInjectionFileSystem::PeakOpenFiles() const {
  MutexLock l(&mu_);
  return peak_open_files_;
}

void FaultInjectionFileSystem::SetMaxOpenFiles(uint64_t n) {
  MutexLock l(&mu_);
  max_open_files_ = n;
}

// ---- Opening files ----

Status FaultInjectionFileSystem::NewSequentialFile(const std::string& path,
                                                   std::unique_ptr<SequentialFile>* result) {
  {
    MutexLock l(&mu_);
    Status s = ReserveOpenFileLocked(path);
    if (!s.ok()) return s;
  }
  std::unique_ptr<SequentialFile> file;
  Status s = base_->NewSequentialFile(path, &file);
  if (!s.ok()) {
    ReleaseOpenFile();
    return s;
  }
  *result = std::make_unique<FaultSequentialFile>(this, path, std::move(file));
  return Status::OK();
}

Status FaultInjectionFileSystem::NewRandomAccessFile(const std::string& path,
                                                     std::unique_ptr<RandomAccessFile>* result) {
  {
    MutexLock l(&mu_);
    Status s = ReserveOpenFileLocked(path);
    if (!s.ok()) return s;
  }
  std::unique_ptr<RandomAccessFile> file;
  Status s = base_->NewRandomAccessFile(path, &file);
  if (!s.ok()) {
    ReleaseOpenFile();
    return s;
  }
  *result = std::make_unique<FaultRandomAccessFile>(this, path, std::move(file));
  return Status::OK();
}

Status FaultInjectionFileSystem::NewWritableFile(const std::string& path,
                                                 std::unique_ptr<WritableFile>* result) {
  return OpenForWrite(path, /*truncate=*/true, result);
}

Status FaultInjectionFileSystem::NewAppendableFile(const std::string& path,
                                                   std::unique_ptr<WritableFile>* result) {
  return OpenForWrite(path, /*truncate=*/false, result);
}

Status FaultInjectionFileSystem::OpenForWrite(const std::string& path, bool truncate,
                                              std::unique_ptr<WritableFile>* result) {
  std::string p = NormalizePath(path);
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kCreate, path);
  if (s.ok()) s = ReserveOpenFileLocked(path);
  if (!s.ok()) return s;
  const bool existed = base_->FileExists(path).ok();
  std::unique_ptr<WritableFile> file;
  s = truncate ? base_->NewWritableFile(path, &file) : base_->NewAppendableFile(path, &file);
  if (!s.ok()) {
    --open_files_;
    return s;
  }
  std::shared_ptr<FileState> state = TrackLocked(p, existed, truncate, file->GetFileSize());
  if (!existed) {
    pending_dir_ops_.push_back(DirOp{.type = DirOp::Type::kCreate, .dir = ParentDir(p), .path = p});
  }
  *result = std::make_unique<FaultWritableFile>(this, path, std::move(file), std::move(state));
  return Status::OK();
}

std::shared_ptr<FaultInjectionFileSystem::FileState> FaultInjectionFileSystem::TrackLocked(
    const std::string& p, bool existed, bool truncate, uint64_t initial_size) {
  std::shared_ptr<FileState>& state = files_[p];
  if (!existed) {
    state = std::make_shared<FileState>();  // a new file: nothing durable yet
  } else if (truncate) {
    // Truncated in place, so names linked to the file see it too; nothing of it is durable
    // until the next Sync.
    if (state == nullptr) state = std::make_shared<FileState>();
    state->size = 0;
    state->synced = 0;
  } else if (state == nullptr) {
    // An existing file seen for the first time: what it holds already counts as durable.
    state = std::make_shared<FileState>();
    state->size = state->synced = initial_size;
  }
  return state;
}

// ---- Directory entries ----

Status FaultInjectionFileSystem::DeleteFile(const std::string& path) {
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kDelete, path);
  if (s.ok()) s = base_->DeleteFile(path);
  if (s.ok()) files_.erase(NormalizePath(path));
  return s;
}

template <typename CreateFn>
Status FaultInjectionFileSystem::CreateDirLocked(const std::string& dir, CreateFn create) {
  Status s = MaybeFailLocked(OpKind::kCreate, dir);
  if (!s.ok()) return s;
  const bool existed = model_dir_creation_ && base_->FileExists(dir).ok();
  s = create();
  if (s.ok() && model_dir_creation_ && !existed) {
    const std::string p = NormalizePath(dir);
    pending_dir_ops_.push_back(
        DirOp{.type = DirOp::Type::kCreateDir, .dir = ParentDir(p), .path = p});
  }
  return s;
}

Status FaultInjectionFileSystem::CreateDir(const std::string& dir) {
  MutexLock l(&mu_);
  return CreateDirLocked(dir, [&] { return base_->CreateDir(dir); });
}

Status FaultInjectionFileSystem::CreateDirIfMissing(const std::string& dir) {
  MutexLock l(&mu_);
  return CreateDirLocked(dir, [&] { return base_->CreateDirIfMissing(dir); });
}

void FaultInjectionFileSystem::SetModelDirCreation(bool model) {
  MutexLock l(&mu_);
  model_dir_creation_ = model;
}

Status FaultInjectionFileSystem::DeleteDir(const std::string& dir) {
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kDelete, dir);
  return s.ok() ? base_->DeleteDir(dir) : s;
}

Status FaultInjectionFileSystem::RenameFile(const std::string& src, const std::string& target) {
  std::string from = NormalizePath(src);
  std::string to = NormalizePath(target);
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kRename, src);
  if (!s.ok()) return s;
  if (from == to) return base_->RenameFile(src, target);
  DirOp op{.type = DirOp::Type::kRename, .dir = ParentDir(to), .path = to, .from = from};
  // Keep what a crash would bring back if the rename is undone. If the target cannot be read
  // (it may be a directory), the rename below decides, and nothing is restored.
  op.replaced = base_->FileExists(target).ok() && DurableContentsLocked(to, &op.replaced_data).ok();
  s = base_->RenameFile(src, target);
  if (!s.ok()) return s;
  files_.erase(to);
  auto it = files_.find(from);
  if (it != files_.end()) {
    files_[to] = std::move(it->second);
    files_.erase(it);
  }
  pending_dir_ops_.push_back(std::move(op));
  return Status::OK();
}

Status FaultInjectionFileSystem::LinkFile(const std::string& src, const std::string& target) {
  std::string from = NormalizePath(src);
  std::string to = NormalizePath(target);
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kLink, src);
  if (s.ok()) s = base_->LinkFile(src, target);
  if (!s.ok()) return s;
  auto it = files_.find(from);
  if (it != files_.end()) files_[to] = it->second;  // one file, two names: one state
  pending_dir_ops_.push_back(DirOp{.type = DirOp::Type::kLink, .dir = ParentDir(to), .path = to});
  return Status::OK();
}

Status FaultInjectionFileSystem::SyncDir(const std::string& dir) {
  std::string d = NormalizePath(dir);
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kSyncDir, dir);
  if (s.ok()) s = base_->SyncDir(dir);
  if (!s.ok()) return s;
  std::erase_if(pending_dir_ops_, [&](const DirOp& op) { return op.dir == d; });
  return Status::OK();
}

Status FaultInjectionFileSystem::LockFile(const std::string& path,
                                          std::unique_ptr<FileLock>* lock) {
  MutexLock l(&mu_);
  Status s = MaybeFailLocked(OpKind::kLock, path);
  return s.ok() ? base_->LockFile(path, lock) : s;
}

// ---- Power loss ----

Status FaultInjectionFileSystem::DurableContentsLocked(const std::string& p, std::string* data) {
  auto it = files_.find(p);
  uint64_t n = it == files_.end() ? UINT64_MAX : it->second->synced;
  return ReadPrefix(base_.get(), p, n, data);
}

Status FaultInjectionFileSystem::DropUnsyncedData() {
  MutexLock l(&mu_);
  Status first;
  for (auto it = pending_dir_ops_.rbegin(); it != pending_dir_ops_.rend(); ++it) {
    Status s = UndoLocked(*it);
    if (first.ok()) first = s;
  }
  pending_dir_ops_.clear();
  Status s = TruncateToSyncedLocked();
  if (first.ok()) first = s;
  return first;
}

Status FaultInjectionFileSystem::RemoveTreeLocked(const std::string& p) {
  std::vector<std::string> names;
  Status s = base_->GetChildren(p, &names);
  if (s.IsPathNotFound() || s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  Status first;
  for (const std::string& name : names) {
    const std::string child = p == "/" ? "/" + name : p + "/" + name;
    Status d = base_->DeleteFile(child);
    if (!d.ok()) d = RemoveTreeLocked(child);  // a directory
    files_.erase(child);
    if (first.ok() && !d.ok()) first = d;
  }
  s = base_->DeleteDir(p);
  if (first.ok() && !s.ok() && !s.IsPathNotFound()) first = s;
  return first;
}

Status FaultInjectionFileSystem::UndoLocked(const DirOp& op) {
  if (op.type == DirOp::Type::kCreateDir) return RemoveTreeLocked(op.path);
  if (op.type != DirOp::Type::kRename) {
    // A created file or a linked name: the entry never reached the disk.
    Status s = base_->DeleteFile(op.path);
    files_.erase(op.path);
    return s.IsPathNotFound() ? Status::OK() : s;
  }
  if (base_->FileExists(op.path).ok()) {
    Status s = base_->RenameFile(op.path, op.from);
    if (!s.ok()) return s;
    auto it = files_.find(op.path);
    if (it != files_.end()) {
      files_[op.from] = std::move(it->second);
      files_.erase(it);
    }
  }
  if (!op.replaced) return Status::OK();
  Status s = WriteStringToFile(base_.get(), op.replaced_data, op.path, /*sync=*/true);
  if (!s.ok()) return s;
  auto state = std::make_shared<FileState>();
  state->size = state->synced = op.replaced_data.size();
  files_[op.path] = std::move(state);
  return Status::OK();
}

Status FaultInjectionFileSystem::TruncateToSyncedLocked() {
  Status first;
  for (auto it = files_.begin(); it != files_.end();) {
    const std::string& path = it->first;
    FileState& state = *it->second;
    uint64_t size = 0;
    Status s = base_->GetFileSize(path, &size);
    if (s.IsPathNotFound()) {
      it = files_.erase(it);  // deleted: nothing to cut
      continue;
    }
    if (s.ok() && size > state.synced) {
      // Rewriting in place (NewWritableFile truncates) keeps hard links sharing the contents.
      std::string prefix;
      s = ReadPrefix(base_.get(), path, state.synced, &prefix);
      if (s.ok()) s = WriteStringToFile(base_.get(), prefix, path, /*sync=*/true);
    }
    if (s.ok()) state.size = state.synced;
    if (first.ok()) first = s;
    ++it;
  }
  return first;
}

}  // namespace shale
