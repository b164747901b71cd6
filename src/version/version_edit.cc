// VersionEdit encoding and decoding; doc/manifest_format.md is the specification.
#include "version/version_edit.h"


#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/coding.h"

namespace shale {

namespace {

// Edit field tags. Stored on disk: never renumber or reuse.
enum EditTag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 8,
  kColumnFamily = 9,
  // Column families (RocksDB's 200-203 and 300 under our next free numbers):
  kColumnFamilyAdd = 10,   // bytes: the name; the family is column_family()
  kColumnFamilyDrop = 11,  // no payload
  kMaxColumnFamily = 12,   // varint32: the largest family id ever used
  kInAtomicGroup = 13,     // varint32: how many edits of the group follow this one
};

// Optional fields of a new-file record, each followed by a length-prefixed payload (a varint64
// for every field defined so far). Stored on disk: never renumber or reuse.
enum FileFieldTag : uint32_t {
  kNumEntries = 1,
  kNumDeletions = 2,
  kNumRangeDeletions = 3,
  kRawKeySize = 4,
  kRawValueSize = 5,
  kCreationTime = 6,
  // Not safe to ignore: a reader that did not apply it would see the file's entries at
  // sequence 0 instead of the one ingestion assigned.
  kGlobalSeqno = 7,
};

Status EditCorruption(std::string_view what) {
  return Status::Corruption("VersionEdit", what);
}

bool GetLevel(std::string_view* input, int* level) {
  uint32_t v;
  if (!GetVarint32(input, &v) || v >= static_cast<uint32_t>(kMaxNumLevels)) return false;
  *level = static_cast<int>(v);
  return true;
}

// A length-prefixed internal key that parses (trailer present, known type).
bool GetInternalKey(std::string_view* input, std::string* key) {
  std::string_view k;
  ParsedInternalKey parsed;
  if (!GetLengthPrefixed(input, &k) || !ParseInternalKey(k, &parsed).ok()) return false;
  key->assign(k.data(), k.size());
  return true;
}

void PutFileField(std::string* dst, FileFieldTag tag, uint64_t value) {
  if (value == 0) return;  // absent fields decode as 0
  PutVarint32(dst, tag);
  std::string payload;
  PutVarint64(&payload, value);
  PutLengthPrefixed(dst, payload);
}

void EncodeFileBody(const FileMetaData& f, std::string* dst) {
  PutVarint64(dst, f.number);
  PutVarint64(dst, f.file_size);
  PutLengthPrefixed(dst, f.smallest);
  PutLengthPrefixed(dst, f.largest);
  PutVarint64(dst, f.smallest_seqno);
  PutVarint64(dst, f.largest_seqno);
  PutFileField(dst, kNumEntries, f.num_entries);
  PutFileField(dst, kNumDeletions, f.num_deletions);
  PutFileField(dst, kNumRangeDeletions, f.num_range_deletions);
  PutFileField(dst, kRawKeySize, f.raw_key_size);
  PutFileField(dst, kRawValueSize, f.raw_value_size);
  PutFileField(dst, kCreationTime, f.creation_time);
  PutFileField(dst, kGlobalSeqno, f.global_seqno);
}

// The field of FileMetaData that an optional file-field tag sets, or nullptr if unknown.
uint64_t* FileField(FileMetaData* f, uint32_t tag) {
  switch (tag) {
    case kNumEntries: return &f->num_entries;
    case kNumDeletions: return &f->num_deletions;
    case kNumRangeDeletions: return &f->num_range_deletions;
    case kRawKeySize: return &f->raw_key_size;
    case kRawValueSize: return &f->raw_value_size;
    case kCreationTime: return &f->creation_time;
    case kGlobalSeqno: return &f->global_seqno;
    default: return nullptr;
  }
}

Status DecodeFileFields(std::string_view body, FileMetaData* f) {
  while (!body.empty()) {
    uint32_t tag;
    std::string_view payload;
    if (!GetVarint32(&body, &tag) || !GetLengthPrefixed(&body, &payload)) {
      return EditCorruption("new-file record: truncated optional field");
    }
    uint64_t* field = FileField(f, tag);
    if (field == nullptr) {
      if (tag & VersionEdit::kTagSafeToIgnoreBit) continue;
      return EditCorruption(absl::StrCat("new-file record: unknown field tag ", tag));
    }
    if (!GetVarint64(&payload, field) || !payload.empty()) {
      return EditCorruption(absl::StrCat("new-file record: bad payload for field tag ", tag));
    }
  }
  return Status::OK();
}

Status DecodeFileBody(std::string_view body, FileMetaData* f) {
  if (!GetVarint64(&body, &f->number) || !GetVarint64(&body, &f->file_size)) {
    return EditCorruption("new-file record: truncated number or size");
  }
  if (!GetInternalKey(&body, &f->smallest) || !GetInternalKey(&body, &f->largest)) {
    return EditCorruption(absl::StrCat("new-file record #", f->number, ": bad boundary key"));
  }
  if (!GetVarint64(&body, &f->smallest_seqno) || !GetVarint64(&body, &f->largest_seqno)) {
    return EditCorruption(absl::StrCat("new-file record #", f->number, ": truncated sequences"));
  }
  return DecodeFileFields(body, f);
}

}  // namespace

