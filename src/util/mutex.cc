#include "util/mutex.h"

namespace shale {

void ConfigureMutexDebugging() {
#if defined(NDEBUG) && !defined(SHALE_STD_MUTEX)
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

}  // namespace shale
