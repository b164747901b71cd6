// Keys, values and merge operands of shale_stress: the bytes the stress tool puts in the DB.
// The words and states they name are in key_state.h.
//
// Keys: key index k in [0, max_key) is written as ten decimal digits ("0000000042"), so the
// bytewise order of keys is their numeric order and a range of indexes is a range of keys.
//
// Three formats, each a '|'-separated list of decimal fields ending in <members>|<filler>:
//   put value     "S2|<key>|<word>|<members>|<filler>"
//   merge operand "O2|<key>|<first>|<last>|<count>|<seg>|<members>|<filler>"
//                 `count` operands of the key, generations first..last, combined (one written
//                 operand has count 1, first == last, seg == MixWord(last)); seg is their chain
//                 hash started from 0 (key_state.h). Partial merges make longer segments.
//   merged value  "M2|<key>|<word>|<hash>|<base>|<count>|<members>|<filler>"
//                 what the merge operator makes (stress_merge_operator.h): `count` operands
//                 up to `word` applied over `base` (a put word, or 0: no value), chain `hash`.
// A read returns a put value or a merged value (DecodeValue); only the operator sees operands.
// <members> lists every key of a multi-key write (a write batch, an ingested file) as
// "<key>:<word>" joined by ',' (this key included); it is empty for a single-key write. It lets
// verification check that such a write is all or nothing; an operand or merged value carries
// the members of its newest operand. <filler> is FillerByte(key, word, i) for i in [0, n), word
// being the newest write's: a read checks it byte by byte, so damaged values are caught too.
// Format 1 ("S1", words gen << 1 | deleted) is gone with the expected-state format 1.
//
// Thread-safety: free functions over values; no state.
#ifndef SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_
#define SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "key_state.h"

namespace shale::stress {

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

// A put value or a merged value, as a read returns it.
struct DecodedValue {
  uint32_t key = 0;
  GenWord word = 0;     // the newest write: a put, or the last merge operand applied
  uint32_t hash = 0;    // the chain hash of the key's state (key_state.h)
  GenWord base = 0;     // the put under the operands (0: none); == word for a put value
  uint32_t merges = 0;  // operands applied over the base
  std::vector<Member> members;
  size_t filler_len = 0;
};

struct DecodedOperand {
  uint32_t key = 0;
  GenWord first = 0;
  GenWord last = 0;
  uint32_t count = 0;
  uint32_t seg = 0;
  std::vector<Member> members;
  size_t filler_len = 0;
};

// The value written to key k by a put with `word`, with `filler_len` filler bytes.
std::string EncodeValue(uint32_t key, GenWord word, const std::vector<Member>& members,
                        size_t filler_len);
// A merged value: `v.merges` operands up to v.word over v.base, chain v.hash.
std::string EncodeMergedValue(const DecodedValue& v);
// Parses and checks a put value or a merged value (format, fields, filler bytes); false, with
// the reason in *error, for anything else.
bool DecodeValue(std::string_view value, DecodedValue* out, std::string* error);

// The operand of one merge of key k with `word`.
std::string EncodeOperand(uint32_t key, GenWord word, const std::vector<Member>& members,
                          size_t filler_len);
// An operand standing for `op.count` operands (a partial merge's result).
std::string EncodeOperand(const DecodedOperand& op);
// Parses and checks an operand; false, with the reason in *error, for anything else.
bool DecodeOperand(std::string_view operand, DecodedOperand* out, std::string* error);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_VALUE_CODEC_H_
