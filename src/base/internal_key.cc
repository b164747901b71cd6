#include "base/internal_key.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

bool IsValidValueType(unsigned char t) {
  return t == kTypeDeletion || t == kTypeValue || t == kTypeMerge || t == kTypeSingleDeletion ||
         t == kTypeRangeDeletion;
}

std::string ParsedInternalKey::DebugString() const {
  return absl::StrCat("'", absl::CEscape(ToAbsl(user_key)), "' @ ", sequence, " : ",
                      static_cast<int>(type));
}

void AppendInternalKey(std::string* dst, const ParsedInternalKey& key) {
  dst->append(key.user_key.data(), key.user_key.size());
  PutFixed64(dst, PackSequenceAndType(key.sequence, key.type));
}

Status ParseInternalKey(std::string_view internal_key, ParsedInternalKey* result) {
  if (internal_key.size() < kInternalKeyTrailerSize) {
    return Status::Corruption("internal key too short", absl::CEscape(ToAbsl(internal_key)));
  }
  uint64_t trailer = ExtractTrailer(internal_key);
  auto type = static_cast<unsigned char>(trailer & 0xff);
  if (!IsValidValueType(type)) {
    return Status::Corruption(absl::StrCat("unknown value type ", static_cast<int>(type)),
                              absl::CEscape(ToAbsl(internal_key)));
  }
  result->user_key = ExtractUserKey(internal_key);
  result->sequence = trailer >> 8;
  result->type = static_cast<ValueType>(type);
  return Status::OK();
}

InternalKeyComparator::InternalKeyComparator(const Comparator* user_comparator)
    : user_(user_comparator),
      name_(absl::StrCat("shale.InternalKeyComparator:", user_comparator->Name())) {}

int InternalKeyComparator::Compare(std::string_view a, std::string_view b) const {
  int r = user_->Compare(ExtractUserKey(a), ExtractUserKey(b));
  if (r != 0) return r;
  uint64_t ta = ExtractTrailer(a);
  uint64_t tb = ExtractTrailer(b);
  if (ta > tb) return -1;
  if (ta < tb) return 1;
  return 0;
}

void InternalKeyComparator::FindShortestSeparator(std::string* start,
                                                  std::string_view limit) const {
  std::string_view user_start = ExtractUserKey(*start);
  std::string_view user_limit = ExtractUserKey(limit);
  std::string tmp(user_start);
  user_->FindShortestSeparator(&tmp, user_limit);
  if (tmp.size() < user_start.size() && user_->Compare(user_start, tmp) < 0) {
    // The user key got shorter and larger: the largest trailer keeps it before `limit`.
    PutFixed64(&tmp, PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    assert(Compare(*start, tmp) < 0);
    assert(Compare(tmp, limit) < 0);
    start->swap(tmp);
  }
}

void InternalKeyComparator::FindShortSuccessor(std::string* key) const {
  std::string_view user_key = ExtractUserKey(*key);
  std::string tmp(user_key);
  user_->FindShortSuccessor(&tmp);
  if (tmp.size() < user_key.size() && user_->Compare(user_key, tmp) < 0) {
    PutFixed64(&tmp, PackSequenceAndType(kMaxSequenceNumber, kValueTypeForSeek));
    assert(Compare(*key, tmp) < 0);
    key->swap(tmp);
  }
}

LookupKey::LookupKey(std::string_view user_key, SequenceNumber sequence) {
  size_t internal_size = user_key.size() + kInternalKeyTrailerSize;
  data_.reserve(internal_size + kMaxVarint32Length);
  PutVarint32(&data_, static_cast<uint32_t>(internal_size));
  key_offset_ = data_.size();
  data_.append(user_key.data(), user_key.size());
  PutFixed64(&data_, PackSequenceAndType(sequence, kValueTypeForSeek));
}

}  // namespace shale
