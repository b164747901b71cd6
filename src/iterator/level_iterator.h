// LevelIterator: iterates the files of one sorted level (L1 and below) as one sequence, opening
// each file only when the iteration reaches it (DESIGN.md section 3, "Read path"). Positioning
// finds the file by binary search over the file boundaries, so a Seek or SeekForPrev opens at
// most one file, unless that file turns out to hold nothing in range (then the iteration moves
// on to its neighbours, skipping files that yield no entries, in both directions).
//
// Files: a LevelFileList describes the level: Size() files, sorted and non-overlapping under
// the iterator's comparator (Largest(i) < Smallest(i + 1)), each with inclusive internal-key
// bounds. The LevelFileOpener opens file i; an error it reports (or a null iterator) stops the
// iteration there: the iterator becomes !Valid() and status() returns the error, so no file is
// skipped silently. An opened file's own errors stop it the same way.
// Every Seek*/SeekTo* clears a previous open error and retries; a file whose iterator reports
// an error is reopened when a later seek lands in it.
//
// Ownership: the iterator owns the file list and the opener (and whatever they capture) and
// borrows the comparator, which must outlive it. At most one file iterator is open at a time;
// key()/value() views are that file's, valid until the iterator moves.
// Bounds: none; the DB iterator applies iterate_lower_bound / iterate_upper_bound.
// Thread-safety: one thread at a time (InternalIterator's rule). FindFile and FindFileForPrev
// are pure functions, safe from any thread.
#ifndef SHALE_ITERATOR_LEVEL_ITERATOR_H_
#define SHALE_ITERATOR_LEVEL_ITERATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_iterator.h"
#include "shale/comparator.h"
#include "shale/status.h"

namespace shale {

// The boundaries of the files of one level. Implementations (for example a view of a
// Version's file metadata) must not change while an iterator uses them.
class LevelFileList {
 public:
  virtual ~LevelFileList() = default;
  virtual size_t Size() const = 0;
  // Inclusive bounds of file i (internal keys). REQUIRES: i < Size().
  virtual std::string_view Smallest(size_t i) const = 0;
  virtual std::string_view Largest(size_t i) const = 0;
};

// One file of a level, for the vector-backed list below.
struct LevelFile {
  std::string smallest;  // internal key, inclusive
  std::string largest;   // internal key, inclusive
  uint64_t id = 0;       // the caller's name for the file (e.g. its number); unused here
};

// A LevelFileList over `files`, which must already be sorted and non-overlapping.
std::unique_ptr<LevelFileList> NewLevelFileList(std::vector<LevelFile> files);

// Opens file `index` of the list. On failure sets *status (naming the file and what failed)
// and may return null; a null return with an OK *status is treated as Corruption.
using LevelFileOpener =
    std::function<std::unique_ptr<InternalIterator>(size_t index, Status* status)>;

// The first file whose largest key is >= key, or files.Size() if there is none: the only file
// that can hold key, or the first entry after it.
size_t FindFile(const Comparator& cmp, const LevelFileList& files, std::string_view key);

// The last file whose smallest key is <= key, or files.Size() if there is none: the file that
// holds the last entry <= key, if any file does.
size_t FindFileForPrev(const Comparator& cmp, const LevelFileList& files, std::string_view key);

// An iterator over all files of `files`, in order. REQUIRES: files != nullptr, open callable.
std::unique_ptr<InternalIterator> NewLevelIterator(const Comparator* cmp,
                                                   std::unique_ptr<const LevelFileList> files,
                                                   LevelFileOpener open);

}  // namespace shale

#endif  // SHALE_ITERATOR_LEVEL_ITERATOR_H_
