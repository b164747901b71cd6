// Tests of the batch group of RocksDB's C API (src/rocksdb_capi/batch*.cc, iterator_ops.cc,
// write_batch_with_index.cc, wbwi_*.cc, transactions.cc, backup*.cc, transaction_options.cc):
// write batches (records, iterate callbacks, the serialized form and RocksDB's byte layout,
// damaged input, save points, the "v" variants), iterators, WriteBatchWithIndex against a
// std::map model, backups over checkpoints, and the visible failure of transactions. Written
// against Debian's rocksdb/c.h, as a RocksDB client is.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "rocksdb/c.h"

namespace {

// --- RocksDB's serialized batch, written out by hand (its documented layout) ---

std::string Varint(uint32_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string VarString(const std::string& s) { return Varint(static_cast<uint32_t>(s.size())) + s; }

std::string Header(uint64_t sequence, uint32_t count) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((sequence >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((count >> (8 * i)) & 0xff));
  return out;
}

std::string Data(rocksdb_writebatch_t* b) {
  size_t size = 0;
  const char* data = rocksdb_writebatch_data(b, &size);
  return std::string(data, size);
}

// What rocksdb_writebatch_iterate reported, one line per callback.
struct Seen {
  std::vector<std::string> events;
};

void OnPut(void* state, const char* k, size_t klen, const char* v, size_t vlen) {
  static_cast<Seen*>(state)->events.push_back("put " + std::string(k, klen) + "=" +
                                              std::string(v, vlen));
}

void OnDelete(void* state, const char* k, size_t klen) {
  static_cast<Seen*>(state)->events.push_back("del " + std::string(k, klen));
}

std::vector<std::string> IterateBatch(rocksdb_writebatch_t* b) {
  Seen seen;
  rocksdb_writebatch_iterate(b, &seen, OnPut, OnDelete);
  return seen.events;
}

// Takes the message out of *err (freeing it) and returns it; empty when there was none.
std::string TakeError(char** err) {
  if (*err == nullptr) return "";
  std::string message(*err);
  std::free(*err);
  *err = nullptr;
  return message;
}

std::string Fixed64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// The iterator's current key and value, copied. (Not std::string(rocksdb_iter_key(it, &len),
// len): the order in which the arguments are evaluated is unspecified.)
std::string IterKey(const rocksdb_iterator_t* it) {
  size_t len = 0;
  const char* key = rocksdb_iter_key(it, &len);
  return std::string(key, len);
}

std::string IterValue(const rocksdb_iterator_t* it) {
  size_t len = 0;
  const char* value = rocksdb_iter_value(it, &len);
  return std::string(value, len);
}

// --- Plain write batches ---

TEST(RocksdbCapiWriteBatch, CountsRecordsAndIteratesDefaultFamilyPutsAndDeletes) {
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  EXPECT_EQ(rocksdb_writebatch_count(b), 0);
  rocksdb_writebatch_put(b, "k1", 2, "v1", 2);
  rocksdb_writebatch_merge(b, "k2", 2, "m", 1);
  rocksdb_writebatch_singledelete(b, "k3", 2);
  rocksdb_writebatch_delete(b, "k4", 2);
  rocksdb_writebatch_put(b, "k5", 2, "", 0);
  EXPECT_EQ(rocksdb_writebatch_count(b), 5);
  // RocksDB's C handler overrides Put and Delete only: merges and single deletes pass silently.
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put k1=v1", "del k4", "put k5="}));
  rocksdb_writebatch_clear(b);
  EXPECT_EQ(rocksdb_writebatch_count(b), 0);
  EXPECT_TRUE(IterateBatch(b).empty());
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, SerializedFormIsRocksDbsByteForByte) {
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_put(b, "key", 3, "value", 5);
  rocksdb_writebatch_delete(b, "gone", 4);
  rocksdb_writebatch_singledelete(b, "once", 4);
  rocksdb_writebatch_merge(b, "m", 1, "op", 2);
  rocksdb_writebatch_delete_range(b, "a", 1, "c", 1);
  std::string expected = Header(0, 5) + '\x01' + VarString("key") + VarString("value") +
                         '\x00' + VarString("gone") + '\x07' + VarString("once") + '\x02' +
                         VarString("m") + VarString("op") + '\x0f' + VarString("a") +
                         VarString("c");
  EXPECT_EQ(Data(b), expected);
  rocksdb_writebatch_destroy(b);

  // A RocksDB batch with column family records (tags 0x5, 0x4, 0x8, 0x6, 0xE) is read as such.
  std::string rocksdb_bytes = Header(7, 5) + '\x05' + Varint(3) + VarString("a") +
                              VarString("1") + '\x04' + Varint(3) + VarString("b") + '\x08' +
                              Varint(3) + VarString("c") + '\x06' + Varint(3) + VarString("d") +
                              VarString("2") + '\x0e' + Varint(3) + VarString("e") +
                              VarString("f");
  rocksdb_writebatch_t* from = rocksdb_writebatch_create_from(rocksdb_bytes.data(),
                                                              rocksdb_bytes.size());
  EXPECT_EQ(rocksdb_writebatch_count(from), 5);
  EXPECT_EQ(Data(from), rocksdb_bytes);
  rocksdb_writebatch_destroy(from);
}

TEST(RocksdbCapiWriteBatch, IterateStopsAtOtherFamiliesAndRangeDeletionsAsRocksDb) {
  // RocksDB's Handler returns InvalidArgument for a non-default family's record and for any
  // DeleteRange: iteration ends there, and the C API drops that status.
  std::string other_family = Header(0, 3) + '\x01' + VarString("a") + VarString("1") + '\x05' +
                             Varint(2) + VarString("b") + VarString("2") + '\x01' +
                             VarString("c") + VarString("3");
  rocksdb_writebatch_t* b = rocksdb_writebatch_create_from(other_family.data(),
                                                           other_family.size());
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put a=1"}));
  rocksdb_writebatch_destroy(b);

  b = rocksdb_writebatch_create();
  rocksdb_writebatch_put(b, "a", 1, "1", 1);
  rocksdb_writebatch_delete_range(b, "b", 1, "c", 1);
  rocksdb_writebatch_put(b, "c", 1, "3", 1);
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put a=1"}));
  rocksdb_writebatch_iterate(b, nullptr, nullptr, nullptr);  // NULL callbacks are skipped
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, DataAndCreateFromRoundTrip) {
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  for (int i = 0; i < 100; ++i) {
    std::string k = "key" + std::to_string(i), v(static_cast<size_t>(i) * 7, 'x');
    rocksdb_writebatch_put(b, k.data(), k.size(), v.data(), v.size());
    if (i % 3 == 0) rocksdb_writebatch_delete(b, k.data(), k.size());
  }
  std::string bytes = Data(b);
  rocksdb_writebatch_t* copy = rocksdb_writebatch_create_from(bytes.data(), bytes.size());
  EXPECT_EQ(rocksdb_writebatch_count(copy), rocksdb_writebatch_count(b));
  EXPECT_EQ(Data(copy), bytes);
  EXPECT_EQ(IterateBatch(copy), IterateBatch(b));
  // The copy is a batch like any other: it takes more records.
  rocksdb_writebatch_put(copy, "more", 4, "x", 1);
  EXPECT_EQ(rocksdb_writebatch_count(copy), rocksdb_writebatch_count(b) + 1);
  rocksdb_writebatch_destroy(copy);
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, DamagedInputIsAcceptedAndReadsOnlyUpToTheDamage) {
  std::string good = Header(0, 2) + '\x01' + VarString("a") + VarString("1") + '\x01' +
                     VarString("b") + VarString("2");
  std::vector<std::string> inputs = {
      good.substr(0, good.size() - 1),                           // cut short
      Header(0, 2) + '\x01' + VarString("a") + VarString("1") + '\x03' + VarString("blob"),
      Header(0, 3) + '\x01' + VarString("a") + VarString("1"),   // count says 3
      std::string("\x01\x02\x03", 3),                             // shorter than the header
      std::string(),
  };
  for (const std::string& input : inputs) {
    SCOPED_TRACE(testing::PrintToString(input));
    rocksdb_writebatch_t* b = rocksdb_writebatch_create_from(input.data(), input.size());
    ASSERT_NE(b, nullptr);
    std::vector<std::string> seen = IterateBatch(b);  // must not crash or read past the end
    EXPECT_LE(seen.size(), 1u);
    rocksdb_writebatch_destroy(b);
  }
  // NULL with size 0 is an empty input too.
  rocksdb_writebatch_t* b = rocksdb_writebatch_create_from(nullptr, 0);
  EXPECT_EQ(rocksdb_writebatch_count(b), 0);
  rocksdb_writebatch_put(b, "k", 1, "v", 1);
  EXPECT_EQ(rocksdb_writebatch_count(b), 1);
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put k=v"}));
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, SavePointsRollBackPopAndClear) {
  char* err = nullptr;
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);
  rocksdb_writebatch_pop_save_point(b, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);

  rocksdb_writebatch_put(b, "a", 1, "1", 1);
  std::string at_first = Data(b);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_put(b, "b", 1, "2", 1);
  rocksdb_writebatch_delete(b, "a", 1);
  std::string at_second = Data(b);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_merge(b, "c", 1, "3", 1);
  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_pop_save_point(b, &err);  // drops the third, keeps the batch
  EXPECT_EQ(err, nullptr);
  EXPECT_EQ(rocksdb_writebatch_count(b), 4);

  rocksdb_writebatch_rollback_to_save_point(b, &err);
  EXPECT_EQ(err, nullptr);
  EXPECT_EQ(rocksdb_writebatch_count(b), 3);
  EXPECT_EQ(Data(b), at_second);
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  EXPECT_EQ(err, nullptr);
  EXPECT_EQ(rocksdb_writebatch_count(b), 1);
  EXPECT_EQ(Data(b), at_first);
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put a=1"}));
  rocksdb_writebatch_put(b, "z", 1, "9", 1);  // the batch goes on after a rollback
  EXPECT_EQ(IterateBatch(b), (std::vector<std::string>{"put a=1", "put z=9"}));

  rocksdb_writebatch_set_save_point(b);
  rocksdb_writebatch_clear(b);  // clear drops the save points too (RocksDB)
  rocksdb_writebatch_rollback_to_save_point(b, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, VectorVariantsJoinTheirParts) {
  const char* keys[] = {"ke", "y", "1"};
  const size_t key_sizes[] = {2, 1, 1};
  const char* values[] = {"va", "lue"};
  const size_t value_sizes[] = {2, 3};
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_putv(b, 3, keys, key_sizes, 2, values, value_sizes);
  rocksdb_writebatch_deletev(b, 2, keys, key_sizes);
  rocksdb_writebatch_mergev(b, 1, keys, key_sizes, 2, values, value_sizes);
  const char* ends[] = {"z", "z"};
  const size_t end_sizes[] = {1, 1};
  rocksdb_writebatch_delete_rangev(b, 2, keys, key_sizes, ends, end_sizes);
  rocksdb_writebatch_putv(b, 0, nullptr, nullptr, 0, nullptr, nullptr);  // empty key and value
  EXPECT_EQ(rocksdb_writebatch_count(b), 5);
  std::string expected = Header(0, 5) + '\x01' + VarString("key1") + VarString("value") +
                         '\x00' + VarString("key") + '\x02' + VarString("ke") +
                         VarString("value") + '\x0f' + VarString("key") + VarString("zz") +
                         '\x01' + VarString("") + VarString("");
  EXPECT_EQ(Data(b), expected);
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, TimestampVariantsAndLogDataAddNoRecord) {
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_put_cf_with_ts(b, nullptr, "k", 1, "ts", 2, "v", 1);
  rocksdb_writebatch_delete_cf_with_ts(b, nullptr, "k", 1, "ts", 2);
  rocksdb_writebatch_singledelete_cf_with_ts(b, nullptr, "k", 1, "ts", 2);
  rocksdb_writebatch_put_log_data(b, "blob", 4);
  EXPECT_EQ(rocksdb_writebatch_count(b), 0);
  EXPECT_EQ(Data(b), Header(0, 0));
  rocksdb_writebatch_destroy(b);
}

TEST(RocksdbCapiWriteBatch, DestroyingNullHandlesIsHarmless) {
  rocksdb_writebatch_destroy(nullptr);
  rocksdb_writebatch_wi_destroy(nullptr);
  rocksdb_iter_destroy(nullptr);
  rocksdb_backup_engine_close(nullptr);
  rocksdb_backup_engine_info_destroy(nullptr);
  rocksdb_backup_engine_options_destroy(nullptr);
  rocksdb_restore_options_destroy(nullptr);
  rocksdb_transaction_destroy(nullptr);
  rocksdb_transactiondb_close(nullptr);
  rocksdb_optimistictransactiondb_close(nullptr);
  rocksdb_transaction_options_destroy(nullptr);
  rocksdb_transactiondb_options_destroy(nullptr);
  rocksdb_optimistictransaction_options_destroy(nullptr);
}

// --- With a DB ---

class RocksdbCapiBatchDbTest : public testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("rocksdb_capi_batch_test_" + std::to_string(::getpid()) + "_" +
              testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(path_);
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    rocksdb_options_set_uint64add_merge_operator(options_);
    char* err = nullptr;
    db_ = rocksdb_open(options_, path_.c_str(), &err);
    ASSERT_EQ(TakeError(&err), "");
    ASSERT_NE(db_, nullptr);
    ropts_ = rocksdb_readoptions_create();
    wopts_ = rocksdb_writeoptions_create();
  }

  void TearDown() override {
    if (cf_ != nullptr) rocksdb_column_family_handle_destroy(cf_);
    if (db_ != nullptr) rocksdb_close(db_);
    rocksdb_readoptions_destroy(ropts_);
    rocksdb_writeoptions_destroy(wopts_);
    rocksdb_options_destroy(options_);
    std::filesystem::remove_all(path_);
  }

  void CheckWbwiAgainstModel(rocksdb_column_family_handle_t* cf, unsigned char overwrite_keys);

  rocksdb_column_family_handle_t* Family() {
    if (cf_ == nullptr) {
      char* err = nullptr;
      cf_ = rocksdb_create_column_family(db_, options_, "other", &err);
      EXPECT_EQ(TakeError(&err), "");
    }
    return cf_;
  }

  void Put(const std::string& k, const std::string& v) {
    char* err = nullptr;
    rocksdb_put(db_, wopts_, k.data(), k.size(), v.data(), v.size(), &err);
    ASSERT_EQ(TakeError(&err), "");
  }

  std::optional<std::string> Get(const std::string& k, rocksdb_column_family_handle_t* cf =
                                                            nullptr) {
    char* err = nullptr;
    size_t len = 0;
    char* v = cf == nullptr ? rocksdb_get(db_, ropts_, k.data(), k.size(), &len, &err)
                            : rocksdb_get_cf(db_, ropts_, cf, k.data(), k.size(), &len, &err);
    EXPECT_EQ(TakeError(&err), "");
    if (v == nullptr) return std::nullopt;
    std::string out(v, len);
    rocksdb_free(v);
    return out;
  }

  std::string path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_t* db_ = nullptr;
  rocksdb_readoptions_t* ropts_ = nullptr;
  rocksdb_writeoptions_t* wopts_ = nullptr;
  rocksdb_column_family_handle_t* cf_ = nullptr;
};

TEST_F(RocksdbCapiBatchDbTest, WrittenBatchAppliesEveryKindAndFamily) {
  Put("r1", "x");
  Put("r2", "x");
  Put("gone", "x");
  rocksdb_writebatch_t* b = rocksdb_writebatch_create();
  rocksdb_writebatch_put(b, "a", 1, "1", 1);
  rocksdb_writebatch_put_cf(b, Family(), "a", 1, "other", 5);
  rocksdb_writebatch_delete(b, "gone", 4);
  rocksdb_writebatch_delete_range(b, "r", 1, "s", 1);
  rocksdb_writebatch_merge(b, "n", 1, Fixed64(5).data(), 8);
  rocksdb_writebatch_merge_cf(b, Family(), "n", 1, Fixed64(6).data(), 8);
  rocksdb_writebatch_put_cf(b, Family(), "s", 1, "1", 1);
  rocksdb_writebatch_singledelete_cf(b, Family(), "s", 1);
  // Round trip through the serialized form before writing: the copy writes the same.
  std::string bytes = Data(b);
  rocksdb_writebatch_t* copy = rocksdb_writebatch_create_from(bytes.data(), bytes.size());
  char* err = nullptr;
  rocksdb_write(db_, wopts_, copy, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("a", Family()), "other");
  EXPECT_EQ(Get("gone"), std::nullopt);
  EXPECT_EQ(Get("r1"), std::nullopt);
  EXPECT_EQ(Get("r2"), std::nullopt);
  EXPECT_EQ(Get("n"), Fixed64(5));
  EXPECT_EQ(Get("n", Family()), Fixed64(6));
  EXPECT_EQ(Get("s", Family()), std::nullopt);
  rocksdb_writebatch_destroy(copy);
  rocksdb_writebatch_destroy(b);
}

TEST_F(RocksdbCapiBatchDbTest, WritingADamagedBatchFailsWithCorruption) {
  std::string good = Header(0, 2) + '\x01' + VarString("a") + VarString("1") + '\x01' +
                     VarString("b") + VarString("2");
  std::vector<std::string> inputs = {
      good.substr(0, good.size() - 1),
      Header(0, 2) + '\x01' + VarString("a") + VarString("1") + '\x03' + VarString("blob"),
      Header(0, 3) + '\x01' + VarString("a") + VarString("1"),
      std::string("\x01\x02\x03", 3),
  };
  for (const std::string& input : inputs) {
    SCOPED_TRACE(testing::PrintToString(input));
    rocksdb_writebatch_t* b = rocksdb_writebatch_create_from(input.data(), input.size());
    char* err = nullptr;
    rocksdb_write(db_, wopts_, b, &err);
    std::string message = TakeError(&err);
    EXPECT_EQ(message.rfind("Corruption: ", 0), 0u) << message;
    rocksdb_writebatch_destroy(b);
    EXPECT_EQ(Get("a"), std::nullopt);  // nothing of a damaged batch is applied
  }
}

TEST_F(RocksdbCapiBatchDbTest, IteratorMovesReadsAndReportsNoError) {
  for (std::string k : {"b", "d", "f"}) Put(k, "v" + k);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ropts_);
  EXPECT_FALSE(rocksdb_iter_valid(it));
  size_t len = 0;
  rocksdb_iter_seek_to_first(it);
  ASSERT_TRUE(rocksdb_iter_valid(it));
  EXPECT_EQ(IterKey(it), "b");
  EXPECT_EQ(IterValue(it), "vb");
  const char* ts = rocksdb_iter_timestamp(it, &len);
  EXPECT_NE(ts, nullptr);
  EXPECT_EQ(len, 0u);
  rocksdb_iter_next(it);
  EXPECT_EQ(IterKey(it), "d");
  rocksdb_iter_seek(it, "c", 1);
  EXPECT_EQ(IterKey(it), "d");
  rocksdb_iter_seek_for_prev(it, "e", 1);
  EXPECT_EQ(IterKey(it), "d");
  rocksdb_iter_prev(it);
  EXPECT_EQ(IterKey(it), "b");
  rocksdb_iter_prev(it);
  EXPECT_FALSE(rocksdb_iter_valid(it));
  rocksdb_iter_seek_to_last(it);
  EXPECT_EQ(IterKey(it), "f");
  rocksdb_iter_next(it);
  EXPECT_FALSE(rocksdb_iter_valid(it));
  rocksdb_iter_seek(it, nullptr, 0);
  EXPECT_EQ(IterKey(it), "b");
  char* err = nullptr;
  rocksdb_iter_get_error(it, &err);
  EXPECT_EQ(err, nullptr);
  rocksdb_iter_destroy(it);
}

