// See durability.h.
#include "durability.h"

namespace shale::stress {

DurabilityTracker::DurabilityTracker(const std::vector<KeyState>& initial)
    : history_(initial.size()) {
  for (size_t k = 0; k < initial.size(); ++k) history_[k].push_back({initial[k], 0, true});
}

void DurabilityTracker::Issue(uint32_t k, GenWord word) {
  history_[k].push_back({Apply(history_[k].back().state, word), kNotAcknowledged, false});
}

void DurabilityTracker::Acknowledge(uint32_t k, uint64_t ticket, bool synced) {
  Entry& last = history_[k].back();
  last.ticket = ticket;
  last.synced = synced;
}

void DurabilityTracker::MarkDurable(uint64_t clock) {
  uint64_t cur = durable_clock_.load();
  while (cur < clock && !durable_clock_.compare_exchange_weak(cur, clock)) {
  }
}

std::vector<KeyState> DurabilityTracker::AllowedAfterPowerLoss(uint32_t k) const {
  const std::vector<Entry>& h = history_[k];
  const uint64_t durable = durable_clock_.load();
  size_t first = 0;  // the newest durable entry
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].synced || h[i].ticket <= durable) first = i;
  }
  std::vector<KeyState> allowed;
  for (size_t i = first; i < h.size(); ++i) allowed.push_back(h[i].state);
  return allowed;
}

}  // namespace shale::stress
