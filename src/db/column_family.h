// ColumnFamilyData: one column family of an open DB: its options, its memtables (MemTableSet),
// the SuperVersion readers pin, its compaction picker, its pending output ranges and its
// flush and compaction counters. Its table files are its Version in the VersionSet
// (versions_->current(id)). DBImpl coordinates what the families share (the write queue, the
// WAL, the background pools, the memory budget, the write controller) and keeps one
// ColumnFamilyData per live family, plus those of dropped families that handles or iterators
// still hold (DESIGN.md "Keys and sequence numbers": column families).
//
// ColumnFamilyHandleImpl: the public handle (shale/db.h) over a ColumnFamilyData.
//
// Lifetime: shared (std::shared_ptr) by DBImpl's family map, the handles and the
// SuperVersions of the family; a dropped family leaves the map at once and is freed when the
// last handle and SuperVersion let go. Nothing here points back at the DB, so a handle may
// outlive a failed or closed DB.
//
// Thread-safety: id(), name() and comparator() are constant. Every other field is guarded by
// the DB mutex (DBImpl::mu_). The thread-safety analysis cannot follow that mutex through a
// pointer to this object, so the rule is written here and kept by DBImpl, whose methods that
// touch a ColumnFamilyData all require mu_. As with MemTableSet, the active memtable's
// contents are written by the write queue's front without the mutex.
#ifndef SHALE_DB_COLUMN_FAMILY_H_
#define SHALE_DB_COLUMN_FAMILY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compaction/compaction.h"
#include "compaction/compaction_picker.h"
#include "db/super_version.h"
#include "memtable/memtable_set.h"
#include "shale/db.h"
#include "shale/options.h"
#include "util/mutex.h"

namespace shale {

// Compaction counters of one output level, for shale.stats / shale.levelstats.
struct LevelCompactionStats {
  uint64_t compactions = 0;
  uint64_t trivial_moves = 0;
  uint64_t bytes_read_start = 0;   // from the start level (Rn)
  uint64_t bytes_read_output = 0;  // from the output level itself (Rnp1)
  uint64_t bytes_written = 0;
  uint64_t files_in = 0;
  uint64_t files_out = 0;
  uint64_t micros = 0;
};

// Flush counters, for shale.stats.
struct FlushStats {
  uint64_t flushes = 0;
  uint64_t bytes_written = 0;
  uint64_t micros = 0;
  uint64_t files_to_lower_levels = 0;  // flushes placed below L0
};

class ColumnFamilyData {
 public:
  // `options`: the DB's options with this family's (validated and sanitized).
  ColumnFamilyData(uint32_t id, std::string name, const Options& options);
  ~ColumnFamilyData();
  ColumnFamilyData(const ColumnFamilyData&) = delete;
  ColumnFamilyData& operator=(const ColumnFamilyData&) = delete;

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }
  const Comparator* comparator() const { return comparator_; }
  // The family's merge operator (not dynamic); may be null.
  MergeOperator* merge_operator() const { return merge_operator_.get(); }

  // ---- Guarded by the DB mutex (see the header comment).
  // The DB's options with this family's; SetOptions and SetDBOptions change them.
  Options options;
  MemTableSet mems;
  // The SuperVersion readers pin (null before Open installs one and after Close).
  SuperVersion* super_version = nullptr;

