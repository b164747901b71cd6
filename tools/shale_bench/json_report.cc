#include "json_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace shale::bench {

namespace {

void AppendField(std::string* out, std::string_view key, const std::string& json_value,
                 bool* first) {
  if (!*first) *out += ", ";
  *first = false;
  *out += JsonString(key);
  *out += ": ";
  *out += json_value;
}

std::string ThroughputJson(const std::vector<ThroughputSample>& samples) {
  std::string out = "[";
  for (size_t i = 0; i < samples.size(); i++) {
    if (i > 0) out += ", ";
    out += "{\"seconds\": " + JsonNumber(samples[i].seconds) +
           ", \"ops_per_sec\": " + JsonNumber(samples[i].ops_per_sec) + "}";
  }
  return out + "]";
}

std::string ResultJson(const BenchResult& r) {
  std::string out = "{";
  bool first = true;
  auto num = [&](std::string_view key, double v) { AppendField(&out, key, JsonNumber(v), &first); };
  AppendField(&out, "name", JsonString(r.name), &first);
  num("threads", r.threads);
  num("ops", static_cast<double>(r.ops));
  num("seconds", r.seconds);
  num("micros_per_op", r.micros_per_op);
  num("ops_per_sec", r.ops_per_sec);
  num("mb_per_sec", r.mb_per_sec);
  num("p50_micros", r.p50_micros);
  num("p99_micros", r.p99_micros);
  num("p999_micros", r.p999_micros);
  num("write_amplification", r.write_amplification);
  num("stall_seconds", r.stall_seconds);
  num("peak_rss_bytes", static_cast<double>(r.peak_rss_bytes));
  AppendField(&out, "message", JsonString(r.message), &first);
  AppendField(&out, "throughput", ThroughputJson(r.throughput), &first);
  if (!r.details_json.empty()) AppendField(&out, "details", r.details_json, &first);
  return out + "}";
}

}  // namespace

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u >= 0x7f) {
      // Escaped byte by byte, so that any input (even invalid UTF-8) gives valid JSON.
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void JsonReport::SetString(std::string key, std::string value) {
  fields_.emplace_back(std::move(key), JsonString(value));
}

void JsonReport::SetNumber(std::string key, double value) {
  fields_.emplace_back(std::move(key), JsonNumber(value));
}

std::string JsonReport::ToJson() const {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : fields_) AppendField(&out, key, value, &first);
  std::string list = "[";
  for (size_t i = 0; i < results_.size(); i++) {
    list += i == 0 ? "\n  " : ",\n  ";
    list += ResultJson(results_[i]);
  }
  list += "]";
  AppendField(&out, "benchmarks", list, &first);
  return out + "}\n";
}

Status JsonReport::WriteTo(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  f << ToJson();
  f.close();
  if (!f) return Status::IOError(path, "cannot write the JSON report");
  return Status::OK();
}

}  // namespace shale::bench
