// Options: every knob of a ShaleDB database, with RocksDB's names and (unless a field says
// otherwise) RocksDB's defaults, plus the per-call options of reads, writes, flushes, manual
// compactions and ingestion.
//
// Options splits like RocksDB's: DBOptions (the DB as a whole) and ColumnFamilyOptions (one
// keyspace: memtables, tree shape, compaction, the block-based table knobs in `table_options`);
// Options is both in one value, for a DB opened without naming column families. Each field
// documents its meaning, its default with units, and whether it can change on an open DB
// ("Dynamic": DB::SetOptions for a family's options, DB::SetDBOptions for the DB's).
//
// DB::Open validates the options (Options::Validate) and fails with InvalidArgument naming the
// first option that is out of range; it then writes them to an OPTIONS-<n> file in the DB
// directory (RocksDB's INI layout, see WriteOptionsFile).
//
// Options print to and parse from a RocksDB-style string:
//   "write_buffer_size=64M;max_open_files=-1;block_based_table_factory={block_size=8K}"
// (GetStringFromOptions / GetOptionsFromString); printing then parsing gives equal options.
//
// Ownership: Options holds the comparator by raw pointer (it must outlive every DB opened with
// it; BytewiseComparator() lives forever) and the file system and filter policy by shared_ptr.
// ReadOptions borrows its snapshot and bounds: the caller keeps them alive during the call (for
// an iterator: as long as the iterator).
//
// Thread-safety: these are plain values. Distinct objects may be used from different threads;
// one object may be read concurrently but not written while read.
#ifndef SHALE_OPTIONS_H_
#define SHALE_OPTIONS_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shale/comparator.h"
#include "shale/compression_type.h"
#include "shale/export.h"
#include "shale/file_system.h"
#include "shale/compaction_filter.h"
#include "shale/merge_operator.h"
#include "shale/progress.h"
#include "shale/status.h"
#include "shale/table_options.h"
#include "shale/statistics.h"

namespace shale {

// RocksDB's sentinel for bottommost_compression: "use `compression` at the bottom level too".
// Never stored in a block trailer.
inline constexpr CompressionType kDisableCompressionOption = static_cast<CompressionType>(0xff);

// How the LSM tree is compacted. RocksDB's names and values.
enum CompactionStyle : char {
  // Leveled: L0 overlapping files, then sorted runs L1..Ln, each `max_bytes_for_level_multiplier`
  // times larger than the one above. Best read and space amplification.
  kCompactionStyleLevel = 0x0,
  // Universal (tiered): fewer rewrites for write-heavy loads, at the cost of space.
  kCompactionStyleUniversal = 0x1,
  // FIFO: the oldest files are dropped once the total exceeds a size; for data that ages out.
  kCompactionStyleFIFO = 0x2,
  // No automatic compaction: only DB::CompactRange compacts. Unlike RocksDB, this style also
  // lifts the L0 write stalls (nothing will ever compact L0 by itself, so writers must not wait).
  kCompactionStyleNone = 0x3,
};

// What recovery does with a damaged WAL. RocksDB's names and values.
enum class WALRecoveryMode : char {
  // Drop an incomplete record at the tail (a crash mid-write); any other damage fails Open.
  kTolerateCorruptedTailRecords = 0x00,
  // Any damage, even a torn tail, fails Open.
  kAbsoluteConsistency = 0x01,
  // Replay up to the first damaged record and stop there: the DB is as of a point in time.
  kPointInTimeRecovery = 0x02,
  // Skip damaged records and keep replaying (may lose writes in the middle).
  kSkipAnyCorruptedRecords = 0x03,
};

// Universal compaction knobs (used when compaction_style == kCompactionStyleUniversal).
struct CompactionOptionsUniversal {
  // Percentage of slack when comparing sorted-run sizes: a run joins a merge while the runs
  // picked so far are at most (100 + size_ratio)% of it. Default: 1 (percent).
  unsigned int size_ratio = 1;
  // Fewest sorted runs merged at once. Default: 2.
  unsigned int min_merge_width = 2;
  // Most sorted runs merged at once. Default: UINT_MAX (no limit).
  unsigned int max_merge_width = UINT_MAX;
  // Space amplification allowed before a full merge, as the percentage of extra bytes over the
  // last (largest) sorted run. Default: 200 (percent).
  unsigned int max_size_amplification_percent = 200;

  bool operator==(const CompactionOptionsUniversal&) const = default;
};

// FIFO compaction knobs (used when compaction_style == kCompactionStyleFIFO).
struct CompactionOptionsFIFO {
  // Once the tables' total size exceeds this, the oldest are deleted. Default: 1 GiB (bytes).
  uint64_t max_table_files_size = 1024ull * 1024 * 1024;
  // Also merge small L0 files into larger ones. Default: false.
  bool allow_compaction = false;

