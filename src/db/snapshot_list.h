// SnapshotList: the DB's live snapshots, oldest first.
//
// A snapshot is a sequence number; reads at it see the writes with sequence <= it. Flushes
// and compactions ask for All() to keep every version some snapshot can still see.
//
// Thread-safety: none; the DB mutex guards the list (every method requires it).
#ifndef SHALE_DB_SNAPSHOT_LIST_H_
#define SHALE_DB_SNAPSHOT_LIST_H_

#include <cassert>
#include <cstdint>
#include <list>
#include <vector>

#include "base/internal_key.h"
#include "shale/options.h"

namespace shale {

class SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber sequence) : sequence_(sequence) {}
  uint64_t GetSequenceNumber() const override { return sequence_; }

 private:
  friend class SnapshotList;
  const SequenceNumber sequence_;
  std::list<SnapshotImpl*>::iterator position_;  // in the owning list
};

class SnapshotList {
 public:
  SnapshotList() = default;
  SnapshotList(const SnapshotList&) = delete;
  SnapshotList& operator=(const SnapshotList&) = delete;
  // REQUIRES: empty (every snapshot released) or the DB is going away.
  ~SnapshotList() {
    for (SnapshotImpl* s : list_) delete s;
  }

  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }

  // A new snapshot at `sequence`. REQUIRES: sequence >= every live snapshot's.
  SnapshotImpl* New(SequenceNumber sequence) {
    assert(list_.empty() || list_.back()->sequence_ <= sequence);
    auto* s = new SnapshotImpl(sequence);
    s->position_ = list_.insert(list_.end(), s);
    return s;
  }
  // Releases and deletes a snapshot of this list.
  void Delete(const SnapshotImpl* s) {
    list_.erase(s->position_);
    delete s;
  }
  // Every live snapshot's sequence, ascending (duplicates removed).
  std::vector<SequenceNumber> All() const {
    std::vector<SequenceNumber> result;
    for (const SnapshotImpl* s : list_) {
      if (result.empty() || result.back() != s->sequence_) result.push_back(s->sequence_);
    }
    return result;
  }

 private:
  std::list<SnapshotImpl*> list_;  // in creation order, hence ascending sequence
};

}  // namespace shale

#endif  // SHALE_DB_SNAPSHOT_LIST_H_