// --- WriteBatchWithIndex ---

// A model of the batch (key -> value, or nullopt for deleted) over the DB's contents.
using Model = std::map<std::string, std::optional<std::string>>;

std::map<std::string, std::string> Overlay(const std::map<std::string, std::string>& db,
                                           const Model& batch) {
  std::map<std::string, std::string> out = db;
  for (const auto& [k, v] : batch) {
    if (v.has_value()) {
      out[k] = *v;
    } else {
      out.erase(k);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Scan(rocksdb_iterator_t* it, bool forward) {
  std::vector<std::pair<std::string, std::string>> out;
  if (forward) {
    rocksdb_iter_seek_to_first(it);
  } else {
    rocksdb_iter_seek_to_last(it);
  }
  size_t klen = 0, vlen = 0;
  while (rocksdb_iter_valid(it)) {
    const char* k = rocksdb_iter_key(it, &klen);
    const char* v = rocksdb_iter_value(it, &vlen);
    out.emplace_back(std::string(k, klen), std::string(v, vlen));
    if (forward) {
      rocksdb_iter_next(it);
    } else {
      rocksdb_iter_prev(it);
    }
  }
  return out;
}

// Random puts and deletes into a WriteBatchWithIndex over a DB, checked after each step against
// a model: get_from_batch, get_from_batch_and_db, and (every 10 steps) scans and seeks of the
// iterator with base. `cf`: the family (null: the default one, through the functions without
// a handle).
void RocksdbCapiBatchDbTest::CheckWbwiAgainstModel(rocksdb_column_family_handle_t* cf,
                                                   unsigned char overwrite_keys) {
  char* err = nullptr;
  std::mt19937 rng(20261126);
  auto key = [&] {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "k%02d", static_cast<int>(rng() % 30));
    return std::string(buf);
  };
  std::map<std::string, std::string> db;
  for (int i = 0; i < 15; ++i) {
    std::string k = key(), v = "db" + std::to_string(i);
    rocksdb_writebatch_t* b = rocksdb_writebatch_create();
    if (cf == nullptr) {
      rocksdb_writebatch_put(b, k.data(), k.size(), v.data(), v.size());
    } else {
      rocksdb_writebatch_put_cf(b, cf, k.data(), k.size(), v.data(), v.size());
    }
    rocksdb_write(db_, wopts_, b, &err);
    ASSERT_EQ(TakeError(&err), "");
    rocksdb_writebatch_destroy(b);
    db[k] = v;
  }
  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(0, overwrite_keys);
  Model model;
  for (int step = 0; step < 300; ++step) {
    std::string k = key();
    switch (rng() % 4) {
      case 0:
      case 1: {
        std::string v = "b";
        v += std::to_string(step);
        if (cf == nullptr) {
          rocksdb_writebatch_wi_put(wbwi, k.data(), k.size(), v.data(), v.size());
        } else {
          rocksdb_writebatch_wi_put_cf(wbwi, cf, k.data(), k.size(), v.data(), v.size());
        }
        model[k] = v;
        break;
      }
      case 2:
        if (cf == nullptr) {
          rocksdb_writebatch_wi_delete(wbwi, k.data(), k.size());
        } else {
          rocksdb_writebatch_wi_delete_cf(wbwi, cf, k.data(), k.size());
        }
        model[k] = std::nullopt;
        break;
      case 3:
        if (cf == nullptr) {
          rocksdb_writebatch_wi_singledelete(wbwi, k.data(), k.size());
        } else {
          rocksdb_writebatch_wi_singledelete_cf(wbwi, cf, k.data(), k.size());
        }
        model[k] = std::nullopt;
        break;
    }
    ASSERT_EQ(rocksdb_writebatch_wi_count(wbwi), step + 1);
    // Point reads: from the batch alone, and from the batch over the DB.
    for (int probe = 0; probe < 5; ++probe) {
      std::string p = probe == 0 ? k : key();
      size_t len = 0;
      char* v = cf == nullptr ? rocksdb_writebatch_wi_get_from_batch(wbwi, options_, p.data(),
                                                                     p.size(), &len, &err)
                              : rocksdb_writebatch_wi_get_from_batch_cf(
                                    wbwi, options_, cf, p.data(), p.size(), &len, &err);
      ASSERT_EQ(TakeError(&err), "");
      auto m = model.find(p);
      std::optional<std::string> want_batch =
          m == model.end() ? std::nullopt : m->second;
      ASSERT_EQ(v == nullptr ? std::nullopt : std::optional<std::string>(std::string(v, len)),
                want_batch)
          << p;
      rocksdb_free(v);
      v = cf == nullptr ? rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db_, ropts_, p.data(),
                                                                      p.size(), &len, &err)
                        : rocksdb_writebatch_wi_get_from_batch_and_db_cf(
                              wbwi, db_, ropts_, cf, p.data(), p.size(), &len, &err);
      ASSERT_EQ(TakeError(&err), "");
      std::map<std::string, std::string> merged = Overlay(db, model);
      auto w = merged.find(p);
      std::optional<std::string> want =
          w == merged.end() ? std::nullopt : std::optional<std::string>(w->second);
      ASSERT_EQ(v == nullptr ? std::nullopt : std::optional<std::string>(std::string(v, len)),
                want)
          << p;
      rocksdb_free(v);
    }
    if (step % 10 != 9) continue;
    // Scans and seeks of the iterator with base, against the overlay.
    std::map<std::string, std::string> merged = Overlay(db, model);
    std::vector<std::pair<std::string, std::string>> want(merged.begin(), merged.end());
    rocksdb_iterator_t* it =
        cf == nullptr
            ? rocksdb_writebatch_wi_create_iterator_with_base(wbwi,
                                                              rocksdb_create_iterator(db_, ropts_))
            : rocksdb_writebatch_wi_create_iterator_with_base_cf(
                  wbwi, rocksdb_create_iterator_cf(db_, ropts_, cf), cf);
    ASSERT_EQ(Scan(it, true), want);
    std::vector<std::pair<std::string, std::string>> backward(want.rbegin(), want.rend());
    ASSERT_EQ(Scan(it, false), backward);
    for (int s = 0; s < 10; ++s) {
      std::string target = key();
      // Seek, then one step back and forth (direction changes).
      rocksdb_iter_seek(it, target.data(), target.size());
      auto lb = merged.lower_bound(target);
      ASSERT_EQ(bool(rocksdb_iter_valid(it)), lb != merged.end()) << target;
      if (lb != merged.end()) {
        ASSERT_EQ(IterKey(it), lb->first);
        ASSERT_EQ(IterValue(it), lb->second);
        rocksdb_iter_prev(it);
        if (lb == merged.begin()) {
          ASSERT_FALSE(rocksdb_iter_valid(it));
        } else {
          ASSERT_EQ(IterKey(it), std::prev(lb)->first);
          rocksdb_iter_next(it);
          ASSERT_EQ(IterKey(it), lb->first);
        }
      }
      rocksdb_iter_seek_for_prev(it, target.data(), target.size());
      auto ub = merged.upper_bound(target);
      ASSERT_EQ(bool(rocksdb_iter_valid(it)), ub != merged.begin()) << target;
      if (ub != merged.begin()) {
        auto at = std::prev(ub);
        ASSERT_EQ(IterKey(it), at->first);
        rocksdb_iter_next(it);
        if (ub == merged.end()) {
          ASSERT_FALSE(rocksdb_iter_valid(it));
        } else {
          ASSERT_EQ(IterKey(it), ub->first);
          rocksdb_iter_prev(it);
          ASSERT_EQ(IterKey(it), at->first);
        }
      }
    }
    rocksdb_iter_get_error(it, &err);
    ASSERT_EQ(TakeError(&err), "");
    rocksdb_iter_destroy(it);
  }
  // Writing the batch gives the DB the overlay.
  rocksdb_write_writebatch_wi(db_, wopts_, wbwi, &err);
  ASSERT_EQ(TakeError(&err), "");
  std::map<std::string, std::string> merged = Overlay(db, model);
  rocksdb_iterator_t* it = cf == nullptr ? rocksdb_create_iterator(db_, ropts_)
                                         : rocksdb_create_iterator_cf(db_, ropts_, cf);
  EXPECT_EQ(Scan(it, true),
            (std::vector<std::pair<std::string, std::string>>(merged.begin(), merged.end())));
  rocksdb_iter_destroy(it);
  rocksdb_writebatch_wi_destroy(wbwi);
}

TEST_F(RocksdbCapiBatchDbTest, WriteBatchWithIndexMatchesAModel) {
  CheckWbwiAgainstModel(nullptr, 1);
}

TEST_F(RocksdbCapiBatchDbTest, WriteBatchWithIndexOfAFamilyWithoutOverwriteMatchesAModel) {
  CheckWbwiAgainstModel(Family(), 0);
}

TEST_F(RocksdbCapiBatchDbTest, WriteBatchWithIndexMerges) {
  Put("n", Fixed64(10));
  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(0, 1);
  rocksdb_writebatch_wi_merge(wbwi, "n", 1, Fixed64(2).data(), 8);
  char* err = nullptr;
  size_t len = 0;
  // Operands without a base in the batch: the batch alone cannot answer.
  char* v = rocksdb_writebatch_wi_get_from_batch(wbwi, options_, "n", 1, &len, &err);
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(TakeError(&err).rfind("Merge in progress", 0), 0u);
  // Over the DB: merged with the DB's value by the DB's merge operator.
  v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db_, ropts_, "n", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), Fixed64(12));
  rocksdb_free(v);
  // A merge over a key the DB does not have.
  rocksdb_writebatch_wi_merge(wbwi, "fresh", 5, Fixed64(4).data(), 8);
  v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db_, ropts_, "fresh", 5, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), Fixed64(4));
  rocksdb_free(v);
  // A base in the batch: the batch answers, with the options' merge operator.
  rocksdb_writebatch_wi_put(wbwi, "p", 1, Fixed64(100).data(), 8);
  rocksdb_writebatch_wi_merge(wbwi, "p", 1, Fixed64(1).data(), 8);
  rocksdb_writebatch_wi_merge(wbwi, "p", 1, Fixed64(1).data(), 8);
  v = rocksdb_writebatch_wi_get_from_batch(wbwi, options_, "p", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), Fixed64(102));
  rocksdb_free(v);
  rocksdb_writebatch_wi_delete(wbwi, "p", 1);
  rocksdb_writebatch_wi_merge(wbwi, "p", 1, Fixed64(7).data(), 8);
  v = rocksdb_writebatch_wi_get_from_batch_and_db(wbwi, db_, ropts_, "p", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), Fixed64(7));
  rocksdb_free(v);
  // Without a merge operator the merge cannot be resolved: an error, not a wrong value.
  rocksdb_options_t* plain = rocksdb_options_create();
  v = rocksdb_writebatch_wi_get_from_batch(wbwi, plain, "p", 1, &len, &err);
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(TakeError(&err).rfind("Invalid argument", 0), 0u);
  rocksdb_options_destroy(plain);
  // The iterator with base of the default family (no handle) knows no merge operator, as
  // RocksDB's: it stops with the error at a merged key.
  rocksdb_iterator_t* it =
      rocksdb_writebatch_wi_create_iterator_with_base(wbwi, rocksdb_create_iterator(db_, ropts_));
  rocksdb_iter_seek_to_first(it);
  EXPECT_FALSE(rocksdb_iter_valid(it));
  rocksdb_iter_get_error(it, &err);
  EXPECT_EQ(TakeError(&err).rfind("Invalid argument: ", 0), 0u);
  rocksdb_iter_destroy(it);
  // Written, the DB merges the same way.
  rocksdb_write_writebatch_wi(db_, wopts_, wbwi, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(Get("n"), Fixed64(12));
  EXPECT_EQ(Get("fresh"), Fixed64(4));
  EXPECT_EQ(Get("p"), Fixed64(7));
  rocksdb_writebatch_wi_destroy(wbwi);
}

