// Options::allow_ingest_behind through the DB, on the compaction side: the last level is
// reserved for ingest_behind files, so no flush, no automatic compaction (level, universal,
// FIFO) and no CompactRange writes there or reads from there; the levels above keep their
// usual shape with num_levels - 2 as the bottom; deletion tombstones survive every compaction
// (facebook/rocksdb#13571); the option's validation and CompactRange's target_level rule.
// The test that ingests behind (through DB::IngestExternalFile) checks that a tombstone written
// before an ingest_behind still hides the ingested value, and that no compaction touches the
// ingested file.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compaction/db_shape_util.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using test::ListFiles;
using test::SstInfo;

std::string Key(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%06u", static_cast<unsigned>(i));
  return buf;
}

class DBIngestBehindCompactionTest : public ::testing::Test {
 protected:
  DBIngestBehindCompactionTest() { Reset(); }
  ~DBIngestBehindCompactionTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }

  // A fresh file system and the test's options (4 levels: L3 is reserved).
  void Reset() {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
    db_.reset();
    model_.clear();
    options_ = Options();
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.target_file_size_base = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
    options_.num_levels = 4;
    options_.allow_ingest_behind = true;
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }
  int Reserved() const { return options_.num_levels - 1; }

  // `ops` random puts and `delete_pct` percent deletes over keys [0, key_space).
  void Load(Random* rnd, int ops, uint64_t key_space, int delete_pct) {
    for (int i = 0; i < ops; i++) {
      const std::string key = Key(rnd->Uniform(key_space));
      if (static_cast<int>(rnd->Uniform(100)) < delete_pct) {
        ASSERT_OK(db_->Delete(WriteOptions(), key));
        model_.erase(key);
      } else {
        std::string value = std::to_string(rnd->Next32()) + ":";
        value.resize(100, static_cast<char>('a' + rnd->Uniform(26)));
        ASSERT_OK(db_->Put(WriteOptions(), key, value));
        model_[key] = value;
      }
    }
  }

  // A full scan gives the model, and Gets of a sample and of deleted keys agree with it.
  void ExpectDataIntact(uint64_t key_space) {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model_.end()) << "extra key " << it->key();
      ASSERT_EQ(it->key(), m->first);
      ASSERT_EQ(it->value(), m->second) << m->first;
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(m, model_.end()) << "missing key " << m->first;
    it.reset();
    for (uint64_t i = 0; i < key_space; i += 7) {
      std::string got;
      const Status s = db_->Get(ReadOptions(), Key(i), &got);
      auto want = model_.find(Key(i));
      if (want == model_.end()) {
        ASSERT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString();
      } else {
        ASSERT_OK(s);
        ASSERT_EQ(got, want->second) << Key(i);
      }
    }
  }

  std::vector<uint64_t> LevelBytes() {
    return test::LevelBytes(ListFiles(db_.get()), options_.num_levels);
  }
  std::string Shape() { return test::ShapeString(ListFiles(db_.get()), options_.num_levels); }
  uint64_t FilesAt(int level) {
    return test::IntProperty(
        db_.get(), std::string(DB::Properties::kNumFilesAtLevelPrefix) + std::to_string(level));
  }
  void Settle() {
    const test::SettleResult r = test::WaitForCompactions(db_.get());
    EXPECT_TRUE(r.settled) << "compaction did not settle: " << Shape();
  }
  Status CompactAll(CompactRangeOptions cro = CompactRangeOptions()) {
    return db_->CompactRange(cro, nullptr, nullptr);
  }
  // Tombstones (point, range) in the table files.
  std::pair<uint64_t, uint64_t> Tombstones() {
    uint64_t points = 0, ranges = 0;
    for (const SstInfo& f : ListFiles(db_.get())) {
      points += f.deletions;
      ranges += f.range_deletions;
    }
    return {points, ranges};
  }

  // Random writes with deletes, automatic compactions, then a full CompactRange: the reserved
  // level stays empty at every step and the data matches the model.
  void LoadCompactAndCheck(int ops, uint64_t key_space) {
    Random rnd(301);
    for (int round = 0; round < 4; round++) {
      Load(&rnd, ops / 4, key_space, 10);
      ASSERT_EQ(FilesAt(Reserved()), 0u) << "round " << round << ": " << Shape();
    }
    Settle();
    ASSERT_EQ(FilesAt(Reserved()), 0u) << Shape();
    ASSERT_OK(CompactAll());
    Settle();
    EXPECT_EQ(FilesAt(Reserved()), 0u) << Shape();
    test::ExpectLevelsSortedAndDisjoint(ListFiles(db_.get()));
    ExpectDataIntact(key_space);
    Reopen();
    EXPECT_EQ(FilesAt(Reserved()), 0u) << Shape();
    ExpectDataIntact(key_space);
  }

  static constexpr const char* kDb = "/ingest_behind";
  Options options_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

