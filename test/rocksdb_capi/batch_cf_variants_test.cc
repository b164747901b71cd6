// RocksDB's C API through Debian's rocksdb/c.h against our librocksdb.so (issue 24): the
// functions of the batch, db, backup and transaction groups that no other test of this folder
// called, each with what RocksDB documents for it:
// - write batches' *_cf and *v (slice-parts) variants and WriteBatchWithIndex's *v variants,
//   written into a DB with a second column family and read back per family (count, iterate,
//   values); delete_range(v)_cf removes the range, WriteBatchWithIndex's range deletions are
//   refused without a record (RocksDB 7.8's WriteBatchWithIndex::DeleteRange is NotSupported);
// - rocksdb_sstfilewriter_merge: an operand in an ingested file combines with the DB's value
//   through the DB's merge operator; a merge into a writer not opened fails through errptr; a
//   key out of order is refused with RocksDB's error and the writer goes on;
// - rocksdb_cancel_all_background_work, then reads and close; memory consumers with a cache;
//   rocksdb_create_dir_if_missing;
// - backup engine options (backup_dir, sync, backup_log_files with restore's keep_log_files,
//   the knobs accepted without effect) and transaction option objects; the transaction
//   functions that can only fail (no transaction DB can be opened here) fail visibly.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

// uint64add's operands and values: 8 bytes, little-endian (the platforms this builds on).
std::string U64(uint64_t v) {
  std::string out(sizeof(v), '\0');
  std::memcpy(out.data(), &v, sizeof(v));
  return out;
}

std::optional<uint64_t> AsU64(const std::optional<std::string>& value) {
  if (!value.has_value() || value->size() != sizeof(uint64_t)) return std::nullopt;
  uint64_t v = 0;
  std::memcpy(&v, value->data(), sizeof(v));
  return v;
}

// What rocksdb_writebatch_iterate / rocksdb_writebatch_wi_iterate reported, one line each.
void OnPut(void* state, const char* k, size_t klen, const char* v, size_t vlen) {
  static_cast<std::vector<std::string>*>(state)->push_back("put " + std::string(k, klen) + "=" +
                                                           std::string(v, vlen));
}
void OnDelete(void* state, const char* k, size_t klen) {
  static_cast<std::vector<std::string>*>(state)->push_back("del " + std::string(k, klen));
}

// A DB (uint64add merge operator) with the families "default" and "two".
class RocksdbCapiVariantsTest : public ::testing::Test {
 protected:
  RocksdbCapiVariantsTest() {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    rocksdb_options_set_create_missing_column_families(options_, 1);
    rocksdb_options_set_uint64add_merge_operator(options_);
    wopts_ = rocksdb_writeoptions_create();
    ropts_ = rocksdb_readoptions_create();
    Open();
  }
  ~RocksdbCapiVariantsTest() override {
    Close();
    rocksdb_readoptions_destroy(ropts_);
    rocksdb_writeoptions_destroy(wopts_);
    rocksdb_options_destroy(options_);
  }

  std::string Path() const { return dir_.Sub("db"); }