  bool operator==(const CompactionOptionsFIFO&) const = default;
};

// The options of the DB as a whole: how it opens, its shared memory budget, its WAL, background
// threads, files and observability (RocksDB's DBOptions). One value per DB, whatever its column
// families.
struct SHALE_EXPORT DBOptions {
  // ---------------------------------------------------------------- Opening the DB

  // Create the DB if it does not exist. Default: false. Dynamic: no.
  bool create_if_missing = false;

  // Fail Open if the DB exists already. Default: false. Dynamic: no.
  bool error_if_exists = false;

  // DB::Open with column families (shale/db.h) creates the families it names that the DB does
  // not have yet; without it, naming one is InvalidArgument. Default: false. Dynamic: no.
  bool create_missing_column_families = false;

  // Check aggressively: on Open, check that every table file the MANIFEST lists exists with
  // the size it records (a stat per file, no file is opened; see
  // skip_checking_sst_file_sizes_on_db_open), failing Open with Corruption otherwise.
  // Default: true. Dynamic: no.
  bool paranoid_checks = true;

  // Every file operation goes through this. Null means FileSystem::Default() (POSIX).
  // Not printed by GetStringFromOptions or in OPTIONS files (it is a runtime object).
  // Default: FileSystem::Default(). Dynamic: no.
  std::shared_ptr<FileSystem> file_system = FileSystem::Default();

  // ---------------------------------------------------------------- Memtables and the WAL

  // Cap on the memory of all memtables together, in bytes; 0 means no cap (each memtable is
  // bounded by write_buffer_size only). Reaching it retires the active memtable for a flush
  // (writers wait only for a flush under way). A value below 64 KiB (RocksDB's smallest
  // write_buffer_size) is raised to 64 KiB, and the info LOG says so. Default: 0. Dynamic: no.
  size_t db_write_buffer_size = 0;

  // Once the live WALs together hold more than this many bytes, the column families whose
  // unflushed writes keep the oldest WAL alive are flushed, so that WAL can be deleted (one WAL
  // serves every family, and a family that is rarely written would otherwise pin it). 0: four
  // times the sum, over the families, of write_buffer_size * max_write_buffer_number (as
  // RocksDB). With a single family the WAL follows its memtable and this has no effect.
  // Default: 0 (bytes). Dynamic: yes (DB::SetDBOptions).
  uint64_t max_total_wal_size = 0;

  // Flush every column family together whenever one is flushed (a full memtable, DB::Flush,
  // the WAL limit above), and record their new tables in one MANIFEST write: after a crash,
  // writes made with WriteOptions::disableWAL are then present in all families or in none,
  // up to the same point (as RocksDB). Default: false. Dynamic: no.
  bool atomic_flush = false;

  // What DB::Close does with the writes still in memtables. false: Close flushes them to
  // tables and deletes the WALs that leaves obsolete, so the next open has no WAL to replay
  // (it opens in about the same time whatever the last session left behind); it does so while
  // the memtables hold at most 256 MiB together (a few hundred milliseconds of writing), and
  // past that leaves the logged writes in the WAL, so Close stays prompt. true: Close leaves
  // logged writes in the WAL (the next open replays them). Either way, writes made with
  // WriteOptions::disableWAL are flushed by Close, whatever their size (unless the DB is
  // already stopped by a background error, which Close returns). A DB opened read-only or as a
  // secondary never flushes. A flush that fails at Close leaves every logged write in the WAL,
  // and Close returns the error.
  // RocksDB has the same name and default with another meaning: there false flushes only when
  // some writes were made without the WAL (logged writes always stay in the WAL), and true
  // skips even that flush, losing those writes. Default: false.
  // Dynamic: yes (DB::SetDBOptions; Close reads the current value).
  bool avoid_flush_during_shutdown = false;

  // ---------------------------------------------------------------- Background work

  // Most flushes and compactions running at once: one flush thread, and max(1, this - 1)
  // compaction threads. Values below 1 are raised to 1; above 1024 refused (a thread per
  // job). Default: 2. Dynamic: yes (DB::SetDBOptions).
  int max_background_jobs = 2;

  // Most threads one automatic compaction is split into (key-range subcompactions of about
  // equal input bytes, run in parallel). DB::CompactRange uses at least min(cores,
  // max_background_jobs). 0 is taken as 1 and values above kMaxSubcompactions (64) as 64
  // (RocksDB accepts any value). Default: 1. Dynamic: yes (DB::SetDBOptions).
  uint32_t max_subcompactions = 1;

  // The most subcompactions (threads) any one compaction runs, whatever max_subcompactions or
  // CompactRangeOptions::max_subcompactions ask for.
  static constexpr uint32_t kMaxSubcompactions = 64;

