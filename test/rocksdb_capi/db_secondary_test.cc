// rocksdb_open_as_secondary, rocksdb_open_as_secondary_column_families and
// rocksdb_try_catch_up_with_primary (RocksDB's C API, issue 24) over DB::OpenAsSecondary, called
// through Debian's rocksdb/c.h against lib/shale-rocksdb/librocksdb.so: beside a primary that
// holds the DB, the secondary sees the state at its open, and after a catch-up the primary's
// writes, flush and compaction; an iterator made before a catch-up keeps its view; writes fail
// with RocksDB's text; a subset of the column families; NULL and bad arguments.
#include <filesystem>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

constexpr char kSecondaryError[] = "Not implemented: Not supported operation in secondary mode.";

class RocksDbCApiSecondaryTest : public testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    wo_ = rocksdb_writeoptions_create();
    fo_ = rocksdb_flushoptions_create();
    path_ = dir_.Sub("db");
    secondary_path_ = dir_.Sub("secondary");
  }
  void TearDown() override {
    if (secondary_ != nullptr) rocksdb_close(secondary_);
    if (primary_ != nullptr) rocksdb_close(primary_);
    rocksdb_flushoptions_destroy(fo_);
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_options_destroy(options_);
  }
  void OpenPrimary() {
    char* err = nullptr;
    primary_ = rocksdb_open(options_, path_.c_str(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    ASSERT_NE(primary_, nullptr);
  }
  void Put(const std::string& key, const std::string& value) {
    char* err = nullptr;
    rocksdb_put(primary_, wo_, key.data(), key.size(), value.data(), value.size(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  void CatchUp() {
    char* err = nullptr;
    rocksdb_try_catch_up_with_primary(secondary_, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }

  TempDir dir_;
  std::string path_;
  std::string secondary_path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_flushoptions_t* fo_ = nullptr;
  rocksdb_t* primary_ = nullptr;
  rocksdb_t* secondary_ = nullptr;
};

TEST_F(RocksDbCApiSecondaryTest, CatchesUpWithThePrimary) {
  OpenPrimary();
  Put("a", "1");
  Put("b", "1");
  char* err = nullptr;
  secondary_ =
      rocksdb_open_as_secondary(options_, path_.c_str(), secondary_path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(secondary_, nullptr);
  EXPECT_TRUE(std::filesystem::exists(secondary_path_ + "/LOG"));
  EXPECT_EQ(Get(secondary_, nullptr, "a"), "1");
  Put("a", "2");
  Put("c", "3");
  EXPECT_EQ(Get(secondary_, nullptr, "a"), "1");
  EXPECT_EQ(Get(secondary_, nullptr, "c"), std::nullopt);
  rocksdb_readoptions_t* ro = rocksdb_readoptions_create();
  rocksdb_iterator_t* before = rocksdb_create_iterator(secondary_, ro);
  CatchUp();
  EXPECT_EQ(Get(secondary_, nullptr, "a"), "2");
  EXPECT_EQ(Get(secondary_, nullptr, "c"), "3");
  // A flush, a compaction deleting the tables, a deletion.
  rocksdb_flush(primary_, fo_, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_compact_range(primary_, nullptr, 0, nullptr, 0);
  rocksdb_delete(primary_, wo_, "b", 1, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  CatchUp();
  EXPECT_EQ(Get(secondary_, nullptr, "a"), "2");
  EXPECT_EQ(Get(secondary_, nullptr, "b"), std::nullopt);
  EXPECT_EQ(Get(secondary_, nullptr, "c"), "3");
  // The iterator made before the catch-ups sees the state at the open.
  int n = 0;
  for (rocksdb_iter_seek_to_first(before); rocksdb_iter_valid(before);
       rocksdb_iter_next(before)) {
    size_t len = 0;
    const char* value = rocksdb_iter_value(before, &len);
    EXPECT_EQ(std::string(value, len), "1");
    n++;
  }
  EXPECT_EQ(n, 2);
  rocksdb_iter_get_error(before, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  rocksdb_iter_destroy(before);
  rocksdb_readoptions_destroy(ro);
  // Writes fail with RocksDB's text; a primary does not catch up.
  rocksdb_put(secondary_, wo_, "k", 1, "v", 1, &err);
  EXPECT_EQ(TakeError(&err), kSecondaryError);
  rocksdb_flush(secondary_, fo_, &err);
  EXPECT_EQ(TakeError(&err), kSecondaryError);
  rocksdb_try_catch_up_with_primary(primary_, &err);
  EXPECT_EQ(TakeError(&err), "Not implemented: Supported only by secondary instance");
}

TEST_F(RocksDbCApiSecondaryTest, ColumnFamilySubsetAndBadArguments) {
  OpenPrimary();
  char* err = nullptr;
  rocksdb_column_family_handle_t* a = rocksdb_create_column_family(primary_, options_, "a", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* b = rocksdb_create_column_family(primary_, options_, "b", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_put_cf(primary_, wo_, b, "kb", 2, "vb", 2, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  const char* names[] = {"default", "b"};
  const rocksdb_options_t* family_options[] = {options_, options_};
  rocksdb_column_family_handle_t* handles[2] = {nullptr, nullptr};
  secondary_ = rocksdb_open_as_secondary_column_families(options_, path_.c_str(),
                                                         secondary_path_.c_str(), 2, names,
                                                         family_options, handles, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(secondary_, nullptr);
  EXPECT_EQ(Get(secondary_, handles[1], "kb"), "vb");
  rocksdb_put_cf(primary_, wo_, b, "kb", 2, "vb2", 3, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flush_cf(primary_, fo_, b, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(secondary_, handles[1], "kb"), "vb");
  CatchUp();
  EXPECT_EQ(Get(secondary_, handles[1], "kb"), "vb2");
  rocksdb_column_family_handle_destroy(handles[0]);
  rocksdb_column_family_handle_destroy(handles[1]);
  rocksdb_column_family_handle_destroy(a);
  rocksdb_column_family_handle_destroy(b);

  // A family the DB lacks; NULL arguments; the secondary path is the DB's own directory.
  const char* unknown[] = {"default", "zz"};
  EXPECT_EQ(rocksdb_open_as_secondary_column_families(options_, path_.c_str(),
                                                      dir_.Sub("s2").c_str(), 2, unknown,
                                                      family_options, handles, &err),
            nullptr);
  const std::optional<std::string> missing = TakeError(&err);
  ASSERT_NE(missing, std::nullopt);
  EXPECT_NE(missing->find("Column family not found: zz"), std::string::npos) << *missing;
  EXPECT_EQ(rocksdb_open_as_secondary(options_, path_.c_str(), nullptr, &err), nullptr);
  EXPECT_EQ(TakeError(&err), "Invalid argument: secondary_path is NULL");
  EXPECT_EQ(rocksdb_open_as_secondary(options_, nullptr, secondary_path_.c_str(), &err),
            nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  EXPECT_EQ(rocksdb_open_as_secondary(options_, path_.c_str(), path_.c_str(), &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
  rocksdb_try_catch_up_with_primary(nullptr, &err);
  EXPECT_EQ(TakeError(&err), "Invalid argument: db is NULL");
  // A missing DB is an error.
  EXPECT_EQ(rocksdb_open_as_secondary(options_, dir_.Sub("none").c_str(),
                                      dir_.Sub("s3").c_str(), &err),
            nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
