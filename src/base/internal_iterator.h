// InternalIterator: the iterator every layer below the DB iterator implements (memtables, table
// blocks, tables, merging and level iterators). Keys are internal keys (or, inside index
// blocks, separator keys); the order is the one of the comparator the iterator was built with.
//
// Contract:
// - After any Seek*/Next/Prev, either Valid() or not; when not Valid(), status() tells whether
//   the end was reached (OK) or an error stopped it (Corruption, IOError, ...).
// - key() and value() REQUIRE Valid(); the views stay valid until the iterator moves or is
//   destroyed.
// - Seek(t) lands on the first entry >= t; SeekForPrev(t) on the last entry <= t.
// Thread-safety: one thread at a time.
#ifndef SHALE_BASE_INTERNAL_ITERATOR_H_
#define SHALE_BASE_INTERNAL_ITERATOR_H_

#include <memory>
#include <string_view>

#include "shale/status.h"

namespace shale {

class InternalIterator {
 public:
  InternalIterator() = default;
  InternalIterator(const InternalIterator&) = delete;
  InternalIterator& operator=(const InternalIterator&) = delete;
  virtual ~InternalIterator() = default;

  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  virtual void Seek(std::string_view target) = 0;
  virtual void SeekForPrev(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual void Prev() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

// An iterator over nothing, whose status() is `status` (OK for a plain empty iterator).
std::unique_ptr<InternalIterator> NewEmptyInternalIterator(Status status = Status::OK());

// `iter`, keeping `holder` (whatever iter reads from: an open table, a cached block) alive for
// as long as the returned iterator lives.
std::unique_ptr<InternalIterator> NewHoldingIterator(std::shared_ptr<const void> holder,
                                                     std::unique_ptr<InternalIterator> iter);

}  // namespace shale

#endif  // SHALE_BASE_INTERNAL_ITERATOR_H_
