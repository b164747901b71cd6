// See value_codec.h.
#include "value_codec.h"

#include <charconv>
#include <cstdio>

namespace shale::stress {
namespace {

constexpr std::string_view kMagic = "S1";
constexpr int kKeyDigits = 10;

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

}  // namespace

std::string DescribeWord(GenWord w) {
  if (w == 0) return "g0:never";
  std::string out = "g";
  out += std::to_string(Gen(w));
  out += IsAbsentWord(w) ? ":del" : ":put";
  return out;
}

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
  std::string v(kMagic);
  v += '|';
  v += std::to_string(key);
  v += '|';
  v += std::to_string(word);
  v += '|';
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) v += ',';
    v += std::to_string(members[i].key);
    v += ':';
    v += std::to_string(members[i].word);
  }
  v += '|';
  for (size_t i = 0; i < filler_len; ++i) v += FillerByte(key, word, i);
  return v;
}

bool DecodeValue(std::string_view value, DecodedValue* out, std::string* error) {
  std::string_view rest = value;
  std::string_view magic, key, word, members;
  if (!NextField(&rest, &magic) || magic != kMagic || !NextField(&rest, &key) ||
      !NextField(&rest, &word) || !NextField(&rest, &members)) {
    *error = "malformed value";
    return false;
  }
  if (!ParseU32(key, &out->key) || !ParseU32(word, &out->word)) {
    *error = "malformed key or word in value";
    return false;
  }
  if (IsAbsentWord(out->word)) {
    *error = "value carries a deletion word " + DescribeWord(out->word);
    return false;
  }
  if (!ParseMembers(members, &out->members)) {
    *error = "malformed member list in value";
    return false;
  }
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != FillerByte(out->key, out->word, i)) {
      *error = "filler byte " + std::to_string(i) + " of the value is damaged";
      return false;
    }
  }
  return true;
}

}  // namespace shale::stress
