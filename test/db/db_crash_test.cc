// Crash consistency: a DB over the fault-injecting file system (over the in-memory one) takes
// random batches (puts, deletes, range deletes; some synced), random flushes and memtable
// switches, then "loses power" at a random point: the file system is deactivated, the DB object
// is destroyed without Close (as a dying process would leave it), and every unsynced byte and
// directory entry is dropped. Reopened, the DB must hold exactly the model state after some
// prefix of the acknowledged batches (batches are atomic and there are no holes), and that
// prefix must cover every batch acknowledged with sync=true and every batch written before a
// Flush(wait) that returned OK.
//
// Also here: WAL damage and Options::wal_recovery_mode (a torn tail, a checksum failure in the
// middle of a WAL followed by a later WAL).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "db/write_batch_internal.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"
#include "wal/log_writer.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;
using OpKind = FaultInjectionFileSystem::OpKind;

constexpr char kDBName[] = "/crashdb";

// prefix followed by n in decimal ("a" + 3 -> "a3").
std::string Cat(std::string_view prefix, uint64_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

// One update of a batch, as the model applies it.
struct Op {
  enum class Type { kPut, kDelete, kDeleteRange };
  Type type;
  std::string key;    // the begin key of a range deletion
  std::string value;  // the end key of a range deletion (exclusive)
};
using BatchOps = std::vector<Op>;

void ApplyToModel(const BatchOps& ops, Model* model) {
  for (const Op& op : ops) {
    switch (op.type) {
      case Op::Type::kPut:
        (*model)[op.key] = op.value;
        break;
      case Op::Type::kDelete:
        model->erase(op.key);
        break;
      case Op::Type::kDeleteRange:
        model->erase(model->lower_bound(op.key), model->lower_bound(op.value));
        break;
    }
  }
}

// The first few differences between two states, for failure messages.
std::string DescribeDiff(const Model& expected, const Model& actual) {
  std::string out;
  int shown = 0;
  auto note = [&](const std::string& key, const std::string& what) {
    if (shown++ < 5) out += "  " + key + ": " + what + "\n";
  };
  for (const auto& [key, value] : expected) {
    auto it = actual.find(key);
    if (it == actual.end()) {
      note(key, "missing");
    } else if (it->second != value) {
      note(key, "value " + it->second.substr(0, 24) + " instead of " + value.substr(0, 24));
    }
  }
  for (const auto& [key, value] : actual) {
    if (expected.count(key) == 0) note(key, "present but should not be");
  }
  return out + Cat("  (", shown) + " differences)\n";
}

// Reads the whole DB with a forward iterator, checks that a backward scan and point lookups
// agree with it, and returns it.
void ReadAll(DB* db, int key_space, Model* state) {
  state->clear();
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  std::string prev;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key(it->key());
    ASSERT_TRUE(state->empty() || prev < key) << "keys out of order: " << prev << ", " << key;
    (*state)[key] = std::string(it->value());
    prev = key;
  }
  ASSERT_OK(it->status());
  auto expected = state->rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++expected) {
    ASSERT_NE(expected, state->rend()) << "backward scan longer than forward scan";
    ASSERT_EQ(it->key(), expected->first);
    ASSERT_EQ(it->value(), expected->second);
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(expected, state->rend()) << "backward scan shorter than forward scan";
  for (int i = 0; i < key_space; i++) {
    char key[16];
    snprintf(key, sizeof(key), "k%04d", i);
    std::string value;
    Status s = db->Get(ReadOptions(), key, &value);
    auto found = state->find(key);
    if (found == state->end()) {
      ASSERT_TRUE(s.IsNotFound()) << key << ": Get says " << s.ToString() << " / " << value
                                  << " but the iterator did not see it";
    } else {
      ASSERT_OK(s);
      ASSERT_EQ(value, found->second) << key;
    }
  }
}

// Runs rounds of random writes, each ended by a simulated power loss and a reopen.
class CrashHarness {
 public:
  struct Config {
    bool inject_errors = false;  // random I/O errors while writing
    bool close_sometimes = true;  // end some rounds with a clean Close instead of a crash
  };

