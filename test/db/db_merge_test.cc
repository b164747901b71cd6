// DB::Merge and merge operators (shale/merge_operator.h) through the public API: operands read
// back merged by Get, MultiGet and iterators wherever they sit (memtable, immutable memtable,
// L0, deeper levels), over values, deletions and range deletions; snapshots reading their own
// merge results across flushes and compactions; the bottommost compaction turning operands into
// one value; failing operators (Corruption, nothing lost); max_successive_merges; WAL replay;
// batches mixing Merge with Put/Delete; a randomized model test and a concurrent one.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "shale/write_batch.h"
#include "db/iterator_walk.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using test::JoinOperator;

// JoinOperator that also records the most operands one full merge was given.
class RecordingJoinOperator : public JoinOperator {
 public:
  explicit RecordingJoinOperator(bool partial = true) : JoinOperator(partial) {}
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    int n = static_cast<int>(in.operand_list.size());
    int seen = max_operands.load();
    while (n > seen && !max_operands.compare_exchange_weak(seen, n)) {
    }
    return JoinOperator::FullMergeV2(in, out);
  }
  mutable std::atomic<int> max_operands{0};
};

// The join without failures: "FAIL" is an item like any other (to read back what a failing
// operator could not merge). Same name as JoinOperator.
class AcceptingJoinOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    std::string result;
    if (in.existing_value != nullptr) result.assign(*in.existing_value);
    bool first = in.existing_value == nullptr;
    for (std::string_view op : in.operand_list) {
      if (!first) result.push_back(',');
      result.append(op);
      first = false;
    }
    out->new_value = std::move(result);
    return true;
  }
  const char* Name() const override { return "test.join"; }
};

using Model = std::map<std::string, std::string>;

class DBMergeTest : public testing::Test {
 protected:
  DBMergeTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.disable_auto_compactions = true;
    options_.merge_operator = op_;
  }
  ~DBMergeTest() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  void Open() { ASSERT_OK(DB::Open(options_, dbname_, &db_)); }
  void Close() {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
    db_.reset();
  }
  void Reopen() {
    if (db_ != nullptr) ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  void Put(std::string_view k, std::string_view v) { ASSERT_OK(db_->Put(WriteOptions(), k, v)); }
  void Merge(std::string_view k, std::string_view v) {
    ASSERT_OK(db_->Merge(WriteOptions(), k, v));
  }
  void Delete(std::string_view k) { ASSERT_OK(db_->Delete(WriteOptions(), k)); }
  void DeleteRange(std::string_view b, std::string_view e) {
    ASSERT_OK(db_->DeleteRange(WriteOptions(), b, e));
  }
  void Flush() { ASSERT_OK(db_->Flush(FlushOptions())); }
  // Everything down to the bottom level, the bottom level rewritten too.
  void CompactAll() {
    CompactRangeOptions co;
    co.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db_->CompactRange(co, nullptr, nullptr));
  }

  std::string Get(std::string_view key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }
  std::string MultiGet(const std::vector<std::string_view>& keys, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::vector<std::string> values;
    std::vector<Status> st = db_->MultiGet(ro, keys, &values);
    std::string out;
    for (size_t i = 0; i < keys.size(); i++) {
      out += st[i].IsNotFound() ? "NOT_FOUND" : st[i].ok() ? values[i] : st[i].ToString();
      out += ";";
    }
    return out;
  }
  std::string Scan(const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    std::string out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out += std::string(it->key()) + "=" + std::string(it->value()) + " ";
    }
    EXPECT_OK(it->status());
    return out;
  }
  std::string ScanReverse(const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    std::string out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out += std::string(it->key()) + "=" + std::string(it->value()) + " ";
    }
    EXPECT_OK(it->status());
    return out;
  }
  static std::string Render(const Model& m) {
    std::string out;
    for (const auto& [k, v] : m) out += k + "=" + v + " ";
    return out;
  }
  static std::string RenderReverse(const Model& m) {
    std::string out;
    for (auto it = m.rbegin(); it != m.rend(); ++it) out += it->first + "=" + it->second + " ";
    return out;
  }
  // Every read path agrees with `m` (at `snap`).
  void ExpectState(const Model& m, const std::vector<std::string>& keys,
                   const Snapshot* snap = nullptr, const std::string& where = "") {
    SCOPED_TRACE(where);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::string expected_multi;
    for (const std::string& k : keys) {
      auto it = m.find(k);
      const std::string want = it == m.end() ? "NOT_FOUND" : it->second;
      EXPECT_EQ(Get(k, snap), want) << "key " << k;
      expected_multi += want + ";";
    }
    EXPECT_EQ(MultiGet(views, snap), expected_multi);
    EXPECT_EQ(Scan(snap), Render(m));
    EXPECT_EQ(ScanReverse(snap), RenderReverse(m));
  }
  uint64_t FilesAtLevel(int level) {
    uint64_t n = 0;
    EXPECT_TRUE(db_->GetIntProperty("shale.num-files-at-level" + std::to_string(level), &n));
    return n;
  }

  std::shared_ptr<RecordingJoinOperator> op_ = std::make_shared<RecordingJoinOperator>();
  Options options_;
  std::string dbname_ = "/db";
  std::unique_ptr<DB> db_;
};

// ---------------------------------------------------------------- Without an operator

TEST_F(DBMergeTest, MergeWithoutOperatorIsInvalidArgument) {
  options_.merge_operator = nullptr;
  Open();
  Status s = db_->Merge(WriteOptions(), "k", "v");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  WriteBatch batch;
  ASSERT_OK(batch.Put("a", "1"));
  ASSERT_OK(batch.Merge("k", "v"));
  s = db_->Write(WriteOptions(), &batch);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // All or nothing: the batch's Put is not applied either.
  EXPECT_EQ(Get("a"), "NOT_FOUND");
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(db_->GetLatestSequenceNumber(), 0u);
}

