#include "bulk/table_sink.h"

#include <cstdio>
#include <cstring>

#include "util/coding.h"

namespace shale::bulk {

TableFileSink::TableFileSink(TableSinkOptions options) : options_(std::move(options)) {}

TableFileSink::~TableFileSink() {
  if (builder_ != nullptr) {
    builder_->Abandon();
    builder_.reset();
    file_->Close().PermitUncheckedError();  // the file is abandoned anyway
  }
}

Status TableFileSink::OpenFile() {
  char number[16];
  std::snprintf(number, sizeof(number), "%06zu", created_.size() + 1);
  std::string path = options_.path_prefix + number + ".sst";
  Status s = options_.file_system->NewWritableFile(path, &file_);
  if (!s.ok()) return s;
  created_.push_back(path);
  builder_ = std::make_unique<TableBuilder>(options_.table_options, options_.compression,
                                            options_.compression_level, options_.comparator,
                                            file_.get(), std::move(path));
  return builder_->status();  // e.g. an unsupported compression type
}

Status TableFileSink::FinishFile() {
  Status s = builder_->Finish();
  if (s.ok()) s = file_->Sync();
  if (s.ok()) s = file_->Close();
  if (s.ok()) {
    file_bytes_ += builder_->FileSize();
    files_.push_back(created_.back());
  } else {
    file_->Close().PermitUncheckedError();  // the first error is the one to report
  }
  builder_.reset();
  file_.reset();
  return s;
}

Status TableFileSink::Add(std::string_view key, std::string_view value) {
  if (!status_.ok()) return status_;
  if (builder_ == nullptr) {
    status_ = OpenFile();
    if (!status_.ok()) return status_;
  }
  // The internal key: the user key and the trailer of a value at sequence number 0.
  ikey_.resize(key.size() + kInternalKeyTrailerSize);
  std::memcpy(ikey_.data(), key.data(), key.size());
  EncodeFixed64(ikey_.data() + key.size(), PackSequenceAndType(0, kTypeValue));
  builder_->Add(ikey_, value);
  entries_++;
  status_ = builder_->status();
  if (status_.ok() && builder_->FileSize() >= options_.target_file_size) status_ = FinishFile();
  return status_;
}

Status TableFileSink::Finish() {
  if (status_.ok() && builder_ != nullptr) status_ = FinishFile();
  return status_;
}

}  // namespace shale::bulk
