// IngestExternalFile under universal compaction: L0 is ordered by each file's largest sequence
// number (newest first) and a point read stops at the first L0 file holding the key, and
// universal compaction merges neighbouring L0 files into one L0 file that takes the largest
// sequence number of its inputs. An ingested file's global sequence number is newer than every
// write so far, including writes still in a memtable (on keys outside its range). Had those
// writes been left in the memtable, an L0 merge of the ingested file with an older L0 file would
// carry the new sequence number onto the older file's values, and the memtable's later flush (or
// its replay from the WAL after a crash) would land behind that merge in L0: Get would return
// the older values while an iterator, which compares sequence numbers, returned the newer ones.
// Found by shale_stress ("get: found absent, allowed {g12:put}"; a Get/iterator disagreement
// after kill -9). Ingestion therefore flushes the memtables before it puts a file into L0 there.
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr int kLevels = 3;

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%06d", i);
  return buf;
}

class DBIngestUniversalTest : public ::testing::Test {
 protected:
  DBIngestUniversalTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.compaction_style = kCompactionStyleUniversal;
    options_.num_levels = kLevels;
    options_.write_buffer_size = 4 << 20;  // flushes only when the test asks
    // No automatic compaction until the test lowers the trigger; then the newest two runs
    // merge (whatever their sizes), never everything.
    options_.level0_file_num_compaction_trigger = 100;
    options_.level0_slowdown_writes_trigger = 200;
    options_.level0_stop_writes_trigger = 300;
    options_.compaction_options_universal.size_ratio = 100000;
    options_.compaction_options_universal.max_merge_width = 2;
    options_.compaction_options_universal.max_size_amplification_percent = 100000;
    options_.file_system->CreateDirIfMissing("/ext").PermitUncheckedError();
  }
  ~DBIngestUniversalTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/db", &db_)); }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  std::string Ingest(const std::map<std::string, std::string>& entries) {
    const std::string path = "/ext/f" + std::to_string(next_file_++) + ".sst";
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                         options_.file_system);
    EXPECT_OK(writer.Open(path));
    for (const auto& [k, v] : entries) EXPECT_OK(writer.Put(k, v));
    EXPECT_OK(writer.Finish());
    return path;
  }

  std::string Get(const std::string& key) {
    std::string v;
    Status s = db_->Get(ReadOptions(), key, &v);
    if (s.IsNotFound()) return "NOT_FOUND";
    EXPECT_OK(s);
    return v;
  }
  std::string IteratorValue(const std::string& key) {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    it->Seek(key);
    EXPECT_OK(it->status());
    return it->Valid() && it->key() == key ? std::string(it->value()) : "NOT_FOUND";
  }

  uint64_t IntProperty(std::string_view name) {
    uint64_t v = 0;
    EXPECT_TRUE(db_->GetIntProperty(name, &v)) << name;
    return v;
  }
  uint64_t FilesAt(int level) {
    return IntProperty(std::string(DB::Properties::kNumFilesAtLevelPrefix) +
                       std::to_string(level));
  }
  uint64_t TotalFiles() {
    uint64_t n = 0;
    for (int l = 0; l < kLevels; l++) n += FilesAt(l);
    return n;
  }
  std::string Shape() {
    std::string out;
    for (int l = 0; l < kLevels; l++) {
      if (l > 0) out += ',';
      out += std::to_string(FilesAt(l));
    }
    return out;
  }

  // Lets automatic compactions run until none is due or running, then stops them again.
  void CompactNewestRuns(int trigger) {
    ASSERT_OK(db_->SetOptions({{"level0_file_num_compaction_trigger", std::to_string(trigger)}}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (IntProperty(DB::Properties::kNumRunningCompactions) != 0 ||
           IntProperty(DB::Properties::kCompactionPending) != 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "compactions did not settle";
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_OK(db_->SetOptions({{"level0_file_num_compaction_trigger", "100"}}));
  }

  void Put(const std::string& k, const std::string& v) {
    ASSERT_OK(db_->Put(WriteOptions(), k, v));
  }

  // L2: a large run of k000..k099; L1: k000, k099; L0: k000, k050 = "old", k099. Then "new"
  // for k050 in the memtable, and a file of k010 ingested into L0 (it overlaps the L0 file's
  // range, not the memtable's keys). Then the newest two runs merge.
  void BuildAndMerge() {
    Open();
    const std::string big(2000, 'x');
    for (int i = 0; i < 100; i++) Put(Key(i), big);
    ASSERT_OK(db_->Flush(FlushOptions()));
    Put(Key(0), "l1");
    Put(Key(99), "l1");
    ASSERT_OK(db_->Flush(FlushOptions()));
    Put(Key(0), "l0");
    Put(Key(50), "old");
    Put(Key(99), "l0");
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_EQ(Shape(), "1,1,1");
    Put(Key(50), "new");
    ASSERT_OK(db_->IngestExternalFile({Ingest({{Key(10), "ingested"}})},
                                      IngestExternalFileOptions()));
    ASSERT_EQ(Get(Key(50)), "new");
    // Runs now: ingested file, L0 file (and the memtable's flush, if ingestion made one), L1, L2.
    ASSERT_NO_FATAL_FAILURE(CompactNewestRuns(4));
    EXPECT_EQ(Get(Key(50)), "new");
    EXPECT_EQ(Get(Key(10)), "ingested");
  }

  Options options_;
  std::unique_ptr<DB> db_;
  int next_file_ = 0;
};

TEST_F(DBIngestUniversalTest, L0MergeWithAnIngestedFileKeepsLaterFlushesNewer) {
  ASSERT_NO_FATAL_FAILURE(BuildAndMerge());
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Get(Key(50)), "new");
  EXPECT_EQ(IteratorValue(Key(50)), "new");
  EXPECT_EQ(Get(Key(10)), "ingested");
  EXPECT_EQ(Get(Key(0)), "l0");
  ASSERT_NO_FATAL_FAILURE(CompactNewestRuns(2));
  EXPECT_EQ(Get(Key(50)), "new");
  EXPECT_EQ(Get(Key(99)), "l0");
}

TEST_F(DBIngestUniversalTest, L0MergeWithAnIngestedFileKeepsReplayedWritesNewer) {
  ASSERT_NO_FATAL_FAILURE(BuildAndMerge());
  // Close does not flush WAL-logged writes: the reopen replays them into a new L0 file.
  Reopen();
  EXPECT_EQ(Get(Key(50)), "new");
  EXPECT_EQ(IteratorValue(Key(50)), "new");
  EXPECT_EQ(Get(Key(10)), "ingested");
}

// The flush happens only where it is needed: universal, a file entering L0, a memtable that
// holds writes. A file that overlaps nothing goes to the bottom at sequence 0 and flushes
// nothing; leveled compaction never merges into L0 and flushes only for overlapping keys.
TEST_F(DBIngestUniversalTest, FlushesTheMemtablesOnlyBeforeAnL0Ingestion) {
  for (const CompactionStyle style : {kCompactionStyleUniversal, kCompactionStyleLevel}) {
    SCOPED_TRACE(style == kCompactionStyleUniversal ? "universal" : "level");
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
    options_.file_system = NewMemFileSystem();
    options_.file_system->CreateDirIfMissing("/ext").PermitUncheckedError();
    options_.compaction_style = style;
    options_.disable_auto_compactions = true;
    Open();
    for (int i = 0; i < 100; i += 10) Put(Key(i), "bottom");
    ASSERT_OK(db_->Flush(FlushOptions()));
    for (int i = 0; i < 100; i += 10) Put(Key(i), "l0");
    ASSERT_OK(db_->Flush(FlushOptions()));
    Put(Key(50), "mem");
    const uint64_t files = TotalFiles();
    // Beyond every key: the bottom level at sequence 0, no flush.
    ASSERT_OK(db_->IngestExternalFile({Ingest({{Key(500), "far"}})}, IngestExternalFileOptions()));
    EXPECT_EQ(TotalFiles(), files + 1);
    EXPECT_EQ(FilesAt(kLevels - 1), 2u);
    // Over the L0 file, not over the memtable's key: into L0, after a flush under universal.
    const uint64_t l0 = FilesAt(0);
    ASSERT_OK(db_->IngestExternalFile({Ingest({{Key(15), "ing"}})}, IngestExternalFileOptions()));
    EXPECT_EQ(FilesAt(0), style == kCompactionStyleUniversal ? l0 + 2 : l0 + 1);
    EXPECT_EQ(Get(Key(15)), "ing");
    EXPECT_EQ(Get(Key(50)), "mem");
    EXPECT_EQ(Get(Key(500)), "far");
  }
}

TEST_F(DBIngestUniversalTest, WithoutBlockingFlushAnL0IngestionOverAFullMemtableFails) {
  options_.disable_auto_compactions = true;
  Open();
  for (int i = 0; i < 100; i += 10) Put(Key(i), "bottom");
  ASSERT_OK(db_->Flush(FlushOptions()));
  for (int i = 0; i < 100; i += 10) Put(Key(i), "l0");
  ASSERT_OK(db_->Flush(FlushOptions()));
  Put(Key(50), "mem");
  IngestExternalFileOptions no_flush;
  no_flush.allow_blocking_flush = false;
  const std::string before = Shape();
  const uint64_t seq = db_->GetLatestSequenceNumber();
  Status s = db_->IngestExternalFile({Ingest({{Key(15), "ing"}})}, no_flush);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_blocking_flush"), std::string::npos) << s.ToString();
  EXPECT_EQ(Shape(), before);
  EXPECT_EQ(db_->GetLatestSequenceNumber(), seq);
  EXPECT_EQ(Get(Key(15)), "NOT_FOUND");
  // With the memtables empty it needs no flush.
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->IngestExternalFile({Ingest({{Key(15), "ing"}})}, no_flush));
  EXPECT_EQ(Get(Key(15)), "ing");
  EXPECT_EQ(Get(Key(50)), "mem");
}

