// dump-manifest DIR [--hex]: every version edit of the MANIFEST that CURRENT names, in order
// (with a line for each column family an edit adds or drops), then the column families and the
// live table files per family and level that they add up to.
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "commands.h"
#include "db_files.h"
#include "version/version_edit.h"
#include "wal/log_reader.h"

namespace shale::cli {

namespace {

// Prints what the log reader drops.
class PrintingReporter final : public log::Reader::Reporter {
 public:
  void Corruption(size_t bytes, const Status& reason) override {
    std::printf("!! %zu bytes dropped: %s\n", bytes, reason.ToString().c_str());
  }
  void TornTail(size_t bytes, const Status& reason) override {
    std::printf("!! torn tail of %zu bytes: %s\n", bytes, reason.ToString().c_str());
  }
};

// The MANIFEST file name CURRENT holds ("MANIFEST-000005").
Status ReadCurrent(const std::string& dir, std::string* manifest) {
  std::unique_ptr<SequentialFile> file;
  const std::string current = CurrentFileName(dir);
  Status s = FileSystem::Default()->NewSequentialFile(current, &file);
  if (!s.ok()) return s;
  char buf[256];
  std::string_view data;
  s = file->Read(sizeof(buf), &data, buf);
  if (!s.ok()) return s;
  if (data.empty() || data.back() != '\n') {
    return Status::Corruption(current, "does not end with a newline");
  }
  manifest->assign(data.substr(0, data.size() - 1));
  uint64_t number = 0;
  FileType type;
  if (!ParseFileName(*manifest, &number, &type) || type != FileType::kDescriptorFile) {
    return Status::Corruption(current, "does not name a MANIFEST: '" + *manifest + "'");
  }
  return Status::OK();
}

// Live files of one column family: level -> file number -> metadata.
using LiveFiles = std::map<int, std::map<uint64_t, FileMetaData>>;

// A column family as the edits so far leave it.
struct Family {
  std::string name;
  bool dropped = false;
  LiveFiles live;
};

// Every family the MANIFEST has named, by id ("default", id 0, exists without an add).
using Families = std::map<uint32_t, Family>;

// Applies `edit` to its family (tag 9): an add names it, a drop marks it dropped, and its files
// are added and deleted. Prints a line for an add or a drop.
void Apply(const VersionEdit& edit, Families* families) {
  const uint32_t id = edit.column_family();
  Family& family = (*families)[id];
  if (edit.is_column_family_add()) {
    family.name = edit.column_family_name();
    family.dropped = false;
    std::printf("  => column family %u '%s' added\n", id,
                Printable(family.name, false).c_str());
  }
  if (edit.is_column_family_drop()) {
    family.dropped = true;
    std::printf("  => column family %u '%s' dropped\n", id,
                Printable(family.name, false).c_str());
  }
  for (const auto& [level, number] : edit.deleted_files()) family.live[level].erase(number);
  for (const auto& [level, f] : edit.new_files()) family.live[level][f.number] = f;
}

void PrintLive(const LiveFiles& live, bool hex) {
  for (const auto& [level, files] : live) {
    for (const auto& [number, f] : files) {
      ParsedInternalKey smallest, largest;
      const bool ok = ParseInternalKey(f.smallest, &smallest).ok() &&
                      ParseInternalKey(f.largest, &largest).ok();
      std::printf("  L%d #%06" PRIu64 " %10" PRIu64 " bytes %8" PRIu64
                  " entries ['%s' .. '%s']%s\n",
                  level, number, f.file_size, f.num_entries,
                  Printable(ok ? smallest.user_key : std::string_view(f.smallest), hex).c_str(),
                  Printable(ok ? largest.user_key : std::string_view(f.largest), hex).c_str(),
                  ok ? "" : " (unparsable keys)");
    }
  }
}

Status DumpManifest(const std::string& dir, bool hex) {
  std::string name;
  Status s = ReadCurrent(dir, &name);
  if (!s.ok()) return s;
  const std::string path = dir + "/" + name;
  std::unique_ptr<SequentialFile> file;
  s = FileSystem::Default()->NewSequentialFile(path, &file);
  if (!s.ok()) return s;
  std::printf("%s\n", path.c_str());
  PrintingReporter reporter;
  log::Reader reader(file.get(), &reporter, /*checksum=*/true, /*initial_offset=*/0,
                     log::WalRecoveryMode::kAbsoluteConsistency, name);
  std::string_view record;
  std::string scratch;
  Families families;
  families[0].name = std::string(kDefaultColumnFamilyName);
  for (uint64_t i = 0; reader.ReadRecord(&record, &scratch); i++) {
    VersionEdit edit;
    s = edit.DecodeFrom(record);
    std::printf("--- edit %" PRIu64 " at offset %" PRIu64 " (%zu bytes)\n", i,
                reader.LastRecordOffset(), record.size());
    if (!s.ok()) return Status::Corruption(path, absl::StrCat("edit ", i, ": ", s.ToString()));
    std::printf("%s\n", edit.DebugString().c_str());
    Apply(edit, &families);
  }
  if (!reader.status().ok()) return reader.status();
  std::printf("Column families:\n");
  for (const auto& [id, family] : families) {
    std::printf("  %u '%s'%s\n", id, Printable(family.name, false).c_str(),
                family.dropped ? " (dropped)" : "");
  }
  std::printf("Live files:\n");
  for (const auto& [id, family] : families) {
    if (family.dropped) continue;
    std::printf("column family %u '%s':\n", id, Printable(family.name, false).c_str());
    PrintLive(family.live, hex);
  }
  return Status::OK();
}

}  // namespace

int DumpManifestCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  Status s = CheckIsDatabase(dir);
  if (s.ok()) s = DumpManifest(dir, args.Has("hex"));
  return s.ok() ? kExitOk : ReportError("dump-manifest", s);
}

}  // namespace shale::cli