void VersionEdit::Clear() { *this = VersionEdit(); }

void VersionEdit::SetCompactPointer(int level, std::string_view internal_key) {
  for (auto& [l, key] : compact_pointers_) {
    if (l == level) {
      key.assign(internal_key.data(), internal_key.size());
      return;
    }
  }
  compact_pointers_.emplace_back(level, std::string(internal_key));
}

void VersionEdit::AddFile(int level, const FileMetaData& f) {
  FileMetaData copy = f;
  copy.refs = 0;
  copy.being_compacted = false;
  copy.marked_for_compaction = false;
  new_files_.emplace_back(level, std::move(copy));
}

void VersionEdit::EncodeTo(std::string* dst) const {
  PutVarint32(dst, kColumnFamily);
  PutVarint32(dst, column_family_);
  if (is_column_family_add_) {
    PutVarint32(dst, kColumnFamilyAdd);
    PutLengthPrefixed(dst, column_family_name_);
  }
  if (is_column_family_drop_) PutVarint32(dst, kColumnFamilyDrop);
  if (has_max_column_family_) {
    PutVarint32(dst, kMaxColumnFamily);
    PutVarint32(dst, max_column_family_);
  }
  if (is_in_atomic_group_) {
    PutVarint32(dst, kInAtomicGroup);
    PutVarint32(dst, remaining_entries_);
  }
  if (has_comparator_) {
    PutVarint32(dst, kComparator);
    PutLengthPrefixed(dst, comparator_);
  }
  const std::pair<bool, std::pair<EditTag, uint64_t>> numbers[] = {
      {has_log_number_, {kLogNumber, log_number_}},
      {has_prev_log_number_, {kPrevLogNumber, prev_log_number_}},
      {has_next_file_number_, {kNextFileNumber, next_file_number_}},
      {has_last_sequence_, {kLastSequence, last_sequence_}},
  };
  for (const auto& [present, field] : numbers) {
    if (!present) continue;
    PutVarint32(dst, field.first);
    PutVarint64(dst, field.second);
  }
  for (const auto& [level, key] : compact_pointers_) {
    PutVarint32(dst, kCompactPointer);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutLengthPrefixed(dst, key);
  }
  for (const auto& [level, number] : deleted_files_) {
    PutVarint32(dst, kDeletedFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    PutVarint64(dst, number);
  }
  std::string body;
  for (const auto& [level, f] : new_files_) {
    PutVarint32(dst, kNewFile);
    PutVarint32(dst, static_cast<uint32_t>(level));
    body.clear();
    EncodeFileBody(f, &body);
    PutLengthPrefixed(dst, body);
  }
}

Status VersionEdit::DecodeFrom(std::string_view src) {
  Clear();
  while (!src.empty()) {
    uint32_t tag;
    if (!GetVarint32(&src, &tag)) return EditCorruption("truncated tag");
    Status s = DecodeField(tag, &src);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status VersionEdit::DecodeField(uint32_t tag, std::string_view* input) {
  switch (tag) {
    case kComparator: {
      std::string_view name;
      if (!GetLengthPrefixed(input, &name)) return EditCorruption("truncated comparator name");
      SetComparatorName(name);
      return Status::OK();
    }
    case kLogNumber:
      has_log_number_ = GetVarint64(input, &log_number_);
      return has_log_number_ ? Status::OK() : EditCorruption("truncated log number");
    case kPrevLogNumber:
      has_prev_log_number_ = GetVarint64(input, &prev_log_number_);
      return has_prev_log_number_ ? Status::OK() : EditCorruption("truncated prev log number");
    case kNextFileNumber:
      has_next_file_number_ = GetVarint64(input, &next_file_number_);
      return has_next_file_number_ ? Status::OK() : EditCorruption("truncated next file number");
    case kLastSequence:
      has_last_sequence_ = GetVarint64(input, &last_sequence_);
      return has_last_sequence_ ? Status::OK() : EditCorruption("truncated last sequence");
    case kColumnFamily:
      return GetVarint32(input, &column_family_) ? Status::OK()
                                                 : EditCorruption("truncated column family");
    case kColumnFamilyAdd: {
      std::string_view name;
      if (!GetLengthPrefixed(input, &name)) {
        return EditCorruption("truncated column family name");
      }
      AddColumnFamily(name);
      return Status::OK();
    }
    case kColumnFamilyDrop:
      DropColumnFamily();
      return Status::OK();
    case kMaxColumnFamily:
      has_max_column_family_ = GetVarint32(input, &max_column_family_);
      return has_max_column_family_ ? Status::OK()
                                    : EditCorruption("truncated max column family");
    case kInAtomicGroup:
      is_in_atomic_group_ = GetVarint32(input, &remaining_entries_);
      return is_in_atomic_group_ ? Status::OK() : EditCorruption("truncated atomic group count");
    case kCompactPointer: {
      int level;
      std::string key;
      if (!GetLevel(input, &level) || !GetInternalKey(input, &key)) {
        return EditCorruption("bad compaction pointer");
      }
      SetCompactPointer(level, key);
      return Status::OK();
    }
    case kDeletedFile: {
      int level;
      uint64_t number;
      if (!GetLevel(input, &level) || !GetVarint64(input, &number)) {
        return EditCorruption("bad deleted-file record");
      }
      DeleteFile(level, number);
      return Status::OK();
    }
    case kNewFile: {
      int level;
      std::string_view body;
      if (!GetLevel(input, &level) || !GetLengthPrefixed(input, &body)) {
        return EditCorruption("bad new-file record: bad level or truncated");
      }
      FileMetaData f;
      Status s = DecodeFileBody(body, &f);
      if (s.ok()) new_files_.emplace_back(level, std::move(f));
      return s;
    }
    default: {
      std::string_view skipped;
      if (!(tag & kTagSafeToIgnoreBit)) {
        return EditCorruption(absl::StrCat("unknown tag ", tag));
      }
      if (!GetLengthPrefixed(input, &skipped)) {
        return EditCorruption(absl::StrCat("truncated field with ignorable tag ", tag));
      }
      return Status::OK();
    }
  }
}

std::string VersionEdit::DebugString() const {
  std::string r = absl::StrCat("VersionEdit {\n  ColumnFamily: ", column_family_, "\n");
  if (is_column_family_add_) {
    absl::StrAppend(&r, "  ColumnFamilyAdd: ", ToAbsl(column_family_name_), "\n");
  }
  if (is_column_family_drop_) r.append("  ColumnFamilyDrop\n");
  if (has_max_column_family_) absl::StrAppend(&r, "  MaxColumnFamily: ", max_column_family_, "\n");
  if (is_in_atomic_group_) {
    absl::StrAppend(&r, "  AtomicGroupRemaining: ", remaining_entries_, "\n");
  }
  if (has_comparator_) absl::StrAppend(&r, "  Comparator: ", ToAbsl(comparator_), "\n");
  if (has_log_number_) absl::StrAppend(&r, "  LogNumber: ", log_number_, "\n");
  if (has_prev_log_number_) absl::StrAppend(&r, "  PrevLogNumber: ", prev_log_number_, "\n");
  if (has_next_file_number_) absl::StrAppend(&r, "  NextFileNumber: ", next_file_number_, "\n");
  if (has_last_sequence_) absl::StrAppend(&r, "  LastSequence: ", last_sequence_, "\n");
  for (const auto& [level, key] : compact_pointers_) {
    ParsedInternalKey parsed;
    const std::string shown =
        ParseInternalKey(key, &parsed).ok() ? parsed.DebugString() : std::string("(bad key)");
    absl::StrAppend(&r, "  CompactPointer: L", level, " ", shown, "\n");
  }
  for (const auto& [level, number] : deleted_files_) {
    absl::StrAppend(&r, "  DeleteFile: L", level, " #", number, "\n");
  }
  for (const auto& [level, f] : new_files_) {
    absl::StrAppend(&r, "  AddFile: L", level, " ", f.DebugString(), "\n");
  }
  r.append("}\n");
  return r;
}

}  // namespace shale
