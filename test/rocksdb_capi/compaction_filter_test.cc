// RocksDB's C API, compaction filters end to end (issue 24): a filter made of C callbacks
// (rocksdb_compactionfilter_create) set with rocksdb_options_set_compaction_filter removes and
// rewrites values in rocksdb_compact_range, never in a flush; a factory
// (rocksdb_compactionfilterfactory_create) taken by the options makes one filter per
// compaction and is told it is manual; a filter set together with a factory wins; the
// options borrow the filter and own the factory. Compiled against Debian's rocksdb/c.h.
#include <cstring>
#include <string>

#include "rocksdb_capi/db_test_util.h"
#include "gtest/gtest.h"
#include "rocksdb/c.h"

namespace shale::rocksdb_capi_test {
namespace {

struct FilterState {
  int calls = 0;
  int destroyed = 0;
  int created = 0;
  bool saw_manual = false;
};

const char kChanged[] = "changed";

unsigned char RemoveDelChangeChg(void* arg, int, const char* key, size_t key_length, const char*,
                                 size_t, char** new_value, size_t* new_value_length,
                                 unsigned char* value_changed) {
  auto* state = static_cast<FilterState*>(arg);
  state->calls++;
  const std::string k(key, key_length);
  if (k.rfind("del", 0) == 0) return 1;
  if (k.rfind("chg", 0) == 0) {
    *new_value = const_cast<char*>(kChanged);
    *new_value_length = std::strlen(kChanged);
    *value_changed = 1;
  }
  return 0;
}
void Destroy(void* arg) { static_cast<FilterState*>(arg)->destroyed++; }
const char* Name(void*) { return "test.filter"; }

rocksdb_compactionfilter_t* Create(void* arg, rocksdb_compactionfiltercontext_t* context) {
  auto* state = static_cast<FilterState*>(arg);
  state->created++;
  state->saw_manual = rocksdb_compactionfiltercontext_is_manual_compaction(context) != 0;
  return rocksdb_compactionfilter_create(arg, nullptr, RemoveDelChangeChg, Name);
}

void Put(rocksdb_t* db, const std::string& k, const std::string& v) {
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  char* err = nullptr;
  rocksdb_put(db, wo, k.data(), k.size(), v.data(), v.size(), &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_writeoptions_destroy(wo);
}

void WriteAndFlush(rocksdb_t* db) {
  Put(db, "del1", "a");
  Put(db, "chg1", "b");
  Put(db, "keep1", "c");
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  char* err = nullptr;
  rocksdb_flush(db, fo, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flushoptions_destroy(fo);
}

void ExpectFiltered(rocksdb_t* db) {
  EXPECT_EQ(Get(db, nullptr, "del1"), std::nullopt);
  EXPECT_EQ(Get(db, nullptr, "chg1"), "changed");
  EXPECT_EQ(Get(db, nullptr, "keep1"), "c");
}

TEST(RocksdbCapiCompactionFilterTest, FilterRemovesAndChangesInCompactions) {
  TempDir dir;
  FilterState state;
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(&state, Destroy, RemoveDelChangeChg, Name);
  rocksdb_compactionfilter_set_ignore_snapshots(filter, 1);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_compaction_filter(o, filter);
  char* err = nullptr;
  rocksdb_t* db = rocksdb_open(o, dir.Sub("db").c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  WriteAndFlush(db);
  EXPECT_EQ(state.calls, 0);  // flushes do not filter
  EXPECT_EQ(Get(db, nullptr, "del1"), "a");
  rocksdb_compact_range(db, nullptr, 0, nullptr, 0);
  EXPECT_EQ(state.calls, 3);
  ExpectFiltered(db);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  EXPECT_EQ(state.destroyed, 0);  // borrowed by the options
  rocksdb_compactionfilter_destroy(filter);
  EXPECT_EQ(state.destroyed, 1);
}

TEST(RocksdbCapiCompactionFilterTest, FactoryMakesAFilterPerCompaction) {
  TempDir dir;
  FilterState state;
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_compaction_filter_factory(
      o, rocksdb_compactionfilterfactory_create(&state, Destroy, Create, Name));
  char* err = nullptr;
  rocksdb_t* db = rocksdb_open(o, dir.Sub("db").c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  WriteAndFlush(db);
  EXPECT_EQ(state.created, 0);
  rocksdb_compact_range(db, nullptr, 0, nullptr, 0);
  EXPECT_EQ(state.created, 1);
  EXPECT_TRUE(state.saw_manual);
  ExpectFiltered(db);
  rocksdb_close(db);
  EXPECT_EQ(state.destroyed, 0);  // the options still own the factory
  rocksdb_options_destroy(o);
  EXPECT_EQ(state.destroyed, 1);
}

TEST(RocksdbCapiCompactionFilterTest, FilterWinsOverFactory) {
  TempDir dir;
  FilterState filter_state, factory_state;
  rocksdb_compactionfilter_t* filter =
      rocksdb_compactionfilter_create(&filter_state, nullptr, RemoveDelChangeChg, Name);
  rocksdb_options_t* o = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(o, 1);
  rocksdb_options_set_compaction_filter_factory(
      o, rocksdb_compactionfilterfactory_create(&factory_state, nullptr, Create, Name));
  rocksdb_options_set_compaction_filter(o, filter);
  char* err = nullptr;
  rocksdb_t* db = rocksdb_open(o, dir.Sub("db").c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  WriteAndFlush(db);
  rocksdb_compact_range(db, nullptr, 0, nullptr, 0);
  EXPECT_EQ(factory_state.created, 0);
  EXPECT_EQ(filter_state.calls, 3);
  ExpectFiltered(db);
  rocksdb_close(db);
  rocksdb_options_destroy(o);
  rocksdb_compactionfilter_destroy(filter);
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
