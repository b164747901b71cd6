// The untimed benchmarks: steps that act on the open DB and print what they did (db_bench's
// output for each).
//   flush              Flush the memtables and wait                 "flush memtable"
//   waitforcompaction  wait until background work is done; until ShaleDB has compaction, that
//                      is the flushes (a waiting Flush)
//   stats / levelstats / sstables   print the shale.stats / shale.levelstats / shale.sstables
//                      property ("(failed)" if the DB does not have it)
#ifndef SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_
#define SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_

#include <string>

#include "shale/db.h"
#include "shale/status.h"

namespace shale::bench {

Status FlushStep(DB* db, const std::string& db_path);
Status WaitForCompactionStep(DB* db, const std::string& db_path);
Status StatsStep(DB* db, const std::string& db_path);
Status LevelStatsStep(DB* db, const std::string& db_path);
Status SstablesStep(DB* db, const std::string& db_path);

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_ADMIN_STEPS_H_
