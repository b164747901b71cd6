// The C ABI of the DB itself: open, close, destroy, point writes and reads, snapshots,
// flush and properties (include/shale/c.h); manual compaction is in c_compaction.cc.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "capi/c_handles.h"

using shale::capi::CopyToMalloc;
using shale::capi::CopyToMallocString;
using shale::capi::SaveError;
using shale::capi::View;

extern "C" {

shale_t* shale_open(const shale_options_t* options, const char* name, char** errptr) {
  std::unique_ptr<shale::DB> db;
  if (SaveError(errptr, shale::DB::Open(options->rep, name, &db))) return nullptr;
  return new shale_t{std::move(db)};
}

shale_t* shale_open_for_read_only(const shale_options_t* options, const char* name,
                                  unsigned char error_if_wal_file_exists, char** errptr) {
  std::unique_ptr<shale::DB> db;
  if (SaveError(errptr, shale::DB::OpenForReadOnly(options->rep, name, &db,
                                                   error_if_wal_file_exists != 0))) {
    return nullptr;
  }
  return new shale_t{std::move(db)};
}

shale_t* shale_open_as_secondary(const shale_options_t* options, const char* name,
                                 const char* secondary_path, char** errptr) {
  if (secondary_path == nullptr) {
    SaveError(errptr, shale::Status::InvalidArgument("secondary_path", "NULL"));
    return nullptr;
  }
  std::unique_ptr<shale::DB> db;
  if (SaveError(errptr, shale::DB::OpenAsSecondary(options->rep, name, secondary_path, &db))) {
    return nullptr;
  }
  return new shale_t{std::move(db)};
}

void shale_try_catch_up_with_primary(shale_t* db, char** errptr) {
  SaveError(errptr, db->rep->TryCatchUpWithPrimary());
}

void shale_close(shale_t* db) {
  if (db == nullptr) return;
  db->rep->Close().PermitUncheckedError();
  delete db;
}

void shale_destroy_db(const shale_options_t* options, const char* name, char** errptr) {
  SaveError(errptr, shale::DestroyDB(name, options->rep));
}

void shale_repair_db(const shale_options_t* options, const char* name, char** errptr) {
  if (options == nullptr || name == nullptr) {
    SaveError(errptr,
              shale::Status::InvalidArgument(
                  "shale_repair_db", options == nullptr ? "options is NULL" : "name is NULL"));
    return;
  }
  SaveError(errptr, shale::RepairDB(name, options->rep));
}

// ---------------------------------------------------------------- Writes

void shale_put(shale_t* db, const shale_writeoptions_t* options, const char* key, size_t keylen,
               const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, db->rep->Put(options->rep, View(key, keylen), View(val, vallen)));
}

void shale_delete(shale_t* db, const shale_writeoptions_t* options, const char* key,
                  size_t keylen, char** errptr) {
  SaveError(errptr, db->rep->Delete(options->rep, View(key, keylen)));
}

void shale_singledelete(shale_t* db, const shale_writeoptions_t* options, const char* key,
                        size_t keylen, char** errptr) {
  SaveError(errptr, db->rep->SingleDelete(options->rep, View(key, keylen)));
}

void shale_multi_get(shale_t* db, const shale_readoptions_t* options, size_t num_keys,
                     const char* const* keys_list, const size_t* keys_list_sizes,
                     char** values_list, size_t* values_list_sizes, char** errs) {
  std::vector<std::string_view> keys;
  keys.reserve(num_keys);
  for (size_t i = 0; i < num_keys; i++) keys.push_back(View(keys_list[i], keys_list_sizes[i]));
  std::vector<std::string> values;
  std::vector<shale::Status> statuses = db->rep->MultiGet(options->rep, keys, &values);
  for (size_t i = 0; i < num_keys; i++) {
    values_list[i] = nullptr;
    values_list_sizes[i] = 0;
    errs[i] = nullptr;
    if (statuses[i].ok()) {
      values_list[i] = CopyToMalloc(values[i]);
      values_list_sizes[i] = values[i].size();
    } else if (!statuses[i].IsNotFound()) {
      errs[i] = CopyToMallocString(statuses[i].ToString());
    }
  }
}

void shale_set_options(shale_t* db, int count, const char* const keys[],
                       const char* const values[], char** errptr) {
  std::unordered_map<std::string, std::string> changes;
  for (int i = 0; i < count; i++) changes[keys[i]] = values[i];
  SaveError(errptr, db->rep->SetOptions(changes));
}

void shale_resume(shale_t* db, char** errptr) { SaveError(errptr, db->rep->Resume()); }

