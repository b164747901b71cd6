// The db group's functions of RocksDB's C API (issue 24) over ShaleDB, called through
// Debian's rocksdb/c.h against lib/shale-rocksdb/librocksdb.so: opening (and the error texts
// RocksDB clients parse), column families, reads, writes, snapshots, iterators with bounds,
// properties, approximate sizes, compaction, flushes, checkpoints, SstFileWriter and
// ingestion, live-file and column-family metadata, destroy_db, the functions ShaleDB does not
// support, and bad inputs.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

// `n` bytes no codec can shrink (the default compression of rocksdb_options_create is Snappy, and
// the size checks below want table files as large as the data), the same for the same seed.
std::string IncompressibleValue(uint32_t seed, size_t n) {
  std::string out(n, '\0');
  uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1);
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  return out;
}

// A DB opened with create_if_missing in a fresh directory, and default read/write options.
class RocksDbCApiDbTest : public testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    ro_ = rocksdb_readoptions_create();
    wo_ = rocksdb_writeoptions_create();
    path_ = dir_.Sub("db");
    Open();
  }
  void TearDown() override {
    Close();
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_readoptions_destroy(ro_);
    rocksdb_options_destroy(options_);
  }
  void Open() {
    char* err = nullptr;
    db_ = rocksdb_open(options_, path_.c_str(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    ASSERT_NE(db_, nullptr);
  }
  void Close() {
    rocksdb_close(db_);
    db_ = nullptr;
  }
  void Put(const std::string& key, const std::string& value) {
    char* err = nullptr;
    rocksdb_put(db_, wo_, key.data(), key.size(), value.data(), value.size(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  void Flush() {
    rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
    char* err = nullptr;
    rocksdb_flush(db_, fo, &err);
    rocksdb_flushoptions_destroy(fo);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }

  TempDir dir_;
  std::string path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_readoptions_t* ro_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_t* db_ = nullptr;
};

TEST_F(RocksDbCApiDbTest, OpenCloseReopenKeepsData) {
  Put("k1", "v1");
  Put("k2", std::string("a\0b", 3));
  EXPECT_EQ(Get(db_, nullptr, "k1"), "v1");
  Close();
  Open();
  EXPECT_EQ(Get(db_, nullptr, "k1"), "v1");
  EXPECT_EQ(Get(db_, nullptr, "k2"), std::string("a\0b", 3));
  EXPECT_EQ(Get(db_, nullptr, "absent"), std::nullopt);
  // Empty keys and values are valid.
  Put("", "");
  EXPECT_EQ(Get(db_, nullptr, ""), "");
}

// The RocksDB knobs the options were accepted with but without effect are named in the info
// LOG at open (the DB's options and each family's).
TEST_F(RocksDbCApiDbTest, KnobsAcceptedWithoutEffectAreLoggedAtOpen) {
  Close();
  rocksdb_options_t* family = rocksdb_options_create();
  rocksdb_options_set_table_cache_numshardbits(options_, 5);
  rocksdb_options_set_table_cache_numshardbits(family, 3);
  const char* names[] = {"default", "other"};
  const rocksdb_options_t* family_options[] = {options_, family};
  rocksdb_column_family_handle_t* h[2];
  rocksdb_options_set_create_missing_column_families(options_, 1);
  char* err = nullptr;
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, names, family_options, h, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  for (auto* handle : h) rocksdb_column_family_handle_destroy(handle);
  rocksdb_options_destroy(family);
  Close();
  std::ifstream log(path_ + "/LOG");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("table_cache_numshardbits=5"), std::string::npos) << text;
  EXPECT_NE(text.find("table_cache_numshardbits=3"), std::string::npos) << text;
}

TEST_F(RocksDbCApiDbTest, MissingDbIsRocksDbsInvalidArgumentText) {
  rocksdb_options_t* options = rocksdb_options_create();  // create_if_missing is false
  const std::string missing = dir_.Sub("missing");
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open(options, missing.c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err),
            "Invalid argument: " + missing +
                "/CURRENT: does not exist (create_if_missing is false)");
  rocksdb_options_destroy(options);
}

TEST_F(RocksDbCApiDbTest, ErrorIfExists) {
  rocksdb_options_t* options = rocksdb_options_create();
  rocksdb_options_set_error_if_exists(options, 1);
  Close();
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open(options, path_.c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err), "Invalid argument: " + path_ + ": exists (error_if_exists is true)");
  rocksdb_options_destroy(options);
  Open();
}

TEST_F(RocksDbCApiDbTest, SecondOpenInThisProcessIsRocksDbsLockText) {
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open(options_, path_.c_str(), &err), nullptr);
  const std::optional<std::string> message = TakeError(&err);
  ASSERT_NE(message, std::nullopt);
  EXPECT_EQ(message->rfind("IO error: lock hold by current process", 0), 0u) << *message;
  EXPECT_NE(message->find(path_ + "/LOCK: No locks available"), std::string::npos) << *message;
  // The DB open first is unharmed.
  Put("k", "v");
  EXPECT_EQ(Get(db_, nullptr, "k"), "v");
}

TEST_F(RocksDbCApiDbTest, OpenLockedByAnotherProcessIsRocksDbsLockText) {
  Close();
  const std::string lock_file = path_ + "/LOCK";
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another process holding the DB's LOCK, as a RocksDB or ShaleDB process would.
    const int fd = open(lock_file.c_str(), O_RDWR | O_CREAT, 0644);
    struct flock fl;
    std::memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    const char ok = (fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0) ? '1' : '0';
    if (write(ready[1], &ok, 1) != 1) _exit(1);
    char c;
    if (read(done[0], &c, 1) != 1) _exit(1);
    _exit(0);
  }
  char ok = '0';
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, '1');
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open(options_, path_.c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err),
            "IO error: While lock file: " + lock_file + ": Resource temporarily unavailable");
  ASSERT_EQ(write(done[1], "x", 1), 1);
  int status = 0;
  waitpid(child, &status, 0);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) close(fd);
  Open();  // free again
}

