// PostingListRun's accounting and the reader's report (posting_list.h). The threads' loops are
// in workloads_posting.cc.
#include "posting_list.h"

#include <cinttypes>
#include <cstdio>
#include <limits>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "flags.h"
#include "json_report.h"
#include "shale/sorted_set64.h"
#include "thread_stats.h"

namespace shale::bench {

namespace {

constexpr uint64_t kNoEnd = std::numeric_limits<uint64_t>::max();

// 1000 -> "1k", 2000000 -> "2M", 1500 -> "1500".
std::string ShortCount(uint64_t n) {
  if (n >= 1000000 && n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

// SplitMix64's finalizer: a bijection of the 64-bit integers that scatters neighbours.
uint64_t Scatter(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string Micros(const Histogram& h, double v) {
  if (h.Count() == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

}  // namespace

PostingListConfig PostingListConfig::FromFlags() {
  PostingListConfig c;
  c.lists = static_cast<uint64_t>(absl::GetFlag(FLAGS_posting_lists));
  c.zipf_theta = absl::GetFlag(FLAGS_zipf_theta);
  c.target_ids = static_cast<uint64_t>(absl::GetFlag(FLAGS_posting_target_ids));
  c.target_gets = static_cast<uint64_t>(absl::GetFlag(FLAGS_posting_target_gets));
  c.max_hold_seconds = absl::GetFlag(FLAGS_posting_max_hold_seconds);
  c.random_ids = absl::GetFlag(FLAGS_posting_ids) == "random";
  c.writers = absl::GetFlag(FLAGS_threads);
  return c;
}

std::vector<SizeBucket> SizeBuckets(uint64_t target_ids) {
  std::vector<uint64_t> lows = {0};
  for (uint64_t b = 1000; b < target_ids; b *= 10) lows.push_back(b);
  if (target_ids > 0) lows.push_back(target_ids);
  std::vector<SizeBucket> buckets;
  for (size_t i = 0; i < lows.size(); i++) {
    SizeBucket b;
    b.min_ids = lows[i];
    b.max_ids = i + 1 < lows.size() ? lows[i + 1] : kNoEnd;
    if (i == 0) {
      b.label = absl::StrCat("<", ShortCount(b.max_ids));
    } else if (b.max_ids == kNoEnd) {
      b.label = absl::StrCat(">=", ShortCount(b.min_ids));
    } else {
      b.label = absl::StrCat(ShortCount(b.min_ids), "-", ShortCount(b.max_ids));
    }
    buckets.push_back(std::move(b));
  }
  return buckets;
}

int SortedSet64IndexInterval(const MergeOperator* op) {
  if (op == nullptr || std::string_view(op->Name()) != "sortedset64") {
    return kSortedSet64DefaultIndexInterval;
  }
  const std::string id = op->GetId();
  const size_t colon = id.find(':');
  int interval = kSortedSet64DefaultIndexInterval;
  if (colon != std::string::npos &&
      !absl::SimpleAtoi(absl::string_view(id).substr(colon + 1), &interval)) {
    interval = kSortedSet64DefaultIndexInterval;
  }
  return interval;
}

PostingListRun::PostingListRun(const PostingListConfig& config)
    : config_(config),
      zipf_(config.lists, config.zipf_theta),
      buckets_(SizeBuckets(config.target_ids)),
      writers_running_(config.writers),
      crossings_(buckets_.size()),
      get_micros_(buckets_.size()),
      locks_(std::make_unique<absl::Mutex[]>(kLocks)) {}

uint64_t PostingListRun::IdOf(int writer, uint64_t i) const {
  const uint64_t n = i * static_cast<uint64_t>(config_.writers) + static_cast<uint64_t>(writer);
  return config_.random_ids ? Scatter(n) : n;
}

void PostingListRun::NoteStart() {
  bool expected = false;
  if (started_.compare_exchange_strong(expected, true)) {
    crossings_[0] = Crossing{NowMicros(), 0, true};
  }
}

void PostingListRun::CountAdd(uint64_t list) {
  const uint64_t total = total_adds_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (list != 0) return;
  const uint64_t ids = hottest_adds_.fetch_add(1, std::memory_order_relaxed) + 1;
  for (size_t b = 1; b < buckets_.size(); b++) {
    // Exactly one add takes the hottest list to a bucket's first size.
    if (ids == buckets_[b].min_ids) crossings_[b] = Crossing{NowMicros(), total, true};
  }
  if (ids == config_.target_ids) target_reached_micros_.store(NowMicros());
}

bool PostingListRun::Done() const {
  if (hottest_adds_.load(std::memory_order_relaxed) < config_.target_ids) return false;
  if (target_gets_done_.load(std::memory_order_relaxed) >= config_.target_gets) return true;
  const uint64_t reached = target_reached_micros_.load();
  return reached != 0 &&
         NowMicros() - reached >= static_cast<uint64_t>(config_.max_hold_seconds) * 1000000;
}

void PostingListRun::WriterDone() {
  if (writers_running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    end_ = Crossing{NowMicros(), total_adds_.load(), true};
  }
}

size_t PostingListRun::BucketOf(uint64_t ids) const {
  size_t b = 0;
  while (b + 1 < buckets_.size() && ids >= buckets_[b + 1].min_ids) b++;
  return b;
}

void PostingListRun::RecordGet(uint64_t ids, double micros) {
  const size_t b = BucketOf(ids);
  get_micros_[b].Add(micros);
  if (ids >= config_.target_ids) target_gets_done_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<BucketFigures> PostingListRun::Figures() const {
  std::vector<BucketFigures> out;
  for (size_t b = 0; b < buckets_.size(); b++) {
    BucketFigures f;
    f.bucket = buckets_[b];
    f.get_micros = get_micros_[b];
    const Crossing& from = crossings_[b];
    const Crossing& to = b + 1 < buckets_.size() && crossings_[b + 1].reached ? crossings_[b + 1]
                                                                                : end_;
    if (from.reached && to.reached && to.micros > from.micros) {
      f.adds_per_sec = static_cast<double>(to.total_adds - from.total_adds) * 1e6 /
                       static_cast<double>(to.micros - from.micros);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string FormatPostingReport(std::string_view name, const PostingListRun& run,
                                uint64_t hottest_ids) {
  char line[256];
  std::snprintf(line, sizeof(line), "%-12s : hottest list: key 0, %.2f%% of the adds, %" PRIu64
                " ids\n", std::string(name).c_str(), run.zipf().Probability(0) * 100, hottest_ids);
  std::string out = line;
  out += "Get of the hottest list while the writers go on, by its size (microseconds; adds/s: "
         "all writers' rate meanwhile):\n";
  std::snprintf(line, sizeof(line), "  %-12s %10s %10s %10s %10s %11s\n", "ids", "gets", "P50",
                "P99", "max", "adds/s");
  out += line;
  for (const BucketFigures& f : run.Figures()) {
    const Histogram& h = f.get_micros;
    std::snprintf(line, sizeof(line), "  %-12s %10" PRIu64 " %10s %10s %10s %11.0f\n",
                  f.bucket.label.c_str(), h.Count(), Micros(h, h.Percentile(50)).c_str(),
                  Micros(h, h.Percentile(99)).c_str(), Micros(h, h.Max()).c_str(),
                  f.adds_per_sec);
    out += line;
  }
  return out;
}

std::string PostingDetailsJson(const PostingListRun& run, uint64_t hottest_ids) {
  const PostingListConfig& c = run.config();
  auto num = [](double v) { return JsonNumber(v); };
  std::string out = "{\"lists\": " + num(static_cast<double>(c.lists)) +
                    ", \"zipf_theta\": " + num(c.zipf_theta) + ", \"posting_ids\": " +
                    JsonString(c.random_ids ? "random" : "sequential") +
                    ", \"hottest_share\": " + num(run.zipf().Probability(0)) +
                    ", \"target_ids\": " + num(static_cast<double>(c.target_ids)) +
                    ", \"hottest_ids\": " + num(static_cast<double>(hottest_ids)) +
                    ", \"adds\": " + num(static_cast<double>(run.total_adds())) +
                    ", \"hottest_get\": [";
  bool first = true;
  for (const BucketFigures& f : run.Figures()) {
    const Histogram& h = f.get_micros;
    out += first ? "" : ", ";
    first = false;
    out += "{\"bucket\": " + JsonString(f.bucket.label) +
           ", \"min_ids\": " + num(static_cast<double>(f.bucket.min_ids));
    if (f.bucket.max_ids != kNoEnd) {
      out += ", \"max_ids\": " + num(static_cast<double>(f.bucket.max_ids));
    }
    out += ", \"gets\": " + num(static_cast<double>(h.Count())) +
           ", \"p50_micros\": " + num(h.Percentile(50)) +
           ", \"p99_micros\": " + num(h.Percentile(99)) + ", \"max_micros\": " + num(h.Max()) +
           ", \"adds_per_sec\": " + num(f.adds_per_sec) + "}";
  }
  return out + "]}";
}

Status CheckHottestList(const WorkloadEnv& env, const PostingListRun& run, uint64_t* ids) {
  KeyFormatter keys(env.key_size);
  std::string value;
  *ids = 0;
  Status s = env.db->Get(env.read_options, env.FamilyOf(0), keys.Format(0), &value);
  if (s.IsNotFound()) {
    s = Status::OK();
  } else if (s.ok()) {
    s = SortedSet64Count(value, ids);
  }
  if (!s.ok()) return s;
  if (*ids != run.hottest_adds()) {
    return Status::Corruption("the hottest list",
                              "holds " + std::to_string(*ids) + " ids after " +
                                  std::to_string(run.hottest_adds()) + " adds of distinct ids");
  }
  return Status::OK();
}

}  // namespace shale::bench
