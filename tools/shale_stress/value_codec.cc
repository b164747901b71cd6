// See value_codec.h.
#include "value_codec.h"

#include <charconv>
#include <cstdio>

namespace shale::stress {
namespace {

constexpr std::string_view kPutMagic = "S2";
constexpr std::string_view kMergedMagic = "M2";
constexpr std::string_view kOperandMagic = "O2";
constexpr int kKeyDigits = 10;
constexpr size_t kMaxNumbers = 6;

// A filler byte that depends on the key, the word and the position: a letter, so values stay
// somewhat compressible.
char FillerByte(uint32_t key, GenWord word, size_t i) {
  uint64_t x = (uint64_t{key} * 0x9E3779B1u) ^ (uint64_t{word} * 0x85EBCA77u) ^ (i / 8);
  x ^= x >> 13;
  return static_cast<char>('a' + (x % 26));
}

// Parses a decimal uint32 that is all of `s`.
bool ParseU32(std::string_view s, uint32_t* out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Splits off the text before the next '|' of *rest; false if there is none.
bool NextField(std::string_view* rest, std::string_view* field) {
  const size_t bar = rest->find('|');
  if (bar == std::string_view::npos) return false;
  *field = rest->substr(0, bar);
  rest->remove_prefix(bar + 1);
  return true;
}

bool ParseMembers(std::string_view text, std::vector<Member>* members) {
  members->clear();
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) return false;
    Member m;
    if (!ParseU32(item.substr(0, colon), &m.key) || !ParseU32(item.substr(colon + 1), &m.word)) {
      return false;
    }
    members->push_back(m);
  }
  return true;
}

bool Reject(std::string* error, std::string what) {
  *error = std::move(what);
  return false;
}

// "malformed value '<its first bytes>'", non-printable bytes as \xNN.
std::string Malformed(std::string_view what, std::string_view value) {
  std::string out = "malformed " + std::string(what) + " '";
  for (size_t i = 0; i < value.size() && i < 48; ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out + (value.size() > 48 ? "...'" : "'");
}

// "<magic>|<n1>|...|<nk>|<members>|<filler>" with the filler of (numbers[0], numbers[word_at]).
std::string Encode(std::string_view magic, const std::vector<uint32_t>& numbers,
                   size_t word_at, const std::vector<Member>& members, size_t filler_len) {
  std::string v(magic);
  for (uint32_t n : numbers) v += '|' + std::to_string(n);
  v += '|';
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) v += ',';
    v += std::to_string(members[i].key) + ':' + std::to_string(members[i].word);
  }
  v += '|';
  for (size_t i = 0; i < filler_len; ++i) v += FillerByte(numbers[0], numbers[word_at], i);
  return v;
}

// The fields of an encoding with `count` numbers after the magic, checked up to the filler,
// which must be that of (numbers[0], numbers[word_at]).
struct Fields {
  std::string_view magic;
  uint32_t numbers[kMaxNumbers] = {};
  std::vector<Member> members;
  size_t filler_len = 0;
};

bool Split(std::string_view value, size_t count, size_t word_at, Fields* f, std::string* error) {
  std::string_view rest = value, field;
  if (!NextField(&rest, &f->magic)) return Reject(error, Malformed("value", value));
  for (size_t i = 0; i < count; ++i) {
    if (!NextField(&rest, &field) || !ParseU32(field, &f->numbers[i])) {
      *error = "malformed field " + std::to_string(i + 1) + " in " + std::string(f->magic);
      return false;
    }
  }
  if (!NextField(&rest, &field) || !ParseMembers(field, &f->members)) {
    *error = "malformed member list in " + std::string(f->magic);
    return false;
  }
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != FillerByte(f->numbers[0], f->numbers[word_at], i)) {
      *error = "filler byte " + std::to_string(i) + " of the value is damaged";
      return false;
    }
  }
  f->filler_len = rest.size();
  return true;
}

bool DecodeMerged(std::string_view value, DecodedValue* out, std::string* error) {
  Fields f;
  if (!Split(value, 5, 1, &f, error)) return false;
  *out = {f.numbers[0], f.numbers[1], f.numbers[2], f.numbers[3], f.numbers[4],
          std::move(f.members), f.filler_len};
  if (Kind(out->word) != WriteKind::kMerge) {
    return Reject(error, "merged value names " + DescribeWord(out->word) + ", not a merge");
  }
  if ((out->base != 0 && Kind(out->base) != WriteKind::kPut) ||
      Gen(out->base) >= Gen(out->word) || out->merges == 0) {
    return Reject(error, "merged value has base " + DescribeWord(out->base) + " and " +
                             std::to_string(out->merges) + " operands up to " +
                             DescribeWord(out->word));
  }
  return true;
}

}  // namespace

std::string KeyString(uint32_t k) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%010u", k);
  return buf;
}

bool ParseKey(std::string_view key, uint32_t* k) {
  if (key.size() != kKeyDigits) return false;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
  }
  return ParseU32(key, k);
}

std::string EncodeValue(uint32_t key, GenWord word, const std::vector<Member>& members,
                        size_t filler_len) {
  return Encode(kPutMagic, {key, word}, 1, members, filler_len);
}

std::string EncodeMergedValue(const DecodedValue& v) {
  return Encode(kMergedMagic, {v.key, v.word, v.hash, v.base, v.merges}, 1, v.members,
                v.filler_len);
}

bool DecodeValue(std::string_view value, DecodedValue* out, std::string* error) {
  if (value.substr(0, kMergedMagic.size()) == kMergedMagic) {
    return DecodeMerged(value, out, error);
  }
  if (value.substr(0, kPutMagic.size()) != kPutMagic) {
    return Reject(error, Malformed("value", value));
  }
  Fields f;
  if (!Split(value, 2, 1, &f, error)) return false;
  const GenWord word = f.numbers[1];
  if (Kind(word) != WriteKind::kPut || word == 0) {
    return Reject(error, "put value carries the word " + DescribeWord(word));
  }
  *out = {f.numbers[0], word, ChainStart(word), word, 0, std::move(f.members), f.filler_len};
  return true;
}

std::string EncodeOperand(uint32_t key, GenWord word, const std::vector<Member>& members,
                          size_t filler_len) {
  return EncodeOperand({key, word, word, 1, MixWord(word), members, filler_len});
}

std::string EncodeOperand(const DecodedOperand& op) {
  return Encode(kOperandMagic, {op.key, op.first, op.last, op.count, op.seg}, 2, op.members,
                op.filler_len);
}

bool DecodeOperand(std::string_view operand, DecodedOperand* out, std::string* error) {
  if (operand.substr(0, kOperandMagic.size()) != kOperandMagic) {
    return Reject(error, Malformed("merge operand", operand));
  }
  Fields f;
  if (!Split(operand, 5, 2, &f, error)) return false;
  *out = {f.numbers[0], f.numbers[1], f.numbers[2], f.numbers[3], f.numbers[4],
          std::move(f.members), f.filler_len};
  const bool kinds = Kind(out->first) == WriteKind::kMerge && Kind(out->last) == WriteKind::kMerge;
  const bool single = out->first == out->last && out->seg == MixWord(out->last);
  if (!kinds || out->count == 0 || Gen(out->first) > Gen(out->last) ||
      out->count > Gen(out->last) - Gen(out->first) + 1 || (out->count == 1) != single) {
    return Reject(error, "merge operand of " + std::to_string(out->count) + " operands from " +
                             DescribeWord(out->first) + " to " + DescribeWord(out->last) +
                             " is inconsistent");
  }
  return true;
}

}  // namespace shale::stress
