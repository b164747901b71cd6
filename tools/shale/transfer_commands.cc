// ingest, write-sst and checkpoint: moving data into, out of and between databases through the
// public API (DB::IngestExternalFile, SstFileWriter, Checkpoint). ingest and write-sst work on
// one column family (--column_family, default "default"); a checkpoint holds them all. Errors
// from the engine are printed as they are.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "db_files.h"
#include "progress_line.h"
#include "shale/checkpoint.h"
#include "shale/sst_file_writer.h"

namespace shale::cli {

namespace {

// OK when every file exists; otherwise NotFound naming the first missing one.
Status CheckFilesExist(const std::vector<std::string>& files) {
  const std::shared_ptr<FileSystem> fs = FileSystem::Default();
  for (const std::string& file : files) {
    if (!fs->FileExists(file).ok()) return Status::NotFound(file, "no such file");
  }
  return Status::OK();
}

// The ingestion options the switches ask for (RocksDB's defaults otherwise).
IngestExternalFileOptions IngestOptionsFrom(const CliArgs& args) {
  IngestExternalFileOptions options;
  options.move_files = args.Has("move");
  options.ingest_behind = args.Has("ingest_behind");
  options.verify_checksums_before_ingest = args.Has("verify_checksums");
  options.allow_global_seqno = !args.Has("no_allow_global_seqno");
  options.allow_blocking_flush = !args.Has("no_allow_blocking_flush");
  options.progress = StderrProgressLine();
  options.progress_interval_seconds = 0.5;
  return options;
}

// Closes *db (if open) and returns the first error of `s` and the close.
Status CloseAfter(OpenedDb* db, Status s) {
  Status c = db->Close();
  return s.ok() ? c : s;
}

// Writes the entries of `family` in [from, to) (to empty: no upper bound) to `file` with the
// family's table options, compression and comparator; counts them.
Status WriteRange(DB* db, ColumnFamilyHandle* family, const std::string& from,
                  const std::string* to, const std::string& file, uint64_t* entries) {
  const Options options = db->GetOptions(family);
  SstFileWriter writer(options.table_options, options.compression, options.comparator);
  Status s = writer.Open(file);
  if (!s.ok()) return s;
  const std::string_view upper = to != nullptr ? std::string_view(*to) : std::string_view();
  ReadOptions read_options;
  if (to != nullptr) read_options.iterate_upper_bound = &upper;
  std::unique_ptr<Iterator> it = db->NewIterator(read_options, family);
  for (it->Seek(from); s.ok() && it->Valid(); it->Next()) {
    s = writer.Put(it->key(), it->value());
    (*entries)++;
  }
  if (s.ok()) s = it->status();
  if (s.ok() && *entries == 0) return Status::InvalidArgument(file, "no keys in the range");
  if (s.ok()) s = writer.Finish();
  return s;
}

}  // namespace

int IngestCommand(const CliArgs& args) {
  const std::vector<std::string> files(args.positional().begin() + 1, args.positional().end());
  Status s = CheckIsDatabase(args.positional()[0]);
  if (s.ok()) s = CheckFilesExist(files);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family);
  if (s.ok()) s = db.db()->IngestExternalFile(family, files, IngestOptionsFrom(args));
  s = CloseAfter(&db, s);
  if (!s.ok()) return ReportError("ingest", s);
  std::printf("OK: %zu files ingested\n", files.size());
  return kExitOk;
}

int WriteSstCommand(const CliArgs& args) {
  std::string from, to;
  Status s = OptionBytes(args, "from", &from);
  if (s.ok()) s = OptionBytes(args, "to", &to);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family);
  uint64_t entries = 0;
  const std::string& file = args.positional()[1];
  if (s.ok()) {
    s = WriteRange(db.db(), family, from, args.Has("to") ? &to : nullptr, file, &entries);
  }
  s = CloseAfter(&db, s);
  if (!s.ok()) return ReportError("write-sst", s);
  std::printf("OK: %llu entries written to %s\n", static_cast<unsigned long long>(entries),
              file.c_str());
  return kExitOk;
}

int CheckpointCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  const std::string& dest = args.positional()[1];
  OpenedDb db;
  Status s = OpenExisting(dir, &db);
  std::unique_ptr<Checkpoint> checkpoint;
  if (s.ok()) s = Checkpoint::Create(db.db(), &checkpoint);
  CheckpointOptions options;
  options.progress = StderrProgressLine();
  options.progress_interval_seconds = 0.5;
  if (s.ok()) s = checkpoint->CreateCheckpoint(dest, options);
  checkpoint.reset();
  s = CloseAfter(&db, s);
  if (!s.ok()) return ReportError("checkpoint", s);
  std::printf("OK: checkpoint of %s in %s\n", dir.c_str(), dest.c_str());
  return kExitOk;
}

}  // namespace shale::cli