TEST_F(RocksDbCApiDbTest, BadInputsFailThroughErrptr) {
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open(nullptr, path_.c_str(), &err), nullptr);
  EXPECT_EQ(TakeError(&err), "Invalid argument: options is NULL");
  EXPECT_EQ(rocksdb_open(options_, nullptr, &err), nullptr);
  EXPECT_EQ(TakeError(&err), "Invalid argument: name is NULL");
  rocksdb_put(nullptr, wo_, "k", 1, "v", 1, &err);
  EXPECT_EQ(TakeError(&err), "Invalid argument: db is NULL");
  // A NULL column family handle is refused, not a crash.
  rocksdb_put_cf(db_, wo_, nullptr, "k", 1, "v", 1, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  // NULL read/write options are the defaults.
  rocksdb_put(db_, nullptr, "k", 1, "v", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  size_t len = 7;
  char* value = rocksdb_get(db_, nullptr, "k", 1, &len, &err);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(std::string(value, len), "v");
  rocksdb_free(value);
  // Absent: NULL, length 0, no error.
  value = rocksdb_get(db_, ro_, "nope", 4, &len, &err);
  EXPECT_EQ(value, nullptr);
  EXPECT_EQ(len, 0u);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  // An error already in *errptr is replaced (and freed) by the next one.
  rocksdb_put(nullptr, wo_, "k", 1, "v", 1, &err);
  rocksdb_put(nullptr, wo_, "k", 1, "v", 1, &err);
  EXPECT_EQ(TakeError(&err), "Invalid argument: db is NULL");
  // Releasing and freeing NULL is harmless, as in RocksDB.
  rocksdb_close(nullptr);
  rocksdb_free(nullptr);
  rocksdb_release_snapshot(db_, nullptr);
  rocksdb_column_family_handle_destroy(nullptr);
  EXPECT_EQ(rocksdb_property_value(nullptr, "rocksdb.stats"), nullptr);
  EXPECT_EQ(rocksdb_livefiles_count(nullptr), 0);
  char* names_err = nullptr;
  size_t n = 0;
  EXPECT_EQ(rocksdb_list_column_families(options_, nullptr, &n, &names_err), nullptr);
  EXPECT_EQ(TakeError(&names_err), "Invalid argument: name is NULL");
}

TEST_F(RocksDbCApiDbTest, NotSupportedFunctionsFailVisibly) {
  char* err = nullptr;
  auto expect_not_supported = [&](const char* function) {
    const std::optional<std::string> message = TakeError(&err);
    ASSERT_NE(message, std::nullopt) << function;
    EXPECT_NE(message->find(std::string("Not supported by ShaleDB: ") + function),
              std::string::npos)
        << *message;
  };
  EXPECT_EQ(rocksdb_open_with_ttl(options_, dir_.Sub("ttl").c_str(), 60, &err), nullptr);
  expect_not_supported("rocksdb_open_with_ttl");
  // rocksdb_repair_db works (rocksdb_capi_db_repair_test); here the DB is open: its LOCK.
  rocksdb_repair_db(options_, path_.c_str(), &err);
  const std::optional<std::string> locked = TakeError(&err);
  ASSERT_NE(locked, std::nullopt);
  EXPECT_NE(locked->find(path_ + "/LOCK"), std::string::npos) << *locked;
  // Secondary instances are supported (rocksdb_capi_db_secondary_test); a primary does not
  // catch up, with RocksDB's text.
  rocksdb_try_catch_up_with_primary(db_, &err);
  EXPECT_EQ(TakeError(&err), "Not implemented: Supported only by secondary instance");
  rocksdb_put_with_ts(db_, wo_, "k", 1, "t", 1, "v", 1, &err);
  expect_not_supported("rocksdb_put_with_ts");
  rocksdb_flush_wal(db_, 1, &err);  // supported (DB::FlushWAL)
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flush_wal(db_, 0, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  // A TTL of 0 or less means no expiry in RocksDB: a plain open.
  rocksdb_t* no_ttl = rocksdb_open_with_ttl(options_, dir_.Sub("ttl0").c_str(), 0, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_NE(no_ttl, nullptr);
  rocksdb_close(no_ttl);
}

TEST_F(RocksDbCApiDbTest, WritesAndBatches) {
  Put("a", "1");
  Put("b", "2");
  Put("c", "3");
  char* err = nullptr;
  rocksdb_delete(db_, wo_, "a", 1, &err);
  rocksdb_singledelete(db_, wo_, "b", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "a"), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "b"), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "c"), "3");
  Put("d", "4");
  Put("e", "5");
  rocksdb_column_family_handle_t* dflt = nullptr;
  // delete_range exists only with a family in 7.8: use a family handle from a reopen.
  Close();
  const char* names[] = {"default"};
  const rocksdb_options_t* cf_options[] = {options_};
  rocksdb_column_family_handle_t* handles[1];
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 1, names, cf_options, handles, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  dflt = handles[0];
  rocksdb_delete_range_cf(db_, wo_, dflt, "c", 1, "e", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, dflt, "c"), std::nullopt);
  EXPECT_EQ(Get(db_, dflt, "d"), std::nullopt);
  EXPECT_EQ(Get(db_, dflt, "e"), "5");
  // End before begin: InvalidArgument.
  rocksdb_delete_range_cf(db_, wo_, dflt, "z", 1, "a", 1, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);

  rocksdb_writebatch_t* batch = rocksdb_writebatch_create();
  rocksdb_writebatch_put(batch, "x", 1, "10", 2);
  rocksdb_writebatch_put_cf(batch, dflt, "y", 1, "20", 2);
  rocksdb_writebatch_delete(batch, "e", 1);
  rocksdb_write(db_, wo_, batch, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_writebatch_destroy(batch);
  EXPECT_EQ(Get(db_, nullptr, "x"), "10");
  EXPECT_EQ(Get(db_, dflt, "y"), "20");
  EXPECT_EQ(Get(db_, nullptr, "e"), std::nullopt);
  rocksdb_write(db_, wo_, nullptr, &err);
  EXPECT_EQ(TakeError(&err), "Invalid argument: batch is NULL");
  rocksdb_column_family_handle_destroy(dflt);
}

