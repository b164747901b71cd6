// The memtable and snapshot count properties (issue 24: RocksDB clients read them under
// their rocksdb.* names through the C API, e.g. grocksdb's "rocksdb.num-immutable-mem-table"):
// num-immutable-mem-table, mem-table-flush-pending, num-entries/num-deletes of the active and
// the immutable memtables, num-snapshots; per family, as numbers and as text.
#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBMemTablePropertiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.create_if_missing = true;
    options.file_system = NewMemFileSystem();
    ASSERT_OK(DB::Open(options, "/db", &db_));
  }
  // The property under both names, checked to agree, as a number and as text.
  uint64_t Int(std::string_view name, ColumnFamilyHandle* family = nullptr) {
    if (family == nullptr) family = db_->DefaultColumnFamily();
    uint64_t shale_value = 0, rocksdb_value = 0;
    EXPECT_TRUE(db_->GetIntProperty(family, "shale." + std::string(name), &shale_value)) << name;
    EXPECT_TRUE(db_->GetIntProperty(family, "rocksdb." + std::string(name), &rocksdb_value))
        << name;
    EXPECT_EQ(shale_value, rocksdb_value) << name;
    std::string text;
    EXPECT_TRUE(db_->GetProperty(family, "rocksdb." + std::string(name), &text)) << name;
    EXPECT_EQ(text, std::to_string(shale_value)) << name;
    return shale_value;
  }

  std::unique_ptr<DB> db_;
};

TEST_F(DBMemTablePropertiesTest, CountsOfTheMemTablesAndSnapshots) {
  EXPECT_EQ(Int("num-immutable-mem-table"), 0u);
  EXPECT_EQ(Int("mem-table-flush-pending"), 0u);
  EXPECT_EQ(Int("num-entries-active-mem-table"), 0u);
  EXPECT_EQ(Int("num-deletes-active-mem-table"), 0u);
  EXPECT_EQ(Int("num-entries-imm-mem-tables"), 0u);
  EXPECT_EQ(Int("num-deletes-imm-mem-tables"), 0u);
  EXPECT_EQ(Int("num-snapshots"), 0u);

  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(db_->Delete(WriteOptions(), "a"));
  ASSERT_OK(db_->SingleDelete(WriteOptions(), "c"));
  EXPECT_EQ(Int("num-entries-active-mem-table"), 4u);
  EXPECT_EQ(Int("num-deletes-active-mem-table"), 2u);

  ColumnFamilyHandle* other = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(), "other", &other));
  ASSERT_OK(db_->Put(WriteOptions(), other, "x", "1"));
  EXPECT_EQ(Int("num-entries-active-mem-table", other), 1u);  // per family
  EXPECT_EQ(Int("num-deletes-active-mem-table", other), 0u);

  const Snapshot* s1 = db_->GetSnapshot();
  const Snapshot* s2 = db_->GetSnapshot();
  EXPECT_EQ(Int("num-snapshots"), 2u);
  EXPECT_EQ(Int("num-snapshots", other), 2u);  // the DB's
  db_->ReleaseSnapshot(s1);
  EXPECT_EQ(Int("num-snapshots"), 1u);
  db_->ReleaseSnapshot(s2);

  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Int("num-entries-active-mem-table"), 0u);
  EXPECT_EQ(Int("num-immutable-mem-table"), 0u);
  EXPECT_EQ(Int("mem-table-flush-pending"), 0u);
  EXPECT_EQ(Int("num-entries-imm-mem-tables"), 0u);
  EXPECT_EQ(Int("num-entries-active-mem-table", other), 1u);  // not flushed
  ASSERT_OK(db_->DestroyColumnFamilyHandle(other));
}

}  // namespace
}  // namespace shale
