#include "progress_line.h"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace shale::cli {

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    unit++;
  }
  return unit == 0 ? absl::StrFormat("%.0f B", bytes) : absl::StrFormat("%.1f %s", bytes, kUnits[unit]);
}

std::string FormatDuration(double seconds) {
  const uint64_t s = seconds > 0 ? static_cast<uint64_t>(std::llround(seconds)) : 0;
  return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
}

std::string FormatProgress(const Progress& p) {
  std::string line = p.operation;
  if (p.stage[0] != '\0') absl::StrAppend(&line, " (", p.stage, ")");
  line += ": ";
  if (p.finished) {
    if (p.bytes_done > 0) {
      absl::StrAppend(&line, "done, ", FormatBytes(static_cast<double>(p.bytes_done)));
    } else {
      absl::StrAppend(&line, "done, ", p.entries_done, " entries");
    }
    absl::StrAppendFormat(&line, " in %.1f s", p.elapsed_seconds);
    return line;
  }
  if (p.bytes_total > 0) {
    absl::StrAppendFormat(&line, "%.1f%% of %s, %s/s", 100 * p.fraction(),
                          FormatBytes(static_cast<double>(p.bytes_total)),
                          FormatBytes(p.bytes_per_second));
  } else if (p.entries_total > 0) {
    absl::StrAppendFormat(&line, "%d of ~%d entries", p.entries_done, p.entries_total);
  } else {
    absl::StrAppendFormat(&line, "%d entries", p.entries_done);
  }
  if (p.eta_seconds >= 0) {
    absl::StrAppend(&line, ", ", FormatDuration(p.eta_seconds), " left");
  } else {
    absl::StrAppendFormat(&line, ", %.1f s", p.elapsed_seconds);
  }
  return line;
}

ProgressCallback StderrProgressLine() {
  if (isatty(STDERR_FILENO) == 0) return nullptr;
  return [](const Progress& p) {
    // \r and clear-to-end-of-line: the line is redrawn in place; the final one ends it.
    std::fprintf(stderr, "\r%s\x1b[K%s", FormatProgress(p).c_str(), p.finished ? "\n" : "");
    std::fflush(stderr);
  };
}

}  // namespace shale::cli
