// BulkLoader: Open, Add and the spill pipeline (loader_rep.h). Finish is in bulk_finish.cc.
#include "shale/bulk_loader.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/size_limits.h"
#include "bulk/loader_rep.h"
#include "bulk/run_cursor.h"
#include "compression/codec.h"
#include "fs/bulk_temp_dir.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

constexpr uint64_t kMinMemoryBudget = 64 << 10;

// The most descriptors the DB's table cache may hold open: its max_open_files when positive,
// but never more than half the RLIMIT_NOFILE soft limit (at least 16), or 4096 when that is
// unlimited; with -1 that half. Kept in step with the table cache's bound in db/db_impl.cc
// (TableCacheCapacity; TableFileDescriptors once the descriptor pool of finding 11 is in).
// Finish's automatic budget leaves them to the DB, so that a reader of the DB during the load
// still finds descriptors for its tables, and no more, so that a max_open_files above the
// limit does not shrink the merge to a fan-in of 2.
uint64_t TableCacheDescriptors(int db_max_open_files) {
  uint64_t share = 4096;
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    share = std::max<uint64_t>(limit.rlim_cur / 2, 16);
  }
  if (db_max_open_files <= 0) return share;
  return std::min<uint64_t>(static_cast<uint64_t>(db_max_open_files), share);
}

// "<pid>-<id>-": distinguishes the files of loaders that share a temporary directory, and
// marks them as a loader's (fs/bulk_temp_dir.h).
std::string UniqueFileNamePrefix() {
  static std::atomic<uint64_t> next_id{1};
  return absl::StrCat(static_cast<uint64_t>(::getpid()), "-",
                      next_id.fetch_add(1, std::memory_order_relaxed), "-");
}

Status CheckOptions(const BulkLoaderOptions& o) {
  if (o.memory_budget < kMinMemoryBudget) {
    return Status::InvalidArgument(
        "BulkLoaderOptions::memory_budget",
        absl::StrCat(o.memory_budget, " bytes is below the minimum of ", kMinMemoryBudget));
  }
  if (o.max_open_files < 0 || (o.max_open_files > 0 && o.max_open_files < 3)) {
    return Status::InvalidArgument(
        "BulkLoaderOptions::max_open_files",
        absl::StrCat("must be 0 (automatic) or at least 3 (two runs and a table file), got ",
                     o.max_open_files));
  }
  if (o.threads < 0) {
    return Status::InvalidArgument("BulkLoaderOptions::threads",
                                   absl::StrCat("must not be negative, got ", o.threads));
  }
  return ProgressReporter::ValidateInterval(o.progress_interval_seconds,
                                            "BulkLoaderOptions::progress_interval_seconds");
}

CompressionType ResolveCompression(const BulkLoaderOptions& o, const Options& db) {
  if (o.compression != kDisableCompressionOption) return o.compression;
  return db.bottommost_compression != kDisableCompressionOption ? db.bottommost_compression
                                                                : db.compression;
}

// The loader's settings from its options and the DB's (all but file_prefix).
Status ResolveSettings(const BulkLoaderOptions& options, const Options& db_options,
                       bulk::LoaderSettings* settings) {
  settings->fs = db_options.file_system;
  settings->comparator = db_options.comparator;
  settings->table_options = db_options.table_options;
  settings->compression = ResolveCompression(options, db_options);
  settings->compression_level = db_options.compression_level;
  if (!CompressionTypeSupported(settings->compression)) {
    return Status::InvalidArgument(
        "BulkLoaderOptions::compression",
        absl::StrCat("compression type ", CompressionTypeName(settings->compression),
                     " is not supported by this build (supported: ",
                     ToAbsl(SupportedCompressionTypeNames()), ")"));
  }
  settings->target_file_size = options.target_file_size > 0 ? options.target_file_size
                                                            : db_options.target_file_size_base;
  settings->threads =
      options.threads > 0 ? options.threads : std::max(2, db_options.max_background_jobs);
  settings->buffer_capacity = static_cast<size_t>(options.memory_budget / 2);
  settings->memory_budget = options.memory_budget;
  settings->max_open_files = static_cast<uint64_t>(options.max_open_files);
  settings->db_max_open_files = TableCacheDescriptors(db_options.max_open_files);
  settings->progress = options.progress;
  settings->progress_interval_seconds = options.progress_interval_seconds;
  return Status::OK();
}

