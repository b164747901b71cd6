// The WALs a flush leaves obsolete, seen from outside the DB (issue 20's flaky Python test
// test_read_only.py::test_read_only_beside_a_writer, where 000001.log vanished between two
// listings taken after writer.flush()):
//  - Flush(wait) returns only once the WALs its flush made obsolete are deleted (RocksDB's
//    BackgroundCallFlush purges obsolete files before it wakes the flush's waiters), so a
//    directory listed after Flush returns stays as it is while nothing is written. A file
//    system whose WAL deletions are slow widens the window the old code left open.
//  - A read-only open beside a writer that flushes a WAL away between the read-only open's
//    reading of the MANIFEST and its opening of that WAL (the file system runs the writer's
//    flush at that exact call) retries from the MANIFEST, which now names the flushed table,
//    and sees every write; likewise when the writer compacts away a table the open is
//    checking (paranoid_checks' size check). A secondary instance (which already compared
//    the MANIFEST before and after each attempt) opens and catches up in the same races.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

bool IsWal(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0;
}

// Deletions of WALs take `delay` before they happen. Tests only. Thread-safe (no state beyond
// the constant delay).
class SlowWalDeleteFileSystem final : public test::ForwardingFileSystem {
 public:
  SlowWalDeleteFileSystem(std::shared_ptr<FileSystem> base, std::chrono::milliseconds delay)
      : ForwardingFileSystem(std::move(base)), delay_(delay) {}
  const char* Name() const override { return "slow-wal-delete"; }
  Status DeleteFile(const std::string& path) override {
    if (IsWal(path)) std::this_thread::sleep_for(delay_);
    return base()->DeleteFile(path);
  }

 private:
  const std::chrono::milliseconds delay_;
};

bool IsTable(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".sst") == 0;
}

// Runs a hook once, in the calling thread, just before the first NewSequentialFile of a WAL
// (a read-only open's replay) or the first GetFileSize of a table (its paranoid_checks size
// check), whichever it is armed for, then forwards the call. Tests only. Set the hook (Arm)
// while no other thread uses the file system; the hook runs at most once per Arm.
class BeforeReadFileSystem final : public test::ForwardingFileSystem {
 public:
  enum class On { kWalOpen, kTableSize };
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "before-read"; }
  void Arm(On on, std::function<void()> hook) {
    on_ = on;
    hook_ = std::move(hook);
    ran_ = false;
  }
  Status NewSequentialFile(const std::string& path,
                           std::unique_ptr<SequentialFile>* result) override {
    if (on_ == On::kWalOpen && IsWal(path)) MaybeRun();
    return base()->NewSequentialFile(path, result);
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    if (on_ == On::kTableSize && IsTable(path)) MaybeRun();
    return base()->GetFileSize(path, size);
  }

 private:
  void MaybeRun() {
    if (hook_ && !ran_.exchange(true)) hook_();
  }
  On on_ = On::kWalOpen;
  std::function<void()> hook_;
  std::atomic<bool> ran_{false};
};

class DBObsoleteWalRaceTest : public testing::Test {
 protected:
  DBObsoleteWalRaceTest()
      : dir_(testing::TempDir() + "/db_obsolete_wal_race_test_" + std::to_string(::getpid()) +
             "_" + testing::UnitTest::GetInstance()->current_test_info()->name()),
        remove_dir_(dir_) {}

  std::vector<std::string> Wals() {
    std::vector<std::string> children, wals;
    EXPECT_OK(FileSystem::Default()->GetChildren(dir_, &children));
    for (const std::string& name : children) {
      if (IsWal(name)) wals.push_back(name);
    }
    return wals;
  }

  const std::string dir_;
  test::ScopedDirRemoval remove_dir_;
};

TEST_F(DBObsoleteWalRaceTest, FlushWaitReturnsOnceTheObsoleteWalIsDeleted) {
  Options options;
  options.create_if_missing = true;
  options.file_system = std::make_shared<SlowWalDeleteFileSystem>(
      FileSystem::Default(), std::chrono::milliseconds(300));
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir_, &db));
  for (int round = 0; round < 3; round++) {
    ASSERT_OK(db->Put(WriteOptions(), "k" + std::to_string(round), "v"));
    const std::vector<std::string> before = Wals();
    ASSERT_EQ(before.size(), 1u);
    ASSERT_OK(db->Flush(FlushOptions()));
    // The flush moved the log number past the WAL it emptied: gone by now.
    for (const std::string& name : before) {
      EXPECT_TRUE(FileSystem::Default()->FileExists(dir_ + "/" + name).IsNotFound())
          << "round " << round << ": " << name << " is still there after Flush(wait) returned";
    }
    EXPECT_EQ(Wals().size(), 1u) << "round " << round;  // the new WAL only
  }
  ASSERT_OK(db->Close());
}

