// Helpers for the version tests: files with readable keys, a reference model of the LSM state
// (plain maps), random edits that keep the level rules, and one text form for both the model and
// a VersionSet so that a mismatch prints as a readable diff.
#ifndef SHALE_TEST_VERSION_VERSION_TEST_UTIL_H_
#define SHALE_TEST_VERSION_VERSION_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/internal_key.h"
#include "util/random.h"
#include "version/file_metadata.h"
#include "version/version.h"
#include "version/version_edit.h"
#include "version/version_set.h"

namespace shale::test {

// User key "k00000042" for 42, so byte order is numeric order.
inline std::string UserKey(uint64_t i) { return absl::StrFormat("k%08u", i); }

inline FileMetaData MakeFile(uint64_t number, std::string_view smallest_user_key,
                             std::string_view largest_user_key, SequenceNumber smallest_seq,
                             SequenceNumber largest_seq, uint64_t size = 1000) {
  FileMetaData f;
  f.number = number;
  f.file_size = size;
  f.smallest = MakeInternalKey(smallest_user_key, largest_seq, kTypeValue);
  f.largest = MakeInternalKey(largest_user_key, smallest_seq, kTypeValue);
  f.smallest_seqno = smallest_seq;
  f.largest_seqno = largest_seq;
  f.num_entries = number * 3 + 1;
  f.num_deletions = number % 4;
  f.num_range_deletions = number % 3;
  f.raw_key_size = number * 11;
  f.raw_value_size = number * 101;
  f.creation_time = 1700000000 + number;
  return f;
}

// The persistent state of a DB as plain maps.
struct Model {
  explicit Model(int num_levels)
      : levels(static_cast<size_t>(num_levels)), compact_pointers(num_levels) {}

  std::vector<std::map<uint64_t, FileMetaData>> levels;  // by file number
  uint64_t log_number = 0;
  uint64_t prev_log_number = 0;
  std::vector<std::string> compact_pointers;

  void Apply(const VersionEdit& edit) {
    for (const auto& [level, number] : edit.deleted_files()) levels[level].erase(number);
    for (const auto& [level, f] : edit.new_files()) levels[level][f.number] = f;
    for (const auto& [level, key] : edit.compact_pointers()) compact_pointers[level] = key;
    if (edit.has_log_number()) log_number = edit.log_number();
    if (edit.has_prev_log_number()) prev_log_number = edit.prev_log_number();
  }

  // Whether [lo, hi] (user keys) overlaps a file of `level`.
  bool Overlaps(int level, std::string_view lo, std::string_view hi) const {
    for (const auto& [number, f] : levels[level]) {
      if (!(hi < ExtractUserKey(f.smallest) || lo > ExtractUserKey(f.largest))) return true;
    }
    return false;
  }

  std::vector<std::pair<int, uint64_t>> AllFiles() const {
    std::vector<std::pair<int, uint64_t>> all;
    for (int level = 0; level < static_cast<int>(levels.size()); ++level) {
      for (const auto& [number, f] : levels[level]) all.emplace_back(level, number);
    }
    return all;
  }
};

inline std::string DescribeFiles(int level, std::vector<const FileMetaData*> files) {
  std::sort(files.begin(), files.end(),
            [](const FileMetaData* a, const FileMetaData* b) { return a->number < b->number; });
  std::string r;
  for (const FileMetaData* f : files) absl::StrAppend(&r, "L", level, " ", f->DebugString(), "\n");
  return r;
}

inline std::string DescribeModel(const Model& m) {
  std::string r = absl::StrCat("log=", m.log_number, " prev_log=", m.prev_log_number, "\n");
  for (size_t level = 0; level < m.levels.size(); ++level) {
    if (!m.compact_pointers[level].empty()) {
      absl::StrAppend(&r, "pointer L", level, " ", absl::CEscape(m.compact_pointers[level]), "\n");
    }
    std::vector<const FileMetaData*> files;
    for (const auto& [number, f] : m.levels[level]) files.push_back(&f);
    r += DescribeFiles(static_cast<int>(level), files);
  }
  return r;
}

// REQUIRES: no other thread uses `vs`.
inline std::string DescribeVersionSet(const VersionSet& vs) {
  std::string r = absl::StrCat("log=", vs.LogNumber(), " prev_log=", vs.PrevLogNumber(), "\n");
  for (int level = 0; level < vs.num_levels(); ++level) {
    if (!vs.CompactPointer(level).empty()) {
      absl::StrAppend(&r, "pointer L", level, " ", absl::CEscape(vs.CompactPointer(level)), "\n");
    }
    const auto& files = vs.current()->files(level);
    r += DescribeFiles(level, std::vector<const FileMetaData*>(files.begin(), files.end()));
  }
  return r;
}

// Makes a random edit that keeps the level rules, and applies it to the model too. File numbers
// come from vs->NewFileNumber(); *next_seq advances with each new file.
inline VersionEdit RandomEdit(Random* rnd, VersionSet* vs, Model* model, SequenceNumber* next_seq) {
  VersionEdit edit;
  const int num_levels = vs->num_levels();
  Model after = *model;  // the state as the edit is built, to keep additions non-overlapping
  std::vector<std::pair<int, uint64_t>> all = after.AllFiles();
  // Deletions and moves to the next level.
  for (int i = static_cast<int>(rnd->Uniform(3)); i > 0 && !all.empty(); --i) {
    const auto [level, number] = all[rnd->Uniform(all.size())];
    if (after.levels[level].count(number) == 0) continue;
    FileMetaData f = after.levels[level][number];
    after.levels[level].erase(number);
    edit.DeleteFile(level, number);
    const int to = level + 1;
    if (rnd->OneIn(2) && to < num_levels &&
        !after.Overlaps(to, ExtractUserKey(f.smallest), ExtractUserKey(f.largest))) {
      edit.AddFile(to, f);
      after.levels[to][number] = f;
    }
  }
  // New files.
  for (int i = static_cast<int>(rnd->Uniform(4)); i > 0; --i) {
    const uint64_t lo = rnd->Uniform(10000);
    const uint64_t hi = lo + rnd->Uniform(200);
    int level = static_cast<int>(rnd->Uniform(num_levels));
    if (level > 0 && after.Overlaps(level, UserKey(lo), UserKey(hi))) level = 0;
    const SequenceNumber first = *next_seq;
    *next_seq += 1 + rnd->Uniform(100);
    FileMetaData f = MakeFile(vs->NewFileNumber(), UserKey(lo), UserKey(hi), first, *next_seq - 1,
                              1 + rnd->Uniform(1 << 20));
    edit.AddFile(level, f);
    after.levels[level][f.number] = f;
  }
  if (rnd->OneIn(4)) {
    edit.SetCompactPointer(static_cast<int>(rnd->Uniform(num_levels)),
                           MakeInternalKey(UserKey(rnd->Uniform(10000)), rnd->Uniform(1000),
                                           kTypeValue));
  }
  if (rnd->OneIn(5)) edit.SetLogNumber(vs->NewFileNumber());
  model->Apply(edit);
  return edit;
}

}  // namespace shale::test

#endif  // SHALE_TEST_VERSION_VERSION_TEST_UTIL_H_