  CrashHarness(uint64_t seed, Config config)
      : seed_(seed),
        config_(config),
        rnd_(seed),
        fault_(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())) {
    options_.file_system = fault_;
    options_.create_if_missing = true;
    options_.write_buffer_size = (64 << 10) + rnd_.Uniform(192 << 10);
    options_.max_write_buffer_number = 2 + static_cast<int>(rnd_.Uniform(3));
    if (rnd_.OneIn(2)) options_.table_options.block_size = 512;
    // The fault layer cuts files back to a synced size, always a record boundary: no mode may
    // find damage, so every mode must recover the same way.
    const WALRecoveryMode modes[] = {
        WALRecoveryMode::kPointInTimeRecovery, WALRecoveryMode::kTolerateCorruptedTailRecords,
        WALRecoveryMode::kAbsoluteConsistency, WALRecoveryMode::kSkipAnyCorruptedRecords};
    options_.wal_recovery_mode = modes[rnd_.Uniform(4)];
    // Some DBs roll their MANIFEST over at almost every edit.
    if (rnd_.OneIn(3)) options_.max_manifest_file_size = 1 + rnd_.Uniform(4096);
    key_space_ = 50 + static_cast<int>(rnd_.Uniform(400));
  }

  void Run(int rounds) {
    ASSERT_OK(DB::Open(options_, kDBName, &db_));
    for (round_ = 0; round_ < rounds; round_++) {
      ASSERT_NO_FATAL_FAILURE(RunRound());
    }
    ASSERT_OK(db_->Close());
  }

 private:
  std::string Where() const {
    return Cat(Cat("seed ", seed_) + " round ", round_) + ": ";
  }
  std::string RandomKey() {
    char key[16];
    snprintf(key, sizeof(key), "k%04d", static_cast<int>(rnd_.Uniform(key_space_)));
    return key;
  }
  std::string RandomValue(size_t batch_id) {
    std::string v = Cat(Cat("r", round_) + "b", batch_id) + ":";
    // Mostly small, some large: the memtables fill up and switch every few dozen batches.
    // Now and then one larger than a WAL block (32 KiB), even than the memtable.
    size_t len = rnd_.Uniform(300);
    if (rnd_.OneIn(8)) len = 1000 + rnd_.Uniform(6000);
    if (rnd_.OneIn(300)) len = 30000 + rnd_.Uniform(300000);
    v.append(len, static_cast<char>('a' + rnd_.Uniform(26)));
    return v;
  }
  BatchOps RandomBatch(WriteBatch* batch) {
    BatchOps ops;
    const int n = 1 + static_cast<int>(rnd_.Skewed(3));
    for (int i = 0; i < n; i++) {
      const uint64_t r = rnd_.Uniform(100);
      if (r < 70) {
        ops.push_back({Op::Type::kPut, RandomKey(), RandomValue(batch_id_)});
        EXPECT_OK(batch->Put(ops.back().key, ops.back().value));
      } else if (r < 90) {
        ops.push_back({Op::Type::kDelete, RandomKey(), ""});
        EXPECT_OK(batch->Delete(ops.back().key));
      } else {
        std::string begin = RandomKey();
        char end[16];
        snprintf(end, sizeof(end), "k%04d", atoi(begin.c_str() + 1) + 1 +
                                                static_cast<int>(rnd_.Uniform(20)));
        ops.push_back({Op::Type::kDeleteRange, begin, end});
        EXPECT_OK(batch->DeleteRange(begin, end));
      }
    }
    batch_id_++;
    return ops;
  }

  void RunRound() {
    // Rare enough that most rounds get some way before the first failure.
    if (config_.inject_errors) SetRandomErrors(100, 300);
    const int batches = 50 + static_cast<int>(rnd_.Uniform(250));
    bool failed = false;  // a write or flush failed: the round ends with a crash
    for (int i = 0; i < batches && !failed; i++) {
      if (rnd_.OneIn(40)) {
        FlushOptions fo;
        fo.wait = rnd_.OneIn(2);
        Status s = db_->Flush(fo);
        if (!config_.inject_errors) {
          ASSERT_TRUE(s.ok()) << Where() << s.ToString();
        }
        if (!s.ok()) {
          failed = true;
        } else if (fo.wait) {
          durable_ = acked_.size();
        }
        continue;
      }
      WriteBatch batch;
      BatchOps ops = RandomBatch(&batch);
      WriteOptions wo;
      wo.sync = rnd_.OneIn(10);
      Status s = db_->Write(wo, &batch);
      if (!config_.inject_errors) {
        ASSERT_TRUE(s.ok()) << Where() << s.ToString();
      }
      if (!s.ok()) {
        // Neither acknowledged nor refused for sure: it may or may not survive.
        failed_batch_ = std::move(ops);
        failed = true;
        break;
      }
      acked_.push_back(std::move(ops));
      if (wo.sync) durable_ = acked_.size();
    }
    if (!failed && config_.close_sometimes && rnd_.OneIn(5)) {
      ASSERT_NO_FATAL_FAILURE(CloseAndReopen());
    } else {
      ASSERT_NO_FATAL_FAILURE(CrashAndReopen());
    }
    ASSERT_NO_FATAL_FAILURE(CheckRecoveredState());
  }

  // Fails calls that change files, each kind with probability 1/n, n in [min_one_in,
  // min_one_in + spread).
  void SetRandomErrors(uint32_t min_one_in, uint32_t spread) {
    const OpKind kinds[] = {OpKind::kWrite,   OpKind::kSync,   OpKind::kCreate,
                            OpKind::kSyncDir, OpKind::kRename, OpKind::kDelete};
    for (OpKind kind : kinds) {
      fault_->SetRandomErrors(kind, min_one_in + static_cast<uint32_t>(rnd_.Uniform(spread)),
                              rnd_.Next64(), FaultIOError("random injected error"));
    }
  }

  void CloseAndReopen() {
    Status s = db_->Close();
    ASSERT_TRUE(s.ok()) << Where() << s.ToString();
    db_.reset();
    durable_ = acked_.size();  // a clean close loses nothing
    s = DB::Open(options_, kDBName, &db_);
    ASSERT_TRUE(s.ok()) << Where() << "reopen after Close: " << s.ToString();
  }

  void CrashAndReopen() {
    fault_->SetFilesystemActive(false);
    db_.reset();  // the destructor cannot write anything any more
    fault_->ClearInjectedErrors();
    Status s = fault_->DropUnsyncedData();
    ASSERT_TRUE(s.ok()) << Where() << s.ToString();
    fault_->SetFilesystemActive(true);
    if (config_.inject_errors && rnd_.OneIn(2)) {
      // Recovery itself fails part way, and the machine crashes again.
      SetRandomErrors(10, 60);
      s = DB::Open(options_, kDBName, &db_);
      fault_->SetFilesystemActive(false);
      db_.reset();
      fault_->ClearInjectedErrors();
      s = fault_->DropUnsyncedData();
      ASSERT_TRUE(s.ok()) << Where() << s.ToString();
      fault_->SetFilesystemActive(true);
    }
    s = DB::Open(options_, kDBName, &db_);
    ASSERT_TRUE(s.ok()) << s.ToString() << "; " << Where() << "reopen after a crash with "
                        << acked_.size() << " batches acknowledged, " << durable_ << " durable";
  }

  // The recovered state must be the model after a prefix of acked_ (optionally followed by the
  // failed batch, which may vanish, but only as a whole) that covers the durable batches.
  void CheckRecoveredState() {
    Model recovered;
    std::string tables;
    db_->GetProperty(DB::Properties::kSSTables, &tables);
    ASSERT_NO_FATAL_FAILURE(ReadAll(db_.get(), key_space_, &recovered))
        << Where() << "live tables:\n" << tables;
    std::vector<const BatchOps*> candidates;
    for (const BatchOps& ops : acked_) candidates.push_back(&ops);
    if (!failed_batch_.empty()) candidates.push_back(&failed_batch_);
    Model state = base_;
    long matched = state == recovered ? 0 : -1;
    Model at_durable = state;
    for (size_t i = 0; i < candidates.size(); i++) {
      ApplyToModel(*candidates[i], &state);
      if (i + 1 == durable_) at_durable = state;
      if (state == recovered) matched = static_cast<long>(i + 1);
    }
    if (matched < static_cast<long>(durable_)) {
      ADD_FAILURE() << Where() << "recovered state is not the state after any prefix of the "
                    << candidates.size() << " acknowledged batches that covers the "
                    << durable_ << " durable ones (largest matching prefix: " << matched
                    << ").\nDifferences from the state after the durable prefix:\n"
                    << DescribeDiff(at_durable, recovered)
                    << "Differences from the state after all batches:\n"
                    << DescribeDiff(state, recovered);
      return;
    }
    base_ = std::move(recovered);
    acked_.clear();
    failed_batch_.clear();
    durable_ = 0;
  }

  const uint64_t seed_;
  const Config config_;
  Random rnd_;
  std::shared_ptr<FaultInjectionFileSystem> fault_;
  Options options_;
  std::unique_ptr<DB> db_;
  int key_space_ = 0;
  int round_ = 0;
  size_t batch_id_ = 0;

  Model base_;                   // the state recovered at the start of the round
  std::vector<BatchOps> acked_;  // acknowledged this round, in order
  BatchOps failed_batch_;        // the write that failed (the round's last), if any
  size_t durable_ = 0;           // acked_[0, durable_) must survive a crash
};

