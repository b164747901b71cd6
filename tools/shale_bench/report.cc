#include "report.h"

#include <algorithm>
#include <cinttypes>
#include <fstream>
#include <sstream>

namespace shale::bench {

BenchResult Summarize(std::string_view name, int threads, const ThreadStats& merged) {
  BenchResult r;
  r.name.assign(name);
  r.threads = threads;
  r.ops = std::max<uint64_t>(merged.done(), 1);
  r.bytes = merged.bytes();
  // A clock tick of zero would make every rate infinite.
  r.seconds = std::max(merged.ElapsedSeconds(), 1e-6);
  r.micros_per_op = merged.ThreadSeconds() * 1e6 / static_cast<double>(r.ops);
  r.ops_per_sec = static_cast<double>(r.ops) / r.seconds;
  r.mb_per_sec = static_cast<double>(r.bytes) / 1048576.0 / r.seconds;
  r.message = merged.message();
  const Histogram all = merged.AllLatencies();
  if (all.Count() > 0) {
    r.p50_micros = all.Percentile(50);
    r.p99_micros = all.Percentile(99);
    r.p999_micros = all.Percentile(99.9);
  }
  return r;
}

std::string FormatReportLine(const BenchResult& r) {
  std::string extra;
  if (r.bytes > 0) {
    char rate[64];
    std::snprintf(rate, sizeof(rate), "%6.1f MB/s", r.mb_per_sec);
    extra = rate;
  }
  if (!r.message.empty()) {
    if (!extra.empty()) extra += ' ';
    extra += r.message;
  }
  char line[256];
  std::snprintf(line, sizeof(line),
                "%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %" PRIu64 " operations;",
                r.name.c_str(), r.micros_per_op, static_cast<long>(r.ops_per_sec), r.seconds,
                r.ops);
  std::string out = line;
  if (!extra.empty()) out += " " + extra;
  out += '\n';
  return out;
}

std::string FormatHistograms(const ThreadStats& merged) {
  std::string out;
  for (const auto& [type, h] : merged.histograms()) {
    out += "Microseconds per ";
    out += OpTypeName(type);
    out += ":\n";
    out += h.ToString();
    out += '\n';
  }
  return out;
}

uint64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace shale::bench
