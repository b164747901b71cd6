// CompactionFilter: lets the application drop or rewrite values while compactions rewrite them
// (garbage collection by custom rules: expired keys, a dropped key prefix...). The shape is
// RocksDB's.
//
// When it is called: during compactions only, never during flushes, reads or writes. A
// compaction calls Filter once for each user key of its input whose newest version in the
// input is a value (a Put) that the compaction would otherwise keep: not for deletions, merge
// operands, results of merges, older versions of the key, entries hidden by a range deletion,
// or keys outside the compaction. A key is filtered again by later compactions that rewrite it.
//
// What it does:
//  - returning true (remove) turns the value into a deletion marker at the same sequence
//    number: older versions of the key below the compaction stay hidden (the key reads as
//    deleted), and at the bottommost level the marker is dropped by the usual rules;
//  - setting *value_changed (and *new_value) and returning false replaces the value, at the
//    same sequence number.
// Snapshots: as RocksDB (since 6.0), the filter is called whatever snapshots exist: a snapshot
// taken after the value was written may see the removal or the new value once a compaction ran
// (reads at that snapshot are then not repeatable). Versions older than a snapshot's stripe
// are not filtered and stay readable at that snapshot.
//
// Thread-safety: a CompactionFilter set in ColumnFamilyOptions::compaction_filter is shared by
// every compaction (and subcompaction) of the family, which run in parallel threads: its const
// methods must be safe for concurrent calls. A filter made by a CompactionFilterFactory is used
// by one (sub)compaction thread only; the factory itself is called concurrently.
// The engine never calls a filter or a factory while holding the DB mutex.
#ifndef SHALE_COMPACTION_FILTER_H_
#define SHALE_COMPACTION_FILTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/export.h"

namespace shale {

class SHALE_EXPORT CompactionFilter {
 public:
  // What a CompactionFilterFactory learns about the compaction it makes a filter for.
  struct Context {
    // The compaction's inputs are every table file of the column family.
    bool is_full_compaction = false;
    // The compaction was asked for by DB::CompactRange.
    bool is_manual_compaction = false;
    // The column family's id (0: the default family).
    uint32_t column_family_id = 0;
  };

  virtual ~CompactionFilter() = default;

  // Called for the newest value of `key` (see the header comment). `level` is the compaction's
  // start level. Return true to remove the entry (it becomes a deletion marker). To keep it
  // with another value, set *new_value and *value_changed = true and return false. The views
  // are valid during the call only. *value_changed is false on entry. A new value is bound by the
  // value size limit (shale/limits.h): a larger one fails the compaction (again each time, as
  // the filter decides the same). Must not throw: an exception escaping a compaction thread
  // ends the process (as in RocksDB).
  virtual bool Filter(int level, std::string_view key, std::string_view existing_value,
                      std::string* new_value, bool* value_changed) const = 0;

  // The filter's name, for logs. Must not be null.
  virtual const char* Name() const = 0;
};

// Makes a CompactionFilter for each (sub)compaction, knowing what compaction it is for.
// Thread-safety: called from several compaction threads at once.
class SHALE_EXPORT CompactionFilterFactory {
 public:
  virtual ~CompactionFilterFactory() = default;

  // A filter for one (sub)compaction; null: that compaction filters nothing.
  virtual std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context& context) = 0;

  // The factory's name, for logs. Must not be null.
  virtual const char* Name() const = 0;
};

}  // namespace shale

#endif  // SHALE_COMPACTION_FILTER_H_
