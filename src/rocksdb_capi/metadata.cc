// RocksDB's C API, db group: metadata of a DB's table files: the live files list
// (rocksdb_livefiles*) and a column family's levels and files (rocksdb_*_metadata_*), both from
// DB::GetLiveFilesMetaData. Ownership as RocksDB documents it: each object is freed with its
// _destroy function; a level's or file's metadata points into its parent, so it is destroyed
// before the parent; the strings the getters return as char* are malloc'd copies (freed with
// rocksdb_free), those returned as const char* belong to the object.
// Thread-safety: the objects are immutable snapshots of the metadata, readable from any
// thread; each is destroyed once.
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/db.h"

using shale::LiveFileMetaData;
using shale::rocksdb_capi::CopyToMalloc;
using shale::rocksdb_capi::CopyToMallocString;

struct rocksdb_livefiles_t {
  std::vector<LiveFileMetaData> rep;
};

namespace shale::rocksdb_capi {

// One table file of a level (RocksDB's SstFileMetaData fields the C API reads).
struct SstFileMeta {
  std::string relative_filename;  // "000012.sst"
  uint64_t size = 0;
  std::string smallestkey;
  std::string largestkey;
};

struct LevelMeta {
  int level = 0;
  uint64_t size = 0;
  std::vector<SstFileMeta> files;
};

}  // namespace shale::rocksdb_capi

using shale::rocksdb_capi::LevelMeta;
using shale::rocksdb_capi::SstFileMeta;

struct rocksdb_column_family_metadata_t {
  std::string name;
  uint64_t size = 0;
  size_t file_count = 0;
  std::vector<LevelMeta> levels;  // one per level of the family, empty ones included
};

struct rocksdb_level_metadata_t {
  const LevelMeta* rep;  // the parent's
};

struct rocksdb_sst_file_metadata_t {
  const SstFileMeta* rep;  // the parent's
};

namespace {

rocksdb_column_family_metadata_t* FamilyMetaData(rocksdb_t* db,
                                                 shale::ColumnFamilyHandle* family) {
  if (db == nullptr || family == nullptr) return nullptr;
  auto* meta = new rocksdb_column_family_metadata_t;
  meta->name = family->GetName();
  meta->levels.resize(db->rep->GetOptions(family).num_levels);
  for (size_t i = 0; i < meta->levels.size(); i++) meta->levels[i].level = static_cast<int>(i);
  std::vector<LiveFileMetaData> files;
  db->rep->GetLiveFilesMetaData(&files);
  for (const LiveFileMetaData& f : files) {
    if (f.column_family_name != meta->name) continue;
    if (f.level < 0) continue;
    if (static_cast<size_t>(f.level) >= meta->levels.size()) {
      meta->levels.resize(f.level + 1);
      for (size_t i = 0; i < meta->levels.size(); i++) meta->levels[i].level = static_cast<int>(i);
    }
    LevelMeta& level = meta->levels[f.level];
    SstFileMeta file;
    file.relative_filename = f.name.starts_with("/") ? f.name.substr(1) : f.name;
    file.size = f.size;
    file.smallestkey = f.smallestkey;
    file.largestkey = f.largestkey;
    level.files.push_back(std::move(file));
    level.size += f.size;
    meta->size += f.size;
    meta->file_count++;
  }
  return meta;
}

}  // namespace

extern "C" {

const rocksdb_livefiles_t* rocksdb_livefiles(rocksdb_t* db) {
  if (db == nullptr) return nullptr;
  auto* files = new rocksdb_livefiles_t;
  db->rep->GetLiveFilesMetaData(&files->rep);
  return files;
}

int rocksdb_livefiles_count(const rocksdb_livefiles_t* lf) {
  return lf == nullptr ? 0 : static_cast<int>(lf->rep.size());
}

const char* rocksdb_livefiles_column_family_name(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].column_family_name.c_str();
}

const char* rocksdb_livefiles_name(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].name.c_str();
}

int rocksdb_livefiles_level(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].level;
}

size_t rocksdb_livefiles_size(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].size;
}

