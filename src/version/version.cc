#include "version/version.h"

#include <algorithm>
#include <cassert>

#include "absl/strings/str_cat.h"
#include "cache/table_cache.h"
#include "merge/get_context.h"
#include "table/table_reader.h"
#include "version/version_level_files.h"

namespace shale {

namespace {

// The internal key that sorts before every entry of `user_key`.
std::string FirstKeyOf(std::string_view user_key) {
  return MakeInternalKey(user_key, kMaxSequenceNumber, kValueTypeForSeek);
}

// Whether the user key is past (after) / ahead of (before) every key of the file.
bool AfterFile(const Comparator* ucmp, std::optional<std::string_view> user_key,
               const FileMetaData* f) {
  return user_key && ucmp->Compare(*user_key, ExtractUserKey(f->largest)) > 0;
}
bool BeforeFile(const Comparator* ucmp, std::optional<std::string_view> user_key,
                const FileMetaData* f) {
  return user_key && ucmp->Compare(*user_key, ExtractUserKey(f->smallest)) < 0;
}

}  // namespace

Version::Version(const InternalKeyComparator* icmp, int num_levels)
    : icmp_(icmp), files_(static_cast<size_t>(num_levels)) {}

Version::~Version() {
  assert(refs_ == 0);
  // Leave the VersionSet's list (a no-op for a version that never joined it).
  prev_->next_ = next_;
  next_->prev_ = prev_;
  for (auto& level : files_) {
    for (FileMetaData* f : level) UnrefFile(f);
  }
}

void Version::Unref() {
  assert(refs_ > 0);
  if (--refs_ == 0) delete this;
}

uint64_t Version::NumLevelBytes(int level) const {
  uint64_t sum = 0;
  for (const FileMetaData* f : files_[level]) sum += f->file_size;
  return sum;
}

Status Version::Get(const TableReadOptions& options, TableCache* table_cache,
                    const LookupKey& key, GetContext* context) const {
  const Comparator* ucmp = icmp_->user_comparator();
  const std::string_view user_key = key.user_key();
  const SequenceNumber snapshot = ExtractSequence(key.internal_key());
  // Feeds *context the key's entries in one file.
  auto search_file = [&](const FileMetaData* f, int level) -> Status {
    // The file's pinned table needs no lookup: this Version lists f, so f, and the table it
    // pins, outlive the read.
    const CachedTable* table = f->table_pin.Get();
    std::shared_ptr<const CachedTable> held;
    if (table == nullptr) {
      bool pinnable = false;
      Status s = table_cache->Find(f->number, f->file_size, &held, level, f->global_seqno,
                                   &pinnable);
      if (!s.ok()) return s;
      table = held.get();
      if (pinnable) table = f->table_pin.Set(held);
    }
    Status s;
    if (!table->tombstones->empty()) {
      context->AddCoveringTombstone(table->tombstones->MaxCoveringSequence(user_key, snapshot));
    }
    s = table->reader->Get(options, key.internal_key(),
                           [&](std::string_view ikey, std::string_view entry_value) {
                             if (ucmp->Compare(ExtractUserKey(ikey), user_key) != 0) {
                               return false;  // past the key's entries
                             }
                             if (context->HiddenByTombstone(ExtractSequence(ikey))) return false;
                             return context->Save(ExtractValueType(ikey), entry_value);
                           });
    if (!s.ok()) return s;
    // Older entries, here and in older files, are hidden by the range deletion.
    if (!context->done() && context->covering_tombstone() > 0) {
      context->Save(kTypeRangeDeletion, {});
    }
    return Status::OK();
  };

  for (const FileMetaData* f : files_[0]) {  // newest first
    if (ucmp->Compare(user_key, ExtractUserKey(f->smallest)) < 0 ||
        ucmp->Compare(user_key, ExtractUserKey(f->largest)) > 0) {
      continue;
    }
    Status s = search_file(f, 0);
    if (!s.ok()) return s;
    if (context->done()) return Status::OK();
  }
  for (int level = 1; level < num_levels(); level++) {
    const std::vector<FileMetaData*>& files = files_[level];
    if (files.empty()) continue;
    // The key's entries may continue from one file into the next (see the header comment).
    for (size_t i = FindFile(*icmp_, VersionLevelFiles(&files), key.internal_key());
         i < files.size(); i++) {
      const FileMetaData* f = files[i];
      if (ucmp->Compare(user_key, ExtractUserKey(f->smallest)) < 0) break;
      Status s = search_file(f, level);
      if (!s.ok()) return s;
      if (context->done()) return Status::OK();
    }
  }
  return Status::OK();
}

void Version::AddIterators(const TableReadOptions& options, TableCache* table_cache,
                           std::vector<std::unique_ptr<InternalIterator>>* iterators) const {
  for (const FileMetaData* f : files_[0]) {
    iterators->push_back(table_cache->NewIterator(options, f->number, f->file_size, /*level=*/0,
                                                  f->global_seqno));
  }
  for (int level = 1; level < num_levels(); level++) {
    const std::vector<FileMetaData*>* files = &files_[level];
    if (files->empty()) continue;
    iterators->push_back(NewLevelFilesIterator(icmp_, table_cache, options, files, level));
  }
}

Status Version::AddRangeTombstones(
    TableCache* table_cache,
    std::vector<std::shared_ptr<const RangeTombstones>>* tombstones) const {
  Status status;
  for (int level = 0; level < num_levels(); level++) {
    for (const FileMetaData* f : files_[level]) {
      if (f->num_range_deletions == 0) continue;
      std::shared_ptr<const CachedTable> table;
      Status s = table_cache->Find(f->number, f->file_size, &table, level, f->global_seqno);
      if (!s.ok()) {
        if (status.ok()) status = s;
        continue;
      }
      // Shares the table's fragmented deletions and keeps the table open with them.
      tombstones->emplace_back(table, table->tombstones.get());
    }
  }
  return status;
}

bool Version::OverlapInLevel(int level, std::optional<std::string_view> smallest_user_key,
                             std::optional<std::string_view> largest_user_key) const {
  const Comparator* ucmp = icmp_->user_comparator();
  const std::vector<FileMetaData*>& files = files_[level];
  if (level == 0) {
    return std::any_of(files.begin(), files.end(), [&](const FileMetaData* f) {
      return !AfterFile(ucmp, smallest_user_key, f) && !BeforeFile(ucmp, largest_user_key, f);
    });
  }
  // The first file that ends at or after the range's start is the only candidate.
  size_t index = smallest_user_key
                     ? FindFile(*icmp_, VersionLevelFiles(&files), FirstKeyOf(*smallest_user_key))
                     : 0;
  return index < files.size() && !BeforeFile(ucmp, largest_user_key, files[index]);
}

void Version::GetOverlappingInputs(int level, std::optional<std::string_view> begin,
                                   std::optional<std::string_view> end,
                                   std::vector<FileMetaData*>* inputs) const {
  inputs->clear();
  const Comparator* ucmp = icmp_->user_comparator();
  std::optional<std::string_view> user_begin;
  std::optional<std::string_view> user_end;
  if (begin) user_begin = ExtractUserKey(*begin);
  if (end) user_end = ExtractUserKey(*end);
  const std::vector<FileMetaData*>& files = files_[level];
  size_t i = (level > 0 && user_begin)
                 ? FindFile(*icmp_, VersionLevelFiles(&files), FirstKeyOf(*user_begin))
                 : 0;
  while (i < files.size()) {
    FileMetaData* f = files[i++];
    if (AfterFile(ucmp, user_begin, f)) continue;
    if (BeforeFile(ucmp, user_end, f)) {
      if (level > 0) break;  // sorted: every later file starts later still
      continue;
    }
    inputs->push_back(f);
    if (level == 0) {
      // Widen the range to the file's keys; if it grew, start over with the wider range.
      std::string_view f_begin = ExtractUserKey(f->smallest);
      std::string_view f_end = ExtractUserKey(f->largest);
      bool widened = false;
      if (user_begin && ucmp->Compare(f_begin, *user_begin) < 0) {
        user_begin = f_begin;
        widened = true;
      }
      if (user_end && ucmp->Compare(f_end, *user_end) > 0) {
        user_end = f_end;
        widened = true;
      }
      if (widened) {
        inputs->clear();
        i = 0;
      }
    }
  }
}

int Version::PickLevelForMemTableOutput(std::string_view smallest_user_key,
                                        std::string_view largest_user_key,
                                        bool allow_lower_levels) const {
  if (!allow_lower_levels) return 0;
  for (int level = 0; level < num_levels(); ++level) {
    if (OverlapInLevel(level, smallest_user_key, largest_user_key)) {
      return level == 0 ? 0 : level - 1;
    }
  }
  return num_levels() - 1;
}

Status Version::CheckLevel(int level) const {
  const std::vector<FileMetaData*>& files = files_[level];
  for (size_t i = 0; i < files.size(); ++i) {
    const FileMetaData* f = files[i];
    if (icmp_->Compare(f->smallest, f->largest) > 0) {
      return Status::Corruption(absl::StrCat("L", level, ": file has smallest > largest"),
                                f->DebugString());
    }
    if (i == 0) continue;
    const FileMetaData* prev = files[i - 1];
    if (level == 0) {
      const bool newer_first = prev->largest_seqno > f->largest_seqno ||
                               (prev->largest_seqno == f->largest_seqno && prev->number > f->number);
      if (!newer_first) {
        return Status::Corruption(
            absl::StrCat("L0: files #", prev->number, " and #", f->number, " not newest first"));
      }
    } else if (icmp_->Compare(prev->largest, f->smallest) >= 0) {
      return Status::Corruption(absl::StrCat("L", level, ": files overlap or are out of order"),
                                absl::StrCat(prev->DebugString(), " / ", f->DebugString()));
    }
  }
  return Status::OK();
}

Status Version::CheckConsistency() const {
  for (int level = 0; level < num_levels(); ++level) {
    Status s = CheckLevel(level);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

std::string Version::DebugString() const {
  std::string r;
  for (int level = 0; level < num_levels(); ++level) {
    absl::StrAppend(&r, "--- level ", level, " ---\n");
    for (const FileMetaData* f : files_[level]) absl::StrAppend(&r, " ", f->DebugString(), "\n");
  }
  return r;
}

}  // namespace shale