  // The write rate while writes are slowed down, in bytes per second; 0 means 16 MiB/s
  // (RocksDB's default is 0, sanitized to 16 MiB/s). Default: 16 MiB/s.
  // Dynamic: yes (DB::SetDBOptions).
  uint64_t delayed_write_rate = 16ull << 20;

  // ---------------------------------------------------------------- Files and recovery

  // Bounds two things, less 10 for the DB's own files (as RocksDB):
  // - the tables kept parsed (footer, index, filter, properties, range deletions), least
  //   recently used first out, so it bounds the readers' memory; a table a Get or an iterator
  //   is using stays parsed until they let go, so iterators over more tables still work, and
  //   an evicted table is parsed again (index and filter re-read) on its next use. -1: every
  //   live table stays parsed (with cache_index_and_filter_blocks, the index and filter live
  //   in the block cache and are bounded by it instead);
  // - the table file descriptors open, never more than half of RLIMIT_NOFILE as read at Open
  //   (-1: that half). Only a block read holds a descriptor, so any number of tables is read,
  //   scans included, within this budget; a read never fails with EMFILE while the DB can
  //   close an idle descriptor.
  // Tables are opened lazily, on first use; Open opens none. -1, or a value of at least 20:
  // other values are raised to 20 (as RocksDB).
  // Default: -1. Dynamic: no.
  int max_open_files = -1;

  // What recovery does with a damaged WAL. Default: kPointInTimeRecovery. Dynamic: no.
  WALRecoveryMode wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;

  // Make data durable with fsync instead of fdatasync. Default: false. Dynamic: no.
  bool use_fsync = false;

  // A new MANIFEST is started once the current one exceeds this. Default: UINT64_MAX (bytes:
  // never roll over). Dynamic: no.
  uint64_t max_manifest_file_size = UINT64_MAX;

  // Reserve the last level (num_levels - 1) for files ingested with
  // IngestExternalFileOptions::ingest_behind. No flush, no automatic compaction of any style
  // and no CompactRange writes there (the tree ends at num_levels - 2, which level targets and
  // a full CompactRange treat as the bottom; CompactRange with change_level and target_level =
  // num_levels - 1 is InvalidArgument), and no compaction reads its files: they stay as
  // ingested (FIFO neither counts nor deletes them). No compaction is "bottommost" either:
  // deletion tombstones are kept, so a key deleted now stays deleted when an older value is
  // ingested behind later (RocksDB drops them, facebook/rocksdb#13571). The cost: tombstones
  // are never reclaimed, and bottommost_compression applies to num_levels - 2. Works with every
  // compaction style (RocksDB: universal only). Requires num_levels >= 3. RocksDB makes it a
  // DB-creation-time choice; ShaleDB accepts it on any Open: files already in the last level
  // then count as ingested behind (never compacted again). Default: false. Dynamic: no.
  bool allow_ingest_behind = false;

  // Skip checking, on Open, that each table's size matches the MANIFEST (the check that
  // paranoid_checks turns on). Default: false.
  // Dynamic: no.
  bool skip_checking_sst_file_sizes_on_db_open = false;

  // ---------------------------------------------------------------- Observability

  // Where the DB counts its tickers and histograms (shale/statistics.h); null: nothing is
  // measured. May be shared by several DBs. Create one with CreateDBStatistics(). Dynamic: no.
  // Like file_system, not part of option strings or OPTIONS files.
  std::shared_ptr<Statistics> statistics;

  // Every this many seconds a background timer writes the DB's statistics (the shale.stats
  // report, with the compaction debt: pending bytes, recent compaction rate, seconds of
  // compaction left, sustainable write rate) to the info LOG. 0 disables; negative values are
  // refused. Close stops the timer at once. Default: 600 (RocksDB's). Dynamic: no.
  int stats_dump_period_sec = 600;

  // ---------------------------------------------------------------- Presets

  // Lets flushes and compactions use `total_threads` threads: max_background_jobs =
  // total_threads (RocksDB also sizes its thread pools here; ShaleDB's pool follows
  // max_background_jobs).
  void IncreaseParallelism(int total_threads = 16);
};

// The options of one column family (a keyspace with its own memtables and LSM tree; see
// shale/db.h): its comparator, memtables, compression, tree shape, compaction and table format
// (RocksDB's ColumnFamilyOptions). Each family has its own; DB::Open with plain Options uses
// them for the default family.
struct SHALE_EXPORT ColumnFamilyOptions {
  // ---------------------------------------------------------------- Keys

  // The order of user keys. Must outlive the DB; its Name() is recorded in the MANIFEST and a DB
  // can only be reopened with a comparator of the same name. Must not be null.
  // Default: BytewiseComparator(). Dynamic: no.
  const Comparator* comparator = BytewiseComparator();

