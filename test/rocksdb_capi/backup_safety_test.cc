// Tests of the safety of RocksDB's C API backups over ShaleDB (src/rocksdb_capi/backup*.cc):
// a failed restore keeps the old DB, a restore takes the target DB's LOCK, a backup directory
// has one engine at a time, a purge syncs the meta directory before it deletes a backup's
// files; and of WriteBatchWithIndex reads through the DB with NULL or refused read options.
// Written against Debian's rocksdb/c.h, as a RocksDB client is.
//
// The purge and crash tests interpose fsync(2): this program defines fsync, which the library's calls
// resolve to (an executable's definition comes first); it records the synced paths while
// g_record_syncs is set and passes every call on to the kernel.
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rocksdb/c.h"

namespace {

// Set while a test watches the fsyncs; g_on_sync is called (in the syncing thread, which may
// be a DB's background thread) with each synced path. Only the test's own thread sets them,
// g_on_sync before any DB is open.
std::atomic<bool> g_record_syncs{false};
void (*g_on_sync)(const std::string& path) = nullptr;

// In a child process that simulates a crash: the fsync call that brings it to 0 ends the
// process (exit code 77) instead of syncing. 0: never.
std::atomic<int> g_crash_at_sync{0};

}  // namespace

extern "C" __attribute__((visibility("default"))) int fsync(int fd) {
  if (g_crash_at_sync > 0 && --g_crash_at_sync == 0) ::_exit(77);
  if (g_record_syncs && g_on_sync != nullptr) {
    char buf[4096];
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), buf, sizeof(buf) - 1);
    if (n > 0) g_on_sync(std::string(buf, static_cast<size_t>(n)));
  }
  return static_cast<int>(::syscall(SYS_fsync, fd));
}

