// Review of issue 19, finding 6 (CompactRange(change_level)): the move of the compaction's
// output from the bottom level up to target_level is one MANIFEST edit, and LogAndApply
// releases the DB mutex while it writes it. During that write the output files still sit in
// the bottom level of the current Version, and nothing marked them as taken: another
// compaction (a second CompactRange, or an automatic one when the manual compaction is not
// exclusive) could pick them as inputs. The move then installed, and the other compaction's
// edit deleted the files from a level that no longer held them: Corruption, and the DB went
// read-only. The tests here act at the move's MANIFEST sync through a file-system hook.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compaction/db_shape_util.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using test::ListFiles;
using test::SstInfo;

// Forwards to a base file system. Once armed with (skip, hook), the (skip + 1)-th Sync of a
// MANIFEST file runs `hook` (in the syncing thread, before the sync), once; likewise a SyncDir
// hook for the next SyncDir. Thread-safe as far as the tests use them: each hook is set before
// its flag is armed (release/acquire through the atomic), and runs once.
class ManifestHookFileSystem final : public test::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;

  void ArmManifestSyncHook(int skip, std::function<void()> hook) {
    hook_ = std::move(hook);
    skip_.store(skip);
    armed_.store(true);
  }
  bool hook_ran() const { return ran_.load(); }
  // Drops hooks that have not run (they may refer to a finished test's locals).
  void Disarm() {
    armed_.store(false);
    dir_armed_.store(false);
  }
  // Runs `hook` at the next SyncDir (in the syncing thread, before the sync), once.
  void ArmSyncDirHook(std::function<void()> hook) {
    dir_hook_ = std::move(hook);
    dir_armed_.store(true);
  }

  // Called by a wrapped MANIFEST file at each Sync.
  void OnManifestSync() {
    if (!armed_.load()) return;
    if (skip_.fetch_sub(1) > 0) return;
    if (armed_.exchange(false)) {
      hook_();
      ran_.store(true);
    }
  }

  const char* Name() const override { return "manifest_hook"; }
  Status NewWritableFile(const std::string& p, std::unique_ptr<WritableFile>* r) override {
    Status s = base()->NewWritableFile(p, r);
    if (s.ok() && p.find("/MANIFEST-") != std::string::npos) {
      *r = std::make_unique<HookedFile>(std::move(*r), this);
    }
    return s;
  }
  Status NewAppendableFile(const std::string& p, std::unique_ptr<WritableFile>* r) override {
    Status s = base()->NewAppendableFile(p, r);
    if (s.ok() && p.find("/MANIFEST-") != std::string::npos) {
      *r = std::make_unique<HookedFile>(std::move(*r), this);
    }
    return s;
  }
  Status SyncDir(const std::string& d) override {
    if (dir_armed_.exchange(false)) dir_hook_();
    return base()->SyncDir(d);
  }

 private:
  class HookedFile final : public test::ForwardingWritableFile {
   public:
    HookedFile(std::unique_ptr<WritableFile> base, ManifestHookFileSystem* fs)
        : ForwardingWritableFile(std::move(base)), fs_(fs) {}
    Status Sync() override {
      fs_->OnManifestSync();
      return base()->Sync();
    }

   private:
    ManifestHookFileSystem* fs_;
  };

  std::function<void()> hook_;  // set before armed_
  std::atomic<int> skip_{0};
  std::atomic<bool> armed_{false};
  std::atomic<bool> ran_{false};
  std::function<void()> dir_hook_;  // set before dir_armed_
  std::atomic<bool> dir_armed_{false};
};

