#include "shale/sst_file_writer.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/internal_key.h"
#include "base/size_limits.h"
#include "table/table_builder.h"
#include "util/absl_compat.h"

namespace shale {

// Invariants: builder != nullptr iff a file is open and neither finished nor failed-and-
// deleted; status is the first error (sticky); last_user_key is the last point key added.
struct SstFileWriter::Rep {
  Rep(const TableOptions& options, CompressionType compression, const Comparator* ucmp,
      std::shared_ptr<FileSystem> fs)
      : table_options(options),
        compression(compression),
        comparator(ucmp),
        file_system(fs != nullptr ? std::move(fs) : FileSystem::Default()) {}

  Status AddPoint(std::string_view user_key, std::string_view value, ValueType type);
  // Records the first error, abandons the file and deletes it; returns the error.
  Status Fail(Status s);
  Status CheckOpen() const;

  const TableOptions table_options;
  const CompressionType compression;
  const InternalKeyComparator comparator;
  const std::shared_ptr<FileSystem> file_system;

  std::string path;
  std::unique_ptr<WritableFile> file;
  std::unique_ptr<TableBuilder> builder;
  Status status;
  uint64_t finished_size = 0;  // the file size after a successful Finish
  bool has_point_key = false;
  std::string last_user_key;
  std::string ikey;  // scratch for the internal key
};

Status SstFileWriter::Rep::CheckOpen() const {
  if (!status.ok()) return status;
  if (builder == nullptr) return Status::InvalidArgument("SstFileWriter: no file is open");
  return Status::OK();
}

Status SstFileWriter::Rep::Fail(Status s) {
  if (status.ok()) status = s;
  if (builder != nullptr) {
    builder->Abandon();
    builder.reset();
    file->Close().PermitUncheckedError();  // the first error is the one to report
    file.reset();
    file_system->DeleteFile(path).PermitUncheckedError();
  }
  return status;
}

Status SstFileWriter::Rep::AddPoint(std::string_view user_key, std::string_view value,
                                    ValueType type) {
  Status s = CheckOpen();
  if (!s.ok()) return s;
  // Refused before anything is added; the file stays open and usable.
  s = CheckKeySize(type == kTypeValue   ? "SstFileWriter::Put"
                   : type == kTypeMerge ? "SstFileWriter::Merge"
                                        : "SstFileWriter::Delete",
                   user_key.size());
  if (s.ok()) {
    s = CheckValueSize(type == kTypeMerge ? "SstFileWriter::Merge" : "SstFileWriter::Put",
                       value.size());
  }
  if (!s.ok()) return s;
  if (has_point_key) {
    const int c = comparator.user_comparator()->Compare(user_key, last_user_key);
    if (c <= 0) {
      return Fail(Status::InvalidArgument(
          path, absl::StrCat(c == 0 ? "duplicate key '" : "key out of order: '",
                             absl::CEscape(ToAbsl(user_key)), "'",
                             c == 0 ? "" : " after '",
                             c == 0 ? "" : absl::CEscape(ToAbsl(last_user_key)),
                             c == 0 ? "" : "'")));
    }
  }
  has_point_key = true;
  last_user_key.assign(user_key.data(), user_key.size());
  ikey.clear();
  AppendInternalKey(&ikey, ParsedInternalKey(user_key, 0, type));
  builder->Add(ikey, value);
  s = builder->status();
  return s.ok() ? s : Fail(s);
}

SstFileWriter::SstFileWriter(const TableOptions& table_options, CompressionType compression,
                             const Comparator* comparator,
                             std::shared_ptr<FileSystem> file_system)
    : rep_(std::make_unique<Rep>(table_options, compression, comparator,
                                 std::move(file_system))) {}

SstFileWriter::~SstFileWriter() {
  if (rep_->builder != nullptr) {
    rep_->Fail(Status::Aborted("SstFileWriter destroyed before Finish")).PermitUncheckedError();
  }
}

Status SstFileWriter::Open(const std::string& file_path) {
  Rep* r = rep_.get();
  if (r->builder != nullptr || !r->path.empty()) {
    return Status::InvalidArgument(file_path, "SstFileWriter: a file was opened already");
  }
  r->path = file_path;
  Status s = r->file_system->NewWritableFile(file_path, &r->file);
  if (!s.ok()) {
    r->status = s;
    return s;
  }
  r->builder = std::make_unique<TableBuilder>(r->table_options, r->compression,
                                              /*compression_level=*/0, &r->comparator,
                                              r->file.get(), file_path);
  s = r->builder->status();  // e.g. an unsupported compression type
  return s.ok() ? s : r->Fail(s);
}

Status SstFileWriter::Put(std::string_view user_key, std::string_view value) {
  return rep_->AddPoint(user_key, value, kTypeValue);
}

Status SstFileWriter::Delete(std::string_view user_key) {
  return rep_->AddPoint(user_key, {}, kTypeDeletion);
}

Status SstFileWriter::Merge(std::string_view user_key, std::string_view operand) {
  return rep_->AddPoint(user_key, operand, kTypeMerge);
}

Status SstFileWriter::DeleteRange(std::string_view begin_key, std::string_view end_key) {
  Rep* r = rep_.get();
  Status s = r->CheckOpen();
  if (!s.ok()) return s;
  // Refused before anything is added; the file stays open and usable.
  s = CheckRangeKeySizes("SstFileWriter::DeleteRange", begin_key.size(), end_key.size());
  if (!s.ok()) return s;
  const int c = r->comparator.user_comparator()->Compare(begin_key, end_key);
  if (c == 0) return Status::OK();  // an empty range deletes nothing
  if (c > 0) {
    return r->Fail(Status::InvalidArgument(
        r->path, absl::StrCat("range deletion end '", absl::CEscape(ToAbsl(end_key)),
                              "' comes before its start '", absl::CEscape(ToAbsl(begin_key)),
                              "'")));
  }
  r->ikey.clear();
  AppendInternalKey(&r->ikey, ParsedInternalKey(begin_key, 0, kTypeRangeDeletion));
  r->builder->Add(r->ikey, end_key);
  s = r->builder->status();
  return s.ok() ? s : r->Fail(s);
}

Status SstFileWriter::Finish(ExternalSstFileInfo* file_info) {
  Rep* r = rep_.get();
  Status s = r->CheckOpen();
  if (!s.ok()) return r->Fail(s);
  if (r->builder->NumEntries() == 0) {
    return r->Fail(Status::InvalidArgument(r->path, "cannot create an SST file with no entries"));
  }
  s = r->builder->Finish();
  if (s.ok()) s = r->file->Sync();
  if (s.ok()) s = r->file->Close();
  if (!s.ok()) return r->Fail(s);
  const TableProperties& props = r->builder->properties();
  if (file_info != nullptr) {
    file_info->file_path = r->path;
    file_info->smallest_key = props.smallest_user_key;
    file_info->largest_key = props.largest_user_key;
    file_info->smallest_range_del_key = props.smallest_range_del_key;
    file_info->largest_range_del_key = props.largest_range_del_key;
    file_info->sequence_number = 0;
    file_info->file_size = r->builder->FileSize();
    file_info->num_entries = props.num_entries - props.num_range_deletions;
    file_info->num_range_del_entries = props.num_range_deletions;
    file_info->version = static_cast<int32_t>(props.format_version);
  }
  r->finished_size = r->builder->FileSize();
  r->builder.reset();
  r->file.reset();
  return Status::OK();
}

uint64_t SstFileWriter::FileSize() const {
  return rep_->builder != nullptr ? rep_->builder->FileSize() : rep_->finished_size;
}

}  // namespace shale