// How many seeds each randomized test runs: SHALE_CRASH_TEST_SEEDS (for longer soaks), or
// `fallback`.
uint64_t NumSeeds(uint64_t fallback) {
  const char* env = getenv("SHALE_CRASH_TEST_SEEDS");
  return env != nullptr && atoi(env) > 0 ? static_cast<uint64_t>(atoi(env)) : fallback;
}

TEST(DBCrashTest, RecoveredStateIsAPrefixCoveringEverySyncedBatch) {
  for (uint64_t seed = 1; seed <= NumSeeds(24) && !::testing::Test::HasFailure(); seed++) {
    CrashHarness harness(seed, CrashHarness::Config{});
    harness.Run(/*rounds=*/4);
  }
}

TEST(DBCrashTest, RecoveredStateIsAPrefixDespiteRandomIOErrors) {
  CrashHarness::Config config;
  config.inject_errors = true;
  config.close_sometimes = false;
  for (uint64_t seed = 100; seed < 100 + NumSeeds(24) && !::testing::Test::HasFailure(); seed++) {
    CrashHarness harness(seed, config);
    harness.Run(/*rounds=*/4);
  }
}

// ---------------------------------------------------------------- Targeted crash cases

class DBCrashPointTest : public ::testing::Test {
 protected:
  DBCrashPointTest() : fault_(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem())) {
    options_.file_system = fault_;
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDBName, &db_)); }
  void Crash() {
    fault_->SetFilesystemActive(false);
    db_.reset();
    ASSERT_OK(fault_->DropUnsyncedData());
    fault_->SetFilesystemActive(true);
  }
  std::string Get(std::string_view key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }

  std::shared_ptr<FaultInjectionFileSystem> fault_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(DBCrashPointTest, UnsyncedWritesMayVanishSyncedOnesSurvive) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db_->Put(sync, "b", "2"));
  ASSERT_OK(db_->Put(WriteOptions(), "c", "3"));
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("a"), "1");  // synced by the later sync write
  EXPECT_EQ(Get("b"), "2");
  EXPECT_EQ(Get("c"), "NOT_FOUND");  // the fault layer drops every unsynced byte
  // The DB goes on from there: new writes are not hidden by anything recovered.
  ASSERT_OK(db_->Put(sync, "c", "new"));
  ASSERT_OK(db_->Put(sync, "a", "new"));
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("a"), "new");
  EXPECT_EQ(Get("c"), "new");
}

