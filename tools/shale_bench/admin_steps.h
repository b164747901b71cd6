// The untimed benchmarks: steps that act on the open DB and print what they did (db_bench's
// output for each).
//   flush              Flush the memtables and wait                 "flush memtable"
//   waitforcompaction  Flush (waiting), then poll every 100 ms until no automatic compaction is
//                      due (shale.compaction-pending) and none runs
//                      (shale.num-running-compactions); prints db_bench's started/finished
//                      lines and, between them, how long it waited and the wall-clock time at
//                      which compaction was done (bench/compare reads it)
//   stats / levelstats / sstables   print the shale.stats / shale.levelstats / shale.sstables
//                      property ("(failed)" if the DB does not have it)
// Each step acts on every column family of `families` (--num_column_families; empty: the
// default family only): flush flushes them all, waitforcompaction waits until none has a
// compaction due, and the property steps print each family's, under a
// "column family <name>:" line when there are several.
#include <vector>

#ifndef SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_
#define SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_

#include <string>

#include "shale/db.h"
#include "shale/status.h"

namespace shale::bench {

Status FlushStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                 const std::string& db_path);
// Fails if a property cannot be read, or with the DB's background error when a compaction is
// due but none has run for 10 s because of it. If one is due, none runs and the DB has no
// error for that long (the picker finds nothing it can start), says so and returns OK.
Status WaitForCompactionStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                             const std::string& db_path);
Status StatsStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                 const std::string& db_path);
Status LevelStatsStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                      const std::string& db_path);
Status SstablesStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                    const std::string& db_path);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_