TEST_F(RocksdbCapiBatchDbTest, WriteBatchWithIndexIteratorOfAFamilyMerges) {
  // The family has the fixture's uint64add operator.
  rocksdb_writebatch_t* setup = rocksdb_writebatch_create();
  rocksdb_writebatch_put_cf(setup, Family(), "n", 1, Fixed64(10).data(), 8);
  rocksdb_writebatch_put_cf(setup, Family(), "q", 1, Fixed64(50).data(), 8);
  rocksdb_writebatch_put_cf(setup, Family(), "z", 1, Fixed64(1).data(), 8);
  char* err = nullptr;
  rocksdb_write(db_, wopts_, setup, &err);
  ASSERT_EQ(TakeError(&err), "");
  rocksdb_writebatch_destroy(setup);

  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(0, 1);
  rocksdb_writebatch_wi_merge_cf(wbwi, Family(), "n", 1, Fixed64(2).data(), 8);  // over the DB
  rocksdb_writebatch_wi_merge_cf(wbwi, Family(), "fresh", 5, Fixed64(4).data(), 8);
  rocksdb_writebatch_wi_put_cf(wbwi, Family(), "p", 1, Fixed64(100).data(), 8);
  rocksdb_writebatch_wi_merge_cf(wbwi, Family(), "p", 1, Fixed64(1).data(), 8);
  rocksdb_writebatch_wi_delete_cf(wbwi, Family(), "q", 1);  // hides the DB's 50
  rocksdb_writebatch_wi_merge_cf(wbwi, Family(), "q", 1, Fixed64(7).data(), 8);
  std::vector<std::pair<std::string, std::string>> want = {
      {"fresh", Fixed64(4)}, {"n", Fixed64(12)}, {"p", Fixed64(101)}, {"q", Fixed64(7)},
      {"z", Fixed64(1)}};
  rocksdb_iterator_t* it = rocksdb_writebatch_wi_create_iterator_with_base_cf(
      wbwi, rocksdb_create_iterator_cf(db_, ropts_, Family()), Family());
  EXPECT_EQ(Scan(it, true), want);
  EXPECT_EQ(Scan(it, false),
            (std::vector<std::pair<std::string, std::string>>(want.rbegin(), want.rend())));
  rocksdb_iter_get_error(it, &err);
  EXPECT_EQ(TakeError(&err), "");
  rocksdb_iter_destroy(it);
  size_t len = 0;
  char* v = rocksdb_writebatch_wi_get_from_batch_and_db_cf(wbwi, db_, ropts_, Family(), "n", 1,
                                                           &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), Fixed64(12));
  rocksdb_free(v);
  // Written, the DB holds what the iterator showed.
  rocksdb_write_writebatch_wi(db_, wopts_, wbwi, &err);
  ASSERT_EQ(TakeError(&err), "");
  it = rocksdb_create_iterator_cf(db_, ropts_, Family());
  EXPECT_EQ(Scan(it, true), want);
  rocksdb_iter_destroy(it);
  rocksdb_writebatch_wi_destroy(wbwi);
}