TEST_F(RocksDbCApiDbTest, MergeWithOperatorFromOptionsString) {
  Close();
  rocksdb_options_t* merge_options = rocksdb_options_create();
  char* err = nullptr;
  rocksdb_get_options_from_string(options_, "merge_operator=stringappend", merge_options, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  db_ = rocksdb_open(merge_options, path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_merge(db_, wo_, "k", 1, "a", 1, &err);
  rocksdb_merge(db_, wo_, "k", 1, "b", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "k"), "a,b");
  rocksdb_get_options_from_string(options_, "no_such_option=1", merge_options, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_options_destroy(merge_options);
  // Without a merge operator, merge fails (a fresh DB: this one holds merge operands, which
  // only a DB with the operator can replay).
  Close();
  path_ = dir_.Sub("db2");
  Open();
  rocksdb_merge(db_, wo_, "j", 1, "a", 1, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
}

TEST_F(RocksDbCApiDbTest, MultiGetPinnedAndKeyMayExist) {
  Put("a", "1");
  Put("b", "22");
  const char* keys[] = {"a", "missing", "b"};
  const size_t sizes[] = {1, 7, 1};
  char* values[3];
  size_t value_sizes[3];
  char* errs[3];
  rocksdb_multi_get(db_, ro_, 3, keys, sizes, values, value_sizes, errs);
  EXPECT_EQ(std::string(values[0], value_sizes[0]), "1");
  EXPECT_EQ(values[1], nullptr);
  EXPECT_EQ(std::string(values[2], value_sizes[2]), "22");
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(errs[i], nullptr);
    rocksdb_free(values[i]);
  }

  char* err = nullptr;
  rocksdb_pinnableslice_t* pinned = rocksdb_get_pinned(db_, ro_, "b", 1, &err);
  ASSERT_NE(pinned, nullptr);
  size_t len = 0;
  const char* data = rocksdb_pinnableslice_value(pinned, &len);
  EXPECT_EQ(std::string(data, len), "22");
  Put("b", "overwritten");  // the pinned value stays as read
  data = rocksdb_pinnableslice_value(pinned, &len);
  EXPECT_EQ(std::string(data, len), "22");
  rocksdb_pinnableslice_destroy(pinned);
  EXPECT_EQ(rocksdb_get_pinned(db_, ro_, "missing", 7, &err), nullptr);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(rocksdb_pinnableslice_value(nullptr, &len), nullptr);

  char* value = nullptr;
  size_t value_len = 0;
  unsigned char found = 9;
  EXPECT_EQ(rocksdb_key_may_exist(db_, ro_, "a", 1, &value, &value_len, nullptr, 0, &found), 1);
  EXPECT_EQ(found, 1);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(std::string(value, value_len), "1");
  rocksdb_free(value);
  value = nullptr;
  // An absent key: 0, and (RocksDB 7.8's quirk, which grocksdb's KeyMayExistsCF relies on)
  // value_found = 1 with an empty value the caller frees.
  EXPECT_EQ(rocksdb_key_may_exist(db_, ro_, "zz", 2, &value, &value_len, nullptr, 0, &found), 0);
  EXPECT_EQ(found, 1);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value_len, 0u);
  rocksdb_free(value);
  value = nullptr;
  // Without value_found nothing is returned.
  EXPECT_EQ(rocksdb_key_may_exist(db_, ro_, "a", 1, &value, &value_len, nullptr, 0, nullptr), 1);
  EXPECT_EQ(value, nullptr);
}

TEST_F(RocksDbCApiDbTest, SnapshotsAndSequenceNumbers) {
  Put("k", "old");
  const uint64_t seq = rocksdb_get_latest_sequence_number(db_);
  EXPECT_GT(seq, 0u);
  const rocksdb_snapshot_t* snapshot = rocksdb_create_snapshot(db_);
  Put("k", "new");
  EXPECT_EQ(rocksdb_get_latest_sequence_number(db_), seq + 1);
  rocksdb_readoptions_t* at = rocksdb_readoptions_create();
  rocksdb_readoptions_set_snapshot(at, snapshot);
  EXPECT_EQ(Get(db_, nullptr, "k", at), "old");
  EXPECT_EQ(Get(db_, nullptr, "k"), "new");
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, at);
  rocksdb_iter_seek_to_first(it);
  ASSERT_TRUE(rocksdb_iter_valid(it));
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_iter_value(it, l); }), "old");
  rocksdb_iter_destroy(it);
  rocksdb_readoptions_destroy(at);
  rocksdb_release_snapshot(db_, snapshot);
}

std::vector<std::string> Keys(rocksdb_iterator_t* it) {
  std::vector<std::string> keys;
  for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
    size_t len;
    const char* k = rocksdb_iter_key(it, &len);
    keys.emplace_back(k, len);
  }
  char* err = nullptr;
  rocksdb_iter_get_error(it, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  return keys;
}

TEST_F(RocksDbCApiDbTest, IteratorBoundsOutliveTheReadOptions) {
  for (const char* k : {"a", "b", "c", "d", "e"}) Put(k, "v");
  rocksdb_readoptions_t* bounded = rocksdb_readoptions_create();
  rocksdb_readoptions_set_iterate_lower_bound(bounded, "b", 1);
  rocksdb_readoptions_set_iterate_upper_bound(bounded, "d", 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, bounded);
  // RocksDB's C API copies the bounds into the read options; the iterator keeps its own, so
  // destroying or changing the options does not affect it.
  rocksdb_readoptions_set_iterate_upper_bound(bounded, "e", 1);
  rocksdb_readoptions_destroy(bounded);
  EXPECT_EQ(Keys(it), (std::vector<std::string>{"b", "c"}));
  rocksdb_iter_seek_to_last(it);
  ASSERT_TRUE(rocksdb_iter_valid(it));
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_iter_key(it, l); }), "c");
  rocksdb_iter_destroy(it);

  it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(Keys(it), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  rocksdb_iter_destroy(it);
}

