// SuperVersion: everything a read needs, pinned together: the active memtable, the immutable
// memtables and the current Version (table files). A read takes a reference to the DB's
// current SuperVersion under the DB mutex, then reads without any lock; the memtables and
// files it sees stay alive until it lets go.
//
// Lifetime: created by the DB with one reference (the DB's own), which is dropped when a newer
// SuperVersion replaces it. Refs are atomic; the last Unref must go through DBImpl, which
// releases the Version under the DB mutex and the memtables outside it.
#ifndef SHALE_DB_SUPER_VERSION_H_
#define SHALE_DB_SUPER_VERSION_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "memtable/memtable.h"
#include "version/version.h"

namespace shale {

struct SuperVersion {
  MemTable* mem = nullptr;       // the active memtable (referenced)
  std::vector<MemTable*> imm;    // immutable memtables, newest first (each referenced)
  Version* current = nullptr;    // the table files (referenced)
  uint64_t version_number = 0;   // increases with each SuperVersion the DB installs
  // On a cache line of its own: readers that take a reference write it, while point reads
  // through the SuperVersion slots read the fields above and must not see their line bounce.
  alignas(64) std::atomic<int> refs{0};
};

}  // namespace shale

#endif  // SHALE_DB_SUPER_VERSION_H_
