// WriteBatchWithIndex for RocksDB's C API (rocksdb_writebatch_wi_t): a write batch plus an
// ordered index of the newest state of every (column family, key) it holds, so that reads can
// see the batch's own updates (rocksdb_writebatch_wi_get_from_batch*, and the iterator with
// base of wbwi_iterator.cc, which merges the index with a DB iterator). ShaleDB's engine has no
// WriteBatchWithIndex: this layer builds it over the public WriteBatch.
//
// The index keeps, per key, the newest Put or Delete (SingleDelete counts as Delete) and the
// merge operands added after it, oldest first: what RocksDB's index resolves a key to with
// overwrite_keys (a batch made without it answers the same reads here; RocksDB's iterator over
// such a batch may show a key's older records, ours shows the newest state only). Range
// deletions are refused (not recorded), as RocksDB's WriteBatchWithIndex refuses them.
//
// Each family's keys are ordered by the comparator of the first handle that named the family
// (bytewise for the calls without a handle), as RocksDB orders them by the handle's comparator.
//
// Thread-safety: one thread at a time, like a WriteBatch. An iterator over the batch sees later
// updates to it; rollback to a save point and clear invalidate iterators (as in RocksDB).
#ifndef SHALE_ROCKSDB_CAPI_WRITE_BATCH_WITH_INDEX_H_
#define SHALE_ROCKSDB_CAPI_WRITE_BATCH_WITH_INDEX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb_capi/batch.h"
#include "shale/comparator.h"
#include "shale/iterator.h"
#include "shale/merge_operator.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale::rocksdb_capi {

// The newest state of one key in the batch.
struct IndexedEntry {
  enum class Base : uint8_t {
    kNone,     // no Put or Delete in the batch: only merge operands, over the DB's value
    kValue,    // a Put: `value`
    kDeleted,  // a Delete or SingleDelete
  };
  Base base = Base::kNone;
  std::string value;
  std::vector<std::string> operands;  // merges after the base, oldest first
};

// Orders keys by a comparator; transparent so string_views look keys up without a copy.
class KeyOrder {
 public:
  using is_transparent = void;
  explicit KeyOrder(const Comparator* comparator) : comparator_(comparator) {}
  bool operator()(std::string_view a, std::string_view b) const {
    return comparator_->Compare(a, b) < 0;
  }
  const Comparator* comparator() const { return comparator_; }

 private:
  const Comparator* comparator_;
};

using IndexedKeys = std::map<std::string, IndexedEntry, KeyOrder>;

// The index of a batch: one ordered map per column family id. Families are never removed
// (clear and rollback empty them), so an iterator's reference to one stays valid.
class BatchIndex {
 public:
  // The family's keys; created, ordered by `comparator` (null: bytewise), when new.
  IndexedKeys& Family(uint32_t family_id, const Comparator* comparator);
  // The entry of key in the family, or null.
  const IndexedEntry* Find(uint32_t family_id, std::string_view key) const;

  void Put(uint32_t family_id, const Comparator* comparator, std::string_view key,
           std::string_view value);
  void Delete(uint32_t family_id, const Comparator* comparator, std::string_view key);
  void Merge(uint32_t family_id, const Comparator* comparator, std::string_view key,
             std::string_view operand);

  // Empties every family, then indexes the records of `batch` (the readable ones, when it is
  // damaged: the status says what is wrong; range deletions are skipped).
  Status Rebuild(const WriteBatch& batch);

 private:
  std::map<uint32_t, IndexedKeys> families_;
};

// Resolves `entry` for a read: the value it gives (OK), NotFound, or MergeInProgress when it
// has only merge operands and `below_known` is false. When below_known, `below` is the value
// under the batch (null: none). Merges with `merge_operator` (null with operands to merge:
// InvalidArgument, as RocksDB).
Status ResolveEntry(const IndexedEntry& entry, std::string_view key,
                    const MergeOperator* merge_operator, bool below_known,
                    const std::string* below, std::string* value);

// The iterator of rocksdb_writebatch_wi_create_iterator_with_base: `base` (a DB iterator of the
// family) overlaid with the batch's entries of `keys`, in the family's order: a Put shows its
// value, a Delete hides the base's key, merge operands are merged by `merge_operator` over the
// batch's Put or Delete, else over the base's value (null operator, or a failed merge: the
// iterator stops with the error in status(), as RocksDB's). Keys of the batch are not limited
// by the base's bounds (RocksDB passes no bounds to its delta iterator either).
std::unique_ptr<Iterator> NewIteratorWithBase(
    const IndexedKeys* keys, std::unique_ptr<Iterator> base,
    std::shared_ptr<const MergeOperator> merge_operator);

}  // namespace shale::rocksdb_capi

// A WriteBatchWithIndex handle. Invariant: `index` describes exactly the records of batch.rep
// (it is rebuilt from rep when save points cut rep back).
struct rocksdb_writebatch_wi_t {
  rocksdb_writebatch_t batch;
  shale::rocksdb_capi::BatchIndex index;
  bool overwrite_keys = false;
};

#endif  // SHALE_ROCKSDB_CAPI_WRITE_BATCH_WITH_INDEX_H_
