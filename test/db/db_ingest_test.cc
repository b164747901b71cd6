// DB::IngestExternalFile: where files land (empty DB, below existing data, over the memtable,
// over L0, behind everything), which sequence number they read with (snapshots, overlapping
// files of one call, reopen), all-or-nothing under injected failures at each step, and each kind
// of bad input refused with the DB unchanged. A randomized test compares the DB with a
// std::map across ingestions, writes, snapshots, compactions and reopens.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;
using FI = FaultInjectionFileSystem;

constexpr int kNumLevels = 7;

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%06d", i);
  return buf;
}

// An entry of an external file: a value, or a deletion when nullopt.
using Entries = std::map<std::string, std::optional<std::string>>;

class DBIngestTest : public ::testing::Test {
 protected:
  DBIngestTest() : fs_(std::make_shared<FI>(NewMemFileSystem())) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.num_levels = kNumLevels;
    options_.write_buffer_size = 256 << 10;
    fs_->CreateDirIfMissing("/ext").PermitUncheckedError();
  }
  ~DBIngestTest() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/db", &db_)); }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  // Writes an external file with `entries` (and range deletions [b, e)); returns its path.
  std::string WriteFile(const std::string& name, const Entries& entries,
                        const std::vector<std::pair<std::string, std::string>>& range_dels = {},
                        const Comparator* cmp = BytewiseComparator()) {
    const std::string path = "/ext/" + name;
    SstFileWriter writer(TableOptions(), kNoCompression, cmp, fs_);
    EXPECT_OK(writer.Open(path));
    for (const auto& [k, v] : entries) {
      if (v.has_value()) {
        EXPECT_OK(writer.Put(k, *v));
      } else {
        EXPECT_OK(writer.Delete(k));
      }
    }
    for (const auto& [b, e] : range_dels) EXPECT_OK(writer.DeleteRange(b, e));
    EXPECT_OK(writer.Finish());
    return path;
  }

  // A file with keys [begin, end) (step `step`), values "<tag>:<key>".
  std::string WriteRange(const std::string& name, int begin, int end, const std::string& tag,
                         int step = 1) {
    Entries e;
    for (int i = begin; i < end; i += step) e[Key(i)] = tag + ":" + Key(i);
    return WriteFile(name, e);
  }

  Status Ingest(const std::vector<std::string>& files,
                IngestExternalFileOptions o = IngestExternalFileOptions()) {
    return db_->IngestExternalFile(files, o);
  }

  std::string Get(const std::string& key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    Status s = db_->Get(ro, key, &v);
    if (s.IsNotFound()) return "NOT_FOUND";
    EXPECT_OK(s);
    return v;
  }

  uint64_t FilesAt(int level) {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty(
        std::string(DB::Properties::kNumFilesAtLevelPrefix) + std::to_string(level), &n));
    return n;
  }
  std::string Shape() {
    std::string out;
    for (int l = 0; l < kNumLevels; l++) out += (l ? "," : "") + std::to_string(FilesAt(l));
    return out;
  }

  Model Scan(const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    Model m;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    for (it->SeekToFirst(); it->Valid(); it->Next()) m[std::string(it->key())] = it->value();
    EXPECT_OK(it->status());
    // Backwards too, and a few seeks, so the global-sequence iterator's every move is used.
    Model back;
    for (it->SeekToLast(); it->Valid(); it->Prev()) back[std::string(it->key())] = it->value();
    EXPECT_OK(it->status());
    EXPECT_EQ(m, back);
    for (const auto& [k, v] : m) {
      it->Seek(k);
      EXPECT_TRUE(it->Valid() && it->key() == k) << k;
      it->SeekForPrev(k);
      EXPECT_TRUE(it->Valid() && it->key() == k) << k;
      break;
    }
    return m;
  }

  // The DB's files except WALs: a flush returns once its table is installed, and the WAL it
  // made obsolete is deleted in the background a moment later, which no ingestion changes.
  std::vector<std::string> DBFiles() {
    std::vector<std::string> names;
    EXPECT_OK(fs_->GetChildren("/db", &names));
    names.erase(std::remove_if(names.begin(), names.end(),
                               [](const std::string& n) { return n.ends_with(".log"); }),
                names.end());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::shared_ptr<FI> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// ------------------------------------------------------------------ Placement

TEST_F(DBIngestTest, IntoEmptyDBGoesToTheBottomLevelWithSequenceZero) {
  Open();
  const std::string f = WriteRange("a.sst", 0, 100, "ext");
  const uint64_t before = db_->GetLatestSequenceNumber();
  ASSERT_OK(Ingest({f}));
  EXPECT_EQ(Shape(), "0,0,0,0,0,0,1");
  EXPECT_EQ(db_->GetLatestSequenceNumber(), before);  // no sequence consumed
  EXPECT_EQ(Get(Key(0)), "ext:" + Key(0));
  EXPECT_EQ(Get(Key(99)), "ext:" + Key(99));
  EXPECT_EQ(Scan().size(), 100u);
  EXPECT_OK(fs_->FileExists(f));  // copied, not moved
  Reopen();
  EXPECT_EQ(Get(Key(50)), "ext:" + Key(50));
}

TEST_F(DBIngestTest, BelowExistingDataAndAboveWhatItOverlaps) {
  options_.disable_auto_compactions = true;  // keep the shape to look at
  Open();
  for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_EQ(Shape(), "0,0,0,0,0,0,1");
  // Disjoint from the DB's keys: the bottom level too, at sequence 0.
  ASSERT_OK(Ingest({WriteRange("hi.sst", 200, 300, "hi")}));
  EXPECT_EQ(Shape(), "0,0,0,0,0,0,2");
  // Overlapping the bottom level: just above it, newer than the DB's values.
  const uint64_t before = db_->GetLatestSequenceNumber();
  ASSERT_OK(Ingest({WriteRange("mid.sst", 50, 150, "mid")}));
  EXPECT_EQ(Shape(), "0,0,0,0,0,1,2");
  EXPECT_EQ(db_->GetLatestSequenceNumber(), before + 1);
  EXPECT_EQ(Get(Key(49)), "db");
  EXPECT_EQ(Get(Key(50)), "mid:" + Key(50));
  EXPECT_EQ(Get(Key(149)), "mid:" + Key(149));
  EXPECT_EQ(Get(Key(250)), "hi:" + Key(250));
  // A write after the ingestion is newer still.
  ASSERT_OK(db_->Put(WriteOptions(), Key(60), "later"));
  EXPECT_EQ(Get(Key(60)), "later");
  Reopen();
  EXPECT_EQ(Get(Key(60)), "later");
  EXPECT_EQ(Get(Key(61)), "mid:" + Key(61));
  // Compaction keeps the newest of each key.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  Model m = Scan();
  EXPECT_EQ(m.size(), 250u);
  EXPECT_EQ(m[Key(60)], "later");
  EXPECT_EQ(m[Key(70)], "mid:" + Key(70));
  EXPECT_EQ(m[Key(10)], "db");
}

TEST_F(DBIngestTest, OverlappingTheMemtableFlushesFirstOrFails) {
  options_.disable_auto_compactions = true;  // keep the shape to look at
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), Key(5), "mem"));
  ASSERT_OK(db_->Put(WriteOptions(), Key(500), "other"));
  const std::string f = WriteRange("a.sst", 0, 10, "ext");
  IngestExternalFileOptions no_flush;
  no_flush.allow_blocking_flush = false;
  Status s = Ingest({f}, no_flush);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_blocking_flush"), std::string::npos);
  EXPECT_EQ(Get(Key(5)), "mem");
  EXPECT_EQ(Get(Key(4)), "NOT_FOUND");
  EXPECT_EQ(Shape(), "0,0,0,0,0,0,0");
  // Allowed: the memtable is flushed, and the file lands above it, newer.
  ASSERT_OK(Ingest({f}));
  EXPECT_EQ(Get(Key(5)), "ext:" + Key(5));
  EXPECT_EQ(Get(Key(500)), "other");
  EXPECT_EQ(Shape(), "0,0,0,0,0,1,1");  // the flushed memtable at the bottom, the file above
  Reopen();
  EXPECT_EQ(Get(Key(5)), "ext:" + Key(5));
}