// A flush that returned (with wait) is durable: its table and the MANIFEST edit naming it
// survive power loss, although the WAL that held the data has been deleted.
TEST_F(DBCrashPointTest, FlushedDataSurvivesACrash) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "flushed", "v"));
  FlushOptions fo;
  fo.wait = true;
  ASSERT_OK(db_->Flush(fo));
  ASSERT_NO_FATAL_FAILURE(Crash());
  Status s = DB::Open(options_, kDBName, &db_);
  ASSERT_TRUE(s.ok()) << s.ToString() << ": reopen after a crash that followed a completed flush";
  EXPECT_EQ(Get("flushed"), "v");
}

// Writes made with disableWAL are lost by a crash unless a flush saved them.
TEST_F(DBCrashPointTest, UnloggedWritesSurviveOnlyOnceFlushed) {
  ASSERT_NO_FATAL_FAILURE(Open());
  WriteOptions no_wal;
  no_wal.disableWAL = true;
  ASSERT_OK(db_->Put(no_wal, "x", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(no_wal, "y", "2"));
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("x"), "1");
  EXPECT_EQ(Get("y"), "NOT_FOUND");
}

// A crash right after recovery (which flushes the replayed WALs and deletes them) loses
// nothing either.
TEST_F(DBCrashPointTest, CrashRightAfterRecoveryLosesNothing) {
  ASSERT_NO_FATAL_FAILURE(Open());
  WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < 200; i++) {
    ASSERT_OK(db_->Put(sync, Cat("key", i), std::string(500, 'a' + i % 26)));
  }
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());  // replays the WALs into level-0 tables
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(Get(Cat("key", i)), std::string(500, 'a' + i % 26)) << i;
  }
}

