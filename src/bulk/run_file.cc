#include "bulk/run_file.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace shale::bulk {

namespace {

// Bytes WriteRunFile gathers before each Append.
constexpr size_t kWriteChunk = 1 << 20;

// Writes a run file: gathers records into a chunk of memory for the file's Appends and keeps
// the samples. Thread-safety: one thread.
class RunWriter {
 public:
  RunWriter(WritableFile* file, size_t chunk_size, uint64_t sample_bytes, BufferAccount* account,
            RunFileInfo* info)
      : file_(file),
        chunk_size_(std::max<size_t>(chunk_size, 64)),
        chunk_(new char[chunk_size_]),
        sample_bytes_(sample_bytes),
        account_(account),
        info_(info) {
    if (account_ != nullptr) account_->Charge(chunk_size_);
  }
  ~RunWriter() {
    if (account_ != nullptr) account_->Release(chunk_size_);
  }
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // Appends one entry; `record` is its encoding when the caller has it (else empty).
  Status Add(std::string_view key, std::string_view value, std::string_view record) {
    if (info_->bytes >= next_sample_) {
      info_->samples.push_back(RunSample{std::string(key), info_->bytes});
      next_sample_ = info_->bytes + sample_bytes_;
    }
    const size_t size = record.empty() ? RecordSize(key.size(), value.size()) : record.size();
    if (used_ + size > chunk_size_) {
      Status s = Flush();
      if (!s.ok()) return s;
    }
    Status s;
    if (size > chunk_size_) {
      // Larger than the whole chunk: written on its own.
      if (record.empty()) {
        std::string encoded(size, '\0');
        EncodeRecord(encoded.data(), key, value);
        s = file_->Append(encoded);
      } else {
        s = file_->Append(record);
      }
    } else if (record.empty()) {
      EncodeRecord(chunk_.get() + used_, key, value);
      used_ += size;
    } else {
      std::memcpy(chunk_.get() + used_, record.data(), size);
      used_ += size;
    }
    info_->bytes += size;
    info_->entries++;
    return s;
  }

  Status Flush() {
    if (used_ == 0) return Status::OK();
    Status s = file_->Append(std::string_view(chunk_.get(), used_));
    used_ = 0;
    return s;
  }

 private:
  WritableFile* const file_;
  const size_t chunk_size_;
  std::unique_ptr<char[]> chunk_;
  const uint64_t sample_bytes_;
  BufferAccount* const account_;
  RunFileInfo* const info_;
  size_t used_ = 0;
  uint64_t next_sample_ = 0;
};

// Creates `path`, runs `write` over a RunWriter into it, then flushes and closes the file.
template <typename WriteFn>
Status WriteRun(FileSystem* fs, const std::string& path, size_t chunk_size,
                uint64_t sample_bytes, BufferAccount* account, RunFileInfo* info,
                WriteFn write) {
  info->path = path;
  info->bytes = 0;
  info->entries = 0;
  info->samples.clear();
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  {
    RunWriter out(file.get(), chunk_size, sample_bytes, account, info);
    s = write(&out);
    if (s.ok()) s = out.Flush();
  }
  if (s.ok()) {
    s = file->Close();
  } else {
    file->Close().PermitUncheckedError();  // the first error is the one to report
  }
  return s;
}

}  // namespace

Status WriteRunFile(FileSystem* fs, const std::string& path, MemoryRunCursor* cursor,
                    uint64_t sample_bytes, RunFileInfo* info) {
  return WriteRun(fs, path, kWriteChunk, sample_bytes, nullptr, info, [cursor](RunWriter* out) {
    Status s;
    for (; s.ok() && cursor->Valid(); cursor->Next()) {
      s = out->Add(cursor->key(), cursor->value(), cursor->record());
    }
    return s;
  });
}

Status WriteMergedRunFile(FileSystem* fs, const std::string& path, RunMerger* merger,
                          uint64_t sample_bytes, size_t buffer_size, BufferAccount* account,
                          RunFileInfo* info, ProgressReporter* progress) {
  return WriteRun(fs, path, buffer_size, sample_bytes, account, info,
                  [merger, progress](RunWriter* out) {
                    Status s;
                    ProgressBatch batch(progress);
                    for (; s.ok() && merger->Valid(); merger->Next()) {
                      s = out->Add(merger->key(), merger->value(), std::string_view());
                      batch.Add(merger->key().size() + merger->value().size());
                    }
                    if (s.ok()) s = merger->status();
                    return s;
                  });
}

Status RunFileCursor::Open(FileSystem* fs, const RunFileInfo& info, const Comparator* comparator,
                           const std::string_view* lower, size_t buffer_size,
                           BufferAccount* account, std::unique_ptr<RunFileCursor>* cursor) {
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
  cursor->reset(new RunFileCursor(info, std::move(file), start, std::max<size_t>(buffer_size, 64),
                                  account));
  RunFileCursor* c = cursor->get();
  c->Next();
  if (lower != nullptr) {
    while (c->Valid() && comparator->Compare(c->key(), *lower) < 0) c->Next();
  }
  return c->status();
}

RunFileCursor::RunFileCursor(const RunFileInfo& info, std::unique_ptr<SequentialFile> file,
                             uint64_t start_offset, size_t buffer_size, BufferAccount* account)
    : info_(info),
      account_(account),
      file_(std::move(file)),
      buffer_(new char[buffer_size]),
      buffer_size_(buffer_size),
      file_offset_(start_offset),
      eof_(start_offset >= info.bytes) {
  if (account_ != nullptr) account_->Charge(buffer_size_);
}

RunFileCursor::~RunFileCursor() {
  if (account_ != nullptr) account_->Release(buffer_size_);
}

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
    if (account_ != nullptr) account_->Charge(buffer_size_);  // the size doubles
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
