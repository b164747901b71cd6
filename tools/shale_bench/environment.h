// The header shale_bench prints before it runs anything, db_bench's layout: the engine, date
// and CPU on stderr; the keys, values, entries, estimated sizes and compression on stdout.
#ifndef SHALE_TOOLS_SHALE_BENCH_ENVIRONMENT_H_
#define SHALE_TOOLS_SHALE_BENCH_ENVIRONMENT_H_

#include <string>

#include "shale/options.h"

namespace shale::bench {

// "ShaleDB:    version 0.1.0", "Date: ...", "CPU: 2 * <model>", "CPUCache: ..." (stderr).
void PrintEnvironment();
// "Keys: ...", "Values: ...", "Entries: ...", sizes, compression, then a rule (stdout).
void PrintWorkloadShape(const Options& options);
// The local time as ctime() spells it, without the newline.
std::string DateString();

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_ENVIRONMENT_H_
