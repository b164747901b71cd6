// verify, compact, stats and options: maintenance through the public API (verify also checks
// every table file's blocks directly).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/filename.h"
#include "commands.h"
#include "db_files.h"
#include "table_files.h"

namespace shale::cli {

namespace {

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

// Verifies the blocks of every table file in `dir`; counts them in *tables.
Status VerifyTables(const std::string& dir, uint64_t* tables) {
  std::vector<std::string> children;
  Status s = FileSystem::Default()->GetChildren(dir, &children);
  for (size_t i = 0; s.ok() && i < children.size(); i++) {
    uint64_t number = 0;
    FileType type;
    if (!ParseFileName(children[i], &number, &type) || type != FileType::kTableFile) continue;
    std::unique_ptr<TableFile> table;
    s = OpenTableFile(dir + "/" + children[i], &table);
    if (s.ok()) s = table->reader->VerifyChecksums();
    (*tables)++;
  }
  return s;
}

// Reads every key and value with checksums verified; counts them in *keys.
Status VerifyScan(DB* db, uint64_t* keys) {
  ReadOptions options;
  options.verify_checksums = true;
  options.fill_cache = false;
  std::unique_ptr<Iterator> it = db->NewIterator(options);
  for (it->SeekToFirst(); it->Valid(); it->Next()) (*keys)++;
  return it->status();
}

}  // namespace

int VerifyCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  uint64_t tables = 0, keys = 0;
  std::unique_ptr<DB> db;
  Status s = OpenExisting(dir, &db);
  if (s.ok()) s = VerifyTables(dir, &tables);
  if (s.ok()) s = VerifyScan(db.get(), &keys);
  if (s.ok()) s = db->Close();
  if (!s.ok()) return ReportError("verify", s);
  std::printf("OK: %llu table files and %llu keys verified\n",
              static_cast<unsigned long long>(tables), static_cast<unsigned long long>(keys));
  return kExitOk;
}

int CompactCommand(const CliArgs& args) {
  std::unique_ptr<DB> db;
  Status s = OpenExisting(args.positional()[0], &db);
  if (s.ok()) s = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  if (db != nullptr) {
    Status c = db->Close();
    if (s.ok()) s = c;
  }
  if (!s.ok()) return ReportError("compact", s);
  std::printf("OK\n");
  return kExitOk;
}

int StatsCommand(const CliArgs& args) {
  std::unique_ptr<DB> db;
  Status s = OpenExisting(args.positional()[0], &db);
  if (!s.ok()) return ReportError("stats", s);
  for (std::string_view property : {DB::Properties::kStats, DB::Properties::kLevelStats}) {
    std::string value;
    if (!db->GetProperty(property, &value)) value = "(not available)";
    std::printf("%s\n", value.c_str());
  }
  s = db->Close();
  return s.ok() ? kExitOk : ReportError("stats", s);
}

int OptionsCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  std::string path;
  Options options;
  std::vector<std::string> warnings;
  Status s = CheckIsDatabase(dir);
  if (s.ok()) s = LatestOptionsFile(dir, &path);
  if (s.ok()) s = LoadOptionsFromFile(options.file_system.get(), path, &options, &warnings);
  if (!s.ok()) return ReportError("options", s);
  std::printf("# %s\n", path.c_str());
  for (const std::string& w : warnings) std::printf("# warning: %s\n", w.c_str());
  for (const std::string& line : SplitTopLevel(GetStringFromOptions(options))) {
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

}  // namespace shale::cli
