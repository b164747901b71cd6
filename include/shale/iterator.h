// Iterator: an ordered scan over the user keys of a DB (DB::NewIterator), RocksDB's shape.
//
// An iterator shows the DB as of one snapshot (ReadOptions::snapshot, or an implicit one taken
// when it was created): later writes are invisible to it. It shows each live user key once, with
// its newest visible value; deleted keys are hidden. With ReadOptions::iterate_lower_bound or
// iterate_upper_bound it shows only the keys in [lower, upper).
//
// Contract:
// - A new iterator is not Valid(); position it with a Seek* call first.
// - After any Seek*/Next/Prev the iterator is either Valid() or not. When it is not, status()
//   says whether it simply ran off the end (OK) or an error stopped it (Corruption, IOError...).
// - key() and value() REQUIRE Valid(). The views they return point into the iterator's own
//   memory and stay valid until the iterator moves (Seek*, Next, Prev) or is destroyed: copy
//   them to keep them longer.
// - Next() and Prev() REQUIRE Valid().
//
// Ownership: the caller owns the iterator (std::unique_ptr) and must destroy it before the DB
// it came from is closed or destroyed. The iterator pins the memtables and table files it
// reads, so keeping one alive for long keeps their memory and disk space from being released.
//
// Thread-safety: an iterator is used by one thread at a time (it is not safe to call even its
// const methods concurrently with a move). Distinct iterators are independent.
#ifndef SHALE_ITERATOR_H_
#define SHALE_ITERATOR_H_

#include <string_view>

#include "shale/export.h"
#include "shale/status.h"

namespace shale {

class SHALE_EXPORT Iterator {
 public:
  Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  virtual ~Iterator() = default;

  // True when the iterator is positioned at a key.
  virtual bool Valid() const = 0;

  // Positions at the first key (the first key >= iterate_lower_bound when it is set).
  virtual void SeekToFirst() = 0;

  // Positions at the last key (the last key < iterate_upper_bound when it is set).
  virtual void SeekToLast() = 0;

  // Positions at the first key >= target.
  virtual void Seek(std::string_view target) = 0;

  // Positions at the last key <= target.
  virtual void SeekForPrev(std::string_view target) = 0;

  // Moves to the next key. REQUIRES: Valid().
  virtual void Next() = 0;

  // Moves to the previous key. REQUIRES: Valid().
  virtual void Prev() = 0;

  // The user key at the current position. REQUIRES: Valid(). Valid until the iterator moves.
  virtual std::string_view key() const = 0;

  // The value at the current position. REQUIRES: Valid(). Valid until the iterator moves.
  virtual std::string_view value() const = 0;

  // OK unless an error was met; an error is sticky until the next Seek*.
  virtual Status status() const = 0;
};

}  // namespace shale

#endif  // SHALE_ITERATOR_H_