// A failed WAL sync makes the DB read-only: that write fails, later writes fail too, reads go
// on, and a reopen recovers every write acknowledged before the failure.
TEST_F(DBCrashPointTest, FailedWalSyncIsStickyAndLosesNothingAcknowledged) {
  ASSERT_NO_FATAL_FAILURE(Open());
  WriteOptions sync;
  sync.sync = true;
  ASSERT_OK(db_->Put(sync, "before", "1"));
  fault_->InjectError(OpKind::kSync, 1, FaultIOError("disk on fire"));
  Status s = db_->Put(sync, "failed", "2");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("disk on fire"), std::string::npos) << s.ToString();
  s = db_->Put(WriteOptions(), "later", "3");
  EXPECT_TRUE(s.IsIOError()) << "a write after a failed WAL sync: " << s.ToString();
  EXPECT_EQ(Get("before"), "1");
  EXPECT_EQ(Get("later"), "NOT_FOUND");
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("before"), "1");
  EXPECT_EQ(Get("later"), "NOT_FOUND");
  ASSERT_OK(db_->Put(sync, "again", "4"));
}

// A failed flush makes the DB read-only until Resume, which retries it; nothing is lost.
TEST_F(DBCrashPointTest, FailedFlushIsStickyUntilResume) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "k1", "1"));
  // A Flush creates the next WAL (1st), then the flush creates the table (2nd).
  fault_->InjectError(OpKind::kCreate, 2, FaultIOError("no table for you"));
  Status s = db_->Flush(FlushOptions());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  s = db_->Put(WriteOptions(), "k2", "2");
  EXPECT_TRUE(s.IsIOError()) << "a write after a failed flush: " << s.ToString();
  EXPECT_EQ(Get("k1"), "1");  // the memtable that failed to flush is still read
  ASSERT_OK(db_->Resume());
  ASSERT_OK(db_->Put(WriteOptions(), "k2", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  uint64_t files = 0, n = 0;
  for (int level = 0; level < options_.num_levels; level++) {
    ASSERT_TRUE(db_->GetIntProperty(Cat("shale.num-files-at-level", level), &n));
    files += n;
  }
  EXPECT_EQ(files, 2u);
  ASSERT_OK(db_->Close());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("k1"), "1");
  EXPECT_EQ(Get("k2"), "2");
}

// Writes made with disableWAL live only in memtables: Close flushes them.
TEST_F(DBCrashPointTest, CloseSavesUnloggedWrites) {
  ASSERT_NO_FATAL_FAILURE(Open());
  WriteOptions no_wal;
  no_wal.disableWAL = true;
  ASSERT_OK(db_->Put(no_wal, "x", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "y", "2"));
  ASSERT_OK(db_->Close());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("x"), "1");
  EXPECT_EQ(Get("y"), "2");
}

// Power fails while several threads write (group commit merges their batches into shared WAL
// records). Each thread t writes batches n = 1, 2, ...: "t<t>/n" = n, "t<t>/k<n % 16>" = n and
// a delete of "t<t>/k<(n + 5) % 16>", so its recovered state is fixed by the recovered n, which
// must cover (a) the thread's own last batch acknowledged with sync, and (b) every batch any
// thread had acknowledged before a synced batch was issued (the WAL is one log: syncing it
// makes everything before the synced record durable).
TEST(DBConcurrentCrashTest, SyncedWritesOfEveryThreadSurvive) {
  constexpr int kThreads = 4;
  constexpr int kKeys = 16;
  auto key = [](int t, const std::string& what) { return Cat("t", t) + "/" + what; };
  for (int round = 0; round < 12 && !::testing::Test::HasFailure(); round++) {
    SCOPED_TRACE(Cat("round ", round));
    auto fault = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
    Options options;
    options.file_system = fault;
    options.create_if_missing = true;
    options.write_buffer_size = 64 << 10;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, kDBName, &db));
    std::array<std::atomic<uint64_t>, kThreads> acked{};
    std::array<std::array<uint64_t, kThreads>, kThreads> required{};  // [thread][of thread]
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        Random rnd(round * 100 + t);
        for (uint64_t n = 1; !stop.load(); n++) {
          WriteBatch batch;
          const std::string value = Cat("", n) + std::string(rnd.Uniform(200), 'x');
          EXPECT_OK(batch.Put(key(t, "n"), Cat("", n)));
          EXPECT_OK(batch.Put(key(t, Cat("k", n % kKeys)), value));
          EXPECT_OK(batch.Delete(key(t, Cat("k", (n + 5) % kKeys))));
          WriteOptions wo;
          wo.sync = rnd.OneIn(5);
          std::array<uint64_t, kThreads> before{};
          for (int j = 0; j < kThreads; j++) before[j] = acked[j].load();
          if (!db->Write(wo, &batch).ok()) break;  // the power is off
          acked[t].store(n);
          if (wo.sync) {
            before[t] = n;
            for (int j = 0; j < kThreads; j++) {
              required[t][j] = std::max(required[t][j], before[j]);
            }
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + 7 * round));
    fault->SetFilesystemActive(false);
    stop = true;
    for (std::thread& th : threads) th.join();
    db.reset();
    ASSERT_OK(fault->DropUnsyncedData());
    fault->SetFilesystemActive(true);
    Status s = DB::Open(options, kDBName, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int t = 0; t < kThreads; t++) {
      std::string value;
      s = db->Get(ReadOptions(), key(t, "n"), &value);
      ASSERT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
      const uint64_t n = s.ok() ? std::stoull(value) : 0;
      EXPECT_LE(n, acked[t].load() + 1) << "thread " << t << ": more batches than it wrote";
      for (int j = 0; j < kThreads; j++) {
        EXPECT_GE(n, required[j][t]) << "thread " << t << " lost batches that thread " << j
                                     << "'s synced write made durable";
      }
      // The thread's keys are exactly as its first n batches left them.
      for (int k = 0; k < kKeys; k++) {
        uint64_t last_put = 0;  // the batch that last wrote k<k>, if no later batch deleted it
        for (uint64_t b = 1; b <= n; b++) {
          if (b % kKeys == static_cast<uint64_t>(k)) last_put = b;
          if ((b + 5) % kKeys == static_cast<uint64_t>(k)) last_put = 0;
        }
        s = db->Get(ReadOptions(), key(t, Cat("k", k)), &value);
        if (last_put == 0) {
          EXPECT_TRUE(s.IsNotFound()) << key(t, Cat("k", k)) << " after " << n << " batches";
        } else {
          const std::string written_by = value.substr(0, value.find('x'));
          EXPECT_TRUE(s.ok() && written_by == Cat("", last_put))
              << key(t, Cat("k", k)) << " after " << n << " batches: " << s.ToString() << " "
              << written_by;
        }
      }
    }
    ASSERT_OK(db->Close());
  }
}