// ---------------------------------------------------------------- Nothing writes the last level

TEST_F(DBIngestBehindCompactionTest, LevelStyleKeepsOutOfTheLastLevel) {
  Open();
  LoadCompactAndCheck(16000, 8000);
  // A full CompactRange leaves everything in the last writable level.
  const std::vector<uint64_t> bytes = LevelBytes();
  EXPECT_GT(bytes[Reserved() - 1], 0u) << Shape();
  for (int level = 0; level < Reserved() - 1; level++) EXPECT_EQ(bytes[level], 0u) << Shape();
}

TEST_F(DBIngestBehindCompactionTest, DynamicLevelTargetsTreatTheLevelAboveAsTheBottom) {
  options_.num_levels = 5;
  Open();
  Random rnd(7);
  Load(&rnd, 24000, 20000, 5);
  Settle();
  const std::vector<uint64_t> bytes = LevelBytes();
  uint64_t below_l0 = 0;
  for (int level = 1; level < options_.num_levels; level++) below_l0 += bytes[level];
  EXPECT_EQ(bytes[Reserved()], 0u) << Shape();
  EXPECT_GE(bytes[Reserved() - 1] * 10, below_l0 * 8)
      << "most data sits in the last writable level: " << Shape();
  ExpectDataIntact(20000);
}

TEST_F(DBIngestBehindCompactionTest, SortedFlushesStopAboveTheLastLevel) {
  // Without the option, a flush of keys that overlap nothing goes to the last level.
  for (const bool reserve : {false, true}) {
    SCOPED_TRACE(reserve ? "allow_ingest_behind" : "without the option");
    Reset();
    options_.disable_auto_compactions = true;
    options_.allow_ingest_behind = reserve;
    Open();
    for (int batch = 0; batch < 3; batch++) {
      for (int i = 0; i < 200; i++) {
        ASSERT_OK(db_->Put(WriteOptions(), Key(batch * 1000 + i), std::string(100, 'v')));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    EXPECT_EQ(FilesAt(Reserved()), reserve ? 0u : 3u) << Shape();
    EXPECT_EQ(FilesAt(Reserved() - 1), reserve ? 3u : 0u) << Shape();
  }
}

TEST_F(DBIngestBehindCompactionTest, UniversalStyleKeepsOutOfTheLastLevel) {
  options_.compaction_style = kCompactionStyleUniversal;
  Open();
  LoadCompactAndCheck(16000, 8000);
  EXPECT_GT(LevelBytes()[Reserved() - 1], 0u) << Shape();
}

TEST_F(DBIngestBehindCompactionTest, FifoStyleKeepsOutOfTheLastLevel) {
  options_.compaction_style = kCompactionStyleFIFO;
  options_.compaction_options_fifo.max_table_files_size = 64 << 20;  // nothing ages out
  Open();
  LoadCompactAndCheck(8000, 4000);
}

// ---------------------------------------------------------------- Tombstones stay

// The core of facebook/rocksdb#13571: a full compaction with nothing below would drop the
// deletions, but with allow_ingest_behind older values may still be ingested below them.
TEST_F(DBIngestBehindCompactionTest, FullCompactionKeepsTombstones) {
  for (const CompactionStyle style : {kCompactionStyleLevel, kCompactionStyleUniversal}) {
    for (const bool reserve : {false, true}) {
      SCOPED_TRACE(std::string(style == kCompactionStyleLevel ? "level" : "universal") +
                   (reserve ? ", allow_ingest_behind" : ", without the option"));
      Reset();
      options_.compaction_style = style;
      options_.allow_ingest_behind = reserve;
      Open();
      for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "v"));
      ASSERT_OK(db_->Flush(FlushOptions()));
      ASSERT_OK(db_->Delete(WriteOptions(), Key(5)));
      ASSERT_OK(db_->SingleDelete(WriteOptions(), Key(6)));
      ASSERT_OK(db_->DeleteRange(WriteOptions(), Key(50), Key(60)));
      ASSERT_OK(CompactAll());
      const auto [points, ranges] = Tombstones();
      if (reserve) {
        EXPECT_EQ(points, 2u) << "point tombstones dropped";
        EXPECT_EQ(ranges, 1u) << "range tombstone dropped";
      } else {
        EXPECT_EQ(points, 0u);
        EXPECT_EQ(ranges, 0u);
      }
      std::string got;
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(5), &got).IsNotFound());
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(6), &got).IsNotFound());
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(55), &got).IsNotFound());
      EXPECT_OK(db_->Get(ReadOptions(), Key(60), &got));
      // Sequence numbers stay real (an entry at 0 would tie with ingested-behind entries).
      for (const SstInfo& f : ListFiles(db_.get())) EXPECT_GT(f.smallest_seq, 0u);
    }
  }
}

