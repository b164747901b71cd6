// DB: a persistent, ordered map from keys to values, stored as an LSM tree in one directory.
// The shape is RocksDB's: open with DB::Open, write with Put/Delete/Merge/Write, read with
// Get/MultiGet/NewIterator, close with Close (or by destroying the DB).
//
//   std::unique_ptr<shale::DB> db;
//   shale::Options options;
//   options.create_if_missing = true;
//   shale::Status s = shale::DB::Open(options, "/tmp/testdb", &db);
//   s = db->Put(shale::WriteOptions(), "key", "value");
//   std::string value;
//   s = db->Get(shale::ReadOptions(), "key", &value);
//   s = db->Close();
//
// Column families: a DB holds one or more keyspaces, each with its own options and LSM tree
// (ColumnFamilyHandle below, doc/column_families.md); every call without a handle uses the
// default family.
//
// Keys and values are arbitrary byte strings (std::string_view), ordered by
// Options::comparator. Every write takes the next sequence number(s); a read sees the writes
// with sequence numbers up to its snapshot (an explicit Snapshot, or the latest sequence when
// the read starts).
//
// Ownership: DB::Open hands the caller sole ownership of the DB (std::unique_ptr). The DB
// borrows Options::comparator (which must outlive it) and shares the file system. Views the
// caller passes in (keys, values, bounds) are read during the call only, except the bounds in
// ReadOptions, which must outlive the iterator that uses them. Iterators and snapshots borrow
// the DB: destroy every iterator and release every snapshot before Close or destruction.
//
// Thread-safety: every method may be called concurrently from any number of threads without
// external synchronisation, like RocksDB's DB, Close included (see Close); only the destructor
// must not race with any other call. Concurrent writes are applied in some serial order (group commit);
// a write is visible to reads that start after it returns.
//
// Errors: a failed background operation (a WAL or MANIFEST write or sync, a flush, a
// compaction) puts the DB in a read-only error state: reads keep working, every later write
// returns that error until Resume() succeeds or the DB is reopened. Nothing acknowledged is lost.
// Corruption stays distinct from IOError all the way to the caller.
#ifndef SHALE_DB_H_
#define SHALE_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "shale/export.h"
#include "shale/iterator.h"
#include "shale/limits.h"
#include "shale/options.h"
#include "shale/status.h"
#include "shale/transaction_log.h"
#include "shale/write_batch.h"

namespace shale {

// A range of user keys, [start, limit), for GetApproximateSizes. Borrows its bytes.
struct Range {
  std::string_view start;  // included
  std::string_view limit;  // not included

