// Size limits (shale/limits.h, doc/size_limits.md): keys and values at and around every limit
// (limit - 1, limit, and empty) round-trip through the memtable, the WAL (reopen without a
// flush), flush, compaction, ingestion (SstFileWriter, BulkLoader), a checkpoint and reopen;
// one byte over is refused with InvalidArgument before anything is acknowledged, and the DB
// is unchanged then.
//
// The CI cases use the real key limit (8 MiB keys are cheap) and prove the value and batch
// limits' refusals without touching memory: an over-limit value is a view of an untouched
// anonymous mapping, which the checks refuse by its size alone. The boundary logic of every
// limit is also tested on the check functions with small limits. Values near the 1008 MiB
// value limit and batches near 2 GiB cost several GiB of memory and seconds of I/O: those
// cases run only with SHALE_STRESS=1 (DBSizeLimitsStressTest).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/size_limits.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/limits.h"
#include "shale/sst_file_writer.h"
#include "shale/write_batch.h"
#include "table/bloom_filter.h"
#include "table/format.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/coding.h"

namespace shale {
namespace {

bool StressEnabled() {
  const char* v = std::getenv("SHALE_STRESS");
  return v != nullptr && std::string(v) == "1";
}

// A read-only view of `size` zero bytes that costs no memory as long as nobody reads it: an
// anonymous mapping reserved without backing. The size checks refuse an over-limit view by
// its size without reading it.
class UntouchedBytes {
 public:
  explicit UntouchedBytes(size_t size) : size_(size) {
    addr_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (addr_ == MAP_FAILED) addr_ = nullptr;
  }
  ~UntouchedBytes() {
    if (addr_ != nullptr) munmap(addr_, size_);
  }
  UntouchedBytes(const UntouchedBytes&) = delete;
  UntouchedBytes& operator=(const UntouchedBytes&) = delete;

  bool ok() const { return addr_ != nullptr; }
  std::string_view view() const { return {static_cast<const char*>(addr_), size_}; }

 private:
  size_t size_;
  void* addr_ = nullptr;
};

// What the DB should hold: key -> value (absent keys are not found).
using Model = std::map<std::string, std::string>;

class DBSizeLimitsTest : public ::testing::Test {
 protected:
  DBSizeLimitsTest() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = ::testing::TempDir() + "shale_sizes_" + std::to_string(getpid()) + "_" +
            info->name();
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    dbname_ = root_ + "/db";
    options_.create_if_missing = true;
    options_.merge_operator = std::make_shared<test::JoinOperator>();
    // Large enough that no flush happens behind the test's back.
    options_.write_buffer_size = 512 << 20;
  }
  ~DBSizeLimitsTest() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
    db_.reset();
    std::filesystem::remove_all(root_);
  }

  Status TryOpen() { return DB::Open(options_, dbname_, &db_); }
  void Open() { ASSERT_OK(TryOpen()); }
  void Close() {
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
  }
  void Reopen() {
    Close();
    Open();
  }

