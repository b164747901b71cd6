// rocksdb_open_for_read_only and rocksdb_open_for_read_only_column_families (RocksDB's C API,
// issue 24) over DB::OpenForReadOnly, called through Debian's rocksdb/c.h against
// lib/shale-rocksdb/librocksdb.so: a writer holding the DB does not block them, the WAL's
// writes are visible, writes fail with RocksDB's text, error_if_wal_file_exist maps through,
// a missing DB is an error, and a subset of the column families may be opened.
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

constexpr char kReadOnlyError[] = "Not implemented: Not supported operation in read only mode.";

class RocksDbCApiReadOnlyTest : public testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    wo_ = rocksdb_writeoptions_create();
    path_ = dir_.Sub("db");
  }
  void TearDown() override {
    if (reader_ != nullptr) rocksdb_close(reader_);
    if (writer_ != nullptr) rocksdb_close(writer_);
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_options_destroy(options_);
  }
  void OpenWriter() {
    char* err = nullptr;
    writer_ = rocksdb_open(options_, path_.c_str(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    ASSERT_NE(writer_, nullptr);
  }
  void Put(rocksdb_t* db, const std::string& key, const std::string& value) {
    char* err = nullptr;
    rocksdb_put(db, wo_, key.data(), key.size(), value.data(), value.size(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }

  TempDir dir_;
  std::string path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_t* writer_ = nullptr;
  rocksdb_t* reader_ = nullptr;
};

TEST_F(RocksDbCApiReadOnlyTest, OpensBesideAWriterAndRefusesWrites) {
  OpenWriter();
  Put(writer_, "flushed", "1");
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  char* err = nullptr;
  rocksdb_flush(writer_, fo, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  Put(writer_, "in-wal", "2");
  reader_ = rocksdb_open_for_read_only(options_, path_.c_str(), 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(reader_, nullptr);
  EXPECT_EQ(Get(reader_, nullptr, "flushed"), "1");
  EXPECT_EQ(Get(reader_, nullptr, "in-wal"), "2");
  // Writes after the open are not seen.
  Put(writer_, "later", "3");
  EXPECT_EQ(Get(reader_, nullptr, "later"), std::nullopt);
  // Writes, flushes and family changes fail with RocksDB's text.
  rocksdb_put(reader_, wo_, "k", 1, "v", 1, &err);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  rocksdb_delete(reader_, wo_, "flushed", 7, &err);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  rocksdb_writebatch_t* batch = rocksdb_writebatch_create();
  rocksdb_writebatch_put(batch, "k", 1, "v", 1);
  rocksdb_write(reader_, wo_, batch, &err);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  rocksdb_writebatch_destroy(batch);
  rocksdb_flush(reader_, fo, &err);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  rocksdb_flushoptions_destroy(fo);
  rocksdb_column_family_handle_t* cf =
      rocksdb_create_column_family(reader_, options_, "new", &err);
  EXPECT_EQ(cf, nullptr);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  EXPECT_EQ(Get(reader_, nullptr, "k"), std::nullopt);
  // Iterators work.
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_iterator_t* it = rocksdb_create_iterator(reader_, ro);
  int n = 0;
  for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) n++;
  EXPECT_EQ(n, 2);
  rocksdb_iter_destroy(it);
  rocksdb_readoptions_destroy(ro);
  rocksdb_close(reader_);
  reader_ = nullptr;
  // The writer goes on.
  Put(writer_, "after", "4");
  EXPECT_EQ(Get(writer_, nullptr, "after"), "4");
}

TEST_F(RocksDbCApiReadOnlyTest, MissingDbAndErrorIfWalFileExist) {
  char* err = nullptr;
  EXPECT_EQ(rocksdb_open_for_read_only(options_, path_.c_str(), 0, &err), nullptr);
  const std::optional<std::string> missing = TakeError(&err);
  ASSERT_NE(missing, std::nullopt);
  EXPECT_NE(missing->find("does not exist"), std::string::npos) << *missing;
  EXPECT_EQ(rocksdb_open_for_read_only(options_, nullptr, 0, &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  OpenWriter();
  Put(writer_, "a", "1");
  rocksdb_close(writer_);
  writer_ = nullptr;
  // The WAL holds "a": error_if_wal_file_exist refuses it.
  EXPECT_EQ(rocksdb_open_for_read_only(options_, path_.c_str(), 1, &err), nullptr);
  const std::optional<std::string> wal = TakeError(&err);
  ASSERT_NE(wal, std::nullopt);
  EXPECT_NE(wal->find("Corruption: "), std::string::npos) << *wal;
  reader_ = rocksdb_open_for_read_only(options_, path_.c_str(), 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(reader_, nullptr, "a"), "1");
}

TEST_F(RocksDbCApiReadOnlyTest, ColumnFamilySubset) {
  OpenWriter();
  char* err = nullptr;
  rocksdb_column_family_handle_t* a = rocksdb_create_column_family(writer_, options_, "a", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* b = rocksdb_create_column_family(writer_, options_, "b", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_put_cf(writer_, wo_, a, "ka", 2, "va", 2, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_put_cf(writer_, wo_, b, "kb", 2, "vb", 2, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_destroy(a);
  rocksdb_column_family_handle_destroy(b);
  // Opened read-only while the writer holds the DB, with "default" and "b" only.
  const char* names[] = {"default", "b"};
  const rocksdb_options_t* family_options[] = {options_, options_};
  rocksdb_column_family_handle_t* handles[2] = {nullptr, nullptr};
  reader_ = rocksdb_open_for_read_only_column_families(options_, path_.c_str(), 2, names,
                                                       family_options, handles, 0, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(reader_, nullptr);
  EXPECT_EQ(Get(reader_, handles[1], "kb"), "vb");
  EXPECT_EQ(Get(reader_, handles[1], "ka"), std::nullopt);
  rocksdb_put_cf(reader_, wo_, handles[1], "x", 1, "y", 1, &err);
  EXPECT_EQ(TakeError(&err), kReadOnlyError);
  rocksdb_column_family_handle_destroy(handles[0]);
  rocksdb_column_family_handle_destroy(handles[1]);
  rocksdb_close(reader_);
  reader_ = nullptr;
  // A family the DB does not have is an error (never created).
  const char* unknown[] = {"default", "zz"};
  rocksdb_column_family_handle_t* none[2] = {nullptr, nullptr};
  EXPECT_EQ(rocksdb_open_for_read_only_column_families(options_, path_.c_str(), 2, unknown,
                                                       family_options, none, 0, &err),
            nullptr);
  const std::optional<std::string> message = TakeError(&err);
  ASSERT_NE(message, std::nullopt);
  EXPECT_NE(message->find("Column family not found: zz"), std::string::npos) << *message;
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
