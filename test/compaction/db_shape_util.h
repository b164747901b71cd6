// Helpers for DB-level compaction tests (test/db/db_compaction*_test.cc): the LSM shape as the
// DB reports it (the "shale.sstables" property, parsed), the level-order checks, and a wait
// for background compaction to settle.
#ifndef SHALE_TEST_COMPACTION_DB_SHAPE_UTIL_H_
#define SHALE_TEST_COMPACTION_DB_SHAPE_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "shale/db.h"

namespace shale::test {

// One table file as "shale.sstables" lists it. Key bounds are internal keys split into parts.
struct SstInfo {
  int level = 0;
  uint64_t number = 0;
  uint64_t size = 0;
  std::string smallest;
  uint64_t smallest_seq = 0;
  int smallest_type = 0;
  std::string largest;
  uint64_t largest_seq = 0;
  int largest_type = 0;
  uint64_t entries = 0;
  uint64_t deletions = 0;
  uint64_t range_deletions = 0;
};

// Parses "shale.sstables" (user keys must be printable without escapes and contain no quote).
inline std::vector<SstInfo> ListFiles(DB* db) {
  std::string text;
  EXPECT_TRUE(db->GetProperty(DB::Properties::kSSTables, &text));
  std::vector<SstInfo> files;
  std::istringstream in(text);
  std::string line;
  int level = -1;
  while (std::getline(in, line)) {
    if (line.rfind("--- level ", 0) == 0) {
      level = std::stoi(line.substr(10));
      continue;
    }
    SstInfo f;
    f.level = level;
    char lo[512], hi[512];
    unsigned long long number, size, lseq, hseq, smin, smax, entries, dels, rdels;
    const int n = sscanf(line.c_str(),
                         "#%llu size=%llu ['%511[^']' @ %llu : %d .. '%511[^']' @ %llu : %d] "
                         "seq=[%llu,%llu] entries=%llu dels=%llu range_dels=%llu",
                         &number, &size, lo, &lseq, &f.smallest_type, hi, &hseq, &f.largest_type,
                         &smin, &smax, &entries, &dels, &rdels);
    EXPECT_EQ(n, 13) << "cannot parse: " << line;
    if (n != 13) continue;
    f.number = number;
    f.size = size;
    f.smallest = lo;
    f.smallest_seq = lseq;
    f.largest = hi;
    f.largest_seq = hseq;
    f.entries = entries;
    f.deletions = dels;
    f.range_deletions = rdels;
    files.push_back(f);
  }
  return files;
}

// Bytes and file counts per level.
inline std::vector<uint64_t> LevelBytes(const std::vector<SstInfo>& files, int num_levels) {
  std::vector<uint64_t> bytes(num_levels, 0);
  for (const SstInfo& f : files) bytes[f.level] += f.size;
  return bytes;
}
inline std::vector<int> LevelFileCounts(const std::vector<SstInfo>& files, int num_levels) {
  std::vector<int> counts(num_levels, 0);
  for (const SstInfo& f : files) counts[f.level]++;
  return counts;
}

inline std::string ShapeString(const std::vector<SstInfo>& files, int num_levels) {
  std::string r;
  const std::vector<uint64_t> bytes = LevelBytes(files, num_levels);
  const std::vector<int> counts = LevelFileCounts(files, num_levels);
  for (int level = 0; level < num_levels; level++) {
    char buf[64];
    snprintf(buf, sizeof(buf), "L%d=%d/%llu ", level, counts[level],
             static_cast<unsigned long long>(bytes[level]));
    r += buf;
  }
  return r;
}

// Internal-key order of (user key, sequence, type): user key ascending, then newest first.
inline bool InternalLess(const std::string& ua, uint64_t sa, int ta, const std::string& ub,
                         uint64_t sb, int tb) {
  if (ua != ub) return ua < ub;
  return std::make_tuple(sa, ta) > std::make_tuple(sb, tb);
}

// Every level below L0 is sorted and its files do not overlap (the list is in level order).
inline void ExpectLevelsSortedAndDisjoint(const std::vector<SstInfo>& files) {
  for (size_t i = 1; i < files.size(); i++) {
    const SstInfo& a = files[i - 1];
    const SstInfo& b = files[i];
    if (a.level != b.level || a.level == 0) continue;
    EXPECT_TRUE(InternalLess(a.largest, a.largest_seq, a.largest_type, b.smallest, b.smallest_seq,
                             b.smallest_type))
        << "L" << a.level << " #" << a.number << " [" << a.smallest << " .. " << a.largest
        << "] overlaps or precedes #" << b.number << " [" << b.smallest << " .. " << b.largest
        << "]";
  }
}

inline uint64_t IntProperty(DB* db, std::string_view name) {
  uint64_t v = 0;
  EXPECT_TRUE(db->GetIntProperty(name, &v)) << name;
  return v;
}

struct SettleResult {
  bool settled = false;  // no compaction running and none due
  bool stable = false;   // no compaction running and the files unchanged for a while
  uint64_t pending = 0;  // shale.compaction-pending at the end
};

// Flushes, then waits until no compaction runs and none is due. Gives up after `timeout`;
// stops early (settled = false, stable = true) when nothing runs and the files have not
// changed for `stable_for` although a compaction is still reported due.
inline SettleResult WaitForCompactions(
    DB* db, std::chrono::milliseconds timeout = std::chrono::seconds(20),
    std::chrono::milliseconds stable_for = std::chrono::milliseconds(1500)) {
  SettleResult r;
  EXPECT_TRUE(db->Flush(FlushOptions()).ok());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  auto unchanged_since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline) {
    const uint64_t running = IntProperty(db, DB::Properties::kNumRunningCompactions);
    r.pending = IntProperty(db, DB::Properties::kCompactionPending);
    if (running == 0 && r.pending == 0) {
      r.settled = r.stable = true;
      return r;
    }
    std::string now_files;
    db->GetProperty(DB::Properties::kSSTables, &now_files);
    const auto now = std::chrono::steady_clock::now();
    if (running != 0 || now_files != last) {
      last = now_files;
      unchanged_since = now;
    } else if (now - unchanged_since >= stable_for) {
      r.stable = true;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return r;
}

}  // namespace shale::test

#endif  // SHALE_TEST_COMPACTION_DB_SHAPE_UTIL_H_
