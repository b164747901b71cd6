// RocksDB's C API, db group: opening and closing a DB, destroying and repairing one (RepairDB),
// listing its column families, and loading its latest OPTIONS file. Read-only opens are
// DB::OpenForReadOnly, secondary opens DB::OpenAsSecondary (rocksdb_try_catch_up_with_primary
// is DB::TryCatchUpWithPrimary). ShaleDB has no TTL or timestamp-trimming opens: those fail
// with
// "Not supported by ShaleDB: <function>" (a TTL open with ttl <= 0, which RocksDB treats as
// "never expire", is a plain open).
// Thread-safety: as DB::Open and DestroyDB; a rocksdb_t must not be used once rocksdb_close
// has started (RocksDB's rule).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/options.h"

using shale::ColumnFamilyDescriptor;
using shale::ColumnFamilyHandle;
using shale::ColumnFamilyOptions;
using shale::DB;
using shale::DBOptions;
using shale::Options;
using shale::Status;
using shale::rocksdb_capi::AcceptedKnobsLogText;
using shale::rocksdb_capi::CheckOptionsForOpen;
using shale::rocksdb_capi::CopyToMallocString;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::LogAcceptedKnobs;
using shale::rocksdb_capi::NotSupported;
using shale::rocksdb_capi::OptionsForOpen;
using shale::rocksdb_capi::RocksDbOpenError;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::ShaleOptionsFor;
using shale::rocksdb_capi::ShareDbCacheSettings;

namespace shale::rocksdb_capi {

Options OptionsForOpen(const rocksdb_options_t* options, std::string_view db_name,
                       Status* status) {
  if (options == nullptr) {
    *status = Status::InvalidArgument("options is NULL");
    return Options();
  }
  *status = CheckOptionsForOpen(options, db_name);
  if (!status->ok()) return Options();
  return ShaleOptionsFor(options);
}

void LogAcceptedKnobs(DB* db, const rocksdb_options_t* options) {
  if (db == nullptr || options == nullptr) return;
  const std::string text = AcceptedKnobsLogText(options);
  if (!text.empty()) db->LogInfo(text);
}

void ShareDbCacheSettings(const ColumnFamilyOptions& default_family, ColumnFamilyOptions* family) {
  TableOptions& t = family->table_options;
  const TableOptions& d = default_family.table_options;
  t.block_cache = nullptr;
  t.no_block_cache = d.no_block_cache;
  t.cache_index_and_filter_blocks = d.cache_index_and_filter_blocks;
  t.pin_top_level_index_and_filter = d.pin_top_level_index_and_filter;
  t.pin_l0_filter_and_index_blocks_in_cache = d.pin_l0_filter_and_index_blocks_in_cache;
  t.charge_table_reader_memory = d.charge_table_reader_memory;
}

Status RocksDbOpenError(const std::string& name, const Status& s) {
  const std::string lock_file = name + "/LOCK";
  const std::string_view message = s.message();
  // DB::Open's LOCK error, and DestroyDB's and RepairDB's (which take the LOCK too, as
  // RocksDB's do).
  if (s.IsIOError() && (message.starts_with("lock " + lock_file) ||
                        message.starts_with("DestroyDB " + name + ": the DB is open") ||
                        message.starts_with("RepairDB " + name + ": the DB is open"))) {
    if (message.find("already locked by this process") != std::string_view::npos) {
      // RocksDB names the holder's acquire time and thread; they are not known here (0).
      return Status::IOError("lock hold by current process, acquire time 0 acquiring thread 0",
                             lock_file + ": No locks available");
    }
    return Status::IOError("While lock file", lock_file + ": Resource temporarily unavailable");
  }
  if (s.IsInvalidArgument() && message.starts_with(name + ": does not exist") &&
      message.find("(create_if_missing is false)") != std::string_view::npos) {
    return Status::InvalidArgument(name + "/CURRENT: does not exist (create_if_missing is false)");
  }
  return s;
}

}  // namespace shale::rocksdb_capi

