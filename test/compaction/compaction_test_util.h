// Helpers for the compaction tests: an InternalIterator over a sorted vector of entries,
// readable internal keys, hand-built FileMetaData and Versions (built with VersionBuilder, as
// the DB does, so the level rules are checked), and a reference model of "what a reader sees"
// over a set of point entries and range tombstones, used to check that compaction preserves
// every snapshot's view.
#ifndef SHALE_TEST_COMPACTION_COMPACTION_TEST_UTIL_H_
#define SHALE_TEST_COMPACTION_COMPACTION_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "shale/comparator.h"
#include "util/absl_compat.h"
#include "version/file_metadata.h"
#include "version/version.h"
#include "version/version_builder.h"
#include "version/version_edit.h"

namespace shale::test {

using KV = std::pair<std::string, std::string>;

// "a@5:1" for the internal key of user key "a", sequence 5, type 1.
inline std::string Describe(std::string_view internal_key) {
  ParsedInternalKey p;
  if (!ParseInternalKey(internal_key, &p).ok()) return "(bad key)";
  return absl::StrCat(ToAbsl(p.user_key), "@", p.sequence, ":", static_cast<int>(p.type));
}

inline std::string IKey(std::string_view user_key, SequenceNumber seq, ValueType type) {
  return MakeInternalKey(user_key, seq, type);
}

// Iterates a vector of (internal key, value) entries, sorted on construction by `icmp`.
class EntryIterator final : public InternalIterator {
 public:
  EntryIterator(const InternalKeyComparator* icmp, std::vector<KV> entries)
      : icmp_(icmp), entries_(std::move(entries)) {
    std::sort(entries_.begin(), entries_.end(), [this](const KV& a, const KV& b) {
      return icmp_->Compare(a.first, b.first) < 0;
    });
    pos_ = entries_.size();
  }
  bool Valid() const override { return pos_ < entries_.size(); }
  void SeekToFirst() override { pos_ = 0; }
  void SeekToLast() override { pos_ = entries_.empty() ? 0 : entries_.size() - 1; }
  void Seek(std::string_view target) override {
    pos_ = 0;
    while (pos_ < entries_.size() && icmp_->Compare(entries_[pos_].first, target) < 0) pos_++;
  }
  void SeekForPrev(std::string_view target) override {
    Seek(target);
    if (pos_ < entries_.size() && icmp_->Compare(entries_[pos_].first, target) == 0) return;
    pos_ = pos_ == 0 ? entries_.size() : pos_ - 1;
  }
  void Next() override { pos_++; }
  void Prev() override { pos_ = pos_ == 0 ? entries_.size() : pos_ - 1; }
  std::string_view key() const override { return entries_[pos_].first; }
  std::string_view value() const override { return entries_[pos_].second; }
  Status status() const override { return Status::OK(); }

 private:
  const InternalKeyComparator* const icmp_;
  std::vector<KV> entries_;
  size_t pos_;
};

// A file of user keys [lo, hi] with sequences [smallest_seq, largest_seq].
inline FileMetaData MakeFile(uint64_t number, std::string_view lo, std::string_view hi,
                             SequenceNumber smallest_seq, SequenceNumber largest_seq,
                             uint64_t size = 1000, uint64_t creation_time = 0) {
  FileMetaData f;
  f.number = number;
  f.file_size = size;
  f.smallest = MakeInternalKey(lo, largest_seq, kTypeValue);
  f.largest = MakeInternalKey(hi, smallest_seq, kTypeValue);
  f.smallest_seqno = smallest_seq;
  f.largest_seqno = largest_seq;
  f.num_entries = 10;
  f.creation_time = creation_time;
  return f;
}

// Owns one reference to a Version built from a list of files, outside any VersionSet.
class TestVersion {
 public:
  TestVersion(const InternalKeyComparator* icmp, int num_levels,
              const std::vector<std::pair<int, FileMetaData>>& files) {
    Version* empty = new Version(icmp, num_levels);
    empty->Ref();
    VersionEdit edit;
    for (const auto& [level, f] : files) edit.AddFile(level, f);
    v_ = new Version(icmp, num_levels);
    v_->Ref();
    {
      VersionBuilder builder(icmp, empty);
      status_ = builder.Apply(edit);
      if (status_.ok()) status_ = builder.SaveTo(v_);
    }
    empty->Unref();
  }
  ~TestVersion() { v_->Unref(); }
  TestVersion(const TestVersion&) = delete;
  TestVersion& operator=(const TestVersion&) = delete;

  Version* get() const { return v_; }
  Version* operator->() const { return v_; }
  const Status& status() const { return status_; }
  // The file numbered `number`, or null.
  FileMetaData* File(uint64_t number) const {
    for (int level = 0; level < v_->num_levels(); level++) {
      for (FileMetaData* f : v_->files(level)) {
        if (f->number == number) return f;
      }
    }
    return nullptr;
  }

 private:
  Version* v_ = nullptr;
  Status status_;
};

// The file numbers of a compaction input level, sorted.
inline std::vector<uint64_t> Numbers(const std::vector<FileMetaData*>& files) {
  std::vector<uint64_t> r;
  for (const FileMetaData* f : files) r.push_back(f->number);
  std::sort(r.begin(), r.end());
  return r;
}

// ---- Reference model of reads over point entries and range tombstones.

struct PointEntry {
  std::string user_key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

struct Tombstone {
  std::string start;
  std::string end;  // exclusive
  SequenceNumber seq;
};

struct LsmContents {
  std::vector<PointEntry> points;
  std::vector<Tombstone> tombstones;
};

// What a reader at `snapshot` sees for `user_key`: "=value", "deleted" (a deletion or a range
// deletion is the newest visible thing), or "absent" (nothing at all).
inline std::string Lookup(const LsmContents& c, std::string_view user_key,
                          SequenceNumber snapshot) {
  const PointEntry* newest = nullptr;
  for (const PointEntry& e : c.points) {
    if (e.user_key != user_key || e.seq > snapshot) continue;
    if (newest == nullptr || e.seq > newest->seq) newest = &e;
  }
  SequenceNumber covering = 0;
  for (const Tombstone& t : c.tombstones) {
    if (t.seq <= snapshot && t.start <= user_key && user_key < t.end) {
      covering = std::max(covering, t.seq);
    }
  }
  if (newest != nullptr && newest->seq > covering) {
    return newest->type == kTypeValue ? "=" + newest->value : "deleted";
  }
  if (newest != nullptr || covering > 0) return "deleted";
  return "absent";
}

// Lookup over larger contents: the point entries indexed by user key.
class ReadModel {
 public:
  explicit ReadModel(const LsmContents& c) : tombstones_(c.tombstones) {
    for (const PointEntry& e : c.points) by_key_[e.user_key].push_back(e);
  }
  std::string Lookup(const std::string& user_key, SequenceNumber snapshot) const {
    LsmContents one;
    auto it = by_key_.find(user_key);
    if (it != by_key_.end()) one.points = it->second;
    for (const Tombstone& t : tombstones_) {
      if (t.start <= user_key && user_key < t.end) one.tombstones.push_back(t);
    }
    return test::Lookup(one, user_key, snapshot);
  }

 private:
  std::map<std::string, std::vector<PointEntry>> by_key_;
  std::vector<Tombstone> tombstones_;
};

}  // namespace shale::test

#endif  // SHALE_TEST_COMPACTION_COMPACTION_TEST_UTIL_H_