const char* rocksdb_livefiles_smallestkey(const rocksdb_livefiles_t* lf, int index,
                                          size_t* size) {
  *size = lf->rep[index].smallestkey.size();
  return lf->rep[index].smallestkey.data();
}

const char* rocksdb_livefiles_largestkey(const rocksdb_livefiles_t* lf, int index,
                                         size_t* size) {
  *size = lf->rep[index].largestkey.size();
  return lf->rep[index].largestkey.data();
}

uint64_t rocksdb_livefiles_entries(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].num_entries;
}

uint64_t rocksdb_livefiles_deletions(const rocksdb_livefiles_t* lf, int index) {
  return lf->rep[index].num_deletions;
}

void rocksdb_livefiles_destroy(const rocksdb_livefiles_t* lf) { delete lf; }

rocksdb_column_family_metadata_t* rocksdb_get_column_family_metadata(rocksdb_t* db) {
  if (db == nullptr) return nullptr;
  return FamilyMetaData(db, db->rep->DefaultColumnFamily());
}

rocksdb_column_family_metadata_t* rocksdb_get_column_family_metadata_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family) {
  return FamilyMetaData(db, column_family == nullptr ? nullptr : column_family->rep);
}

void rocksdb_column_family_metadata_destroy(rocksdb_column_family_metadata_t* cf_meta) {
  delete cf_meta;
}

uint64_t rocksdb_column_family_metadata_get_size(rocksdb_column_family_metadata_t* cf_meta) {
  return cf_meta->size;
}

size_t rocksdb_column_family_metadata_get_file_count(rocksdb_column_family_metadata_t* cf_meta) {
  return cf_meta->file_count;
}

char* rocksdb_column_family_metadata_get_name(rocksdb_column_family_metadata_t* cf_meta) {
  return CopyToMallocString(cf_meta->name);
}

size_t rocksdb_column_family_metadata_get_level_count(rocksdb_column_family_metadata_t* cf_meta) {
  return cf_meta->levels.size();
}

rocksdb_level_metadata_t* rocksdb_column_family_metadata_get_level_metadata(
    rocksdb_column_family_metadata_t* cf_meta, size_t i) {
  if (cf_meta == nullptr || i >= cf_meta->levels.size()) return nullptr;
  return new rocksdb_level_metadata_t{&cf_meta->levels[i]};
}

void rocksdb_level_metadata_destroy(rocksdb_level_metadata_t* level_meta) { delete level_meta; }

int rocksdb_level_metadata_get_level(rocksdb_level_metadata_t* level_meta) {
  return level_meta->rep->level;
}

uint64_t rocksdb_level_metadata_get_size(rocksdb_level_metadata_t* level_meta) {
  return level_meta->rep->size;
}

size_t rocksdb_level_metadata_get_file_count(rocksdb_level_metadata_t* level_meta) {
  return level_meta->rep->files.size();
}

rocksdb_sst_file_metadata_t* rocksdb_level_metadata_get_sst_file_metadata(
    rocksdb_level_metadata_t* level_meta, size_t i) {
  if (level_meta == nullptr || i >= level_meta->rep->files.size()) return nullptr;
  return new rocksdb_sst_file_metadata_t{&level_meta->rep->files[i]};
}

void rocksdb_sst_file_metadata_destroy(rocksdb_sst_file_metadata_t* file_meta) {
  delete file_meta;
}

char* rocksdb_sst_file_metadata_get_relative_filename(rocksdb_sst_file_metadata_t* file_meta) {
  return CopyToMallocString(file_meta->rep->relative_filename);
}

uint64_t rocksdb_sst_file_metadata_get_size(rocksdb_sst_file_metadata_t* file_meta) {
  return file_meta->rep->size;
}

char* rocksdb_sst_file_metadata_get_smallestkey(rocksdb_sst_file_metadata_t* file_meta,
                                                size_t* len) {
  *len = file_meta->rep->smallestkey.size();
  return CopyToMalloc(file_meta->rep->smallestkey);
}

char* rocksdb_sst_file_metadata_get_largestkey(rocksdb_sst_file_metadata_t* file_meta,
                                               size_t* len) {
  *len = file_meta->rep->largestkey.size();
  return CopyToMalloc(file_meta->rep->largestkey);
}

}  // extern "C"
