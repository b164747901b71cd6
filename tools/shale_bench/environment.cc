#include "environment.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "flags.h"
#include "options_from_flags.h"

namespace shale::bench {

namespace {

// The value of a "name : value" line of /proc/cpuinfo.
std::string CpuInfoValue(const std::string& line) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos || colon + 2 > line.size()) return "";
  return line.substr(colon + 2);
}

}  // namespace

std::string DateString() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  ctime_r(&now, buf);
  std::string s = buf;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

void PrintEnvironment() {
  std::fprintf(stderr, "ShaleDB:    version %s\n", SHALE_VERSION_STRING);
  std::fprintf(stderr, "Date:       %s\n", DateString().c_str());
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, cache;
  int cpus = 0;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      cpus++;
      model = CpuInfoValue(line);
    } else if (line.rfind("cache size", 0) == 0) {
      cache = CpuInfoValue(line);
    }
  }
  if (cpus > 0) {
    std::fprintf(stderr, "CPU:        %d * %s\n", cpus, model.c_str());
    std::fprintf(stderr, "CPUCache:   %s\n", cache.c_str());
  }
}

void PrintWorkloadShape(const Options& options) {
  const int key_size = absl::GetFlag(FLAGS_key_size);
  const int value_size = absl::GetFlag(FLAGS_value_size);
  const double ratio = absl::GetFlag(FLAGS_compression_ratio);
  const double num = static_cast<double>(absl::GetFlag(FLAGS_num));
  std::fprintf(stdout, "Keys:       %d bytes each\n", key_size);
  std::fprintf(stdout, "Values:     %d bytes each (%d bytes after compression)\n", value_size,
               static_cast<int>(value_size * ratio + 0.5));
  std::fprintf(stdout, "Entries:    %lld\n", static_cast<long long>(num));
  std::fprintf(stdout, "RawSize:    %.1f MB (estimated)\n",
               (key_size + value_size) * num / 1048576.0);
  std::fprintf(stdout, "FileSize:   %.1f MB (estimated)\n",
               (key_size + value_size * ratio) * num / 1048576.0);
  std::fprintf(stdout, "Compression: %s\n",
               std::string(CompressionName(options.compression)).c_str());
  std::fprintf(stdout, "------------------------------------------------\n");
}

}  // namespace shale::bench