TEST_F(DBIngestTest, MemtableRangeDeletionCountsAsOverlap) {
  Open();
  ASSERT_OK(db_->DeleteRange(WriteOptions(), Key(0), Key(100)));
  IngestExternalFileOptions no_flush;
  no_flush.allow_blocking_flush = false;
  EXPECT_TRUE(Ingest({WriteRange("a.sst", 10, 20, "ext")}, no_flush).IsInvalidArgument());
  ASSERT_OK(Ingest({WriteRange("b.sst", 10, 20, "ext")}));
  EXPECT_EQ(Get(Key(10)), "ext:" + Key(10));  // newer than the range deletion
}

TEST_F(DBIngestTest, OverlappingL0GoesToL0AsNewest) {
  options_.disable_auto_compactions = true;
  Open();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 50; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), "r" + std::to_string(round)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  const uint64_t l0 = FilesAt(0);
  ASSERT_GE(l0, 1u);
  ASSERT_OK(Ingest({WriteRange("a.sst", 20, 30, "ext")}));
  EXPECT_EQ(FilesAt(0), l0 + 1);
  EXPECT_EQ(Get(Key(19)), "r2");
  EXPECT_EQ(Get(Key(20)), "ext:" + Key(20));
  Reopen();
  EXPECT_EQ(Get(Key(25)), "ext:" + Key(25));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Get(Key(25)), "ext:" + Key(25));
  EXPECT_EQ(Get(Key(35)), "r2");
}

