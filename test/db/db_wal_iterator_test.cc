// DB::GetUpdatesSince (issue 24: RocksDB's C API rocksdb_get_updates_since and
// rocksdb_wal_iter_*): the WAL iterator is checked against a model, the list of batches
// written with the sequences the DB gave them. What it yields must be exactly the model's
// batches from the one holding the requested sequence on (Data() byte for byte), and what it
// cannot yield (flushed-away WALs, disableWAL writes) must be an error, never a silent skip.
// Real directories (the POSIX file system), so that a WAL deleted while it is read behaves as
// it does in production.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "db/wal_iterator.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/transaction_log.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

namespace fs = std::filesystem;

// One batch written: its first sequence and its serialized contents (header included).
struct Written {
  uint64_t sequence;
  std::string data;
};

class DBWalIteratorTest : public ::testing::Test {
 protected:
  DBWalIteratorTest()
      : dir_(testing::TempDir() + "/db_wal_iterator_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()),
        remove_(dir_) {
    options_.create_if_missing = true;
  }
  void SetUp() override { ASSERT_OK(DB::Open(options_, dir_, &db_)); }
  void TearDown() override {
    for (ColumnFamilyHandle* h : handles_) ASSERT_OK(db_->DestroyColumnFamilyHandle(h));
    handles_.clear();
    db_.reset();
  }

  // Writes `batch` and records it in the model (unless disableWAL: such writes are in no WAL).
  void Write(WriteBatch* batch, bool disable_wal = false) {
    WriteOptions wo;
    wo.disableWAL = disable_wal;
    ASSERT_OK(db_->Write(wo, batch));
    if (!disable_wal) model_.push_back({db_->GetLatestSequenceNumber() - batch->Count() + 1,
                                         batch->Data()});
  }
  // A batch of `n` Puts (keys prefixed by `tag`), optionally in family `cf`.
  void WriteN(const std::string& tag, int n, ColumnFamilyHandle* cf = nullptr,
              bool disable_wal = false) {
    WriteBatch batch;
    for (int i = 0; i < n; i++) {
      const std::string key = tag + "/" + std::to_string(i);
      if (cf == nullptr) {
        ASSERT_OK(batch.Put(key, "v" + key));
      } else {
        ASSERT_OK(batch.Put(cf, key, "v" + key));
      }
    }
    ASSERT_NO_FATAL_FAILURE(Write(&batch, disable_wal));
  }
  // The model's batches from the one holding `seq` on.
  std::vector<Written> ModelFrom(uint64_t seq) const {
    std::vector<Written> out;
    for (const Written& w : model_) {
      const uint64_t count = WriteBatch(w.data).Count();
      if (w.sequence + count - 1 >= seq) out.push_back(w);
    }
    return out;
  }
  // Reads the iterator until it is not Valid, appending what it yields.
  static void Drain(TransactionLogIterator* it, std::vector<Written>* out) {
    for (; it->Valid(); it->Next()) {
      BatchResult r = it->GetBatch();
      ASSERT_NE(r.writeBatchPtr, nullptr);
      out->push_back({r.sequence, r.writeBatchPtr->Data()});
    }
  }
  static void ExpectSame(const std::vector<Written>& got, const std::vector<Written>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_EQ(got[i].sequence, want[i].sequence) << "batch " << i;
      EXPECT_EQ(got[i].data, want[i].data) << "batch " << i;
    }
  }
  std::vector<std::string> WalFiles(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".log") out.push_back(e.path().filename().string());
    }
    return out;
  }
  // Flushes the default family and waits until the WALs that existed before are deleted
  // (the flush deletes obsolete files after it returns).
  void FlushAndWaitForOldWals() {
    const std::vector<std::string> before = WalFiles(dir_);
    ASSERT_OK(db_->Flush(FlushOptions()));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (true) {
      const std::vector<std::string> now = WalFiles(dir_);
      const bool any_left = std::any_of(before.begin(), before.end(), [&](const std::string& w) {
        return std::find(now.begin(), now.end(), w) != now.end();
      });
      if (!any_left) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the old WALs were not deleted";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ColumnFamilyHandle* CreateFamily(const std::string& name) {
    ColumnFamilyHandle* h = nullptr;
    EXPECT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(), name, &h));
    handles_.push_back(h);
    return h;
  }

  const std::string dir_;
  const test::ScopedDirRemoval remove_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::vector<ColumnFamilyHandle*> handles_;
  std::vector<Written> model_;
};

