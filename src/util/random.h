// Fast pseudo-random numbers for tests, benchmarks and engine heuristics (skiplist heights,
// sampling). Not for anything that must be unpredictable: this is not a cryptographic generator.
//
// Random is xoshiro256** (Blackman and Vigna) with its 256-bit state expanded from a 64-bit seed
// by splitmix64, so the same seed gives the same sequence on every platform and build.
//
// Thread-safety: a Random is a plain value and is NOT thread-safe; give each thread its own.
// ThreadLocalRandom() hands out one generator per thread for code that does not own one.
#ifndef SHALE_UTIL_RANDOM_H_
#define SHALE_UTIL_RANDOM_H_

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace shale {

class Random {
 public:
  explicit Random(uint64_t seed) { Reseed(seed); }

  // Restarts the sequence that `seed` determines.
  void Reseed(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& word : s_) word = SplitMix64(&x);
  }

  uint64_t Next64() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // The high half of Next64(): xoshiro's best bits.
  uint32_t Next32() { return static_cast<uint32_t>(Next64() >> 32); }

  // Uniform in [0, n). REQUIRES: n > 0. Uses Lemire's multiply-high mapping; the bias is at most
  // n / 2^64, far below anything a test could observe.
  uint64_t Uniform(uint64_t n) {
    assert(n > 0);
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next64()) * n) >> 64);
  }

  // True about once in n calls. REQUIRES: n > 0.
  bool OneIn(uint64_t n) { return Uniform(n) == 0; }

  // Picks a bit count b uniformly in [0, max_log], then returns a value uniform in [0, 2^b):
  // small values are exponentially more likely than large ones (LevelDB's Skewed).
  // REQUIRES: max_log <= 63.
  uint64_t Skewed(int max_log) {
    assert(max_log >= 0 && max_log <= 63);
    return Uniform(uint64_t{1} << Uniform(static_cast<uint64_t>(max_log) + 1));
  }

  // Uniform in [0, 1), with 53 random bits (every double of the form k / 2^53).
  double NextDouble() { return static_cast<double>(Next64() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  // One step of splitmix64: advances *x and returns a well-mixed 64-bit value.
  static uint64_t SplitMix64(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Invariant: never all zero (splitmix64 cannot produce four zero words in a row).
  uint64_t s_[4];
};

// `len` random printable ASCII characters (' ' to '~').
inline std::string RandomString(Random* rnd, size_t len) {
  std::string s(len, '\0');
  for (char& c : s) c = static_cast<char>(' ' + rnd->Uniform(95));
  return s;
}

// `len` bytes that compress to roughly `compressed_fraction` of their size, made the way LevelDB's
// and RocksDB's db_bench make values (so the same --compression_ratio means the same data): a
// random printable piece of len * compressed_fraction bytes (at least 1), repeated to fill len.
// A compressor that only removes repeats (snappy, lz4) lands close to the fraction; one that also
// entropy-codes (zstd) lands somewhat below it, since printable text carries ~6.6 bits per byte.
inline std::string CompressibleString(Random* rnd, double compressed_fraction, size_t len) {
  // Fractions outside [0, 1] (and NaN) are clamped into it before the conversion.
  const double f = compressed_fraction > 0 ? std::min(compressed_fraction, 1.0) : 0.0;
  const size_t raw = std::max<size_t>(1, static_cast<size_t>(static_cast<double>(len) * f));
  const std::string piece = RandomString(rnd, raw);
  std::string s;
  s.reserve(len + raw);
  while (s.size() < len) s.append(piece);
  s.resize(len);
  return s;
}

// The calling thread's own generator, seeded differently for every thread (from a process-wide
// counter, the thread id and the clock), so it is not reproducible across runs. The pointer
// stays valid for the life of the thread; use it only from that thread.
inline Random* ThreadLocalRandom() {
  static std::atomic<uint64_t> threads_seeded{0};
  thread_local Random rnd([] {
    uint64_t seed = threads_seeded.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull;
    seed ^= std::hash<std::thread::id>()(std::this_thread::get_id());
    seed ^= static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count()) << 1;
    return seed;
  }());
  return &rnd;
}

}  // namespace shale

#endif  // SHALE_UTIL_RANDOM_H_