  // Every key of `model` reads back its value from `db`; every key of `absent` is NotFound;
  // a full scan sees exactly the model.
  static void Check(DB* db, const Model& model, const std::vector<std::string>& absent,
                    const std::string& stage) {
    SCOPED_TRACE(stage);
    for (const auto& [k, v] : model) {
      std::string got;
      Status s = db->Get(ReadOptions(), k, &got);
      ASSERT_TRUE(s.ok()) << "key of " << k.size() << " bytes: " << s.ToString();
      ASSERT_EQ(got.size(), v.size()) << "key of " << k.size() << " bytes";
      ASSERT_TRUE(got == v) << "key of " << k.size() << " bytes";
    }
    for (const auto& k : absent) {
      std::string got;
      Status s = db->Get(ReadOptions(), k, &got);
      ASSERT_TRUE(s.IsNotFound()) << "key of " << k.size() << " bytes: " << s.ToString();
    }
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model.end()) << "scan: extra key of " << it->key().size() << " bytes";
      ASSERT_TRUE(it->key() == m->first) << "scan: key of " << it->key().size() << " bytes";
      ASSERT_TRUE(it->value() == m->second);
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(m, model.end()) << "scan: missing key of " << m->first.size() << " bytes";
  }

  // Checks the DB in every stage: memtable, WAL (reopen without a flush), flush, compaction,
  // a checkpoint opened as a DB, and reopen.
  void CheckThroughEveryStage(const Model& model, const std::vector<std::string>& absent) {
    Check(db_.get(), model, absent, "memtable");
    Reopen();
    Check(db_.get(), model, absent, "WAL replay");
    ASSERT_OK(db_->Flush(FlushOptions()));
    Check(db_.get(), model, absent, "flushed");
    ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    Check(db_.get(), model, absent, "compacted");
    std::unique_ptr<Checkpoint> cp;
    ASSERT_OK(Checkpoint::Create(db_.get(), &cp));
    const std::string cp_dir = root_ + "/checkpoint";
    std::filesystem::remove_all(cp_dir);
    ASSERT_OK(cp->CreateCheckpoint(cp_dir));
    {
      std::unique_ptr<DB> copy;
      ASSERT_OK(DB::Open(options_, cp_dir, &copy));
      Check(copy.get(), model, absent, "checkpoint");
      ASSERT_OK(copy->Close());
    }
    Reopen();
    Check(db_.get(), model, absent, "reopened");
  }

  // The DB holds exactly `model` and its sequence number is `seq`: nothing of a refused write
  // was applied.
  void ExpectUnchanged(const Model& model, uint64_t seq, const std::vector<std::string>& absent) {
    EXPECT_EQ(db_->GetLatestSequenceNumber(), seq);
    Check(db_.get(), model, absent, "after a refused write");
  }

  std::string root_;
  std::string dbname_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// ------------------------------------------------------------------ the check functions

// The boundary logic of every limit, with small limits: limit - 1 and limit pass, limit + 1
// is refused with InvalidArgument naming the field and the limit.
TEST(SizeLimitChecksTest, BoundariesWithSmallLimits) {
  SizeLimits small;
  small.max_key = 10;
  small.max_value = 20;
  small.max_batch = 100;
  for (size_t n : {size_t{0}, size_t{9}, size_t{10}}) {
    EXPECT_OK(CheckKeySize("Put", n, small));
    EXPECT_OK(CheckRangeKeySizes("DeleteRange", n, n, small));
  }
  for (size_t n : {size_t{0}, size_t{19}, size_t{20}}) EXPECT_OK(CheckValueSize("Put", n, small));
  for (size_t n : {size_t{0}, size_t{99}, size_t{100}}) {
    EXPECT_OK(CheckBatchSize("Write", n, small));
  }
  Status s = CheckKeySize("Put", 11, small);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("key of 11 bytes"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("limit is 10 bytes"), std::string::npos) << s.ToString();
  EXPECT_TRUE(CheckValueSize("Put", 21, small).IsInvalidArgument());
  EXPECT_TRUE(CheckRangeKeySizes("DeleteRange", 11, 0, small).IsInvalidArgument());
  EXPECT_TRUE(CheckRangeKeySizes("DeleteRange", 0, 11, small).IsInvalidArgument());
  EXPECT_TRUE(CheckBatchSize("Write", 101, small).IsInvalidArgument());
}

// The engine's limits fit the table format: a data block holding one entry of the largest
// key and value (entry header, internal key, value, restart array) is well under the 1 GiB a
// reader accepts, and so is a block of the largest block_size followed by nothing larger.
TEST(SizeLimitChecksTest, LimitsFitTheTableFormat) {
  constexpr uint64_t kReadLimit = uint64_t{1} << 30;  // table/format.h kMaxBlockSize
  constexpr uint64_t kEntryOverhead = 3 * 5 + 8 + 8 + 64;  // varints, trailer, restarts, slack
  static_assert(kMaxKeySize + kMaxValueSize + kEntryOverhead < kReadLimit);
  static_assert(kMaxTableBlockSizeOption < kReadLimit);
  static_assert(kMaxKeySize + 8 < (uint64_t{1} << 32));  // the memtable's varint32 key length
  static_assert(kMaxWriteBatchSize >= kMaxKeySize + kMaxValueSize + 64);
  SUCCEED();
}

