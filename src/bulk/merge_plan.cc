#include "bulk/merge_plan.h"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>

namespace shale::bulk {

MergePlan PlanMerge(uint64_t descriptors, uint64_t memory, int threads, size_t runs) {
  MergePlan plan;
  // Descriptors: each merge holds its inputs and one output.
  const uint64_t fd_threads = std::max<uint64_t>(1, descriptors / 3);
  plan.threads = static_cast<int>(std::max<uint64_t>(
      1, std::min<uint64_t>(static_cast<uint64_t>(std::max(threads, 1)), fd_threads)));
  const uint64_t t = static_cast<uint64_t>(plan.threads);
  uint64_t fan_in = std::max<uint64_t>(2, descriptors / t > 0 ? descriptors / t - 1 : 0);
  fan_in = std::min<uint64_t>(fan_in, std::max<size_t>(runs, 2));
  // Memory: every merge's fan_in read buffers and its write buffer.
  const uint64_t per_merge_min = kMinRunBuffer;
  if (memory / (t * (fan_in + 1)) < per_merge_min) {
    const uint64_t fit = memory / (t * per_merge_min);  // buffers per thread at the minimum
    fan_in = std::max<uint64_t>(2, fit > 0 ? fit - 1 : 0);
    if (memory / (t * (fan_in + 1)) < per_merge_min) {
      // Even two runs per merge do not fit: fewer threads.
      plan.threads = static_cast<int>(std::max<uint64_t>(1, memory / (3 * per_merge_min)));
    }
  }
  plan.fan_in = static_cast<int>(std::min<uint64_t>(fan_in, 1 << 20));
  const uint64_t buffers = static_cast<uint64_t>(plan.threads) * (fan_in + 1);
  plan.buffer_size = static_cast<size_t>(
      std::max<uint64_t>(4096, std::min<uint64_t>(kMaxRunBuffer, memory / buffers)));
  return plan;
}

std::vector<RunGroup> PlanPass(size_t runs, int fan_in) {
  std::vector<RunGroup> groups;
  const size_t f = static_cast<size_t>(std::max(fan_in, 2));
  if (runs <= f) return groups;
  size_t excess = runs - f;  // runs to get rid of; a group of n removes n - 1
  size_t next = 0;
  while (excess > 0 && runs - next >= 2) {
    const size_t size = std::min({f, excess + 1, runs - next});
    groups.push_back(RunGroup{next, next + size});
    next += size;
    excess -= size - 1;
  }
  return groups;
}

uint64_t FreeDescriptors(uint64_t reserve) {
  struct rlimit limit;
  uint64_t soft = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    soft = limit.rlim_cur == RLIM_INFINITY ? (1u << 20)
                                           : std::min<uint64_t>(limit.rlim_cur, 1u << 20);
  }
  uint64_t open_now = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (const struct dirent* entry = ::readdir(d)) {
      if (entry->d_name[0] != '.') open_now++;
    }
    ::closedir(d);
    if (open_now > 0) open_now--;  // the directory's own descriptor
  }
  const uint64_t used = open_now + reserve;
  return soft > used ? soft - used : 0;
}

}  // namespace shale::bulk