  Range() = default;
  Range(std::string_view s, std::string_view l) : start(s), limit(l) {}
};

// A column family of an open DB: a keyspace with its own memtables, LSM tree and options,
// sharing the DB's WAL (a WriteBatch spanning families is atomic), sequence numbers, snapshots,
// block cache, table cache, memory budget and background threads. Every read and write names
// its family by handle; the calls without one use DefaultColumnFamily().
//
// Ownership: a handle from DB::Open or CreateColumnFamily belongs to the caller, who releases
// it with DB::DestroyColumnFamilyHandle (or delete) -- before destroying the DB, as in RocksDB.
// DefaultColumnFamily()'s handle belongs to the DB. A dropped family's data stays readable
// through its handles and open iterators, and is deleted once the last of them is gone.
//
// Thread-safety: the getters may be called from any thread; a handle must not be destroyed
// while another thread uses it.
class SHALE_EXPORT ColumnFamilyHandle {
 public:
  virtual ~ColumnFamilyHandle();
  // The family's name, as created.
  virtual const std::string& GetName() const = 0;
  // The family's id: 0 for the default family, unique within the DB otherwise (never reused).
  virtual uint32_t GetID() const = 0;
  // The family's name and current options (SetOptions changes included). ShutdownInProgress
  // once the DB is closed.
  virtual Status GetDescriptor(ColumnFamilyDescriptor* descriptor) = 0;
  // The family's comparator.
  virtual const Comparator* GetComparator() const = 0;
};

// One table file of a DB's current version, as DB::GetLiveFilesMetaData reports it: RocksDB's
// LiveFileMetaData fields. A plain value (thread-safety as Options).
struct LiveFileMetaData {
  std::string column_family_name;  // the family the file belongs to
  int level = 0;                   // its level in the family's LSM tree
  std::string name;                // the file name with a leading '/': "/000012.sst" (RocksDB's)
  std::string db_path;             // the directory it is in (the DB's)
  uint64_t size = 0;               // bytes
  // The smallest and largest user keys of its entries (range deletion ends included).
  std::string smallestkey;
  std::string largestkey;
  uint64_t smallest_seqno = 0;     // the smallest and largest sequence numbers of its entries
  uint64_t largest_seqno = 0;
  uint64_t num_entries = 0;        // entries: point entries and range deletions
  uint64_t num_deletions = 0;      // point deletions (Delete and SingleDelete)
};

class SHALE_EXPORT DB {
 public:
  // Opens (and with options.create_if_missing, creates) the DB in directory `name`: validates
  // the options (InvalidArgument naming the first bad one), takes the directory's LOCK file
  // (another process holding it: IOError), reads the MANIFEST, replays the WALs, and writes an
  // OPTIONS file. Tables are opened lazily, so the time Open takes does not grow with their
  // number. On success *db owns the new DB; on failure *db is reset to null.
  static Status Open(const Options& options, const std::string& name, std::unique_ptr<DB>* db);
  // Opens the DB with its column families: `column_families` must name every family the DB has
  // (the default one included), else InvalidArgument naming the ones missing; a name the DB
  // does not have is created when db_options.create_missing_column_families is set
  // (InvalidArgument otherwise). Each family is opened with its descriptor's options, checked
  // as Open checks Options. On success *handles holds one handle per descriptor, in order
  // (the caller owns them, see ColumnFamilyHandle); on failure it is empty and *db null.
  static Status Open(const DBOptions& db_options, const std::string& name,
                     const std::vector<ColumnFamilyDescriptor>& column_families,
                     std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<DB>* db);
  // Opens the existing DB in directory `name` for reading only, as RocksDB's
  // DB::OpenForReadOnly: options.create_if_missing, error_if_exists and
  // create_missing_column_families are ignored, and a missing DB is InvalidArgument
  // "<name>/CURRENT: does not exist (open for read only)". It takes no LOCK, so another
  // instance (in this or another process) may hold the DB open for writing; the read-only DB
  // sees the state as of its open (the tables the MANIFEST lists and the writes of its WALs,
  // replayed into memtables held in memory). It changes no file of the DB: no MANIFEST, WAL,
  // OPTIONS or table file is created, written, renamed or deleted, nothing is flushed or
  // compacted, and it writes no info LOG file. With error_if_wal_file_exists, a live WAL in
  // the directory fails the open (Corruption) instead of being replayed. A writer that
  // flushes or compacts during the open may delete a WAL or table the open was about to read:
  // an open that fails while the writer changed its MANIFEST is started again (up to 16
  // times) from the newer MANIFEST, so it succeeds with a consistent state (RocksDB's fails).
  // Reads, iterators, snapshots, properties, GetApproximateSizes, GetLiveFilesMetaData and
  // VerifyChecksum work; every call that would write (Put, Delete, SingleDelete, DeleteRange,
  // Merge, Write, IngestExternalFile, Flush, FlushWAL, CompactRange, DeleteFilesInRange,
  // Create/DropColumnFamily, SetOptions, SetDBOptions, Disable/EnableFileDeletions,
  // checkpoints) returns NotSupported("Not supported operation in read only mode.").
  static Status OpenForReadOnly(const Options& options, const std::string& name,
                                std::unique_ptr<DB>* db, bool error_if_wal_file_exists = false);
  // OpenForReadOnly with column families. Unlike Open, `column_families` may name a subset of
  // the DB's families (it must include "default"); a name the DB does not have is
  // InvalidArgument "Column family not found: <name>" (never created).
  static Status OpenForReadOnly(const DBOptions& db_options, const std::string& name,
                                const std::vector<ColumnFamilyDescriptor>& column_families,
                                std::vector<ColumnFamilyHandle*>* handles,
                                std::unique_ptr<DB>* db, bool error_if_wal_file_exists = false);
  // Opens the existing DB in directory `name` as a secondary instance, as RocksDB's
  // DB::OpenAsSecondary: like OpenForReadOnly (no LOCK, so a primary may hold the DB open for
  // writing in this or another process; no file of the DB is created, written, renamed or
  // deleted; the MANIFEST and the live WALs are replayed into memory; writes, flushes,
  // compactions and family changes return NotSupported("Not supported operation in secondary
  // mode.")), but TryCatchUpWithPrimary brings it up to the primary's current state.
  // `secondary_path` is the secondary's own directory (created if missing; it must differ
  // from `name`): its info LOG goes there. Only the default family is opened.
  // The primary deletes table files after compactions: the secondary keeps every table of its
  // state parsed, with its file descriptor open, from its open (or catch-up) on, so its reads
  // keep working after the primary deletes them (with max_open_files = -1, the default; a
  // bounded max_open_files may close a descriptor, and then a read of a deleted table fails,
  // as in RocksDB).
  static Status OpenAsSecondary(const Options& options, const std::string& name,
                                const std::string& secondary_path, std::unique_ptr<DB>* db);
  // OpenAsSecondary with column families: `column_families` may name a subset of the DB's
  // families (it must include "default"); a name the DB does not have is InvalidArgument
  // "Column family not found: <name>". On success *handles holds one handle per descriptor,
  // in order (released with DestroyColumnFamilyHandle before the DB is destroyed).
  static Status OpenAsSecondary(const DBOptions& db_options, const std::string& name,
                                const std::string& secondary_path,
                                const std::vector<ColumnFamilyDescriptor>& column_families,
                                std::vector<ColumnFamilyHandle*>* handles,
                                std::unique_ptr<DB>* db);
  // The names of the column families of the DB in directory `name`, read from its MANIFEST
  // without opening it ("default" first, then in creation order). IOError/NotFound when there
  // is no DB; Corruption when its MANIFEST is damaged.
  static Status ListColumnFamilies(const DBOptions& db_options, const std::string& name,
                                   std::vector<std::string>* column_families);

  DB() = default;
  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;

  // Closes the DB if Close has not been called (see Close), ignoring its status.
  virtual ~DB() = default;

  // ---------------------------------------------------------------- Column families