namespace {

namespace fs = std::filesystem;

std::string TakeError(char** err) {
  if (*err == nullptr) return "";
  std::string message(*err);
  std::free(*err);
  *err = nullptr;
  return message;
}

class RocksdbCapiBackupSafetyTest : public testing::Test {
 protected:
  void SetUp() override {
    base_ = (fs::temp_directory_path() /
             ("rocksdb_capi_backup_safety_" + std::to_string(::getpid()) + "_" +
              testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    fs::remove_all(base_);
    fs::create_directories(base_);
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    ropts_ = rocksdb_readoptions_create();
    wopts_ = rocksdb_writeoptions_create();
  }

  void TearDown() override {
    rocksdb_readoptions_destroy(ropts_);
    rocksdb_writeoptions_destroy(wopts_);
    rocksdb_options_destroy(options_);
    fs::remove_all(base_);
  }

  rocksdb_t* Open(const std::string& dir) {
    char* err = nullptr;
    rocksdb_t* db = rocksdb_open(options_, dir.c_str(), &err);
    EXPECT_EQ(TakeError(&err), "") << dir;
    return db;
  }

  void Put(rocksdb_t* db, const std::string& k, const std::string& v) {
    char* err = nullptr;
    rocksdb_put(db, wopts_, k.data(), k.size(), v.data(), v.size(), &err);
    ASSERT_EQ(TakeError(&err), "");
  }

  std::optional<std::string> Get(rocksdb_t* db, const std::string& k) {
    char* err = nullptr;
    size_t len = 0;
    char* v = rocksdb_get(db, ropts_, k.data(), k.size(), &len, &err);
    EXPECT_EQ(TakeError(&err), "");
    if (v == nullptr) return std::nullopt;
    std::string out(v, len);
    rocksdb_free(v);
    return out;
  }

  // A backup directory `backup` holding one backup of a DB with k=backup.
  rocksdb_backup_engine_t* MakeBackup(const std::string& backup) {
    rocksdb_t* db = Open(base_ + "/src");
    Put(db, "k", "backup");
    char* err = nullptr;
    rocksdb_backup_engine_t* be = rocksdb_backup_engine_open(options_, backup.c_str(), &err);
    EXPECT_EQ(TakeError(&err), "");
    rocksdb_backup_engine_create_new_backup_flush(be, db, 1, &err);
    EXPECT_EQ(TakeError(&err), "");
    rocksdb_close(db);
    return be;
  }

  std::string base_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_readoptions_t* ropts_ = nullptr;
  rocksdb_writeoptions_t* wopts_ = nullptr;
};

// A restore that fails part way (here a directory in db_dir has the name of the backup's
// MANIFEST, so it cannot be put in place; in life ENOSPC or EIO) leaves the old DB as it was:
// it reopens with its data, and no leftover of the restore stays in the directory. A restore
// run again once the obstacle is gone replaces it.
TEST_F(RocksdbCapiBackupSafetyTest, FailedRestoreKeepsTheOldDb) {
  rocksdb_backup_engine_t* be = MakeBackup(base_ + "/backup");
  const std::string old_dir = base_ + "/old";
  rocksdb_t* old = Open(old_dir);
  Put(old, "k", "old");
  Put(old, "precious", "data");
  rocksdb_close(old);
  std::vector<std::string> blockers;
  for (const fs::directory_entry& e : fs::directory_iterator(base_ + "/backup/private/1")) {
    std::string name = e.path().filename().string();
    if (name.rfind("MANIFEST", 0) == 0) blockers.push_back(old_dir + "/" + name);
  }
  ASSERT_FALSE(blockers.empty());
  for (const std::string& b : blockers) fs::create_directories(b + "/inside");
  std::vector<std::string> before;
  for (const fs::directory_entry& e : fs::directory_iterator(old_dir)) {
    before.push_back(e.path().filename().string());
  }

  char* err = nullptr;
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  rocksdb_backup_engine_restore_db_from_latest_backup(be, old_dir.c_str(), old_dir.c_str(),
                                                      restore, &err);
  EXPECT_NE(TakeError(&err), "");
  std::vector<std::string> after;
  for (const fs::directory_entry& e : fs::directory_iterator(old_dir)) {
    after.push_back(e.path().filename().string());
  }
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, before);  // nothing of the restore left, nothing of the old DB gone

  for (const std::string& b : blockers) fs::remove_all(b);
  old = Open(old_dir);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(Get(old, "precious"), "data");
  EXPECT_EQ(Get(old, "k"), "old");
  rocksdb_close(old);

  rocksdb_backup_engine_restore_db_from_latest_backup(be, old_dir.c_str(), old_dir.c_str(),
                                                      restore, &err);
  ASSERT_EQ(TakeError(&err), "");
  old = Open(old_dir);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(Get(old, "precious"), std::nullopt);
  EXPECT_EQ(Get(old, "k"), "backup");
  rocksdb_close(old);
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_close(be);
}

// A restore killed at any fsync (a child process that exits there: every step between two
// syncs is a place where it can stop) leaves a directory that opens as the old DB or as the
// restored one, or that refuses to open (CURRENT is the restore's marker) - never a half or
// an empty DB; and a restore run again then restores the backup.
TEST_F(RocksdbCapiBackupSafetyTest, RestoreKilledAtEveryStep) {
  rocksdb_backup_engine_t* be = MakeBackup(base_ + "/backup");
  const std::string dir = base_ + "/old";
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  int outcomes[3] = {0, 0, 0};  // old DB, restored DB, refused
  bool finished = false;
  for (int n = 1; n < 200 && !finished; ++n) {
    fs::remove_all(dir);
    rocksdb_t* db = Open(dir);
    ASSERT_NE(db, nullptr);
    Put(db, "k", "old");
    Put(db, "precious", "data");
    rocksdb_close(db);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      g_crash_at_sync = n;
      char* err = nullptr;
      rocksdb_backup_engine_restore_db_from_latest_backup(be, dir.c_str(), dir.c_str(), restore,
                                                          &err);
      ::_exit(err == nullptr ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 1) << "the restore failed at sync " << n;
    finished = WEXITSTATUS(status) == 0;
    char* err = nullptr;
    db = rocksdb_open(options_, dir.c_str(), &err);
    std::string message = TakeError(&err);
    if (db != nullptr) {
      std::optional<std::string> k = Get(db, "k");
      std::optional<std::string> precious = Get(db, "precious");
      rocksdb_close(db);
      if (k == "old") {
        EXPECT_EQ(precious, "data") << "crash at sync " << n;
        EXPECT_FALSE(finished);
        ++outcomes[0];
      } else {
        EXPECT_EQ(k, "backup") << "crash at sync " << n;
        EXPECT_EQ(precious, std::nullopt) << "crash at sync " << n;
        ++outcomes[1];
      }
    } else {
      EXPECT_NE(message.find("restore from backup in progress"), std::string::npos)
          << "crash at sync " << n << ": " << message;
      EXPECT_FALSE(finished);
      ++outcomes[2];
    }
    rocksdb_backup_engine_restore_db_from_latest_backup(be, dir.c_str(), dir.c_str(), restore,
                                                        &err);
    ASSERT_EQ(TakeError(&err), "") << "restore again after a crash at sync " << n;
    db = Open(dir);
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(Get(db, "k"), "backup");
    EXPECT_EQ(Get(db, "precious"), std::nullopt);
    rocksdb_close(db);
  }
  EXPECT_TRUE(finished);
  EXPECT_GT(outcomes[0], 0);
  EXPECT_GT(outcomes[1], 0);
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_close(be);
}

// A restore takes the target DB's LOCK: into the directory of an open DB it fails with
// RocksDB's LOCK error and deletes nothing.
TEST_F(RocksdbCapiBackupSafetyTest, RestoreIntoAnOpenDbFailsOnItsLock) {
  rocksdb_backup_engine_t* be = MakeBackup(base_ + "/backup");
  const std::string dir = base_ + "/live";
  rocksdb_t* db = Open(dir);
  Put(db, "live", "1");
  rocksdb_flush(db, nullptr, nullptr);
  char* err = nullptr;
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  rocksdb_backup_engine_restore_db_from_latest_backup(be, dir.c_str(), dir.c_str(), restore,
                                                      &err);
  std::string message = TakeError(&err);
  EXPECT_EQ(message.rfind("IO error: ", 0), 0u) << message;
  EXPECT_NE(message.find(dir + "/LOCK"), std::string::npos) << message;
  EXPECT_EQ(Get(db, "live"), "1");
  rocksdb_close(db);
  db = Open(dir);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Get(db, "live"), "1");
  EXPECT_EQ(Get(db, "k"), std::nullopt);
  rocksdb_close(db);
  // Once the DB is closed the restore goes through.
  rocksdb_backup_engine_restore_db_from_latest_backup(be, dir.c_str(), dir.c_str(), restore,
                                                      &err);
  ASSERT_EQ(TakeError(&err), "");
  db = Open(dir);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(Get(db, "k"), "backup");
  rocksdb_close(db);
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_close(be);
}

// A backup directory has one engine at a time: a second open fails with an IO error naming the
// LOCK file (two engines would each number their backups from what they read at open and
// replace each other's); once the first is closed, the directory opens again.
TEST_F(RocksdbCapiBackupSafetyTest, SecondEngineOnOneDirectoryFails) {
  const std::string backup = base_ + "/backup";
  char* err = nullptr;
  rocksdb_backup_engine_t* a = rocksdb_backup_engine_open(options_, backup.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  rocksdb_backup_engine_t* b = rocksdb_backup_engine_open(options_, backup.c_str(), &err);
  std::string message = TakeError(&err);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(message.rfind("IO error: ", 0), 0u) << message;
  EXPECT_NE(message.find("LOCK"), std::string::npos) << message;
  if (b != nullptr) rocksdb_backup_engine_close(b);
  rocksdb_backup_engine_close(a);
  a = rocksdb_backup_engine_open(options_, backup.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  rocksdb_backup_engine_close(a);
}

// A backup whose meta file exists is never overwritten, even one that appeared behind the
// engine's back: creating a backup with its id fails and leaves it whole.
TEST_F(RocksdbCapiBackupSafetyTest, CreateNeverReplacesAnExistingBackup) {
  const std::string backup = base_ + "/backup";
  rocksdb_backup_engine_t* be = MakeBackup(backup);
  fs::copy(backup + "/meta/1", backup + "/meta/2");
  fs::copy(backup + "/private/1", backup + "/private/2");
  fs::create_directories(backup + "/private/2/marker");  // what must survive
  rocksdb_t* db = Open(base_ + "/src");
  char* err = nullptr;
  rocksdb_backup_engine_create_new_backup(be, db, &err);
  EXPECT_NE(TakeError(&err), "");
  EXPECT_TRUE(fs::exists(backup + "/private/2/marker"));
  rocksdb_close(db);
  rocksdb_backup_engine_close(be);
}

// A purge makes the deletion of the meta file durable (fsync of meta/) before it deletes the
// backup's files: a crash in between must not leave a meta file naming missing files.
std::string g_private_dir;
std::atomic<bool> g_meta_synced_with_private{false};
std::atomic<int> g_syncs{0};  // all syncs seen: shows that the interposition works

void OnSync(const std::string& path) {
  ++g_syncs;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, "/meta") == 0 &&
      fs::exists(g_private_dir)) {
    g_meta_synced_with_private = true;
  }
}

TEST_F(RocksdbCapiBackupSafetyTest, PurgeSyncsTheMetaDirectoryBeforeDeletingFiles) {
  const std::string backup = fs::canonical(base_).string() + "/backup";
  g_on_sync = OnSync;
  rocksdb_backup_engine_t* be = MakeBackup(backup);
  rocksdb_t* db = Open(base_ + "/src");
  char* err = nullptr;
  g_record_syncs = true;
  rocksdb_backup_engine_create_new_backup(be, db, &err);
  g_record_syncs = false;
  ASSERT_EQ(TakeError(&err), "");
  ASSERT_GT(g_syncs, 0) << "fsync is not interposed: the test cannot see the syncs";
  rocksdb_close(db);
  g_private_dir = backup + "/private/1";
  g_meta_synced_with_private = false;
  g_record_syncs = true;
  rocksdb_backup_engine_purge_old_backups(be, 1, &err);
  g_record_syncs = false;
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_TRUE(g_meta_synced_with_private);
  EXPECT_FALSE(fs::exists(g_private_dir));
  rocksdb_backup_engine_close(be);
}

// rocksdb_backup_engine_create_new_backup with a NULL DB fails with InvalidArgument.
TEST_F(RocksdbCapiBackupSafetyTest, CreateBackupOfNullDbFails) {
  char* err = nullptr;
  rocksdb_backup_engine_t* be =
      rocksdb_backup_engine_open(options_, (base_ + "/backup").c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  rocksdb_backup_engine_create_new_backup(be, nullptr, &err);
  EXPECT_EQ(TakeError(&err).rfind("Invalid argument: ", 0), 0u);
  rocksdb_backup_engine_create_new_backup_flush(be, nullptr, 1, &err);
  EXPECT_EQ(TakeError(&err).rfind("Invalid argument: ", 0), 0u);
  rocksdb_backup_engine_close(be);
}

// get_from_batch_and_db reads the DB as rocksdb_get does: NULL read options are RocksDB's
// defaults, and a setting ShaleDB refuses (a read tier) fails visibly; and
// rocksdb_write_writebatch_wi writes as rocksdb_write does (NULL write options: the defaults).
TEST_F(RocksdbCapiBackupSafetyTest, WbwiGetFromBatchAndDbReadOptions) {
  rocksdb_t* db = Open(base_ + "/db");
  Put(db, "db", "1");
  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(0, 1);
  rocksdb_writebatch_wi_merge(wbwi, "m", 1, "x", 1);
  char* err = nullptr;
  size_t len = 0;
  char* v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db, nullptr, "db", 2, &len, &err);
  EXPECT_EQ(TakeError(&err), "");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(v, len), "1");
  rocksdb_free(v);
  v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db, nullptr, "none", 4, &len, &err);
  EXPECT_EQ(TakeError(&err), "");
  EXPECT_EQ(v, nullptr);

  rocksdb_readoptions_t* tiered = rocksdb_readoptions_create();
  rocksdb_readoptions_set_read_tier(tiered, 1);  // kBlockCacheTier
  for (const char* key : {"db", "m"}) {  // not in the batch; in it with a base below
    v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db, tiered, key, std::strlen(key),
                                                    &len, &err);
    EXPECT_EQ(v, nullptr) << key;
    EXPECT_NE(TakeError(&err).find("Not supported"), std::string::npos) << key;
    rocksdb_free(v);
  }
  rocksdb_readoptions_destroy(tiered);

  // rocksdb_write_writebatch_wi with NULL write options writes as rocksdb_write does.
  rocksdb_writebatch_wi_clear(wbwi);
  rocksdb_writebatch_wi_put(wbwi, "w", 1, "2", 1);
  rocksdb_write_writebatch_wi(db, nullptr, wbwi, &err);
  EXPECT_EQ(TakeError(&err), "");
  EXPECT_EQ(Get(db, "w"), "2");
  rocksdb_writebatch_wi_destroy(wbwi);
  rocksdb_close(db);
}

}  // namespace