TEST_F(DBMergeTest, OperandsReadWithoutOperatorAreInvalidArgument) {
  Open();
  Put("a", "1");
  Merge("k", "x");
  Flush();  // (a WAL holding operands cannot be replayed without an operator)
  Close();
  options_.merge_operator = nullptr;
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Get("a"), "1");
  std::string v;
  Status s = db_->Get(ReadOptions(), "k", &v);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->Seek("k");
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
}

// ---------------------------------------------------------------- Where operands sit

TEST_F(DBMergeTest, OperandsInTheMemtableOnly) {
  Open();
  Merge("k", "a");
  EXPECT_EQ(Get("k"), "a");
  Merge("k", "b");
  Merge("k", "c");
  ExpectState({{"k", "a,b,c"}}, {"j", "k", "l"});
  Put("p", "P");
  Merge("p", "q");
  ExpectState({{"k", "a,b,c"}, {"p", "P,q"}}, {"k", "p"});
}

TEST_F(DBMergeTest, OperandsAcrossEverySourceOverABaseInADeeperLevel) {
  Open();
  Put("k", "base");
  Put("a", "A");
  Put("z", "Z");
  Flush();
  CompactAll();
  ASSERT_EQ(FilesAtLevel(0), 0u);
  Model m{{"a", "A"}, {"k", "base"}, {"z", "Z"}};
  const std::vector<std::string> keys{"a", "k", "n", "z"};
  int i = 0;
  auto merge = [&](const std::string& k) {
    const std::string op = "o" + std::to_string(i++);
    Merge(k, op);
    m[k] = m.count(k) ? m[k] + "," + op : op;
  };
  merge("k");
  merge("n");
  Flush();  // L0
  ExpectState(m, keys, nullptr, "one L0 file over the base");
  merge("k");
  merge("n");
  Flush();  // a second L0 file
  EXPECT_EQ(FilesAtLevel(0), 2u);
  merge("k");
  merge("n");  // memtable
  ExpectState(m, keys, nullptr, "memtable + 2 L0 + bottom");
  {
    FlushOptions fo;
    fo.wait = false;  // likely still immutable while read
    ASSERT_OK(db_->Flush(fo));
  }
  merge("k");
  ExpectState(m, keys, nullptr, "memtable + immutable/L0 + bottom");
  Flush();
  ExpectState(m, keys, nullptr, "all flushed");
  CompactAll();
  ExpectState(m, keys, nullptr, "compacted");
  Reopen();
  ExpectState(m, keys, nullptr, "reopened");
}

TEST_F(DBMergeTest, OperandsInSeveralLevelsWithoutABase) {
  options_.num_levels = 4;
  Open();
  // Each flush goes to the lowest level above the older files of its keys.
  Merge("k", "a");
  Flush();
  Merge("k", "b");
  Flush();
  Merge("k", "c");
  Flush();
  Merge("k", "d");
  int levels = 0;
  for (int level = 0; level < options_.num_levels; level++) levels += FilesAtLevel(level) > 0;
  EXPECT_GE(levels, 2) << "the operands should sit in several levels";
  ExpectState({{"k", "a,b,c,d"}}, {"k"});
  CompactAll();
  ExpectState({{"k", "a,b,c,d"}}, {"k"}, nullptr, "compacted");
}

// ---------------------------------------------------------------- Deletions

TEST_F(DBMergeTest, DeleteBetweenOperands) {
  Open();
  Put("k", "base");
  Merge("k", "a");
  Delete("k");
  Merge("k", "b");
  Merge("k", "c");
  Merge("j", "x");
  Delete("j");
  const std::vector<std::string> keys{"j", "k"};
  ExpectState({{"k", "b,c"}}, keys, nullptr, "memtable");
  Flush();
  ExpectState({{"k", "b,c"}}, keys, nullptr, "flushed");
  CompactAll();
  ExpectState({{"k", "b,c"}}, keys, nullptr, "compacted");
}

TEST_F(DBMergeTest, DeleteInANewerSourceThanTheOperands) {
  Open();
  Put("k", "base");
  Merge("k", "a");
  Flush();
  Delete("k");
  Flush();
  Merge("k", "b");
  ExpectState({{"k", "b"}}, {"k"}, nullptr, "split");
  CompactAll();
  ExpectState({{"k", "b"}}, {"k"}, nullptr, "compacted");
}

TEST_F(DBMergeTest, RangeDeletionCoversOlderOperandsAndBase) {
  Open();
  Put("k", "base");
  Merge("k", "a");
  Put("m", "M");
  DeleteRange("k", "l");
  Merge("k", "b");
  Merge("k", "c");
  const std::vector<std::string> keys{"k", "m"};
  const Model m{{"k", "b,c"}, {"m", "M"}};
  ExpectState(m, keys, nullptr, "memtable");
  Flush();
  ExpectState(m, keys, nullptr, "flushed");
  CompactAll();
  ExpectState(m, keys, nullptr, "compacted");
  Reopen();
  ExpectState(m, keys, nullptr, "reopened");
}

TEST_F(DBMergeTest, RangeDeletionInADifferentSourceThanTheOperands) {
  Open();
  Put("k", "base");
  Merge("k", "a");
  Flush();
  CompactAll();  // base + a at the bottom (as one value)
  Merge("k", "b");
  Flush();       // L0: b
  DeleteRange("a", "z");
  Merge("k", "c");  // memtable: tombstone, then c
  const std::vector<std::string> keys{"k"};
  ExpectState({{"k", "c"}}, keys, nullptr, "tombstone in the memtable");
  Flush();  // tombstone and c in one L0 file, b in an older one
  ExpectState({{"k", "c"}}, keys, nullptr, "tombstone in L0");
  Merge("k", "d");
  Flush();
  ExpectState({{"k", "c,d"}}, keys, nullptr, "tombstone in the middle L0 file");
  CompactAll();
  ExpectState({{"k", "c,d"}}, keys, nullptr, "compacted");
}

TEST_F(DBMergeTest, RangeDeletionNewerThanEveryOperand) {
  Open();
  Merge("k", "a");
  Merge("l", "x");
  Flush();
  Merge("k", "b");
  DeleteRange("k", "l");
  const Model m{{"l", "x"}};
  ExpectState(m, {"k", "l"}, nullptr, "memtable tombstone");
  Flush();
  ExpectState(m, {"k", "l"}, nullptr, "flushed");
  CompactAll();
  ExpectState(m, {"k", "l"}, nullptr, "compacted");
}