TEST_F(DBIngestTest, DeletionsAndRangeDeletionsInAFileApplyToOlderData) {
  Open();
  for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  Entries e;
  e[Key(3)] = std::nullopt;
  e[Key(4)] = "ext";
  e[Key(60)] = "inside-own-range-deletion";
  ASSERT_OK(Ingest({WriteFile("d.sst", e, {{Key(50), Key(70)}})}));
  EXPECT_EQ(Get(Key(3)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(4)), "ext");
  EXPECT_EQ(Get(Key(55)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(70)), "db");
  // A range deletion does not delete a point entry of its own file (same sequence).
  EXPECT_EQ(Get(Key(60)), "inside-own-range-deletion");
  Model m = Scan();
  EXPECT_EQ(m.size(), 100u - 1 - 20 + 1);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Scan(), m);
  Reopen();
  EXPECT_EQ(Scan(), m);
}

TEST_F(DBIngestTest, OverlappingFilesOfOneCallGetOneSequenceEachInOrder) {
  Open();
  const std::string a = WriteRange("a.sst", 0, 100, "a");
  const std::string b = WriteRange("b.sst", 50, 150, "b");
  const uint64_t before = db_->GetLatestSequenceNumber();
  ASSERT_OK(Ingest({a, b}));
  EXPECT_EQ(db_->GetLatestSequenceNumber(), before + 2);
  EXPECT_EQ(FilesAt(0), 2u);
  EXPECT_EQ(Get(Key(10)), "a:" + Key(10));
  EXPECT_EQ(Get(Key(60)), "b:" + Key(60));  // the later file wins
  Reopen();
  EXPECT_EQ(Get(Key(60)), "b:" + Key(60));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Get(Key(60)), "b:" + Key(60));
  EXPECT_EQ(Scan().size(), 150u);
}

TEST_F(DBIngestTest, DisjointFilesOfOneCallAllGoDown) {
  Open();
  ASSERT_OK(Ingest({WriteRange("b.sst", 100, 200, "b"), WriteRange("a.sst", 0, 100, "a"),
                    WriteRange("c.sst", 200, 300, "c")}));
  EXPECT_EQ(Shape(), "0,0,0,0,0,0,3");
  EXPECT_EQ(Scan().size(), 300u);
}

TEST_F(DBIngestTest, SnapshotsTakenBeforeDoNotSeeTheFile) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "zzz", "db"));
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_OK(Ingest({WriteRange("a.sst", 0, 10, "ext")}));
  EXPECT_EQ(Get(Key(1), snap), "NOT_FOUND");
  EXPECT_EQ(Get(Key(1)), "ext:" + Key(1));
  EXPECT_EQ(Scan(snap).size(), 1u);
  EXPECT_EQ(Scan().size(), 11u);
  // Without snapshot_consistency a disjoint file keeps sequence 0: old snapshots see it.
  IngestExternalFileOptions o;
  o.snapshot_consistency = false;
  ASSERT_OK(Ingest({WriteRange("b.sst", 20, 30, "ext")}, o));
  EXPECT_EQ(Get(Key(21), snap), "ext:" + Key(21));
  db_->ReleaseSnapshot(snap);
}