// ---------------------------------------------------------------- WAL damage

// A DB on an in-memory file system whose WALs are written by hand (records with chosen
// sequence numbers), so that damage can be placed exactly.
struct Record {
  std::string key;
  std::string value;
};

class DBWalRecoveryTest : public ::testing::Test {
 protected:
  DBWalRecoveryTest() {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    // The tests damage the WAL a closed DB leaves: Close must keep the writes there.
    options_.avoid_flush_during_shutdown = true;
  }

  // Creates the DB (empty), and replaces its WAL by `wals.size()` WALs numbered upwards from
  // the live one, each holding one record per Put. Records the offset of every record.
  void MakeDB(const std::vector<std::vector<Record>>& wals) {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, kDBName, &db));
    ASSERT_OK(db->Close());
    db.reset();
    std::vector<std::string> children;
    ASSERT_OK(fs_->GetChildren(kDBName, &children));
    uint64_t live_wal = 0;
    for (const std::string& name : children) {
      uint64_t number;
      FileType type;
      if (ParseFileName(name, &number, &type) && type == FileType::kWalFile) live_wal = number;
    }
    ASSERT_NE(live_wal, 0u) << "no WAL after Open and Close";
    SequenceNumber sequence = 1;
    wal_paths_.clear();
    offsets_.clear();
    for (size_t w = 0; w < wals.size(); w++) {
      const std::string path = WalFileName(kDBName, live_wal + 20 * w);
      std::unique_ptr<WritableFile> file;
      ASSERT_OK(fs_->NewWritableFile(path, &file));
      log::Writer writer(std::move(file));
      offsets_.emplace_back();
      for (const Record& r : wals[w]) {
        WriteBatch batch;
        ASSERT_OK(batch.Put(r.key, r.value));
        WriteBatchInternal::SetSequence(&batch, sequence++);
        offsets_.back().push_back(writer.length());
        ASSERT_OK(writer.AddRecord(WriteBatchInternal::Contents(batch)));
      }
      ASSERT_OK(writer.Close());
      wal_paths_.push_back(path);
    }
  }

  void FlipByte(const std::string& path, uint64_t offset) {
    std::string data;
    ASSERT_OK(ReadFileToString(fs_.get(), path, &data));
    ASSERT_LT(offset, data.size());
    data[offset] ^= 0x40;
    ASSERT_OK(WriteStringToFile(fs_.get(), data, path, true));
  }
  void Truncate(const std::string& path, uint64_t size) {
    std::string data;
    ASSERT_OK(ReadFileToString(fs_.get(), path, &data));
    ASSERT_LT(size, data.size());
    data.resize(size);
    ASSERT_OK(WriteStringToFile(fs_.get(), data, path, true));
  }

  Status OpenWithMode(WALRecoveryMode mode) {
    options_.wal_recovery_mode = mode;
    return DB::Open(options_, kDBName, &db_);
  }
  std::string Get(std::string_view key) {
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }
  // The base name of a path, as error messages should carry it.
  static std::string BaseName(const std::string& path) {
    return path.substr(path.rfind('/') + 1);
  }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  Options options_;
  std::unique_ptr<DB> db_;
  std::vector<std::string> wal_paths_;
  std::vector<std::vector<uint64_t>> offsets_;  // per WAL, the offset of each record
};