TEST_F(DBWalIteratorTest, FromZeroAndFromTheFirstSequence) {
  for (int i = 0; i < 20; i++) ASSERT_NO_FATAL_FAILURE(WriteN("b" + std::to_string(i), 1 + i % 4));
  for (uint64_t start : {uint64_t{0}, uint64_t{1}}) {
    std::unique_ptr<TransactionLogIterator> it;
    ASSERT_OK(db_->GetUpdatesSince(start, &it));
    std::vector<Written> got;
    ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
    EXPECT_OK(it->status());
    ExpectSame(got, model_);
  }
}

TEST_F(DBWalIteratorTest, FromTheMiddleOfABatchStartsWithThatBatch) {
  for (int i = 0; i < 10; i++) ASSERT_NO_FATAL_FAILURE(WriteN("b" + std::to_string(i), 5));
  // Batch 3 holds sequences 16..20; 18 is in its middle.
  ASSERT_EQ(model_[3].sequence, 16u);
  for (uint64_t seq = 14; seq <= 22; seq++) {
    std::unique_ptr<TransactionLogIterator> it;
    ASSERT_OK(db_->GetUpdatesSince(seq, &it));
    std::vector<Written> got;
    ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
    EXPECT_OK(it->status());
    ExpectSame(got, ModelFrom(seq));
    ASSERT_FALSE(got.empty());
    EXPECT_LE(got.front().sequence, seq);
  }
}

TEST_F(DBWalIteratorTest, NotYetWrittenIsNotFound) {
  ASSERT_NO_FATAL_FAILURE(WriteN("a", 3));
  std::unique_ptr<TransactionLogIterator> it;
  Status s = db_->GetUpdatesSince(4, &it);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("Requested sequence not yet written in the db"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(it, nullptr);
  ASSERT_OK(db_->GetUpdatesSince(3, &it));  // the last sequence written is fine
  ASSERT_TRUE(it->Valid());
}

TEST_F(DBWalIteratorTest, EmptyDbThenPoll) {
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(0, &it));
  EXPECT_FALSE(it->Valid());
  EXPECT_OK(it->status());
  ASSERT_NO_FATAL_FAILURE(WriteN("a", 2));
  it->Next();
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, model_);
}

TEST_F(DBWalIteratorTest, RePollSeesNewerWrites) {
  ASSERT_NO_FATAL_FAILURE(WriteN("a", 3));
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(1, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  for (int round = 0; round < 5; round++) {
    it->Next();  // at the end: nothing new yet
    EXPECT_FALSE(it->Valid());
    EXPECT_OK(it->status());
    for (int i = 0; i < 3; i++) {
      ASSERT_NO_FATAL_FAILURE(WriteN("r" + std::to_string(round) + "_" + std::to_string(i), 2));
    }
    it->Next();
    ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
    EXPECT_OK(it->status());
    ExpectSame(got, model_);
  }
  // A large batch spans several 32 KiB log blocks (fragments) and is read whole.
  WriteBatch big;
  ASSERT_OK(big.Put("big", std::string(100000, 'x')));
  ASSERT_NO_FATAL_FAILURE(Write(&big));
  ASSERT_NO_FATAL_FAILURE(WriteN("after-big", 1));
  it->Next();
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, model_);
}