// The defaults are the engine's limits: the limit passes, one byte more is refused.
TEST(SizeLimitChecksTest, DefaultLimits) {
  EXPECT_OK(CheckKeySize("Put", kMaxKeySize));
  EXPECT_TRUE(CheckKeySize("Put", kMaxKeySize + 1).IsInvalidArgument());
  EXPECT_OK(CheckValueSize("Put", kMaxValueSize));
  EXPECT_TRUE(CheckValueSize("Put", kMaxValueSize + 1).IsInvalidArgument());
  EXPECT_OK(CheckBatchSize("Write", kMaxWriteBatchSize));
  EXPECT_TRUE(CheckBatchSize("Write", kMaxWriteBatchSize + 1).IsInvalidArgument());
}

// A full filter of any number of keys fits a block: past about 850 million keys at 10 bits per
// key the filter stops growing (before, 2 billion keys made a 2.4 GiB filter block that no
// reader accepts).
TEST(SizeLimitChecksTest, BloomFilterFitsABlock) {
  EXPECT_EQ(BloomFilterBuilder::NumLinesFor(1000, 10), 20u);  // ceil(10000 / 512)
  for (size_t keys : {size_t{850} << 20, size_t{2} << 30, size_t{1} << 40}) {
    for (double bits : {1.0, 10.0, 100.0}) {
      const uint64_t bytes =
          uint64_t{BloomFilterBuilder::NumLinesFor(keys, bits)} * kBloomLineBytes +
          kBloomTrailerSize;
      EXPECT_LE(bytes, kMaxBlockSize) << keys << " keys at " << bits << " bits per key";
    }
  }
}

// ------------------------------------------------------------------ keys at the limit

// Empty keys, empty values, keys of kMaxKeySize - 1 and kMaxKeySize (as point keys, merge
// keys and both ends of a range deletion) round-trip through every stage.
TEST_F(DBSizeLimitsTest, KeysAtTheLimitRoundTrip) {
  Open();
  Model model;
  auto put = [&](const std::string& k, const std::string& v) {
    ASSERT_OK(db_->Put(WriteOptions(), k, v));
    model[k] = v;
  };
  put("", "");
  put("e", "");
  put("", "empty key");  // overwrites the empty key's empty value
  put(std::string(kMaxKeySize - 1, 'k'), "v1");
  put(std::string(kMaxKeySize, 'k'), "v2");
  put(std::string(kMaxKeySize, 'l'), std::string(1 << 20, 'L'));
  const std::string mkey(kMaxKeySize, 'm');
  ASSERT_OK(db_->Merge(WriteOptions(), mkey, "a"));
  ASSERT_OK(db_->Merge(WriteOptions(), mkey, "b"));
  model[mkey] = "a,b";
  // A range deletion whose ends are both of the longest size.
  const std::string deleted(kMaxKeySize, 'r');
  ASSERT_OK(db_->Put(WriteOptions(), deleted, "gone"));
  ASSERT_OK(db_->DeleteRange(WriteOptions(), std::string(kMaxKeySize, 'q'),
                             std::string(kMaxKeySize, 's')));
  // A deleted key of the longest size.
  const std::string deleted2(kMaxKeySize, 't');
  ASSERT_OK(db_->Put(WriteOptions(), deleted2, "gone"));
  ASSERT_OK(db_->Delete(WriteOptions(), deleted2));
  CheckThroughEveryStage(model, {deleted, deleted2});
}

// An SstFileWriter file and a BulkLoader load with keys at the limit (and empty keys and
// values) ingest and round-trip.
TEST_F(DBSizeLimitsTest, IngestedKeysAtTheLimitRoundTrip) {
  Open();
  Model model;
  model[""] = "";
  model[std::string(kMaxKeySize - 1, 'a')] = "";
  model[std::string(kMaxKeySize, 'a')] = "max key";
  const std::string file = root_ + "/ext.sst";
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    for (const auto& [k, v] : model) ASSERT_OK(writer.Put(k, v));
    ASSERT_OK(writer.DeleteRange(std::string(kMaxKeySize, 'b'), std::string(kMaxKeySize, 'c')));
    ASSERT_OK(writer.Finish());
  }
  ASSERT_OK(db_->IngestExternalFile({file}, IngestExternalFileOptions()));
  {
    std::unique_ptr<BulkLoader> loader;
    BulkLoaderOptions bopts;
    bopts.memory_budget = 64 << 20;
    ASSERT_OK(BulkLoader::Open(db_.get(), bopts, &loader));
    const std::string k1(kMaxKeySize, 'x');
    const std::string k2(kMaxKeySize - 1, 'x');
    ASSERT_OK(loader->Add(k1, "bulk max"));
    ASSERT_OK(loader->Add(k2, ""));
    ASSERT_OK(loader->Finish());
    model[k1] = "bulk max";
    model[k2] = "";
  }
  CheckThroughEveryStage(model, {std::string(kMaxKeySize, 'b')});
}