const WALRecoveryMode kAllModes[] = {
    WALRecoveryMode::kTolerateCorruptedTailRecords, WALRecoveryMode::kAbsoluteConsistency,
    WALRecoveryMode::kPointInTimeRecovery, WALRecoveryMode::kSkipAnyCorruptedRecords};

std::vector<Record> SmallRecords(const std::string& prefix, int n) {
  std::vector<Record> records;
  for (int i = 1; i <= n; i++) {
    records.push_back({Cat(prefix, i), Cat(prefix + "-value-", i)});
  }
  return records;
}

TEST_F(DBWalRecoveryTest, IntactWalsAreReplayedInEveryMode) {
  for (WALRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    fs_ = NewMemFileSystem();
    options_.file_system = fs_;
    ASSERT_NO_FATAL_FAILURE(MakeDB({SmallRecords("a", 5), SmallRecords("b", 5)}));
    ASSERT_OK(OpenWithMode(mode));
    for (int i = 1; i <= 5; i++) {
      EXPECT_EQ(Get(Cat("a", i)), Cat("a-value-", i));
      EXPECT_EQ(Get(Cat("b", i)), Cat("b-value-", i));
    }
    ASSERT_OK(db_->Close());
  }
}

// A crash while the last record was being written leaves it cut short: dropped silently,
// except that kAbsoluteConsistency accepts no damage at all.
TEST_F(DBWalRecoveryTest, TornTailIsDroppedExceptUnderAbsoluteConsistency) {
  for (WALRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    fs_ = NewMemFileSystem();
    options_.file_system = fs_;
    ASSERT_NO_FATAL_FAILURE(MakeDB({SmallRecords("a", 5)}));
    uint64_t size = 0;
    ASSERT_OK(fs_->GetFileSize(wal_paths_[0], &size));
    Truncate(wal_paths_[0], size - 3);  // inside the last record's payload
    Status s = OpenWithMode(mode);
    if (mode == WALRecoveryMode::kAbsoluteConsistency) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.ToString().find(BaseName(wal_paths_[0])), std::string::npos) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    for (int i = 1; i <= 4; i++) {
      EXPECT_EQ(Get(Cat("a", i)), Cat("a-value-", i));
    }
    EXPECT_EQ(Get("a5"), "NOT_FOUND");
    // The DB continues from the last whole record, and survives a reopen.
    ASSERT_OK(db_->Put(WriteOptions(), "after", "x"));
    ASSERT_OK(db_->Close());
    ASSERT_OK(DB::Open(options_, kDBName, &db_));
    EXPECT_EQ(Get("after"), "x");
    EXPECT_EQ(Get("a4"), "a-value-4");
    EXPECT_EQ(Get("a5"), "NOT_FOUND");
    ASSERT_OK(db_->Close());
  }
}