namespace {

// A new handle owning `db`.
rocksdb_t* NewDbHandle(std::unique_ptr<DB> db) {
  auto* handle = new rocksdb_t;
  handle->rep = std::move(db);
  return handle;
}

// How a DB is opened: normally, read-only (DB::OpenForReadOnly) with its
// error_if_wal_file_exists, or as a secondary (DB::OpenAsSecondary) when secondary_path is set.
struct OpenMode {
  bool read_only = false;
  bool error_if_wal_file_exists = false;
  const char* secondary_path = nullptr;
};

rocksdb_t* OpenDefault(const rocksdb_options_t* options, const char* name, char** errptr,
                       OpenMode mode = {}) {
  if (IsNullArgument(name, "name", errptr)) return nullptr;
  Status s;
  const Options opts = OptionsForOpen(options, name, &s);
  if (SaveError(errptr, s)) return nullptr;
  std::unique_ptr<DB> db;
  s = mode.secondary_path != nullptr
          ? DB::OpenAsSecondary(opts, name, mode.secondary_path, &db)
      : mode.read_only ? DB::OpenForReadOnly(opts, name, &db, mode.error_if_wal_file_exists)
                       : DB::Open(opts, name, &db);
  if (SaveError(errptr, RocksDbOpenError(name, s))) return nullptr;
  LogAcceptedKnobs(db.get(), options);
  rocksdb_t* handle = NewDbHandle(std::move(db));
  handle->default_prefix_extractor = options->prefix_extractor;
  return handle;
}

rocksdb_t* OpenFamilies(const rocksdb_options_t* options, const char* name, int n,
                        const char* const* names, const rocksdb_options_t* const* family_options,
                        rocksdb_column_family_handle_t** handles, char** errptr,
                        OpenMode mode = {}) {
  if (IsNullArgument(name, "name", errptr)) return nullptr;
  if (n < 0 || (n > 0 && (names == nullptr || family_options == nullptr || handles == nullptr))) {
    SaveError(errptr, Status::InvalidArgument(
                          "column family names, options and handles must hold "
                          "num_column_families entries"));
    return nullptr;
  }
  Status s;
  const Options db_options = OptionsForOpen(options, name, &s);
  if (SaveError(errptr, s)) return nullptr;
  std::vector<ColumnFamilyDescriptor> families;
  for (int i = 0; i < n; i++) {
    if (IsNullArgument(names[i], "a column family name", errptr)) return nullptr;
    const Options family = OptionsForOpen(family_options[i], name, &s);
    if (SaveError(errptr, s)) return nullptr;
    families.emplace_back(names[i], static_cast<const ColumnFamilyOptions&>(family));
  }
  // The default family's descriptor decides the DB's cache settings (the DB's options when
  // the default family is not named, which DB::Open then refuses anyway).
  const ColumnFamilyOptions* default_family = &db_options;
  for (const ColumnFamilyDescriptor& d : families) {
    if (d.name == shale::kDefaultColumnFamilyName) default_family = &d.options;
  }
  const ColumnFamilyOptions shared = *default_family;
  for (ColumnFamilyDescriptor& d : families) {
    if (d.name != shale::kDefaultColumnFamilyName) ShareDbCacheSettings(shared, &d.options);
  }
  std::vector<ColumnFamilyHandle*> opened;
  std::unique_ptr<DB> db;
  s = mode.secondary_path != nullptr
          ? DB::OpenAsSecondary(static_cast<const DBOptions&>(db_options), name,
                                mode.secondary_path, families, &opened, &db)
      : mode.read_only ? DB::OpenForReadOnly(static_cast<const DBOptions&>(db_options), name,
                                             families, &opened, &db,
                                             mode.error_if_wal_file_exists)
                       : DB::Open(static_cast<const DBOptions&>(db_options), name, families,
                                  &opened, &db);
  if (SaveError(errptr, RocksDbOpenError(name, s))) return nullptr;
  LogAcceptedKnobs(db.get(), options);
  for (int i = 0; i < n; i++) {
    if (family_options[i] != options) LogAcceptedKnobs(db.get(), family_options[i]);
    handles[i] = new rocksdb_column_family_handle_t;
    handles[i]->rep = opened[i];
    handles[i]->prefix_extractor = family_options[i]->prefix_extractor;
  }
  rocksdb_t* handle = NewDbHandle(std::move(db));
  // The default family's prefix extractor is its descriptor's (as its other options are).
  for (int i = 0; i < n; i++) {
    if (names[i] == shale::kDefaultColumnFamilyName) {
      handle->default_prefix_extractor = family_options[i]->prefix_extractor;
    }
  }
  return handle;
}

// RocksDB's TTL opens: a positive TTL would make expired values disappear from reads, which
// ShaleDB cannot do; 0 or less means "no expiry" (RocksDB's rule), which is a plain open.
bool HasTtl(int n, const int* ttls) {
  for (int i = 0; i < n; i++) {
    if (ttls != nullptr && ttls[i] > 0) return true;
  }
  return false;
}

}  // namespace