  // ---------------------------------------------------------------- Memtables

  // Bytes a memtable holds before it becomes immutable and is flushed to a table. Larger
  // values mean fewer, larger L0 files and a longer recovery. Values outside [64 KiB, 64 GiB]
  // are clamped to it at Open and SetOptions (as RocksDB; noted in the info LOG).
  // Default: 64 MiB (bytes). Dynamic: yes (DB::SetOptions).
  size_t write_buffer_size = 64ull << 20;

  // Most memtables (the active one plus immutable ones waiting for flush) kept in memory;
  // once reached, writes stall until a flush completes. Values below 2 are raised to 2 (as
  // RocksDB; one memtable takes writes while another is flushed).
  // Default: 2. Dynamic: yes (DB::SetOptions).
  int max_write_buffer_number = 2;

  // Fewest immutable memtables merged into one flush. Clamped to [1, max_write_buffer_number
  // - 1] (as RocksDB); only 1 is supported so far. Default: 1.
  // Dynamic: no.
  int min_write_buffer_number_to_merge = 1;

  // Combines the operands of DB::Merge with existing values (shale/merge_operator.h); null: no
  // operator, and Merge fails with InvalidArgument. The options-string form is the operator's
  // GetId() ("merge_operator=uint64add", see CreateMergeOperatorFromString). A DB that holds
  // operands must be reopened with an operator of the same Name(). Default: nullptr.
  // Dynamic: no.
  std::shared_ptr<MergeOperator> merge_operator;

  // Drops or rewrites values during compactions (shale/compaction_filter.h says when it is
  // called and what it may do). Borrowed: it must outlive the DB. Shared by every compaction of
  // the family, which run in parallel threads: it must be thread-safe. Takes precedence over
  // compaction_filter_factory when both are set (as RocksDB). Not part of options strings or
  // the OPTIONS file (a runtime object). Default: nullptr. Dynamic: no.
  const CompactionFilter* compaction_filter = nullptr;

  // Makes a CompactionFilter for each (sub)compaction (used when compaction_filter is null);
  // the factory is called from several compaction threads at once. Not part of options
  // strings or the OPTIONS file. Default: nullptr. Dynamic: no.
  std::shared_ptr<CompactionFilterFactory> compaction_filter_factory;

  // Most successive merge operands for one key kept in the memtable: when a Merge finds this
  // many operands at the top of its key's history in the memtable, it reads the key, merges
  // and writes the result as a value instead. Bounds the operands a read must merge for hot
  // keys, at the cost of a read per such write. 0: never merge at write time. Default: 0.
  // Dynamic: yes (DB::SetOptions).
  size_t max_successive_merges = 0;

  // ---------------------------------------------------------------- Compression

  // Compression of data blocks (and of index blocks when table_options.enable_index_compression)
  // on every level but the bottommost. This build supports kNoCompression, kSnappyCompression,
  // kZlibCompression, kLZ4Compression, kLZ4HCCompression (LZ4's high-compression mode; LZ4's
  // format) and kZSTD; RocksDB's kBZip2Compression and kXpressCompression are refused
  // (InvalidArgument). Default: kNoCompression. RocksDB defaults to kSnappyCompression:
  // compression is the most expensive CPU in the engine (DESIGN.md section 5), so the upper
  // levels, rewritten often, stay uncompressed unless asked. Dynamic: yes (DB::SetOptions).
  CompressionType compression = kNoCompression;

  // Compression of the bottommost level (where most data lives and is rewritten least).
  // kDisableCompressionOption means "same as `compression`".
  // Default: kDisableCompressionOption. Dynamic: yes (DB::SetOptions).
  CompressionType bottommost_compression = kDisableCompressionOption;

  // Compression level, for both `compression` and `bottommost_compression`. For kZSTD: 1
  // (fastest) to 22 (smallest), 0 for zstd's default (3), negative for zstd's fast modes
  // (down to -131072). For kLZ4HCCompression: 0 gives LZ4HC's default (9), any other value is
  // clamped to LZ4HC's levels 3 (fastest) to 12 (smallest), so the default 1 gives 3. For
  // kZlibCompression: 0 gives zlib's default (6), any other value is clamped to zlib's levels 1
  // (fastest) to 9 (smallest).
  // kSnappyCompression and kLZ4Compression have no levels. Default: 1: zstd-1 already costs
  // ~300 MB/s per core on 4 KiB blocks, the most expensive CPU in the engine (DESIGN.md
  // section 5); higher levels cost several times more for a few percent of space. A level
  // outside [-131072, 22] is clamped to it (zstd does the same under RocksDB). RocksDB spells
  // this compression_opts.level (and bottommost_compression_opts.level): option strings and
  // OPTIONS files accept both spellings, see doc/options.md. Dynamic: yes (DB::SetOptions).
  int compression_level = 1;