class DBCompactionRefitRaceTest : public ::testing::Test {
 protected:
  DBCompactionRefitRaceTest() {
    fs_ = std::make_shared<ManifestHookFileSystem>(NewMemFileSystem());
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.num_levels = 4;
    options_.level_compaction_dynamic_level_bytes = false;
    options_.disable_auto_compactions = true;
  }
  ~DBCompactionRefitRaceTest() override {
    fs_->Disarm();
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  std::string Get(const std::string& key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    if (s.IsNotFound()) return "(absent)";
    EXPECT_OK(s);
    return value;
  }
  // Waits (up to `limit`) until some compaction is running; whether one was seen.
  bool WaitForRunningCompaction(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      uint64_t running = 0;
      if (db_->GetIntProperty(DB::Properties::kNumRunningCompactions, &running) && running > 0) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  static constexpr const char* kDb = "/refit";
  std::shared_ptr<ManifestHookFileSystem> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// CompactRange(change_level, target L1) over data in the bottom level (L3): the compaction
// writes its output into L3 (first MANIFEST edit), then moves it to L1 (second edit). While the
// second edit is being synced (the DB mutex released), a second CompactRange (forced over the
// bottom level) starts. Before the fix it picked the output files in L3 as its inputs; the
// move installed; its own edit then deleted them from L3: "Corruption: edit deletes file #N
// from L3, which does not hold it", and the DB turned read-only. Now the files being moved
// count as being compacted until the move is in the Version: the second CompactRange waits for
// it and then compacts the moved files where they are. (With the fix the hook waits its full
// 2 s for a compaction that, correctly, does not start.)
TEST_F(DBCompactionRefitRaceTest, SecondCompactRangeDoesNotPickFilesBeingMoved) {
  Open();
  for (char c = 'a'; c <= 'z'; c++) {
    ASSERT_OK(db_->Put(WriteOptions(), std::string(1, c), std::string("v1-") + c));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(files[0].level, 3) << "a flush over an empty DB goes to the bottom level";

  Status second_status;
  std::thread second;
  bool second_started_a_compaction = false;
  // Sync 1: the compaction's install (output into L3). Sync 2: the move to L1.
  fs_->ArmManifestSyncHook(1, [&] {
    second = std::thread([&] {
      CompactRangeOptions cro;
      cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
      second_status = db_->CompactRange(cro, nullptr, nullptr);
    });
    second_started_a_compaction = WaitForRunningCompaction(std::chrono::seconds(2));
  });
  CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = 1;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  Status first_status = db_->CompactRange(cro, nullptr, nullptr);
  if (second.joinable()) second.join();
  ASSERT_TRUE(fs_->hook_ran());
  EXPECT_OK(first_status);
  EXPECT_TRUE(second_status.ok())
      << "the second CompactRange "
      << (second_started_a_compaction ? "picked the files being moved: " : "failed: ")
      << second_status.ToString();
  EXPECT_FALSE(second_started_a_compaction)
      << "a compaction ran with the files being moved as inputs";
  Status put = db_->Put(WriteOptions(), "m", "v2");
  EXPECT_TRUE(put.ok()) << "the DB is read-only: " << put.ToString();
  EXPECT_EQ(Get("m"), "v2");
  for (char c = 'a'; c <= 'z'; c++) {
    if (c == 'm') continue;
    EXPECT_EQ(Get(std::string(1, c)), std::string("v1-") + c);
  }
  ASSERT_OK(db_->Close());
  db_.reset();
  Open();
  EXPECT_EQ(Get("m"), "v2") << "after reopen";
  EXPECT_EQ(Get("a"), "v1-a") << "after reopen";
}

// The same window with an automatic compaction: CompactRange(change_level, target L1, not
// exclusive) over data in the bottom level (L3, also the base level: the tree is small). While
// the compaction runs, a flush of a newer m goes to L0 (the move's guard keeps it out of L1 and
// L2). While the move's edit is being synced, a SetOptions schedules the L0 -> base compaction,
// which before the fix took the L0 file and the output files in L3 being moved: its edit then
// deleted them from L3 after the move (Corruption, read-only DB). Now it waits.
TEST_F(DBCompactionRefitRaceTest, AutomaticCompactionDoesNotPickFilesBeingMoved) {
  options_.disable_auto_compactions = false;
  options_.level_compaction_dynamic_level_bytes = true;
  options_.level0_file_num_compaction_trigger = 1;
  Open();
  for (char c = 'a'; c <= 'z'; c++) {
    ASSERT_OK(db_->Put(WriteOptions(), std::string(1, c), std::string("v1-") + c));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  std::vector<SstInfo> files = ListFiles(db_.get());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(files[0].level, 3) << "a flush over an empty DB goes to the bottom level";

  Status flush_status;
  bool auto_compaction_started = false;
  fs_->ArmSyncDirHook([&] {
    // The compaction's outputs are written, not yet installed: a newer m goes to L0.
    std::thread writer([&] {
      flush_status = db_->Put(WriteOptions(), "m", "v2");
      if (flush_status.ok()) flush_status = db_->Flush(FlushOptions());
    });
    writer.join();
    // Next MANIFEST sync: the compaction's install; the one after: the move.
    fs_->ArmManifestSyncHook(1, [&] {
      Status s = db_->SetOptions({{"level0_file_num_compaction_trigger", "1"}});
      EXPECT_TRUE(s.ok()) << s.ToString();
      auto_compaction_started = WaitForRunningCompaction(std::chrono::seconds(2));
    });
  });
  CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = 1;
  cro.exclusive_manual_compaction = false;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  Status first_status = db_->CompactRange(cro, nullptr, nullptr);
  ASSERT_TRUE(fs_->hook_ran());
  ASSERT_OK(flush_status);
  EXPECT_OK(first_status);
  EXPECT_FALSE(auto_compaction_started) << "a compaction ran with the files being moved as inputs";
  EXPECT_TRUE(test::WaitForCompactions(db_.get()).settled);
  Status put = db_->Put(WriteOptions(), "n", "v2");
  EXPECT_TRUE(put.ok()) << "the DB is read-only: " << put.ToString();
  EXPECT_EQ(Get("m"), "v2");
  EXPECT_EQ(Get("a"), "v1-a");
  EXPECT_EQ(Get("z"), "v1-z");
}

}  // namespace
}  // namespace shale