extern "C" {

rocksdb_t* rocksdb_open(const rocksdb_options_t* options, const char* name, char** errptr) {
  return OpenDefault(options, name, errptr);
}

rocksdb_t* rocksdb_open_with_ttl(const rocksdb_options_t* options, const char* name, int ttl,
                                 char** errptr) {
  // not supported: TTL (a ttl of 0 or less opens normally)
  if (ttl > 0) {
    NotSupported(errptr, "rocksdb_open_with_ttl");
    return nullptr;
  }
  return OpenDefault(options, name, errptr);
}

rocksdb_t* rocksdb_open_for_read_only(const rocksdb_options_t* options, const char* name,
                                      unsigned char error_if_wal_file_exist, char** errptr) {
  return OpenDefault(options, name, errptr,
                     OpenMode{.read_only = true,
                              .error_if_wal_file_exists = error_if_wal_file_exist != 0});
}

rocksdb_t* rocksdb_open_as_secondary(const rocksdb_options_t* options, const char* name,
                                     const char* secondary_path, char** errptr) {
  if (IsNullArgument(secondary_path, "secondary_path", errptr)) return nullptr;
  return OpenDefault(options, name, errptr, OpenMode{.read_only = true,
                                                     .secondary_path = secondary_path});
}

rocksdb_t* rocksdb_open_column_families(const rocksdb_options_t* options, const char* name,
                                        int num_column_families,
                                        const char* const* column_family_names,
                                        const rocksdb_options_t* const* column_family_options,
                                        rocksdb_column_family_handle_t** column_family_handles,
                                        char** errptr) {
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, errptr);
}

rocksdb_t* rocksdb_open_column_families_with_ttl(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, const int* ttls, char** errptr) {
  // not supported: TTL (ttls of 0 or less open normally)
  if (HasTtl(num_column_families, ttls)) {
    NotSupported(errptr, "rocksdb_open_column_families_with_ttl");
    return nullptr;
  }
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, errptr);
}

rocksdb_t* rocksdb_open_for_read_only_column_families(
    const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles,
    unsigned char error_if_wal_file_exist, char** errptr) {
  // A subset of the DB's families may be named (RocksDB's read-only rule).
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, errptr,
                      OpenMode{.read_only = true,
                               .error_if_wal_file_exists = error_if_wal_file_exist != 0});
}

rocksdb_t* rocksdb_open_as_secondary_column_families(
    const rocksdb_options_t* options, const char* name, const char* secondary_path,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) {
  if (IsNullArgument(secondary_path, "secondary_path", errptr)) return nullptr;
  // A subset of the DB's families may be named (as for a read-only open).
  return OpenFamilies(options, name, num_column_families, column_family_names,
                      column_family_options, column_family_handles, errptr,
                      OpenMode{.read_only = true, .secondary_path = secondary_path});
}

rocksdb_t* rocksdb_open_and_trim_history(const rocksdb_options_t*, const char*, int,
                                         const char* const*, const rocksdb_options_t* const*,
                                         rocksdb_column_family_handle_t**, char*, size_t,
                                         char** errptr) {
  // not supported: user-defined timestamps
  NotSupported(errptr, "rocksdb_open_and_trim_history");
  return nullptr;
}

void rocksdb_try_catch_up_with_primary(rocksdb_t* db, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  // A primary or read-only DB: "Not implemented: Supported only by secondary instance".
  SaveError(errptr, db->rep->TryCatchUpWithPrimary());
}

void rocksdb_close(rocksdb_t* db) { delete db; }

void rocksdb_destroy_db(const rocksdb_options_t* options, const char* name, char** errptr) {
  if (IsNullArgument(name, "name", errptr) || IsNullArgument(options, "options", errptr)) return;
  // Only the file system matters here: no check of the settings an open would refuse.
  const Status s = shale::DestroyDB(name, options->rep);
  SaveError(errptr, RocksDbOpenError(name, s));
}

void rocksdb_repair_db(const rocksdb_options_t* options, const char* name, char** errptr) {
  if (IsNullArgument(name, "name", errptr) || IsNullArgument(options, "options", errptr)) return;
  // The options every family found gets (RocksDB's C repair does the same); refused as an open
  // would refuse them, since the repair may open the DB to compact it.
  Status s;
  const Options opts = OptionsForOpen(options, name, &s);
  if (SaveError(errptr, s)) return;
  s = shale::RepairDB(name, opts);
  SaveError(errptr, RocksDbOpenError(name, s));
}

char** rocksdb_list_column_families(const rocksdb_options_t* options, const char* name,
                                    size_t* lencf, char** errptr) {
  *lencf = 0;
  if (IsNullArgument(name, "name", errptr) || IsNullArgument(options, "options", errptr)) {
    return nullptr;
  }
  std::vector<std::string> names;
  const Status s = DB::ListColumnFamilies(options->rep, name, &names);
  if (SaveError(errptr, s)) return nullptr;
  char** list =
      static_cast<char**>(std::malloc(sizeof(char*) * (names.empty() ? 1 : names.size())));
  for (size_t i = 0; i < names.size(); i++) list[i] = CopyToMallocString(names[i]);
  *lencf = names.size();
  return list;
}

void rocksdb_list_column_families_destroy(char** list, size_t len) {
  if (list == nullptr) return;
  for (size_t i = 0; i < len; i++) std::free(list[i]);
  std::free(list);
}

