// FileMetaData: what the engine knows about one table file (SST) of the LSM tree without opening
// it. The persistent fields are recorded in the MANIFEST (doc/manifest_format.md) when the file
// is added to a level; the runtime fields live only in memory.
//
// Ownership and lifetime: a FileMetaData that belongs to a Version is shared by every Version
// that lists the file, and counted by `refs` (one per Version). It is created with
// NewSharedFileMetaData(), each Version takes a reference with RefFile() and drops it with
// UnrefFile(), and the last UnrefFile() deletes it. A FileMetaData held by value (in a
// VersionEdit, or by a flush job filling one in) is a plain value and has refs == 0.
//
// Thread-safety: the persistent fields of a shared FileMetaData never change after it is
// created, so any thread holding a reference to a Version that lists it may read them without a
// lock. `refs`, `being_compacted` and `marked_for_compaction` are guarded by the DB mutex (the
// mutex passed to VersionSet::LogAndApply).
#ifndef SHALE_VERSION_FILE_METADATA_H_
#define SHALE_VERSION_FILE_METADATA_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/internal_key.h"

namespace shale {

struct CachedTable;

// A file's parsed table, kept with its FileMetaData so that a point read finds it without the
// table cache's lock, hash lookup and reference count (Version::Get). Set at most once, by the
// first read that finds the table in a table cache that keeps every parsed table until its file
// is deleted (TableCache::KeepsTablesUntilEvicted): then pinning changes no budget, since the
// cache would keep the table at least as long as the FileMetaData lives (a file is deleted, and
// its table evicted, only once no Version lists it).
//
// Copying gives an empty pin: a copy is another FileMetaData (a plain value, or a new shared
// one) that finds its table for itself.
//
// Thread-safety: Get and Set may be called concurrently from any thread; the first Set wins and
// the table it publishes stays until the pin is destroyed or Released (at Close, for files no
// reader can reach: VersionSet::ReleaseTablePinsOfUnreadFiles). Copy, assignment, Release and
// destruction need exclusive access (as for the rest of FileMetaData).
class TablePin {
 public:
  TablePin() = default;
  TablePin(const TablePin&) {}
  TablePin& operator=(const TablePin& other);
  ~TablePin();

  // The pinned table, or null when none is pinned yet.
  const CachedTable* Get() const { return table_.load(std::memory_order_acquire); }
  // Pins `table` unless a table is pinned already; returns the pinned table.
  const CachedTable* Set(std::shared_ptr<const CachedTable> table) const;
  // Unpins the table and hands it over (null when none was pinned): the caller lets go of it
  // where it suits (not under a lock). REQUIRES: no concurrent Get or Set, and no reader still
  // using the table Get returned.
  std::shared_ptr<const CachedTable> Release();

 private:
  struct Owner {
    std::shared_ptr<const CachedTable> table;
  };
  // Owns the pinned table; published once by compare-and-swap.
  mutable std::atomic<Owner*> owner_{nullptr};
  // owner_->table.get(), stored after owner_ (a reader that sees it sees a pinned table; one
  // that sees null falls back to the table cache).
  mutable std::atomic<const CachedTable*> table_{nullptr};
};

struct FileMetaData {
  // ---- Persistent: written to the MANIFEST. ----
  uint64_t number = 0;     // the file is TableFileName(dbname, number)
  uint64_t file_size = 0;  // bytes
  // The smallest and largest internal keys in the file (range tombstones included).
  // Invariant (for a file in a Version): smallest <= largest by the InternalKeyComparator.
  std::string smallest;
  std::string largest;
  // The smallest and largest sequence numbers of the file's entries.
  SequenceNumber smallest_seqno = kMaxSequenceNumber;
  SequenceNumber largest_seqno = 0;
  // Entry counts: all entries (point entries and range deletions), deletions (plain and single),
  // range deletions.
  uint64_t num_entries = 0;
  uint64_t num_deletions = 0;
  uint64_t num_range_deletions = 0;
  // Uncompressed bytes of the keys and values written into the file (write-amp accounting).
  uint64_t raw_key_size = 0;
  uint64_t raw_value_size = 0;
  // When the file was written, in seconds since the Unix epoch (0: unknown).
  uint64_t creation_time = 0;
  // For a file ingested with IngestExternalFile: the sequence number every entry of the file
  // is read with (the file itself stores 0 in every entry, as SstFileWriter writes them); then
  // smallest_seqno == largest_seqno == global_seqno. 0: entries are read with the sequence
  // numbers stored in the file (every flushed or compacted file, and ingested files that were
  // given sequence 0).
  SequenceNumber global_seqno = 0;

  // ---- Runtime only: never written. ----
  // The number of Versions that list this file.
  int refs = 0;
  // A running compaction has this file among its inputs.
  bool being_compacted = false;
  // Something (for example a deletion-heavy table) asked for this file to be compacted soon.
  bool marked_for_compaction = false;
  // The parsed table, for point reads (see TablePin). Only ever set on a shared FileMetaData
  // that a Version lists.
  TablePin table_pin;

  // Widens [smallest, largest] and the sequence range to take in an entry with internal key
  // `key`. For builders that see the entries in order: the first call sets smallest.
  void UpdateBoundaries(std::string_view key, SequenceNumber seqno);

  // True when the persistent fields are equal (runtime fields are ignored).
  bool SamePersistentFields(const FileMetaData& other) const;

  // "#12 size=4096 ['a' @ 5 : 1 .. 'k' @ 9 : 1] seq=[5,9] entries=10 ..." for logs and tests.
  std::string DebugString() const;
};

// A new shared copy of the persistent fields of `f` (runtime fields reset, refs == 0).
FileMetaData* NewSharedFileMetaData(const FileMetaData& f);
// Takes a reference to a shared FileMetaData. REQUIRES: the DB mutex.
inline void RefFile(FileMetaData* f) { ++f->refs; }
// Drops a reference; deletes the FileMetaData when it was the last. REQUIRES: the DB mutex.
void UnrefFile(FileMetaData* f);

}  // namespace shale

#endif  // SHALE_VERSION_FILE_METADATA_H_
