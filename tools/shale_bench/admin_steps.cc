#include "admin_steps.h"

#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

namespace shale::bench {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);
// A compaction due for this long with none running means the DB cannot start one.
constexpr auto kIdleLimit = std::chrono::seconds(10);

// The families a step acts on: `families`, or the default one when it is empty.
std::vector<ColumnFamilyHandle*> Targets(DB* db, const std::vector<ColumnFamilyHandle*>& families) {
  return families.empty() ? std::vector<ColumnFamilyHandle*>{db->DefaultColumnFamily()}
                          : families;
}

Status PrintProperty(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                     std::string_view property) {
  for (ColumnFamilyHandle* family : Targets(db, families)) {
    std::string value;
    if (!db->GetProperty(family, property, &value)) value = "(failed)";
    if (families.size() > 1) {
      std::fprintf(stdout, "\ncolumn family %s:", family->GetName().c_str());
    }
    std::fprintf(stdout, "\n%s\n", value.c_str());
  }
  return Status::OK();
}

Status ReadIntProperty(DB* db, ColumnFamilyHandle* family, std::string_view property,
                       uint64_t* value) {
  if (db->GetIntProperty(family, property, value)) return Status::OK();
  return Status::NotSupported("waitforcompaction", "cannot read " + std::string(property));
}

// The "Background error: ..." line of shale.stats, or "" when it says OK (or is absent).
std::string BackgroundErrorLine(DB* db) {
  std::string stats;
  if (!db->GetProperty(DB::Properties::kStats, &stats)) return "";
  constexpr std::string_view kPrefix = "Background error: ";
  const size_t at = stats.find(kPrefix);
  if (at == std::string::npos) return "";
  const size_t end = stats.find('\n', at);
  std::string line = stats.substr(at, end == std::string::npos ? end : end - at);
  return line == std::string(kPrefix) + "OK" ? "" : line;
}

// Polls until compaction is done in every family of `targets`. *gave_up is set when one stays
// due with none running.
Status PollUntilCompacted(DB* db, const std::vector<ColumnFamilyHandle*>& targets,
                          bool* gave_up) {
  *gave_up = false;
  auto idle_since = std::chrono::steady_clock::now();
  while (true) {
    uint64_t pending = 0, running = 0;
    Status s;
    for (size_t i = 0; s.ok() && i < targets.size() && pending == 0; i++) {
      s = ReadIntProperty(db, targets[i], DB::Properties::kCompactionPending, &pending);
    }
    if (s.ok()) {
      s = ReadIntProperty(db, targets[0], DB::Properties::kNumRunningCompactions, &running);
    }
    if (!s.ok()) return s;
    if (pending == 0 && running == 0) return Status::OK();
    const auto now = std::chrono::steady_clock::now();
    if (running > 0) idle_since = now;
    if (now - idle_since >= kIdleLimit) {
      const std::string error = BackgroundErrorLine(db);
      if (!error.empty()) return Status::IOError("waitforcompaction", error);
      *gave_up = true;
      return Status::OK();
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Status FlushStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                 const std::string& db_path) {
  Status s = db->Flush(FlushOptions(), Targets(db, families));
  if (s.ok()) std::fprintf(stdout, "flush memtable\n");
  return s;
}

Status WaitForCompactionStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                             const std::string& db_path) {
  std::fprintf(stdout, "waitforcompaction(%s): started\n", db_path.c_str());
  std::fflush(stdout);
  const std::vector<ColumnFamilyHandle*> targets = Targets(db, families);
  const auto start = std::chrono::steady_clock::now();
  FlushOptions options;
  options.wait = true;
  Status s = db->Flush(options, targets);
  // The compaction debt once writing has stopped (the memtables flushed): what the DB
  // estimates the compactions to come will take (every family's debt, at the DB's rate), to
  // compare with the time they do take.
  const auto debt_at = std::chrono::steady_clock::now();
  uint64_t debt_bytes = 0, debt_rate = 0;
  bool have_debt = s.ok() && db->GetIntProperty(DB::Properties::kCompactionRate, &debt_rate);
  for (ColumnFamilyHandle* family : targets) {
    uint64_t family_debt = 0;
    have_debt = have_debt &&
                db->GetIntProperty(family, DB::Properties::kEstimatePendingCompactionBytes,
                                   &family_debt);
    debt_bytes += family_debt;
  }
  bool gave_up = false;
  if (s.ok()) s = PollUntilCompacted(db, targets, &gave_up);
  if (!s.ok()) return s;
  const double done_at = UnixSeconds();
  const auto end = std::chrono::steady_clock::now();
  const double waited = std::chrono::duration<double>(end - start).count();
  if (gave_up) {
    std::fprintf(stdout,
                 "waitforcompaction(%s): a compaction stays due but none has run for %lld s; "
                 "not waiting any longer\n",
                 db_path.c_str(), static_cast<long long>(kIdleLimit.count()));
  }
  std::fprintf(stdout, "waitforcompaction(%s): waited %.3f seconds (done at unix time %.6f)\n",
               db_path.c_str(), waited, done_at);
  std::fprintf(stdout, "waitforcompaction(%s): finished\n", db_path.c_str());
  // After "finished": the three lines above keep their order for parsers.
  if (have_debt) {
    const double measured = std::chrono::duration<double>(end - debt_at).count();
    if (debt_rate > 0) {
      const double estimate = static_cast<double>(debt_bytes) / static_cast<double>(debt_rate);
      std::fprintf(stdout,
                   "waitforcompaction(%s): compaction debt at start %llu bytes at %.2f MB/s: "
                   "estimated %.3f s, took %.3f s (estimate/measured %.2f)\n",
                   db_path.c_str(), static_cast<unsigned long long>(debt_bytes),
                   static_cast<double>(debt_rate) / 1048576.0, estimate, measured,
                   measured > 0 ? estimate / measured : 0.0);
    } else {
      std::fprintf(stdout,
                   "waitforcompaction(%s): compaction debt at start %llu bytes, rate unknown; "
                   "took %.3f s\n",
                   db_path.c_str(), static_cast<unsigned long long>(debt_bytes), measured);
    }
  }
  return Status::OK();
}

Status StatsStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                 const std::string& db_path) {
  return PrintProperty(db, families, DB::Properties::kStats);
}

Status LevelStatsStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                      const std::string& db_path) {
  return PrintProperty(db, families, DB::Properties::kLevelStats);
}

Status SstablesStep(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                    const std::string& db_path) {
  return PrintProperty(db, families, DB::Properties::kSSTables);
}

}  // namespace shale::bench
