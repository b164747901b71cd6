#include "fs/mem_files.h"

#include <algorithm>
#include <cstring>

namespace shale {

// ---- MemFile ----

uint64_t MemFile::Size() const {
  MutexLock l(&mu_);
  return data_.size();
}

void MemFile::Append(std::string_view data) {
  MutexLock l(&mu_);
  data_.append(data.data(), data.size());
}

void MemFile::Truncate() {
  MutexLock l(&mu_);
  data_.clear();
}

size_t MemFile::Read(uint64_t offset, size_t n, char* scratch) const {
  MutexLock l(&mu_);
  if (offset >= data_.size()) return 0;
  size_t count = std::min<uint64_t>(n, data_.size() - offset);
  std::memcpy(scratch, data_.data() + offset, count);
  return count;
}

// ---- MemSequentialFile ----

Status MemSequentialFile::Read(size_t n, std::string_view* result, char* scratch) {
  size_t count = file_->Read(pos_, n, scratch);
  pos_ += count;
  *result = std::string_view(scratch, count);
  return Status::OK();
}

Status MemSequentialFile::Skip(uint64_t n) {
  // Skipping past the end stops at the end (never moves backwards if already past it).
  uint64_t size = file_->Size();
  uint64_t remaining = size > pos_ ? size - pos_ : 0;
  pos_ += std::min(n, remaining);
  return Status::OK();
}

// ---- MemRandomAccessFile ----

Status MemRandomAccessFile::Read(uint64_t offset, size_t n, std::string_view* result,
                                 char* scratch) const {
  *result = std::string_view(scratch, file_->Read(offset, n, scratch));
  return Status::OK();
}

Status MemRandomAccessFile::GetSize(uint64_t* size) const {
  *size = file_->Size();
  return Status::OK();
}

// ---- MemWritableFile ----

MemWritableFile::MemWritableFile(std::string path, std::shared_ptr<MemFile> file)
    : path_(std::move(path)), file_(std::move(file)), size_(file_->Size()) {}

Status MemWritableFile::CheckOpen() const {
  if (file_ == nullptr) return Status::IOError(path_, "file is already closed");
  return Status::OK();
}

Status MemWritableFile::Append(std::string_view data) {
  Status s = CheckOpen();
  if (!s.ok()) return s;
  file_->Append(data);
  size_ += data.size();
  return Status::OK();
}

Status MemWritableFile::Close() {
  Status s = CheckOpen();
  file_.reset();
  return s;
}

}  // namespace shale
