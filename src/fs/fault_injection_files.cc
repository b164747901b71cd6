#include "fs/fault_injection_files.h"

namespace shale {

using OpKind = FaultInjectionFileSystem::OpKind;

Status FaultSequentialFile::Read(size_t n, std::string_view* result, char* scratch) {
  Status s = fs_->MaybeFail(OpKind::kRead, path_);
  if (!s.ok()) {
    *result = {};
    return s;
  }
  return base_->Read(n, result, scratch);
}

Status FaultRandomAccessFile::Read(uint64_t offset, size_t n, std::string_view* result,
                                   char* scratch) const {
  Status s = fs_->MaybeFail(OpKind::kRead, path_);
  if (!s.ok()) {
    *result = {};
    return s;
  }
  return base_->Read(offset, n, result, scratch);
}

FaultWritableFile::~FaultWritableFile() {
  if (!closed_) fs_->ReleaseOpenFile();  // base_ closes itself when destroyed
}

Status FaultWritableFile::Append(std::string_view data) {
  Status s = fs_->MaybeFail(OpKind::kWrite, path_);
  if (s.ok()) s = base_->Append(data);
  if (s.ok()) fs_->RecordAppend(state_.get(), data.size());
  return s;
}

Status FaultWritableFile::Flush() {
  Status s = fs_->MaybeFail(OpKind::kWrite, path_);
  if (s.ok()) s = base_->Flush();
  return s;
}

Status FaultWritableFile::Sync() {
  Status s = fs_->MaybeFail(OpKind::kSync, path_);
  if (s.ok()) s = base_->Sync();
  if (s.ok()) fs_->RecordSync(state_.get());
  return s;
}

Status FaultWritableFile::Close() {
  if (closed_) return Status::IOError(path_, "file is already closed");
  Status s = base_->Close();
  closed_ = true;
  fs_->ReleaseOpenFile();
  if (s.ok()) s = fs_->InactiveErrorOnClose(path_);
  return s;
}

}  // namespace shale