  // Creates a column family, durably (one MANIFEST write and an OPTIONS file), and returns its
  // handle. InvalidArgument when the name is empty, already used by a live family, or the
  // options are invalid (as Open checks them).
  virtual Status CreateColumnFamily(const ColumnFamilyOptions& options, const std::string& name,
                                    ColumnFamilyHandle** handle) = 0;
  // Creates several families, one after the other: on an error, *handles holds those created
  // before it (as RocksDB).
  virtual Status CreateColumnFamilies(const ColumnFamilyOptions& options,
                                      const std::vector<std::string>& names,
                                      std::vector<ColumnFamilyHandle*>* handles);
  virtual Status CreateColumnFamilies(const std::vector<ColumnFamilyDescriptor>& column_families,
                                      std::vector<ColumnFamilyHandle*>* handles);
  // Drops a family, durably (a MANIFEST write): it is no longer listed, opened or written
  // (writes to it fail with InvalidArgument), and its files are deleted once no handle or
  // iterator needs them. InvalidArgument for the default family or one already dropped.
  virtual Status DropColumnFamily(ColumnFamilyHandle* column_family) = 0;
  // Drops each, in order; stops at the first error.
  virtual Status DropColumnFamilies(const std::vector<ColumnFamilyHandle*>& column_families);
  // Releases a handle from Open or CreateColumnFamily (as delete does). OK and nothing done
  // for DefaultColumnFamily()'s handle or null.
  virtual Status DestroyColumnFamilyHandle(ColumnFamilyHandle* column_family) = 0;
  // The default family's handle, owned by the DB (valid until the DB is destroyed).
  virtual ColumnFamilyHandle* DefaultColumnFamily() const = 0;

  // ---------------------------------------------------------------- Writes
  // Each write is atomic and durable per WriteOptions (sync: fsynced; disableWAL: lost in a
  // crash before the memtable is flushed). A write may be delayed by the write controller when
  // background work falls behind (see Options' stall triggers); it fails with the background
  // error while the DB is in the error state.
  //
  // Size limits (shale/limits.h, doc/size_limits.md): a key (each end of a DeleteRange
  // included) is at most kMaxKeySize (8 MiB), a value or merge operand at most kMaxValueSize
  // (1008 MiB), a WriteBatch at most kMaxWriteBatchSize (2 GiB) serialized; empty keys and
  // values are valid. A larger one is refused with InvalidArgument and nothing is written.

  // Sets key to value.
  // Every write names its column family (a handle of this DB: InvalidArgument for null or a
  // dropped family); the overloads without one write to the default family.
  virtual Status Put(const WriteOptions& options, ColumnFamilyHandle* column_family,
                     std::string_view key, std::string_view value) = 0;
  Status Put(const WriteOptions& options, std::string_view key, std::string_view value) {
    return Put(options, DefaultColumnFamily(), key, value);
  }
  // Removes key; not an error if it is absent.
  virtual Status Delete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                        std::string_view key) = 0;
  Status Delete(const WriteOptions& options, std::string_view key) {
    return Delete(options, DefaultColumnFamily(), key);
  }
  // Removes key, which must have been Put at most once since it was last deleted and never
  // merged (undefined results otherwise); cheaper to compact than Delete.
  virtual Status SingleDelete(const WriteOptions& options, ColumnFamilyHandle* column_family,
                              std::string_view key) = 0;
  Status SingleDelete(const WriteOptions& options, std::string_view key) {
    return SingleDelete(options, DefaultColumnFamily(), key);
  }
  // Removes every key in [begin_key, end_key). InvalidArgument if end_key < begin_key; an
  // empty range is a no-op.
  virtual Status DeleteRange(const WriteOptions& options, ColumnFamilyHandle* column_family,
                             std::string_view begin_key, std::string_view end_key) = 0;
  Status DeleteRange(const WriteOptions& options, std::string_view begin_key,
                     std::string_view end_key) {
    return DeleteRange(options, DefaultColumnFamily(), begin_key, end_key);
  }
  // Adds a merge operand for key: Options::merge_operator combines it with the key's value
  // when the key is read, flushed or compacted (shale/merge_operator.h, doc/merge.md).
  // InvalidArgument when the family's options have no merge operator.
  virtual Status Merge(const WriteOptions& options, ColumnFamilyHandle* column_family,
                       std::string_view key, std::string_view value) = 0;
  Status Merge(const WriteOptions& options, std::string_view key, std::string_view value) {
    return Merge(options, DefaultColumnFamily(), key, value);
  }
  // Applies every update of `updates` atomically, in order. The DB sets the batch's sequence
  // number; the batch is otherwise unchanged and may be reused. Corruption if the batch's
  // serialized contents are damaged (nothing is written then); InvalidArgument (nothing
  // written) when a record names a column family the DB does not have (or has dropped).
  virtual Status Write(const WriteOptions& options, WriteBatch* updates) = 0;

  // ---------------------------------------------------------------- Reads

