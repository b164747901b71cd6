// Internal keys: a user key followed by an 8-byte trailer (sequence << 8 | type), and their
// order. Every memtable and table stores internal keys; reads compare them with
// InternalKeyComparator: user key ascending, then sequence descending (newest first), then
// type descending.
#ifndef SHALE_BASE_INTERNAL_KEY_H_
#define SHALE_BASE_INTERNAL_KEY_H_

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>

#include "shale/comparator.h"
#include "shale/status.h"
#include "util/coding.h"

namespace shale {

using SequenceNumber = uint64_t;

// Sequence numbers use 56 bits; the low byte of the trailer is the type.
inline constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

// Record types, with RocksDB's values (they are stored on disk: never renumber).
enum ValueType : unsigned char {
  kTypeDeletion = 0x0,
  kTypeValue = 0x1,
  kTypeMerge = 0x2,
  kTypeSingleDeletion = 0x7,
  kTypeRangeDeletion = 0xF,
  // The largest type: a lookup key for sequence s uses it so that it sorts before (is newer
  // than) every entry with sequence <= s.
  kValueTypeForSeek = 0xF,
};

bool IsValidValueType(unsigned char t);

inline constexpr size_t kInternalKeyTrailerSize = 8;

inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType t) {
  assert(seq <= kMaxSequenceNumber);
  return (seq << 8) | t;
}

struct ParsedInternalKey {
  std::string_view user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeValue;

  ParsedInternalKey() = default;
  ParsedInternalKey(std::string_view u, SequenceNumber s, ValueType t)
      : user_key(u), sequence(s), type(t) {}
  std::string DebugString() const;
};

// Appends the internal key of `key` to *dst.
void AppendInternalKey(std::string* dst, const ParsedInternalKey& key);
inline std::string MakeInternalKey(std::string_view user_key, SequenceNumber s, ValueType t) {
  std::string r;
  AppendInternalKey(&r, ParsedInternalKey(user_key, s, t));
  return r;
}

// Decodes an internal key. Corruption when it is shorter than the trailer or the type is unknown.
Status ParseInternalKey(std::string_view internal_key, ParsedInternalKey* result);

// REQUIRES: internal_key.size() >= 8.
inline std::string_view ExtractUserKey(std::string_view internal_key) {
  assert(internal_key.size() >= kInternalKeyTrailerSize);
  return internal_key.substr(0, internal_key.size() - kInternalKeyTrailerSize);
}
inline uint64_t ExtractTrailer(std::string_view internal_key) {
  return DecodeFixed64(internal_key.data() + internal_key.size() - kInternalKeyTrailerSize);
}
inline SequenceNumber ExtractSequence(std::string_view internal_key) {
  return ExtractTrailer(internal_key) >> 8;
}
inline ValueType ExtractValueType(std::string_view internal_key) {
  return static_cast<ValueType>(ExtractTrailer(internal_key) & 0xff);
}

// Orders internal keys: user key by the user comparator ascending, then trailer descending.
// Stateless beyond the user comparator, so safe from any thread.
class InternalKeyComparator final : public Comparator {
 public:
  explicit InternalKeyComparator(const Comparator* user_comparator);

  int Compare(std::string_view a, std::string_view b) const override;
  const char* Name() const override { return name_.c_str(); }
  // Shortens the user-key part and gives the result the largest trailer, so it still sorts
  // in [*start, limit).
  void FindShortestSeparator(std::string* start, std::string_view limit) const override;
  void FindShortSuccessor(std::string* key) const override;

  const Comparator* user_comparator() const { return user_; }

 private:
  const Comparator* user_;
  std::string name_;
};

// The key a point lookup searches for: the user key with the reader's snapshot sequence and
// kValueTypeForSeek, so a seek lands on the newest visible entry of that user key.
// Also carries a varint length prefix, which is how the memtable stores keys.
class LookupKey {
 public:
  LookupKey(std::string_view user_key, SequenceNumber sequence);

  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;

  // varint32 length of the internal key, then the internal key.
  std::string_view memtable_key() const { return {data_.data(), data_.size()}; }
  std::string_view internal_key() const {
    return {data_.data() + key_offset_, data_.size() - key_offset_};
  }
  std::string_view user_key() const {
    return {data_.data() + key_offset_, data_.size() - key_offset_ - kInternalKeyTrailerSize};
  }

 private:
  std::string data_;
  size_t key_offset_;
};

}  // namespace shale

#endif  // SHALE_BASE_INTERNAL_KEY_H_
