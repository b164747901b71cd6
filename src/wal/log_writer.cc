#include "wal/log_writer.h"

#include <algorithm>
#include <utility>

#include "util/coding.h"

namespace shale::log {

namespace {

Status ClosedError() { return Status::IOError("log::Writer: used after Close"); }

}  // namespace

Writer::Writer(std::unique_ptr<WritableFile> file, uint64_t initial_length,
               FlushPolicy flush_policy)
    : file_(std::move(file)),
      flush_policy_(flush_policy),
      length_(initial_length),
      block_offset_(static_cast<size_t>(initial_length % kBlockSize)) {}

// A file destroyed without Close is closed by its own destructor.
Writer::~Writer() = default;

Status Writer::AddRecord(std::string_view record) {
  if (!file_) return ClosedError();
  if (!status_.ok()) return status_;
  buffer_.clear();
  bool begin = true;
  bool end = false;
  while (!end) {
    size_t leftover = kBlockSize - block_offset_;
    if (leftover < kHeaderSize) {
      // Too small for a header: pad the block with a zero trailer.
      buffer_.append(leftover, '\0');
      length_ += leftover;
      block_offset_ = 0;
      leftover = kBlockSize;
    }
    const size_t n = std::min(leftover - kHeaderSize, record.size());
    end = (n == record.size());
    const RecordType type =
        begin ? (end ? kFullType : kFirstType) : (end ? kLastType : kMiddleType);
    Status s = EmitFragment(type, record.substr(0, n));
    if (!s.ok()) return s;
    record.remove_prefix(n);
    begin = false;
  }
  Status s = AppendBuffered();
  if (!s.ok()) return s;
  return flush_policy_ == FlushPolicy::kEachRecord ? Flush() : Status::OK();
}

Status Writer::EmitFragment(RecordType type, std::string_view payload) {
  char header[kHeaderSize];
  EncodeFixed32(header, RecordChecksum(type, payload));
  EncodeFixed16(header + 4, static_cast<uint16_t>(payload.size()));
  header[6] = static_cast<char>(type);
  buffer_.append(header, kHeaderSize);
  if (payload.size() < kPassThroughSize) {
    buffer_.append(payload);
  } else {
    Status s = AppendBuffered();
    if (s.ok()) s = file_->Append(payload);
    if (!s.ok()) return Fail(std::move(s));
  }
  length_ += kHeaderSize + payload.size();
  block_offset_ += kHeaderSize + payload.size();
  if (block_offset_ == kBlockSize) block_offset_ = 0;
  return Status::OK();
}

Status Writer::AppendBuffered() {
  if (buffer_.empty()) return Status::OK();
  Status s = file_->Append(buffer_);
  buffer_.clear();
  return s.ok() ? s : Fail(std::move(s));
}

Status Writer::Flush() {
  if (!file_) return ClosedError();
  if (!status_.ok()) return status_;
  Status s = file_->Flush();
  return s.ok() ? s : Fail(std::move(s));
}

Status Writer::Sync() {
  if (!file_) return ClosedError();
  if (!status_.ok()) return status_;
  Status s = file_->Sync();
  return s.ok() ? s : Fail(std::move(s));
}

Status Writer::Close() {
  if (!file_) return ClosedError();
  Status s = file_->Close();
  file_.reset();
  if (!status_.ok()) return status_;
  if (!s.ok()) status_ = s;
  return s;
}

Status Writer::Fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
  return status_;
}

}  // namespace shale::log