// Creates `dir` unless it exists; *created says whether it did.
Status PrepareTempDir(FileSystem* fs, const std::string& dir, bool* created) {
  *created = false;
  Status s = fs->FileExists(dir);
  if (s.ok()) return fs->CreateDirIfMissing(dir);  // also fails when dir is not a directory
  if (!s.IsNotFound() && !s.IsPathNotFound()) return s;
  s = fs->CreateDir(dir);
  if (!s.ok()) return Status(s.code(), s.subcode(), "BulkLoader: temp dir " + dir, s.message());
  *created = true;
  return s;
}

}  // namespace

BulkLoader::Rep::Rep(DB* d, bulk::LoaderSettings s, bool created_dir, std::string temp_dir)
    : db(d),
      settings(std::move(s)),
      icmp(settings.comparator),
      temp_files(settings.fs.get(), std::move(temp_dir), created_dir, settings.file_name_prefix),
      filling(std::make_unique<bulk::SortBuffer>(settings.buffer_capacity, settings.comparator)),
      opened_at(Clock::now()),
      spill_thread(1, "bulk-spill") {}

BulkLoader::Rep::~Rep() {
  spill_thread.WaitForIdle();
  RemoveTempFiles();
}

void BulkLoader::Rep::RemoveTempFiles() {
  temp_files.RemoveAll().PermitUncheckedError();  // never worth failing for (see callers)
  if (registered) {
    UnregisterBulkLoad(temp_files.dir(), settings.file_name_prefix);
    registered = false;
  }
}

Status BulkLoader::Rep::Fail(Status s) {
  if (status.ok()) status = std::move(s);
  spill_thread.WaitForIdle();
  RemoveTempFiles();  // the first error is the one to report
  return status;
}

std::string BulkLoader::Rep::NextRunPath() {
  char name[32];
  std::snprintf(name, sizeof(name), "run-%06d.tmp", ++runs_started);
  return settings.file_prefix + name;
}

void BulkLoader::Rep::SortFilling() {
  const Clock::time_point start = Clock::now();
  filling->Sort();
  sort_seconds += SecondsSince(start);
}

void BulkLoader::Rep::Spill(const bulk::SortBuffer* buffer) {
  const Clock::time_point start = Clock::now();
  std::string path;
  {
    MutexLock lock(&mu);
    path = NextRunPath();
  }
  temp_files.Add(path);
  bulk::MemoryRunCursor cursor(*buffer, nullptr, nullptr);
  bulk::RunFileInfo info;
  Status s = bulk::WriteRunFile(settings.fs.get(), path, &cursor,
                                bulk::RunSampleBytes(buffer->record_bytes()), &info);
  MutexLock lock(&mu);
  spill_seconds += SecondsSince(start);
  if (s.ok()) {
    runs.push_back(std::move(info));
  } else if (spill_status.ok()) {
    spill_status = std::move(s);
  }
}

void BulkLoader::Rep::ScheduleSpill() {
  const bulk::SortBuffer* buffer = held.get();
  held_spilled = true;
  spill_thread.Schedule([this, buffer] { Spill(buffer); });
}

Status BulkLoader::Rep::WaitForSpill(double* stall) {
  const Clock::time_point start = Clock::now();
  spill_thread.WaitForIdle();
  *stall += SecondsSince(start);
  MutexLock lock(&mu);
  return spill_status;
}