TEST_F(DBIngestTest, NoGlobalSeqnoAllowedFailsWhenOneIsNeeded) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), Key(5), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  IngestExternalFileOptions o;
  o.allow_global_seqno = false;
  Status s = Ingest({WriteRange("a.sst", 0, 10, "ext")}, o);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(Get(Key(5)), "db");
  // A disjoint file needs none.
  ASSERT_OK(Ingest({WriteRange("b.sst", 100, 110, "ext")}, o));
  EXPECT_EQ(Get(Key(100)), "ext:" + Key(100));
}

TEST_F(DBIngestTest, MoveFilesLinksAndRemovesTheOriginal) {
  Open();
  const std::string f = WriteRange("a.sst", 0, 10, "ext");
  IngestExternalFileOptions o;
  o.move_files = true;
  ASSERT_OK(Ingest({f}, o));
  EXPECT_TRUE(fs_->FileExists(f).IsNotFound());
  EXPECT_EQ(fs_->OpCount(FI::OpKind::kLink), 1u);
  EXPECT_EQ(Get(Key(3)), "ext:" + Key(3));
  Reopen();
  EXPECT_EQ(Get(Key(3)), "ext:" + Key(3));
}

TEST_F(DBIngestTest, MoveFallsBackToCopyWhenLinkingFails) {
  Open();
  const std::string f = WriteRange("a.sst", 0, 10, "ext");
  fs_->InjectError(FI::OpKind::kLink, 1, FaultIOError("EXDEV"));
  IngestExternalFileOptions o;
  o.move_files = true;
  ASSERT_OK(Ingest({f}, o));
  EXPECT_TRUE(fs_->FileExists(f).IsNotFound());
  EXPECT_EQ(Get(Key(3)), "ext:" + Key(3));
}

TEST_F(DBIngestTest, IngestBehindGoesBelowEverythingAndLosesToTheDB) {
  options_.allow_ingest_behind = true;
  Open();
  for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Delete(WriteOptions(), Key(7)));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(FilesAt(kNumLevels - 1), 0u);  // reserved for files ingested behind
  ASSERT_OK(db_->Put(WriteOptions(), Key(8), "mem"));  // the memtable may overlap too
  IngestExternalFileOptions o;
  o.ingest_behind = true;
  ASSERT_OK(Ingest({WriteRange("behind.sst", 0, 200, "old")}, o));
  EXPECT_EQ(FilesAt(kNumLevels - 1), 1u);
  EXPECT_EQ(Get(Key(5)), "db");        // the DB's value wins
  EXPECT_EQ(Get(Key(7)), "NOT_FOUND");  // the DB's deletion hides the older value
  EXPECT_EQ(Get(Key(8)), "mem");
  EXPECT_EQ(Get(Key(150)), "old:" + Key(150));
  // The last level takes no overlapping second file.
  Status s = Ingest({WriteRange("behind2.sst", 150, 250, "old2")}, o);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_OK(Ingest({WriteRange("behind3.sst", 300, 400, "old3")}, o));
  EXPECT_EQ(FilesAt(kNumLevels - 1), 2u);
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  Reopen();
  EXPECT_EQ(Get(Key(5)), "db");
  EXPECT_EQ(Get(Key(7)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(8)), "mem");
  EXPECT_EQ(Get(Key(199)), "old:" + Key(199));
  EXPECT_EQ(Scan().size(), 99u + 100u + 100u);
}

// ------------------------------------------------------------------ Bad input