  // ---------------------------------------------------------------- LSM shape

  // Number of levels. Raised to 1, to 2 for level-style compaction and to 3 with
  // allow_ingest_behind (as RocksDB); at most 64
  // (the most a MANIFEST records; RocksDB has no such bound, larger values are refused).
  // Default: 7. Dynamic: no.
  int num_levels = 7;

  // L0 files that trigger an L0 compaction. Must be at least 1 (0 is raised to 1, as RocksDB).
  // Default: 4 (files). Dynamic: yes (DB::SetOptions).
  int level0_file_num_compaction_trigger = 4;

  // L0 files at which writes are slowed down (to delayed_write_rate). Must lie between the
  // compaction trigger and the stop trigger (a value below the compaction trigger is raised to
  // it, as RocksDB does). Not applied under kCompactionStyleFIFO, which never merges L0 files
  // (as RocksDB). Default: 20 (files). Dynamic: yes (DB::SetOptions).
  int level0_slowdown_writes_trigger = 20;

  // L0 files at which writes stop until compaction catches up (a value below the slowdown
  // trigger is raised to it, as RocksDB does). Not applied under kCompactionStyleFIFO (as
  // RocksDB). Default: 36 (files). Dynamic: yes (DB::SetOptions).
  int level0_stop_writes_trigger = 36;

  // Target size of a table written by compaction into level 1; level n's target is
  // target_file_size_base * target_file_size_multiplier^(n-1). Must be > 0.
  // Default: 64 MiB (bytes). Dynamic: yes (DB::SetOptions).
  uint64_t target_file_size_base = 64ull << 20;

  // See target_file_size_base. Must be > 0. Default: 1. Dynamic: yes (DB::SetOptions).
  int target_file_size_multiplier = 1;

  // Total size of the base level (the first non-empty level below L0). Must be > 0.
  // Default: 256 MiB (bytes). Dynamic: yes (DB::SetOptions).
  uint64_t max_bytes_for_level_base = 256ull << 20;

  // Each level below the base level may be this many times larger than the level above.
  // Must be finite; a value not above 0 is taken as 1 (as RocksDB). Default: 10.
  // Dynamic: yes (DB::SetOptions).
  double max_bytes_for_level_multiplier = 10;

  // Size the levels from the bottom up: the last level holds what it holds, each level above
  // a multiplier-th of the one below, and L0 compacts into the first level that needs data.
  // Keeps space amplification near 1.1 at every DB size. Default: true. RocksDB 7.8 defaults to
  // false; ShaleDB's compaction is designed around dynamic level sizes (DESIGN.md section 3).
  // Dynamic: no.
  bool level_compaction_dynamic_level_bytes = true;

  // ---------------------------------------------------------------- Compaction

  // How the tree is compacted: level (leveled, dynamic level sizes by default), universal
  // (tiered: fewer rewrites, more space), FIFO (oldest tables deleted, for data that ages out;
  // flushes all go to L0) or none (only DB::CompactRange compacts; unlike RocksDB, writers
  // are then never stalled on L0 files or pending compaction bytes).
  // Default: kCompactionStyleLevel. Dynamic: no.
  CompactionStyle compaction_style = kCompactionStyleLevel;

  // Stop scheduling automatic compactions (the style stays; DB::CompactRange still works).
  // Lifts the L0 and pending-bytes write stalls like RocksDB does. Setting it back to false
  // with DB::SetOptions schedules what is due at once. Default: false.
  // Dynamic: yes (DB::SetOptions).
  bool disable_auto_compactions = false;

  // Knobs of kCompactionStyleUniversal. Dynamic: yes (DB::SetOptions).
  CompactionOptionsUniversal compaction_options_universal;

  // Knobs of kCompactionStyleFIFO. allow_compaction = true is not supported (rejected).
  // Dynamic: yes (DB::SetOptions).
  CompactionOptionsFIFO compaction_options_fifo;

  // Files written more than this many seconds ago: with kCompactionStyleFIFO they are dropped;
  // with kCompactionStyleLevel a file above the bottom level is compacted one level down (its
  // output gets a fresh time, so old data moves one level per ttl period). 0 disables.
  // Universal and none reject a non-zero value. Default: 0 (seconds).
  // Dynamic: yes (DB::SetOptions).
  uint64_t ttl = 0;

  // Writes slow down (to delayed_write_rate) once compaction is estimated to owe this many
  // bytes; 0 disables. A value above a non-zero hard_pending_compaction_bytes_limit is lowered
  // to it (as RocksDB).
  // Default: 64 GiB (bytes). Dynamic: yes (DB::SetOptions).
  uint64_t soft_pending_compaction_bytes_limit = 64ull << 30;