Status BulkLoader::Rep::Rotate() {
  if (held == nullptr) {
    // The first full buffer: keep it in memory, sorted, until a second one fills.
    SortFilling();
    held = std::move(filling);
    filling = std::make_unique<bulk::SortBuffer>(settings.buffer_capacity, settings.comparator);
    return Status::OK();
  }
  if (!held_spilled) ScheduleSpill();  // the first buffer must go after all
  SortFilling();  // while the spill thread writes held
  Status s = WaitForSpill(&stall_seconds);
  if (!s.ok()) return s;
  // held is written: its memory takes the next entries while the full buffer is written.
  held->Clear();
  std::swap(held, filling);
  ScheduleSpill();
  return Status::OK();
}

// ---------------------------------------------------------------- BulkLoader

BulkLoader::BulkLoader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

BulkLoader::~BulkLoader() = default;

Status BulkLoader::Open(DB* db, const BulkLoaderOptions& options,
                        std::unique_ptr<BulkLoader>* loader) {
  loader->reset();
  if (db == nullptr) return Status::InvalidArgument("BulkLoader::Open: no DB given");
  Status s = CheckOptions(options);
  if (!s.ok()) return s;
  ColumnFamilyHandle* family =
      options.column_family != nullptr ? options.column_family : db->DefaultColumnFamily();
  uint64_t probe = 0;
  if (!db->GetIntProperty(family, "shale.num-files-at-level0", &probe)) {
    return Status::ShutdownInProgress("BulkLoader::Open",
                                      "the DB is closed or the column family was dropped");
  }
  bulk::LoaderSettings settings;
  s = ResolveSettings(options, db->GetOptions(family), &settings);
  settings.column_family = family;
  if (!s.ok()) return s;
  const bool default_dir = options.temp_dir.empty();
  const std::string dir = default_dir ? BulkLoadTempDir(db->GetName()) : options.temp_dir;
  // Files left by a load that crashed: in the DB's own directory all of them (the DB's LOCK
  // keeps other processes out), elsewhere only this process's. Best effort: what cannot be
  // removed now is tried again by the next load, Open and DestroyDB.
  RemoveBulkLoadLeftovers(settings.fs.get(), dir, default_dir).PermitUncheckedError();
  settings.file_name_prefix = UniqueFileNamePrefix();
  settings.file_prefix = dir + "/" + settings.file_name_prefix;
  RegisterBulkLoad(dir, settings.file_name_prefix);  // before any file (or the dir) is made
  bool created = false;
  s = PrepareTempDir(settings.fs.get(), dir, &created);
  if (!s.ok()) {
    UnregisterBulkLoad(dir, settings.file_name_prefix);
    return s;
  }
  loader->reset(new BulkLoader(std::make_unique<Rep>(db, std::move(settings), created, dir)));
  return Status::OK();
}

Status BulkLoader::Add(std::string_view key, std::string_view value) {
  Rep* r = rep_.get();
  if (!r->status.ok()) return r->status;
  if (r->finished) return Status::InvalidArgument("BulkLoader::Add after Finish");
  // The engine's size limits (shale/limits.h): the loaded table files must be readable.
  Status limit = CheckKeySize("BulkLoader::Add", key.size());
  if (limit.ok()) limit = CheckValueSize("BulkLoader::Add", value.size());
  if (!limit.ok()) return limit;
  if (!r->filling->Add(key, value)) {
    const size_t charge = bulk::SortBuffer::Charge(key.size(), value.size());
    if (charge + 64 > r->settings.buffer_capacity) {
      return Status::InvalidArgument(
          "BulkLoader::Add", absl::StrCat("an entry of ", key.size() + value.size(),
                                          " bytes does not fit half the memory budget (",
                                          r->settings.buffer_capacity, " bytes)"));
    }
    Status s = r->Rotate();
    if (!s.ok()) return r->Fail(s);
    if (!r->filling->Add(key, value)) {
      return r->Fail(Status::Corruption("BulkLoader::Add", "an empty sort buffer refused an entry"));
    }
  }
  r->entries_added++;
  r->bytes_added += key.size() + value.size();
  return Status::OK();
}

Status BulkLoader::Finish(BulkLoadResult* result) { return rep_->Finish(result); }

}  // namespace shale
