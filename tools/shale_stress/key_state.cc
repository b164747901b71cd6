// See key_state.h.
#include "key_state.h"

#include <cstdio>

namespace shale::stress {

std::string DescribeWord(GenWord w) {
  if (w == 0) return "g0:never";
  static constexpr const char* kKinds[] = {":put", ":del", ":merge", ":invalid"};
  std::string out = "g";
  out += std::to_string(Gen(w));
  out += kKinds[w & 3];
  return out;
}

uint32_t MixWord(GenWord w) {
  uint32_t h = w;
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

uint32_t ChainPow(uint32_t n) {
  uint32_t result = 1, base = kChainPrime;
  for (; n > 0; n >>= 1) {
    if (n & 1) result *= base;
    base *= base;
  }
  return result;
}

KeyState Apply(const KeyState& s, GenWord w) {
  if (Kind(w) == WriteKind::kMerge) return {w, ChainExtend(s.hash, MixWord(w), 1)};
  return {w, ChainStart(w)};
}

std::string DescribeState(const KeyState& s) {
  std::string out = DescribeWord(s.word);
  if (Kind(s.word) == WriteKind::kMerge) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "#%08x", s.hash);
    out += buf;
  }
  return out;
}

}  // namespace shale::stress
