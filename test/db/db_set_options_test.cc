// DB::SetOptions and the OPTIONS file (issue 19, finding 16): the new OPTIONS file is written
// and synced without the DB mutex held (reads, writes and background installs go on
// meanwhile), and a change is all-or-none: when the file cannot be written, SetOptions returns
// the error and the old values stay live, with the old OPTIONS file still the latest.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gated_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/options_files.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using FI = FaultInjectionFileSystem;
using namespace std::chrono_literals;

using test::LatestOptionsFile;

TEST(DBSetOptionsTest, FailedOptionsFileWriteLeavesTheOldValuesLive) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.level0_file_num_compaction_trigger = 4;
  options.max_successive_merges = 0;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));

  for (FI::OpKind kind : {FI::OpKind::kCreate, FI::OpKind::kSync, FI::OpKind::kRename,
                          FI::OpKind::kSyncDir}) {
    SCOPED_TRACE(FI::OpKindName(kind));
    fs->InjectError(kind, 1, FaultIOError());
    Status s = db->SetOptions({{"level0_file_num_compaction_trigger", "9"},
                               {"max_successive_merges", "3"},
                               {"disable_auto_compactions", "false"}});
    fs->ClearInjectedErrors();
    ASSERT_FALSE(s.ok()) << "the OPTIONS file write was to fail";
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    const Options live = db->GetOptions();
    EXPECT_EQ(live.level0_file_num_compaction_trigger, 4);
    EXPECT_EQ(live.max_successive_merges, 0u);
    EXPECT_TRUE(live.disable_auto_compactions);
    const Options on_disk = LatestOptionsFile(fs.get(), "/db");
    EXPECT_EQ(on_disk.level0_file_num_compaction_trigger, 4);
    EXPECT_TRUE(on_disk.disable_auto_compactions);
    // The DB goes on working.
    ASSERT_OK(db->Put(WriteOptions(), "k", "v"));
    ASSERT_OK(db->Flush(FlushOptions()));
  }

  // The DB is healthy and the same change then goes through, in memory and on disk.
  ASSERT_OK(db->SetOptions({{"level0_file_num_compaction_trigger", "9"}}));
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 9);
  EXPECT_EQ(LatestOptionsFile(fs.get(), "/db").level0_file_num_compaction_trigger, 9);
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "k", &value));
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_OK(db->Get(ReadOptions(), "k", &value));
  ASSERT_OK(db->Close());
}

TEST(DBSetOptionsTest, OptionsFileIsWrittenWithoutTheDBMutex) {
  auto fs = std::make_shared<GatedFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));

  // SetOptions stops just before the new OPTIONS file takes its name.
  fs->Arm(GatedFileSystem::Op::kRename, "OPTIONS-");
  auto set = std::async(std::launch::async, [&] {
    return db->SetOptions({{"level0_file_num_compaction_trigger", "7"}});
  });
  ASSERT_TRUE(fs->WaitUntilHeld(10s));
  // Meanwhile a read, a write and a flush (whose install takes the mutex) complete.
  auto others = std::async(std::launch::async, [&] {
    std::string value;
    Status s = db->Get(ReadOptions(), "k", &value);
    if (s.ok()) s = db->Put(WriteOptions(), "k2", "v2");
    if (s.ok()) s = db->Flush(FlushOptions());
    return s;
  });
  const bool completed = others.wait_for(5s) == std::future_status::ready;
  EXPECT_TRUE(completed) << "a Get/Put/Flush waited for the OPTIONS file write";
  // Not yet applied: the change is live only once its file is written.
  if (completed) {
    EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 4);
  }
  fs->Release();
  ASSERT_OK(set.get());
  ASSERT_OK(others.get());
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 7);
  ASSERT_OK(db->Close());
}

// Concurrent SetOptions calls each land whole: the last file written holds the values live
// at the end, whatever the interleaving.
TEST(DBSetOptionsTest, ConcurrentSetOptionsAgreeWithTheLatestFile) {
  auto fs = std::make_shared<FI>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/db", &db));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; i++) {
        const int trigger = 2 + t;
        const int slowdown = 20 + t;
        EXPECT_OK(db->SetOptions({{"level0_file_num_compaction_trigger", std::to_string(trigger)},
                                  {"level0_slowdown_writes_trigger", std::to_string(slowdown)}}));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const Options live = db->GetOptions();
  const Options on_disk = LatestOptionsFile(fs.get(), "/db");
  EXPECT_EQ(live.level0_slowdown_writes_trigger - live.level0_file_num_compaction_trigger, 18);
  EXPECT_EQ(on_disk.level0_file_num_compaction_trigger, live.level0_file_num_compaction_trigger);
  EXPECT_EQ(on_disk.level0_slowdown_writes_trigger, live.level0_slowdown_writes_trigger);
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
