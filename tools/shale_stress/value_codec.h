// Keys and values of shale_stress, and the generation words that name each write of a key.
//
// Keys: key index k in [0, max_key) is written as ten decimal digits ("0000000042"), so the
// bytewise order of keys is their numeric order and a range of indexes is a range of keys.
//
// Generation words: every write of key k (a put or a deletion) gets the next generation number
// of k, counted from 1 and never reused. A GenWord packs it with the kind of write:
// word = gen << 1 | deleted. Word 0 is "generation 0": never written, so absent.
//
// Values say who wrote them, so that a read can be checked against the expected state:
//   "S1|<key index>|<word>|<members>|<filler>"
// <members> lists every key of a multi-key write (a write batch, an ingested file) as
// "<key>:<word>" joined by ',' (this key included); it is empty for a single-key write. It lets
// verification check that such a write is all or nothing. <filler> is FillerByte(k, word, i)
// for i in [0, n): a read checks it byte by byte, so damaged values are caught too.
//
// Thread-safety: free functions over values; no state.
#ifndef SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_
#define SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shale::stress {

using GenWord = uint32_t;

inline uint32_t Gen(GenWord w) { return w >> 1; }
// A deletion, or generation 0 (never written): the key reads as absent.
inline bool IsAbsentWord(GenWord w) { return w == 0 || (w & 1) != 0; }
inline GenWord MakeWord(uint32_t gen, bool deleted) {
  return (gen << 1) | (deleted ? 1u : 0u);
}
// "g5:put", "g7:del", "g0:never" for messages.
std::string DescribeWord(GenWord w);

// The key text of index k.
std::string KeyString(uint32_t k);
// Parses a key made by KeyString; false for anything else.
bool ParseKey(std::string_view key, uint32_t* k);

// One key of a multi-key write and the word it got.
struct Member {
  uint32_t key = 0;
  GenWord word = 0;
  bool operator==(const Member&) const = default;
};

struct DecodedValue {
  uint32_t key = 0;
  GenWord word = 0;
  std::vector<Member> members;  // empty for a single-key write
};

// The value written to key k with word (a put: its low bit is 0), `filler_len` filler bytes.
std::string EncodeValue(uint32_t key, GenWord word, const std::vector<Member>& members,
                        size_t filler_len);
// Parses and checks a value made by EncodeValue (format, filler bytes, a put's word); false,
// with the reason in *error, for anything else.
bool DecodeValue(std::string_view value, DecodedValue* out, std::string* error);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_