TEST_F(RocksdbCapiBatchDbTest, WriteBatchWithIndexSavePointsFamiliesAndRefusedRanges) {
  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(100, 1);
  char* err = nullptr;
  size_t len = 0;
  rocksdb_writebatch_wi_rollback_to_save_point(wbwi, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);
  rocksdb_writebatch_wi_put(wbwi, "a", 1, "1", 1);
  rocksdb_writebatch_wi_set_save_point(wbwi);
  rocksdb_writebatch_wi_put(wbwi, "a", 1, "2", 1);
  rocksdb_writebatch_wi_put_cf(wbwi, Family(), "a", 1, "cf", 2);
  rocksdb_writebatch_wi_delete(wbwi, "b", 1);
  // Range deletions are refused, as by RocksDB's WriteBatchWithIndex.
  rocksdb_writebatch_wi_delete_range(wbwi, "a", 1, "z", 1);
  rocksdb_writebatch_wi_delete_range_cf(wbwi, Family(), "a", 1, "z", 1);
  EXPECT_EQ(rocksdb_writebatch_wi_count(wbwi), 4);

  char* v = rocksdb_writebatch_wi_get_from_batch_cf(wbwi, options_, Family(), "a", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), "cf");
  rocksdb_free(v);
  Put("c", "db");
  rocksdb_iterator_t* it = rocksdb_writebatch_wi_create_iterator_with_base_cf(
      wbwi, rocksdb_create_iterator_cf(db_, ropts_, Family()), Family());
  EXPECT_EQ(Scan(it, true), (std::vector<std::pair<std::string, std::string>>{{"a", "cf"}}));
  rocksdb_iter_destroy(it);

  rocksdb_writebatch_wi_rollback_to_save_point(wbwi, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(rocksdb_writebatch_wi_count(wbwi), 1);
  v = rocksdb_writebatch_wi_get_from_batch(wbwi, options_, "a", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), "1");
  rocksdb_free(v);
  v = rocksdb_writebatch_wi_get_from_batch_cf(wbwi, options_, Family(), "a", 1, &len, &err);
  EXPECT_EQ(v, nullptr);  // rolled back: not in the batch any more
  EXPECT_EQ(TakeError(&err), "");
  Seen seen;
  rocksdb_writebatch_wi_iterate(wbwi, &seen, OnPut, OnDelete);
  EXPECT_EQ(seen.events, (std::vector<std::string>{"put a=1"}));

  // The serialized form round-trips into a new indexed batch.
  size_t size = 0;
  const char* data = rocksdb_writebatch_wi_data(wbwi, &size);
  rocksdb_writebatch_wi_t* copy = rocksdb_writebatch_wi_create_from(data, size);
  EXPECT_EQ(rocksdb_writebatch_wi_count(copy), 1);
  v = rocksdb_writebatch_wi_get_from_batch(copy, options_, "a", 1, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(std::string(v, len), "1");
  rocksdb_free(v);
  rocksdb_writebatch_wi_clear(copy);
  EXPECT_EQ(rocksdb_writebatch_wi_count(copy), 0);
  v = rocksdb_writebatch_wi_get_from_batch(copy, options_, "a", 1, &len, &err);
  EXPECT_EQ(v, nullptr);
  rocksdb_writebatch_wi_destroy(copy);
  rocksdb_writebatch_wi_destroy(wbwi);
}

