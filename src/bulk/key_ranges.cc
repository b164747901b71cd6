#include "bulk/key_ranges.h"

#include <algorithm>

namespace shale::bulk {

void SampleRunFile(const RunFileInfo& info, std::vector<KeySample>* samples) {
  for (size_t i = 0; i < info.samples.size(); i++) {
    const uint64_t end = i + 1 < info.samples.size() ? info.samples[i + 1].offset : info.bytes;
    samples->push_back(KeySample{info.samples[i].key, end - info.samples[i].offset});
  }
}

void SampleSortBuffer(const SortBuffer& buffer, size_t max_samples,
                      std::vector<KeySample>* samples) {
  const size_t n = buffer.num_entries();
  if (n == 0) return;
  const size_t step = std::max<size_t>(1, n / std::max<size_t>(max_samples, 1));
  const uint64_t weight = buffer.record_bytes() / n * step;
  for (size_t i = 0; i < n; i += step) {
    samples->push_back(KeySample{TrustedRecordKey(buffer.begin()[i].record), weight});
  }
}

std::vector<std::string> SplitKeySpace(std::vector<KeySample> samples, int ranges,
                                       const Comparator* comparator) {
  std::vector<std::string> splits;
  if (ranges <= 1 || samples.empty()) return splits;
  std::sort(samples.begin(), samples.end(), [comparator](const KeySample& a, const KeySample& b) {
    return comparator->Compare(a.key, b.key) < 0;
  });
  uint64_t total = 0;
  for (const KeySample& s : samples) total += s.weight;
  // The split before sample i goes where the weight before it first reaches the next share.
  uint64_t before = 0;
  int next = 1;
  for (size_t i = 0; i < samples.size() && next < ranges; i++) {
    const uint64_t share = total / static_cast<uint64_t>(ranges) * static_cast<uint64_t>(next);
    // A split at the smallest key would leave the first range empty.
    const std::string_view floor = splits.empty() ? samples[0].key : splits.back();
    if (before >= share && comparator->Compare(floor, samples[i].key) < 0) {
      splits.emplace_back(samples[i].key);
      next++;
    }
    before += samples[i].weight;
  }
  return splits;
}

}  // namespace shale::bulk