// Merge operands in an external file apply on top of what the DB holds for their keys (the file
// gets a global sequence number above it), or on nothing when the file lands below everything;
// a DB without a merge operator refuses such a file and stays unchanged.
TEST_F(DBIngestTest, MergeOperandsInAFileApplyOnTopOfTheDB) {
  auto write_operands = [&](const std::string& name,
                            const std::vector<std::pair<std::string, std::string>>& ops) {
    const std::string path = "/ext/" + name;
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
    EXPECT_OK(writer.Open(path));
    for (const auto& [k, v] : ops) {
      if (k == "d") {
        EXPECT_OK(writer.Put(k, v));
      } else {
        EXPECT_OK(writer.Merge(k, v));
      }
    }
    EXPECT_OK(writer.Finish());
    return path;
  };
  // Without a merge operator: refused, nothing changes.
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "base"));
  const std::string refused = write_operands("refused.sst", {{"a", "m1"}});
  Status s = Ingest({refused});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("merge operator"), std::string::npos) << s.ToString();
  EXPECT_EQ(Get("a"), "base");
  ASSERT_OK(db_->Close());
  db_.reset();

  options_.merge_operator = std::make_shared<test::JoinOperator>();
  Open();
  ASSERT_OK(db_->Merge(WriteOptions(), "b", "x"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  const std::string over = write_operands(
      "over.sst", {{"a", "m1"}, {"b", "m2"}, {"c", "m3"}, {"d", "v"}});
  ASSERT_OK(Ingest({over}));
  auto check = [&] {
    EXPECT_EQ(Get("a"), "base,m1");
    EXPECT_EQ(Get("b"), "x,m2");
    EXPECT_EQ(Get("c"), "m3");
    EXPECT_EQ(Get("d"), "v");
  };
  check();
  ASSERT_OK(db_->Merge(WriteOptions(), "c", "later"));
  EXPECT_EQ(Get("c"), "m3,later");
  CompactRangeOptions co;
  co.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db_->CompactRange(co, nullptr, nullptr));
  EXPECT_EQ(Get("c"), "m3,later");
  Reopen();
  EXPECT_EQ(Get("a"), "base,m1");
  EXPECT_EQ(Get("b"), "x,m2");
  EXPECT_EQ(Get("c"), "m3,later");

  // A file below everything (keys the DB does not have): operands on nothing.
  const std::string below = write_operands("below.sst", {{"p", "q1"}});
  ASSERT_OK(Ingest({below}));
  EXPECT_EQ(Get("p"), "q1");
}