// ---------------------------------------------------------------- Rules

TEST_F(DBIngestBehindCompactionTest, CompactRangeTargetLevel) {
  // (Automatic compaction would move files left above the base level back down.)
  options_.disable_auto_compactions = true;
  Open();
  Random rnd(3);
  Load(&rnd, 3000, 2000, 0);
  CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = Reserved();
  const Status s = CompactAll(cro);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("target_level"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_ingest_behind"), std::string::npos) << s.ToString();
  EXPECT_EQ(FilesAt(Reserved()), 0u);

  cro.target_level = -1;  // the lowest level: the last writable one
  ASSERT_OK(CompactAll(cro));
  EXPECT_EQ(FilesAt(Reserved()), 0u) << Shape();
  EXPECT_GT(FilesAt(Reserved() - 1), 0u) << Shape();

  cro.target_level = 1;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;  // all sits in L2 now
  ASSERT_OK(CompactAll(cro));
  EXPECT_EQ(FilesAt(Reserved()), 0u) << Shape();
  EXPECT_EQ(FilesAt(Reserved() - 1), 0u) << Shape();
  EXPECT_GT(FilesAt(1), 0u) << Shape();
  ExpectDataIntact(2000);
}

TEST_F(DBIngestBehindCompactionTest, RequiresThreeLevels) {
  // (Under universal compaction num_levels is raised to 3 instead, as RocksDB does:
  // test/options/options_sanitize_test.cc.)
  for (const CompactionStyle style : {kCompactionStyleLevel, kCompactionStyleFIFO,
                                      kCompactionStyleNone}) {
    Reset();
    options_.compaction_style = style;
    options_.num_levels = 2;
    Status s = options_.Validate();
    ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("allow_ingest_behind"), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find("num_levels >= 3"), std::string::npos) << s.ToString();
    s = DB::Open(options_, kDb, &db_);
    ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("allow_ingest_behind"), std::string::npos) << s.ToString();
    EXPECT_EQ(db_, nullptr);
    options_.allow_ingest_behind = false;
    EXPECT_OK(options_.Validate());
  }
  // Three levels: L0, one sorted level, the reserved one.
  Reset();
  options_.num_levels = 3;
  Open();
  LoadCompactAndCheck(8000, 4000);
  EXPECT_GT(FilesAt(1), 0u) << Shape();
}

// The option may be turned on for an existing DB: what the last level holds then counts as
// ingested behind and is never compacted again.
TEST_F(DBIngestBehindCompactionTest, TurnedOnLater) {
  options_.allow_ingest_behind = false;
  Open();
  Random rnd(11);
  Load(&rnd, 4000, 2000, 0);
  ASSERT_OK(CompactAll());
  const std::vector<SstInfo> before = ListFiles(db_.get());
  ASSERT_FALSE(before.empty());
  for (const SstInfo& f : before) ASSERT_EQ(f.level, Reserved()) << Shape();
  ASSERT_OK(db_->Close());
  db_.reset();
  options_.allow_ingest_behind = true;
  Open();
  Load(&rnd, 8000, 2000, 10);
  ASSERT_OK(CompactAll());
  Settle();
  std::vector<uint64_t> last_level;
  for (const SstInfo& f : ListFiles(db_.get())) {
    if (f.level == Reserved()) last_level.push_back(f.number);
  }
  std::vector<uint64_t> expected;
  for (const SstInfo& f : before) expected.push_back(f.number);
  EXPECT_EQ(last_level, expected) << "the old last level was rewritten: " << Shape();
  ExpectDataIntact(2000);
}