// ---------------------------------------------------------------- Iterators

class DBMergeIteratorTest : public DBMergeTest {
 protected:
  // Keys mixing plain values and merged keys, spread over the bottom level, L0 and the
  // memtable: a plain; b value + operands; c operands only; d plain; e operands over a
  // deletion; f operands over a covered value; g last, operands only.
  void Build() {
    Open();
    Put("a", "A");
    Put("b", "B");
    Merge("c", "c1");
    Put("d", "D");
    Put("e", "E");
    Put("f", "F");
    Merge("g", "g1");
    Flush();
    CompactAll();
    Merge("b", "b1");
    Merge("c", "c2");
    Delete("e");
    Merge("g", "g2");
    Flush();
    Merge("b", "b2");
    Merge("e", "e1");
    DeleteRange("f", "g");
    Merge("f", "f1");
    Merge("g", "g3");
    model_ = {{"a", "A"},     {"b", "B,b1,b2"}, {"c", "c1,c2"},   {"d", "D"},
              {"e", "e1"},    {"f", "f1"},      {"g", "g1,g2,g3"}};
  }
  Model model_;
  const std::vector<std::string> targets_{"",  "a", "a0", "b", "b0", "c", "c0", "d",
                                          "d0", "e", "e0", "f", "f0", "g", "g0", "z"};
};

TEST_F(DBMergeIteratorTest, ScansBothWays) {
  Build();
  ExpectState(model_, {"a", "b", "c", "d", "e", "f", "g"});
}

TEST_F(DBMergeIteratorTest, PrevRightAfterLandingOnAMergedKeyForward) {
  Build();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->Seek("b");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_EQ(it->value(), "B,b1,b2");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "a");
  EXPECT_EQ(it->value(), "A");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_EQ(it->value(), "B,b1,b2");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  EXPECT_EQ(it->value(), "c1,c2");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_EQ(it->value(), "B,b1,b2");
  // The last key is merged: the internal iterator ran off the end while merging.
  it->Seek("g");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "g1,g2,g3");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "f");
  EXPECT_EQ(it->value(), "f1");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "e");
  EXPECT_EQ(it->value(), "e1");
  it->Next();
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "g");
  it->Next();
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
}

TEST_F(DBMergeIteratorTest, NextAfterReverseOnAMergedKey) {
  Build();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekForPrev("c5");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  EXPECT_EQ(it->value(), "c1,c2");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "d");
  it->Prev();
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_EQ(it->value(), "B,b1,b2");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "c");
  EXPECT_EQ(it->value(), "c1,c2");
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "g");
  EXPECT_EQ(it->value(), "g1,g2,g3");
  it->Next();
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
}