// ------------------------------------------------------------------ one byte over

// A key of kMaxKeySize + 1 is refused by every write call, before anything is acknowledged:
// the DB's contents and sequence number are unchanged, and so is a WriteBatch.
TEST_F(DBSizeLimitsTest, KeyOneByteOverIsRefused) {
  Open();
  Model model{{"a", "1"}};
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  const uint64_t seq = db_->GetLatestSequenceNumber();
  const std::string over(kMaxKeySize + 1, 'k');
  const std::string at(kMaxKeySize, 'k');
  std::vector<std::string> absent{over, at};

  EXPECT_TRUE(db_->Put(WriteOptions(), over, "v").IsInvalidArgument());
  EXPECT_TRUE(db_->Merge(WriteOptions(), over, "v").IsInvalidArgument());
  EXPECT_TRUE(db_->Delete(WriteOptions(), over).IsInvalidArgument());
  EXPECT_TRUE(db_->SingleDelete(WriteOptions(), over).IsInvalidArgument());
  EXPECT_TRUE(db_->DeleteRange(WriteOptions(), "a", over).IsInvalidArgument());
  EXPECT_TRUE(db_->DeleteRange(WriteOptions(), over, over + "z").IsInvalidArgument());
  ExpectUnchanged(model, seq, absent);

  WriteBatch batch;
  ASSERT_OK(batch.Put(at, "ok"));
  const std::string before = batch.Data();
  EXPECT_TRUE(batch.Put(over, "v").IsInvalidArgument());
  EXPECT_TRUE(batch.Merge(over, "v").IsInvalidArgument());
  EXPECT_TRUE(batch.Delete(over).IsInvalidArgument());
  EXPECT_TRUE(batch.SingleDelete(over).IsInvalidArgument());
  EXPECT_TRUE(batch.DeleteRange("a", over).IsInvalidArgument());
  EXPECT_TRUE(batch.DeleteRange(over, over).IsInvalidArgument());
  EXPECT_EQ(batch.Count(), 1u);
  EXPECT_TRUE(batch.Data() == before);

  // A batch made from serialized contents (as from another process or a WAL) is checked as a
  // whole by Write: its first record is fine, its second is one byte over; nothing applies.
  std::string rep(12, '\0');
  EncodeFixed32(rep.data() + 8, 2);
  rep.push_back(static_cast<char>(0x1));  // kTypeValue
  PutLengthPrefixed(&rep, at);
  PutLengthPrefixed(&rep, "first");
  rep.push_back(static_cast<char>(0x1));
  PutLengthPrefixed(&rep, over);
  PutLengthPrefixed(&rep, "second");
  WriteBatch raw(rep);
  Status s = db_->Write(WriteOptions(), &raw);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ExpectUnchanged(model, seq, absent);

  // The same after a reopen (nothing reached the WAL) and a flush.
  Reopen();
  ExpectUnchanged(model, seq, absent);
  ASSERT_OK(db_->Flush(FlushOptions()));
  ExpectUnchanged(model, seq, absent);
}

// A value of kMaxValueSize + 1 is refused by Put, Merge and WriteBatch without reading it
// (the view is an untouched mapping), and the DB is unchanged.
TEST_F(DBSizeLimitsTest, ValueOneByteOverIsRefused) {
  UntouchedBytes over(kMaxValueSize + 1);
  ASSERT_TRUE(over.ok());
  Open();
  Model model{{"a", "1"}};
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  const uint64_t seq = db_->GetLatestSequenceNumber();
  Status s = db_->Put(WriteOptions(), "b", over.view());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("value"), std::string::npos) << s.ToString();
  EXPECT_TRUE(db_->Merge(WriteOptions(), "b", over.view()).IsInvalidArgument());
  WriteBatch batch;
  ASSERT_OK(batch.Put("c", "ok"));
  const std::string before = batch.Data();
  EXPECT_TRUE(batch.Put("b", over.view()).IsInvalidArgument());
  EXPECT_TRUE(batch.Merge("b", over.view()).IsInvalidArgument());
  EXPECT_EQ(batch.Count(), 1u);
  EXPECT_TRUE(batch.Data() == before);
  ExpectUnchanged(model, seq, {"b", "c"});
  Reopen();
  ExpectUnchanged(model, seq, {"b", "c"});
}

