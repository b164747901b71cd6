// The last level reserved by Options::allow_ingest_behind, as flushes and compactions see it.
//
// With allow_ingest_behind, the last level (num_levels - 1) belongs to the files that
// DB::IngestExternalFile places there with IngestExternalFileOptions::ingest_behind (older
// than everything in the DB, sequence number 0). The rest of the engine keeps out of it:
//  1. No flush, no automatic compaction of any style and no CompactRange writes into it; the
//     tree that flushes and compactions maintain ends at LastWritableLevel() = num_levels - 2,
//     which level targets, universal's oldest run and CompactRange treat as "the bottom".
//  2. No compaction reads from it either: its files are never picked (nor deleted by FIFO, nor
//     counted in FIFO's size bound), so any level of ingested-behind files stays exactly as
//     ingested and the next ingest_behind finds the level it expects.
//  3. No compaction counts as bottommost (Compaction::bottommost is false): a deletion
//     tombstone and the entry it hides must survive every compaction, since an older value of
//     the key may be ingested behind later and the tombstone must still hide it. (RocksDB
//     dropped such tombstones: facebook/rocksdb#13571.) ShaleDB never zeroes sequence numbers,
//     so entries keep their real sequences and stay newer than anything ingested behind.
// Options::Validate requires num_levels >= 3 with allow_ingest_behind, so at least L0 and one
// sorted level remain writable. With fewer levels (options that skipped validation, as in unit
// tests) the option is ignored here.
//
// Turning the option on for an existing DB is allowed: files already in the last level then
// count as ingested behind (they are older than every level above, so reads stay correct) and
// are never compacted again.
//
// Thread-safety: plain functions of their arguments.
#ifndef SHALE_COMPACTION_RESERVED_LEVEL_H_
#define SHALE_COMPACTION_RESERVED_LEVEL_H_

#include "shale/options.h"

namespace shale {

// Whether the last of `num_levels` levels is reserved for ingest_behind files.
inline bool ReservesLastLevel(const Options& options, int num_levels) {
  return options.allow_ingest_behind && num_levels >= 3;
}

// The lowest level a flush or compaction may write: num_levels - 1, or num_levels - 2 when the
// last level is reserved.
inline int LastWritableLevel(const Options& options, int num_levels) {
  return ReservesLastLevel(options, num_levels) ? num_levels - 2 : num_levels - 1;
}

}  // namespace shale

#endif  // SHALE_COMPACTION_RESERVED_LEVEL_H_