TEST_F(DBMergeIteratorTest, RandomWalksWithAndWithoutBounds) {
  Build();
  Random rnd(301);
  const std::vector<std::string> bounds{"", "a", "b", "b0", "c", "e", "f", "g", "h"};
  for (int round = 0; round < 200; round++) {
    ReadOptions ro;
    std::string_view lo, hi;
    if (rnd.Uniform(2) == 0) {
      lo = bounds[rnd.Uniform(bounds.size())];
      ro.iterate_lower_bound = &lo;
    }
    if (rnd.Uniform(2) == 0) {
      hi = bounds[rnd.Uniform(bounds.size())];
      ro.iterate_upper_bound = &hi;
    }
    SCOPED_TRACE("round " + std::to_string(round) + " lo=" + std::string(lo) +
                 " hi=" + std::string(hi));
    ASSERT_EQ(test::RandomWalk(db_.get(), model_, ro, &rnd, 30, targets_), "");
    if (HasFatalFailure()) return;
  }
  // The same after everything is compacted into plain values.
  CompactAll();
  for (int round = 0; round < 20; round++) {
    ASSERT_EQ(test::RandomWalk(db_.get(), model_, ReadOptions(), &rnd, 30, targets_), "");
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------- Snapshots

TEST_F(DBMergeTest, SnapshotsKeepTheirMergeResultsThroughFlushAndCompaction) {
  Open();
  Put("k", "v");
  Merge("k", "a");
  Merge("j", "x");
  const Snapshot* s1 = db_->GetSnapshot();
  Merge("k", "b");
  Merge("j", "y");
  const Snapshot* s2 = db_->GetSnapshot();
  Delete("k");
  Merge("k", "c");
  const Snapshot* s3 = db_->GetSnapshot();
  Merge("k", "d");
  Merge("j", "z");
  const std::vector<std::string> keys{"j", "k"};
  auto check = [&](const std::string& where) {
    ExpectState({{"j", "x"}, {"k", "v,a"}}, keys, s1, where + " s1");
    ExpectState({{"j", "x,y"}, {"k", "v,a,b"}}, keys, s2, where + " s2");
    ExpectState({{"j", "x,y"}, {"k", "c"}}, keys, s3, where + " s3");
    ExpectState({{"j", "x,y,z"}, {"k", "c,d"}}, keys, nullptr, where + " latest");
  };
  check("memtable");
  Flush();
  check("flushed");
  CompactAll();
  check("compacted");
  Merge("k", "e");
  Flush();
  CompactAll();
  ExpectState({{"j", "x,y,z"}, {"k", "c,d,e"}}, keys, nullptr, "compacted twice");
  ExpectState({{"j", "x"}, {"k", "v,a"}}, keys, s1, "compacted twice s1");
  db_->ReleaseSnapshot(s1);
  db_->ReleaseSnapshot(s2);
  CompactAll();
  ExpectState({{"j", "x,y"}, {"k", "c"}}, keys, s3, "released s1 s2");
  db_->ReleaseSnapshot(s3);
  CompactAll();
  ExpectState({{"j", "x,y,z"}, {"k", "c,d,e"}}, keys, nullptr, "all released");
}

TEST_F(DBMergeTest, SnapshotBetweenOperandsWithoutBase) {
  Open();
  Merge("k", "a");
  Merge("k", "b");
  const Snapshot* s = db_->GetSnapshot();
  Merge("k", "c");
  Flush();
  CompactAll();
  EXPECT_EQ(Get("k", s), "a,b");
  EXPECT_EQ(Get("k"), "a,b,c");
  Merge("k", "d");
  Flush();
  CompactAll();
  EXPECT_EQ(Get("k", s), "a,b");
  EXPECT_EQ(Get("k"), "a,b,c,d");
  db_->ReleaseSnapshot(s);
}

// ---------------------------------------------------------------- Compaction results

TEST_F(DBMergeTest, BottommostCompactionLeavesOneValue) {
  Open();
  for (int i = 0; i < 5; i++) {
    Merge("k", "o" + std::to_string(i));
    Flush();
  }
  op_->full_merges = 0;
  EXPECT_EQ(Get("k"), "o0,o1,o2,o3,o4");
  EXPECT_EQ(op_->full_merges.load(), 1);  // the read merges the operands
  CompactAll();
  op_->full_merges = 0;
  op_->max_operands = 0;
  EXPECT_EQ(Get("k"), "o0,o1,o2,o3,o4");
  EXPECT_EQ(Scan(), "k=o0,o1,o2,o3,o4 ");
  EXPECT_EQ(op_->full_merges.load(), 0) << "a plain value after the bottommost compaction";
}

TEST_F(DBMergeTest, FlushPartialMergesOperandsWithoutABase) {
  Open();
  for (int i = 0; i < 4; i++) Merge("k", "o" + std::to_string(i));
  Flush();
  op_->max_operands = 0;
  EXPECT_EQ(Get("k"), "o0,o1,o2,o3");
  EXPECT_EQ(op_->max_operands.load(), 1) << "the flush combines the operands into one";
}

// ---------------------------------------------------------------- Long operand chains, ingestion

// A key whose operands fill many blocks and, above the bottom, several files of one level (an
// operator that cannot combine operands, and a reserved last level so no compaction is
// bottommost): every read path must follow the key from block to block and file to file.
TEST_F(DBMergeTest, OperandsSpanningBlocksAndFiles) {
  op_ = std::make_shared<RecordingJoinOperator>(/*partial=*/false);
  options_.merge_operator = op_;
  options_.allow_ingest_behind = true;
  options_.num_levels = 3;
  options_.target_file_size_base = 16 << 10;
  options_.table_options.block_size = 256;
  Open();
  Put("a", "A");
  Put("z", "Z");
  std::string want;
  auto merge_many = [&](int from, int to) {
    for (int i = from; i < to; i++) {
      std::string tok = "t" + std::to_string(i) + std::string(60, 'x');
      Merge("k", tok);
      want += (want.empty() ? "" : ",") + tok;
    }
  };
  merge_many(0, 500);
  Flush();
  ExpectState({{"a", "A"}, {"k", want}, {"z", "Z"}}, {"a", "k", "z"}, nullptr, "one file");
  CompactAll();  // rewrites the file, cut into small ones
  EXPECT_GE(FilesAtLevel(1), 2u) << "the operands should span files of level 1";
  const Snapshot* snap = db_->GetSnapshot();
  const std::string at_snap = want;
  ExpectState({{"a", "A"}, {"k", want}, {"z", "Z"}}, {"a", "k", "z"}, nullptr, "level 1");
  {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    it->Seek("k");
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value(), want);
    it->Prev();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), "a");
    it->Next();
    it->Next();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), "z");
    it->Prev();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value(), want);
  }
  merge_many(500, 700);
  Flush();
  std::string_view b("k"), e("k");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), &b, &e));
  ExpectState({{"a", "A"}, {"k", want}, {"z", "Z"}}, {"a", "k", "z"}, nullptr, "recompacted");
  ExpectState({{"a", "A"}, {"k", at_snap}, {"z", "Z"}}, {"a", "k", "z"}, snap, "snapshot");
  db_->ReleaseSnapshot(snap);
  // A base ingested behind everything is the oldest value the operands apply to.
  ASSERT_OK(options_.file_system->CreateDirIfMissing("/ext"));
  SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                       options_.file_system);
  ASSERT_OK(writer.Open("/ext/behind.sst"));
  ASSERT_OK(writer.Put("k", "base"));
  ASSERT_OK(writer.Put("m", "M"));
  ASSERT_OK(writer.Finish());
  IngestExternalFileOptions io;
  io.ingest_behind = true;
  ASSERT_OK(db_->IngestExternalFile({"/ext/behind.sst"}, io));
  const Model m{{"a", "A"}, {"k", "base," + want}, {"m", "M"}, {"z", "Z"}};
  ExpectState(m, {"a", "k", "m", "z"}, nullptr, "ingested behind");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ExpectState(m, {"a", "k", "m", "z"}, nullptr, "ingested behind, compacted");
  Reopen();
  ExpectState(m, {"a", "k", "m", "z"}, nullptr, "ingested behind, reopened");
}

TEST_F(DBMergeTest, IngestedValueOverOperands) {
  Open();
  Merge("k", "a");
  Merge("j", "x");
  Flush();
  Merge("k", "b");  // in the memtable: the ingestion flushes it first
  ASSERT_OK(options_.file_system->CreateDirIfMissing("/ext"));
  SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                       options_.file_system);
  ASSERT_OK(writer.Open("/ext/over.sst"));
  ASSERT_OK(writer.Put("k", "I"));
  ASSERT_OK(writer.Finish());
  ASSERT_OK(db_->IngestExternalFile({"/ext/over.sst"}, IngestExternalFileOptions()));
  ExpectState({{"j", "x"}, {"k", "I"}}, {"j", "k"}, nullptr, "ingested");
  Merge("k", "c");
  ExpectState({{"j", "x"}, {"k", "I,c"}}, {"j", "k"}, nullptr, "merged onto the ingested value");
  Flush();
  CompactAll();
  ExpectState({{"j", "x"}, {"k", "I,c"}}, {"j", "k"}, nullptr, "compacted");
}

