// See key_locks.h.
#include "key_locks.h"

#include <algorithm>

namespace shale::stress {

KeyLocks::KeyLocks(uint32_t stripes)
    : stripes_(stripes == 0 ? 1 : stripes), mu_(new Mutex[stripes_]) {}

// The analysis cannot follow a loop of locks; the order rule is in the header.
KeyLocks::Guard::Guard(KeyLocks* locks, const std::vector<uint32_t>& keys)
    ABSL_NO_THREAD_SAFETY_ANALYSIS : locks_(locks) {
  stripes_.reserve(keys.size());
  for (uint32_t k : keys) stripes_.push_back(k % locks_->stripes_);
  std::sort(stripes_.begin(), stripes_.end());
  stripes_.erase(std::unique(stripes_.begin(), stripes_.end()), stripes_.end());
  for (uint32_t s : stripes_) locks_->mu_[s].Lock();
}

KeyLocks::Guard::~Guard() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) locks_->mu_[*it].Unlock();
}

}  // namespace shale::stress