TEST_F(DBWalIteratorTest, SeveralRecordKindsAndFamiliesRoundTrip) {
  ColumnFamilyHandle* cf = CreateFamily("other");
  WriteBatch batch;
  ASSERT_OK(batch.Put("k1", "v1"));
  ASSERT_OK(batch.Put(cf, "k2", "v2"));
  ASSERT_OK(batch.Delete("k3"));
  ASSERT_OK(batch.SingleDelete(cf, "k4"));
  ASSERT_OK(batch.DeleteRange("a", "c"));
  ASSERT_OK(batch.Put(std::string("\0bin\xff", 5), std::string("\0\1\2", 3)));
  ASSERT_NO_FATAL_FAILURE(Write(&batch));
  ASSERT_NO_FATAL_FAILURE(WriteN("x", 2, cf));
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(0, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, model_);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(WriteBatch(got[0].data).Count(), 6u);
}

TEST_F(DBWalIteratorTest, AcrossWalSwitchesWithoutFlushingEveryFamily) {
  // Flushing one family switches the WAL; the default family's unflushed memtables keep the
  // older WALs alive, so the iterator reads several WAL files.
  ColumnFamilyHandle* cf = CreateFamily("side");
  for (int round = 0; round < 4; round++) {
    ASSERT_NO_FATAL_FAILURE(WriteN("d" + std::to_string(round), 3));
    ASSERT_NO_FATAL_FAILURE(WriteN("s" + std::to_string(round), 2, cf));
    ASSERT_OK(db_->Flush(FlushOptions(), cf));
  }
  ASSERT_NO_FATAL_FAILURE(WriteN("last", 1));
  ASSERT_GE(WalFiles(dir_).size(), 3u);
  for (uint64_t seq = 0; seq <= db_->GetLatestSequenceNumber(); seq += 3) {
    std::unique_ptr<TransactionLogIterator> it;
    ASSERT_OK(db_->GetUpdatesSince(seq, &it));
    std::vector<Written> got;
    ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
    EXPECT_OK(it->status());
    ExpectSame(got, ModelFrom(seq));
  }
}

TEST_F(DBWalIteratorTest, FlushedAwayWalIsAnErrorNotASkip) {
  ASSERT_NO_FATAL_FAILURE(WriteN("old", 4));
  ASSERT_NO_FATAL_FAILURE(FlushAndWaitForOldWals());  // the WAL holding 1..4 is deleted
  ASSERT_NO_FATAL_FAILURE(WriteN("new", 3));
  std::unique_ptr<TransactionLogIterator> it;
  for (uint64_t seq : {uint64_t{0}, uint64_t{1}, uint64_t{4}}) {
    Status s = db_->GetUpdatesSince(seq, &it);
    EXPECT_TRUE(s.IsNotFound()) << seq << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("older than the oldest WAL"), std::string::npos) << s.ToString();
    EXPECT_EQ(it, nullptr);
  }
  ASSERT_OK(db_->GetUpdatesSince(5, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, ModelFrom(5));
}

// With file deletions disabled (what a replica catching up can hold), a flushed WAL stays, and
// so do its updates.
TEST_F(DBWalIteratorTest, DisabledFileDeletionsKeepFlushedWals) {
  ASSERT_OK(db_->DisableFileDeletions());
  ASSERT_NO_FATAL_FAILURE(WriteN("old", 4));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_NO_FATAL_FAILURE(WriteN("new", 3));
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(1, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, model_);
  it.reset();
  ASSERT_OK(db_->EnableFileDeletions(/*force=*/true));
}