// FIFO neither counts the reserved level against its size bound nor deletes from it. (Ingestion
// refuses ingest_behind with FIFO, so the level is filled by another style, then reopened.)
TEST_F(DBIngestBehindCompactionTest, FifoLeavesTheLastLevelAlone) {
  options_.allow_ingest_behind = false;
  Open();
  Random rnd(13);
  Load(&rnd, 5000, 5000, 0);  // ~500 KB
  ASSERT_OK(CompactAll());
  const std::vector<SstInfo> before = ListFiles(db_.get());
  ASSERT_FALSE(before.empty());
  for (const SstInfo& f : before) ASSERT_EQ(f.level, Reserved()) << Shape();
  ASSERT_OK(db_->Close());
  db_.reset();
  options_.compaction_style = kCompactionStyleFIFO;
  options_.compaction_options_fifo.max_table_files_size = 256 << 10;
  options_.allow_ingest_behind = true;
  Open();
  Settle();
  EXPECT_EQ(ListFiles(db_.get()).size(), before.size()) << "FIFO deleted reserved files";
  for (int i = 0; i < 3000; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(100000 + i), std::string(100, 'n')));
  }
  ASSERT_OK(CompactAll());
  Settle();
  std::vector<uint64_t> last_level;
  uint64_t above = 0;
  for (const SstInfo& f : ListFiles(db_.get())) {
    if (f.level == Reserved()) {
      last_level.push_back(f.number);
    } else {
      above += f.size;
    }
  }
  std::vector<uint64_t> expected;
  for (const SstInfo& f : before) expected.push_back(f.number);
  EXPECT_EQ(last_level, expected) << Shape();
  EXPECT_LE(above, options_.compaction_options_fifo.max_table_files_size) << Shape();
  EXPECT_GT(above, 0u) << Shape();
  for (const auto& [key, value] : model_) {  // the first load, all in the reserved level
    std::string got;
    ASSERT_OK(db_->Get(ReadOptions(), key, &got));
    ASSERT_EQ(got, value) << key;
  }
}

// ---------------------------------------------------------------- With ingest_behind

class DBIngestBehindTest : public DBIngestBehindCompactionTest {
 protected:
  // Writes an SST of `kv` (sorted by key; an empty value means a deletion) and ingests it
  // behind everything.
  Status IngestBehind(const std::string& name, const std::map<std::string, std::string>& kv) {
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                         options_.file_system);
    const std::string path = std::string("/") + name + ".sst";
    Status s = writer.Open(path);
    for (auto it = kv.begin(); s.ok() && it != kv.end(); ++it) {
      s = it->second.empty() ? writer.Delete(it->first) : writer.Put(it->first, it->second);
    }
    if (s.ok()) s = writer.Finish();
    if (!s.ok()) return s;
    IngestExternalFileOptions ifo;
    ifo.ingest_behind = true;
    return db_->IngestExternalFile({path}, ifo);
  }
  // The numbers of the files in the reserved level.
  std::vector<uint64_t> ReservedFiles() {
    std::vector<uint64_t> r;
    for (const SstInfo& f : ListFiles(db_.get())) {
      if (f.level == Reserved()) r.push_back(f.number);
    }
    return r;
  }
};

// Deleted before the ingestion, still deleted after it, and after any compaction.
TEST_F(DBIngestBehindTest, TombstoneHidesWhatIsIngestedBehindLater) {
  for (const CompactionStyle style : {kCompactionStyleLevel, kCompactionStyleUniversal}) {
    SCOPED_TRACE(style == kCompactionStyleLevel ? "level" : "universal");
    Reset();
    options_.compaction_style = style;
    Open();
    for (int i = 0; i < 20; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "new"));
    ASSERT_OK(db_->Delete(WriteOptions(), Key(5)));
    ASSERT_OK(db_->DeleteRange(WriteOptions(), Key(10), Key(12)));
    ASSERT_OK(CompactAll());
    std::map<std::string, std::string> old;
    for (int i = 0; i < 40; i++) old[Key(i)] = "old";
    const Status s = IngestBehind("old", old);
    ASSERT_OK(s);
    const std::vector<uint64_t> ingested = ReservedFiles();
    ASSERT_EQ(ingested.size(), 1u) << Shape();
    for (int pass = 0; pass < 2; pass++) {
      SCOPED_TRACE(pass == 0 ? "after the ingestion" : "after more writes and compactions");
      std::string got;
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(5), &got).IsNotFound()) << got;
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(10), &got).IsNotFound()) << got;
      EXPECT_TRUE(db_->Get(ReadOptions(), Key(11), &got).IsNotFound()) << got;
      ASSERT_OK(db_->Get(ReadOptions(), Key(4), &got));
      EXPECT_EQ(got, model_.count(Key(4)) ? model_[Key(4)] : "new");
      ASSERT_OK(db_->Get(ReadOptions(), Key(30), &got));
      EXPECT_EQ(got, "old");
      EXPECT_EQ(ReservedFiles(), ingested) << "the ingested file was compacted: " << Shape();
      Random rnd(5);
      Load(&rnd, 6000, 20, 0);  // keys k000000..k000019 only (the model tracks them)
      for (int i = 0; i < 20; i++) {
        if (i == 5 || i == 10 || i == 11) ASSERT_OK(db_->Delete(WriteOptions(), Key(i)));
      }
      ASSERT_OK(CompactAll());
      Settle();
    }
  }
}

}  // namespace
}  // namespace shale