TEST_F(RocksDbCApiDbTest, ColumnFamiliesCreateListDropReopen) {
  char* err = nullptr;
  rocksdb_column_family_handle_t* logs = rocksdb_create_column_family(db_, options_, "logs", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(logs, nullptr);
  EXPECT_GT(rocksdb_column_family_handle_get_id(logs), 0u);
  size_t name_len = 0;
  char* name = rocksdb_column_family_handle_get_name(logs, &name_len);
  EXPECT_EQ(std::string(name, name_len), "logs");
  rocksdb_free(name);
  // A second family of the same name is refused.
  EXPECT_EQ(rocksdb_create_column_family(db_, options_, "logs", &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* tmp = rocksdb_create_column_family(db_, options_, "tmp", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);

  rocksdb_put_cf(db_, wo_, logs, "k", 1, "in-logs", 7, &err);
  Put("k", "in-default");
  EXPECT_EQ(Get(db_, logs, "k"), "in-logs");
  EXPECT_EQ(Get(db_, nullptr, "k"), "in-default");
  rocksdb_drop_column_family(db_, tmp, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_destroy(tmp);
  rocksdb_column_family_handle_destroy(logs);
  Close();

  size_t count = 0;
  char** names = rocksdb_list_column_families(options_, path_.c_str(), &count, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_EQ(count, 2u);
  EXPECT_STREQ(names[0], "default");
  EXPECT_STREQ(names[1], "logs");
  rocksdb_list_column_families_destroy(names, count);

  // Opening without naming every family fails; naming them all works.
  const char* only_default[] = {"default"};
  const rocksdb_options_t* one_options[] = {options_};
  rocksdb_column_family_handle_t* one_handle[1];
  EXPECT_EQ(rocksdb_open_column_families(options_, path_.c_str(), 1, only_default, one_options,
                                         one_handle, &err),
            nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  const char* both[] = {"default", "logs"};
  const rocksdb_options_t* both_options[] = {options_, options_};
  rocksdb_column_family_handle_t* handles[2];
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, both, both_options, handles,
                                     &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, handles[1], "k"), "in-logs");
  EXPECT_EQ(Get(db_, handles[0], "k"), "in-default");

  // multi_get_cf across families, and create_iterators at one consistent state.
  const rocksdb_column_family_handle_t* cfs[] = {handles[0], handles[1]};
  const char* keys[] = {"k", "k"};
  const size_t key_sizes[] = {1, 1};
  char* values[2];
  size_t value_sizes[2];
  char* errs[2];
  rocksdb_multi_get_cf(db_, ro_, cfs, 2, keys, key_sizes, values, value_sizes, errs);
  EXPECT_EQ(std::string(values[0], value_sizes[0]), "in-default");
  EXPECT_EQ(std::string(values[1], value_sizes[1]), "in-logs");
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(errs[i], nullptr);
    rocksdb_free(values[i]);
  }
  rocksdb_pinnableslice_t* pinned[2];
  const char* batched_keys[] = {"k", "x"};
  rocksdb_batched_multi_get_cf(db_, ro_, handles[1], 2, batched_keys, key_sizes, pinned, errs,
                               false);
  ASSERT_NE(pinned[0], nullptr);
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_pinnableslice_value(pinned[0], l); }),
            "in-logs");
  EXPECT_EQ(pinned[1], nullptr);
  EXPECT_EQ(errs[0], nullptr);
  EXPECT_EQ(errs[1], nullptr);
  rocksdb_pinnableslice_destroy(pinned[0]);

  rocksdb_readoptions_t* bounded = rocksdb_readoptions_create();
  rocksdb_readoptions_set_iterate_upper_bound(bounded, "l", 1);
  rocksdb_iterator_t* its[2];
  rocksdb_create_iterators(db_, bounded, handles, its, 2, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_readoptions_destroy(bounded);
  rocksdb_iter_destroy(its[0]);  // the other keeps the shared bounds alive
  EXPECT_EQ(Keys(its[1]), (std::vector<std::string>{"k"}));
  rocksdb_iter_destroy(its[1]);
  rocksdb_iterator_t* it = rocksdb_create_iterator_cf(db_, ro_, handles[1]);
  EXPECT_EQ(Keys(it), (std::vector<std::string>{"k"}));
  rocksdb_iter_destroy(it);

  rocksdb_column_family_handle_destroy(handles[0]);
  rocksdb_column_family_handle_destroy(handles[1]);
  Close();

  // create_missing_column_families creates the families an open names.
  const char* three[] = {"default", "logs", "new"};
  const rocksdb_options_t* three_options[] = {options_, options_, options_};
  rocksdb_column_family_handle_t* three_handles[3];
  EXPECT_EQ(rocksdb_open_column_families(options_, path_.c_str(), 3, three, three_options,
                                         three_handles, &err),
            nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_options_set_create_missing_column_families(options_, 1);
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 3, three, three_options,
                                     three_handles, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, three_handles[2], "k"), std::nullopt);
  for (auto* h : three_handles) rocksdb_column_family_handle_destroy(h);
}