  // Writes stop once compaction is estimated to owe this many bytes; 0 disables.
  // Default: 256 GiB (bytes). Dynamic: yes (DB::SetOptions).
  uint64_t hard_pending_compaction_bytes_limit = 256ull << 30;

  // ---------------------------------------------------------------- Tables

  // Block-based table knobs (block size, index and filter layout, the block cache, ...).
  // Dynamic: no.
  TableOptions table_options;

  // ---------------------------------------------------------------- Presets

  // Point lookups (Get) over keys that mostly exist or mostly do not: a 10 bits/key bloom
  // filter, the data-block hash index (kDataBlockBinaryAndHash, util ratio 0.75), and a new
  // LRU block cache of `block_cache_size_mb` MiB (0: the table options' cache is left as it
  // is). Unlike RocksDB, which starts from fresh table options, every other table option
  // (index partitioning, index compression, block size, cache_index_and_filter_blocks, ...) is
  // kept: they have no bearing on point lookups that would justify undoing the caller's choice.
  void OptimizeForPointLookup(uint64_t block_cache_size_mb);
};

// DBOptions and the default column family's ColumnFamilyOptions in one value, like
// rocksdb::Options: what DB::Open(options, name, &db) takes, and what GetOptions(family)
// returns (the DB's options with that family's).
struct SHALE_EXPORT Options : public DBOptions, public ColumnFamilyOptions {
  Options() = default;
  Options(const DBOptions& db_options, const ColumnFamilyOptions& cf_options)
      : DBOptions(db_options), ColumnFamilyOptions(cf_options) {}

  // The fast path for loading a lot of data, then compacting it once (RocksDB's preset, with
  // larger write buffers): no automatic compaction, L0 triggers and pending-compaction limits
  // out of the way (1<<30 files, no byte limits: writers never stall on compaction), 2 levels,
  // 256 MiB target files, 6 write buffers of at least 256 MiB each (up to 1.5 GiB of
  // memtables: cap it with db_write_buffer_size), at least 6 background jobs. Flushes of
  // sorted (non-overlapping) data go straight to the bottom level; the rest lands in L0.
  // Also advised: WriteOptions::disableWAL. Call CompactRange over the whole key range when the
  // load is done: it merges every L0 file and the bottom level in one pass, split into
  // subcompactions over min(cores, max_background_jobs) threads.
  void PrepareForBulkLoad();

  // OK, or InvalidArgument naming the first option out of range and why, for the options as
  // DB::Open takes them: after the adjustments RocksDB makes too (write_buffer_size below
  // 64 KiB raised, max_write_buffer_number raised to 2, L0 triggers put in order, ...: the list
  // is in doc/options.md).
  Status Validate() const;
};

// The name of the column family every DB has (id 0), which cannot be dropped: "default".
SHALE_EXPORT extern const std::string kDefaultColumnFamilyName;

// A column family to open or create: its name and options (DB::Open, CreateColumnFamilies).
// A plain value (thread-safety as Options).
struct ColumnFamilyDescriptor {
  std::string name;
  ColumnFamilyOptions options;
  ColumnFamilyDescriptor() : name(kDefaultColumnFamilyName) {}
  ColumnFamilyDescriptor(std::string n, ColumnFamilyOptions o)
      : name(std::move(n)), options(std::move(o)) {}
};

// A consistent read-only view of the DB as of one sequence number (DB::GetSnapshot). Opaque;
// released with DB::ReleaseSnapshot, never deleted by the user.
class SHALE_EXPORT Snapshot {
 public:
  // Reads with this snapshot see writes with sequence numbers <= this one.
  virtual uint64_t GetSequenceNumber() const = 0;

 protected:
  virtual ~Snapshot();
};

struct ReadOptions {
  // Read as of this snapshot; null means an implicit snapshot taken when the read (or the
  // iterator) starts. Borrowed: must stay alive during the read. Default: nullptr.
  const Snapshot* snapshot = nullptr;

  // Iterators see no key below this (inclusive bound); null means no bound. Borrowed: the view
  // and the bytes it points to must outlive the iterator. Default: nullptr.
  const std::string_view* iterate_lower_bound = nullptr;

  // Iterators see no key at or above this (exclusive bound); null means no bound. Borrowed
  // like iterate_lower_bound. Default: nullptr.
  const std::string_view* iterate_upper_bound = nullptr;

  // Verify the checksum of every block read. Default: true.
  bool verify_checksums = true;

  // Put the blocks read into the block cache (turn off for one-off scans). Default: true.
  bool fill_cache = true;
};

struct WriteOptions {
  // fsync (fdatasync) the WAL before the write returns. Without it a write survives a process
  // crash but may be lost in a machine crash. Default: false.
  bool sync = false;

