// rocksdb_repair_db (RocksDB's C API, issue 24) over shale::RepairDB, called through Debian's
// rocksdb/c.h against lib/shale-rocksdb/librocksdb.so: a DB whose CURRENT and MANIFEST are lost
// comes back with its flushed and WAL-only writes in every column family (each family gets the
// options given, as RocksDB's C repair does); the repair is refused with RocksDB's LOCK text
// while the DB is open; a missing directory is an error and is not created; NULL arguments are
// errors through errptr.
#include <filesystem>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

class RocksDbCApiRepairTest : public testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    wo_ = rocksdb_writeoptions_create();
    path_ = dir_.Sub("db");
  }
  void TearDown() override {
    if (db_ != nullptr) rocksdb_close(db_);
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_options_destroy(options_);
  }
  void Put(rocksdb_column_family_handle_t* cf, const std::string& key, const std::string& value) {
    char* err = nullptr;
    if (cf == nullptr) {
      rocksdb_put(db_, wo_, key.data(), key.size(), value.data(), value.size(), &err);
    } else {
      rocksdb_put_cf(db_, wo_, cf, key.data(), key.size(), value.data(), value.size(), &err);
    }
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  std::optional<std::string> Repair(const rocksdb_options_t* options, const char* name) {
    char* err = nullptr;
    rocksdb_repair_db(options, name, &err);
    return TakeError(&err);
  }

  TempDir dir_;
  std::string path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_t* db_ = nullptr;
};

TEST_F(RocksDbCApiRepairTest, LostManifestComesBack) {
  char* err = nullptr;
  db_ = rocksdb_open(options_, path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_column_family_handle_t* cf = rocksdb_create_column_family(db_, options_, "cf1", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  Put(nullptr, "flushed", "1");
  Put(cf, "cf-flushed", "2");
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flush(db_, fo, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flush_cf(db_, fo, cf, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flushoptions_destroy(fo);
  Put(nullptr, "in-wal", "3");
  Put(cf, "cf-in-wal", "4");

  // Refused while the DB is open, with RocksDB's LOCK text (the holder is this process).
  EXPECT_EQ(Repair(options_, path_.c_str()),
            "IO error: lock hold by current process, acquire time 0 acquiring thread 0: " +
                path_ + "/LOCK: No locks available");

  rocksdb_column_family_handle_destroy(cf);
  rocksdb_close(db_);
  db_ = nullptr;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    const std::string name = entry.path().filename().string();
    if (name == "CURRENT" || name.rfind("MANIFEST-", 0) == 0) std::filesystem::remove(entry);
  }
  EXPECT_EQ(rocksdb_open(options_, path_.c_str(), &err), nullptr);
  EXPECT_NE(TakeError(&err), std::nullopt);

  ASSERT_EQ(Repair(options_, path_.c_str()), std::nullopt);

  size_t count = 0;
  char** names = rocksdb_list_column_families(options_, path_.c_str(), &count, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_EQ(count, 2u);
  EXPECT_STREQ(names[0], "default");
  EXPECT_STREQ(names[1], "cf1");
  rocksdb_list_column_families_destroy(names, count);

  const char* cf_names[] = {"default", "cf1"};
  const rocksdb_options_t* cf_options[] = {options_, options_};
  rocksdb_column_family_handle_t* handles[2] = {nullptr, nullptr};
  db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, cf_names, cf_options, handles,
                                     &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(Get(db_, nullptr, "flushed"), "1");
  EXPECT_EQ(Get(db_, nullptr, "in-wal"), "3");
  EXPECT_EQ(Get(db_, handles[1], "cf-flushed"), "2");
  EXPECT_EQ(Get(db_, handles[1], "cf-in-wal"), "4");
  EXPECT_EQ(Get(db_, nullptr, "cf-in-wal"), std::nullopt);
  for (rocksdb_column_family_handle_t* h : handles) rocksdb_column_family_handle_destroy(h);
}

TEST_F(RocksDbCApiRepairTest, BadArguments) {
  const std::string missing = dir_.Sub("missing");
  const std::optional<std::string> error = Repair(options_, missing.c_str());
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find(missing), std::string::npos) << *error;
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_EQ(Repair(options_, nullptr), "Invalid argument: name is NULL");
  EXPECT_EQ(Repair(nullptr, path_.c_str()), "Invalid argument: options is NULL");
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