  void Open() {
    const char* names[] = {"default", "two"};
    const rocksdb_options_t* family_options[] = {options_, options_};
    rocksdb_column_family_handle_t* handles[2] = {nullptr, nullptr};
    char* err = nullptr;
    db_ = rocksdb_open_column_families(options_, Path().c_str(), 2, names, family_options, handles,
                                       &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    default_ = handles[0];
    two_ = handles[1];
  }
  void Close() {
    if (db_ == nullptr) return;
    rocksdb_column_family_handle_destroy(default_);
    rocksdb_column_family_handle_destroy(two_);
    rocksdb_close(db_);
    db_ = nullptr;
  }

  void Write(rocksdb_writebatch_t* b) {
    char* err = nullptr;
    rocksdb_write(db_, wopts_, b, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  void Put(rocksdb_column_family_handle_t* cf, const std::string& k, const std::string& v) {
    char* err = nullptr;
    rocksdb_put_cf(db_, wopts_, cf, k.data(), k.size(), v.data(), v.size(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  // The keys and values of a family, in order.
  std::vector<std::string> Contents(rocksdb_column_family_handle_t* cf) {
    std::vector<std::string> out;
    rocksdb_iterator_t* it = rocksdb_create_iterator_cf(db_, ropts_, cf);
    for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
      size_t klen = 0;
      size_t vlen = 0;
      const char* k = rocksdb_iter_key(it, &klen);
      const char* v = rocksdb_iter_value(it, &vlen);
      out.push_back(std::string(k, klen) + "=" + std::string(v, vlen));
    }
    char* err = nullptr;
    rocksdb_iter_get_error(it, &err);
    EXPECT_EQ(TakeError(&err), std::nullopt);
    rocksdb_iter_destroy(it);
    return out;
  }

  TempDir dir_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_writeoptions_t* wopts_ = nullptr;
  rocksdb_readoptions_t* ropts_ = nullptr;
  rocksdb_t* db_ = nullptr;
  rocksdb_column_family_handle_t* default_ = nullptr;
  rocksdb_column_family_handle_t* two_ = nullptr;
};

// --- rocksdb_writebatch_*_cf and *v_cf ---

TEST_F(RocksdbCapiVariantsTest, WriteBatchFamilyAndSlicePartVariants) {
  // What the batch will change: keys in both families, a counter to merge into.
  for (rocksdb_column_family_handle_t* cf : {default_, two_}) {
    Put(cf, "gone", "x");
    Put(cf, "gonev", "x");
    for (const char* k : {"r1", "r2", "r3", "s1", "s2", "s9"}) Put(cf, k, "x");
  }
  Put(two_, "n", U64(5));

  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  // Default-family records first: rocksdb_writebatch_iterate reports them, then stops at the
  // first record of another family (RocksDB's C handler implements no *CF method).
  rocksdb_writebatch_put(b, "d", 1, "0", 1);
  const char* key_parts[] = {"ke", "y", "1"};
  const size_t key_sizes[] = {2, 1, 1};
  const char* value_parts[] = {"va", "lue"};
  const size_t value_sizes[] = {2, 3};
  rocksdb_writebatch_putv_cf(b, default_, 3, key_parts, key_sizes, 2, value_parts, value_sizes);
  rocksdb_writebatch_delete_cf(b, default_, "gone", 4);
  rocksdb_writebatch_putv_cf(b, two_, 3, key_parts, key_sizes, 2, value_parts, value_sizes);
  const char* merge_key[] = {"n"};
  const size_t merge_key_size[] = {1};
  const std::string three = U64(3);
  const std::string half_a = three.substr(0, 4);
  const std::string half_b = three.substr(4);
  const char* operand_parts[] = {half_a.data(), half_b.data()};
  const size_t operand_sizes[] = {4, 4};
  rocksdb_writebatch_mergev_cf(b, two_, 1, merge_key, merge_key_size, 2, operand_parts,
                               operand_sizes);
  rocksdb_writebatch_delete_cf(b, two_, "gone", 4);
  const char* gone_parts[] = {"go", "nev"};
  const size_t gone_sizes[] = {2, 3};
  rocksdb_writebatch_deletev_cf(b, two_, 2, gone_parts, gone_sizes);
  rocksdb_writebatch_deletev_cf(b, default_, 2, gone_parts, gone_sizes);
  // [r1, r3) in "two"; [s1, s9) as parts ("s" + "1", "s" + "9") in the default family.
  rocksdb_writebatch_delete_range_cf(b, two_, "r1", 2, "r3", 2);
  const char* start_parts[] = {"s", "1"};
  const size_t start_sizes[] = {1, 1};
  const char* end_parts[] = {"s", "9"};
  const size_t end_sizes[] = {1, 1};
  // (RocksDB's rangev: num_keys parts for the start key and as many for the end key.)
  rocksdb_writebatch_delete_rangev_cf(b, default_, 2, start_parts, start_sizes, end_parts,
                                      end_sizes);
  EXPECT_EQ(rocksdb_writebatch_count(b), 10);

  std::vector<std::string> seen;
  rocksdb_writebatch_iterate(b, &seen, OnPut, OnDelete);
  EXPECT_EQ(seen, (std::vector<std::string>{"put d=0", "put key1=value", "del gone"}));

  // A copy through RocksDB's serialized form keeps every family's record.
  size_t size = 0;
  const char* data = rocksdb_writebatch_data(b, &size);
  rocksdb_writebatch_t* copy = rocksdb_writebatch_create_from(data, size);
  EXPECT_EQ(rocksdb_writebatch_count(copy), 10);
  rocksdb_writebatch_destroy(b);
  Write(copy);
  rocksdb_writebatch_destroy(copy);

  EXPECT_EQ(Contents(default_),
            (std::vector<std::string>{"d=0", "key1=value", "r1=x", "r2=x", "r3=x", "s9=x"}));
  EXPECT_EQ(Contents(two_), (std::vector<std::string>{"key1=value", "n=" + U64(8), "r3=x", "s1=x",
                                                      "s2=x", "s9=x"}));
  EXPECT_EQ(AsU64(Get(db_, two_, "n")), 8u);
  // The same after a reopen (replayed from the WAL).
  Close();
  Open();
  EXPECT_EQ(Get(db_, two_, "r2"), std::nullopt);
  EXPECT_EQ(Get(db_, default_, "s2"), std::nullopt);
  EXPECT_EQ(Get(db_, default_, "r2"), "x");
  EXPECT_EQ(Get(db_, two_, "gonev"), std::nullopt);
  EXPECT_EQ(AsU64(Get(db_, two_, "n")), 8u);
}

// --- rocksdb_writebatch_wi_*v(_cf), delete_rangev(_cf), put_log_data ---

TEST_F(RocksdbCapiVariantsTest, WriteBatchWithIndexSlicePartVariants) {
  Put(default_, "n", U64(10));
  Put(two_, "n", U64(20));
  Put(default_, "old", "x");
  Put(two_, "old", "x");

  rocksdb_writebatch_wi_t* wb = rocksdb_writebatch_wi_create(0, 1);
  const char* k1[] = {"k", "1"};
  const char* k2[] = {"k", "2"};
  const size_t ksz[] = {1, 1};
  const char* v1[] = {"one", "!"};
  const size_t v1sz[] = {3, 1};
  rocksdb_writebatch_wi_putv(wb, 2, k1, ksz, 2, v1, v1sz);
  rocksdb_writebatch_wi_putv_cf(wb, two_, 2, k2, ksz, 2, v1, v1sz);
  const char* n[] = {"n"};
  const size_t nsz[] = {1};
  const std::string one = U64(1);
  const std::string two = U64(2);
  const char* op1[] = {one.data()};
  const char* op2[] = {two.data()};
  const size_t opsz[] = {8};
  rocksdb_writebatch_wi_mergev(wb, 1, n, nsz, 1, op1, opsz);
  rocksdb_writebatch_wi_mergev_cf(wb, two_, 1, n, nsz, 1, op2, opsz);
  const char* old_parts[] = {"o", "ld"};
  const size_t old_sizes[] = {1, 2};
  rocksdb_writebatch_wi_deletev(wb, 2, old_parts, old_sizes);
  rocksdb_writebatch_wi_deletev_cf(wb, two_, 2, old_parts, old_sizes);
  EXPECT_EQ(rocksdb_writebatch_wi_count(wb), 6);

  // Range deletions are refused by RocksDB 7.8's WriteBatchWithIndex, and a log-data blob is no
  // update: none of them adds a record or changes a read.
  const char* a[] = {"a"};
  const char* z[] = {"z"};
  const size_t one_byte[] = {1};
  rocksdb_writebatch_wi_delete_rangev(wb, 1, a, one_byte, z, one_byte);
  rocksdb_writebatch_wi_delete_rangev_cf(wb, two_, 1, a, one_byte, z, one_byte);
  rocksdb_writebatch_wi_put_log_data(wb, "blob", 4);
  EXPECT_EQ(rocksdb_writebatch_wi_count(wb), 6);

  // The batch alone, per family.
  char* err = nullptr;
  size_t len = 0;
  char* v = rocksdb_writebatch_wi_get_from_batch(wb, options_, "k1", 2, &len, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(v, len), "one!");
  rocksdb_free(v);
  v = rocksdb_writebatch_wi_get_from_batch_cf(wb, options_, two_, "k1", 2, &len, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(v, nullptr);  // k1 went to the default family only
  v = rocksdb_writebatch_wi_get_from_batch_cf(wb, options_, two_, "k2", 2, &len, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(v, len), "one!");
  rocksdb_free(v);
  // The batch over the DB: merges combine with the DB's values, deletions hide them.
  v = rocksdb_writebatch_wi_get_from_batch_and_db_cf(wb, db_, ropts_, two_, "n", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(AsU64(std::string(v, len)), 22u);
  rocksdb_free(v);
  v = rocksdb_writebatch_wi_get_from_batch_and_db(wb, db_, ropts_, "old", 3, &len, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(v, nullptr);
  // Only default-family puts and deletes reach the callbacks, up to the first other family's.
  std::vector<std::string> seen;
  rocksdb_writebatch_wi_iterate(wb, &seen, OnPut, OnDelete);
  EXPECT_EQ(seen, (std::vector<std::string>{"put k1=one!"}));

  rocksdb_write_writebatch_wi(db_, wopts_, wb, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_writebatch_wi_destroy(wb);
  EXPECT_EQ(Contents(default_), (std::vector<std::string>{"k1=one!", "n=" + U64(11)}));
  EXPECT_EQ(Contents(two_), (std::vector<std::string>{"k2=one!", "n=" + U64(22)}));
}

// --- rocksdb_sstfilewriter_merge ---

TEST_F(RocksdbCapiVariantsTest, SstFileWriterMergeCombinesWithTheDbsMergeOperator) {
  Put(default_, "counter", U64(5));
  const std::string sst = dir_.Sub("merge.sst");
  rocksdb_envoptions_t* env_opts = rocksdb_envoptions_create();
  rocksdb_sstfilewriter_t* writer = rocksdb_sstfilewriter_create(env_opts, options_);
  char* err = nullptr;
  const std::string three = U64(3);
  // Before the writer has a file: an error through errptr, as RocksDB's "File is not opened".
  rocksdb_sstfilewriter_merge(writer, "counter", 7, three.data(), three.size(), &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_open(writer, sst.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_merge(writer, "counter", 7, three.data(), three.size(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_merge(writer, "fresh", 5, three.data(), three.size(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_finish(writer, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_destroy(writer);

  rocksdb_envoptions_destroy(env_opts);

  rocksdb_ingestexternalfileoptions_t* ingest = rocksdb_ingestexternalfileoptions_create();
  const char* files[] = {sst.c_str()};
  rocksdb_ingest_external_file(db_, files, 1, ingest, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_ingestexternalfileoptions_destroy(ingest);
  EXPECT_EQ(AsU64(Get(db_, default_, "counter")), 8u);  // 5 in the DB + 3 from the file
  EXPECT_EQ(AsU64(Get(db_, default_, "fresh")), 3u);    // an operand over nothing
  // And after a compaction folded them.
  rocksdb_compact_range_cf(db_, default_, nullptr, 0, nullptr, 0);
  EXPECT_EQ(AsU64(Get(db_, default_, "counter")), 8u);
}

// A key that does not come after the last one is refused with RocksDB's InvalidArgument, and,
// as in RocksDB, nothing else happens: the writer goes on and its file holds the keys it took.
TEST_F(RocksdbCapiVariantsTest, SstFileWriterRefusesAKeyOutOfOrderAndGoesOn) {
  const std::string sst = dir_.Sub("ordered.sst");
  rocksdb_envoptions_t* env_opts = rocksdb_envoptions_create();
  rocksdb_sstfilewriter_t* writer = rocksdb_sstfilewriter_create(env_opts, options_);
  char* err = nullptr;
  rocksdb_sstfilewriter_open(writer, sst.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  const std::string three = U64(3);
  rocksdb_sstfilewriter_merge(writer, "b", 1, three.data(), three.size(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  const std::string kRefused = "Invalid argument: Keys must be added in strict ascending order.";
  rocksdb_sstfilewriter_merge(writer, "a", 1, three.data(), three.size(), &err);
  EXPECT_EQ(TakeError(&err), kRefused);
  rocksdb_sstfilewriter_put(writer, "b", 1, "dup", 3, &err);
  EXPECT_EQ(TakeError(&err), kRefused);
  rocksdb_sstfilewriter_delete(writer, "a", 1, &err);
  EXPECT_EQ(TakeError(&err), kRefused);
  rocksdb_sstfilewriter_add(writer, "c", 1, "C", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_finish(writer, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_destroy(writer);
  rocksdb_envoptions_destroy(env_opts);

  rocksdb_ingestexternalfileoptions_t* ingest = rocksdb_ingestexternalfileoptions_create();
  const char* files[] = {sst.c_str()};
  rocksdb_ingest_external_file_cf(db_, two_, files, 1, ingest, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_ingestexternalfileoptions_destroy(ingest);
  EXPECT_EQ(Contents(two_), (std::vector<std::string>{"b=" + U64(3), "c=C"}));
}

// --- rocksdb_cancel_all_background_work ---

// RocksDB stops background work; reads go on, and the DB is closed as usual afterwards.
TEST_F(RocksdbCapiVariantsTest, CancelAllBackgroundWorkThenReadAndClose) {
  Put(default_, "a", "1");
  Put(two_, "b", "2");
  rocksdb_cancel_all_background_work(db_, 0);
  rocksdb_cancel_all_background_work(db_, 1);
  EXPECT_EQ(Get(db_, default_, "a"), "1");
  EXPECT_EQ(Get(db_, two_, "b"), "2");
  Close();
  Open();  // nothing was lost
  EXPECT_EQ(Get(db_, default_, "a"), "1");
  EXPECT_EQ(Get(db_, two_, "b"), "2");
}

// --- rocksdb_memory_consumers_add_cache ---

TEST_F(RocksdbCapiVariantsTest, MemoryConsumersCountACacheOnce) {
  Close();
  rocksdb_cache_t* cache = rocksdb_cache_create_lru(8 << 20);
  rocksdb_block_based_table_options_t* table = rocksdb_block_based_options_create();
  rocksdb_block_based_options_set_block_cache(table, cache);
  rocksdb_options_set_block_based_table_factory(options_, table);
  rocksdb_block_based_options_destroy(table);
  Open();
  for (int i = 0; i < 100; ++i) Put(default_, "key" + std::to_string(i), std::string(100, 'v'));
  rocksdb_flushoptions_t* flush = rocksdb_flushoptions_create();
  char* err = nullptr;
  rocksdb_flush(db_, flush, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flushoptions_destroy(flush);
  EXPECT_EQ(Get(db_, default_, "key7"), std::string(100, 'v'));  // a block read into the cache
  const size_t in_cache = rocksdb_cache_get_usage(cache);
  // More than the open table's charged reader memory (pinned usage): the block is there.
  ASSERT_GT(in_cache, rocksdb_cache_get_pinned_usage(cache));

  // The cache alone.
  rocksdb_memory_consumers_t* consumers = rocksdb_memory_consumers_create();
  rocksdb_memory_consumers_add_cache(consumers, cache);
  rocksdb_memory_usage_t* usage = rocksdb_approximate_memory_usage_create(consumers, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(rocksdb_approximate_memory_usage_get_cache_total(usage), in_cache);
  rocksdb_approximate_memory_usage_destroy(usage);
  // The DB using it and the cache added again: counted once, as RocksDB's MemoryUtil does.
  rocksdb_memory_consumers_add_db(consumers, db_);
  rocksdb_memory_consumers_add_cache(consumers, cache);
  usage = rocksdb_approximate_memory_usage_create(consumers, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(rocksdb_approximate_memory_usage_get_cache_total(usage), in_cache);
  EXPECT_GT(rocksdb_approximate_memory_usage_get_mem_table_total(usage), 0u);
  rocksdb_approximate_memory_usage_destroy(usage);
  rocksdb_memory_consumers_destroy(consumers);
  // NULL consumers: an error through errptr.
  EXPECT_EQ(rocksdb_approximate_memory_usage_create(nullptr, &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  Close();
  rocksdb_cache_destroy(cache);
}

// --- rocksdb_create_dir_if_missing ---

TEST(RocksdbCapiEnv, CreateDirIfMissing) {
  TempDir dir;
  rocksdb_env_t* env = rocksdb_create_default_env();
  char* err = nullptr;
  const std::string made = dir.Sub("made");
  rocksdb_create_dir_if_missing(env, made.c_str(), &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  struct stat st {};
  ASSERT_EQ(stat(made.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  rocksdb_create_dir_if_missing(env, made.c_str(), &err);  // there already: fine
  EXPECT_EQ(TakeError(&err), std::nullopt);
  // Under a regular file: an IO error through errptr.
  const std::string file = dir.Sub("file");
  std::ofstream(file) << "x";
  rocksdb_create_dir_if_missing(env, (file + "/sub").c_str(), &err);
  const std::optional<std::string> error = TakeError(&err);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind("IO error: ", 0), 0u) << *error;
  rocksdb_env_destroy(env);
}

// --- Backup engine options ---

class RocksdbCapiBackupOptionsTest : public RocksdbCapiVariantsTest {
 protected:
  // A backup of the DB with `options`, then the DB closed and restored from it into Path().
  void BackupCloseAndRestore(rocksdb_backup_engine_options_t* options,
                             rocksdb_restore_options_t* restore,
                             const std::function<void()>& after_backup = nullptr) {
    char* err = nullptr;
    rocksdb_env_t* env = rocksdb_create_default_env();
    rocksdb_backup_engine_t* be = rocksdb_backup_engine_open_opts(options, env, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    rocksdb_backup_engine_create_new_backup(be, db_, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    if (after_backup) after_backup();
    Close();
    rocksdb_backup_engine_restore_db_from_latest_backup(be, Path().c_str(), Path().c_str(), restore,
                                                        &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    rocksdb_backup_engine_close(be);
    rocksdb_env_destroy(env);
    Open();
  }
};

TEST_F(RocksdbCapiBackupOptionsTest, GettersReadBackWhatWasSet) {
  rocksdb_backup_engine_options_t* o = rocksdb_backup_engine_options_create("/unused");
  EXPECT_EQ(rocksdb_backup_engine_options_get_share_table_files(o), 1);
  rocksdb_backup_engine_options_set_share_table_files(o, 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_share_table_files(o), 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_sync(o), 1);
  rocksdb_backup_engine_options_set_sync(o, 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_sync(o), 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_backup_log_files(o), 1);
  rocksdb_backup_engine_options_set_backup_log_files(o, 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_backup_log_files(o), 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_restore_rate_limit(o), 0u);
  rocksdb_backup_engine_options_set_restore_rate_limit(o, 1 << 20);
  EXPECT_EQ(rocksdb_backup_engine_options_get_restore_rate_limit(o), 1u << 20);
  EXPECT_EQ(rocksdb_backup_engine_options_get_callback_trigger_interval_size(o), 4u << 20);
  rocksdb_backup_engine_options_set_callback_trigger_interval_size(o, 1 << 20);
  EXPECT_EQ(rocksdb_backup_engine_options_get_callback_trigger_interval_size(o), 1u << 20);
  EXPECT_EQ(rocksdb_backup_engine_options_get_max_valid_backups_to_open(o), INT32_MAX);
  rocksdb_backup_engine_options_set_max_valid_backups_to_open(o, 3);
  EXPECT_EQ(rocksdb_backup_engine_options_get_max_valid_backups_to_open(o), 3);
  // RocksDB 7.8's default: kUseDbSessionId | kFlagIncludeFileSize.
  EXPECT_EQ(
      static_cast<unsigned>(rocksdb_backup_engine_options_get_share_files_with_checksum_naming(o)),
      0x80000002u);
  rocksdb_backup_engine_options_set_share_files_with_checksum_naming(o, 0x2);
  EXPECT_EQ(rocksdb_backup_engine_options_get_share_files_with_checksum_naming(o), 0x2);
  rocksdb_backup_engine_options_destroy(o);
}

// set_backup_dir replaces the directory given at create; the knobs accepted without effect
// (env, share_table_files, rate limits, ...) leave backup and restore working; sync off too.
TEST_F(RocksdbCapiBackupOptionsTest, BackupDirAndKnobs) {
  Put(default_, "a", "1");
  Put(two_, "b", "2");
  const std::string first = dir_.Sub("first_dir");
  const std::string backups = dir_.Sub("backups");
  rocksdb_backup_engine_options_t* o = rocksdb_backup_engine_options_create(first.c_str());
  rocksdb_backup_engine_options_set_backup_dir(o, backups.c_str());
  rocksdb_env_t* env = rocksdb_create_default_env();
  rocksdb_backup_engine_options_set_env(o, env);
  rocksdb_backup_engine_options_set_share_table_files(o, 0);
  rocksdb_backup_engine_options_set_sync(o, 0);
  rocksdb_backup_engine_options_set_restore_rate_limit(o, 1 << 20);
  rocksdb_backup_engine_options_set_callback_trigger_interval_size(o, 1 << 20);
  rocksdb_backup_engine_options_set_max_valid_backups_to_open(o, 8);
  rocksdb_backup_engine_options_set_share_files_with_checksum_naming(o, 0x2);
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  BackupCloseAndRestore(o, restore, [&] { Put(default_, "a", "after the backup"); });
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_options_destroy(o);
  rocksdb_env_destroy(env);
  struct stat st {};
  EXPECT_EQ(stat(backups.c_str(), &st), 0);
  EXPECT_NE(stat(first.c_str(), &st), 0) << "the first directory was used";
  EXPECT_EQ(Get(db_, default_, "a"), "1");
  EXPECT_EQ(Get(db_, two_, "b"), "2");
}

// backup_log_files off: the backup flushes instead of copying WALs (RocksDB's use: a DB whose
// WALs are kept elsewhere); keep_log_files on the restore keeps the DB's WALs, so writes made
// after the backup come back on top of it. Without keep_log_files they are gone.
TEST_F(RocksdbCapiBackupOptionsTest, BackupLogFilesOffWithKeepLogFilesOnRestore) {
  const std::string backups = dir_.Sub("backups");
  for (int keep : {1, 0}) {
    Put(default_, "in_backup", "1");
    Put(two_, "in_backup", "2");
    rocksdb_backup_engine_options_t* o = rocksdb_backup_engine_options_create(backups.c_str());
    rocksdb_backup_engine_options_set_backup_log_files(o, 0);
    rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
    rocksdb_restore_options_set_keep_log_files(restore, keep);
    BackupCloseAndRestore(o, restore, [&] { Put(default_, "later", "3"); });
    rocksdb_restore_options_destroy(restore);
    rocksdb_backup_engine_options_destroy(o);
    EXPECT_EQ(Get(db_, default_, "in_backup"), "1") << keep;
    EXPECT_EQ(Get(db_, two_, "in_backup"), "2") << keep;
    EXPECT_EQ(Get(db_, default_, "later"), keep ? std::optional<std::string>("3") : std::nullopt)
        << "keep_log_files " << keep;
    char* err = nullptr;
    rocksdb_delete_cf(db_, wopts_, default_, "later", 5, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
}

// --- Transactions: option objects work; what needs a transaction DB fails visibly ---

TEST(RocksdbCapiTransactions, OptionObjectsWorkAndTheDbFunctionsFailVisibly) {
  rocksdb_transactiondb_options_t* tdb = rocksdb_transactiondb_options_create();
  rocksdb_transactiondb_options_set_max_num_locks(tdb, 100);
  rocksdb_transactiondb_options_set_num_stripes(tdb, 32);
  rocksdb_transactiondb_options_set_transaction_lock_timeout(tdb, 500);
  rocksdb_transactiondb_options_set_default_lock_timeout(tdb, 250);
  rocksdb_transaction_options_t* txn = rocksdb_transaction_options_create();
  rocksdb_transaction_options_set_set_snapshot(txn, 1);
  rocksdb_transaction_options_set_deadlock_detect(txn, 1);
  rocksdb_transaction_options_set_lock_timeout(txn, 100);
  rocksdb_transaction_options_set_expiration(txn, 1000);
  rocksdb_transaction_options_set_deadlock_detect_depth(txn, 10);
  rocksdb_transaction_options_set_max_write_batch_size(txn, 1 << 20);
  rocksdb_transaction_options_set_skip_prepare(txn, 0);
  rocksdb_optimistictransaction_options_t* otxn = rocksdb_optimistictransaction_options_create();
  rocksdb_optimistictransaction_options_set_set_snapshot(otxn, 1);

  // The opens that take them fail through errptr, naming the function.
  TempDir dir;
  rocksdb_options_t* options = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(options, 1);
  char* err = nullptr;
  EXPECT_EQ(rocksdb_transactiondb_open(options, tdb, dir.Sub("t").c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err),
            "Not implemented: Not supported by ShaleDB: rocksdb_transactiondb_open");
  EXPECT_EQ(rocksdb_optimistictransactiondb_open(options, dir.Sub("o").c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err),
            "Not implemented: Not supported by ShaleDB: rocksdb_optimistictransactiondb_open");
  // So no transaction DB handle exists: the functions that take one return their failure
  // values (NULL, -1) for the only handle a client can have, NULL.
  rocksdb_writeoptions_t* wopts = rocksdb_writeoptions_create();
  EXPECT_EQ(rocksdb_optimistictransaction_begin(nullptr, wopts, otxn, nullptr), nullptr);
  EXPECT_EQ(rocksdb_optimistictransactiondb_get_base_db(nullptr), nullptr);
  EXPECT_EQ(rocksdb_optimistictransactiondb_property_value(nullptr, "rocksdb.stats"), nullptr);
  uint64_t value = 7;
  EXPECT_EQ(rocksdb_optimistictransactiondb_property_int(nullptr, "rocksdb.stats", &value), -1);
  EXPECT_EQ(rocksdb_transaction_begin(nullptr, wopts, txn, nullptr), nullptr);
  EXPECT_EQ(rocksdb_transactiondb_create_snapshot(nullptr), nullptr);
  EXPECT_EQ(rocksdb_transactiondb_property_value(nullptr, "rocksdb.stats"), nullptr);
  EXPECT_EQ(rocksdb_transactiondb_property_int(nullptr, "rocksdb.stats", &value), -1);
  size_t count = 9;
  EXPECT_EQ(rocksdb_transactiondb_get_prepared_transactions(nullptr, &count), nullptr);
  EXPECT_EQ(count, 0u);
  rocksdb_writeoptions_destroy(wopts);

  rocksdb_options_destroy(options);
  rocksdb_optimistictransaction_options_destroy(otxn);
  rocksdb_transaction_options_destroy(txn);
  rocksdb_transactiondb_options_destroy(tdb);
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