  // Stores the value of key in *value: OK, or NotFound (with *value unspecified) when the key
  // has no visible value, or an error.
  // Every read names its column family; the overloads without one read the default family.
  virtual Status Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                     std::string_view key, std::string* value) = 0;
  Status Get(const ReadOptions& options, std::string_view key, std::string* value) {
    return Get(options, DefaultColumnFamily(), key, value);
  }
  // Get for every key, all at one snapshot. Returns one Status per key, in order, and resizes
  // *values to keys.size() with the values (unspecified where the status is not OK).
  // keys[i] is read in column_families[i] (the two vectors have the same size, else every
  // status is InvalidArgument), all at one snapshot across the families.
  virtual std::vector<Status> MultiGet(const ReadOptions& options,
                                       const std::vector<ColumnFamilyHandle*>& column_families,
                                       const std::vector<std::string_view>& keys,
                                       std::vector<std::string>* values) = 0;
  std::vector<Status> MultiGet(const ReadOptions& options,
                               const std::vector<std::string_view>& keys,
                               std::vector<std::string>* values) {
    return MultiGet(options,
                    std::vector<ColumnFamilyHandle*>(keys.size(), DefaultColumnFamily()), keys,
                    values);
  }
  // An iterator over the DB as of options.snapshot (or now), within options' bounds. The
  // result is never null; it is not Valid() until positioned. See shale/iterator.h.
  // With a null or dropped-and-released handle: an iterator whose status() is InvalidArgument.
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options,
                                                ColumnFamilyHandle* column_family) = 0;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) {
    return NewIterator(options, DefaultColumnFamily());
  }
  // One iterator per family, in order, all at one sequence number (options.snapshot, or one
  // taken for them all): together they show one consistent state of the DB. On error
  // *iterators is empty.
  virtual Status NewIterators(const ReadOptions& options,
                              const std::vector<ColumnFamilyHandle*>& column_families,
                              std::vector<std::unique_ptr<Iterator>>* iterators) = 0;

  // A snapshot of the current state, for ReadOptions::snapshot. Never null. Keeps the data it
  // sees from being compacted away: release it with ReleaseSnapshot when done.
  virtual const Snapshot* GetSnapshot() = 0;
  // Releases a snapshot from GetSnapshot of this DB; it must not be used afterwards.
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // ---------------------------------------------------------------- Maintenance

  // Flushes the memtables to table files. With options.wait, returns when they are durable.
  // The family's memtables (with atomic_flush: every family's, together).
  virtual Status Flush(const FlushOptions& options, ColumnFamilyHandle* column_family) = 0;
  Status Flush(const FlushOptions& options) { return Flush(options, DefaultColumnFamily()); }
  // Flushes each family named (with atomic_flush: all of them in one MANIFEST write).
  virtual Status Flush(const FlushOptions& options,
                       const std::vector<ColumnFamilyHandle*>& column_families) = 0;
  // Compacts the keys in [*begin, *end] (null: from the first, to the last key) down the tree.
  // Over the whole range of a DB with many overlapping L0 files this is one merge straight
  // into the bottom level, split into subcompactions. Returns when done.
  virtual Status CompactRange(const CompactRangeOptions& options,
                              ColumnFamilyHandle* column_family, const std::string_view* begin,
                              const std::string_view* end) = 0;
  Status CompactRange(const CompactRangeOptions& options, const std::string_view* begin,
                      const std::string_view* end) {
    return CompactRange(options, DefaultColumnFamily(), begin, end);
  }
  // RocksDB's DeleteFilesInRange: drops, without reading them, the table files of levels 1
  // and below whose keys all lie in [*begin, *end] (null: unbounded on that side), for every
  // reader at once, snapshots included (as in RocksDB). Files of L0 and files a compaction is
  // reading are kept, as are the range's keys in other files and in the memtables: this
  // reclaims space fast, it is not a deletion of the range (DeleteRange is). RocksDB's caveat
  // holds too: a file kept because it only partly overlaps the range (or an L0 file) may hold
  // older versions of keys a dropped file held newer ones of, or keys a dropped file's
  // tombstone deleted: those older versions (and deleted keys) become visible again.
  // InvalidArgument for a null or dropped family; the background error while there is one. A
  // failed MANIFEST write of the drop returns its error and sets the background error (writes
  // fail until Resume()), as every failed MANIFEST write does.
  virtual Status DeleteFilesInRange(ColumnFamilyHandle* column_family,
                                    const std::string_view* begin,
                                    const std::string_view* end) = 0;
  // Links (or moves) table files written by SstFileWriter into the DB, all or none, giving them
  // one new sequence number and placing each at the lowest level where it overlaps nothing.
  // Into `column_family` (the overload without one: the default family).
  virtual Status IngestExternalFile(ColumnFamilyHandle* column_family,
                                    const std::vector<std::string>& files,
                                    const IngestExternalFileOptions& options) = 0;
  Status IngestExternalFile(const std::vector<std::string>& files,
                            const IngestExternalFileOptions& options) {
    return IngestExternalFile(DefaultColumnFamily(), files, options);
  }
  // RocksDB's FlushWAL: every write reaches the WAL file (the OS) before it is acknowledged,
  // so there is nothing to flush; with `sync`, the WAL is also synced, so that every write
  // acknowledged before the call survives a machine crash once it returns OK (writes made
  // with disableWAL are not in the WAL: only a Flush saves them). Waits for the writes in
  // progress (it takes its turn in the write queue). The WAL's error (the DB then enters the
  // error state, as for a failed synced write), or the background error while there is one;
  // ShutdownInProgress after Close.
  virtual Status FlushWAL(bool sync) = 0;
  // RocksDB's file-deletion switch, for copying the DB's files from outside (a backup that
  // lists the directory, then copies each file): while deletions are disabled, no file the DB
  // no longer needs (a compaction's inputs, an old WAL, MANIFEST or OPTIONS file) is deleted,
  // so every file a listing shows stays until it is copied (DisableFileDeletions waits for a
  // deletion already under way to end before it returns). Calls nest: each
  // DisableFileDeletions is undone by one EnableFileDeletions(false); EnableFileDeletions(true)
  // enables them at once. Once enabled, the files kept meanwhile are deleted before it returns.
  // Files that never became part of the DB (a failed flush's output) are still removed.
  // ShutdownInProgress after Close (a new Open starts with deletions enabled).
  virtual Status DisableFileDeletions() = 0;
  virtual Status EnableFileDeletions(bool force) = 0;

  // Changes dynamic options ("Dynamic: yes" in options.h) by name, RocksDB's names and value
  // syntax ({"write_buffer_size", "128M"}). All or none: InvalidArgument naming the option if
  // one is unknown, not dynamic, or has a bad value. The new values go live only once a new
  // OPTIONS file holding them is durable; if writing it fails, that error is returned and the
  // old values stay live (the old OPTIONS file stays the latest). Calls are serialized; reads,
  // writes and background work go on while the file is written.
  // Changes the family's options (those of ColumnFamilyOptions); SetDBOptions changes the
  // DB's (DBOptions marked "Dynamic: yes (DB::SetDBOptions)"). Each refuses the other's names.
  virtual Status SetOptions(ColumnFamilyHandle* column_family,
                            const std::unordered_map<std::string, std::string>& options) = 0;
  Status SetOptions(const std::unordered_map<std::string, std::string>& options) {
    return SetOptions(DefaultColumnFamily(), options);
  }
  virtual Status SetDBOptions(const std::unordered_map<std::string, std::string>& options) = 0;

  // Reads every block of every live table file (those of the current version) and checks
  // its checksum and that it parses, as RocksDB's VerifyChecksum does: Corruption naming the
  // file on the first bad block. The files stay live while they are read (a compaction that
  // replaces them meanwhile does not delete them); the memtables and WALs are not checked.
  // Blocks are read from the files, never from or into the block cache. ShutdownInProgress
  // after Close, or when Close starts meanwhile (it stops at the next file).
  virtual Status VerifyChecksum(const ReadOptions& options) = 0;
  // The same, reporting progress (operation "verify"; see VerifyChecksumOptions).
  // InvalidArgument for a bad progress_interval_seconds.
  virtual Status VerifyChecksum(const VerifyChecksumOptions& options) = 0;

  // Clears the background error after its cause is fixed (space freed, device back) and
  // resumes background work: OK when the DB is writable again, else the error that remains.
  // OK when there was no error.
  virtual Status Resume() = 0;

  // Closes the DB promptly: it does not wait for the compaction backlog. A running compaction
  // is stopped at its next safe point and its partial output deleted; memtables holding writes
  // made with disableWAL (which only a flush can save) are flushed; everything else is already
  // safe in the WAL and is recovered by the next Open. Then background threads are joined and
  // files and the LOCK released. Returns OK, or the background error, or the first error met
  // while closing. Aborted (and the DB stays open) if snapshots are still unreleased. Calling it
  // again (or concurrently) returns OK once the DB is closed. Calls racing Close either
  // complete (Close waits for them) or fail with ShutdownInProgress, as does any call after
  // Close; a read or iterator that started before Close stays usable until it ends or is
  // destroyed (which must happen before the DB is destroyed): it keeps reading the tables it
  // holds (an iterator: those of level 0 and the one it is positioned on in each lower level)
  // even if another instance opens the DB and deletes them, and gets ShutdownInProgress when
  // it needs a table it had not opened (an iterator moving into the next file of a level).
  // Their table files stay open until they end. The destructor does the same as Close for a
  // DB that was not closed.
  virtual Status Close() = 0;

  // A secondary instance (OpenAsSecondary): replays what the primary wrote since the
  // secondary's open or last catch-up (the MANIFEST's new and deleted tables, the WALs' new
  // writes), so that reads started afterwards see the primary's state as of the call.
  // Iterators and snapshots taken before keep their view. On error the secondary keeps its
  // previous state. Any other DB: NotSupported("Supported only by secondary instance").
  virtual Status TryCatchUpWithPrimary();

  // ---------------------------------------------------------------- Introspection

  // A property of the DB as text in *value; false if `property` is unknown. Properties:
  //   shale.num-files-at-level<N>   number of table files at level N ("shale.num-files-at-level0")
  //   shale.cur-size-all-mem-tables bytes of all memtables, active and immutable
  //   shale.estimate-num-keys       estimated number of live keys
  //   shale.stats                   a multi-line report: per-level table (files, size, score,
  //                                 read/write bytes, write amplification), write stalls by
  //                                 cause, and the DB's cumulative write and compaction numbers
  //   shale.levelstats              one line per level: files, size in MB, compactions into
  //                                 it, trivial moves, MB read from the level above (Rn) and
  //                                 from itself (Rnp1), MB written, W-Amp, compaction seconds
  //   shale.sstables                every live table file: level, number, size, key range
  //   shale.memtable-allocator      the memtable arena allocator: bytes allocated, whether the
  //                                 dedicated jemalloc arena is in use
  //   shale.num-immutable-mem-table memtables waiting to be flushed (full, not yet in tables)
  //   shale.mem-table-flush-pending 1 while such a memtable waits, else 0
  //   shale.num-entries-active-mem-table / shale.num-deletes-active-mem-table
  //                                 entries / deletions in the memtable taking writes
  //   shale.num-entries-imm-mem-tables / shale.num-deletes-imm-mem-tables
  //                                 the same, summed over the memtables waiting to be flushed
  //   shale.num-snapshots           snapshots not yet released
  //   shale.compaction-pending      1 if an automatic compaction is due, else 0
  //   shale.num-running-compactions compactions running now
  //   shale.num-running-flushes     flushes queued or running now (RocksDB's
  //                                 rocksdb.num-running-flushes)
  //   shale.estimate-pending-compaction-bytes  bytes compaction owes (RocksDB's estimate)
  //   shale.actual-delayed-write-rate          bytes/s writers are paced to (0: not delayed)
  //   shale.is-write-stopped        1 while writes are stopped waiting for compaction
  //   shale.size-all-mem-tables     memtable bytes including flushed ones readers still pin
  //   shale.block-cache-usage       bytes in the block cache (pinned included)
  //   shale.block-cache-pinned-usage bytes of cache entries in use (not evictable)
  //   shale.block-cache-capacity    the block cache's capacity (0: no block cache)
  //   shale.estimate-table-readers-mem bytes parsed table readers keep outside the block cache
  //   shale.memory-usage            the sum of size-all-mem-tables, block-cache-usage and
  //                                 estimate-table-readers-mem
  //   shale.background-errors       background errors recorded since Open (RocksDB's
  //                                 rocksdb.background-errors); each puts the DB in the error state
  //   shale.background-error        the current background error as text ("" when there is none)
  //   shale.compaction-rate         recent compaction throughput, bytes of compaction input per
  //                                 second while compactions ran (see kCompactionRate)
  //   shale.estimate-compaction-seconds-left  seconds of compaction the pending bytes take at
  //                                 that rate (see kEstimateCompactionSecondsLeft)
  //   shale.sustainable-write-rate  user bytes/s at which the debt stops growing
  //                                 (see kSustainableWriteRate)
  // The shale.stats report and the periodic LOG dump (Options::stats_dump_period_sec) show the
  // last four figures on their "Compaction debt:" line.
  //
  // RocksDB's names: "rocksdb.<name>" is accepted for each property above that RocksDB has
  // with the same meaning: num-files-at-level<N>, cur-size-all-mem-tables,
  // size-all-mem-tables, estimate-num-keys, num-running-compactions,
  // num-running-flushes, estimate-pending-compaction-bytes, actual-delayed-write-rate,
  // is-write-stopped, block-cache-usage, block-cache-pinned-usage, block-cache-capacity,
  // estimate-table-readers-mem, background-errors, num-immutable-mem-table,
  // mem-table-flush-pending, num-entries-active-mem-table, num-deletes-active-mem-table,
  // num-entries-imm-mem-tables, num-deletes-imm-mem-tables, num-snapshots, and the text
  // reports stats, levelstats and
  // sstables (ShaleDB's layout, not RocksDB's). The others (memory-usage,
  // memtable-allocator, background-error, compaction-pending -- RocksDB's ignores
  // disable_auto_compactions, ours does not -- and the debt figures above) are shale. only.
  //
  // Per column family (the overloads without a handle: the default family's): the level,
  // memtable, key-count, compaction-pending and pending-bytes figures and the stats, levelstats
  // and sstables reports. The others are the DB's, whatever the family.
  virtual bool GetProperty(ColumnFamilyHandle* column_family, std::string_view property,
                           std::string* value) = 0;
  bool GetProperty(std::string_view property, std::string* value) {
    return GetProperty(DefaultColumnFamily(), property, value);
  }
  // A numeric property (the numeric ones above: num-files-at-level<N>,
  // cur-size-all-mem-tables, estimate-num-keys, the memtable counts, num-snapshots,
  // compaction-pending, num-running-compactions,
  // num-running-flushes,
  // estimate-pending-compaction-bytes, actual-delayed-write-rate, is-write-stopped, and the
  // memory properties, background-errors, compaction-rate,
  // estimate-compaction-seconds-left, sustainable-write-rate; under either prefix where
  // RocksDB has the name) in *value; false if unknown or not numeric, or (for
  // estimate-compaction-seconds-left) while no rate is known.
  virtual bool GetIntProperty(ColumnFamilyHandle* column_family, std::string_view property,
                              uint64_t* value) = 0;
  bool GetIntProperty(std::string_view property, uint64_t* value) {
    return GetIntProperty(DefaultColumnFamily(), property, value);
  }

  // The names above, for callers that prefer constants to string literals.
  struct Properties {
    static constexpr std::string_view kNumFilesAtLevelPrefix = "shale.num-files-at-level";
    static constexpr std::string_view kCurSizeAllMemTables = "shale.cur-size-all-mem-tables";
    static constexpr std::string_view kEstimateNumKeys = "shale.estimate-num-keys";
    static constexpr std::string_view kStats = "shale.stats";
    static constexpr std::string_view kLevelStats = "shale.levelstats";
    static constexpr std::string_view kSSTables = "shale.sstables";
    static constexpr std::string_view kMemTableAllocator = "shale.memtable-allocator";
    // Memtables of the family waiting to be flushed, and 1 while there is one (else 0).
    static constexpr std::string_view kNumImmutableMemTable = "shale.num-immutable-mem-table";
    static constexpr std::string_view kMemTableFlushPending = "shale.mem-table-flush-pending";
    // Entries (all kinds) and deletions in the family's active memtable, and summed over the
    // memtables waiting to be flushed.
    static constexpr std::string_view kNumEntriesActiveMemTable =
        "shale.num-entries-active-mem-table";
    static constexpr std::string_view kNumDeletesActiveMemTable =
        "shale.num-deletes-active-mem-table";
    static constexpr std::string_view kNumEntriesImmMemTables =
        "shale.num-entries-imm-mem-tables";
    static constexpr std::string_view kNumDeletesImmMemTables =
        "shale.num-deletes-imm-mem-tables";
    // Snapshots of the DB not yet released (the DB's, whatever the family).
    static constexpr std::string_view kNumSnapshots = "shale.num-snapshots";
    // 1 when an automatic compaction is due, else 0.
    static constexpr std::string_view kCompactionPending = "shale.compaction-pending";
    // Compactions running now (automatic and manual).
    static constexpr std::string_view kNumRunningCompactions = "shale.num-running-compactions";
    // Flushes queued or running now (one at a time: 0 or 1); a flush counts until its result,
    // or its error, is recorded.
    static constexpr std::string_view kNumRunningFlushes = "shale.num-running-flushes";
    // Bytes compaction would rewrite to bring every level within its target (RocksDB's
    // estimate; the write controller's soft/hard pending limits apply to it).
    static constexpr std::string_view kEstimatePendingCompactionBytes =
        "shale.estimate-pending-compaction-bytes";
    // The write controller's state: 0 normal, 1 writes delayed, 2 writes stopped.
    static constexpr std::string_view kActualDelayedWriteRate = "shale.actual-delayed-write-rate";
    static constexpr std::string_view kIsWriteStopped = "shale.is-write-stopped";
    // Memory, in bytes. Memtable figures are the arena blocks the memtables hold (drawn from
    // the memtable allocator; see kMemTableAllocator for the process-wide total).
    // cur-size-all-mem-tables: the active and the not yet flushed memtables;
    // size-all-mem-tables: those plus flushed memtables that readers still pin;
    // block-cache-usage / block-cache-pinned-usage: the DB's block cache (shared caches report
    // all their users); estimate-table-readers-mem: what the open table readers keep outside
    // the block cache (indexes and filters unless cache_index_and_filter_blocks), charged to
    // the block cache too with TableOptions::charge_table_reader_memory;
    // memory-usage: size-all-mem-tables + block-cache-usage + estimate-table-readers-mem -
    // table-readers-mem-charged (what is charged is in block-cache-usage already).
    static constexpr std::string_view kSizeAllMemTables = "shale.size-all-mem-tables";
    static constexpr std::string_view kBlockCacheUsage = "shale.block-cache-usage";
    static constexpr std::string_view kBlockCachePinnedUsage = "shale.block-cache-pinned-usage";
    static constexpr std::string_view kBlockCacheCapacity = "shale.block-cache-capacity";
    static constexpr std::string_view kEstimateTableReadersMem =
        "shale.estimate-table-readers-mem";
    // The part of estimate-table-readers-mem charged to the block cache (all of it with
    // TableOptions::charge_table_reader_memory and a block_cache given; else 0): counted in
    // block-cache-usage and block-cache-pinned-usage too.
    static constexpr std::string_view kTableReadersMemCharged =
        "shale.table-readers-mem-charged";
    static constexpr std::string_view kMemoryUsage = "shale.memory-usage";
    // Background errors recorded since Open (numeric), and the current one as text ("" when
    // the DB is not in the error state).
    static constexpr std::string_view kBackgroundErrors = "shale.background-errors";
    static constexpr std::string_view kBackgroundError = "shale.background-error";
    // Compaction debt (issue 25). The rate: bytes of compaction input (the unit of
    // kEstimatePendingCompactionBytes) per wall-clock second during which at least one
    // compaction ran, over the most recent compactions covering at least 60 s of such time
    // (all since Open while there is less; at most 1024 compactions). Parallel compactions add
    // up: two at once count double. Trivial moves and deletions
    // read nothing and do not count. Until a compaction has been timed since Open, the flush
    // throughput (table bytes written per second of flushing) stands in; 0 when neither is
    // known (a DB just opened).
    static constexpr std::string_view kCompactionRate = "shale.compaction-rate";
    // Pending compaction bytes / the rate above, rounded up: the seconds the compactions owed
    // now take if no more is written. 0 when nothing is owed; unavailable (GetIntProperty and
    // GetProperty return false) while something is owed and no rate is known.
    static constexpr std::string_view kEstimateCompactionSecondsLeft =
        "shale.estimate-compaction-seconds-left";
    // The user write rate (bytes/s) at which the debt stops growing: the rate above divided by
    // the compaction input each user byte written since Open has caused ((bytes compacted +
    // pending bytes) / user bytes written). 0 when unknown (no rate, nothing written since
    // Open, or nothing compacted or owed yet).
    static constexpr std::string_view kSustainableWriteRate = "shale.sustainable-write-rate";
  };

  // For each of the n ranges, stores in sizes[i] the approximate bytes its keys take in table
  // files (memtables not included). REQUIRES: ranges and sizes point to n elements.
  virtual Status GetApproximateSizes(ColumnFamilyHandle* column_family, const Range* ranges,
                                     int n, uint64_t* sizes) = 0;
  Status GetApproximateSizes(const Range* ranges, int n, uint64_t* sizes) {
    return GetApproximateSizes(DefaultColumnFamily(), ranges, n, sizes);
  }

  // Every table file of the current version of each live column family, in *metadata
  // (replaced): by family (creation order), then level, then (L0: newest first; other
  // levels: by key) as the version lists them. Empty after Close.
  virtual void GetLiveFilesMetaData(std::vector<LiveFileMetaData>* metadata) = 0;

  // Writes `message` to the DB's info LOG (one LOG line per line of it), for callers that
  // record facts of their own beside the DB's (RocksDB's C API logs the RocksDB options it
  // accepted without effect). Does nothing after Close.
  virtual void LogInfo(std::string_view message) = 0;

  // The options in effect, including changes made by SetOptions.
  // With a family: the DB's options with that family's (as Options); GetDBOptions: the DB's.
  virtual Options GetOptions(ColumnFamilyHandle* column_family) const = 0;
  Options GetOptions() const { return GetOptions(DefaultColumnFamily()); }
  virtual DBOptions GetDBOptions() const = 0;
  // The directory name given to Open.
  virtual const std::string& GetName() const = 0;
  // The sequence number of the most recent write (or of the most recent ingestion that
  // needed one); a snapshot taken now reads at it.
  virtual uint64_t GetLatestSequenceNumber() const = 0;

  // ---------------------------------------------------------------- Replication

  // An iterator over the writes with sequence numbers from `seq` on, read back from the WALs
  // (RocksDB's GetUpdatesSince; shale/transaction_log.h says what it yields). Its first batch
  // is the one holding `seq` (0 is taken as 1, the first sequence). Errors:
  // NotFound "Requested sequence not yet written in the db" when seq > GetLatestSequenceNumber();
  // NotFound "Requested sequence is older than the oldest WAL ..." when no live WAL holds it.
  // ShaleDB keeps no WAL archive (RocksDB's WAL_ttl_seconds / WAL_size_limit_MB have no
  // counterpart): a WAL is deleted once the memtables it holds are flushed, so a replica must
  // poll often enough (or DisableFileDeletions while it catches up). Writes made with
  // WriteOptions::disableWAL are in no WAL and never appear; reading across them is a
  // sequence gap: Corruption "Gap in sequence numbers: ..." through the iterator's status(),
  // or from this call when `seq` itself is such a write. On error *iter is null. Works on a
  // read-only DB too (over the WALs it replayed at open).
  virtual Status GetUpdatesSince(
      uint64_t seq, std::unique_ptr<TransactionLogIterator>* iter,
      const TransactionLogIterator::ReadOptions& read_options = {}) = 0;
};