  // Skip the WAL: the write is lost if the process crashes before it is flushed.
  // Default: false.
  bool disableWAL = false;
};

struct FlushOptions {
  // Wait until the flush is done. Default: true.
  bool wait = true;

  // Flush even if that stalls writers for a while; otherwise wait until it would not.
  // Default: false.
  bool allow_write_stall = false;
};

// What a manual compaction does with the bottommost level.
enum class BottommostLevelCompaction {
  // Leave the bottommost level alone.
  kSkip,
  // Compact it only if the family has a compaction filter (ColumnFamilyOptions::
  // compaction_filter or compaction_filter_factory), so the filter sees every key.
  kIfHaveCompactionFilter,
  // Always compact it.
  kForce,
  // Always compact it, but skip files written by this very manual compaction.
  kForceOptimized,
};

struct CompactRangeOptions {
  // No automatic compaction runs alongside this manual one. Default: true.
  bool exclusive_manual_compaction = true;

  // Move the result to target_level (or the lowest level that fits when target_level is -1).
  // While the compaction and the move run, flushes and ingestions of overlapping keys go above
  // target_level, and no compaction writes the range into the levels between, so the moved
  // (older) data never lands above newer data. Default: false.
  bool change_level = false;

  // See change_level. Default: -1.
  int target_level = -1;

  // Default: kIfHaveCompactionFilter.
  BottommostLevelCompaction bottommost_level_compaction =
      BottommostLevelCompaction::kIfHaveCompactionFilter;

  // Most subcompactions for this compaction; 0 means Options::max_subcompactions. Values above
  // Options::kMaxSubcompactions run that many. Default: 0.
  uint32_t max_subcompactions = 0;

  // Called with the compaction's progress (shale/progress.h): operation "compact_range";
  // bytes and entries of the input table files read (the totals are the inputs' sizes and
  // entry counts, after the memtables are flushed). Empty: no reports. Default: empty.
  ProgressCallback progress;
  // At most one report per this many seconds (0: every few thousand entries). Must be >= 0.
  // Default: 1.
  double progress_interval_seconds = 1.0;
};

// Options of DB::VerifyChecksum(const VerifyChecksumOptions&).
struct VerifyChecksumOptions {
  // The read options of DB::VerifyChecksum(const ReadOptions&). Blocks are read straight from
  // the files (a cached copy could hide a block that went bad on disk), so they never go
  // into the block cache, whatever fill_cache says; checksums are always verified.
  ReadOptions read_options;
  // Called with the verification's progress (shale/progress.h): operation "verify"; bytes of
  // the live table files verified of their total size, entries = files. Empty: no reports.
  // Default: empty.
  ProgressCallback progress;
  // At most one report per this many seconds (0: after every file). Must be >= 0. Default: 1.
  double progress_interval_seconds = 1.0;
};

struct IngestExternalFileOptions {
  // Move (rename) the files into the DB instead of copying them; falls back to a copy across
  // file systems. A moved file is synced before the ingestion commits (whatever wrote it may
  // not have). Default: false.
  bool move_files = false;

  // Snapshots taken before the ingestion do not see the ingested keys. Default: true. (When
  // the files overlap nothing and no snapshot exists, they keep sequence 0; a GetSnapshot
  // called while such an ingestion commits waits the few milliseconds until it has.)
  bool snapshot_consistency = true;

  // Allow giving the files a sequence number (needed when they overlap the DB's keys or a
  // snapshot exists); otherwise such an ingestion fails. Default: true.
  bool allow_global_seqno = true;

  // Flush the memtable first if it overlaps the files (may stall writes); otherwise such an
  // ingestion fails. Default: true.
  bool allow_blocking_flush = true;

  // Put the files in the bottommost level, below every existing key (duplicates keep the
  // DB's values). Requires Options::allow_ingest_behind. Default: false.
  bool ingest_behind = false;

  // Verify every block checksum of the files before ingesting them. Default: false.
  bool verify_checksums_before_ingest = false;

  // Write the assigned sequence number into the files (otherwise it lives in the MANIFEST
  // only). Default: false.
  bool write_global_seqno = false;