  // ---- The point-read SuperVersion cache (DBImpl::AcquireSuperVersionForGet): not guarded
  // by the DB mutex. A Get takes the slot of its thread (a slot index its thread holds until it
  // exits; threads beyond kSuperVersionSlots share) by replacing the slot's content with the
  // thread's own in-use mark (an odd value: never a SuperVersion's address), finds there a
  // referenced SuperVersion -- the current one -- and puts it back when done, so a Get neither
  // locks the DB mutex nor writes a cache line another thread writes (the SuperVersion's
  // reference count). A Get that finds another thread's mark in the slot does not touch it and
  // takes a reference of its own.
  // Invariant (kept under the DB mutex by ScrapeSuperVersionSlotsLocked, which every change of
  // super_version calls first): a slot holds null, one thread's in-use mark, or a reference to
  // super_version. The scrape replaces marks with null as well; a Get whose mark is gone when it
  // is done (its put-back compare-exchange expects its own mark, so no other thread's mark can
  // stand in for it) drops its reference itself.
  static constexpr size_t kSuperVersionSlots = 64;
  struct alignas(128) SuperVersionSlot {  // 128: the adjacent-line prefetcher pairs lines
    std::atomic<SuperVersion*> sv{nullptr};
  };
  SuperVersionSlot super_version_slots[kSuperVersionSlots];
  // super_version's version_number (0: none), published with release order.
  std::atomic<uint64_t> super_version_number{0};
  // Null for kCompactionStyleNone.
  std::unique_ptr<CompactionPicker> picker;
  // Output ranges of running flushes and compactions of this family (see DBImpl).
  std::map<uint64_t, PendingOutputRange> pending_ranges;
  FlushStats flush_stats;
  std::vector<LevelCompactionStats> compaction_stats;  // per output level
  // Write stalls and delays this family's state caused, by WriteController::Cause.
  uint64_t stall_count_by_cause[4] = {};
  uint64_t stall_micros_by_cause[4] = {};
  // Set by DropColumnFamily (under the DB mutex): writes, flushes and compactions are refused
  // or skipped, reads through the handles that remain still work, and the family's files go
  // once nothing holds it. Atomic so that a handle or an iterator letting go of the family
  // can tell, without the DB mutex, whether the DB has a dropped family to free.
  std::atomic<bool> dropped{false};
  // A flush of this family is queued or running (flushes of one family run one at a time,
  // oldest memtable first).
  bool flush_scheduled = false;

 private:
  const uint32_t id_;
  const std::string name_;
  const Comparator* const comparator_;
  const std::shared_ptr<MergeOperator> merge_operator_;
};

// What the handles of one DB share of it: the DB's mutex and the callback that frees dropped
// families. The DB clears them (Detach) when it is destroyed, so a handle released after its
// DB (RocksDB forbids it; bindings that free handles late do it) touches nothing of the DB.
// Thread-safety: mu_ guards the fields; a handle's destructor holds it across the callback,
// so the DB's destructor (which takes it to Detach) waits for a release in progress.
class HandleOwner {
 public:
  HandleOwner(Mutex* db_mutex, std::function<void()> on_release)
      : db_mutex_(db_mutex), on_release_(std::move(on_release)) {}
  // The DB is going: later calls do nothing.
  void Detach() ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock lock(&mu_);
    db_mutex_ = nullptr;
    on_release_ = nullptr;
  }
  // Runs the DB's release callback, if the DB is still there.
  void Released() ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock lock(&mu_);
    if (on_release_) on_release_();
  }
  // Calls fn(db mutex) with the DB's mutex, or returns false when the DB is gone.
  template <typename Fn>
  bool WithDbMutex(Fn&& fn) ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock lock(&mu_);
    if (db_mutex_ == nullptr) return false;
    fn(db_mutex_);
    return true;
  }

 private:
  Mutex mu_;
  Mutex* db_mutex_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_release_ ABSL_GUARDED_BY(mu_);
};

// The public handle. Its destructor lets go of the family and then tells the owner (the DB
// frees a dropped family that nothing holds any more). The DB's own default handle has no
// owner to tell.
class ColumnFamilyHandleImpl final : public ColumnFamilyHandle {
 public:
  // `owner`: the DB's (also its identity: a handle of another DB is refused).
  ColumnFamilyHandleImpl(std::shared_ptr<ColumnFamilyData> cfd, std::shared_ptr<HandleOwner> owner,
                         bool notify_owner)
      : cfd_(std::move(cfd)), owner_(std::move(owner)), notify_owner_(notify_owner) {}
  ~ColumnFamilyHandleImpl() override {
    const bool dropped = cfd_->dropped.load();
    cfd_.reset();
    // Only a dropped family may now be free to go (review 2, finding 1: not on every release).
    if (notify_owner_ && dropped) owner_->Released();
  }
  const std::string& GetName() const override { return cfd_->name(); }
  uint32_t GetID() const override { return cfd_->id(); }
  // ShutdownInProgress once the DB is destroyed.
  Status GetDescriptor(ColumnFamilyDescriptor* descriptor) override;
  const Comparator* GetComparator() const override { return cfd_->comparator(); }

  const std::shared_ptr<ColumnFamilyData>& cfd() const { return cfd_; }
  const HandleOwner* owner() const { return owner_.get(); }

 private:
  std::shared_ptr<ColumnFamilyData> cfd_;  // reset only by the destructor
  const std::shared_ptr<HandleOwner> owner_;
  const bool notify_owner_;
};

}  // namespace shale

#endif  // SHALE_DB_COLUMN_FAMILY_H_