void shale_approximate_sizes(shale_t* db, int num_ranges, const char* const* range_start_key,
                             const size_t* range_start_key_len,
                             const char* const* range_limit_key,
                             const size_t* range_limit_key_len, uint64_t* sizes,
                             char** errptr) {
  std::vector<shale::Range> ranges;
  for (int i = 0; i < num_ranges; i++) {
    ranges.emplace_back(View(range_start_key[i], range_start_key_len[i]),
                        View(range_limit_key[i], range_limit_key_len[i]));
  }
  SaveError(errptr, db->rep->GetApproximateSizes(ranges.data(), num_ranges, sizes));
}

void shale_delete_range(shale_t* db, const shale_writeoptions_t* options, const char* start_key,
                        size_t start_key_len, const char* end_key, size_t end_key_len,
                        char** errptr) {
  SaveError(errptr, db->rep->DeleteRange(options->rep, View(start_key, start_key_len),
                                         View(end_key, end_key_len)));
}

void shale_write(shale_t* db, const shale_writeoptions_t* options, shale_writebatch_t* batch,
                 char** errptr) {
  if (SaveError(errptr, batch->error)) return;
  SaveError(errptr, db->rep->Write(options->rep, &batch->rep));
}

// ---------------------------------------------------------------- Reads

char* shale_get(shale_t* db, const shale_readoptions_t* options, const char* key, size_t keylen,
                size_t* vallen, char** errptr) {
  *vallen = 0;
  std::string value;
  shale::Status s = db->rep->Get(options->rep, View(key, keylen), &value);
  if (s.IsNotFound()) {
    SaveError(errptr, shale::Status::OK());
    return nullptr;
  }
  if (SaveError(errptr, s)) return nullptr;
  *vallen = value.size();
  return CopyToMalloc(value);
}

const shale_snapshot_t* shale_create_snapshot(shale_t* db) {
  return new shale_snapshot_t{db->rep->GetSnapshot()};
}

void shale_release_snapshot(shale_t* db, const shale_snapshot_t* snapshot) {
  db->rep->ReleaseSnapshot(snapshot->rep);
  delete snapshot;
}

// ---------------------------------------------------------------- Maintenance

void shale_flush(shale_t* db, const shale_flushoptions_t* options, char** errptr) {
  SaveError(errptr, db->rep->Flush(options->rep));
}

void shale_flush_wal(shale_t* db, unsigned char sync, char** errptr) {
  SaveError(errptr, db->rep->FlushWAL(sync != 0));
}

void shale_disable_file_deletions(shale_t* db, char** errptr) {
  SaveError(errptr, db->rep->DisableFileDeletions());
}

void shale_enable_file_deletions(shale_t* db, unsigned char force, char** errptr) {
  SaveError(errptr, db->rep->EnableFileDeletions(force != 0));
}

void shale_delete_file_in_range(shale_t* db, const char* start_key, size_t start_key_len,
                                const char* limit_key, size_t limit_key_len, char** errptr) {
  // A NULL key is an open end, whatever its length says.
  const std::string_view start =
      start_key == nullptr ? std::string_view() : View(start_key, start_key_len);
  const std::string_view limit =
      limit_key == nullptr ? std::string_view() : View(limit_key, limit_key_len);
  SaveError(errptr, db->rep->DeleteFilesInRange(db->rep->DefaultColumnFamily(),
                                                start_key == nullptr ? nullptr : &start,
                                                limit_key == nullptr ? nullptr : &limit));
}

void shale_verify_checksum(shale_t* db, char** errptr) {
  SaveError(errptr, db->rep->VerifyChecksum(shale::ReadOptions()));
}

void shale_verify_checksum_with_progress(shale_t* db, shale_progress_callback callback,
                                         void* arg, double interval_seconds, char** errptr) {
  shale::VerifyChecksumOptions options;
  options.progress_interval_seconds = interval_seconds;
  if (SaveError(errptr, shale::capi::MakeProgressCallback(
                            callback, arg, interval_seconds,
                            "shale_verify_checksum_with_progress", &options.progress))) {
    return;
  }
  SaveError(errptr, db->rep->VerifyChecksum(options));
}

char* shale_property_value(shale_t* db, const char* propname) {
  std::string value;
  if (!db->rep->GetProperty(propname, &value)) return nullptr;
  return CopyToMallocString(value);
}

int shale_property_int(shale_t* db, const char* propname, uint64_t* out_val) {
  return db->rep->GetIntProperty(propname, out_val) ? 0 : -1;
}

uint64_t shale_get_latest_sequence_number(shale_t* db) {
  return db->rep->GetLatestSequenceNumber();
}

}  // extern "C"