// ---------------------------------------------------------------- Failing operators

class DBMergeFailureTest : public DBMergeTest {
 protected:
  // Reopens with the operator that accepts "FAIL" and checks nothing was lost.
  void ReopenAcceptingAndCheck(const std::string& failing_value) {
    Close();
    options_.merge_operator = std::make_shared<AcceptingJoinOperator>();
    Open();
    EXPECT_EQ(Get("k"), failing_value);
    EXPECT_EQ(Get("a"), "A");
    EXPECT_EQ(Get("z"), "Z,z1");
    CompactAll();
    EXPECT_EQ(Get("k"), failing_value);
    EXPECT_EQ(Get("z"), "Z,z1");
  }
};

TEST_F(DBMergeFailureTest, ReadsReportTheOperatorsError) {
  Open();
  Put("a", "A");
  Put("k", "v");
  Merge("k", "FAIL");
  Put("z", "Z");
  Merge("z", "z1");
  std::string v;
  Status s = db_->Get(ReadOptions(), "k", &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("operand FAIL refused"), std::string::npos) << s.ToString();
  EXPECT_EQ(MultiGet({"a", "z"}), "A;Z,z1;");
  std::vector<std::string> values;
  std::vector<Status> st = db_->MultiGet(ReadOptions(), {"a", "k"}, &values);
  EXPECT_OK(st[0]);
  EXPECT_TRUE(st[1].IsCorruption()) << st[1].ToString();
  // Iterators stop at the key with the error.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "a");
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_NE(it->status().ToString().find("operand FAIL refused"), std::string::npos);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "z");
  EXPECT_EQ(it->value(), "Z,z1");
  it->Prev();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  it->Seek("z");  // a new seek starts clean
  ASSERT_TRUE(it->Valid());
  EXPECT_OK(it->status());
}

TEST_F(DBMergeFailureTest, FailingFlushKeepsTheData) {
  Open();
  Put("a", "A");
  Put("k", "v");
  Merge("k", "FAIL");
  Put("z", "Z");
  Merge("z", "z1");
  Status s = db_->Flush(FlushOptions());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("operand FAIL refused"), std::string::npos) << s.ToString();
  // The DB is in the error state: the cause is reported, writes fail, reads still work.
  std::string error;
  EXPECT_TRUE(db_->GetProperty("shale.background-error", &error));
  EXPECT_NE(error.find("operand FAIL refused"), std::string::npos) << error;
  EXPECT_FALSE(db_->Put(WriteOptions(), "b", "B").ok());
  EXPECT_EQ(Get("a"), "A");
  EXPECT_EQ(Get("z"), "Z,z1");
  ReopenAcceptingAndCheck("v,FAIL");
}

TEST_F(DBMergeFailureTest, FailingCompactionKeepsTheData) {
  Open();
  Put("a", "A");
  Put("k", "v");
  Put("z", "Z");
  Flush();
  CompactAll();
  Merge("k", "FAIL");
  Merge("z", "z1");
  Flush();  // no base in the memtable: nothing to merge fully yet
  Status s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("operand FAIL refused"), std::string::npos) << s.ToString();
  std::string error;
  EXPECT_TRUE(db_->GetProperty("shale.background-error", &error));
  EXPECT_NE(error.find("operand FAIL refused"), std::string::npos) << error;
  EXPECT_EQ(Get("a"), "A");
  EXPECT_EQ(Get("z"), "Z,z1");
  ReopenAcceptingAndCheck("v,FAIL");
}

// ---------------------------------------------------------------- max_successive_merges

TEST_F(DBMergeTest, MaxSuccessiveMergesBoundsTheOperandsInTheMemtable) {
  options_.max_successive_merges = 3;
  Open();
  std::string want;
  for (int i = 0; i < 3; i++) {
    Merge("k", "o" + std::to_string(i));
    want += (want.empty() ? "" : ",") + ("o" + std::to_string(i));
  }
  EXPECT_EQ(op_->full_merges.load(), 0) << "under the bound: no merge at write time";
  for (int i = 3; i < 20; i++) {
    Merge("k", "o" + std::to_string(i));
    want += ",o" + std::to_string(i);
  }
  EXPECT_GT(op_->full_merges.load(), 0) << "merged at write time";
  op_->max_operands = 0;
  EXPECT_EQ(Get("k"), want);
  EXPECT_LE(op_->max_operands.load(), 3);

  // Off: operands pile up.
  ASSERT_OK(db_->SetOptions({{"max_successive_merges", "0"}}));
  EXPECT_EQ(db_->GetOptions().max_successive_merges, 0u);
  const int before = op_->full_merges.load();
  for (int i = 20; i < 30; i++) {
    Merge("k", "o" + std::to_string(i));
    want += ",o" + std::to_string(i);
  }
  EXPECT_EQ(op_->full_merges.load(), before);
  op_->max_operands = 0;
  EXPECT_EQ(Get("k"), want);
  EXPECT_GE(op_->max_operands.load(), 10);

  // Back on with 2.
  ASSERT_OK(db_->SetOptions({{"max_successive_merges", "2"}}));
  for (int i = 30; i < 40; i++) {
    Merge("k", "o" + std::to_string(i));
    want += ",o" + std::to_string(i);
  }
  op_->max_operands = 0;
  EXPECT_EQ(Get("k"), want);
  EXPECT_LE(op_->max_operands.load(), 2);
  Reopen();
  EXPECT_EQ(Get("k"), want);
  Merge("k", "last");
  EXPECT_EQ(Get("k"), want + ",last");
}

TEST_F(DBMergeTest, MaxSuccessiveMergesSeesOlderSourcesAndDeletions) {
  options_.max_successive_merges = 2;
  Open();
  Put("k", "base");
  Flush();
  Merge("k", "a");
  Merge("k", "b");
  Merge("k", "c");  // merged at write time onto base (in a table)
  EXPECT_EQ(Get("k"), "base,a,b,c");
  DeleteRange("k", "l");
  Merge("k", "d");
  Merge("k", "e");
  Merge("k", "f");
  EXPECT_EQ(Get("k"), "d,e,f");
  const Snapshot* s = db_->GetSnapshot();
  Merge("k", "g");
  Merge("k", "h");
  EXPECT_EQ(Get("k", s), "d,e,f");
  EXPECT_EQ(Get("k"), "d,e,f,g,h");
  Flush();
  CompactAll();
  EXPECT_EQ(Get("k", s), "d,e,f");
  EXPECT_EQ(Get("k"), "d,e,f,g,h");
  db_->ReleaseSnapshot(s);
}

