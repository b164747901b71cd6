// NowMicros: the wall clock, in microseconds since the Unix epoch. For timestamps people read or
// that outlive the process (the info LOG's lines and old-LOG names, the DB's open time in its
// stats); it can jump when the system clock is set, so measure durations with
// std::chrono::steady_clock instead.
// Thread-safety: safe to call from any thread.
#ifndef SHALE_UTIL_CLOCK_H_
#define SHALE_UTIL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace shale {

inline uint64_t NowMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace shale

#endif  // SHALE_UTIL_CLOCK_H_
