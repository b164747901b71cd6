// RocksDB's C API (issue 24), db group: the WAL iterator, rocksdb_get_updates_since and
// rocksdb_wal_iter_*, as a replication client uses it: batches come back in order with their
// first sequence (rocksdb_writebatch_data byte for byte as written), polling with
// rocksdb_wal_iter_next sees later writes, sequences a flush deleted with their WAL are an
// error, disableWAL writes are a gap. Compiled against Debian's rocksdb/c.h.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

struct Written {
  uint64_t sequence;
  std::string data;
};

class WalIteratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    wo_ = rocksdb_writeoptions_create();
    char* err = nullptr;
    db_ = rocksdb_open(options_, dir_.Sub("db").c_str(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  void TearDown() override {
    if (db_ != nullptr) rocksdb_close(db_);
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_options_destroy(options_);
  }
  // Writes a batch of `n` puts (and a delete), recording it in the model.
  void WriteBatchOf(const std::string& tag, int n, bool disable_wal = false) {
    rocksdb_writebatch_t* b = rocksdb_writebatch_create();
    for (int i = 0; i < n; i++) {
      const std::string key = tag + std::to_string(i);
      rocksdb_writebatch_put(b, key.data(), key.size(), "v", 1);
    }
    rocksdb_writebatch_delete(b, tag.data(), tag.size());
    rocksdb_writeoptions_disable_WAL(wo_, disable_wal ? 1 : 0);
    char* err = nullptr;
    rocksdb_write(db_, wo_, b, &err);
    rocksdb_writeoptions_disable_WAL(wo_, 0);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    size_t size = 0;
    const char* data = rocksdb_writebatch_data(b, &size);
    const uint64_t count = static_cast<uint64_t>(rocksdb_writebatch_count(b));
    if (!disable_wal) {
      model_.push_back({rocksdb_get_latest_sequence_number(db_) - count + 1,
                        std::string(data, size)});
    }
    rocksdb_writebatch_destroy(b);
  }
  // Reads the iterator while it is valid.
  static std::vector<Written> Drain(rocksdb_wal_iterator_t* it) {
    std::vector<Written> out;
    for (; rocksdb_wal_iter_valid(it); rocksdb_wal_iter_next(it)) {
      uint64_t seq = 0;
      rocksdb_writebatch_t* b = rocksdb_wal_iter_get_batch(it, &seq);
      size_t size = 0;
      const char* data = rocksdb_writebatch_data(b, &size);
      out.push_back({seq, std::string(data, size)});
      rocksdb_writebatch_destroy(b);
    }
    return out;
  }
  static void ExpectSame(const std::vector<Written>& got, const std::vector<Written>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_EQ(got[i].sequence, want[i].sequence) << i;
      EXPECT_EQ(got[i].data, want[i].data) << i;
    }
  }

  TempDir dir_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_t* db_ = nullptr;
  std::vector<Written> model_;
};

TEST_F(WalIteratorTest, YieldsEveryBatchInOrderAndPolls) {
  char* err = nullptr;
  for (int i = 0; i < 5; i++) ASSERT_NO_FATAL_FAILURE(WriteBatchOf("b" + std::to_string(i), 3));
  rocksdb_wal_iterator_t* it = rocksdb_get_updates_since(db_, 0, nullptr, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ASSERT_NE(it, nullptr);
  std::vector<Written> got = Drain(it);
  rocksdb_wal_iter_status(it, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  ExpectSame(got, model_);
  // Not valid: an empty batch and sequence 0.
  uint64_t seq = 99;
  rocksdb_writebatch_t* none = rocksdb_wal_iter_get_batch(it, &seq);
  EXPECT_EQ(seq, 0u);
  EXPECT_EQ(rocksdb_writebatch_count(none), 0);
  rocksdb_writebatch_destroy(none);
  // Polling.
  ASSERT_NO_FATAL_FAILURE(WriteBatchOf("late", 2));
  rocksdb_wal_iter_next(it);
  for (const Written& w : Drain(it)) got.push_back(w);
  ExpectSame(got, model_);
  rocksdb_wal_iter_destroy(it);

  // From inside batch 2 (sequences 9..12): it comes first.
  it = rocksdb_get_updates_since(db_, model_[2].sequence + 2, nullptr, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ExpectSame(Drain(it), std::vector<Written>(model_.begin() + 2, model_.end()));
  rocksdb_wal_iter_destroy(it);
}

TEST_F(WalIteratorTest, ErrorsThroughErrptr) {
  char* err = nullptr;
  EXPECT_EQ(rocksdb_get_updates_since(db_, 1, nullptr, &err), nullptr);
  EXPECT_EQ(TakeError(&err), "NotFound: Requested sequence not yet written in the db: "
                             "sequence 1, latest 0");
  EXPECT_EQ(rocksdb_get_updates_since(nullptr, 1, nullptr, &err), nullptr);
  EXPECT_EQ(TakeError(&err), "Invalid argument: db is NULL");
  // NULL iterators: nothing to read.
  EXPECT_EQ(rocksdb_wal_iter_valid(nullptr), 0);
  rocksdb_wal_iter_next(nullptr);
  rocksdb_wal_iter_destroy(nullptr);

  ASSERT_NO_FATAL_FAILURE(WriteBatchOf("a", 2));
  ASSERT_NO_FATAL_FAILURE(WriteBatchOf("hidden", 2, /*disable_wal=*/true));
  ASSERT_NO_FATAL_FAILURE(WriteBatchOf("b", 2));
  rocksdb_wal_iterator_t* it = rocksdb_get_updates_since(db_, 1, nullptr, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ExpectSame(Drain(it), {model_[0]});
  rocksdb_wal_iter_status(it, &err);
  const std::optional<std::string> gap = TakeError(&err);
  ASSERT_NE(gap, std::nullopt);
  EXPECT_EQ(gap->rfind("Corruption: Gap in sequence numbers", 0), 0u) << *gap;
  rocksdb_wal_iter_destroy(it);

  // A flush deletes the WAL: its sequences are gone, and the call says so.
  rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
  rocksdb_flush(db_, fo, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_flushoptions_destroy(fo);
  ASSERT_NO_FATAL_FAILURE(WriteBatchOf("c", 1));
  // The flush deletes the old WAL just after it returns: wait for that (at most 20 s).
  for (int tries = 0; tries < 20000; tries++) {
    rocksdb_wal_iterator_t* still = rocksdb_get_updates_since(db_, 1, nullptr, &err);
    if (still == nullptr) break;
    rocksdb_wal_iter_destroy(still);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::optional<std::string> old = TakeError(&err);
  ASSERT_NE(old, std::nullopt);
  EXPECT_EQ(old->rfind("NotFound: Requested sequence is older than the oldest WAL", 0), 0u)
      << *old;
  it = rocksdb_get_updates_since(db_, model_.back().sequence, nullptr, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  ExpectSame(Drain(it), {model_.back()});
  rocksdb_wal_iter_destroy(it);
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