// SstFileWriter refuses a key or value one byte over, and a file written up to the refusal is
// abandoned (ingesting nothing); BulkLoader::Add refuses them and goes on loading.
TEST_F(DBSizeLimitsTest, IngestionRefusesOneByteOver) {
  UntouchedBytes over_value(kMaxValueSize + 1);
  ASSERT_TRUE(over_value.ok());
  const std::string over_key(kMaxKeySize + 1, 'k');
  Open();
  const std::string file = root_ + "/ext.sst";
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    ASSERT_OK(writer.Put("a", "1"));
    EXPECT_TRUE(writer.Put(over_key, "v").IsInvalidArgument());
  }
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    EXPECT_TRUE(writer.Put("b", over_value.view()).IsInvalidArgument());
  }
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    EXPECT_TRUE(writer.Merge("b", over_value.view()).IsInvalidArgument());
  }
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    EXPECT_TRUE(writer.Delete(over_key).IsInvalidArgument());
  }
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    EXPECT_TRUE(writer.DeleteRange("a", over_key).IsInvalidArgument());
  }
  {
    std::unique_ptr<BulkLoader> loader;
    BulkLoaderOptions bopts;
    bopts.memory_budget = 64 << 20;
    ASSERT_OK(BulkLoader::Open(db_.get(), bopts, &loader));
    EXPECT_TRUE(loader->Add(over_key, "v").IsInvalidArgument());
    EXPECT_TRUE(loader->Add("b", over_value.view()).IsInvalidArgument());
    ASSERT_OK(loader->Add("c", "bulk"));
    ASSERT_OK(loader->Finish());
  }
  Check(db_.get(), {{"c", "bulk"}}, {"a", "b", over_key}, "after the refusals");
}

// ------------------------------------------------------------------ block sizes

// block_size and metadata_block_size up to kMaxTableBlockSizeOption open and work; one more
// is refused at Open (and by SstFileWriter) with InvalidArgument naming the option.
TEST_F(DBSizeLimitsTest, BlockSizeOptionsAtTheLimit) {
  for (int which = 0; which < 2; which++) {
    SCOPED_TRACE(which == 0 ? "block_size" : "metadata_block_size");
    const char* name = which == 0 ? "block_size" : "metadata_block_size";
    TableOptions t;
    t.index_type = TableOptions::kTwoLevelIndexSearch;
    (which == 0 ? t.block_size : t.metadata_block_size) = kMaxTableBlockSizeOption + 1;
    options_.table_options = t;
    Status s = TryOpen();
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
    db_.reset();
    {
      SstFileWriter writer(t);
      s = writer.Open(root_ + "/ext.sst");
      EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
      EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
    }

    (which == 0 ? t.block_size : t.metadata_block_size) = kMaxTableBlockSizeOption;
    options_.table_options = t;
    Open();
    Model model;
    for (int i = 0; i < 100; i++) {
      const std::string k = "key" + std::to_string(i);
      model[k] = std::string(1000, static_cast<char>('a' + i % 26));
      ASSERT_OK(db_->Put(WriteOptions(), k, model[k]));
    }
    CheckThroughEveryStage(model, {"absent"});
    Close();
    ASSERT_OK(DestroyDB(dbname_, options_));
  }
}

// ------------------------------------------------------------------ SHALE_STRESS=1 only