// --- Transactions: not ShaleDB's yet, and they say so ---

TEST_F(RocksdbCapiBatchDbTest, TransactionsFailVisibly) {
  char* err = nullptr;
  rocksdb_transactiondb_options_t* tdb_options = rocksdb_transactiondb_options_create();
  ASSERT_NE(tdb_options, nullptr);
  rocksdb_transactiondb_options_set_max_num_locks(tdb_options, 10);
  rocksdb_transactiondb_t* tdb =
      rocksdb_transactiondb_open(options_, tdb_options, (path_ + "_txn").c_str(), &err);
  EXPECT_EQ(tdb, nullptr);
  EXPECT_EQ(TakeError(&err),
            "Not implemented: Not supported by ShaleDB: rocksdb_transactiondb_open");
  rocksdb_transactiondb_options_destroy(tdb_options);

  rocksdb_optimistictransactiondb_t* odb =
      rocksdb_optimistictransactiondb_open(options_, (path_ + "_otxn").c_str(), &err);
  EXPECT_EQ(odb, nullptr);
  EXPECT_EQ(TakeError(&err),
            "Not implemented: Not supported by ShaleDB: rocksdb_optimistictransactiondb_open");
  rocksdb_transaction_options_t* txn_options = rocksdb_transaction_options_create();
  rocksdb_transaction_options_set_set_snapshot(txn_options, 1);
  EXPECT_EQ(rocksdb_transaction_begin(nullptr, wopts_, txn_options, nullptr), nullptr);
  rocksdb_transaction_options_destroy(txn_options);

  const char* keys[] = {"a", "b"};
  const size_t key_sizes[] = {1, 1};
  char* values[2] = {reinterpret_cast<char*>(1), reinterpret_cast<char*>(1)};
  size_t value_sizes[2] = {9, 9};
  char* errs[2] = {nullptr, nullptr};
  rocksdb_transactiondb_multi_get(nullptr, ropts_, 2, keys, key_sizes, values, value_sizes, errs);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(values[i], nullptr);
    EXPECT_EQ(value_sizes[i], 0u);
    EXPECT_EQ(TakeError(&errs[i]),
              "Not implemented: Not supported by ShaleDB: rocksdb_transactiondb_multi_get");
  }
}