// The _cf variants read and write the family they name, and each family is opened with the
// options of its own descriptor (here: a merge operator for one family only).
TEST_F(RocksDbCApiDbTest, ColumnFamilyVariantsAndPerFamilyOptions) {
  Close();
  rocksdb_options_t* merging = rocksdb_options_create();
  char* err = nullptr;
  rocksdb_get_options_from_string(options_, "merge_operator=stringappend", merging, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_options_set_create_missing_column_families(options_, 1);
  const char* names[] = {"default", "counters"};
  const rocksdb_options_t* family_options[] = {options_, merging};
  rocksdb_column_family_handle_t* h[2];
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, names, family_options, h, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* cf = h[1];

  rocksdb_merge_cf(db_, wo_, cf, "m", 1, "x", 1, &err);
  rocksdb_merge_cf(db_, wo_, cf, "m", 1, "y", 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, cf, "m"), "x,y");
  rocksdb_merge_cf(db_, wo_, h[0], "m", 1, "x", 1, &err);  // the default family has none
  EXPECT_NE(TakeError(&err), std::nullopt);

  rocksdb_put_cf(db_, wo_, cf, "a", 1, "1", 1, &err);
  rocksdb_put_cf(db_, wo_, cf, "b", 1, "2", 1, &err);
  rocksdb_put_cf(db_, wo_, cf, "c", 1, "3", 1, &err);
  rocksdb_singledelete_cf(db_, wo_, cf, "b", 1, &err);
  rocksdb_delete_cf(db_, wo_, cf, "c", 1, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "a"), std::nullopt);  // not in the default family
  EXPECT_EQ(Get(db_, cf, "a"), "1");
  EXPECT_EQ(Get(db_, cf, "b"), std::nullopt);
  EXPECT_EQ(Get(db_, cf, "c"), std::nullopt);

  rocksdb_pinnableslice_t* pinned = rocksdb_get_pinned_cf(db_, ro_, cf, "a", 1, &err);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_pinnableslice_value(pinned, l); }), "1");
  rocksdb_pinnableslice_destroy(pinned);
  char* value = nullptr;
  size_t value_len = 0;
  unsigned char found = 0;
  EXPECT_EQ(rocksdb_key_may_exist_cf(db_, ro_, cf, "a", 1, &value, &value_len, nullptr, 0,
                                     &found),
            1);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(std::string(value, value_len), "1");
  rocksdb_free(value);
  value = nullptr;
  EXPECT_EQ(rocksdb_key_may_exist_cf(db_, ro_, h[0], "a", 1, &value, &value_len, nullptr, 0,
                                     &found),
            0);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(value_len, 0u);
  rocksdb_free(value);

  // Flush, properties, sizes, compaction and metadata of that family alone.
  for (int i = 0; i < 500; i++) {
    const std::string k = std::string("k").append(std::to_string(1000 + i));
    const std::string v = IncompressibleValue(i, 100);
    rocksdb_put_cf(db_, wo_, cf, k.data(), k.size(), v.data(), v.size(), &err);
  }
  uint64_t n = 0;
  EXPECT_EQ(rocksdb_property_int_cf(db_, cf, "rocksdb.estimate-num-keys", &n), 0);
  EXPECT_GE(n, 500u);
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.estimate-num-keys", &n), 0);
  EXPECT_EQ(n, 0u);
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flush_cf(db_, fo, cf, &err);
  rocksdb_flushoptions_destroy(fo);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  char* sst = rocksdb_property_value_cf(db_, cf, "rocksdb.total-sst-files-size");
  ASSERT_NE(sst, nullptr);
  EXPECT_GT(std::stoull(sst), 50000u);
  rocksdb_free(sst);
  sst = rocksdb_property_value(db_, "rocksdb.total-sst-files-size");
  EXPECT_STREQ(sst, "0");
  rocksdb_free(sst);
  const char* start[] = {"k"};
  const size_t start_len[] = {1};
  const char* limit[] = {"l"};
  const size_t limit_len[] = {1};
  uint64_t size = 0;
  rocksdb_approximate_sizes_cf(db_, cf, 1, start, start_len, limit, limit_len, &size, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_GT(size, 50000u);
  rocksdb_compact_range_cf(db_, cf, "k", 1, "l", 1);
  rocksdb_column_family_metadata_t* meta = rocksdb_get_column_family_metadata_cf(db_, cf);
  char* meta_name = rocksdb_column_family_metadata_get_name(meta);
  EXPECT_STREQ(meta_name, "counters");
  rocksdb_free(meta_name);
  EXPECT_GE(rocksdb_column_family_metadata_get_file_count(meta), 1u);
  rocksdb_column_family_metadata_destroy(meta);
  meta = rocksdb_get_column_family_metadata(db_);
  EXPECT_EQ(rocksdb_column_family_metadata_get_file_count(meta), 0u);
  rocksdb_column_family_metadata_destroy(meta);
  EXPECT_EQ(rocksdb_get_column_family_metadata_cf(db_, nullptr), nullptr);

  // Ingestion into the family.
  rocksdb_sstfilewriter_t* writer = rocksdb_sstfilewriter_create(nullptr, options_);
  const std::string file = dir_.Sub("cf.sst");
  rocksdb_sstfilewriter_open(writer, file.c_str(), &err);
  rocksdb_sstfilewriter_put(writer, "z1", 2, "ingested", 8, &err);
  rocksdb_sstfilewriter_finish(writer, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_destroy(writer);
  const char* files[] = {file.c_str()};
  rocksdb_ingest_external_file_cf(db_, cf, files, 1, nullptr, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, cf, "z1"), "ingested");
  EXPECT_EQ(Get(db_, nullptr, "z1"), std::nullopt);

  // Dynamic options of one family.
  const char* keys[] = {"write_buffer_size"};
  const char* values[] = {"1048576"};
  rocksdb_set_options_cf(db_, cf, 1, keys, values, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);

  // Bindings (grocksdb) often destroy family handles after closing the DB: harmless here.
  Close();
  rocksdb_column_family_handle_destroy(h[0]);
  rocksdb_column_family_handle_destroy(h[1]);
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, names, family_options, h, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, h[1], "m"), "x,y");
  EXPECT_EQ(Get(db_, h[1], "z1"), "ingested");
  rocksdb_column_family_handle_destroy(h[0]);
  rocksdb_column_family_handle_destroy(h[1]);
  rocksdb_options_destroy(merging);
}

// rocksdb_disable/enable_file_deletions: a compaction's obsolete inputs stay on disk until
// deletions are enabled again; rocksdb_flush_wal syncs.
TEST_F(RocksDbCApiDbTest, FileDeletionsSwitchAndFlushWal) {
  auto sst_files_on_disk = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      n += e.path().extension() == ".sst";
    }
    return n;
  };
  auto live_files = [&] {
    const rocksdb_livefiles_t* live = rocksdb_livefiles(db_);
    const size_t n = rocksdb_livefiles_count(live);
    rocksdb_livefiles_destroy(live);
    return n;
  };
  char* err = nullptr;
  rocksdb_disable_file_deletions(db_, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 50; i++) Put(std::string("k").append(std::to_string(i)), "v");
    Flush();
  }
  rocksdb_compactoptions_t* co = rocksdb_compactoptions_create();
  rocksdb_compactoptions_set_bottommost_level_compaction(co, 2);  // kForce
  rocksdb_compact_range_opt(db_, co, nullptr, 0, nullptr, 0);
  rocksdb_compactoptions_destroy(co);
  EXPECT_GT(sst_files_on_disk(), live_files());
  rocksdb_enable_file_deletions(db_, 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(sst_files_on_disk(), live_files());
  rocksdb_disable_file_deletions(nullptr, &err);
  EXPECT_EQ(TakeError(&err), "Invalid argument: db is NULL");

  Put("synced", "1");
  rocksdb_flush_wal(db_, 1, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);

  // delete_file_in_range drops the table files of levels 1 and below wholly in the range:
  // here everything after the compaction above (one bottom-level output for 50 keys).
  ASSERT_GT(live_files(), 0u);
  const char* start = "k";
  rocksdb_delete_file_in_range(db_, start, 1, nullptr, 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(live_files(), 0u);
  EXPECT_EQ(sst_files_on_disk(), 0u);
  EXPECT_EQ(Get(db_, nullptr, "k1"), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "synced"), "1");  // in the memtable
  rocksdb_delete_file_in_range_cf(db_, nullptr, nullptr, 0, nullptr, 0, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);  // a NULL family
}