// Deletes the DB in directory `name` and everything it contains that belongs to a DB (tables,
// WALs, MANIFESTs, CURRENT, LOCK, OPTIONS, info logs, a bulk load's leftovers in
// "<name>/bulkload.tmp" and that directory), then the directory if it is empty.
// Fails (IOError) while another DB holds the directory's LOCK. OK if nothing is there.
SHALE_EXPORT Status DestroyDB(const std::string& name, const Options& options);

// Rebuilds the MANIFEST and CURRENT of the DB in directory `name` from the files it holds,
// when they are lost or damaged (RocksDB's RepairDB). The old MANIFEST and CURRENT are not
// trusted: a readable old MANIFEST is used only as a hint (family names and ids, dropped
// families, which family and global sequence number an ingested table has, which WALs it
// already flushed). Repair:
//  - takes the directory's LOCK: IOError while a DB (in this or another process) holds it;
//    a missing directory is NotFound and nothing is created; an empty name InvalidArgument;
//  - replays WAL writes not known to be in a good table (damaged records skipped, as
//    kSkipAnyCorruptedRecords) into tables; a family it creates (below) takes no WAL record;
//  - moves to "<name>/lost/", unused, every table an old MANIFEST deleted (a compaction's
//    obsolete inputs);
//  - opens and verifies every other table file; one that fails is moved to "<name>/lost/" and
//    the info LOG says why (a table written with another comparator fails the repair instead,
//    changing nothing); each table's key, sequence range and size come from its contents;
//  - puts every table in level 0 of its column family: the family its properties name
//    (flush and compaction record it), else the one the old MANIFEST lists it in, else
//    "default" (logged);
//  - writes a new MANIFEST with every family found (and every one of `column_families`), its
//    last sequence the largest one found, syncs it, switches CURRENT atomically, then moves
//    the bad, obsolete and dropped families' tables to "<name>/lost/" (synced), deletes the old
//    MANIFESTs (and the merged tables, below), moves the WALs it replayed to "<name>/lost/";
//  - merges (by internal key, into one table, before the new MANIFEST is written) every group
//    of a family's tables that overlap in keys with interleaved sequence ranges (tables from
//    different old levels, or a WAL's rewrite beside a table that held the same entries), so
//    that reads find the newest entry of each key in level 0.
// What cannot come back: writes in a lost or damaged table (unless still in a WAL), WAL records
// past damage that the reader cannot resynchronise over, writes of a family that only a WAL
// holds when neither a table nor the old MANIFEST names the family, and (without a readable
// old MANIFEST) an ingested table's global sequence number: its entries then read as the
// oldest. Without a readable old MANIFEST, data that a compaction had already removed may come
// back if its obsolete input tables or a WAL holding it are still in the directory.
// `options` give the options of every family (RocksDB's C rocksdb_repair_db does the same).
SHALE_EXPORT Status RepairDB(const std::string& name, const Options& options);
// As above, each family with its descriptor's options (matched by name); a family found in
// the DB but not in `column_families` gets `unknown_cf_options`. Families named in
// `column_families` but absent from the DB are created empty.
SHALE_EXPORT Status RepairDB(const std::string& name, const DBOptions& db_options,
                             const std::vector<ColumnFamilyDescriptor>& column_families,
                             const ColumnFamilyOptions& unknown_cf_options);

}  // namespace shale

#endif  // SHALE_DB_H_
