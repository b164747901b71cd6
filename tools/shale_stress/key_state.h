// The model of one key of shale_stress: the words that name its writes and the state they
// leave it in, including which merge operands were applied.
//
// Generation words: every write of key k (a put, a deletion or a merge operand) gets the next
// generation number of k, counted from 1 and never reused. A GenWord packs it with the kind of
// write: word = gen << 2 | kind (0 put, 1 delete, 2 merge; 3 is invalid). Word 0 is
// "generation 0": never written, so absent.
//
// Key state: what a key holds is its newest put or deletion (the base) followed by the merge
// operands applied since, oldest first. KeyState names it with two numbers:
//   word  the newest write applied (the base's word, or the last operand's);
//   hash  a chain hash over the base and the operands, in order:
//           base put b:      hash = MixWord(b)
//           base absent:     hash = 0 (a deletion, or never written: merges start from nothing)
//           then operand m:  hash = hash * kChainPrime + MixWord(m)   (mod 2^32)
// Two states with the same word and hash applied the same operands over the same base (up to
// a 32-bit collision): an operand lost, applied twice or reordered changes the hash. The hash
// composes, so the merge operator can combine consecutive operands into one (a segment of n
// operands with seg = their chain started from 0: hash' = hash * kChainPrime^n + seg). This
// is what lets the verifier tell exactly which operands a merged value holds while keeping
// the expected state fixed-size (expected_state.h).
//
// Thread-safety: plain values and pure functions.
#ifndef SHALE_TOOLS_SHALE_STRESS_KEY_STATE_H_
#define SHALE_TOOLS_SHALE_STRESS_KEY_STATE_H_

#include <cstdint>
#include <string>

namespace shale::stress {

using GenWord = uint32_t;

enum class WriteKind : uint32_t { kPut = 0, kDelete = 1, kMerge = 2 };

inline uint32_t Gen(GenWord w) { return w >> 2; }
inline WriteKind Kind(GenWord w) { return static_cast<WriteKind>(w & 3); }
inline GenWord MakeWord(uint32_t gen, WriteKind kind) {
  return (gen << 2) | static_cast<uint32_t>(kind);
}
// Whether w is a word some write could have (its kind is not 3).
inline bool IsValidWord(GenWord w) { return (w & 3) != 3; }
// A deletion, or generation 0 (never written): the key reads as absent when this write is its
// newest. (A merge makes a key present whatever its base.)
inline bool IsAbsentWord(GenWord w) { return w == 0 || Kind(w) == WriteKind::kDelete; }
// "g5:put", "g7:del", "g6:merge", "g0:never" for messages.
std::string DescribeWord(GenWord w);

// The hash chain (see above).
inline constexpr uint32_t kChainPrime = 0x01000193;
// A bijection on 32 bits that spreads every word over the whole hash (MurmurHash3's fmix32).
uint32_t MixWord(GenWord w);
// kChainPrime^n mod 2^32.
uint32_t ChainPow(uint32_t n);
// The hash of a key whose newest put or deletion is `base` and that has no operands yet.
inline uint32_t ChainStart(GenWord base) { return IsAbsentWord(base) ? 0 : MixWord(base); }
// Appends a segment of n operands (seg: their chain started from 0) to `hash`.
inline uint32_t ChainExtend(uint32_t hash, uint32_t seg, uint32_t n) {
  return hash * ChainPow(n) + seg;
}

struct KeyState {
  GenWord word = 0;
  uint32_t hash = 0;
  bool operator==(const KeyState&) const = default;
};

inline bool IsPresent(const KeyState& s) { return !IsAbsentWord(s.word); }
// The state after write w lands on state s.
KeyState Apply(const KeyState& s, GenWord w);
// "g5:put", "g7:del", "g9:merge#1a2b3c4d" (the hash matters only after a merge).
std::string DescribeState(const KeyState& s);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_KEY_STATE_H_