TEST_F(DBMergeTest, MaxSuccessiveMergesWithAFailingOperandKeepsIt) {
  options_.max_successive_merges = 1;
  Open();
  Put("k", "v");
  Merge("k", "FAIL");
  Merge("k", "x");  // the write-time merge fails: the operand is kept
  Status s;
  std::string v;
  s = db_->Get(ReadOptions(), "k", &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  Close();
  options_.merge_operator = std::make_shared<AcceptingJoinOperator>();
  options_.max_successive_merges = 0;
  Open();
  EXPECT_EQ(Get("k"), "v,FAIL,x");
}

TEST_F(DBMergeTest, MaxSuccessiveMergesSeesARangeDeletionOfTheSameBatch) {
  options_.max_successive_merges = 1;
  Open();
  Put("k", "base");
  Merge("k", "a");
  WriteBatch batch;
  ASSERT_OK(batch.DeleteRange("k", "l"));
  ASSERT_OK(batch.Merge("k", "x"));  // one operand on top: merged at write time, onto nothing
  ASSERT_OK(batch.Merge("k", "y"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  EXPECT_EQ(Get("k"), "x,y");
  Flush();
  EXPECT_EQ(Get("k"), "x,y");
}

TEST_F(DBMergeTest, MergeOptionsThroughSetOptions) {
  Open();
  EXPECT_FALSE(db_->SetOptions({{"merge_operator", "uint64add"}}).ok())
      << "merge_operator is not dynamic";
  EXPECT_FALSE(db_->SetOptions({{"max_successive_merges", "many"}}).ok());
  EXPECT_EQ(db_->GetOptions().merge_operator, op_);
  ASSERT_OK(db_->SetOptions({{"max_successive_merges", "5"}}));
  EXPECT_EQ(db_->GetOptions().max_successive_merges, 5u);
}

// An operator whose result is one of its inputs, returned through existing_operand: the newest
// operand wins. The engine must copy it before the inputs go away.
class LastOperandOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    out->existing_operand = in.operand_list.back();
    return true;
  }
  bool PartialMerge(std::string_view, std::string_view, std::string_view right,
                    std::string* new_value) const override {
    new_value->assign(right);
    return true;
  }
  const char* Name() const override { return "test.last"; }
};

TEST_F(DBMergeTest, ResultThroughExistingOperandIsCopied) {
  options_.merge_operator = std::make_shared<LastOperandOperator>();
  Open();
  Put("k", "base");
  auto operand = [](int i) {
    std::string v(1, 'v');
    v += std::to_string(i);
    v.append(100, 'x');
    return v;
  };
  for (int i = 0; i < 50; i++) Merge("k", operand(i));
  Merge("j", "only");
  const std::string want = operand(49);
  ExpectState({{"j", "only"}, {"k", want}}, {"j", "k"}, nullptr, "memtable");
  Flush();
  ExpectState({{"j", "only"}, {"k", want}}, {"j", "k"}, nullptr, "flushed");
  CompactAll();
  ExpectState({{"j", "only"}, {"k", want}}, {"j", "k"}, nullptr, "compacted");
}

// ---------------------------------------------------------------- WAL replay and batches

TEST_F(DBMergeTest, OperandsSurviveReopen) {
  Open();
  Put("k", "v");
  Merge("k", "a");
  Merge("j", "x");
  Merge("k", "b");
  Reopen();
  ExpectState({{"j", "x"}, {"k", "v,a,b"}}, {"j", "k"}, nullptr, "replayed");
  Merge("k", "c");
  Reopen();
  ExpectState({{"j", "x"}, {"k", "v,a,b,c"}}, {"j", "k"}, nullptr, "replayed twice");
}

TEST_F(DBMergeTest, BatchMixesMergeWithPutAndDeleteOfTheSameKey) {
  Open();
  Put("k", "old");
  WriteBatch batch;
  ASSERT_OK(batch.Merge("k", "a"));
  ASSERT_OK(batch.Put("k", "p"));
  ASSERT_OK(batch.Merge("k", "b"));
  ASSERT_OK(batch.Delete("j"));
  ASSERT_OK(batch.Merge("j", "x"));
  ASSERT_OK(batch.Merge("i", "y"));
  ASSERT_OK(batch.Delete("i"));
  ASSERT_OK(batch.Merge("h", "1"));
  ASSERT_OK(batch.Merge("h", "2"));
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  const Model m{{"h", "1,2"}, {"j", "x"}, {"k", "p,b"}};
  const std::vector<std::string> keys{"h", "i", "j", "k"};
  ExpectState(m, keys, nullptr, "memtable");
  Reopen();
  ExpectState(m, keys, nullptr, "replayed");
  Flush();
  ExpectState(m, keys, nullptr, "flushed");
  CompactAll();
  ExpectState(m, keys, nullptr, "compacted");
}

TEST_F(DBMergeTest, BatchWithMaxSuccessiveMerges) {
  options_.max_successive_merges = 2;
  Open();
  WriteBatch batch;
  std::string want;
  for (int i = 0; i < 7; i++) {
    ASSERT_OK(batch.Merge("k", std::to_string(i)));
    want += (i ? "," : "") + std::to_string(i);
    if (i == 3) {
      ASSERT_OK(batch.Put("k", "P"));
      want = "P";
    }
  }
  ASSERT_OK(db_->Write(WriteOptions(), &batch));
  EXPECT_EQ(Get("k"), want);
  Reopen();
  EXPECT_EQ(Get("k"), want);
}

// ---------------------------------------------------------------- Randomized model test

struct ModelParam {
  bool partial;
  size_t max_successive_merges;
  bool auto_compactions;
  bool universal = false;
};

class DBMergeModelTest : public DBMergeTest, public testing::WithParamInterface<ModelParam> {};

TEST_P(DBMergeModelTest, RandomOperationsMatchTheModel) {
  const ModelParam p = GetParam();
  op_ = std::make_shared<RecordingJoinOperator>(p.partial);
  options_.merge_operator = op_;
  options_.max_successive_merges = p.max_successive_merges;
  options_.disable_auto_compactions = !p.auto_compactions;
  options_.level0_file_num_compaction_trigger = 2;
  options_.write_buffer_size = 64 << 10;
  options_.num_levels = 4;
  if (p.universal) options_.compaction_style = kCompactionStyleUniversal;
  Open();
  // SHALE_MERGE_TEST_SEED varies the run (to search more histories); the default is fixed.
  const char* env_seed = std::getenv("SHALE_MERGE_TEST_SEED");
  const uint64_t seed = (env_seed != nullptr ? std::strtoull(env_seed, nullptr, 10) : 0) * 1000 +
                        (p.partial ? 1 : 0) + 10 * p.max_successive_merges +
                        (p.auto_compactions ? 100 : 0) + (p.universal ? 200 : 0);
  SCOPED_TRACE("seed " + std::to_string(seed));
  Random rnd(seed);
  const int kKeys = 8;
  auto key = [](int i) { return "k" + std::to_string(i); };
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; i++) keys.push_back(key(i));
  Model model;
  std::vector<std::pair<const Snapshot*, Model>> snaps;
  int token = 0;
  auto apply_merge = [&](Model* m, const std::string& k, const std::string& v) {
    auto it = m->find(k);
    (*m)[k] = it == m->end() ? v : it->second + "," + v;
  };
  std::vector<std::string> targets{"", "z"};
  for (int i = 0; i < kKeys; i++) {
    targets.push_back(key(i));
    targets.push_back(key(i) + "x");
  }
  for (int step = 0; step < 2500; step++) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int r = static_cast<int>(rnd.Uniform(100));
    const std::string k = key(static_cast<int>(rnd.Uniform(kKeys)));
    if (r < 45) {
      // Now and then a long operand, so that memtables also fill up and flush on their own.
      const std::string v = "m" + std::to_string(token++) +
                            (rnd.Uniform(20) == 0 ? std::string(2000, '.') : std::string());
      Merge(k, v);
      apply_merge(&model, k, v);
    } else if (r < 55) {
      const std::string v = "p" + std::to_string(token++);
      Put(k, v);
      model[k] = v;
    } else if (r < 60) {
      Delete(k);
      model.erase(k);
    } else if (r < 62) {
      int a = static_cast<int>(rnd.Uniform(kKeys)), b = static_cast<int>(rnd.Uniform(kKeys + 1));
      if (a > b) std::swap(a, b);
      const std::string e = b == kKeys ? "z" : key(b);
      DeleteRange(key(a), e);
      for (auto it = model.lower_bound(key(a)); it != model.end() && it->first < e;) {
        it = model.erase(it);
      }
    } else if (r < 67) {
      WriteBatch batch;
      const int n = 1 + static_cast<int>(rnd.Uniform(6));
      for (int j = 0; j < n; j++) {
        const std::string bk = key(static_cast<int>(rnd.Uniform(kKeys)));
        const std::string v = "b" + std::to_string(token++);
        const int t = static_cast<int>(rnd.Uniform(20));
        if (t < 12) {
          ASSERT_OK(batch.Merge(bk, v));
          apply_merge(&model, bk, v);
        } else if (t < 17) {
          ASSERT_OK(batch.Put(bk, v));
          model[bk] = v;
        } else if (t < 19) {
          ASSERT_OK(batch.Delete(bk));
          model.erase(bk);
        } else {
          // [bk, bk + "x"): bk alone.
          ASSERT_OK(batch.DeleteRange(bk, bk + "x"));
          model.erase(bk);
        }
      }
      ASSERT_OK(db_->Write(WriteOptions(), &batch));
    } else if (r < 71) {
      Flush();
    } else if (r < 72) {
      if (rnd.Uniform(2) == 0) {
        CompactAll();
      } else {
        std::string b = key(static_cast<int>(rnd.Uniform(kKeys)));
        std::string e = key(static_cast<int>(rnd.Uniform(kKeys)));
        if (b > e) std::swap(b, e);
        std::string_view bv(b), ev(e);
        ASSERT_OK(db_->CompactRange(CompactRangeOptions(), &bv, &ev));
      }
    } else if (r < 74) {
      if (snaps.size() < 4) snaps.emplace_back(db_->GetSnapshot(), model);
    } else if (r < 75) {
      if (!snaps.empty()) {
        const size_t i = rnd.Uniform(snaps.size());
        db_->ReleaseSnapshot(snaps[i].first);
        snaps.erase(snaps.begin() + static_cast<std::ptrdiff_t>(i));
      }
    } else if (r < 76) {
      for (auto& s : snaps) db_->ReleaseSnapshot(s.first);
      snaps.clear();
      Reopen();
    } else if (r < 96) {
      // A point read at the latest state or at a snapshot.
      const Snapshot* snap = nullptr;
      const Model* m = &model;
      if (!snaps.empty() && rnd.Uniform(3) == 0) {
        const size_t i = rnd.Uniform(snaps.size());
        snap = snaps[i].first;
        m = &snaps[i].second;
      }
      auto it = m->find(k);
      ASSERT_EQ(Get(k, snap), it == m->end() ? "NOT_FOUND" : it->second) << "key " << k;
    } else {
      ReadOptions ro;
      const Model* m = &model;
      if (!snaps.empty() && rnd.Uniform(2) == 0) {
        const size_t i = rnd.Uniform(snaps.size());
        ro.snapshot = snaps[i].first;
        m = &snaps[i].second;
      }
      std::string_view lo, hi;
      if (rnd.Uniform(3) == 0) {
        lo = targets[rnd.Uniform(targets.size())];
        ro.iterate_lower_bound = &lo;
      }
      if (rnd.Uniform(3) == 0) {
        hi = targets[rnd.Uniform(targets.size())];
        ro.iterate_upper_bound = &hi;
      }
      ASSERT_EQ(test::RandomWalk(db_.get(), *m, ro, &rnd, 20, targets), "");
    }
    if (HasFatalFailure()) return;
  }
  for (size_t i = 0; i < snaps.size(); i++) {
    ExpectState(snaps[i].second, keys, snaps[i].first, "final snapshot " + std::to_string(i));
  }
  ExpectState(model, keys, nullptr, "final");
  for (auto& s : snaps) db_->ReleaseSnapshot(s.first);
  CompactAll();
  ExpectState(model, keys, nullptr, "final compacted");
  Reopen();
  ExpectState(model, keys, nullptr, "final reopened");
}

