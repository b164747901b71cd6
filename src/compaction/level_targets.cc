#include "compaction/level_targets.h"

#include <algorithm>
#include <limits>

#include "compaction/reserved_level.h"

namespace shale {
namespace {

uint64_t SaturatingMultiply(uint64_t v, double m) {
  const double r = static_cast<double>(v) * m;
  if (r >= static_cast<double>(std::numeric_limits<uint64_t>::max() / 2)) {
    return std::numeric_limits<uint64_t>::max() / 2;
  }
  return static_cast<uint64_t>(r);
}

uint64_t BytesNotBeingCompacted(const Version& v, int level) {
  uint64_t n = 0;
  for (const FileMetaData* f : v.files(level)) {
    if (!f->being_compacted) n += f->file_size;
  }
  return n;
}

// Fills base_level and max_bytes for dynamic level sizes. The bottom level is `last` (the last
// writable level) and its size is taken to be everything in L1..last (flushes of sorted data
// may have placed files at any level; they are on their way down). Each level above targets a
// multiplier-th of the one below until a target would be at most max_bytes_for_level_base:
// that level is the base level.
void ComputeDynamicTargets(const Version& v, const Options& o, int last, LevelTargets* t) {
  const double mult = o.max_bytes_for_level_multiplier;
  const uint64_t base_max = o.max_bytes_for_level_base;
  uint64_t total = 0;
  for (int level = 1; level <= last; level++) total += v.NumLevelBytes(level);
  int base = last;
  double size = static_cast<double>(total);
  while (base > 1 && size > static_cast<double>(base_max)) {
    base--;
    size /= mult;
  }
  t->base_level = base;
  uint64_t level_size = static_cast<uint64_t>(size);
  for (int level = base; level <= last; level++) {
    if (level > base) level_size = SaturatingMultiply(level_size, mult);
    // Never below max_bytes_for_level_base: an hourglass-shaped tree would score deep levels
    // above L0 and starve it.
    t->max_bytes[level] = std::max(level_size, base_max);
  }
}

}  // namespace

LevelTargets ComputeLevelTargets(const Version& v, const Options& o) {
  const int n = v.num_levels();
  const int last = LastWritableLevel(o, n);
  LevelTargets t;
  t.max_bytes.assign(n, 0);
  t.scores.assign(n, 0.0);
  if (n == 1) {
    t.base_level = 0;
  } else if (o.level_compaction_dynamic_level_bytes) {
    ComputeDynamicTargets(v, o, last, &t);
  } else {
    t.base_level = 1;
    uint64_t size = o.max_bytes_for_level_base;
    for (int level = 1; level <= last; level++) {
      if (level > 1) size = SaturatingMultiply(size, o.max_bytes_for_level_multiplier);
      t.max_bytes[level] = size;
    }
  }
  // L0: file count against the trigger, bytes against the base size.
  int l0_files = 0;
  for (const FileMetaData* f : v.files(0)) {
    if (!f->being_compacted) l0_files++;
  }
  const double count_score =
      static_cast<double>(l0_files) / std::max(1, o.level0_file_num_compaction_trigger);
  const double byte_score = static_cast<double>(BytesNotBeingCompacted(v, 0)) /
                            static_cast<double>(std::max<uint64_t>(1, o.max_bytes_for_level_base));
  t.scores[0] = l0_files == 0 ? 0.0 : std::max(count_score, byte_score);
  for (int level = 1; level < last; level++) {
    const uint64_t bytes = BytesNotBeingCompacted(v, level);
    if (bytes == 0) continue;
    if (level < t.base_level) {
      // A level with no target holding files (a flush placed them): move them down.
      t.scores[level] = 1.0 + static_cast<double>(bytes) /
                                  static_cast<double>(std::max<uint64_t>(1, o.max_bytes_for_level_base));
    } else {
      t.scores[level] = static_cast<double>(bytes) / static_cast<double>(t.max_bytes[level]);
    }
  }
  return t;
}

uint64_t EstimateLevelPendingBytes(const Version& v, const Options& o, const LevelTargets& t) {
  const int n = v.num_levels();
  if (n == 1) return 0;
  const int last = LastWritableLevel(o, n);
  uint64_t pending = 0;
  // Bytes flowing into the next level from the compaction of the level above.
  uint64_t incoming = 0;
  const uint64_t l0_bytes = v.NumLevelBytes(0);
  if (v.NumFiles(0) >= o.level0_file_num_compaction_trigger ||
      l0_bytes >= o.max_bytes_for_level_base) {
    pending += l0_bytes + v.NumLevelBytes(t.base_level);
    incoming = l0_bytes;
  }
  for (int level = std::max(1, std::min(t.base_level, last)); level < last; level++) {
    const uint64_t size = v.NumLevelBytes(level) + incoming;
    incoming = 0;
    const uint64_t target = t.max_bytes[level];
    if (size <= target || target == 0) continue;
    const uint64_t excess = size - target;
    const uint64_t next = v.NumLevelBytes(level + 1);
    // The excess is rewritten once here and merged with its share of the next level.
    const double fan_out = static_cast<double>(next) / static_cast<double>(size) + 1.0;
    pending += static_cast<uint64_t>(static_cast<double>(excess) * fan_out);
    incoming = excess;
  }
  return pending;
}

uint64_t TargetFileSizeForLevel(const Options& o, int level, int base_level) {
  uint64_t size = o.target_file_size_base;
  for (int l = base_level; l < level; l++) {
    size = SaturatingMultiply(size, o.target_file_size_multiplier);
  }
  return size;
}

}  // namespace shale
