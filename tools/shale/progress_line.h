// ProgressLine: how the `shale` CLI shows the progress of a long command (compact, verify):
// one line on stderr, rewritten in place, while the work goes on, ended by the final report;
// only when stderr is a terminal, so scripts and pipes see just the command's output.
//
// Thread-safety: the callback it makes is called as shale/progress.h says (one report at a
// time); it writes to stderr only.
#ifndef SHALE_TOOLS_SHALE_PROGRESS_LINE_H_
#define SHALE_TOOLS_SHALE_PROGRESS_LINE_H_

#include <string>

#include "shale/progress.h"

namespace shale::cli {

// A callback drawing the progress line on stderr when stderr is a terminal; empty (no
// reports asked for) otherwise.
ProgressCallback StderrProgressLine();

// The line for one report, e.g.
//   "compact_range: 45.2% of 2.6 GiB, 120.0 MiB/s, 0:00:12 left"
//   "bulk_load (write_tables): 10.0% of 1.0 GiB, ..."
//   "verify (scan): 1200000 of ~3000000 entries, 2.0 s"         (no byte total)
//   "compact_range: done, 2.6 GiB in 21.3 s"                     (the final report)
std::string FormatProgress(const Progress& p);

// "512 B", "1.5 KiB", "2.6 GiB": bytes in binary units with one decimal.
std::string FormatBytes(double bytes);

// "0:00:12", "12:03:45": seconds as h:mm:ss.
std::string FormatDuration(double seconds);

}  // namespace shale::cli

#endif  // SHALE_TOOLS_SHALE_PROGRESS_LINE_H_