INSTANTIATE_TEST_SUITE_P(Operators, DBMergeModelTest,
                         testing::Values(ModelParam{true, 0, false}, ModelParam{false, 0, false},
                                         ModelParam{true, 3, false}, ModelParam{false, 2, true},
                                         ModelParam{true, 0, true},
                                         ModelParam{false, 0, true, /*universal=*/true}),
                         [](const testing::TestParamInfo<ModelParam>& info) {
                           return std::string(info.param.partial ? "Partial" : "NoPartial") +
                                  "Max" + std::to_string(info.param.max_successive_merges) +
                                  (info.param.auto_compactions ? "Auto" : "Manual") +
                                  (info.param.universal ? "Universal" : "");
                         });

// ---------------------------------------------------------------- Concurrency

// Per writer thread, the indices of its tokens in a joined value ("T<t>.<i>,..."), in order.
std::vector<std::vector<int>> TokensByThread(const std::string& value, int threads) {
  std::vector<std::vector<int>> by(threads);
  size_t start = 0;
  while (start < value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    const std::string tok = value.substr(start, end - start);
    const size_t dot = tok.find('.');
    const int t = std::stoi(tok.substr(1, dot - 1));
    by[t].push_back(std::stoi(tok.substr(dot + 1)));
    start = end + 1;
  }
  return by;
}

