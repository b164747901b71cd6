// WriteBatch and WriteBatchInternal: building, decoding and applying the serialized form
// described in include/shale/write_batch.h.

#include "shale/write_batch.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "shale/db.h"
#include "base/size_limits.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/coding.h"

namespace shale {

namespace {

constexpr size_t kHeader = WriteBatchInternal::kHeader;
// Keys and values are varint32 length-prefixed: the size limits keep them far below 4 GiB.
static_assert(kMaxKeySize < UINT32_MAX && kMaxValueSize < UINT32_MAX);

// Whether records of this type carry a second varstring (the value, or a range's end key).
bool HasValueField(ValueType type) {
  return type == kTypeValue || type == kTypeMerge || type == kTypeRangeDeletion;
}

uint32_t DecodeCount(std::string_view rep) {
  return rep.size() < kHeader ? 0 : DecodeFixed32(rep.data() + 8);
}

// Decodes every record of `rep` in order and calls fn(const WriteBatchRecord&) -> Status on
// each, stopping at the first error (fn's, or the contents' as documented on
// WriteBatch::Iterate).
template <typename Fn>
Status ForEachRecord(std::string_view rep, Fn&& fn) {
  if (rep.size() < kHeader) {
    return Status::Corruption("WriteBatch: contents shorter than the 12-byte header",
                              absl::StrCat(rep.size(), " bytes"));
  }
  const uint32_t expected = DecodeCount(rep);
  std::string_view input = rep.substr(kHeader);
  uint32_t found = 0;
  while (!input.empty()) {
    const size_t offset = rep.size() - input.size();
    if (found == expected) {
      return Status::Corruption(
          absl::StrCat("WriteBatch: more records than the header's count of ", expected),
          absl::StrCat("extra record at offset ", offset));
    }
    WriteBatchRecord record;
    Status s = ReadWriteBatchRecord(&input, &record);
    if (!s.ok()) {
      return Status::Corruption(
          absl::StrCat("WriteBatch: record ", found, " at offset ", offset), s.message());
    }
    s = fn(record);
    if (!s.ok()) return s;
    ++found;
  }
  if (found != expected) {
    return Status::Corruption(absl::StrCat("WriteBatch: header counts ", expected, " records"),
                              absl::StrCat("found ", found));
  }
  return Status::OK();
}

// Hands one decoded record to a user handler.
Status Dispatch(const WriteBatchRecord& r, WriteBatch::Handler* handler) {
  switch (r.type) {
    case kTypeValue:
      return handler->PutCF(r.column_family, r.key, r.value);
    case kTypeDeletion:
      return handler->DeleteCF(r.column_family, r.key);
    case kTypeSingleDeletion:
      return handler->SingleDeleteCF(r.column_family, r.key);
    case kTypeRangeDeletion:
      return handler->DeleteRangeCF(r.column_family, r.key, r.value);
    case kTypeMerge:
      return handler->MergeCF(r.column_family, r.key, r.value);
  }
  // ReadWriteBatchRecord yields only the types above.
  assert(false);
  return Status::Corruption("WriteBatch: unexpected record type");
}

}  // namespace

Status ReadWriteBatchRecord(std::string_view* input, WriteBatchRecord* record) {
  if (input->empty()) return Status::Corruption("missing tag");
  const auto tag = static_cast<unsigned char>(input->front());
  input->remove_prefix(1);
  bool has_cf = true;
  switch (tag) {
    case kTypeValue:
    case kTypeDeletion:
    case kTypeSingleDeletion:
    case kTypeRangeDeletion:
    case kTypeMerge:
      record->type = static_cast<ValueType>(tag);
      has_cf = false;
      break;
    case kTypeColumnFamilyValue:
      record->type = kTypeValue;
      break;
    case kTypeColumnFamilyDeletion:
      record->type = kTypeDeletion;
      break;
    case kTypeColumnFamilySingleDeletion:
      record->type = kTypeSingleDeletion;
      break;
    case kTypeColumnFamilyRangeDeletion:
      record->type = kTypeRangeDeletion;
      break;
    case kTypeColumnFamilyMerge:
      record->type = kTypeMerge;
      break;
    default:
      return Status::Corruption(absl::StrCat("unknown tag 0x", absl::Hex(tag)));
  }
  record->column_family = 0;
  if (has_cf && !GetVarint32(input, &record->column_family)) {
    return Status::Corruption("bad column family id");
  }
  if (!GetLengthPrefixed(input, &record->key)) return Status::Corruption("bad key");
  // An empty view that still points into the input: never a null data() (memcpy-safe).
  record->value = input->substr(0, 0);
  if (HasValueField(record->type) && !GetLengthPrefixed(input, &record->value)) {
    return Status::Corruption(record->type == kTypeRangeDeletion ? "bad range end key"
                                                                 : "bad value");
  }
  return Status::OK();
}

// ------------------------------------------------------------------ WriteBatch

WriteBatch::Handler::~Handler() = default;

namespace {
Status NoColumnFamilies(uint32_t id) {
  return Status::InvalidArgument(
      absl::StrCat("WriteBatch::Handler: a record of column family ", id),
      "this handler takes the default family only (override the *CF methods)");
}
// The column-family tag of a default-family tag.
unsigned char ColumnFamilyTag(unsigned char tag) {
  switch (tag) {
    case kTypeValue:
      return kTypeColumnFamilyValue;
    case kTypeDeletion:
      return kTypeColumnFamilyDeletion;
    case kTypeSingleDeletion:
      return kTypeColumnFamilySingleDeletion;
    case kTypeRangeDeletion:
      return kTypeColumnFamilyRangeDeletion;
    case kTypeMerge:
      return kTypeColumnFamilyMerge;
  }
  assert(false);
  return tag;
}
uint32_t IdOf(ColumnFamilyHandle* column_family) {
  return column_family == nullptr ? 0 : column_family->GetID();
}
}  // namespace

Status WriteBatch::Handler::PutCF(uint32_t id, std::string_view key, std::string_view value) {
  return id == 0 ? Put(key, value) : NoColumnFamilies(id);
}
Status WriteBatch::Handler::DeleteCF(uint32_t id, std::string_view key) {
  return id == 0 ? Delete(key) : NoColumnFamilies(id);
}
Status WriteBatch::Handler::SingleDeleteCF(uint32_t id, std::string_view key) {
  return id == 0 ? SingleDelete(key) : NoColumnFamilies(id);
}
Status WriteBatch::Handler::DeleteRangeCF(uint32_t id, std::string_view begin_key,
                                          std::string_view end_key) {
  return id == 0 ? DeleteRange(begin_key, end_key) : NoColumnFamilies(id);
}
Status WriteBatch::Handler::MergeCF(uint32_t id, std::string_view key, std::string_view value) {
  return id == 0 ? Merge(key, value) : NoColumnFamilies(id);
}

WriteBatch::WriteBatch() : rep_(kHeader, '\0') {}

WriteBatch::WriteBatch(size_t reserved_bytes) {
  rep_.reserve(reserved_bytes > kHeader ? reserved_bytes : kHeader);
  rep_.assign(kHeader, '\0');
}

WriteBatch::WriteBatch(std::string rep) : rep_(std::move(rep)), content_flags_(kDeferred) {}

WriteBatch::WriteBatch(const WriteBatch& other)
    : rep_(other.rep_), content_flags_(other.content_flags_.load(std::memory_order_relaxed)) {}

WriteBatch& WriteBatch::operator=(const WriteBatch& other) {
  if (this != &other) {
    rep_ = other.rep_;
    content_flags_.store(other.content_flags_.load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
  }
  return *this;
}

WriteBatch::WriteBatch(WriteBatch&& other) noexcept
    : rep_(std::move(other.rep_)),
      content_flags_(other.content_flags_.load(std::memory_order_relaxed)) {
  other.Clear();
}

WriteBatch& WriteBatch::operator=(WriteBatch&& other) noexcept {
  if (this != &other) {
    rep_ = std::move(other.rep_);
    content_flags_.store(other.content_flags_.load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
    other.Clear();
  }
  return *this;
}

WriteBatch::~WriteBatch() = default;

void WriteBatch::Clear() {
  rep_.assign(kHeader, '\0');  // fits the small-string buffer: never throws
  content_flags_.store(0, std::memory_order_relaxed);
}

uint32_t WriteBatch::Count() const { return DecodeCount(rep_); }

Status WriteBatch::AddRecord(uint32_t column_family_id, unsigned char tag, std::string_view key,
                             std::string_view value, bool has_value) {
  // The size limits (shale/limits.h) are checked before anything is appended, so a refused
  // record leaves the batch as it was.
  Status s = WriteBatchInternal::CheckRecordSizes("WriteBatch", static_cast<ValueType>(tag), key,
                                                  value);
  if (!s.ok()) return s;
  if (rep_.size() < kHeader) Clear();  // built from contents too short to be a batch
  const uint32_t count = Count();
  if (count == UINT32_MAX) {
    return Status::InvalidArgument("WriteBatch: too many records", "the limit is 2^32 - 1");
  }
  const size_t record_size = 1 + (column_family_id != 0 ? VarintLength(column_family_id) : 0) +
                             VarintLength(key.size()) + key.size() +
                             (has_value ? VarintLength(value.size()) + value.size() : 0);
  s = CheckBatchSize("WriteBatch", rep_.size() + record_size);
  if (!s.ok()) return s;
  if (column_family_id == 0) {
    rep_.push_back(static_cast<char>(tag));
  } else {
    rep_.push_back(static_cast<char>(ColumnFamilyTag(tag)));
    PutVarint32(&rep_, column_family_id);
  }
  PutLengthPrefixed(&rep_, key);
  if (has_value) PutLengthPrefixed(&rep_, value);
  EncodeFixed32(rep_.data() + 8, count + 1);
  // Modifying calls have exclusive access, so a plain load and store suffices.
  content_flags_.store(content_flags_.load(std::memory_order_relaxed) | FlagFor(tag),
                       std::memory_order_relaxed);
  return Status::OK();
}

Status WriteBatch::Put(std::string_view key, std::string_view value) {
  return AddRecord(0, kTypeValue, key, value, true);
}

Status WriteBatch::Put(ColumnFamilyHandle* column_family, std::string_view key, std::string_view value) {
  return AddRecord(IdOf(column_family), kTypeValue, key, value, true);
}

Status WriteBatch::Delete(std::string_view key) {
  return AddRecord(0, kTypeDeletion, key, {}, false);
}

Status WriteBatch::Delete(ColumnFamilyHandle* column_family, std::string_view key) {
  return AddRecord(IdOf(column_family), kTypeDeletion, key, {}, false);
}

Status WriteBatch::SingleDelete(std::string_view key) {
  return AddRecord(0, kTypeSingleDeletion, key, {}, false);
}

Status WriteBatch::SingleDelete(ColumnFamilyHandle* column_family, std::string_view key) {
  return AddRecord(IdOf(column_family), kTypeSingleDeletion, key, {}, false);
}

Status WriteBatch::DeleteRange(std::string_view begin_key, std::string_view end_key) {
  return AddRecord(0, kTypeRangeDeletion, begin_key, end_key, true);
}

Status WriteBatch::DeleteRange(ColumnFamilyHandle* column_family, std::string_view begin_key, std::string_view end_key) {
  return AddRecord(IdOf(column_family), kTypeRangeDeletion, begin_key, end_key, true);
}

Status WriteBatch::Merge(std::string_view key, std::string_view value) {
  return AddRecord(0, kTypeMerge, key, value, true);
}

Status WriteBatch::Merge(ColumnFamilyHandle* column_family, std::string_view key, std::string_view value) {
  return AddRecord(IdOf(column_family), kTypeMerge, key, value, true);
}

uint32_t WriteBatch::FlagFor(unsigned char type) {
  switch (type) {
    case kTypeValue:
      return kHasPut;
    case kTypeDeletion:
      return kHasDelete;
    case kTypeSingleDeletion:
      return kHasSingleDelete;
    case kTypeRangeDeletion:
      return kHasDeleteRange;
    case kTypeMerge:
      return kHasMerge;
  }
  return 0;
}

uint32_t WriteBatch::ComputeContentFlags() const {
  uint32_t flags = content_flags_.load(std::memory_order_relaxed);
  if ((flags & kDeferred) == 0) return flags;
  flags = 0;
  std::string_view input(rep_);
  input.remove_prefix(input.size() < kHeader ? input.size() : kHeader);
  WriteBatchRecord record;
  while (!input.empty() && ReadWriteBatchRecord(&input, &record).ok()) {
    flags |= FlagFor(record.type);
  }
  content_flags_.store(flags, std::memory_order_relaxed);
  return flags;
}

bool WriteBatch::HasPut() const { return (ComputeContentFlags() & kHasPut) != 0; }
bool WriteBatch::HasDelete() const { return (ComputeContentFlags() & kHasDelete) != 0; }
bool WriteBatch::HasSingleDelete() const {
  return (ComputeContentFlags() & kHasSingleDelete) != 0;
}
bool WriteBatch::HasDeleteRange() const {
  return (ComputeContentFlags() & kHasDeleteRange) != 0;
}
bool WriteBatch::HasMerge() const { return (ComputeContentFlags() & kHasMerge) != 0; }

Status WriteBatch::Iterate(Handler* handler) const {
  return ForEachRecord(rep_, [handler](const WriteBatchRecord& r) { return Dispatch(r, handler); });
}

// ------------------------------------------------------------------ WriteBatchInternal

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch& batch) {
  return batch.rep_.size() < kHeader ? 0 : DecodeFixed64(batch.rep_.data());
}

void WriteBatchInternal::SetSequence(WriteBatch* batch, SequenceNumber seq) {
  assert(batch->rep_.size() >= kHeader);
  if (batch->rep_.size() >= kHeader) EncodeFixed64(batch->rep_.data(), seq);
}

void WriteBatchInternal::SetCount(WriteBatch* batch, uint32_t count) {
  assert(batch->rep_.size() >= kHeader);
  if (batch->rep_.size() >= kHeader) EncodeFixed32(batch->rep_.data() + 8, count);
}

Status WriteBatchInternal::SetContents(WriteBatch* batch, std::string_view contents) {
  if (contents.size() < kHeader) {
    return Status::Corruption("WriteBatch: contents shorter than the 12-byte header",
                              absl::StrCat(contents.size(), " bytes"));
  }
  batch->rep_.assign(contents.data(), contents.size());
  batch->content_flags_.store(WriteBatch::kDeferred, std::memory_order_relaxed);
  return Status::OK();
}

Status WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch& src) {
  if (src.rep_.size() < kHeader || dst->rep_.size() < kHeader) {
    return Status::Corruption("WriteBatch::Append: a batch is shorter than the 12-byte header");
  }
  const uint64_t total = uint64_t{dst->Count()} + src.Count();
  if (total > UINT32_MAX) {
    return Status::InvalidArgument("WriteBatch::Append: too many records",
                                   absl::StrCat(total, " > 2^32 - 1"));
  }
  const uint32_t src_flags = src.content_flags_.load(std::memory_order_relaxed);
  if (dst == &src) {
    const std::string records = src.rep_.substr(kHeader);
    dst->rep_.append(records);
  } else {
    dst->rep_.append(src.rep_, kHeader);
  }
  SetCount(dst, static_cast<uint32_t>(total));
  dst->content_flags_.store(dst->content_flags_.load(std::memory_order_relaxed) | src_flags,
                            std::memory_order_relaxed);
  return Status::OK();
}

Status WriteBatchInternal::CheckRecordSizes(std::string_view what, ValueType type,
                                            std::string_view key, std::string_view value) {
  if (type == kTypeRangeDeletion) return CheckRangeKeySizes(what, key.size(), value.size());
  Status s = CheckKeySize(what, key.size());
  if (s.ok() && HasValueField(type)) s = CheckValueSize(what, value.size());
  return s;
}

Status WriteBatchInternal::InsertInto(const WriteBatch& batch, MemTable* mem) {
  return InsertInto(
      batch, [mem](uint32_t column_family) { return column_family == 0 ? mem : nullptr; },
      /*skip_families_without_memtable=*/false,
      [](uint32_t, SequenceNumber, std::string_view, std::string_view, std::string*) {
        return false;
      });
}

Status WriteBatchInternal::InsertInto(const WriteBatch& batch, MemTableForFamily mem_for,
                                      bool skip_families_without_memtable,
                                      MergeRewriter rewrite) {
  // Check everything first: a memtable cannot take an entry back.
  Status s = ForEachRecord(batch.rep_, [&](const WriteBatchRecord& r) {
    if (skip_families_without_memtable || mem_for(r.column_family) != nullptr) {
      return Status::OK();
    }
    return Status::InvalidArgument("WriteBatch: a record of an unknown column family",
                                   absl::StrCat("column family id ", r.column_family));
  });
  if (!s.ok()) return s;
  const SequenceNumber first = Sequence(batch);
  const uint32_t count = batch.Count();
  if (count > 0 && (first > kMaxSequenceNumber || kMaxSequenceNumber - first < count - 1)) {
    return Status::InvalidArgument(
        "WriteBatch: sequence numbers past the maximum",
        absl::StrCat(count, " records from sequence ", first, " > ", kMaxSequenceNumber));
  }
  SequenceNumber seq = first;
  std::string merged;
  // Batches mostly write one family: remember the last lookup.
  uint32_t last_family = 0;
  MemTable* last_mem = mem_for(0);
  return ForEachRecord(batch.rep_, [&](const WriteBatchRecord& r) {
    if (r.column_family != last_family) {
      last_family = r.column_family;
      last_mem = mem_for(r.column_family);
    }
    MemTable* mem = last_mem;
    if (mem == nullptr) {  // skipped (checked above)
      ++seq;
    } else if (r.type == kTypeMerge && rewrite(r.column_family, seq, r.key, r.value, &merged)) {
      mem->Add(seq++, kTypeValue, r.key, merged);
    } else {
      mem->Add(seq++, r.type, r.key, r.value);
    }
    return Status::OK();
  });
}

}  // namespace shale
