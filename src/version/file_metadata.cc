#include "version/file_metadata.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// "'user' @ seq : type", or the escaped bytes when the key does not parse.
std::string KeyDebugString(std::string_view internal_key) {
  ParsedInternalKey parsed;
  if (ParseInternalKey(internal_key, &parsed).ok()) return parsed.DebugString();
  return absl::StrCat("(bad key '", absl::CEscape(ToAbsl(internal_key)), "')");
}

}  // namespace

TablePin& TablePin::operator=(const TablePin& other) {
  // Only plain-value FileMetaData are assigned to (a VersionEdit's, a job's), and those are
  // never pinned; were one pinned, its table would be let go of here.
  if (this != &other) Release();
  return *this;
}

std::shared_ptr<const CachedTable> TablePin::Release() {
  table_.store(nullptr, std::memory_order_relaxed);
  std::unique_ptr<Owner> owner(owner_.exchange(nullptr, std::memory_order_relaxed));
  return owner == nullptr ? nullptr : std::move(owner->table);
}

TablePin::~TablePin() { delete owner_.load(std::memory_order_relaxed); }

const CachedTable* TablePin::Set(std::shared_ptr<const CachedTable> table) const {
  auto owner = std::make_unique<Owner>();
  owner->table = std::move(table);
  Owner* expected = nullptr;
  if (!owner_.compare_exchange_strong(expected, owner.get(), std::memory_order_acq_rel)) {
    return expected->table.get();  // another reader pinned it first: the same table
  }
  const CachedTable* pinned = owner.release()->table.get();
  table_.store(pinned, std::memory_order_release);
  return pinned;
}

void FileMetaData::UpdateBoundaries(std::string_view key, SequenceNumber seqno) {
  if (smallest.empty()) smallest.assign(key.data(), key.size());
  largest.assign(key.data(), key.size());
  smallest_seqno = std::min(smallest_seqno, seqno);
  largest_seqno = std::max(largest_seqno, seqno);
}

bool FileMetaData::SamePersistentFields(const FileMetaData& o) const {
  return number == o.number && file_size == o.file_size && smallest == o.smallest &&
         largest == o.largest && smallest_seqno == o.smallest_seqno &&
         largest_seqno == o.largest_seqno && num_entries == o.num_entries &&
         num_deletions == o.num_deletions && num_range_deletions == o.num_range_deletions &&
         raw_key_size == o.raw_key_size && raw_value_size == o.raw_value_size &&
         creation_time == o.creation_time && global_seqno == o.global_seqno;
}

std::string FileMetaData::DebugString() const {
  return absl::StrCat("#", number, " size=", file_size, " [", KeyDebugString(smallest), " .. ",
                      KeyDebugString(largest), "] seq=[", smallest_seqno, ",", largest_seqno,
                      "] entries=", num_entries, " dels=", num_deletions,
                      " range_dels=", num_range_deletions, " raw_key=", raw_key_size,
                      " raw_value=", raw_value_size, " created=", creation_time,
                      global_seqno != 0 ? absl::StrCat(" global_seq=", global_seqno) : "");
}

FileMetaData* NewSharedFileMetaData(const FileMetaData& f) {
  // The one place shared file metadata is allocated; UnrefFile() is the one place it is freed.
  auto* copy = new FileMetaData(f);
  copy->refs = 0;
  copy->being_compacted = false;
  copy->marked_for_compaction = false;
  return copy;
}

void UnrefFile(FileMetaData* f) {
  assert(f->refs > 0);
  if (--f->refs == 0) delete f;
}

}  // namespace shale
