// RocksDB's C API, db group: properties, approximate sizes and memory usage of a DB.
//
// Property names: ShaleDB's DB::GetProperty answers "rocksdb.<name>" for the properties it
// shares with RocksDB (shale/db.h lists them); this file adds the rocksdb.* names whose
// figures it can derive from public calls (the table-file sizes, from GetLiveFilesMetaData)
// and RocksDB's partial stats reports (rocksdb.cfstats, rocksdb.dbstats: ShaleDB's one report).
// Any other name is unknown: NULL (property_value) or -1 (property_int), as RocksDB does.
// Thread-safety: from any thread (as shale::DB); a memory-consumers object is filled by one
// thread at a time.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_internal.h"
#include "rocksdb_capi/handles.h"
#include "shale/cache.h"
#include "shale/db.h"

using shale::ColumnFamilyHandle;
using shale::Status;
using shale::rocksdb_capi::CopyToMallocString;
using shale::rocksdb_capi::FamilyOf;
using shale::rocksdb_capi::IsNullArgument;
using shale::rocksdb_capi::SaveError;
using shale::rocksdb_capi::View;

// The DBs and caches whose memory rocksdb_approximate_memory_usage_create adds up (borrowed:
// they must outlive the call). A cache listed twice, or also a DB's block cache, counts once.
struct rocksdb_memory_consumers_t {
  std::vector<rocksdb_t*> dbs;
  std::vector<rocksdb_cache_t*> caches;
};

// RocksDB's MemoryUtil figures, in bytes, as of rocksdb_approximate_memory_usage_create.
struct rocksdb_memory_usage_t {
  uint64_t mem_table_total = 0;          // memtables, flushed ones still pinned included
  uint64_t mem_table_unflushed = 0;      // memtables not flushed yet
  // Table readers' memory (also in cache_total when charged to the block cache, as RocksDB's
  // charged kBlockBasedTableReader role is).
  uint64_t mem_table_readers_total = 0;
  uint64_t cache_total = 0;              // the distinct block caches
};

namespace {

// The rocksdb.* size properties ShaleDB's GetProperty does not answer: the bytes of the
// family's live table files (RocksDB's total-sst-files-size counts files of older versions
// still referenced too; ShaleDB deletes those once unreferenced, so the two agree but for
// a file held by an open iterator). estimate-live-data-size is that sum as well: table bytes
// after compaction would drop shadowed entries are not known here.
bool DerivedIntProperty(shale::DB* db, ColumnFamilyHandle* family, std::string_view name,
                        uint64_t* value) {
  if (name != "rocksdb.total-sst-files-size" && name != "rocksdb.live-sst-files-size" &&
      name != "rocksdb.estimate-live-data-size") {
    return false;
  }
  if (family == nullptr) return false;
  std::vector<shale::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  uint64_t total = 0;
  for (const shale::LiveFileMetaData& f : files) {
    if (f.column_family_name == family->GetName()) total += f.size;
  }
  *value = total;
  return true;
}

// RocksDB's parts of rocksdb.stats (the family's and the DB's figures, with or without the
// file histogram): ShaleDB has one report (shale.stats, its own layout), given for each.
bool IsStatsReportName(std::string_view name) {
  return name == "rocksdb.cfstats" || name == "rocksdb.cfstats-no-file-histogram" ||
         name == "rocksdb.dbstats";
}

char* PropertyValue(rocksdb_t* db, ColumnFamilyHandle* family, const char* propname) {
  if (db == nullptr || propname == nullptr || family == nullptr) return nullptr;
  std::string value;
  if (db->rep->GetProperty(family, propname, &value)) return CopyToMallocString(value);
  if (IsStatsReportName(propname) && db->rep->GetProperty(family, "rocksdb.stats", &value)) {
    return CopyToMallocString(value);
  }
  uint64_t number;
  if (DerivedIntProperty(db->rep.get(), family, propname, &number)) {
    return CopyToMallocString(std::to_string(number));
  }
  return nullptr;
}

int PropertyInt(rocksdb_t* db, ColumnFamilyHandle* family, const char* propname,
                uint64_t* out_val) {
  if (db == nullptr || propname == nullptr || family == nullptr) return -1;
  if (db->rep->GetIntProperty(family, propname, out_val)) return 0;
  return DerivedIntProperty(db->rep.get(), family, propname, out_val) ? 0 : -1;
}

void ApproximateSizes(rocksdb_t* db, ColumnFamilyHandle* family, int num_ranges,
                      const char* const* range_start_key, const size_t* range_start_key_len,
                      const char* const* range_limit_key, const size_t* range_limit_key_len,
                      uint64_t* sizes, char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  if (num_ranges <= 0) return;
  std::vector<shale::Range> ranges;
  ranges.reserve(num_ranges);
  for (int i = 0; i < num_ranges; i++) {
    ranges.emplace_back(View(range_start_key[i], range_start_key_len[i]),
                        View(range_limit_key[i], range_limit_key_len[i]));
  }
  SaveError(errptr, db->rep->GetApproximateSizes(family, ranges.data(), num_ranges, sizes));
}

uint64_t IntPropertyOr0(shale::DB* db, std::string_view name) {
  uint64_t value = 0;
  return db->GetIntProperty(name, &value) ? value : 0;
}

}  // namespace

