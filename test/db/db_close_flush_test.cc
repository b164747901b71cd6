// What DB::Close does with the writes still in memtables (issue 20: "open instantly, close
// promptly"; DBOptions::avoid_flush_during_shutdown):
// - by default Close flushes the memtables of logged writes (up to DBImpl::kCloseFlushBytes)
//   and deletes the WALs that leaves obsolete, so the next open has no WAL to replay: no WAL
//   bytes left in the directory, and the reopened DB's memtables are empty; the writes are all
//   there, in every column family, also when writers race the Close;
// - with avoid_flush_during_shutdown (from the open, or set by SetDBOptions) the WAL stays and
//   the next open replays it, as before the change; so does a backlog over the cap;
// - a flush that fails at Close leaves every write in the WAL, and Close returns the error;
// - a read-only DB and a secondary never write.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class DBCloseFlushTest : public ::testing::Test {
 protected:
  DBCloseFlushTest() {
    options_.create_if_missing = true;
    options_.file_system = NewMemFileSystem();
    options_.write_buffer_size = 1 << 20;
    options_.max_write_buffer_number = 4;
    options_.disable_auto_compactions = true;
  }

  uint64_t ActiveEntries(DB* db, ColumnFamilyHandle* family = nullptr) {
    uint64_t n = 0;
    if (family == nullptr) family = db->DefaultColumnFamily();
    EXPECT_TRUE(db->GetIntProperty(family, "rocksdb.num-entries-active-mem-table", &n));
    return n;
  }
  // Bytes of WAL files in `dir`: what the next open would replay.
  uint64_t WalBytes(const std::string& dir = "/db") {
    std::vector<std::string> children;
    EXPECT_OK(options_.file_system->GetChildren(dir, &children));
    uint64_t total = 0;
    for (const std::string& name : children) {
      if (name.size() < 4 || name.substr(name.size() - 4) != ".log") continue;
      uint64_t size = 0;
      EXPECT_OK(options_.file_system->GetFileSize(dir + "/" + name, &size));
      total += size;
    }
    return total;
  }

  // WAL records the last open of /db replayed, from its info LOG ("replayed WAL #N: M
  // records"; the open of a DB that is not read-only then flushes what it replayed, so the
  // memtables say nothing about it).
  uint64_t ReplayedRecords() {
    std::string log;
    EXPECT_OK(ReadFileToString(options_.file_system.get(), "/db/LOG", &log));
    static const std::regex kReplayed("replayed WAL #[0-9]+: ([0-9]+) records");
    uint64_t total = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), kReplayed);
         it != std::sregex_iterator(); ++it) {
      total += std::stoull((*it)[1].str());
    }
    return total;
  }

  // Table files in /db.
  int TableCount() {
    std::vector<std::string> children;
    EXPECT_OK(options_.file_system->GetChildren("/db", &children));
    int n = 0;
    for (const std::string& name : children) n += name.find(".sst") != std::string::npos;
    return n;
  }

  // Writes `n` keys of 200 bytes into `db`, recording them in model_.
  void Fill(DB* db, int n, const std::string& prefix = "key") {
    for (int i = 0; i < n; i++) {
      const std::string key = prefix + std::to_string(i);
      const std::string value(200, static_cast<char>('a' + i % 26));
      ASSERT_OK(db->Put(WriteOptions(), key, value));
      model_[key] = value;
    }
  }

  // Every key of model_ reads back from `db`.
  void ExpectModel(DB* db) {
    for (const auto& [key, value] : model_) {
      std::string got;
      Status s = db->Get(ReadOptions(), key, &got);
      ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
      ASSERT_EQ(got, value) << key;
    }
  }

  Options options_;
  std::map<std::string, std::string> model_;
};

TEST_F(DBCloseFlushTest, TheNextOpenReplaysNoWal) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    Fill(db.get(), 3000);  // about 600 KB: a memtable holds it all
    ASSERT_GT(ActiveEntries(db.get()), 0u);
    ASSERT_GT(WalBytes(), 0u);
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ(WalBytes(), 0u) << "Close left writes in the WAL for the next open to replay";
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), 0u) << "the open replayed WAL writes";
  ExpectModel(db.get());
}

// Several memtables' worth of writes (some retired and flushed in the background, some
// perhaps retired and not flushed yet at Close): all flushed, nothing left to replay.
TEST_F(DBCloseFlushTest, SeveralMemtablesAreAllFlushed) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    Fill(db.get(), 12000);  // about 2.4 MB: several memtables of 1 MiB
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ(WalBytes(), 0u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), 0u);
  ExpectModel(db.get());
}

