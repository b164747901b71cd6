#include "admin_steps.h"

#include <cstdio>
#include <string_view>

namespace shale::bench {

namespace {

Status PrintProperty(DB* db, std::string_view property) {
  std::string value;
  if (!db->GetProperty(property, &value)) value = "(failed)";
  std::fprintf(stdout, "\n%s\n", value.c_str());
  return Status::OK();
}

}  // namespace

Status FlushStep(DB* db, const std::string& db_path) {
  Status s = db->Flush(FlushOptions());
  if (s.ok()) std::fprintf(stdout, "flush memtable\n");
  return s;
}

Status WaitForCompactionStep(DB* db, const std::string& db_path) {
  std::fprintf(stdout, "waitforcompaction(%s): started\n", db_path.c_str());
  FlushOptions options;
  options.wait = true;
  Status s = db->Flush(options);
  if (s.ok()) std::fprintf(stdout, "waitforcompaction(%s): finished\n", db_path.c_str());
  return s;
}

Status StatsStep(DB* db, const std::string& db_path) {
  return PrintProperty(db, DB::Properties::kStats);
}

Status LevelStatsStep(DB* db, const std::string& db_path) {
  return PrintProperty(db, DB::Properties::kLevelStats);
}

Status SstablesStep(DB* db, const std::string& db_path) {
  return PrintProperty(db, DB::Properties::kSSTables);
}

}  // namespace shale::bench
