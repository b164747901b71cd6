// The point-read SuperVersion cache (ColumnFamilyData::super_version_slots,
// DBImpl::AcquireSuperVersionForGet): a Get reuses the SuperVersion its thread's slot holds
// instead of referencing one under the DB mutex. What it must never do:
//  - serve a Get from a SuperVersion older than the caller's own acknowledged write (a memtable
//    switch installs a new SuperVersion; the next Get must see the write in the new memtable);
//  - keep a replaced SuperVersion alive: the tables a compaction replaced must be deleted even
//    when every thread that read through a slot has gone idle or exited;
//  - lose or leak a reference when Close or a column family drop races Gets (LeakSanitizer
//    reports a leaked SuperVersion, with its memtables, under the ASan preset).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

namespace fs = std::filesystem;

class DBSuperVersionCacheTest : public testing::Test {
 protected:
  DBSuperVersionCacheTest() {
    dir_ = (fs::temp_directory_path() /
            ("shale_sv_cache_" + std::to_string(::getpid()) + "_" +
             testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
  }
  ~DBSuperVersionCacheTest() override {
    db_.reset();
    fs::remove_all(dir_);
  }

  void Open() { ASSERT_OK(DB::Open(options_, dir_, &db_)); }

  size_t TableFiles() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.path().extension() == ".sst";
    return n;
  }

  std::string dir_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// Each thread writes its own key, then reads it back at once, across constant memtable
// switches and flushes: the Get must see the value just written, whatever its slot held.
TEST_F(DBSuperVersionCacheTest, GetAfterOwnWriteSeesItAcrossMemtableSwitches) {
  Open();
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; t++) {
    threads.emplace_back([&, t] {
      const std::string key = "k" + std::to_string(t);
      std::string value;
      for (int i = 0; i < 3000 && !failed.load(); i++) {
        const std::string want = std::to_string(i) + std::string(200, 'x');
        if (!db_->Put(WriteOptions(), key, want).ok()) failed = true;
        if (!db_->Get(ReadOptions(), key, &value).ok() || value != want) failed = true;
        if (i % 500 == 0 && !db_->Flush(FlushOptions()).ok()) failed = true;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(failed.load());
}

// Gets from threads that then exit fill their slots; a compaction afterwards replaces the
// tables those SuperVersions pinned. The replaced tables must be deleted: the install that
// followed the compaction emptied the slots.
TEST_F(DBSuperVersionCacheTest, IdleSlotsDoNotKeepReplacedTablesAlive) {
  options_.disable_auto_compactions = true;
  Open();
  for (int f = 0; f < 4; f++) {
    for (int i = 0; i < 100; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), "key" + std::to_string(i), std::to_string(f)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  const size_t before = TableFiles();
  ASSERT_GE(before, 2u);
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; t++) {
    readers.emplace_back([&] {
      std::string value;
      for (int i = 0; i < 100; i++) {
        EXPECT_OK(db_->Get(ReadOptions(), "key" + std::to_string(i), &value));
      }
    });
  }
  for (auto& th : readers) th.join();
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "key7", &value));  // this thread's slot too
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(TableFiles(), 1u) << "tables the compaction replaced are still on disk";
  ASSERT_OK(db_->Get(ReadOptions(), "key7", &value));
  EXPECT_EQ(value, "3");
}

// Close while readers hammer Get: every Get returns a value or ShutdownInProgress, and no
// reference is lost (a leak shows under LeakSanitizer; a double release as a crash).
TEST_F(DBSuperVersionCacheTest, CloseRacingGets) {
  for (int round = 0; round < 5; round++) {
    Open();
    for (int i = 0; i < 200; i++) ASSERT_OK(db_->Put(WriteOptions(), std::to_string(i), "v"));
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 3; t++) {
      readers.emplace_back([&, t] {
        std::string value;
        for (int i = 0; !stop.load(); i++) {
          Status s = db_->Get(ReadOptions(), std::to_string((i * 7 + t) % 200), &value);
          if (!s.ok() && !s.IsShutdownInProgress()) bad++;
          if (s.ok() && value != "v") bad++;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_OK(db_->Close());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;
    for (auto& th : readers) th.join();
    EXPECT_EQ(bad.load(), 0);
    db_.reset();
  }
}

// A dropped family's handle still reads (RocksDB's rule), through the slot cache as well, and
// the family's SuperVersion goes when the last handle does.
TEST_F(DBSuperVersionCacheTest, DroppedFamilyReadsThenLetsGo) {
  Open();
  ColumnFamilyHandle* cf = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(), "a", &cf));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "x", "1"));
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), cf, "x", &value));  // fills this thread's slot
  ASSERT_OK(db_->DropColumnFamily(cf));
  ASSERT_OK(db_->Get(ReadOptions(), cf, "x", &value));
  EXPECT_EQ(value, "1");
  ASSERT_OK(db_->DestroyColumnFamilyHandle(cf));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "2"));  // the DB goes on
  ASSERT_OK(db_->Get(ReadOptions(), "y", &value));
  EXPECT_EQ(value, "2");
}

}  // namespace
}  // namespace shale