TEST_F(DBIngestTest, BadInputIsRefusedAndChangesNothing) {
  Open();
  for (int i = 0; i < 20; i++) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  const Model before = Scan();
  const std::vector<std::string> files_before = DBFiles();
  auto expect_refused = [&](const std::vector<std::string>& files, const char* what,
                            bool (*kind)(const Status&), const char* mentions) {
    SCOPED_TRACE(what);
    Status s = Ingest(files);
    EXPECT_TRUE(kind(s)) << s.ToString();
    EXPECT_NE(s.ToString().find(mentions), std::string::npos) << s.ToString();
    EXPECT_EQ(Scan(), before);
    EXPECT_EQ(DBFiles(), files_before);
  };
  const std::string good = WriteRange("good.sst", 100, 110, "ext");

  // A missing file, alone or after a good one.
  expect_refused({good, "/ext/missing.sst"}, "missing", [](const Status& s) { return s.IsNotFound() || s.IsIOError(); },
                 "missing.sst");
  // Not a table.
  {
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(fs_->NewWritableFile("/ext/junk.sst", &w));
    ASSERT_OK(w->Append(std::string(4096, 'x')));
    ASSERT_OK(w->Close());
  }
  expect_refused({good, "/ext/junk.sst"}, "junk", [](const Status& s) { return s.IsCorruption(); }, "junk.sst");
  // A damaged data block.
  {
    const std::string bad = WriteRange("damaged.sst", 200, 400, "ext");
    std::string contents;
    std::unique_ptr<RandomAccessFile> r;
    uint64_t size = 0;
    ASSERT_OK(fs_->GetFileSize(bad, &size));
    ASSERT_OK(fs_->NewRandomAccessFile(bad, &r));
    std::string scratch(size, '\0');
    std::string_view data;
    ASSERT_OK(r->Read(0, size, &data, scratch.data()));
    contents.assign(data.data(), data.size());
    contents[100] ^= 0x40;
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(fs_->NewWritableFile(bad, &w));
    ASSERT_OK(w->Append(contents));
    ASSERT_OK(w->Close());
    expect_refused({good, bad}, "damaged", [](const Status& s) { return s.IsCorruption(); }, "damaged.sst");
  }
  // A file written with another comparator.
  class Reverse final : public Comparator {
   public:
    explicit Reverse(const char* name) : name_(name) {}
    int Compare(std::string_view a, std::string_view b) const override {
      return BytewiseComparator()->Compare(b, a);
    }
    const char* Name() const override { return name_; }
    void FindShortestSeparator(std::string*, std::string_view) const override {}
    void FindShortSuccessor(std::string*) const override {}

   private:
    const char* name_;
  };
  Reverse reverse("test.Reverse");
  {
    const std::string path = "/ext/reverse.sst";
    SstFileWriter writer(TableOptions(), kNoCompression, &reverse, fs_);
    ASSERT_OK(writer.Open(path));
    ASSERT_OK(writer.Put("b", "1"));
    ASSERT_OK(writer.Put("a", "2"));
    ASSERT_OK(writer.Finish());
    expect_refused({path}, "comparator", [](const Status& s) { return s.IsInvalidArgument(); }, "test.Reverse");
  }
  // Keys out of order: a file whose comparator claims the DB's name but orders otherwise.
  Reverse impostor(BytewiseComparator()->Name());
  {
    const std::string path = "/ext/unsorted.sst";
    SstFileWriter writer(TableOptions(), kNoCompression, &impostor, fs_);
    ASSERT_OK(writer.Open(path));
    ASSERT_OK(writer.Put("b", "1"));
    ASSERT_OK(writer.Put("a", "2"));
    ASSERT_OK(writer.Finish());
    expect_refused({good, path}, "unsorted", [](const Status& s) { return s.IsCorruption(); }, "out of order");
  }
  // A table written by a DB (entries with real sequence numbers).
  {
    std::vector<std::string> names = DBFiles();
    std::string table;
    for (const std::string& n : names) {
      if (n.size() > 4 && n.substr(n.size() - 4) == ".sst") table = "/db/" + n;
    }
    ASSERT_FALSE(table.empty());
    expect_refused({table}, "db table", [](const Status& s) { return s.IsInvalidArgument(); }, "sequence");
  }
  // The same file twice; no files; write_global_seqno; ingest_behind without the DB option.
  expect_refused({good, good}, "twice", [](const Status& s) { return s.IsInvalidArgument(); }, "twice");
  expect_refused({}, "none", [](const Status& s) { return s.IsInvalidArgument(); }, "no files");
  {
    IngestExternalFileOptions o;
    o.write_global_seqno = true;
    EXPECT_TRUE(Ingest({good}, o).IsInvalidArgument());
    o.write_global_seqno = false;
    o.ingest_behind = true;
    Status s = Ingest({good}, o);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("allow_ingest_behind"), std::string::npos);
  }
  EXPECT_EQ(Scan(), before);
  // The good file still goes in afterwards.
  ASSERT_OK(Ingest({good}));
  EXPECT_EQ(Scan().size(), before.size() + 10);
}

// ------------------------------------------------------------------ Atomicity