// RocksDB allows a block cache (and cache flags) per family; ShaleDB's families share the
// DB's, so a family's own are accepted without effect instead of failing the open or create.
TEST_F(RocksDbCApiDbTest, PerFamilyBlockCachesAreAccepted) {
  rocksdb_options_t* own_cache = rocksdb_options_create();
  char* err = nullptr;
  rocksdb_get_options_from_string(
      options_,
      "block_based_table_factory={block_cache=1M;cache_index_and_filter_blocks=true}",
      own_cache, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* created =
      rocksdb_create_column_family(db_, own_cache, "created", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_put_cf(db_, wo_, created, "k", 1, "v", 1, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_destroy(created);
  Close();

  const char* names[] = {"default", "created", "opened"};
  const rocksdb_options_t* family_options[] = {options_, own_cache, own_cache};
  rocksdb_column_family_handle_t* h[3];
  rocksdb_options_set_create_missing_column_families(options_, 1);
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 3, names, family_options, h, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, h[1], "k"), "v");
  for (auto* handle : h) rocksdb_column_family_handle_destroy(handle);
  rocksdb_options_destroy(own_cache);
}

TEST_F(RocksDbCApiDbTest, PropertiesSizesFlushCompactAndMetadata) {
  // Unflushed data: in the memtable, no table files.
  for (int i = 0; i < 1000; i++) {
    Put(std::string("key").append(std::to_string(1000 + i)), IncompressibleValue(i, 100));
  }
  uint64_t n = 0;
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.estimate-num-keys", &n), 0);
  EXPECT_EQ(n, 1000u);
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.num-files-at-level0", &n), 0);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.cur-size-all-mem-tables", &n), 0);
  EXPECT_GT(n, 0u);
  // grocksdb's TestOpenDb reads this one.
  char* imm = rocksdb_property_value(db_, "rocksdb.num-immutable-mem-table");
  EXPECT_STREQ(imm, "0");
  rocksdb_free(imm);
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.num-entries-active-mem-table", &n), 0);
  EXPECT_EQ(n, 1000u);
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.no-such-property", &n), -1);
  EXPECT_EQ(rocksdb_property_value(db_, "rocksdb.no-such-property"), nullptr);
  char* sstables = rocksdb_property_value(db_, "rocksdb.sstables");  // no table file yet
  EXPECT_STREQ(sstables, "");
  rocksdb_free(sstables);
  for (const char* report :
       {"rocksdb.stats", "rocksdb.cfstats", "rocksdb.dbstats", "rocksdb.levelstats"}) {
    char* stats = rocksdb_property_value(db_, report);
    ASSERT_NE(stats, nullptr) << report;
    EXPECT_GT(std::strlen(stats), 0u) << report;
    rocksdb_free(stats);
  }

  Flush();
  // One table file, at the level the flush chose (ShaleDB may place a flush below L0).
  const rocksdb_livefiles_t* live = rocksdb_livefiles(db_);
  ASSERT_EQ(rocksdb_livefiles_count(live), 1);
  const int level = rocksdb_livefiles_level(live, 0);
  const std::string level_property =
      std::string("rocksdb.num-files-at-level").append(std::to_string(level));
  EXPECT_EQ(rocksdb_property_int(db_, level_property.c_str(), &n), 0);
  EXPECT_EQ(n, 1u);
  char* files = rocksdb_property_value(db_, level_property.c_str());
  EXPECT_STREQ(files, "1");
  rocksdb_free(files);
  uint64_t sst_size = 0;
  EXPECT_EQ(rocksdb_property_int(db_, "rocksdb.total-sst-files-size", &sst_size), 0);
  EXPECT_GT(sst_size, 50000u);
  EXPECT_STREQ(rocksdb_livefiles_column_family_name(live, 0), "default");
  EXPECT_EQ(rocksdb_livefiles_size(live, 0), sst_size);
  EXPECT_EQ(std::string(rocksdb_livefiles_name(live, 0)).substr(0, 1), "/");
  size_t len;
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_livefiles_smallestkey(live, 0, l); }),
            "key1000");
  EXPECT_EQ(Bytes([&](size_t* l) { return rocksdb_livefiles_largestkey(live, 0, l); }),
            "key1999");
  EXPECT_EQ(rocksdb_livefiles_entries(live, 0), 1000u);
  EXPECT_EQ(rocksdb_livefiles_deletions(live, 0), 0u);
  rocksdb_livefiles_destroy(live);

  const char* starts[] = {"key1000", "zzz"};
  const size_t start_lens[] = {7, 3};
  const char* limits[] = {"key2000", "zzzz"};
  const size_t limit_lens[] = {7, 4};
  uint64_t sizes[2] = {0, 99};
  char* err = nullptr;
  rocksdb_approximate_sizes(db_, 2, starts, start_lens, limits, limit_lens, sizes, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  EXPECT_GT(sizes[0], 50000u);
  EXPECT_EQ(sizes[1], 0u);

  // A second, overlapping table file.
  for (int i = 0; i < 1000; i += 2) Put(std::string("key").append(std::to_string(1000 + i)), "new");
  Flush();
  live = rocksdb_livefiles(db_);
  EXPECT_EQ(rocksdb_livefiles_count(live), 2);
  rocksdb_livefiles_destroy(live);
  // Manual compaction off: compact_range does nothing; back on: the two files become one.
  rocksdb_disable_manual_compaction(db_);
  rocksdb_compact_range(db_, nullptr, 0, nullptr, 0);
  live = rocksdb_livefiles(db_);
  EXPECT_EQ(rocksdb_livefiles_count(live), 2);
  rocksdb_livefiles_destroy(live);
  rocksdb_enable_manual_compaction(db_);
  // RocksDB's counter may go negative: enable, enable, disable leaves compaction enabled
  // (grocksdb's test helper calls enable then disable on a fresh DB and then compacts).
  rocksdb_enable_manual_compaction(db_);
  rocksdb_disable_manual_compaction(db_);
  rocksdb_compactoptions_t* co = rocksdb_compactoptions_create();
  rocksdb_compactoptions_set_bottommost_level_compaction(co, 2);  // kForce
  rocksdb_compact_range_opt(db_, co, nullptr, 0, nullptr, 0);
  rocksdb_compactoptions_destroy(co);
  // (The output may be cut into several files, one per subcompaction.)
  live = rocksdb_livefiles(db_);
  uint64_t entries = 0;
  for (int i = 0; i < rocksdb_livefiles_count(live); i++) {
    EXPECT_GT(rocksdb_livefiles_level(live, i), 0);
    entries += rocksdb_livefiles_entries(live, i);
  }
  EXPECT_EQ(entries, 1000u);
  const int files_after_compaction = rocksdb_livefiles_count(live);
  rocksdb_livefiles_destroy(live);
  EXPECT_EQ(Get(db_, nullptr, "key1000"), "new");
  EXPECT_EQ(Get(db_, nullptr, "key1001"), IncompressibleValue(1, 100));

  rocksdb_column_family_metadata_t* meta = rocksdb_get_column_family_metadata(db_);
  ASSERT_NE(meta, nullptr);
  char* cf_name = rocksdb_column_family_metadata_get_name(meta);
  EXPECT_STREQ(cf_name, "default");
  rocksdb_free(cf_name);
  EXPECT_EQ(rocksdb_column_family_metadata_get_level_count(meta), 7u);
  EXPECT_EQ(rocksdb_column_family_metadata_get_file_count(meta),
            static_cast<size_t>(files_after_compaction));
  EXPECT_GT(rocksdb_column_family_metadata_get_size(meta), 0u);
  size_t files_seen = 0;
  uint64_t file_bytes = 0;
  uint64_t level_bytes = 0;
  size_t len2 = 0;
  for (size_t i = 0; i < rocksdb_column_family_metadata_get_level_count(meta); i++) {
    rocksdb_level_metadata_t* lm = rocksdb_column_family_metadata_get_level_metadata(meta, i);
    ASSERT_NE(lm, nullptr);
    EXPECT_EQ(rocksdb_level_metadata_get_level(lm), static_cast<int>(i));
    for (size_t f = 0; f < rocksdb_level_metadata_get_file_count(lm); f++) {
      rocksdb_sst_file_metadata_t* fm = rocksdb_level_metadata_get_sst_file_metadata(lm, f);
      char* fname = rocksdb_sst_file_metadata_get_relative_filename(fm);
      EXPECT_NE(std::string(fname).find(".sst"), std::string::npos);
      EXPECT_NE(fname[0], '/');
      rocksdb_free(fname);
      file_bytes += rocksdb_sst_file_metadata_get_size(fm);
      char* smallest = rocksdb_sst_file_metadata_get_smallestkey(fm, &len);
      char* largest = rocksdb_sst_file_metadata_get_largestkey(fm, &len2);
      EXPECT_LE(std::string(smallest, len), std::string(largest, len2));
      EXPECT_GE(std::string(smallest, len), "key1000");
      EXPECT_LE(std::string(largest, len2), "key1999");
      rocksdb_free(smallest);
      rocksdb_free(largest);
      rocksdb_sst_file_metadata_destroy(fm);
      files_seen++;
    }
    EXPECT_EQ(rocksdb_level_metadata_get_sst_file_metadata(
                  lm, rocksdb_level_metadata_get_file_count(lm)),
              nullptr);
    level_bytes += rocksdb_level_metadata_get_size(lm);
    rocksdb_level_metadata_destroy(lm);
  }
  EXPECT_EQ(files_seen, static_cast<size_t>(files_after_compaction));
  EXPECT_EQ(file_bytes, level_bytes);
  EXPECT_EQ(file_bytes, rocksdb_column_family_metadata_get_size(meta));
  EXPECT_EQ(rocksdb_column_family_metadata_get_level_metadata(meta, 7), nullptr);
  rocksdb_column_family_metadata_destroy(meta);

  // Memory usage of the DB (with something in the memtable).
  Put("in-memtable", "x");
  rocksdb_memory_consumers_t* consumers = rocksdb_memory_consumers_create();
  rocksdb_memory_consumers_add_db(consumers, db_);
  rocksdb_memory_usage_t* usage = rocksdb_approximate_memory_usage_create(consumers, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_GT(rocksdb_approximate_memory_usage_get_mem_table_unflushed(usage), 0u);
  EXPECT_GE(rocksdb_approximate_memory_usage_get_mem_table_total(usage),
            rocksdb_approximate_memory_usage_get_mem_table_unflushed(usage));
  (void)rocksdb_approximate_memory_usage_get_mem_table_readers_total(usage);
  (void)rocksdb_approximate_memory_usage_get_cache_total(usage);
  rocksdb_approximate_memory_usage_destroy(usage);
  rocksdb_memory_consumers_destroy(consumers);

  // Dynamic options.
  const char* keys[] = {"disable_auto_compactions"};
  const char* values[] = {"true"};
  rocksdb_set_options(db_, 1, keys, values, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  const char* bad_values[] = {"maybe"};
  rocksdb_set_options(db_, 1, keys, bad_values, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
}

TEST_F(RocksDbCApiDbTest, CheckpointOpensAsACopy) {
  Put("k", "v");
  char* err = nullptr;
  rocksdb_checkpoint_t* checkpoint = rocksdb_checkpoint_object_create(db_, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  const std::string copy = dir_.Sub("copy");
  rocksdb_checkpoint_create(checkpoint, copy.c_str(), 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  // The directory must not exist yet.
  rocksdb_checkpoint_create(checkpoint, copy.c_str(), 0, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_checkpoint_object_destroy(checkpoint);
  Put("k", "changed");
  rocksdb_t* copy_db = rocksdb_open(options_, copy.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(copy_db, nullptr, "k"), "v");
  rocksdb_close(copy_db);
}

TEST_F(RocksDbCApiDbTest, SstFileWriterAndIngestion) {
  rocksdb_envoptions_t* env = rocksdb_envoptions_create();
  rocksdb_sstfilewriter_t* writer = rocksdb_sstfilewriter_create(env, options_);
  const std::string file = dir_.Sub("ext.sst");
  char* err = nullptr;
  rocksdb_sstfilewriter_open(writer, file.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_put(writer, "a", 1, "1", 1, &err);
  rocksdb_sstfilewriter_add(writer, "b", 1, "2", 1, &err);
  rocksdb_sstfilewriter_delete(writer, "c", 1, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  // Out of order: refused, and the error is sticky.
  rocksdb_sstfilewriter_put(writer, "a", 1, "again", 5, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_destroy(writer);

  writer = rocksdb_sstfilewriter_create_with_comparator(env, options_, nullptr);
  rocksdb_sstfilewriter_open(writer, file.c_str(), &err);
  rocksdb_sstfilewriter_put(writer, "a", 1, "1", 1, &err);
  rocksdb_sstfilewriter_put(writer, "b", 1, "2", 1, &err);
  rocksdb_sstfilewriter_delete(writer, "c", 1, &err);
  rocksdb_sstfilewriter_delete_range(writer, "x", 1, "z", 1, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_sstfilewriter_finish(writer, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  uint64_t size = 0;
  rocksdb_sstfilewriter_file_size(writer, &size);
  EXPECT_GT(size, 0u);
  rocksdb_sstfilewriter_destroy(writer);
  rocksdb_envoptions_destroy(env);

  Put("c", "deleted by the file");
  Put("y", "deleted by the range");
  rocksdb_ingestexternalfileoptions_t* io = rocksdb_ingestexternalfileoptions_create();
  const char* files[] = {file.c_str()};
  rocksdb_ingest_external_file(db_, files, 1, io, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "a"), "1");
  EXPECT_EQ(Get(db_, nullptr, "b"), "2");
  EXPECT_EQ(Get(db_, nullptr, "c"), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "y"), std::nullopt);
  const char* missing[] = {"/nonexistent/file.sst"};
  rocksdb_ingest_external_file(db_, missing, 1, io, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_ingestexternalfileoptions_destroy(io);
}

TEST_F(RocksDbCApiDbTest, DestroyDbAndLoadLatestOptions) {
  char* err = nullptr;
  rocksdb_column_family_handle_t* cf = rocksdb_create_column_family(db_, options_, "second", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_destroy(cf);
  Close();

  rocksdb_options_t* db_options = nullptr;
  size_t count = 0;
  char** names = nullptr;
  rocksdb_options_t** cf_options = nullptr;
  rocksdb_load_latest_options(path_.c_str(), nullptr, false, nullptr, &db_options, &count, &names,
                              &cf_options, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_EQ(count, 2u);
  EXPECT_STREQ(names[0], "default");
  EXPECT_STREQ(names[1], "second");
  // The loaded options open the DB.
  rocksdb_column_family_handle_t* handles[2];
  db_ = rocksdb_open_column_families(db_options, path_.c_str(), 2, names, cf_options, handles,
                                     &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  for (auto* h : handles) rocksdb_column_family_handle_destroy(h);
  rocksdb_load_latest_options_destroy(db_options, names, cf_options, count);
  rocksdb_load_latest_options(dir_.Sub("none").c_str(), nullptr, false, nullptr, &db_options,
                              &count, &names, &cf_options, &err);
  EXPECT_NE(TakeError(&err), std::nullopt);
  EXPECT_EQ(db_options, nullptr);

  // destroy_db refuses while the DB is open (RocksDB's LOCK text), then deletes it.
  rocksdb_destroy_db(options_, path_.c_str(), &err);
  const std::optional<std::string> locked = TakeError(&err);
  ASSERT_NE(locked, std::nullopt);
  EXPECT_EQ(locked->rfind("IO error: lock hold by current process", 0), 0u) << *locked;
  EXPECT_NE(locked->find(path_ + "/LOCK: No locks available"), std::string::npos) << *locked;
  Close();
  rocksdb_destroy_db(options_, path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_options_t* no_create = rocksdb_options_create();
  EXPECT_EQ(rocksdb_open(no_create, path_.c_str(), &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_options_destroy(no_create);
  Open();
  EXPECT_EQ(Get(db_, nullptr, "k"), std::nullopt);
}

}  // namespace
// SuggestCompactRange is carried out at once (ShaleDB keeps no marks for a later compaction):
// the range's L0 files are compacted when the call returns, and the data is unchanged.
TEST_F(RocksDbCApiDbTest, SuggestCompactRangeCompactsTheRange) {
  char* err = nullptr;
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 100; i++) {
      Put(std::string("key").append(std::to_string(1000 + i)), std::to_string(round));
    }
    rocksdb_flushoptions_t* flush = rocksdb_flushoptions_create();
    rocksdb_flush(db_, flush, &err);
    rocksdb_flushoptions_destroy(flush);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  // Each flush made a table (ShaleDB may place a flush below L0): two overlapping files.
  auto table_files = [&] {
    const rocksdb_livefiles_t* live = rocksdb_livefiles(db_);
    const int n = rocksdb_livefiles_count(live);
    rocksdb_livefiles_destroy(live);
    return n;
  };
  ASSERT_EQ(table_files(), 2);
  rocksdb_suggest_compact_range(db_, "key", 3, "kez", 3, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(table_files(), 1);
  EXPECT_EQ(Get(db_, nullptr, "key1050"), "1");
  rocksdb_column_family_handle_t* family =
      rocksdb_create_column_family(db_, options_, "suggested", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_suggest_compact_range_cf(db_, family, nullptr, 0, nullptr, 0, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_destroy(family);
  rocksdb_suggest_compact_range_cf(db_, nullptr, "a", 1, "z", 1, &err);
  const std::optional<std::string> message = TakeError(&err);
  ASSERT_NE(message, std::nullopt);
  EXPECT_NE(message->find("Invalid argument"), std::string::npos) << *message;
}

// ReadOptions::pin_data: every key an iterator handed out stays valid until the iterator is
// destroyed, also for keys read from table files (whose iterators rebuild keys in one buffer).
TEST_F(RocksDbCApiDbTest, PinDataKeepsEveryKeyValid) {
  char* err = nullptr;
  std::vector<std::string> expected;
  for (int i = 0; i < 300; i++) {
    expected.push_back(std::string("pinned-key-").append(std::to_string(10000 + i)));
    Put(expected.back(), "v");
  }
  rocksdb_flushoptions_t* flush = rocksdb_flushoptions_create();
  rocksdb_flush(db_, flush, &err);
  rocksdb_flushoptions_destroy(flush);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_readoptions_t* pinned = rocksdb_readoptions_create();
  rocksdb_readoptions_set_pin_data(pinned, 1);
  EXPECT_EQ(rocksdb_readoptions_get_pin_data(pinned), 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, pinned);
  std::vector<std::pair<const char*, size_t>> keys;
  for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
    size_t len = 0;
    const char* key = rocksdb_iter_key(it, &len);
    keys.emplace_back(key, len);
  }
  ASSERT_EQ(keys.size(), expected.size());
  for (size_t i = 0; i < keys.size(); i++) {
    ASSERT_EQ(std::string(keys[i].first, keys[i].second), expected[i]) << "key " << i;
  }
  rocksdb_iter_destroy(it);
  rocksdb_readoptions_destroy(pinned);
}

}  // namespace shale::rocksdb_capi_test