class DBMergeConcurrencyTest : public DBMergeTest,
                               public testing::WithParamInterface<size_t> {};

TEST_P(DBMergeConcurrencyTest, MergesRacingFlushesAndCompactionsKeepEveryToken) {
  options_.max_successive_merges = GetParam();
  options_.disable_auto_compactions = false;
  options_.level0_file_num_compaction_trigger = 2;
  options_.write_buffer_size = 64 << 10;
  options_.num_levels = 4;
  options_.max_subcompactions = 2;
  Open();
  constexpr int kThreads = 2;
  constexpr int kKeys = 3;
  constexpr int kPerThread = 2000;
  auto key = [](int i) { return "hot" + std::to_string(i); };
  // written[t][k]: the indices thread t merged into key k, in order.
  std::vector<std::vector<std::vector<int>>> written(kThreads,
                                                     std::vector<std::vector<int>>(kKeys));
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; t++) {
    writers.emplace_back([&, t] {
      Random rnd(77 + t);
      for (int i = 0; i < kPerThread; i++) {
        const int k = static_cast<int>(rnd.Uniform(kKeys));
        const std::string tok = "T" + std::to_string(t) + "." + std::to_string(i);
        if (!db_->Merge(WriteOptions(), key(k), tok).ok()) errors++;
        written[t][k].push_back(i);
      }
    });
  }
  // Flushes and compactions racing the writers.
  std::thread maintenance([&] {
    int n = 0;
    while (!done.load()) {
      if (!db_->Flush(FlushOptions()).ok()) errors++;
      if (++n % 4 == 0 && !db_->CompactRange(CompactRangeOptions(), nullptr, nullptr).ok()) {
        errors++;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  // A reader: each read value holds, per thread, a prefix of what the thread wrote, growing.
  std::vector<std::string> observed;
  std::thread reader([&] {
    while (!done.load()) {
      for (int k = 0; k < kKeys; k++) {
        std::string v;
        Status s = db_->Get(ReadOptions(), key(k), &v);
        if (s.ok()) {
          if (observed.size() < 4000) observed.push_back(key(k) + "=" + v);
        } else if (!s.IsNotFound()) {
          errors++;
        }
      }
      std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        if (observed.size() < 4000) observed.push_back(std::string(it->key()) + "=" +
                                                       std::string(it->value()));
      }
      if (!it->status().ok()) errors++;
    }
  });
  for (std::thread& w : writers) w.join();
  done = true;
  maintenance.join();
  reader.join();
  ASSERT_EQ(errors.load(), 0);

  auto check_prefix = [&](const std::string& kv) {
    const size_t eq = kv.find('=');
    const int k = std::stoi(kv.substr(3, eq - 3));
    std::vector<std::vector<int>> by = TokensByThread(kv.substr(eq + 1), kThreads);
    for (int t = 0; t < kThreads; t++) {
      const std::vector<int>& w = written[t][k];
      ASSERT_LE(by[t].size(), w.size()) << kv;
      ASSERT_TRUE(std::equal(by[t].begin(), by[t].end(), w.begin())) << "thread " << t << " " << kv;
    }
  };
  for (const std::string& kv : observed) {
    check_prefix(kv);
    if (HasFatalFailure()) return;
  }
  auto check_final = [&](const std::string& where) {
    SCOPED_TRACE(where);
    for (int k = 0; k < kKeys; k++) {
      std::string v;
      ASSERT_OK(db_->Get(ReadOptions(), key(k), &v));
      std::vector<std::vector<int>> by = TokensByThread(v, kThreads);
      for (int t = 0; t < kThreads; t++) {
        ASSERT_EQ(by[t], written[t][k]) << "thread " << t << " key " << key(k);
      }
    }
  };
  check_final("after the race");
  CompactAll();
  check_final("compacted");
  Reopen();
  check_final("reopened");
}

INSTANTIATE_TEST_SUITE_P(MaxSuccessiveMerges, DBMergeConcurrencyTest, testing::Values(0, 3));

}  // namespace
}  // namespace shale