// Each failure point of an ingestion of three files (copy writes, syncs, links, the directory
// sync, the MANIFEST): the call fails, the DB reads as before, the DB directory holds no
// ingested file, and after the fault is cleared (and Resume, for a MANIFEST failure) and a
// reopen, the same ingestion succeeds.
TEST_F(DBIngestTest, AFailureAtAnyStepLeavesTheDBAsBefore) {
  struct Point {
    const char* name;
    FI::OpKind kind;
    bool move;
  };
  const Point points[] = {
      {"copy create", FI::OpKind::kCreate, false}, {"copy write", FI::OpKind::kWrite, false},
      {"copy sync", FI::OpKind::kSync, false},     {"dir sync", FI::OpKind::kSyncDir, false},
      {"link", FI::OpKind::kLink, true},           {"manifest write", FI::OpKind::kWrite, true},
      {"manifest sync", FI::OpKind::kSync, true},
  };
  options_.disable_auto_compactions = true;
  Open();
  for (int i = 0; i < 300; i += 3) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  int round = 0;
  int failures = 0;
  for (const Point& p : points) {
    for (uint64_t nth : {1, 2, 3}) {
      SCOPED_TRACE(std::string(p.name) + " #" + std::to_string(nth));
      const std::string tag = "r" + std::to_string(round++);
      const std::vector<std::string> files = {WriteRange(tag + "a.sst", 0, 100, tag),
                                              WriteRange(tag + "b.sst", 100, 200, tag),
                                              WriteRange(tag + "c.sst", 200, 300, tag)};
      const Model before = Scan();
      std::vector<std::string> tables_before;
      for (const std::string& n : DBFiles()) {
        if (n.find(".sst") != std::string::npos) tables_before.push_back(n);
      }
      IngestExternalFileOptions o;
      o.move_files = p.move;
      fs_->ResetOpCounts();
      fs_->InjectError(p.kind, nth, FaultIOError(p.name));
      Status s = Ingest(files, o);
      fs_->ClearInjectedErrors();
      if (s.ok()) {
        // The fault hit a call this ingestion does not make that often (e.g. one directory
        // sync): it must then have been harmless.
        EXPECT_EQ(Get(Key(1)), tag + ":" + Key(1));
        continue;
      }
      failures++;
      EXPECT_EQ(Scan(), before);
      for (const std::string& f : files) EXPECT_TRUE(fs_->FileExists(f).ok()) << f;
      EXPECT_OK(db_->Resume());
      Reopen();
      // A failed MANIFEST write may have recorded the edit whole: then every file is in.
      Model all = before;
      for (int i = 0; i < 300; i++) all[Key(i)] = tag + ":" + Key(i);
      const Model after = Scan();
      if (after == all) continue;
      EXPECT_EQ(after, before);
      std::vector<std::string> tables_after;
      for (const std::string& n : DBFiles()) {
        if (n.find(".sst") != std::string::npos) tables_after.push_back(n);
      }
      EXPECT_EQ(tables_after, tables_before);
      ASSERT_OK(Ingest(files, o));
      EXPECT_EQ(Get(Key(1)), tag + ":" + Key(1));
    }
  }
  EXPECT_GE(failures, 9);  // copy create/write/sync x3, the directory sync, the MANIFEST
}