TEST_F(DBObsoleteWalRaceTest, ReadOnlyOpenRetriesWhenTheWriterFlushesItsWalAway) {
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> writer;
  ASSERT_OK(DB::Open(options, dir_, &writer));
  ASSERT_OK(writer->Put(WriteOptions(), "flushed", "1"));
  ASSERT_OK(writer->Flush(FlushOptions()));
  ASSERT_OK(writer->Put(WriteOptions(), "in-wal", "2"));
  const std::vector<std::string> wals = Wals();
  ASSERT_EQ(wals.size(), 1u);

  // The read-only open has read the MANIFEST (the WAL above is live there) and listed the
  // directory; as it opens the WAL, the writer flushes it into a table and deletes it.
  auto fs = std::make_shared<BeforeReadFileSystem>(FileSystem::Default());
  fs->Arm(BeforeReadFileSystem::On::kWalOpen, [&] {
    ASSERT_OK(writer->Flush(FlushOptions()));
    ASSERT_TRUE(FileSystem::Default()->FileExists(dir_ + "/" + wals[0]).IsNotFound());
  });
  Options ro_options;
  ro_options.file_system = fs;
  std::unique_ptr<DB> reader;
  ASSERT_OK(DB::OpenForReadOnly(ro_options, dir_, &reader));
  std::string value;
  ASSERT_OK(reader->Get(ReadOptions(), "flushed", &value));
  EXPECT_EQ(value, "1");
  ASSERT_OK(reader->Get(ReadOptions(), "in-wal", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(reader->Close());
  ASSERT_OK(writer->Close());
}

TEST_F(DBObsoleteWalRaceTest, ReadOnlyOpenRetriesWhenTheWriterCompactsATableAway) {
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> writer;
  ASSERT_OK(DB::Open(options, dir_, &writer));
  ASSERT_OK(writer->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(writer->Flush(FlushOptions()));
  ASSERT_OK(writer->Put(WriteOptions(), "a", "2"));
  ASSERT_OK(writer->Put(WriteOptions(), "b", "3"));
  ASSERT_OK(writer->Flush(FlushOptions()));
  std::vector<LiveFileMetaData> tables;
  writer->GetLiveFilesMetaData(&tables);
  ASSERT_EQ(tables.size(), 2u);

  // The read-only open checks the sizes of the tables its MANIFEST names; as it does, the
  // writer compacts them (into new tables) and deletes them.
  auto fs = std::make_shared<BeforeReadFileSystem>(FileSystem::Default());
  fs->Arm(BeforeReadFileSystem::On::kTableSize, [&] {
    CompactRangeOptions all;
    all.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(writer->CompactRange(all, nullptr, nullptr));
    std::vector<LiveFileMetaData> now;
    writer->GetLiveFilesMetaData(&now);
    for (const LiveFileMetaData& t : tables) {
      for (const LiveFileMetaData& n : now) ASSERT_NE(n.name, t.name);
      ASSERT_TRUE(FileSystem::Default()->FileExists(dir_ + t.name).IsNotFound()) << t.name;
    }
  });
  Options ro_options;
  ro_options.file_system = fs;
  std::unique_ptr<DB> reader;
  ASSERT_OK(DB::OpenForReadOnly(ro_options, dir_, &reader));
  std::string value;
  ASSERT_OK(reader->Get(ReadOptions(), "a", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(reader->Get(ReadOptions(), "b", &value));
  EXPECT_EQ(value, "3");
  ASSERT_OK(reader->Close());
  ASSERT_OK(writer->Close());
}

TEST_F(DBObsoleteWalRaceTest, SecondaryOpensAndCatchesUpWhileThePrimaryFlushesItsWalAway) {
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> primary;
  ASSERT_OK(DB::Open(options, dir_, &primary));
  ASSERT_OK(primary->Put(WriteOptions(), "first", "1"));

  auto fs = std::make_shared<BeforeReadFileSystem>(FileSystem::Default());
  auto flush_wal_away = [&] {
    const std::vector<std::string> wals = Wals();
    ASSERT_OK(primary->Flush(FlushOptions()));
    for (const std::string& name : wals) {
      ASSERT_TRUE(FileSystem::Default()->FileExists(dir_ + "/" + name).IsNotFound()) << name;
    }
  };
  fs->Arm(BeforeReadFileSystem::On::kWalOpen, flush_wal_away);
  Options sec_options;
  sec_options.file_system = fs;
  test::ScopedDirRemoval remove_secondary_dir(dir_ + "_secondary");
  std::unique_ptr<DB> secondary;
  ASSERT_OK(DB::OpenAsSecondary(sec_options, dir_, dir_ + "_secondary", &secondary));
  std::string value;
  ASSERT_OK(secondary->Get(ReadOptions(), "first", &value));
  EXPECT_EQ(value, "1");

  ASSERT_OK(primary->Put(WriteOptions(), "second", "2"));
  fs->Arm(BeforeReadFileSystem::On::kWalOpen, flush_wal_away);
  ASSERT_OK(secondary->TryCatchUpWithPrimary());
  ASSERT_OK(secondary->Get(ReadOptions(), "second", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(secondary->Close());
  ASSERT_OK(primary->Close());
}

}  // namespace
}  // namespace shale
