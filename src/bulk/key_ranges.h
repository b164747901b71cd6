// SplitKeySpace: cuts the key space of a load into ranges of about equal bytes, one per merge
// thread, from samples of the sorted runs (a run file's samples, every so many entries of a
// sorted buffer). Range i is [split[i-1], split[i]), the first one unbounded below and the
// last unbounded above.
//
// Thread-safety: a plain function.
#ifndef SHALE_BULK_KEY_RANGES_H_
#define SHALE_BULK_KEY_RANGES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bulk/run_file.h"
#include "bulk/sort_buffer.h"
#include "shale/comparator.h"

namespace shale::bulk {

// A key of some run and the bytes of that run from it to the next sample.
struct KeySample {
  std::string_view key;
  uint64_t weight = 0;
};

// Appends samples of a run file (views into `info`, which must outlive them).
void SampleRunFile(const RunFileInfo& info, std::vector<KeySample>* samples);
// Appends about `max_samples` samples of a sorted buffer (views into its records).
void SampleSortBuffer(const SortBuffer& buffer, size_t max_samples,
                      std::vector<KeySample>* samples);

// Up to ranges - 1 strictly increasing split keys that cut the samples' total weight into
// `ranges` parts of about equal weight; fewer when there are too few distinct sampled keys.
std::vector<std::string> SplitKeySpace(std::vector<KeySample> samples, int ranges,
                                       const Comparator* comparator);

}  // namespace shale::bulk

#endif  // SHALE_BULK_KEY_RANGES_H_