  // Called with the progress of bringing the files into the DB (shale/progress.h): operation
  // "ingest", stage "copy" while files are copied, "link" while moved files are linked and
  // synced; bytes are the files' bytes, entries the files. Empty: no reports. Default: empty.
  ProgressCallback progress;
  // At most one report per this many seconds (0: every chunk of a copy, every file). Must be
  // >= 0. Default: 1.
  double progress_interval_seconds = 1.0;
};

// ------------------------------------------------------------------ Strings and files

// Parses "name=value;name=value" onto a copy of `base` and stores the result in *out.
//   - names are RocksDB's (write_buffer_size, compaction_style, ...) plus ShaleDB's
//     compression_level and block_cache_size; whitespace around names and values is ignored;
//   - sizes and counts take K, M, G, T suffixes (powers of 1024, any case): "64M";
//   - booleans are true/false/1/0; enums use RocksDB's names (kCompactionStyleLevel, kZSTD,
//     kPointInTimeRecovery, kTwoLevelIndexSearch, kDataBlockBinaryAndHash, ...);
//   - nested values go in braces: "block_based_table_factory={block_size=8K;
//     filter_policy=bloomfilter:10:false}", "compaction_options_universal={size_ratio=2}";
//   - comparator=<name> accepts leveldb.BytewiseComparator or the name of base's comparator.
// An unknown name or a bad value fails with InvalidArgument naming the option and the value;
// *out is left untouched on error. Values are parsed, not validated (see Options::Validate).
SHALE_EXPORT Status GetOptionsFromString(const Options& base, const std::string& opts,
                                         Options* out);

// Every option (except file_system and statistics) as "name=value;..." in a stable order (the
// DB options, then the column-family options), so that
// GetOptionsFromString(any base with the same comparator, result) gives equal options.
SHALE_EXPORT std::string GetStringFromOptions(const Options& options);

// The scoped forms (RocksDB's): DB options only, or one column family's options only. Same
// syntax and rules as GetOptionsFromString; a name of the other scope fails with
// InvalidArgument saying so ("max_open_files is a DB option, not a column family option",
// "write_buffer_size is a column family option, not a DB option"). *new_options is left
// untouched on error.
SHALE_EXPORT Status GetDBOptionsFromString(const DBOptions& base, const std::string& opts,
                                           DBOptions* new_options);
SHALE_EXPORT Status GetColumnFamilyOptionsFromString(const ColumnFamilyOptions& base,
                                                     const std::string& opts,
                                                     ColumnFamilyOptions* new_options);

// Every DB option (except file_system and statistics), or every column-family option, as
// "name=value" entries joined by `delimiter`, in a stable order; with the default delimiter
// (or any ';' with whitespace around it) the Get*FromString of the same scope reads it back to
// equal options. Always OK (RocksDB's shape).
SHALE_EXPORT Status GetStringFromDBOptions(std::string* opts_str, const DBOptions& db_options,
                                           const std::string& delimiter = ";");
SHALE_EXPORT Status GetStringFromColumnFamilyOptions(std::string* opts_str,
                                                     const ColumnFamilyOptions& cf_options,
                                                     const std::string& delimiter = ";");

// Writes the DB's options and each column family's to `path` in RocksDB's OPTIONS file layout
// (an INI file: [Version], [DBOptions], then for each family [CFOptions "<name>"] and
// [TableOptions/BlockBasedTable "<name>"]) and syncs it. `column_families` must start with the
// default family and name each family once (else InvalidArgument, nothing written); the
// sections follow its order.
SHALE_EXPORT Status WriteOptionsFile(FileSystem* fs, const std::string& path,
                                     const DBOptions& db_options,
                                     const std::vector<ColumnFamilyDescriptor>& column_families);

// The same for a DB with the default family only: `options`' column-family options are the
// default family's.
SHALE_EXPORT Status WriteOptionsFile(FileSystem* fs, const std::string& path,
                                     const Options& options);

// Reads an OPTIONS file written by WriteOptionsFile or by RocksDB.
//   - *db_options: the options the file's [DBOptions] names take the file's values; the others
//     keep theirs.
//   - *column_families: replaced by one descriptor per family the file has sections for, in the
//     order of their first section. Each starts from the descriptor of the same name already in
//     *column_families, if any (so runtime objects the file cannot hold, such as the comparator,
//     merge operator or block cache, carry over when the file names the same ones), else from
//     ColumnFamilyOptions(); the file's values go on top. A family named in several sections
//     gets all of them.
// Options, sections and table formats ShaleDB does not know are skipped, each with a note
// appended to *warnings (when not null), as is an option in the other scope's section (a
// column-family option under [DBOptions]). A bad value of a known option fails with
// InvalidArgument naming the file, line and option. A RocksDB file's table format_version is
// RocksDB's and is skipped with a note. On error no output is changed.
SHALE_EXPORT Status LoadOptionsFromFile(FileSystem* fs, const std::string& path,
                                        DBOptions* db_options,
                                        std::vector<ColumnFamilyDescriptor>* column_families,
                                        std::vector<std::string>* warnings = nullptr);

// The same onto `options`: the DB options and the default family's options (the file's other
// families are skipped, each section with a note). Options the file does not name keep their
// value in *options. *options is left untouched on error.
SHALE_EXPORT Status LoadOptionsFromFile(FileSystem* fs, const std::string& path,
                                        Options* options,
                                        std::vector<std::string>* warnings = nullptr);

}  // namespace shale

#endif  // SHALE_OPTIONS_H_
