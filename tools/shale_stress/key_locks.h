// KeyLocks: a striped array of mutexes that serialises the writes (and exact reads) of each
// key, so that the expected state of a key has at most one write in flight. Key k belongs to
// stripe k % stripes.
//
// Lock order: a thread locks several stripes only through KeyLocks::Guard, which takes them in
// increasing stripe index, so two guards never deadlock. Holding two guards at once is not
// allowed.
//
// Thread-safety: thread-safe.
#ifndef SHALE_TOOLS_SHALE_STRESS_KEY_LOCKS_H_
#define SHALE_TOOLS_SHALE_STRESS_KEY_LOCKS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "util/mutex.h"

namespace shale::stress {

class KeyLocks {
 public:
  explicit KeyLocks(uint32_t stripes);
  KeyLocks(const KeyLocks&) = delete;
  KeyLocks& operator=(const KeyLocks&) = delete;

  // Holds the locks of a set of keys for its lifetime.
  class Guard {
   public:
    Guard(KeyLocks* locks, const std::vector<uint32_t>& keys);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KeyLocks* const locks_;
    std::vector<uint32_t> stripes_;  // sorted, distinct
  };

 private:
  const uint32_t stripes_;
  std::unique_ptr<Mutex[]> mu_;
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_KEY_LOCKS_H_
