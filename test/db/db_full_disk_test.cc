// A real full disk: a DB on the POSIX file system in a small dedicated file system (a tmpfs of a
// few MiB) is written until the device is full. Then writes fail with NoSpace and the DB is in
// the error state with that cause; reads see every acknowledged write; once a ballast file is
// deleted, DB::Resume() makes the DB writable again, and nothing acknowledged is lost, before
// and after a reopen.
//
// The directory comes from SHALE_SMALL_FS_DIR (it must be the root of a small, otherwise empty
// file system); without it the test is skipped. test/db/full_disk_test.sh mounts a tmpfs, runs
// this test on it and unmounts it (ctest: db_full_disk_tmpfs), when it runs as root.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

// What the DB must hold: every acknowledged write. A write that failed may or may not be there.
struct Expected {
  std::map<std::string, std::string> acked;
  std::string failed_key;  // the key of the write that met the full disk (may be present)
};

void Verify(DB* db, const Expected& expected, const std::string& where) {
  size_t found = 0;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key(it->key());
    if (key == expected.failed_key) continue;
    auto e = expected.acked.find(key);
    ASSERT_NE(e, expected.acked.end()) << where << key << " was never acknowledged";
    ASSERT_EQ(it->value(), e->second) << where << key;
    found++;
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(found, expected.acked.size()) << where << "acknowledged writes are missing";
  for (const auto& [key, value] : expected.acked) {
    std::string got;
    Status s = db->Get(ReadOptions(), key, &got);
    ASSERT_TRUE(s.ok()) << where << key << ": " << s.ToString();
    ASSERT_EQ(got, value) << where << key;
  }
}

std::string BackgroundError(DB* db) {
  std::string value = "<unknown property>";
  EXPECT_TRUE(db->GetProperty(DB::Properties::kBackgroundError, &value));
  return value;
}

std::string RandomValue(Random* rnd, size_t n) {
  std::string v(n, ' ');
  for (char& c : v) c = static_cast<char>('a' + rnd->Uniform(26));  // incompressible enough
  return v;
}

TEST(DBFullDiskTest, WritesFailReadsWorkResumeAfterSpaceIsFreed) {
  const char* dir = std::getenv("SHALE_SMALL_FS_DIR");
  if (dir == nullptr || *dir == '\0') {
    GTEST_SKIP() << "SHALE_SMALL_FS_DIR is not set: no small file system to fill (run "
                    "test/db/full_disk_test.sh as root to mount a tmpfs)";
  }
  std::shared_ptr<FileSystem> fs = FileSystem::Default();
  const std::string dbname = std::string(dir) + "/db";
  const std::string ballast = std::string(dir) + "/ballast";
  Options options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  options.write_buffer_size = 512 << 10;
  // No compaction: its output would need room the full disk does not have, and the test wants
  // the one error it provokes.
  options.disable_auto_compactions = true;
  options.level0_slowdown_writes_trigger = 1000;
  options.level0_stop_writes_trigger = 1000;
  ASSERT_OK(DestroyDB(dbname, options));
  fs->DeleteFile(ballast).PermitUncheckedError();
  // Room to give back later: 1.5 MiB, enough to flush the memtables and reopen.
  ASSERT_OK(WriteStringToFile(fs.get(), std::string(3 << 19, 'b'), ballast, /*sync=*/true));

  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dbname, &db));
  Random rnd(301);
  Expected expected;
  Status s;
  int i = 0;
  for (; i < 100000; i++) {  // far more than fits
    char key[16];
    snprintf(key, sizeof(key), "key%06d", i);
    const std::string value = RandomValue(&rnd, 2000);
    WriteOptions wo;
    wo.sync = i % 50 == 0;
    s = db->Put(wo, key, value);
    if (!s.ok()) {
      expected.failed_key = key;
      break;
    }
    expected.acked[key] = value;
  }
  ASSERT_FALSE(s.ok()) << "the file system never filled up after " << i << " writes";
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_FALSE(BackgroundError(db.get()).empty());
  EXPECT_NE(BackgroundError(db.get()).find("No space"), std::string::npos)
      << BackgroundError(db.get());
  uint64_t errors = 0;
  ASSERT_TRUE(db->GetIntProperty(DB::Properties::kBackgroundErrors, &errors));
  EXPECT_GE(errors, 1u);
  ASSERT_GT(expected.acked.size(), 1000u) << "too little fitted to mean much";

  // Read-only error state: writes fail with the cause, reads work.
  Status again = db->Put(WriteOptions(), "after-full", "x");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.ToString(), BackgroundError(db.get()));
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), expected, "disk full: "));

  // Still full: Resume cannot succeed (the memtables cannot be flushed).
  Status r = db->Resume();
  if (!r.ok()) {
    EXPECT_FALSE(BackgroundError(db.get()).empty()) << r.ToString();
  }

  // Free space, resume, write again.
  ASSERT_OK(fs->DeleteFile(ballast));
  ASSERT_OK(db->Resume());
  EXPECT_EQ(BackgroundError(db.get()), "");
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), expected, "after Resume: "));
  for (int j = 0; j < 20; j++) {
    const std::string key = "resumed" + std::to_string(j);
    ASSERT_OK(db->Put(WriteOptions(), key, "v"));
    expected.acked[key] = "v";
  }
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), expected, "written after Resume: "));
  ASSERT_OK(db->Close());
  db.reset();

  ASSERT_OK(DB::Open(options, dbname, &db));
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), expected, "after reopen: "));
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DestroyDB(dbname, options));
}

}  // namespace
}  // namespace shale