// A checksum failure in the middle of the first of two WALs (written data follows it).
TEST_F(DBWalRecoveryTest, ChecksumFailureInTheMiddleOfAWal) {
  for (WALRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    fs_ = NewMemFileSystem();
    options_.file_system = fs_;
    // a4's value spans three 32 KiB blocks, so a5 starts in a later block than the damage.
    std::vector<Record> first = SmallRecords("a", 5);
    first[3].value = std::string(70000, 'x');
    ASSERT_NO_FATAL_FAILURE(MakeDB({first, SmallRecords("b", 5)}));
    FlipByte(wal_paths_[0], offsets_[0][1] + log::kHeaderSize + 14);  // inside a2's batch
    Status s = OpenWithMode(mode);
    switch (mode) {
      case WALRecoveryMode::kTolerateCorruptedTailRecords:
      case WALRecoveryMode::kAbsoluteConsistency:
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
        EXPECT_NE(s.ToString().find(BaseName(wal_paths_[0])), std::string::npos)
            << "the error should name the WAL: " << s.ToString();
        continue;
      case WALRecoveryMode::kPointInTimeRecovery:
        ASSERT_OK(s);
        EXPECT_EQ(Get("a1"), "a-value-1");
        for (const char* gone : {"a2", "a3", "a4", "a5", "b1", "b5"}) {
          EXPECT_EQ(Get(gone), "NOT_FOUND") << gone << ": replayed past the corruption";
        }
        break;
      case WALRecoveryMode::kSkipAnyCorruptedRecords:
        ASSERT_OK(s);
        EXPECT_EQ(Get("a1"), "a-value-1");
        EXPECT_EQ(Get("a2"), "NOT_FOUND");
        // a4 lost its first fragment with the damaged block: never applied in part.
        EXPECT_EQ(Get("a4"), "NOT_FOUND");
        EXPECT_EQ(Get("a5"), "a-value-5");
        for (int i = 1; i <= 5; i++) {
          EXPECT_EQ(Get(Cat("b", i)), Cat("b-value-", i));
        }
        break;
    }
    // New writes follow the recovered ones, and what was dropped stays dropped after a reopen.
    ASSERT_OK(db_->Put(WriteOptions(), "after", "x"));
    ASSERT_OK(db_->Close());
    ASSERT_OK(DB::Open(options_, kDBName, &db_));
    EXPECT_EQ(Get("after"), "x");
    EXPECT_EQ(Get("a1"), "a-value-1");
    EXPECT_EQ(Get("a2"), "NOT_FOUND");
    if (mode == WALRecoveryMode::kPointInTimeRecovery) {
      EXPECT_EQ(Get("b1"), "NOT_FOUND");
    }
    ASSERT_OK(db_->Close());
  }
}

// The DB's own WAL, cut at every record boundary and inside every record: recovery keeps
// exactly the whole records before the cut (default mode).
TEST_F(DBWalRecoveryTest, WalCutAnywhereKeepsTheWholeRecordsBeforeTheCut) {
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, kDBName, &db));
  std::vector<uint64_t> ends;  // WAL size after each Put
  std::string wal;
  for (int i = 0; i < 12; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Cat("k", i), std::string(i * 900, 'v')));
    if (wal.empty()) {
      std::vector<std::string> children;
      ASSERT_OK(fs_->GetChildren(kDBName, &children));
      for (const std::string& name : children) {
        uint64_t number;
        FileType type;
        if (ParseFileName(name, &number, &type) && type == FileType::kWalFile) {
          wal = std::string(kDBName) + "/" + name;
        }
      }
    }
    uint64_t size = 0;
    ASSERT_OK(fs_->GetFileSize(wal, &size));
    ends.push_back(size);
  }
  ASSERT_OK(db->Close());
  db.reset();
  std::string full;
  ASSERT_OK(ReadFileToString(fs_.get(), wal, &full));
  // A copy of the whole directory to restore before each cut.
  std::vector<std::string> names;
  ASSERT_OK(fs_->GetChildren(kDBName, &names));
  std::map<std::string, std::string> saved;
  for (const std::string& name : names) {
    if (name == "LOCK") continue;
    ASSERT_OK(ReadFileToString(fs_.get(), std::string(kDBName) + "/" + name, &saved[name]));
  }
  Random rnd(7);
  for (int cut_case = 0; cut_case < 40; cut_case++) {
    const uint64_t cut = rnd.Uniform(full.size() + 1);
    std::vector<std::string> now;
    ASSERT_OK(fs_->GetChildren(kDBName, &now));
    for (const std::string& name : now) {
      if (name != "LOCK") ASSERT_OK(fs_->DeleteFile(std::string(kDBName) + "/" + name));
    }
    for (const auto& [name, data] : saved) {
      const std::string path = std::string(kDBName) + "/" + name;
      ASSERT_OK(WriteStringToFile(fs_.get(), path == wal ? data.substr(0, cut) : data, path,
                                  true));
    }
    Status s = OpenWithMode(WALRecoveryMode::kPointInTimeRecovery);
    ASSERT_TRUE(s.ok()) << s.ToString() << "; cut at " << cut;
    for (int i = 0; i < 12; i++) {
      const bool whole = ends[i] <= cut;
      EXPECT_EQ(Get(Cat("k", i)), whole ? std::string(i * 900, 'v') : "NOT_FOUND")
          << "record " << i << " ends at " << ends[i] << ", WAL cut at " << cut;
    }
    ASSERT_OK(db_->Close());
    db_.reset();
  }
}

}  // namespace
}  // namespace shale