// Open replays the WALs into tables and deletes them: updates from before a reopen are gone,
// and asking for them is the same error; later writes are read as usual.
TEST_F(DBWalIteratorTest, UpdatesBeforeAReopenAreGone) {
  ASSERT_NO_FATAL_FAILURE(WriteN("before", 3));
  db_.reset();
  ASSERT_OK(DB::Open(options_, dir_, &db_));
  EXPECT_EQ(db_->GetLatestSequenceNumber(), 3u);
  ASSERT_NO_FATAL_FAILURE(WriteN("after", 2));
  std::unique_ptr<TransactionLogIterator> it;
  Status s = db_->GetUpdatesSince(1, &it);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  ASSERT_OK(db_->GetUpdatesSince(4, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, ModelFrom(4));
}

TEST_F(DBWalIteratorTest, WalDeletedWhileReadingIsReadToItsEnd) {
  for (int i = 0; i < 6; i++) ASSERT_NO_FATAL_FAILURE(WriteN("a" + std::to_string(i), 2));
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(1, &it));
  ASSERT_TRUE(it->Valid());
  ASSERT_NO_FATAL_FAILURE(FlushAndWaitForOldWals());  // deletes the WAL the iterator has open
  ASSERT_NO_FATAL_FAILURE(WriteN("b", 2));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, model_);
}

TEST_F(DBWalIteratorTest, WritesLostWithADeletedWalAreAGap) {
  ASSERT_NO_FATAL_FAILURE(WriteN("a", 2));
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(1, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));  // at the end; the WAL is closed
  ASSERT_NO_FATAL_FAILURE(WriteN("lost", 2));       // read by nobody...
  ASSERT_NO_FATAL_FAILURE(FlushAndWaitForOldWals());  // ...and its WAL deleted
  ASSERT_NO_FATAL_FAILURE(WriteN("after", 2));
  it->Next();
  EXPECT_FALSE(it->Valid());
  Status s = it->status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("Gap in sequence numbers"), std::string::npos) << s.ToString();
  it->Next();  // stays failed
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption());
}

TEST_F(DBWalIteratorTest, DisableWalWritesNeverAppearAndMakeAGap) {
  ASSERT_NO_FATAL_FAILURE(WriteN("a", 2));
  ASSERT_NO_FATAL_FAILURE(WriteN("nowal", 3, nullptr, /*disable_wal=*/true));  // 3..5
  ASSERT_NO_FATAL_FAILURE(WriteN("b", 2));                                    // 6..7
  std::unique_ptr<TransactionLogIterator> it;
  // From before the gap: the first batch, then the gap.
  ASSERT_OK(db_->GetUpdatesSince(1, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  ExpectSame(got, {model_[0]});
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  // Into the gap: refused at once.
  Status s = db_->GetUpdatesSince(4, &it);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("Gap in sequence numbers"), std::string::npos) << s.ToString();
  // After it: fine, and no disableWAL batch is ever yielded.
  ASSERT_OK(db_->GetUpdatesSince(6, &it));
  got.clear();
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, {model_[1]});
  // disableWAL writes at the tail: a poll that finds them missing reports the gap.
  ASSERT_NO_FATAL_FAILURE(WriteN("tail", 1, nullptr, /*disable_wal=*/true));
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

// A copy of the DB whose active WAL ends in a torn (half-written) record: the iterator reads
// the whole records and treats the torn one as the end, with no corruption reported.
TEST_F(DBWalIteratorTest, TornTailOfTheActiveWalIsTheEnd) {
  for (int i = 0; i < 5; i++) ASSERT_NO_FATAL_FAILURE(WriteN("a" + std::to_string(i), 3));
  WriteBatch last;
  ASSERT_OK(last.Put("torn", std::string(300, 't')));
  ASSERT_NO_FATAL_FAILURE(Write(&last));
  const std::string copy = dir_ + "_copy";
  const test::ScopedDirRemoval remove_copy(copy);
  fs::create_directories(copy);
  std::vector<std::string> wals = WalFiles(dir_);
  ASSERT_EQ(wals.size(), 1u);
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().filename() == "LOCK") continue;
    fs::copy_file(e.path(), copy + "/" + e.path().filename().string());
  }
  const std::string wal = copy + "/" + wals[0];
  // The active WAL may run ahead of its records with allocated zeros (PosixMappedWalFile):
  // its records end at its last non-zero byte (the torn batch's last byte is a 't').
  std::string contents;
  ASSERT_OK(ReadFileToString(FileSystem::Default().get(), wal, &contents));
  const size_t end = contents.find_last_not_of('\0') + 1;
  ASSERT_GT(end, 100u);
  fs::resize_file(wal, end - 100);  // cut into the last record's payload
  const std::vector<Written> whole(model_.begin(), model_.end() - 1);

  // Directly over the files, with the published sequence at the last whole batch and then at
  // the torn one (a write whose WAL append was cut short).
  const uint64_t last_whole = whole.back().sequence + 2;
  uint64_t published = last_whole;
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(WalIterator::Create(FileSystem::Default().get(), copy,
                                [&published] { return published; }, {}, 1, &it));
  std::vector<Written> got;
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, whole);
  // The torn batch published: it is in no WAL, a gap (not a damaged WAL).
  published = model_.back().sequence;
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_NE(it->status().ToString().find("Gap in sequence numbers"), std::string::npos)
      << it->status().ToString();

  // Through a read-only open of the copy: recovery drops the torn record too.
  std::unique_ptr<DB> ro;
  ASSERT_OK(DB::OpenForReadOnly(options_, copy, &ro));
  EXPECT_EQ(ro->GetLatestSequenceNumber(), last_whole);
  ASSERT_OK(ro->GetUpdatesSince(0, &it));
  got.clear();
  ASSERT_NO_FATAL_FAILURE(Drain(it.get(), &got));
  EXPECT_OK(it->status());
  ExpectSame(got, whole);
  it.reset();
}