TEST_F(DBCloseFlushTest, EveryFamilyIsFlushed) {
  for (bool atomic_flush : {false, true}) {
    SCOPED_TRACE(atomic_flush ? "atomic_flush" : "no atomic_flush");
    ASSERT_OK(DestroyDB("/db", options_));
    options_.atomic_flush = atomic_flush;
    {
      std::unique_ptr<DB> db;
      ASSERT_OK(DB::Open(options_, "/db", &db));
      ColumnFamilyHandle* logs = nullptr;
      ASSERT_OK(db->CreateColumnFamily(ColumnFamilyOptions(options_), "logs", &logs));
      ASSERT_OK(db->Put(WriteOptions(), "d", "1"));
      ASSERT_OK(db->Put(WriteOptions(), logs, "l", "2"));
      ASSERT_OK(db->DestroyColumnFamilyHandle(logs));
      ASSERT_OK(db->Close());
    }
    EXPECT_EQ(WalBytes(), 0u) << "Close left writes in the WAL for the next open to replay";
    std::vector<ColumnFamilyDescriptor> families = {
        {kDefaultColumnFamilyName, ColumnFamilyOptions(options_)},
        {"logs", ColumnFamilyOptions(options_)}};
    std::vector<ColumnFamilyHandle*> handles;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(DBOptions(options_), "/db", families, &handles, &db));
    EXPECT_EQ(ReplayedRecords(), 0u);
    std::string got;
    ASSERT_OK(db->Get(ReadOptions(), handles[0], "d", &got));
    EXPECT_EQ(got, "1");
    ASSERT_OK(db->Get(ReadOptions(), handles[1], "l", &got));
    EXPECT_EQ(got, "2");
    for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
    ASSERT_OK(db->Close());
  }
}

// avoid_flush_during_shutdown = true: Close leaves the logged writes in the WAL (no table is
// written) and the next open replays them.
TEST_F(DBCloseFlushTest, WithTheOptionTheWalStaysAndIsReplayed) {
  options_.avoid_flush_during_shutdown = true;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    Fill(db.get(), 3000);
    ASSERT_OK(db->Close());
  }
  EXPECT_GT(WalBytes(), 0u);
  EXPECT_EQ(TableCount(), 0);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), 3000u) << "the open did not replay the WAL";
  ExpectModel(db.get());
}

// Writes made without the WAL are flushed whatever the option says: never lost.
TEST_F(DBCloseFlushTest, UnloggedWritesAreFlushedEvenWithTheOption) {
  options_.avoid_flush_during_shutdown = true;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    WriteOptions no_wal;
    no_wal.disableWAL = true;
    ASSERT_OK(db->Put(WriteOptions(), "logged", "1"));
    ASSERT_OK(db->Put(no_wal, "unlogged", "2"));
    ASSERT_OK(db->Close());
  }
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  std::string got;
  ASSERT_OK(db->Get(ReadOptions(), "logged", &got));
  EXPECT_EQ(got, "1");
  ASSERT_OK(db->Get(ReadOptions(), "unlogged", &got));
  EXPECT_EQ(got, "2");
}

// The option is dynamic: SetDBOptions on the open DB decides what its Close does, both ways.
TEST_F(DBCloseFlushTest, SetDBOptionsChangesWhatCloseDoes) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    Fill(db.get(), 100);
    ASSERT_OK(db->SetDBOptions({{"avoid_flush_during_shutdown", "true"}}));
    EXPECT_TRUE(db->GetDBOptions().avoid_flush_during_shutdown);
    ASSERT_OK(db->Close());
  }
  EXPECT_GT(WalBytes(), 0u);
  options_.avoid_flush_during_shutdown = true;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    EXPECT_EQ(ReplayedRecords(), 100u);
    Fill(db.get(), 50, "more");
    ASSERT_OK(db->SetDBOptions({{"avoid_flush_during_shutdown", "false"}}));
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ(WalBytes(), 0u);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), 0u);
  ExpectModel(db.get());
}

// Writers racing Close: every write acknowledged before Close is readable after the reopen,
// and still nothing is left to replay (Close flushes once the calls in flight are done).
TEST_F(DBCloseFlushTest, WritersRacingClose) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  std::atomic<int> acknowledged{0};
  std::mutex mu;
  std::map<std::string, std::string> done;  // guarded by mu
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; t++) {
    writers.emplace_back([&, t] {
      for (int i = 0;; i++) {
        const std::string key = "t" + std::to_string(t) + "-" + std::to_string(i);
        Status s = db->Put(WriteOptions(), key, key);
        if (!s.ok()) {
          EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
          return;
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          done[key] = key;
        }
        acknowledged.fetch_add(1);
      }
    });
  }
  while (acknowledged.load() < 2000) std::this_thread::yield();
  ASSERT_OK(db->Close());
  for (std::thread& t : writers) t.join();
  db.reset();
  EXPECT_EQ(WalBytes(), 0u);
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), 0u);
  model_ = done;
  ExpectModel(db.get());
}