// Writes, deletions and ingestions of random keys with universal compactions in between, each
// step checked by Get and by an iterator against a std::map. Ingested keys are mostly picked
// away from the keys written since the last flush, so the memtable usually holds older writes
// that the ingestion does not overlap: the case above.
TEST_F(DBIngestUniversalTest, RandomizedAgainstAModel) {
  Open();
  std::map<std::string, std::string> model;
  std::set<int> unflushed;  // keys written since the last flush the test knows of
  Random rnd(301);
  auto check = [&](int step) {
    for (int i = 0; i < 200; i++) {
      const auto it = model.find(Key(i));
      const std::string want = it == model.end() ? "NOT_FOUND" : it->second;
      ASSERT_EQ(Get(Key(i)), want) << "step " << step << " key " << Key(i);
    }
    std::map<std::string, std::string> seen;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen[std::string(it->key())] = it->value();
    ASSERT_OK(it->status());
    ASSERT_EQ(seen, model) << "step " << step;
  };
  for (int step = 0; step < 1500; step++) {
    std::string tag = "s";
    tag += std::to_string(step);
    const uint64_t op = rnd.Uniform(20);
    if (op < 6) {
      for (int n = 0; n < 5; n++) {
        const int i = static_cast<int>(rnd.Uniform(200));
        unflushed.insert(i);
        if (rnd.OneIn(5)) {
          ASSERT_OK(db_->Delete(WriteOptions(), Key(i)));
          model.erase(Key(i));
        } else {
          Put(Key(i), tag + ":" + Key(i));
          model[Key(i)] = tag + ":" + Key(i);
        }
      }
    } else if (op < 12) {
      int base = static_cast<int>(rnd.Uniform(190));
      for (int tries = 0; tries < 10; tries++) {
        const auto next = unflushed.lower_bound(base);
        if (next == unflushed.end() || *next >= base + 10) break;
        base = static_cast<int>(rnd.Uniform(190));
      }
      std::map<std::string, std::string> entries;
      for (int n = 0; n < 3; n++) {
        const std::string k = Key(base + static_cast<int>(rnd.Uniform(10)));
        entries[k] = tag + ":ing:" + k;
      }
      ASSERT_OK(db_->IngestExternalFile({Ingest(entries)}, IngestExternalFileOptions()));
      for (const auto& [k, v] : entries) model[k] = v;
    } else if (op < 15) {
      ASSERT_OK(db_->Flush(FlushOptions()));
      unflushed.clear();
    } else {
      ASSERT_NO_FATAL_FAILURE(CompactNewestRuns(2 + static_cast<int>(rnd.Uniform(3))));
    }
    ASSERT_NO_FATAL_FAILURE(check(step));
    if (step % 250 == 249) {
      Reopen();
      unflushed.clear();
      ASSERT_NO_FATAL_FAILURE(check(step));
    }
  }
}

}  // namespace
}  // namespace shale