// A reader polling while a writer appends (with WAL switches from flushes of a second family):
// every batch arrives once, in order, and nothing is reported as damaged.
TEST_F(DBWalIteratorTest, ConcurrentWriterAndPoller) {
  ColumnFamilyHandle* cf = CreateFamily("side");
  constexpr int kBatches = 1500;
  std::atomic<bool> done{false};
  std::vector<Written> written;
  std::thread writer([&] {
    for (int i = 0; i < kBatches; i++) {
      WriteBatch batch;
      for (int j = 0; j <= i % 3; j++) {
        ASSERT_OK(batch.Put(std::to_string(i) + "/" + std::to_string(j), std::string(i % 50, 'v')));
      }
      ASSERT_OK(db_->Write(WriteOptions(), &batch));
      if (i % 300 == 299) {
        WriteBatch side;
        ASSERT_OK(side.Put(cf, "s" + std::to_string(i), "x"));
        ASSERT_OK(db_->Write(WriteOptions(), &side));
        ASSERT_OK(db_->Flush(FlushOptions(), cf));
      }
    }
    done = true;
  });
  std::unique_ptr<TransactionLogIterator> it;
  ASSERT_OK(db_->GetUpdatesSince(0, &it));
  std::vector<Written> got;
  while (true) {
    const bool finished = done.load();
    for (; it->Valid(); it->Next()) {
      BatchResult r = it->GetBatch();
      got.push_back({r.sequence, r.writeBatchPtr->Data()});
    }
    ASSERT_OK(it->status());
    if (finished) break;
    it->Next();
  }
  writer.join();
  it->Next();
  for (; it->Valid(); it->Next()) {
    BatchResult r = it->GetBatch();
    got.push_back({r.sequence, r.writeBatchPtr->Data()});
  }
  ASSERT_OK(it->status());
  // Contiguous from 1 to the last sequence.
  uint64_t next = 1;
  for (const Written& w : got) {
    ASSERT_EQ(w.sequence, next);
    next += WriteBatch(w.data).Count();
  }
  EXPECT_EQ(next - 1, db_->GetLatestSequenceNumber());
}

}  // namespace
}  // namespace shale