// A flush that fails at Close: Close returns the error, and every write is still in the WAL,
// readable after the next open. The failure hits the table file's creation (the first create
// of Close is the new WAL of the memtable switch, the second the table), or everything once
// the file system stops accepting writes.
TEST_F(DBCloseFlushTest, AFailedFlushAtCloseKeepsEveryWrite) {
  for (bool whole_fs : {false, true}) {
    SCOPED_TRACE(whole_fs ? "the file system stops" : "the table's creation fails");
    auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    options_.file_system = fault;
    model_.clear();
    {
      std::unique_ptr<DB> db;
      ASSERT_OK(DB::Open(options_, "/db", &db));
      Fill(db.get(), 3000);
      if (whole_fs) {
        fault->SetFilesystemActive(false);
      } else {
        fault->InjectError(FaultInjectionFileSystem::OpKind::kCreate, 2,
                           FaultIOError("table creation"));
      }
      Status s = db->Close();
      EXPECT_FALSE(s.ok()) << "Close hid the failed flush";
      if (!whole_fs) {
        EXPECT_NE(s.ToString().find(".sst"), std::string::npos) << s.ToString();
      }
      fault->SetFilesystemActive(true);
      fault->ClearInjectedErrors();
    }
    EXPECT_GT(WalBytes(), 0u) << "the WAL went although the flush failed";
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    ExpectModel(db.get());
    ASSERT_OK(db->Close());
    ASSERT_OK(DestroyDB("/db", options_));
  }
}

// Past kCloseFlushBytes (256 MiB) of memtables, Close leaves the logged writes in the WAL (it
// stays prompt), says so in the info LOG, and the next open replays them.
TEST_F(DBCloseFlushTest, ABacklogOverTheCapStaysInTheWal) {
  options_.write_buffer_size = size_t{512} << 20;
  const std::string value(size_t{1} << 20, 'v');
  const int kValues = 270;  // 270 MiB of values: over the cap
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, "/db", &db));
    for (int i = 0; i < kValues; i++) {
      ASSERT_OK(db->Put(WriteOptions(), "big" + std::to_string(i), value));
    }
    ASSERT_EQ(ActiveEntries(db.get()), static_cast<uint64_t>(kValues));
    ASSERT_OK(db->Close());
  }
  EXPECT_EQ(TableCount(), 0);
  EXPECT_GT(WalBytes(), uint64_t{256} << 20);
  std::string log;
  ASSERT_OK(ReadFileToString(options_.file_system.get(), "/db/LOG", &log));
  EXPECT_NE(log.find("stay in the WAL: more than Close flushes"), std::string::npos);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  EXPECT_EQ(ReplayedRecords(), static_cast<uint64_t>(kValues));
  std::string got;
  ASSERT_OK(db->Get(ReadOptions(), "big7", &got));
  EXPECT_EQ(got, value);
}

// A read-only DB and a secondary, opened while the primary's writes are in its WAL, replay them
// into memtables; their Close writes nothing.
TEST_F(DBCloseFlushTest, ReadOnlyAndSecondaryCloseWriteNothing) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", "v"));
  ASSERT_OK(db->Put(WriteOptions(), "k2", "v2"));
  const uint64_t wal_bytes = WalBytes();
  {
    std::unique_ptr<DB> reader;
    ASSERT_OK(DB::OpenForReadOnly(options_, "/db", &reader));
    EXPECT_EQ(ActiveEntries(reader.get()), 2u);
    ASSERT_OK(reader->Close());
  }
  {
    std::unique_ptr<DB> secondary;
    ASSERT_OK(DB::OpenAsSecondary(options_, "/db", "/secondary", &secondary));
    std::string got;
    ASSERT_OK(secondary->Get(ReadOptions(), "k2", &got));
    EXPECT_EQ(got, "v2");
    ASSERT_OK(secondary->Close());
  }
  EXPECT_EQ(TableCount(), 0) << "a read-only close wrote a table";
  EXPECT_EQ(WalBytes(), wal_bytes);
  EXPECT_EQ(WalBytes("/secondary"), 0u);
  EXPECT_EQ(ActiveEntries(db.get()), 2u);
}

}  // namespace
}  // namespace shale
