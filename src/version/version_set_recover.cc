// VersionSet::Recover: CURRENT -> MANIFEST -> the state of the DB.
#include <cassert>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "util/absl_compat.h"
#include "version/version_builder.h"
#include "version/version_set.h"
#include "wal/log_reader.h"

namespace shale {

// The bookkeeping fields met so far while replaying a MANIFEST (the last value of each wins).
struct VersionSet::RecoveredState {
  bool has_log_number = false;
  bool has_next_file = false;
  bool has_last_sequence = false;
  uint64_t log_number = 0;
  uint64_t prev_log_number = 0;
  uint64_t next_file = 0;
  SequenceNumber last_sequence = 0;
  std::vector<std::string> compact_pointers;  // per level
};

namespace {

using RecoveredState = VersionSet::RecoveredState;

// Decodes and checks one MANIFEST record and applies it to the builder and the state.
Status ApplyRecord(std::string_view record, const Comparator* ucmp, VersionBuilder* builder,
                   RecoveredState* state) {
  VersionEdit edit;
  Status s = edit.DecodeFrom(record);
  if (!s.ok()) return s;
  if (edit.column_family() != 0) {
    return Status::NotSupported(
        absl::StrCat("edit for column family ", edit.column_family(), ", which is not supported"));
  }
  if (edit.has_comparator() && edit.comparator() != ucmp->Name()) {
    return Status::InvalidArgument(absl::StrCat("comparator mismatch: the DB was created with ",
                                                ToAbsl(edit.comparator()),
                                                ", opened with ", ucmp->Name()));
  }
  s = builder->Apply(edit);
  if (!s.ok()) return s;
  if (edit.has_log_number()) {
    state->has_log_number = true;
    state->log_number = edit.log_number();
  }
  if (edit.has_prev_log_number()) state->prev_log_number = edit.prev_log_number();
  if (edit.has_next_file_number()) {
    state->has_next_file = true;
    state->next_file = edit.next_file_number();
  }
  if (edit.has_last_sequence()) {
    state->has_last_sequence = true;
    state->last_sequence = edit.last_sequence();
  }
  for (const auto& [level, key] : edit.compact_pointers()) state->compact_pointers[level] = key;
  return Status::OK();
}

// `s` with the file (and where in it) put in front of its message.
Status InFile(const Status& s, std::string_view where) {
  return Status(s.code(), s.subcode(), where, s.message());
}

// Escapes the start of a file's contents for an error message.
std::string Quote(std::string_view contents) {
  return absl::StrCat("'", absl::CEscape(ToAbsl(contents.substr(0, 64))),
                      contents.size() > 64 ? "...'" : "'");
}

}  // namespace

Status VersionSet::Recover(bool* save_manifest) {
  *save_manifest = false;
  assert(manifest_file_number_ == 0 && descriptor_log_ == nullptr);
  std::string name;
  uint64_t number = 0;
  Status s = ReadCurrentFile(&name, &number);
  if (!s.ok()) return s;
  s = ReplayManifest(absl::StrCat(ToAbsl(dbname_), "/", ToAbsl(name)), number);
  if (s.ok()) *save_manifest = true;
  return s;
}

Status VersionSet::ReadCurrentFile(std::string* manifest_name, uint64_t* manifest_number) {
  const std::string path = CurrentFileName(dbname_);
  std::string contents;
  Status s = ReadFileToString(fs_, path, &contents);
  if (s.IsPathNotFound() || s.IsNotFound()) {
    return Status::Corruption(path, "missing: no MANIFEST is named");
  }
  if (!s.ok()) return s;
  if (contents.empty() || contents.back() != '\n') {
    return Status::Corruption(path, absl::StrCat("empty or not ending in a newline: ",
                                                 Quote(contents)));
  }
  contents.pop_back();
  FileType type;
  if (!ParseFileName(contents, manifest_number, &type) || type != FileType::kDescriptorFile) {
    return Status::Corruption(path, absl::StrCat("does not name a MANIFEST: ", Quote(contents)));
  }
  *manifest_name = std::move(contents);
  return Status::OK();
}

Status VersionSet::ReplayManifest(const std::string& path, uint64_t manifest_number) {
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(path, &file);
  if (s.IsPathNotFound() || s.IsNotFound()) {
    return Status::Corruption(path, "named by CURRENT but missing");
  }
  if (!s.ok()) return s;
  RecoveredState state;
  state.compact_pointers.resize(static_cast<size_t>(num_levels_));
  auto* v = new Version(&icmp_, num_levels_);  // refcounted: freed by its last Unref
  v->Ref();
  {
    VersionBuilder builder(&icmp_, current_);
    s = ReadManifest(file.get(), path, &builder, &state);
    if (s.ok()) {
      s = builder.SaveTo(v);
      if (!s.ok()) s = InFile(s, path);
    }
  }
  if (s.ok()) InstallRecovered(v, &state, manifest_number);
  v->Unref();
  return s;
}

Status VersionSet::ReadManifest(SequentialFile* file, const std::string& path,
                                VersionBuilder* builder, RecoveredState* state) {
  // A torn last record (a crash during a MANIFEST write) is dropped; anything else fails.
  log::Reader reader(file, nullptr, /*checksum=*/true, /*initial_offset=*/0,
                     log::WalRecoveryMode::kTolerateCorruptedTailRecords, path);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    Status s = ApplyRecord(record, icmp_.user_comparator(), builder, state);
    if (!s.ok()) {
      return InFile(s, absl::StrCat(path, ": record at offset ", reader.LastRecordOffset()));
    }
  }
  if (!reader.status().ok()) return reader.status();  // names the MANIFEST and the offset
  if (!state->has_next_file) return Status::Corruption(path, "no next-file-number entry");
  if (!state->has_log_number) return Status::Corruption(path, "no log-number entry");
  if (!state->has_last_sequence) return Status::Corruption(path, "no last-sequence entry");
  return Status::OK();
}

void VersionSet::InstallRecovered(Version* v, RecoveredState* state, uint64_t manifest_number) {
  // No number in use may be handed out again.
  if (state->next_file > 0) MarkFileNumberUsed(state->next_file - 1);
  MarkFileNumberUsed(manifest_number);
  MarkFileNumberUsed(state->log_number);
  MarkFileNumberUsed(state->prev_log_number);
  for (int level = 0; level < num_levels_; ++level) {
    for (const FileMetaData* f : v->files(level)) MarkFileNumberUsed(f->number);
  }
  SetLastSequence(state->last_sequence);
  log_number_ = state->log_number;
  prev_log_number_ = state->prev_log_number;
  compact_pointers_ = std::move(state->compact_pointers);
  manifest_file_number_ = manifest_number;
  AppendVersion(v);
}

}  // namespace shale
