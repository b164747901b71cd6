// dump-manifest DIR [--hex]: every version edit of the MANIFEST that CURRENT names, in order,
// then the live table files per level that they add up to.
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

// Live files: level -> file number -> metadata.
using LiveFiles = std::map<int, std::map<uint64_t, FileMetaData>>;

void Apply(const VersionEdit& edit, LiveFiles* live) {
  for (const auto& [level, number] : edit.deleted_files()) (*live)[level].erase(number);
  for (const auto& [level, f] : edit.new_files()) (*live)[level][f.number] = f;
}

void PrintLive(const LiveFiles& live, bool hex) {
  std::printf("Live files:\n");
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
  LiveFiles live;
  for (uint64_t i = 0; reader.ReadRecord(&record, &scratch); i++) {
    VersionEdit edit;
    s = edit.DecodeFrom(record);
    std::printf("--- edit %" PRIu64 " at offset %" PRIu64 " (%zu bytes)\n", i,
                reader.LastRecordOffset(), record.size());
    if (!s.ok()) return Status::Corruption(path, absl::StrCat("edit ", i, ": ", s.ToString()));
    std::printf("%s\n", edit.DebugString().c_str());
    Apply(edit, &live);
  }
  if (!reader.status().ok()) return reader.status();
  PrintLive(live, hex);
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