void rocksdb_load_latest_options(const char* db_path, rocksdb_env_t* /*env*/,
                                 bool ignore_unknown_options, rocksdb_cache_t* cache,
                                 rocksdb_options_t** db_options, size_t* num_column_families,
                                 char*** column_family_names,
                                 rocksdb_options_t*** column_family_options, char** errptr) {
  *db_options = nullptr;
  *num_column_families = 0;
  *column_family_names = nullptr;
  *column_family_options = nullptr;
  if (IsNullArgument(db_path, "db_path", errptr)) return;
  std::shared_ptr<shale::FileSystem> fs = shale::FileSystem::Default();
  std::vector<std::string> children;
  Status s = fs->GetChildren(db_path, &children);
  if (SaveError(errptr, s)) return;
  // The newest OPTIONS-<number> file (the highest number).
  std::string latest;
  uint64_t latest_number = 0;
  for (const std::string& child : children) {
    constexpr std::string_view kPrefix = "OPTIONS-";
    if (child.compare(0, kPrefix.size(), kPrefix) != 0 || child.size() == kPrefix.size()) continue;
    if (child.find_first_not_of("0123456789", kPrefix.size()) != std::string::npos) continue;
    const uint64_t number = std::strtoull(child.c_str() + kPrefix.size(), nullptr, 10);
    if (latest.empty() || number > latest_number) {
      latest = child;
      latest_number = number;
    }
  }
  if (latest.empty()) {
    SaveError(errptr, Status::NotFound(std::string(db_path) + ": no OPTIONS file"));
    return;
  }
  DBOptions loaded_db;
  std::vector<ColumnFamilyDescriptor> families;
  std::vector<std::string> warnings;
  s = shale::LoadOptionsFromFile(fs.get(), std::string(db_path) + "/" + latest, &loaded_db,
                                 &families, &warnings);
  if (SaveError(errptr, s)) return;
  if (!ignore_unknown_options && !warnings.empty()) {
    SaveError(errptr, Status::InvalidArgument(warnings.front()));
    return;
  }
  // One block cache for the DB, as ShaleDB requires (every family shares the DB's): the
  // caller's, else the one the file gave the first (default) family.
  if (cache != nullptr || !families.empty()) {
    const std::shared_ptr<shale::Cache> shared =
        cache != nullptr ? cache->rep : families[0].options.table_options.block_cache;
    for (ColumnFamilyDescriptor& d : families) d.options.table_options.block_cache = shared;
  }
  auto* out_db = new rocksdb_options_t;
  out_db->rep = Options(loaded_db, families.empty() ? ColumnFamilyOptions() : families[0].options);
  const size_t n = families.size();
  char** names = static_cast<char**>(std::malloc(sizeof(char*) * (n == 0 ? 1 : n)));
  auto** opts = static_cast<rocksdb_options_t**>(
      std::malloc(sizeof(rocksdb_options_t*) * (n == 0 ? 1 : n)));
  for (size_t i = 0; i < n; i++) {
    names[i] = CopyToMallocString(families[i].name);
    opts[i] = new rocksdb_options_t;
    opts[i]->rep = Options(loaded_db, families[i].options);
  }
  *db_options = out_db;
  *num_column_families = n;
  *column_family_names = names;
  *column_family_options = opts;
}

void rocksdb_load_latest_options_destroy(rocksdb_options_t* db_options,
                                         char** list_column_family_names,
                                         rocksdb_options_t** list_column_family_options,
                                         size_t len) {
  delete db_options;
  for (size_t i = 0; i < len; i++) {
    if (list_column_family_names != nullptr) std::free(list_column_family_names[i]);
    if (list_column_family_options != nullptr) delete list_column_family_options[i];
  }
  std::free(list_column_family_names);
  std::free(list_column_family_options);
}

void rocksdb_get_options_from_string(const rocksdb_options_t* base_options, const char* opts_str,
                                     rocksdb_options_t* new_options, char** errptr) {
  if (IsNullArgument(base_options, "base_options", errptr) ||
      IsNullArgument(opts_str, "opts_str", errptr) ||
      IsNullArgument(new_options, "new_options", errptr)) {
    return;
  }
  Options parsed;
  Status s = shale::GetOptionsFromString(base_options->rep, opts_str, &parsed);
  if (SaveError(errptr, s)) return;
  // The base with the string applied: what the base's setters recorded beside rep (knobs,
  // refused settings) comes along, as RocksDB copies the whole base Options.
  rocksdb_options_t result = *base_options;
  result.rep = std::move(parsed);
  *new_options = std::move(result);
}

void rocksdb_create_dir_if_missing(rocksdb_env_t* /*env*/, const char* path, char** errptr) {
  if (IsNullArgument(path, "path", errptr)) return;
  SaveError(errptr, shale::FileSystem::Default()->CreateDirIfMissing(path));
}

}  // extern "C"
