// The point-read SuperVersion cache (ColumnFamilyData::super_version_slots,
// DBImpl::AcquireSuperVersionForGet): a Get reuses the SuperVersion its thread's slot holds
// instead of referencing one under the DB mutex. What it must never do:
//  - serve a Get from a SuperVersion older than the caller's own acknowledged write (a memtable
//    switch installs a new SuperVersion; the next Get must see the write in the new memtable);
//  - keep a replaced SuperVersion alive: the tables a compaction replaced must be deleted even
//    when every thread that read through a slot has gone idle or exited;
//  - lose or leak a reference when Close or a column family drop races Gets (LeakSanitizer
//    reports a leaked SuperVersion, with its memtables, under the ASan preset);
//  - leave a replaced SuperVersion in a slot when threads share it (more threads than slots):
//    a Get must not take another thread's in-use mark for its own;
//  - read at a sequence that includes writes made on top of a newer SuperVersion.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "db/db_impl.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "shale/sst_file_writer.h"
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

// Joins the threads when it goes out of scope, after setting `stop`: an assertion that
// returns early still leaves no joinable thread behind.
class JoinAll {
 public:
  JoinAll(std::vector<std::thread>* threads, std::atomic<bool>* stop)
      : threads_(threads), stop_(stop) {}
  ~JoinAll() {
    if (stop_ != nullptr) *stop_ = true;
    for (auto& t : *threads_) {
      if (t.joinable()) t.join();
    }
  }
  JoinAll(const JoinAll&) = delete;
  JoinAll& operator=(const JoinAll&) = delete;

 private:
  std::vector<std::thread>* threads_;
  std::atomic<bool>* stop_;
};

// A gate a Get waits at inside the merge operator, holding its SuperVersion slot, until the
// test opens it. Thread-safe.
class Gate {
 public:
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mu_);
    arrived_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void WaitArrived() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return arrived_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool arrived_ = false;
  bool open_ = false;
};

thread_local Gate* gate_of_this_thread = nullptr;

// Concatenates operands; a thread with a gate waits at it in every full merge.
class GatedConcatOperator final : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    if (gate_of_this_thread != nullptr) gate_of_this_thread->ArriveAndWait();
    std::string result = in.existing_value != nullptr ? std::string(*in.existing_value) : "";
    for (std::string_view op : in.operand_list) result.append(op);
    out->new_value = std::move(result);
    return true;
  }
  const char* Name() const override { return "GatedConcat"; }
};

// Two Gets share one slot (as threads beyond the slot count do). A holds the slot with its
// mark; a flush scrapes it; C takes the emptied slot with its own mark; A finishes first. A
// must not take C's mark for its own and put its replaced SuperVersion in the slot: the next
// scrape would drop that SuperVersion's last reference as if it were not the last, and its
// tables would stay on disk for good.
TEST_F(DBSuperVersionCacheTest, GetsSharingASlotNeverLeaveAReplacedSuperVersionInIt) {
  options_.merge_operator = std::make_shared<GatedConcatOperator>();
  options_.disable_auto_compactions = true;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "m", "base"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Merge(WriteOptions(), "m", "+1"));
  Gate gate_a;
  Gate gate_c;
  std::vector<std::thread> threads;
  JoinAll join(&threads, nullptr);
  struct OpenGates {  // before the join, should an assertion return early
    Gate* a;
    Gate* c;
    ~OpenGates() {
      a->Open();
      c->Open();
    }
  } open_gates{&gate_a, &gate_c};
  std::atomic<int> bad{0};
  auto reader = [&](Gate* gate) {
    DBImpl::SetSuperVersionSlotForTesting(5);
    std::string value;
    if (!db_->Get(ReadOptions(), "m", &value).ok()) bad++;  // fills the slot
    gate_of_this_thread = gate;
    if (!db_->Get(ReadOptions(), "m", &value).ok() || value.rfind("base+1", 0) != 0) bad++;
    gate_of_this_thread = nullptr;
  };
  threads.emplace_back(reader, &gate_a);
  gate_a.WaitArrived();  // A holds slot 5
  ASSERT_OK(db_->Put(WriteOptions(), "other", "x"));
  ASSERT_OK(db_->Flush(FlushOptions()));  // installs: A's mark scraped
  threads.emplace_back(reader, &gate_c);
  gate_c.WaitArrived();  // C holds slot 5, with its own mark
  gate_a.Open();
  threads[0].join();     // A's release: must leave C's mark alone
  gate_c.Open();
  threads[1].join();
  EXPECT_EQ(bad.load(), 0);
  ASSERT_OK(db_->Put(WriteOptions(), "other", "y"));
  ASSERT_OK(db_->Flush(FlushOptions()));  // scrapes slot 5 again
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  std::vector<LiveFileMetaData> live;
  db_->GetLiveFilesMetaData(&live);
  EXPECT_EQ(live.size(), 1u);
  EXPECT_EQ(TableFiles(), live.size()) << "a replaced SuperVersion keeps its tables on disk";
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "m", &value));
  EXPECT_EQ(value, "base+1");
}

// The read sequence is read after the SuperVersion found in the slot. An ingestion that does
// not touch the memtable installs a SuperVersion sharing it; a merge operand written after the
// ingestion, inside that memtable, must be applied to the ingested value, never to the value
// the ingestion hid (old + operand was never the key's value).
TEST_F(DBSuperVersionCacheTest, OperandWrittenAfterAnIngestionIsNeverAppliedBelowIt) {
  options_.merge_operator = std::make_shared<GatedConcatOperator>();
  options_.disable_auto_compactions = true;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "old"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "z", "memtable"));  // the ingestion does not overlap it
  const std::string file = dir_ + "_ingest.sst";
  {
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                         FileSystem::Default());
    ASSERT_OK(writer.Open(file));
    ASSERT_OK(writer.Put("k", "new"));
    ASSERT_OK(writer.Finish(nullptr));
  }
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "k", &value));  // fills this thread's slot
  EXPECT_EQ(value, "old");
  Status hook_status;
  bool fired = false;
  *DBImpl::TestHookAfterSlotCheck() = [&] {
    if (fired) return;
    fired = true;
    hook_status = db_->IngestExternalFile({file}, IngestExternalFileOptions());
    if (hook_status.ok()) hook_status = db_->Merge(WriteOptions(), "k", "+op");
  };
  Status s = db_->Get(ReadOptions(), "k", &value);
  *DBImpl::TestHookAfterSlotCheck() = nullptr;
  fs::remove(file);
  ASSERT_TRUE(fired) << "the Get did not find its SuperVersion in the slot";
  ASSERT_OK(hook_status);
  ASSERT_OK(s);
  EXPECT_EQ(value, "new+op");
  ASSERT_OK(db_->Get(ReadOptions(), "k", &value));
  EXPECT_EQ(value, "new+op");
}

}  // namespace
}  // namespace shale
