// Comparator: the total order of user keys. The engine keeps keys sorted by it, in memtables,
// tables and iterators; the name is stored in every table and in the MANIFEST, and a DB may
// only be reopened with a comparator of the same name.
//
// Thread-safety: implementations must be safe to call concurrently from many threads.
#ifndef SHALE_COMPARATOR_H_
#define SHALE_COMPARATOR_H_

#include <string>
#include <string_view>

#include "shale/export.h"

namespace shale {

class SHALE_EXPORT Comparator {
 public:
  virtual ~Comparator();

  // Three-way comparison: < 0 if a < b, 0 if equal, > 0 if a > b.
  virtual int Compare(std::string_view a, std::string_view b) const = 0;

  // The name that identifies the order on disk. Change it whenever the order changes.
  virtual const char* Name() const = 0;

  // Used to shorten index keys. If *start < limit, may change *start to a shorter string
  // in [*start, limit). Doing nothing is correct.
  virtual void FindShortestSeparator(std::string* start, std::string_view limit) const = 0;

  // May change *key to a shorter string >= *key. Doing nothing is correct.
  virtual void FindShortSuccessor(std::string* key) const = 0;

  // True if a and b are equal under this order. Default: Compare(a, b) == 0.
  virtual bool Equal(std::string_view a, std::string_view b) const { return Compare(a, b) == 0; }
};

// Lexicographic byte order ("leveldb.BytewiseComparator", as RocksDB and LevelDB call it, so
// tables written by one are recognised by the other's tools). The object is a singleton that
// lives until the process ends.
SHALE_EXPORT const Comparator* BytewiseComparator();

}  // namespace shale

#endif  // SHALE_COMPARATOR_H_
