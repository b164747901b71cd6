// verify, compact, stats and options: maintenance through the public API (verify checks every
// block of the live table files with DB::VerifyChecksum, then reads every key of every column
// family; compact and stats work on one family, --column_family, default "default").
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/progress_reporter.h"
#include "commands.h"
#include "db_files.h"
#include "progress_line.h"

namespace shale::cli {

namespace {

// Seconds between two redraws of the progress line.
constexpr double kProgressInterval = 0.5;

// Splits "a=1;b={x=1;y=2};c=3" at the semicolons outside braces.
std::vector<std::string> SplitTopLevel(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (const char c : s) {
    if (c == '{') depth++;
    if (c == '}') depth--;
    if (c == ';' && depth == 0) {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

// Verifies the blocks of every live table file through DB::VerifyChecksum; counts them in
// *tables. Shows its progress (stage "tables", by file bytes) on the progress line.
Status VerifyTables(DB* db, uint64_t* tables) {
  const ProgressCallback line = StderrProgressLine();
  VerifyChecksumOptions options;
  options.read_options.fill_cache = false;
  // The final report always comes (it gives the count); the periodic ones only for the line.
  options.progress_interval_seconds =
      line ? kProgressInterval : std::numeric_limits<double>::infinity();
  options.progress = [&line, tables](const Progress& p) {
    if (p.finished) *tables = p.entries_done;
    if (!line) return;
    Progress staged = p;
    staged.stage = "tables";
    line(staged);
  };
  return db->VerifyChecksum(options);
}

// Reads every key and value of every column family with checksums verified; counts them in
// *keys. Reports progress by entries against the DB's estimate of its keys (stage "scan").
Status VerifyScan(DB* db, const std::vector<ColumnFamilyHandle*>& families, uint64_t* keys) {
  ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = false;
  uint64_t estimated_keys = 0;
  for (ColumnFamilyHandle* family : families) {
    uint64_t n = 0;
    if (db->GetIntProperty(family, DB::Properties::kEstimateNumKeys, &n)) estimated_keys += n;
  }
  ProgressReporter progress("verify", StderrProgressLine(), kProgressInterval);
  progress.SetStage("scan");
  progress.SetTotals(0, estimated_keys);
  ProgressBatch batch(&progress);
  Status s;
  for (size_t i = 0; s.ok() && i < families.size(); i++) {
    std::unique_ptr<Iterator> it = db->NewIterator(options, families[i]);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      (*keys)++;
      batch.Add(it->key().size() + it->value().size());
    }
    s = it->status();
  }
  batch.Flush();
  return s;
}

}  // namespace

int VerifyCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  uint64_t tables = 0, keys = 0;
  OpenedDb db;
  Status s = OpenExisting(dir, &db);
  if (s.ok()) s = VerifyTables(db.db(), &tables);
  if (s.ok()) s = VerifyScan(db.db(), db.families(), &keys);
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("verify", s);
  std::printf("OK: %llu table files and %llu keys verified\n",
              static_cast<unsigned long long>(tables), static_cast<unsigned long long>(keys));
  return kExitOk;
}

int RepairCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  // Each family with the options of the latest OPTIONS file; the default family's for any
  // other family found (the defaults when there is no OPTIONS file).
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  Status s = LoadLatestOptions(dir, &db_options, &families);
  if (!s.ok()) return ReportError("repair", s);
  const ColumnFamilyOptions unknown = FamilyOptions(families, kDefaultColumnFamilyName);
  bool has_default = false;
  for (const ColumnFamilyDescriptor& d : families) {
    has_default = has_default || d.name == kDefaultColumnFamilyName;
  }
  if (!has_default) families.emplace_back(kDefaultColumnFamilyName, unknown);
  s = RepairDB(dir, db_options, families, unknown);
  if (!s.ok()) return ReportError("repair", s);
  std::printf("OK: repaired (see %s/LOG; files that could not be used are in %s/lost)\n",
              dir.c_str(), dir.c_str());
  return kExitOk;
}

int CompactCommand(const CliArgs& args) {
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  Status s = OpenWithFamily(args, &db, &family);
  CompactRangeOptions options;
  options.progress = StderrProgressLine();
  options.progress_interval_seconds = kProgressInterval;
  if (s.ok()) s = db.db()->CompactRange(options, family, nullptr, nullptr);
  Status c = db.Close();
  if (s.ok()) s = c;
  if (!s.ok()) return ReportError("compact", s);
  std::printf("OK\n");
  return kExitOk;
}

int StatsCommand(const CliArgs& args) {
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  Status s = OpenWithFamily(args, &db, &family, /*read_only=*/true);
  if (!s.ok()) return ReportError("stats", s);
  std::printf("** Column family %s **\n", family->GetName().c_str());
  for (std::string_view property : {DB::Properties::kStats, DB::Properties::kLevelStats}) {
    std::string value;
    if (!db.db()->GetProperty(family, property, &value)) value = "(not available)";
    std::printf("%s\n", value.c_str());
  }
  // The compaction debt as numbers (shale.stats has them in its "Compaction debt:" line).
  std::printf("** Compaction debt **\n");
  // The rates are measured from the compactions (and flushes) timed since this Open: a DB just
  // opened here has none, and 0 then means unknown, not "no compaction possible".
  for (std::string_view property :
       {DB::Properties::kEstimatePendingCompactionBytes, DB::Properties::kCompactionRate,
        DB::Properties::kEstimateCompactionSecondsLeft, DB::Properties::kSustainableWriteRate}) {
    uint64_t value = 0;
    const bool known = db.db()->GetIntProperty(family, property, &value) &&
                       (value > 0 || (property != DB::Properties::kCompactionRate &&
                                      property != DB::Properties::kSustainableWriteRate));
    std::printf("%.*s: %s\n", static_cast<int>(property.size()), property.data(),
                known ? std::to_string(value).c_str()
                      : "unknown (measured while the DB runs; nothing timed since this open)");
  }
  s = db.Close();
  return s.ok() ? kExitOk : ReportError("stats", s);
}

int OptionsCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  const std::string name = args.Get(kColumnFamilyOption, kDefaultColumnFamilyName);
  std::string path;
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  std::vector<std::string> warnings;
  Status s = CheckIsDatabase(dir);
  if (s.ok()) s = LatestOptionsFile(dir, &path);
  if (s.ok()) {
    s = LoadOptionsFromFile(db_options.file_system.get(), path, &db_options, &families,
                            &warnings);
  }
  const ColumnFamilyDescriptor* family = nullptr;
  for (const ColumnFamilyDescriptor& d : families) {
    if (d.name == name) family = &d;
  }
  if (s.ok() && family == nullptr) {
    s = Status::InvalidArgument("--column_family", "the OPTIONS file has no column family '" +
                                                       name + "'");
  }
  if (!s.ok()) return ReportError("options", s);
  const Options options(db_options, family->options);
  std::printf("# %s\n", path.c_str());
  for (const std::string& w : warnings) std::printf("# warning: %s\n", w.c_str());
  for (const std::string& line : SplitTopLevel(GetStringFromOptions(options))) {
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

}  // namespace shale::cli