// --- Backups (over checkpoints) ---

std::vector<uint32_t> BackupIds(rocksdb_backup_engine_t* be) {
  const rocksdb_backup_engine_info_t* info = rocksdb_backup_engine_get_backup_info(be);
  std::vector<uint32_t> ids;
  for (int i = 0; i < rocksdb_backup_engine_info_count(info); ++i) {
    ids.push_back(rocksdb_backup_engine_info_backup_id(info, i));
  }
  rocksdb_backup_engine_info_destroy(info);
  return ids;
}

TEST_F(RocksdbCapiBatchDbTest, BackupEngineBacksUpRestoresPurgesAndVerifies) {
  const std::string backup_dir = path_ + "_backup", restore_dir = path_ + "_restore";
  std::filesystem::remove_all(backup_dir);
  std::filesystem::remove_all(restore_dir);
  char* err = nullptr;
  rocksdb_backup_engine_t* be = rocksdb_backup_engine_open(options_, backup_dir.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  ASSERT_NE(be, nullptr);
  EXPECT_TRUE(BackupIds(be).empty());

  Put("a", "1");  // in the memtable and WAL only: the first backup copies the WAL
  rocksdb_backup_engine_create_new_backup(be, db_, &err);
  ASSERT_EQ(TakeError(&err), "");
  Put("a", "2");
  Put("b", "x");
  rocksdb_backup_engine_create_new_backup_flush(be, db_, 1, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(BackupIds(be), (std::vector<uint32_t>{1, 2}));
  const rocksdb_backup_engine_info_t* info = rocksdb_backup_engine_get_backup_info(be);
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(rocksdb_backup_engine_info_size(info, i), 0u);
    EXPECT_GT(rocksdb_backup_engine_info_number_files(info, i), 0u);
    EXPECT_LE(std::llabs(rocksdb_backup_engine_info_timestamp(info, i) - now), 600);
  }
  rocksdb_backup_engine_info_destroy(info);
  rocksdb_backup_engine_verify_backup(be, 1, &err);
  EXPECT_EQ(TakeError(&err), "");
  rocksdb_backup_engine_verify_backup(be, 7, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);

  // Restores: the latest, then an older one over it (the old files are replaced).
  auto restored = [&](const std::string& k) -> std::optional<std::string> {
    char* e = nullptr;
    rocksdb_t* copy = rocksdb_open(options_, restore_dir.c_str(), &e);
    EXPECT_EQ(TakeError(&e), "");
    if (copy == nullptr) return "<not opened>";
    size_t len = 0;
    char* v = rocksdb_get(copy, ropts_, k.data(), k.size(), &len, &e);
    EXPECT_EQ(TakeError(&e), "");
    std::optional<std::string> out;
    if (v != nullptr) out = std::string(v, len);
    rocksdb_free(v);
    rocksdb_close(copy);
    return out;
  };
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  rocksdb_backup_engine_restore_db_from_latest_backup(be, restore_dir.c_str(),
                                                      restore_dir.c_str(), restore, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(restored("a"), "2");
  EXPECT_EQ(restored("b"), "x");
  rocksdb_backup_engine_restore_db_from_backup(be, restore_dir.c_str(), restore_dir.c_str(),
                                               restore, 1, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(restored("a"), "1");
  EXPECT_EQ(restored("b"), std::nullopt);
  rocksdb_backup_engine_restore_db_from_latest_backup(
      be, restore_dir.c_str(), (restore_dir + "_elsewhere").c_str(), restore, &err);
  EXPECT_EQ(TakeError(&err).rfind("Invalid argument: ", 0), 0u);

  // Purge keeps the newest; ids are never reused, also across a reopen.
  rocksdb_backup_engine_purge_old_backups(be, 1, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(BackupIds(be), (std::vector<uint32_t>{2}));
  rocksdb_backup_engine_restore_db_from_backup(be, restore_dir.c_str(), restore_dir.c_str(),
                                               restore, 1, &err);
  EXPECT_EQ(TakeError(&err).rfind("NotFound", 0), 0u);
  rocksdb_backup_engine_close(be);
  be = rocksdb_backup_engine_open(options_, backup_dir.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(BackupIds(be), (std::vector<uint32_t>{2}));
  rocksdb_backup_engine_create_new_backup(be, db_, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(BackupIds(be), (std::vector<uint32_t>{2, 3}));

  // A damaged backup fails verify and restore with Corruption.
  for (const auto& entry :
       std::filesystem::directory_iterator(backup_dir + "/private/3")) {
    if (entry.path().extension() == ".sst" || entry.path().filename() == "CURRENT") {
      std::filesystem::resize_file(entry.path(), 1);
      break;
    }
  }
  rocksdb_backup_engine_verify_backup(be, 3, &err);
  EXPECT_EQ(TakeError(&err).rfind("Corruption: ", 0), 0u);
  rocksdb_backup_engine_restore_db_from_latest_backup(be, restore_dir.c_str(),
                                                      restore_dir.c_str(), restore, &err);
  EXPECT_EQ(TakeError(&err).rfind("Corruption: ", 0), 0u);
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_close(be);

  // open_opts with destroy_old_data starts from nothing; the option getters return what is set.
  rocksdb_backup_engine_options_t* be_options =
      rocksdb_backup_engine_options_create(backup_dir.c_str());
  EXPECT_EQ(rocksdb_backup_engine_options_get_share_table_files(be_options), 1);
  EXPECT_EQ(rocksdb_backup_engine_options_get_sync(be_options), 1);
  EXPECT_EQ(rocksdb_backup_engine_options_get_destroy_old_data(be_options), 0);
  EXPECT_EQ(rocksdb_backup_engine_options_get_max_background_operations(be_options), 1);
  rocksdb_backup_engine_options_set_max_background_operations(be_options, 4);
  EXPECT_EQ(rocksdb_backup_engine_options_get_max_background_operations(be_options), 4);
  rocksdb_backup_engine_options_set_backup_rate_limit(be_options, 1234);
  EXPECT_EQ(rocksdb_backup_engine_options_get_backup_rate_limit(be_options), 1234u);
  rocksdb_backup_engine_options_set_destroy_old_data(be_options, 1);
  be = rocksdb_backup_engine_open_opts(be_options, nullptr, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_TRUE(BackupIds(be).empty());
  rocksdb_backup_engine_close(be);
  rocksdb_backup_engine_options_destroy(be_options);
  std::filesystem::remove_all(backup_dir);
  std::filesystem::remove_all(restore_dir);
}

// grocksdb's CreateBackupEngine(db) keeps the backups in the DB's own directory (as RocksDB
// allows): the DB must live on beside meta/ and private/.
TEST_F(RocksdbCapiBatchDbTest, BackupEngineInTheDbDirectory) {
  const std::string restore_dir = path_ + "_restore";
  std::filesystem::remove_all(restore_dir);
  char* err = nullptr;
  rocksdb_backup_engine_t* be = rocksdb_backup_engine_open(options_, path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  Put("hello", "");
  rocksdb_backup_engine_create_new_backup(be, db_, &err);
  ASSERT_EQ(TakeError(&err), "");
  Put("hello", "world1");
  rocksdb_backup_engine_create_new_backup_flush(be, db_, 1, &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(BackupIds(be), (std::vector<uint32_t>{1, 2}));
  for (uint32_t id : {1u, 2u}) {
    rocksdb_backup_engine_verify_backup(be, id, &err);
    EXPECT_EQ(TakeError(&err), "");
  }
  rocksdb_backup_engine_purge_old_backups(be, 1, &err);
  ASSERT_EQ(TakeError(&err), "");
  rocksdb_restore_options_t* restore = rocksdb_restore_options_create();
  for (int i = 0; i < 2; ++i) {
    rocksdb_backup_engine_restore_db_from_latest_backup(be, restore_dir.c_str(),
                                                        restore_dir.c_str(), restore, &err);
    ASSERT_EQ(TakeError(&err), "");
  }
  rocksdb_restore_options_destroy(restore);
  rocksdb_backup_engine_close(be);

  // The DB reopens with the backups inside it, and so does the restored copy.
  Put("after", "1");
  rocksdb_close(db_);
  db_ = rocksdb_open(options_, path_.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  EXPECT_EQ(Get("hello"), "world1");
  EXPECT_EQ(Get("after"), "1");
  rocksdb_t* copy = rocksdb_open(options_, restore_dir.c_str(), &err);
  ASSERT_EQ(TakeError(&err), "");
  size_t len = 0;
  char* v = rocksdb_get(copy, ropts_, "hello", 5, &len, &err);
  ASSERT_EQ(TakeError(&err), "");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::string(v, len), "world1");
  rocksdb_free(v);
  rocksdb_close(copy);
  std::filesystem::remove_all(restore_dir);
}

}  // namespace