// A crash (power loss) at any point of an ingestion: after recovery the DB holds either all
// of the files or none of them.
TEST_F(DBIngestTest, CrashDuringIngestionIsAllOrNothing) {
  Open();
  for (int i = 0; i < 300; i += 3) ASSERT_OK(db_->Put(WriteOptions(), Key(i), "db"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  const Model before = Scan();
  int failed = 0, succeeded = 0;
  for (uint64_t nth = 1; nth <= 12; nth++) {
    SCOPED_TRACE(nth);
    const std::string tag = "c" + std::to_string(nth);
    const std::vector<std::string> files = {WriteRange(tag + "a.sst", 0, 100, tag),
                                            WriteRange(tag + "b.sst", 150, 250, tag)};
    // The process "dies" at the nth mutating call: from there on nothing reaches storage.
    fs_->InjectError(FI::OpKind::kWrite, nth, FaultIOError("crash"));
    const Status s = Ingest(files);
    fs_->ClearInjectedErrors();
    fs_->SetFilesystemActive(false);
    db_.reset();  // close without writing anything
    fs_->SetFilesystemActive(true);
    ASSERT_OK(fs_->DropUnsyncedData());
    Open();
    const Model after = Scan();
    Model all = before;
    for (int i = 0; i < 100; i++) all[Key(i)] = tag + ":" + Key(i);
    for (int i = 150; i < 250; i++) all[Key(i)] = tag + ":" + Key(i);
    if (s.ok()) {
      EXPECT_EQ(after, all);
      succeeded++;
    } else {
      // The edit may have reached the MANIFEST whole before the failure: all or nothing.
      if (after != all) {
        EXPECT_EQ(after, before);
      }
      failed++;
    }
    // Back to the starting state for the next round.
    ASSERT_OK(db_->Close());
    db_.reset();
    ASSERT_OK(DestroyDB("/db", options_));
    Open();
    for (const auto& [k, v] : before) ASSERT_OK(db_->Put(WriteOptions(), k, v));
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  // The crash points cover both sides of the commit.
  EXPECT_GT(failed, 2);
  EXPECT_GT(succeeded, 0);
}

// ------------------------------------------------------------------ Model

// Random writes, deletions, range deletions, ingestions of random files (disjoint or
// overlapping the DB, the memtable and one another), snapshots, flushes, compactions and
// reopens, checked against a std::map (and each snapshot against its copy of the map).
TEST_F(DBIngestTest, RandomizedAgainstAModel) {
  options_.write_buffer_size = 64 << 10;
  options_.target_file_size_base = 32 << 10;
  options_.max_bytes_for_level_base = 128 << 10;
  options_.level0_file_num_compaction_trigger = 3;
  Open();
  Random rnd(20261121);
  Model model;
  std::vector<std::pair<const Snapshot*, Model>> snapshots;
  int file_id = 0;
  constexpr int kKeys = 3000;
  for (int step = 0; step < 400; step++) {
    const uint32_t op = rnd.Uniform(100);
    if (op < 50) {
      const std::string k = Key(rnd.Uniform(kKeys));
      const std::string v = "put" + std::to_string(step);
      ASSERT_OK(db_->Put(WriteOptions(), k, v));
      model[k] = v;
    } else if (op < 58) {
      const std::string k = Key(rnd.Uniform(kKeys));
      ASSERT_OK(db_->Delete(WriteOptions(), k));
      model.erase(k);
    } else if (op < 60) {
      const int b = rnd.Uniform(kKeys);
      const int e = b + 1 + rnd.Uniform(30);
      ASSERT_OK(db_->DeleteRange(WriteOptions(), Key(b), Key(e)));
      model.erase(model.lower_bound(Key(b)), model.lower_bound(Key(e)));
    } else if (op < 80) {
      // One to three files; each a random key range, dense or sparse, with some deletions.
      const int nfiles = 1 + rnd.Uniform(3);
      std::vector<std::string> files;
      std::vector<Entries> contents;
      for (int f = 0; f < nfiles; f++) {
        Entries e;
        const int begin = rnd.Uniform(kKeys);
        const int len = 1 + rnd.Uniform(200);
        const int stride = 1 + rnd.Uniform(4);
        for (int i = begin; i < std::min(kKeys, begin + len); i += stride) {
          if (rnd.OneIn(8)) {
            e[Key(i)] = std::nullopt;
          } else {
            e[Key(i)] = "ing" + std::to_string(step) + "." + std::to_string(f);
          }
        }
        files.push_back(WriteFile("m" + std::to_string(file_id++) + ".sst", e));
        contents.push_back(std::move(e));
      }
      IngestExternalFileOptions o;
      o.move_files = rnd.OneIn(2);
      ASSERT_OK(Ingest(files, o));
      for (const Entries& e : contents) {  // in order: a later file wins
        for (const auto& [k, v] : e) {
          if (v.has_value()) {
            model[k] = *v;
          } else {
            model.erase(k);
          }
        }
      }
    } else if (op < 84) {
      snapshots.emplace_back(db_->GetSnapshot(), model);
    } else if (op < 87 && !snapshots.empty()) {
      const size_t i = rnd.Uniform(static_cast<uint32_t>(snapshots.size()));
      EXPECT_EQ(Scan(snapshots[i].first), snapshots[i].second);
      db_->ReleaseSnapshot(snapshots[i].first);
      snapshots.erase(snapshots.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op < 92) {
      ASSERT_OK(db_->Flush(FlushOptions()));
    } else if (op < 95) {
      ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    } else if (op < 97) {
      for (auto& [snap, m] : snapshots) db_->ReleaseSnapshot(snap);
      snapshots.clear();
      Reopen();
    }
    if (step % 25 == 0) {
      ASSERT_EQ(Scan(), model) << "step " << step;
      for (int probe = 0; probe < 50; probe++) {
        const std::string k = Key(rnd.Uniform(kKeys));
        auto it = model.find(k);
        ASSERT_EQ(Get(k), it == model.end() ? "NOT_FOUND" : it->second) << k;
      }
    }
  }
  for (auto& [snap, m] : snapshots) {
    EXPECT_EQ(Scan(snap), m);
    db_->ReleaseSnapshot(snap);
  }
  EXPECT_EQ(Scan(), model);
  Reopen();
  EXPECT_EQ(Scan(), model);
}

}  // namespace
}  // namespace shale