// Values at the value limit: kMaxValueSize - 1 and kMaxValueSize round-trip through every
// stage (and through SstFileWriter ingestion); a data block that holds a block_size's worth
// of entries when the largest value arrives still stays readable (the table builder starts a
// new block for it). Needs about 7.5 GiB of memory (peak RSS measured: 7.3 GiB, 2 minutes)
// and several GiB of disk.
TEST_F(DBSizeLimitsTest, StressValuesAtTheLimitRoundTrip) {
  if (!StressEnabled()) GTEST_SKIP() << "set SHALE_STRESS=1 to run (about 7.5 GiB of memory)";
  options_.write_buffer_size = size_t{4} << 30;
  options_.table_options.block_size = kMaxTableBlockSizeOption;
  Open();
  Model model;
  // A block's worth of entries (under the 256 MiB block_size), then the largest value: both
  // land in one memtable and one flush.
  model["a"] = std::string(200 << 20, 'a');
  ASSERT_OK(db_->Put(WriteOptions(), "a", model["a"]));
  model["b"] = std::string(kMaxValueSize, 'b');
  ASSERT_OK(db_->Put(WriteOptions(), "b", model["b"]));
  CheckThroughEveryStage(model, {"c"});
  model.erase("a");
  ASSERT_OK(db_->Delete(WriteOptions(), "a"));
  model["c"] = std::string(kMaxValueSize - 1, 'c');
  ASSERT_OK(db_->Put(WriteOptions(), "c", model["c"]));
  CheckThroughEveryStage(model, {"a"});
  // Ingestion of the largest value.
  const std::string file = root_ + "/ext.sst";
  {
    SstFileWriter writer{TableOptions()};
    ASSERT_OK(writer.Open(file));
    ASSERT_OK(writer.Put("d", model["c"]));
    ASSERT_OK(writer.Finish());
  }
  model["d"] = model["c"];
  ASSERT_OK(db_->IngestExternalFile({file}, IngestExternalFileOptions()));
  model.erase("b");
  model.erase("c");
  ASSERT_OK(db_->Delete(WriteOptions(), "b"));
  ASSERT_OK(db_->Delete(WriteOptions(), "c"));
  CheckThroughEveryStage(model, {"a", "b", "c"});
}

// A WriteBatch of exactly kMaxWriteBatchSize bytes round-trips (memtable, WAL, flush); one
// byte more is refused by the batch. Needs about 11 GiB of memory (peak RSS measured:
// 10.5 GiB, 1 minute).
TEST_F(DBSizeLimitsTest, StressBatchAtTheLimit) {
  if (!StressEnabled()) GTEST_SKIP() << "set SHALE_STRESS=1 to run (about 11 GiB of memory)";
  options_.write_buffer_size = size_t{4} << 30;
  Open();
  WriteBatch batch;
  // Three records: two of the largest value and a filler that ends the batch at the limit.
  // Each record: tag, varint32 key length (1), key (1), varint32 value length (5), value.
  ASSERT_OK(batch.Put("a", std::string(kMaxValueSize, 'a')));
  ASSERT_OK(batch.Put("b", std::string(kMaxValueSize, 'b')));
  const size_t left = kMaxWriteBatchSize - batch.GetDataSize();
  const size_t filler = left - 1 - 1 - 1 - VarintLength(left);  // close enough; adjusted below
  std::string fv(filler, 'c');
  while (1 + 1 + 1 + VarintLength(fv.size()) + fv.size() > left) fv.pop_back();
  while (1 + 1 + 1 + VarintLength(fv.size() + 1) + fv.size() + 1 <= left) fv.push_back('c');
  ASSERT_OK(batch.Put("c", fv));
  ASSERT_EQ(batch.GetDataSize(), kMaxWriteBatchSize);
  EXPECT_TRUE(batch.Delete("").IsInvalidArgument());  // 2 bytes more
  EXPECT_EQ(batch.GetDataSize(), kMaxWriteBatchSize);
  EXPECT_EQ(batch.Count(), 3u);
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  Model model{{"a", std::string(kMaxValueSize, 'a')},
              {"b", std::string(kMaxValueSize, 'b')},
              {"c", fv}};
  fv.clear();
  fv.shrink_to_fit();
  batch.Clear();
  Check(db_.get(), model, {}, "memtable");
  Reopen();
  Check(db_.get(), model, {}, "WAL replay");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Check(db_.get(), model, {}, "flushed");
  Reopen();
  Check(db_.get(), model, {}, "reopened");
}

}  // namespace
}  // namespace shale
