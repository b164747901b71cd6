#include "bulk/run_file.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace shale::bulk {

namespace {

// Bytes the writer gathers before each Append.
constexpr size_t kWriteChunk = 1 << 20;

// Gathers records into chunks of kWriteChunk bytes for the file.
class ChunkedAppender {
 public:
  explicit ChunkedAppender(WritableFile* file) : file_(file), chunk_(new char[kWriteChunk]) {}

  Status Append(std::string_view bytes) {
    if (used_ + bytes.size() > kWriteChunk) {
      Status s = Flush();
      if (!s.ok()) return s;
      if (bytes.size() > kWriteChunk) return file_->Append(bytes);
    }
    std::memcpy(chunk_.get() + used_, bytes.data(), bytes.size());
    used_ += bytes.size();
    return Status::OK();
  }

  Status Flush() {
    if (used_ == 0) return Status::OK();
    Status s = file_->Append(std::string_view(chunk_.get(), used_));
    used_ = 0;
    return s;
  }

 private:
  WritableFile* const file_;
  std::unique_ptr<char[]> chunk_;
  size_t used_ = 0;
};

}  // namespace

Status WriteRunFile(FileSystem* fs, const std::string& path, MemoryRunCursor* cursor,
                    uint64_t sample_bytes, RunFileInfo* info) {
  info->path = path;
  info->bytes = 0;
  info->entries = 0;
  info->samples.clear();
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  ChunkedAppender out(file.get());
  uint64_t next_sample = 0;
  for (; s.ok() && cursor->Valid(); cursor->Next()) {
    const std::string_view record = cursor->record();
    if (info->bytes >= next_sample) {
      info->samples.push_back(RunSample{std::string(cursor->key()), info->bytes});
      next_sample = info->bytes + sample_bytes;
    }
    s = out.Append(record);
    info->bytes += record.size();
    info->entries++;
  }
  if (s.ok()) s = out.Flush();
  if (s.ok()) {
    s = file->Close();
  } else {
    file->Close().PermitUncheckedError();  // the first error is the one to report
  }
  return s;
}

Status RunFileCursor::Open(FileSystem* fs, const RunFileInfo& info, const Comparator* comparator,
                           const std::string_view* lower, size_t buffer_size,
                           std::unique_ptr<RunFileCursor>* cursor) {
  uint64_t start = 0;
  if (lower != nullptr) {
    // The last sample below *lower: every key before it is below *lower too.
    auto it = std::lower_bound(info.samples.begin(), info.samples.end(), *lower,
                               [comparator](const RunSample& sample, std::string_view key) {
                                 return comparator->Compare(sample.key, key) < 0;
                               });
    if (it != info.samples.begin()) start = std::prev(it)->offset;
  }
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(info.path, &file);
  if (s.ok() && start > 0) s = file->Skip(start);
  if (!s.ok()) return s;
  cursor->reset(new RunFileCursor(info, std::move(file), start, std::max<size_t>(buffer_size, 64)));
  RunFileCursor* c = cursor->get();
  c->Next();
  if (lower != nullptr) {
    while (c->Valid() && comparator->Compare(c->key(), *lower) < 0) c->Next();
  }
  return c->status();
}

RunFileCursor::RunFileCursor(const RunFileInfo& info, std::unique_ptr<SequentialFile> file,
                             uint64_t start_offset, size_t buffer_size)
    : info_(info),
      file_(std::move(file)),
      buffer_(new char[buffer_size]),
      buffer_size_(buffer_size),
      file_offset_(start_offset),
      eof_(start_offset >= info.bytes) {}

void RunFileCursor::Fail(Status s) {
  status_ = std::move(s);
  valid_ = false;
}

Status RunFileCursor::Refill() {
  const size_t unread = limit_ - pos_;
  if (unread == buffer_size_) {
    // One record is larger than the buffer: double it.
    std::unique_ptr<char[]> bigger(new char[buffer_size_ * 2]);
    std::memcpy(bigger.get(), buffer_.get() + pos_, unread);
    buffer_ = std::move(bigger);
    buffer_size_ *= 2;
  } else if (pos_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, unread);
  }
  pos_ = 0;
  limit_ = unread;
  const uint64_t left = info_.bytes - file_offset_;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer_size_ - limit_, left));
  std::string_view got;
  Status s = file_->Read(want, &got, buffer_.get() + limit_);
  if (!s.ok()) return s;
  if (got.data() != buffer_.get() + limit_ && !got.empty()) {
    std::memmove(buffer_.get() + limit_, got.data(), got.size());
  }
  limit_ += got.size();
  file_offset_ += got.size();
  if (got.size() < want) {
    return Status::Corruption(info_.path, absl::StrCat("run file ends at offset ", file_offset_,
                                                       ", before its ", info_.bytes, " bytes"));
  }
  eof_ = file_offset_ >= info_.bytes;
  return Status::OK();
}

void RunFileCursor::Next() {
  for (;;) {
    const char* p = buffer_.get() + pos_;
    const char* q = DecodeRecord(p, buffer_.get() + limit_, &key_, &value_);
    if (q != nullptr) {
      pos_ += static_cast<size_t>(q - p);
      prefix_ = KeyPrefix(key_);
      valid_ = true;
      return;
    }
    if (eof_) {
      if (pos_ == limit_) {
        valid_ = false;
      } else {
        Fail(Status::Corruption(info_.path, absl::StrCat("bad record at offset ",
                                                         file_offset_ - (limit_ - pos_))));
      }
      return;
    }
    Status s = Refill();
    if (!s.ok()) {
      Fail(s);
      return;
    }
  }
}

}  // namespace shale::bulk
