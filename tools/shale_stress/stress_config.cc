// See stress_config.h.
#include "stress_config.h"

#include <charconv>

namespace shale::stress {

const char* OpName(OpType op) {
  static constexpr const char* kNames[kNumOpTypes] = {
      "put", "delete", "merge", "delete_range", "batch", "ingest",
      "get", "snapshot", "iterate", "flush", "compact_range"};
  return kNames[static_cast<int>(op)];
}

Status ParseOpMix(std::string_view text, OpWeights* weights) {
  OpWeights w{};
  uint64_t total = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    int op = 0;
    while (op < kNumOpTypes && name != OpName(static_cast<OpType>(op))) ++op;
    uint32_t weight = 0;
    const std::string_view num = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), weight);
    if (op == kNumOpTypes || num.empty() || ec != std::errc() || end != num.data() + num.size()) {
      return Status::InvalidArgument("--ops_mix: bad item '" + std::string(item) +
                                     "' (want name=weight, names put, delete, merge, "
                                     "delete_range, batch, ingest, get, snapshot, iterate, "
                                     "flush, compact_range)");
    }
    w[op] = weight;
    total += weight;
  }
  if (total == 0) return Status::InvalidArgument("--ops_mix: every weight is 0");
  *weights = w;
  return Status::OK();
}

}  // namespace shale::stress