extern "C" {

char* rocksdb_property_value(rocksdb_t* db, const char* propname) {
  if (db == nullptr) return nullptr;
  return PropertyValue(db, db->rep->DefaultColumnFamily(), propname);
}

char* rocksdb_property_value_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                const char* propname) {
  return PropertyValue(db, FamilyOf(column_family), propname);
}

int rocksdb_property_int(rocksdb_t* db, const char* propname, uint64_t* out_val) {
  if (db == nullptr) return -1;
  return PropertyInt(db, db->rep->DefaultColumnFamily(), propname, out_val);
}

int rocksdb_property_int_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            const char* propname, uint64_t* out_val) {
  return PropertyInt(db, FamilyOf(column_family), propname, out_val);
}

void rocksdb_approximate_sizes(rocksdb_t* db, int num_ranges, const char* const* range_start_key,
                               const size_t* range_start_key_len,
                               const char* const* range_limit_key,
                               const size_t* range_limit_key_len, uint64_t* sizes,
                               char** errptr) {
  if (IsNullArgument(db, "db", errptr)) return;
  ApproximateSizes(db, db->rep->DefaultColumnFamily(), num_ranges, range_start_key,
                   range_start_key_len, range_limit_key, range_limit_key_len, sizes, errptr);
}

void rocksdb_approximate_sizes_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                  int num_ranges, const char* const* range_start_key,
                                  const size_t* range_start_key_len,
                                  const char* const* range_limit_key,
                                  const size_t* range_limit_key_len, uint64_t* sizes,
                                  char** errptr) {
  ApproximateSizes(db, FamilyOf(column_family), num_ranges, range_start_key, range_start_key_len,
                   range_limit_key, range_limit_key_len, sizes, errptr);
}

rocksdb_memory_consumers_t* rocksdb_memory_consumers_create(void) {
  return new rocksdb_memory_consumers_t;
}

void rocksdb_memory_consumers_add_db(rocksdb_memory_consumers_t* consumers, rocksdb_t* db) {
  consumers->dbs.push_back(db);
}

void rocksdb_memory_consumers_add_cache(rocksdb_memory_consumers_t* consumers,
                                        rocksdb_cache_t* cache) {
  consumers->caches.push_back(cache);
}

void rocksdb_memory_consumers_destroy(rocksdb_memory_consumers_t* consumers) { delete consumers; }

rocksdb_memory_usage_t* rocksdb_approximate_memory_usage_create(
    rocksdb_memory_consumers_t* consumers, char** errptr) {
  if (IsNullArgument(consumers, "consumers", errptr)) return nullptr;
  auto* usage = new rocksdb_memory_usage_t;
  std::unordered_set<const shale::Cache*> caches;
  for (rocksdb_t* db : consumers->dbs) {
    if (db == nullptr) continue;
    shale::DB* d = db->rep.get();
    // shale.memory-usage is the DB's (every family's) memtables + block cache + readers (the
    // readers left out when they are charged to the block cache, whose usage counts them
    // then); the memtable part is what remains after the other two.
    const uint64_t all = IntPropertyOr0(d, "shale.memory-usage");
    const uint64_t cache = IntPropertyOr0(d, "shale.block-cache-usage");
    // One reading of the readers' memory: the charged share may move between two reads.
    const uint64_t readers = IntPropertyOr0(d, "shale.estimate-table-readers-mem");
    const uint64_t charged = std::min(readers, IntPropertyOr0(d, "shale.table-readers-mem-charged"));
    const uint64_t others = cache + readers - charged;
    usage->mem_table_total += all > others ? all - others : 0;
    // ShaleDB reports unflushed memtable bytes per family; the public API reaches the default
    // family's only from a rocksdb_t.
    usage->mem_table_unflushed += IntPropertyOr0(d, "shale.cur-size-all-mem-tables");
    usage->mem_table_readers_total += readers;
    const std::shared_ptr<shale::Cache> block_cache = d->GetOptions().table_options.block_cache;
    if (block_cache != nullptr) {
      caches.insert(block_cache.get());  // possibly shared: counted once below
    } else {
      usage->cache_total += cache;  // the DB's own cache, shared with nothing
    }
  }
  for (rocksdb_cache_t* cache : consumers->caches) {
    if (cache != nullptr && cache->rep != nullptr) caches.insert(cache->rep.get());
  }
  for (const shale::Cache* cache : caches) usage->cache_total += cache->GetUsage();
  return usage;
}

void rocksdb_approximate_memory_usage_destroy(rocksdb_memory_usage_t* usage) { delete usage; }

uint64_t rocksdb_approximate_memory_usage_get_mem_table_total(rocksdb_memory_usage_t* usage) {
  return usage->mem_table_total;
}

uint64_t rocksdb_approximate_memory_usage_get_mem_table_unflushed(rocksdb_memory_usage_t* usage) {
  return usage->mem_table_unflushed;
}

uint64_t rocksdb_approximate_memory_usage_get_mem_table_readers_total(
    rocksdb_memory_usage_t* usage) {
  return usage->mem_table_readers_total;
}

uint64_t rocksdb_approximate_memory_usage_get_cache_total(rocksdb_memory_usage_t* usage) {
  return usage->cache_total;
}

}  // extern "C"
